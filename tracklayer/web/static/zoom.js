// @ts-check
// Pan and zoom for a board's SVG, by changing its viewBox: the wheel (towards the pointer), two fingers
// (pinch), one finger or the mouse dragging once zoomed, and buttons (+, −, whole board) for everyone else.
// A drag never becomes a click on a route. The invisible hit strokes of routes and rails grow as the board
// is zoomed (--hit, in board units), so that at phone size a route is a target of 44 CSS pixels or more.
import { h } from "./common.js";
import { t } from "./i18n.js";

const MAX_ZOOM = 8;
const TARGET_PX = 46; // the smallest touch target we aim for (44 CSS pixels), with a margin for rounding

export function attachZoom(svg) {
  const home = svg.getAttribute("viewBox").split(/\s+/).map(Number);
  let vb = [...home];
  const pointers = new Map();
  let pinch = null,
    drag = null,
    moved = false;

  const scale = () => home[2] / vb[2]; // 1 = the whole board
  // CSS pixels per board unit at the present zoom (preserveAspectRatio meet: the tighter of the two)
  function pxPerUnit() {
    const rect = svg.getBoundingClientRect();
    return rect.width ? Math.min(rect.width / vb[2], rect.height / vb[3] || Infinity) : 1;
  }
  function apply() {
    svg.setAttribute("viewBox", vb.map((x) => x.toFixed(2)).join(" "));
    const px = pxPerUnit();
    // hit strokes: 44 px when zoomed in far enough, never so wide at full view that routes overlap badly
    // (only when zoomed: at the whole board wide strokes would cover the neighbouring routes)
    const hit = Math.max(13, Math.min(TARGET_PX / px, 30));
    if (scale() > 1.01) svg.style.setProperty("--hit", hit.toFixed(1));
    else svg.style.removeProperty("--hit");
    svg.dataset.zoom = scale().toFixed(2);
    svg.classList.toggle("zoomed", scale() > 1.01);
    svg.style.touchAction = scale() > 1.01 ? "none" : "pan-y"; // zoomed: one finger pans the board, not the page
  }
  function clamp() {
    vb[2] = Math.min(home[2], Math.max(home[2] / MAX_ZOOM, vb[2]));
    vb[3] = (vb[2] * home[3]) / home[2];
    vb[0] = Math.min(home[0] + home[2] - vb[2], Math.max(home[0], vb[0]));
    vb[1] = Math.min(home[1] + home[3] - vb[3], Math.max(home[1], vb[1]));
  }
  // the board point under client coordinates (cx, cy)
  function toBoard(cx, cy) {
    const r = svg.getBoundingClientRect();
    const k = Math.max(vb[2] / r.width, vb[3] / r.height); // preserveAspectRatio meet
    const ox = (r.width - vb[2] / k) / 2,
      oy = (r.height - vb[3] / k) / 2;
    return [vb[0] + (cx - r.left - ox) * k, vb[1] + (cy - r.top - oy) * k, k];
  }
  function zoomAt(factor, cx, cy) {
    const r = svg.getBoundingClientRect();
    if (cx === undefined) {
      cx = r.left + r.width / 2;
      cy = r.top + r.height / 2;
    }
    const [bx, by] = toBoard(cx, cy);
    const w = Math.min(home[2], Math.max(home[2] / MAX_ZOOM, vb[2] / factor));
    const f = w / vb[2];
    vb = [bx - (bx - vb[0]) * f, by - (by - vb[1]) * f, w, (w * home[3]) / home[2]];
    clamp();
    apply();
  }
  function reset() {
    vb = [...home];
    apply();
  }

  svg.addEventListener(
    "wheel",
    (e) => {
      e.preventDefault();
      zoomAt(Math.exp(-e.deltaY * (e.deltaMode === 1 ? 0.05 : 0.0018)), e.clientX, e.clientY);
    },
    { passive: false },
  );
  svg.addEventListener("pointerdown", (e) => {
    pointers.set(e.pointerId, [e.clientX, e.clientY]);
    moved = false;
    if (pointers.size === 2) {
      const [a, b] = [...pointers.values()];
      pinch = { d: Math.hypot(a[0] - b[0], a[1] - b[1]), cx: (a[0] + b[0]) / 2, cy: (a[1] + b[1]) / 2 };
      drag = null;
    } else if (pointers.size === 1) {
      drag = { x: e.clientX, y: e.clientY, vb: [...vb] };
    }
  });
  svg.addEventListener("pointermove", (e) => {
    if (!pointers.has(e.pointerId)) return;
    pointers.set(e.pointerId, [e.clientX, e.clientY]);
    if (pinch && pointers.size >= 2) {
      const [a, b] = [...pointers.values()];
      const d = Math.hypot(a[0] - b[0], a[1] - b[1]);
      if (d > 0 && pinch.d > 0) zoomAt(d / pinch.d, (a[0] + b[0]) / 2, (a[1] + b[1]) / 2);
      pinch.d = d;
      moved = true;
      return;
    }
    if (!drag) return;
    const dx = e.clientX - drag.x,
      dy = e.clientY - drag.y;
    if (!moved && Math.hypot(dx, dy) < 8) return;
    if (scale() <= 1.01) return; // nothing to pan at the whole board: let the page scroll
    if (!moved) svg.setPointerCapture?.(e.pointerId);
    moved = true;
    const k = toBoard(0, 0)[2];
    vb[0] = drag.vb[0] - dx * k;
    vb[1] = drag.vb[1] - dy * k;
    clamp();
    apply();
  });
  const up = (e) => {
    pointers.delete(e.pointerId);
    if (pointers.size < 2) pinch = null;
    if (!pointers.size) drag = null;
  };
  svg.addEventListener("pointerup", up);
  svg.addEventListener("pointercancel", up);
  // a drag or pinch is not a click on whatever lies under the finger
  svg.addEventListener(
    "click",
    (e) => {
      if (moved) {
        e.stopPropagation();
        e.preventDefault();
        moved = false;
      }
    },
    true,
  );
  const observe = new ResizeObserver(() => apply());
  observe.observe(svg);

  const controls = h(
    "div",
    { class: "zoombar", role: "group", "aria-label": t("zoom.group") },
    h(
      "button",
      { type: "button", class: "zoom-in", "aria-label": t("zoom.in"), title: t("zoom.in"), onclick: () => zoomAt(1.6) },
      "+",
    ),
    h(
      "button",
      {
        type: "button",
        class: "zoom-out",
        "aria-label": t("zoom.out"),
        title: t("zoom.out"),
        onclick: () => zoomAt(1 / 1.6),
      },
      "−",
    ),
    h(
      "button",
      { type: "button", class: "zoom-reset", "aria-label": t("zoom.reset"), title: t("zoom.reset"), onclick: reset },
      "⤢",
    ),
  );
  apply();
  return {
    zoomAt,
    reset,
    controls,
    scale,
    pxPerUnit,
    focusPoint(x, y) {
      // keep a board point in view (keyboard focus)
      if (scale() <= 1.01) return;
      if (x < vb[0] || x > vb[0] + vb[2] || y < vb[1] || y > vb[1] + vb[3]) {
        vb[0] = x - vb[2] / 2;
        vb[1] = y - vb[3] / 2;
        clamp();
        apply();
      }
    },
  };
}
