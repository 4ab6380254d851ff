// SVG boards drawn from the map data served at /api/boards/<game>.
// Ticket to Ride: cities at their x/y, routes as rows of wagon spaces (double lanes side by side,
// tunnels with dashed borders, ferries with locomotive marks), letters as well as colours.
// Trans Europa / America: the triangular grid, double-cost lines, city dots, rails and start markers.
import { s, CARD_FILL, CARD_LETTER, DARK_TEXT, PLAYER_COLORS, PLAYER_SYMBOLS, cards, gameTitle } from "/static/common.js";
import { t } from "/static/i18n.js";
import { geoLayer } from "/static/geo.js";

// What a Ticket to Ride route asks for, in words: "4 red cards", "3 cards of one colour, 1 of them a locomotive".
export function routeNeed(board, r) {
  const base = r.color === "gray" ? t("need.gray", { count: r.length }) : cards(r.color, r.length);
  return r.ferry ? t("need.ferry", { need: base, locos: cards(board.loco, r.ferry) }) : base;
}

const CITY_R = 8;

function defs() {
  return s("defs", {},
    s("radialGradient", { id: "paper", cx: "45%", cy: "40%", r: "75%" },
      s("stop", { offset: "0%", "stop-color": "#fbf4e0" }), s("stop", { offset: "70%", "stop-color": "#efe2bf" }),
      s("stop", { offset: "100%", "stop-color": "#dcc897" })),
    s("pattern", { id: "grid", width: 40, height: 40, patternUnits: "userSpaceOnUse" },
      s("path", { d: "M40 0H0V40", fill: "none", stroke: "#c9b483", "stroke-width": .5, "stroke-opacity": .5 })),
    s("linearGradient", { id: "rainbow", x1: 0, x2: 1 },
      ...["#d2302b", "#f0cb24", "#2f9345", "#2f72cf", "#e77fb3"].map((c, i) => s("stop", { offset: `${i * 25}%`, "stop-color": c }))),
    s("filter", { id: "glow", x: "-20%", y: "-20%", width: "140%", height: "140%" },
      s("feGaussianBlur", { stdDeviation: 3, result: "b" }), s("feMerge", {}, s("feMergeNode", { in: "b" }), s("feMergeNode", { in: "SourceGraphic" }))),
  );
}

function star(cx, cy, r) {
  const pts = [];
  for (let i = 0; i < 10; i++) {
    const a = -Math.PI / 2 + (i * Math.PI) / 5;
    const rr = i % 2 ? r * 0.45 : r;
    pts.push(`${(cx + rr * Math.cos(a)).toFixed(1)},${(cy + rr * Math.sin(a)).toFixed(1)}`);
  }
  return s("polygon", { points: pts.join(" "), fill: "#e0a400", stroke: "#6b4a00", "stroke-width": 1.2 });
}

export class TTRBoard {
  constructor(board, handlers) {
    this.b = board;
    this.on = handlers;
    const [x0, y0, x1, y1] = board.bounds;
    // a tall board (New York) is drawn smaller on a wide page: larger labels (class tall-board) and room for them (issue #14)
    const tall = y1 - y0 > 1.2 * (x1 - x0), pad = tall ? 75 : 46;
    this.svg = s("svg", { viewBox: `${x0 - pad} ${y0 - pad} ${x1 - x0 + 2 * pad} ${y1 - y0 + 2 * pad}`, role: "group",
      "aria-label": t("board.label", { name: gameTitle(board.game, board.name) }) });
    this.svg.append(defs(), s("rect", { x: x0 - pad, y: y0 - pad, width: x1 - x0 + 2 * pad, height: y1 - y0 + 2 * pad, fill: "url(#paper)" }),
      s("rect", { x: x0 - pad, y: y0 - pad, width: x1 - x0 + 2 * pad, height: y1 - y0 + 2 * pad, fill: "url(#grid)" }));
    this.svg.append(geoLayer(board, [x0 - pad, y0 - pad, x1 + pad, y1 + pad])); // land and sea, under everything
    if (tall) this.svg.classList.add("tall-board");
    this.routeLayer = s("g", {});
    this.overLayer = s("g", { "pointer-events": "none" });
    this.cityLayer = s("g", {});
    this.svg.append(this.routeLayer, this.overLayer, this.cityLayer);
    this.routes = board.routes.map((r) => this.drawRoute(r));
    this.cities = board.cities.map((c, i) => this.drawCity(c, i));
    this.owner = [];
  }

