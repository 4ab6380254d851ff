// @ts-check
// Aiming with a finger. A fingertip covers about 44 CSS pixels, far more than a route drawn at phone size,
// so a tap on the board goes to the target nearest to it (a route or a city, within reach) rather than to
// whatever lies exactly under its centre; where two targets lie about as near, a menu of the near ones asks
// which (buttons of 44 pixels). On the whole board, where routes lie a few pixels apart, a tap first zooms
// in around itself (one step) to the scale at which nine routes in ten are targets of 44 pixels or more.
// Mouse and pen clicks are left to the elements under the pointer.
import { h } from "./common.js";
import { t } from "./i18n.js";

const TARGET_PX = 44; // the smallest touch target (WCAG 2.5.5, Apple and Android guidelines)
const REACH_PX = TARGET_PX / 2 + 4; // how far from its target a tap may land
const CLEAR_PX = 12; // a tap this much nearer to one target than to the next means that one, without asking
const AIM_SHARE = 0.9; // the share of the segments that the aim step makes targets of TARGET_PX
const AIM_MAX = 4; // the aim step zooms no further: the board must still show where a route goes

/**
 * @typedef {{x1: number, y1: number, x2: number, y2: number, group: number, label: string, fire: () => void}}
 *   Segment  a target along a line (a route): lanes of one double route share a group, and count as one
 * @typedef {{x: number, y: number, r: number, label: string, fire: () => void}} Point  a target at a point
 *   (a city drawn with radius r)
 * @typedef {{segments: Segment[], points: Point[]}} Targets  in board units
 * @typedef {{scale: () => number, zoomAt: (factor: number, cx?: number, cy?: number) => void,
 *   pxPerUnit: () => number}} Zoom
 * @typedef {{zoom: number} | {target: Segment | Point} | {choose: (Segment | Point)[]} | null} Aimed
 */

/** Distance from (px, py) to the segment (x1, y1)–(x2, y2). */
export function segmentDistance(px, py, x1, y1, x2, y2) {
  const dx = x2 - x1,
    dy = y2 - y1;
  const len2 = dx * dx + dy * dy;
  const k = len2 ? Math.max(0, Math.min(1, ((px - x1) * dx + (py - y1) * dy) / len2)) : 0;
  return Math.hypot(px - (x1 + k * dx), py - (y1 + k * dy));
}

/**
 * What a tap at board point (x, y) means, `ppu` CSS pixels to a board unit: the nearest target within reach
 * of a finger (the lanes of a double route as one), or, when several lie about as near, the choice between
 * them. A point's distance is from its drawn edge.
 * @param {Targets} targets
 * @returns {Aimed}
 */
export function aimAt(targets, x, y, ppu) {
  /** @type {Map<string, [number, Segment | Point]>} the nearest of each target within reach, and its distance */
  const near = new Map();
  const consider = (key, d, target) => {
    if (d <= REACH_PX && d < (near.get(key)?.[0] ?? Infinity)) near.set(key, [d, target]);
  };
  targets.points.forEach((p, i) => consider(`p${i}`, Math.max(0, Math.hypot(p.x - x, p.y - y) - p.r) * ppu, p));
  for (const s of targets.segments) consider(`s${s.group}`, segmentDistance(x, y, s.x1, s.y1, s.x2, s.y2) * ppu, s);
  const found = [...near.values()].sort((a, b) => a[0] - b[0]);
  if (!found.length) return null;
  const close = found.filter(([d]) => d < found[0][0] + CLEAR_PX).map(([, s]) => s);
  return close.length === 1 ? { target: close[0] } : { choose: close };
}

/** Points along a segment where a finger may aim at it: its middle part, where no city is near. */
const ALONG = [0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8];

/**
 * How close the nearest segment of another group comes to the best place to aim at `s` (board units):
 * the largest, over the points along `s`, of the distance to the nearest other segment.
 * @param {Segment} s
 * @param {Segment[]} segments
 */
