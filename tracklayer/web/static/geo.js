// @ts-check
// The board's geography: sea, land, coastlines, lakes and rivers under the routes, and on
// the Trans boards a soft tint along the mountain double lines. The shapes come from Natural Earth,
// fitted to each board's cities at build time by tools/board_geography.py into static/geo/<game>.json
// (SVG path data in the board's coordinates); see PROVENANCE.md there. Drawn as one bottom layer so
// that the board's own drawing code is untouched: a board calls geoLayer() once and appends the
// group before its routes. If the asset cannot be fetched the board keeps its plain background.
import { s } from "./common.js";

// Close to the printed boards, muted so that routes, rails and labels stay the strongest marks.
export const GEO_STYLE = {
  ttr: { sea: "#b7d0d6", land: "#efe4c6", coast: "#7f9aa0", lake: "#b7d0d6", river: "#8fb3c2" },
  trans: { sea: "#d4e5ea", land: "#f4efe2", coast: "#86a0a6", lake: "#d4e5ea", river: "#9dbfcc" },
};
const cache = new Map();
let serial = 0; // clip-path ids stay unique when a page shows the same board twice

function load(game) {
  if (!cache.has(game))
    cache.set(
      game,
      fetch(`/static/geo/${game}.json`)
        .then((r) => (r.ok ? r.json() : null))
        .catch(() => null),
    );
  return cache.get(game);
}

// An empty <g class="geo"> now (so the DOM order is fixed at once), filled when the asset arrives.
// frame: [x0, y0, x1, y1] of the board's viewBox. points / edges (Trans): grid points in SVG units and
// the board's edges, for the mountain tint. The map reaches beyond the frame (the asset's extent): a
// page whose shape differs from the board's shows more map around it rather than a blank band.
export function geoLayer(board, frame, points = null) {
  const style = GEO_STYLE[board.family] || GEO_STYLE.ttr;
  const id = `geo-clip-${board.game}-${++serial}`;
  const g = s("g", { class: "geo", "pointer-events": "none", "aria-hidden": "true", "clip-path": `url(#${id})` });
  load(board.game).then((geo) => {
    if (!geo) return;
    const [x0, y0, x1, y1] = geo.extent || frame;
    const w = x1 - x0,
      h = y1 - y0,
      unit = Math.max(frame[2] - frame[0], frame[3] - frame[1]) / 1000; // strokes scale with the board
    g.append(
      s("clipPath", { id }, s("rect", { x: x0, y: y0, width: w, height: h })),
      s("rect", { class: "geo-sea", x: x0, y: y0, width: w, height: h, fill: style.sea }),
      s("path", {
        class: "geo-land",
        d: geo.land,
        fill: style.land,
        "fill-rule": "evenodd",
        stroke: style.coast,
        "stroke-width": 1.1 * unit,
        "stroke-linejoin": "round",
      }),
      geo.lakes
        ? s("path", {
            class: "geo-lakes",
            d: geo.lakes,
            fill: style.lake,
            stroke: style.coast,
            "stroke-width": 0.6 * unit,
          })
        : null,
      geo.rivers
        ? s("path", {
            class: "geo-rivers",
            d: geo.rivers,
            fill: "none",
            stroke: style.river,
            "stroke-width": 1.2 * unit,
            "stroke-linecap": "round",
            "stroke-linejoin": "round",
          })
        : null,
    );
    if (points && board.edges) g.append(mountains(board, points));
    // beyond the map's extent (a page far wider or taller than the board) the svg shows open sea
    g.ownerSVGElement?.style.setProperty("background", style.sea);
  });
  return g;
}

// A soft brown band along every mountain double line: the board's mountain areas, exactly where the
// rules say a double line is a mountain (special card 5).
function mountains(board, points) {
  const d = board.edges
    .filter((e) => e.cost > 1 && e.terrain === "mountain")
    .map(
      (e) =>
        `M${points[e.a][0].toFixed(1)} ${points[e.a][1].toFixed(1)}L${points[e.b][0].toFixed(1)} ${points[e.b][1].toFixed(1)}`,
    )
    .join("");
  return s("path", {
    class: "geo-mountains",
    d,
    fill: "none",
    stroke: "#b08a5a",
    "stroke-opacity": 0.22,
    "stroke-width": 16,
    "stroke-linecap": "round",
    "stroke-linejoin": "round",
  });
}