  geometry(r) {
    const A = this.b.cities[r.a], B = this.b.cities[r.b];
    const dx = B.x - A.x, dy = B.y - A.y, d = Math.hypot(dx, dy);
    const ux = dx / d, uy = dy / d, nx = -uy, ny = ux;
    const lanes = [r.i, ...r.twins].sort((p, q) => p - q);
    const k = lanes.indexOf(r.i), off = (k - (lanes.length - 1) / 2) * 11;
    const start = CITY_R + 3, usable = d - 2 * start, gap = 2.2;
    const len = Math.max(4, (usable - gap * (r.length - 1)) / r.length);
    const segs = [];
    for (let j = 0; j < r.length; j++) {
      const t = start + j * (len + gap) + len / 2;
      segs.push([A.x + ux * t + nx * off, A.y + uy * t + ny * off]);
    }
    return { segs, len, angle: (Math.atan2(dy, dx) * 180) / Math.PI, ax: A.x + nx * off, ay: A.y + ny * off, bx: B.x + nx * off, by: B.y + ny * off };
  }

  drawRoute(r) {
    const g = this.geometry(r);
    const A = this.b.cities[r.a].display, B = this.b.cities[r.b].display;
    const group = s("g", { class: "route", "data-route": r.i, tabindex: 0, role: "button",
      "aria-label": t(r.tunnel ? "board.route_tunnel" : r.ferry ? "board.route_ferry" : "board.route", { a: A, b: B, need: routeNeed(this.b, r) }) });
    const segs = g.segs.map(([cx, cy], j) => {
      const seg = s("g", { transform: `translate(${cx.toFixed(1)} ${cy.toFixed(1)}) rotate(${g.angle.toFixed(1)})` });
      const rect = s("rect", { class: "seg", x: -g.len / 2, y: -4.6, width: g.len, height: 9.2, rx: 1.8,
        fill: CARD_FILL[r.color] || "#aaa", stroke: r.tunnel ? "#111" : "#3b3125", "stroke-width": r.tunnel ? 1.6 : 1,
        "stroke-dasharray": r.tunnel ? "3 2" : null });
      seg.append(rect);
      const label = j < r.ferry ? "★" : (j === Math.floor(r.length / 2) ? (CARD_LETTER[r.color] || "") : "");
      const text = s("text", { x: 0, y: 3, "text-anchor": "middle", "font-size": 8, "font-weight": 800,
        fill: j < r.ferry ? "#111" : (DARK_TEXT.has(r.color) ? "#333" : "#fff"), "pointer-events": "none", text: label });
      if (j < r.ferry) seg.append(s("circle", { r: 3.8, fill: "#fff", stroke: "#111", "stroke-width": .8 }));
      seg.append(text);
      return { seg, rect, text, base: label };
    });
    segs.forEach((x) => group.append(x.seg));
    const hit = s("line", { class: "route-hit", x1: g.ax, y1: g.ay, x2: g.bx, y2: g.by, stroke: "transparent", "stroke-width": 13 });
    group.prepend(hit);
    const fire = () => this.on.route?.(r.i);
    group.addEventListener("click", fire);
    group.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); fire(); } });
    this.routeLayer.append(group);
    return { group, segs, g };
  }

  drawCity(c, i) {
    const g = s("g", { class: "city", "data-city": i, transform: `translate(${c.x} ${c.y})` });
    if (c.attraction) g.append(star(0, 0, 14));
    g.append(s("circle", { class: "dot", r: c.big ? CITY_R + 1.5 : CITY_R, fill: c.big ? "#fff3c4" : "#fdf7e8", stroke: "#3a2a1a", "stroke-width": 2.4 }));
    if (c.big) g.append(s("circle", { r: 3, fill: "#3a2a1a" }));
    this.stationSlot = this.stationSlot || [];
    const station = s("g", { transform: "translate(9 -12)", visibility: "hidden" });
    station.append(s("path", { d: "M-6 3 V-3 L0 -8 L6 -3 V3 Z", stroke: "#111", "stroke-width": 1.2 }),
      s("text", { y: 1.5, "text-anchor": "middle", "font-size": 6.5, fill: "#fff", "font-weight": 800 }));
    g.append(station);
    const label = s("text", { class: "city-label", y: c.y < 40 ? 24 : -13, "text-anchor": "middle", text: c.display });
    g.append(label);
    g.addEventListener("click", () => this.on.city?.(i));
    this.cityLayer.append(g);
    return { g, station };
  }

  update(view, claimable, selected) {
    const owners = view.route_owner;
    this.b.routes.forEach((r, i) => {
      const o = owners[i];
      const { group, segs } = this.routes[i];
      for (const x of segs) {
        if (o === null || o === undefined) {
          x.rect.setAttribute("fill", CARD_FILL[r.color] || "#aaa");
          x.text.textContent = x.base;
          x.text.setAttribute("fill", x.base === "★" ? "#111" : (DARK_TEXT.has(r.color) ? "#333" : "#fff"));
        } else {
          x.rect.setAttribute("fill", PLAYER_COLORS[o % 6]);
          x.text.textContent = PLAYER_SYMBOLS[o % 6];
          x.text.setAttribute("fill", "#fff");
        }
      }
      group.classList.toggle("claimable", claimable.has(i));
      group.classList.toggle("selected", selected === i);
      group.setAttribute("data-owner", o ?? "");
      const ownerName = o === null || o === undefined ? t("board.free") : t("board.claimed_by", { name: view.players[o].name });
      group.setAttribute("aria-description", claimable.has(i) ? t("board.claimable", { state: ownerName }) : ownerName);
    });
    const stations = view.stations || {};
    this.b.cities.forEach((c, i) => {
      const o = stations[c.name];
      const st = this.cities[i].station;
      if (o === undefined) { st.setAttribute("visibility", "hidden"); return; }
      st.setAttribute("visibility", "visible");
      st.firstChild.setAttribute("fill", PLAYER_COLORS[o % 6]);
      st.lastChild.textContent = PLAYER_SYMBOLS[o % 6];
    });
  }

  highlight(cityNames) {
    const set = new Set(cityNames);
    this.b.cities.forEach((c, i) => this.cities[i].g.classList.toggle("hl", set.has(c.name)));
  }

  showLongest(routeIndexes, seat) {
    this.overLayer.replaceChildren();
    for (const i of routeIndexes) {
      const { g } = this.routes[i];
      this.overLayer.append(s("line", { class: "longest", x1: g.ax, y1: g.ay, x2: g.bx, y2: g.by, stroke: PLAYER_COLORS[seat % 6],
        "stroke-width": 18, "stroke-opacity": .35, "stroke-linecap": "round" }));
    }
  }
}