export function clearance(s, segments) {
  let best = 0;
  for (const k of ALONG) {
    const x = s.x1 + k * (s.x2 - s.x1),
      y = s.y1 + k * (s.y2 - s.y1);
    let near = Infinity;
    for (const o of segments) {
      if (o.group !== s.group) near = Math.min(near, segmentDistance(x, y, o.x1, o.y1, o.x2, o.y2));
    }
    best = Math.max(best, near);
  }
  return best;
}

/**
 * The zoom (relative to the whole board) of the aim step: a tap goes to the nearest segment, so the boundary
 * between two lies half-way, and a segment whose clearance is `d` board units holds a disc of `d / 2` around
 * its best point; the step makes that disc `TARGET_PX` wide for `AIM_SHARE` of the segments (the others are
 * chosen from a menu, or after zooming further).
 * @param {Targets} targets
 * @param {number} homePxPerUnit  CSS pixels per board unit on the whole board
 */
export function aimScale(targets, homePxPerUnit) {
  const clear = targets.segments.map((s) => clearance(s, targets.segments)).sort((a, b) => a - b);
  const d = clear[Math.floor((1 - AIM_SHARE) * clear.length)];
  if (!d || !homePxPerUnit) return 1;
  return Math.min(AIM_MAX, Math.max(1, TARGET_PX / (d * homePxPerUnit)));
}

/**
 * Makes the board's taps aim: the drawing gives its targets (`targets()`, read at every tap: which cities
 * take taps depends on the position).
 * @param {SVGSVGElement} svg
 * @param {Zoom} zoom
 * @param {() => Targets} targets
 */
export function attachAim(svg, zoom, targets) {
  /** @type {HTMLElement | null} */
  let menu = null;
  function close() {
    menu?.remove();
    menu = null;
  }
  /** What a tap at client point (cx, cy) does. @returns {Aimed} */
  function resolve(cx, cy) {
    const m = svg.getScreenCTM();
    if (!m) return null;
    const ppu = zoom.pxPerUnit();
    if (zoom.scale() <= 1.01) {
      const step = aimScale(targets(), ppu);
      if (step > 1.01) return { zoom: step };
    }
    const p = new DOMPoint(cx, cy).matrixTransform(m.inverse());
    return aimAt(targets(), p.x, p.y, ppu);
  }
  /** The menu of the targets near a tap, by the tap (inside the board). */
  function choose(found, cx, cy) {
    close();
    const wrap = svg.parentElement;
    if (!wrap) return;
    const box = wrap.getBoundingClientRect();
    menu = h(
      "div",
      { class: "aim-menu", role: "menu", "aria-label": t("aim.which") },
      h("div", { class: "aim-title" }, t("aim.which")),
      found.map((x) =>
        h(
          "button",
          {
            type: "button",
            class: "btn",
            role: "menuitem",
            onclick: () => {
              close();
              x.fire();
            },
          },
          x.label,
        ),
      ),
    );
    wrap.append(menu);
    const w = menu.offsetWidth,
      ht = menu.offsetHeight;
    menu.style.left = `${Math.max(4, Math.min(box.width - w - 4, cx - box.left - w / 2))}px`;
    menu.style.top = `${Math.max(4, Math.min(box.height - ht - 4, cy - box.top + 16))}px`;
    /** @type {HTMLElement | null} */ (menu.querySelector("button"))?.focus();
  }
  svg.addEventListener(
    "click",
    (e) => {
      if (e.defaultPrevented || !("pointerType" in e) || e.pointerType !== "touch") return;
      e.stopPropagation();
      e.preventDefault();
      const what = resolve(e.clientX, e.clientY);
      close();
      if (!what) return;
      if ("zoom" in what) zoom.zoomAt(what.zoom / zoom.scale(), e.clientX, e.clientY);
      else if ("target" in what) what.target.fire();
      else choose(what.choose, e.clientX, e.clientY);
    },
    true,
  );
  // the menu goes with a tap elsewhere or Escape
  document.addEventListener("pointerdown", (e) => {
    if (menu && !menu.contains(/** @type {Node} */ (e.target))) close();
  });
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape") close();
  });
  return { resolve, close, scale: () => aimScale(targets(), zoom.pxPerUnit() / zoom.scale()) };
}