const TS = 30; // spacing of the Trans grid
// How a double line is drawn, by its terrain (board data; special cards 4 and 5 make water / mountain
// doubles count single); its words are the catalog's terrain.* keys.
const TERRAIN = {
  water: { color: "#3d86c6", key: "terrain.water", card: "terrain.card_water" },
  mountain: { color: "#9b6a3c", key: "terrain.mountain", card: "terrain.card_mountain" },
  null: { color: "#8a8a8a", key: "terrain.none", card: null },
};
const LEGEND = ["water", "mountain"];

export class TransBoard {
  constructor(board, handlers) {
    this.b = board;
    this.on = handlers;
    this.P = board.points.map(([x, row]) => [x * TS / 2, row * TS * Math.sqrt(3) / 2]);
    const xs = this.P.map((p) => p[0]), ys = this.P.map((p) => p[1]);
    const x0 = Math.min(...xs) - 30, y0 = Math.min(...ys) - 30, x1 = Math.max(...xs) + 30, y1 = Math.max(...ys) + 46;
    this.svg = s("svg", { viewBox: `${x0} ${y0} ${x1 - x0} ${y1 - y0}`, role: "group", "aria-label": t("board.label", { name: gameTitle(board.game, board.name) }) });
    this.svg.append(defs(), s("rect", { x: x0, y: y0, width: x1 - x0, height: y1 - y0, fill: "#e7eff0" }));
    this.svg.append(geoLayer(board, [x0, y0, x1, y1], this.P)); // land, sea, rivers, mountain tint
    this.edgeLayer = s("g", {});
    this.railLayer = s("g", { "pointer-events": "none" });
    this.hintLayer = s("g", { "pointer-events": "none" });
    this.pointLayer = s("g", {});
    this.svg.append(this.edgeLayer, this.hintLayer, this.railLayer, this.pointLayer);
    this.edgeByText = new Map();
    this.edges = board.edges.map((e) => this.drawEdge(e));
    this.cityAt = new Map(board.cities.map((c) => [c.point, c]));
    this.points = board.points.map((p, i) => this.drawPoint(i));
    this.svg.append(this.legend(x0 + 12, y1 - 14));
  }

  legend(x, y) {
    const g = s("g", { class: "terrain-legend", "pointer-events": "none" });
    LEGEND.forEach((terrain, i) => {
      const lx = x + i * 165;
      g.append(this.doubleStroke(lx, y, lx + 24, y, TERRAIN[terrain].color),
        s("text", { x: lx + 30, y: y + 3.5, "font-size": 10, fill: "#1d2b30", text: t(`terrain.legend_${terrain}`) }));
    });
    return g;
  }

  doubleStroke(ax, ay, bx, by, color) {
    // two thin parallel strokes and a tick across the middle: a double line
    const len = Math.hypot(bx - ax, by - ay) || 1, nx = -(by - ay) / len, ny = (bx - ax) / len, o = 1.3;
    const mx = (ax + bx) / 2, my = (ay + by) / 2;
    return s("g", { class: "double" },
      s("line", { class: "vis", x1: ax + nx * o, y1: ay + ny * o, x2: bx + nx * o, y2: by + ny * o, stroke: color, "stroke-width": 1.3 }),
      s("line", { class: "vis", x1: ax - nx * o, y1: ay - ny * o, x2: bx - nx * o, y2: by - ny * o, stroke: color, "stroke-width": 1.3 }),
      s("line", { x1: mx - nx * 3.5, y1: my - ny * 3.5, x2: mx + nx * 3.5, y2: my + ny * 3.5, stroke: color, "stroke-width": 1.6 }));
  }

  drawEdge(e) {
    const [ax, ay] = this.P[e.a], [bx, by] = this.P[e.b];
    const g = s("g", { class: "edge", "data-edge": e.text });
    if (e.cost > 1) {
      const kind = TERRAIN[e.terrain] || TERRAIN.null;
      g.dataset.terrain = e.terrain || "";
      const title = t("terrain.title", { kind: t(kind.key), line: e.text }) + (kind.card ? ` (${t(kind.card)})` : "");
      g.append(s("title", { text: title }), this.doubleStroke(ax, ay, bx, by, kind.color));
    } else {
      g.append(s("line", { class: "vis", x1: ax, y1: ay, x2: bx, y2: by, stroke: "#b3c2c6", "stroke-width": 1.1 }));
    }
    const hit = s("line", { class: "edge-hit", x1: ax, y1: ay, x2: bx, y2: by, stroke: "transparent", "stroke-width": 9 });
    g.append(hit);
    const fire = () => this.on.edge?.(e);
    g.addEventListener("click", fire);
    g.addEventListener("keydown", (ev) => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); fire(); } });
    this.edgeLayer.append(g);
    this.edgeByText.set(e.text, e);
    return g;
  }

  drawPoint(i) {
    const [x, y] = this.P[i];
    const city = this.b.cities.find((c) => c.point === i);
    const g = s("g", { class: "pt", "data-point": this.b.points[i].join(",") });
    if (city) {
      g.append(s("circle", { r: 8, cx: x, cy: y, fill: CARD_FILL[city.color] || "#444", stroke: "#1d2b30", "stroke-width": 2 }));
      g.append(s("text", { x, y: y + 3, "text-anchor": "middle", "font-size": 8, "font-weight": 800, fill: DARK_TEXT.has(city.color) ? "#222" : "#fff", "pointer-events": "none", text: CARD_LETTER[city.color] || "" }));
      g.append(s("text", { class: "city-label", x, y: y - 11, "text-anchor": "middle", "font-size": 9.5, style: "font-size:9.5px", text: city.name }));
    } else {
      g.append(s("circle", { class: "point", r: 2.2, cx: x, cy: y, fill: "#6f8388" }));
    }
    g.append(s("circle", { class: "point-hit", r: 9, cx: x, cy: y, fill: "transparent" }));
    const fire = () => this.on.point?.(this.b.points[i].join(","));
    g.addEventListener("click", fire);
    g.addEventListener("keydown", (ev) => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); fire(); } });
    this.pointLayer.append(g);
    return g;
  }

  pointIndex(text) {
    const [x, row] = text.split(",").map(Number);
    return this.b.points.findIndex((p) => p[0] === x && p[1] === row);
  }

  update(view, legal, mySeat) {
    this.railLayer.replaceChildren();
    this.hintLayer.replaceChildren();
    // each rail in its player's colour and with its player's symbol (as TTR wagons are): colour is
    // never the only way to tell whose rail it is
    for (const r of view.rails) {
      const e = this.edgeByText.get(r.line);
      if (!e) continue;
      const [ax, ay] = this.P[e.a], [bx, by] = this.P[e.b];
      const owner = r.player === null || r.player === undefined ? null : r.player;
      const who = owner === null ? "" : `${view.players[owner]?.name ?? "?"} (${PLAYER_SYMBOLS[owner % 6]})`;
      const g = s("g", { class: "rail", "data-line": r.line, "data-player": owner ?? "" },
        s("title", { text: who ? t("board.rail_by", { line: r.line, who }) : t("board.rail", { line: r.line }) }),
        s("line", { x1: ax, y1: ay, x2: bx, y2: by, stroke: "#1d1d1d", "stroke-width": 7, "stroke-linecap": "round" }),
        s("line", { x1: ax, y1: ay, x2: bx, y2: by, stroke: owner === null ? "#444" : PLAYER_COLORS[owner % 6], "stroke-width": 4.5, "stroke-linecap": "round" }));
      if (owner !== null) {
        const mx = (ax + bx) / 2, my = (ay + by) / 2;
        g.append(s("circle", { cx: mx, cy: my, r: 5.8, fill: PLAYER_COLORS[owner % 6], stroke: "#111", "stroke-width": 1.2 }),
          s("text", { class: "rail-symbol", x: mx, y: my + 2.9, "text-anchor": "middle", "font-size": 7.5, "font-weight": 800, fill: "#fff", text: PLAYER_SYMBOLS[owner % 6] }));
      }
      this.railLayer.append(g);
    }
    for (const [seat, p] of view.players.entries()) {
      if (!p.start) continue;
      const idx = this.pointIndex(p.start);
      if (idx < 0) continue;
      const [x, y] = this.P[idx];
      this.railLayer.append(s("g", { class: "start-marker", "data-player": seat },
        s("title", { text: t("board.start_marker", { name: `${p.name} (${PLAYER_SYMBOLS[seat % 6]})`, point: p.start }) }),
        s("circle", { cx: x, cy: y, r: 9, fill: PLAYER_COLORS[seat % 6], stroke: "#111", "stroke-width": 2 }),
        s("text", { x, y: y + 4, "text-anchor": "middle", "font-size": 11, fill: "#fff", "font-weight": 800, text: PLAYER_SYMBOLS[seat % 6] })));
    }
    if (view.missing_lines && mySeat !== null) {
      for (const t of view.missing_lines) {
        const e = this.edgeByText.get(t);
        if (!e) continue;
        const [ax, ay] = this.P[e.a], [bx, by] = this.P[e.b];
        this.hintLayer.append(s("line", { x1: ax, y1: ay, x2: bx, y2: by, stroke: PLAYER_COLORS[mySeat % 6], "stroke-width": 3, "stroke-dasharray": "3 3", "stroke-opacity": .8 }));
      }
    }
    const rails = new Set(legal.filter((m) => m.startsWith("rail ")).map((m) => m.slice(5)));
    const starts = new Set(legal.filter((m) => m.startsWith("start ")).map((m) => m.slice(6)));
    this.edges.forEach((g) => {
      const on = rails.has(g.dataset.edge);
      g.classList.toggle("legal", on);
      if (on) { g.setAttribute("tabindex", 0); g.setAttribute("role", "button"); g.setAttribute("aria-label", t("board.rail", { line: g.dataset.edge })); } else { g.removeAttribute("tabindex"); g.removeAttribute("role"); }
    });
    this.points.forEach((g) => {
      const on = starts.has(g.dataset.point);
      const dot = g.querySelector(".point");
      if (dot) dot.classList.toggle("legal", on);
      if (on) { g.setAttribute("tabindex", 0); g.setAttribute("role", "button"); g.setAttribute("aria-label", t("board.start_at", { point: g.dataset.point })); } else g.removeAttribute("tabindex");
    });
  }
}
