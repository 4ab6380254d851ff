// @ts-check
// SVG boards drawn from the map data served at /api/boards/<game>.
// Ticket to Ride: cities at their x/y, routes as rows of wagon spaces (double lanes side by side,
// tunnels with dashed borders, ferries with locomotive marks), letters as well as colours.
// Trans Europa / America: the triangular grid, double-cost lines, city dots, rails and start markers.
import {
  s,
  CARD_FILL,
  CARD_LETTER,
  DARK_TEXT,
  PLAYER_COLORS,
  PLAYER_INK,
  PLAYER_SYMBOLS,
  cards,
  colorName,
  gameTitle,
} from "./common.js";
import { t } from "./i18n.js";
import { geoLayer } from "./geo.js";

// What a Ticket to Ride route asks for, in words: "4 red cards", "3 cards of one colour, 1 of them a locomotive".
export function routeNeed(board, r) {
  const base = r.color === "gray" ? t("need.gray", { count: r.length }) : cards(r.color, r.length);
  return r.ferry ? t("need.ferry", { need: base, locos: cards(board.loco, r.ferry) }) : base;
}

const CITY_R = 8;
const ARROWS = { ArrowRight: [1, 0], ArrowLeft: [-1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

// "Paris – Wien · 4 red cards · tunnel · claimed by Ann (●)": the tooltip of a route.
function routeTip(board, r, owner, players) {
  const A = board.cities[r.a].display,
    B = board.cities[r.b].display;
  const parts = [
    `${A} – ${B}`,
    t("tip.length", { count: r.length }),
    r.color === "gray" ? t("tip.any_colour") : colorName(r.color),
  ];
  if (r.tunnel) parts.push(t("tip.tunnel"));
  if (r.ferry) parts.push(t("tip.ferry", { count: r.ferry }));
  parts.push(
    owner === null || owner === undefined
      ? t("board.free")
      : t("board.claimed_by", { name: `${players[owner]?.name ?? "?"} (${PLAYER_SYMBOLS[owner % 6]})` }),
  );
  return parts.join(" · ");
}

function defs() {
  return s(
    "defs",
    {},
    s(
      "radialGradient",
      { id: "paper", cx: "45%", cy: "40%", r: "75%" },
      s("stop", { offset: "0%", "stop-color": "#fbf4e0" }),
      s("stop", { offset: "70%", "stop-color": "#efe2bf" }),
      s("stop", { offset: "100%", "stop-color": "#dcc897" }),
    ),
    s(
      "pattern",
      { id: "grid", width: 40, height: 40, patternUnits: "userSpaceOnUse" },
      s("path", { d: "M40 0H0V40", fill: "none", stroke: "#c9b483", "stroke-width": 0.5, "stroke-opacity": 0.5 }),
    ),
    s(
      "linearGradient",
      { id: "rainbow", x1: 0, x2: 1 },
      ...["#d2302b", "#f0cb24", "#2f9345", "#2f72cf", "#e77fb3"].map((c, i) =>
        s("stop", { offset: `${i * 25}%`, "stop-color": c }),
      ),
    ),
    s(
      "filter",
      { id: "glow", x: "-20%", y: "-20%", width: "140%", height: "140%" },
      s("feGaussianBlur", { stdDeviation: 3, result: "b" }),
      s("feMerge", {}, s("feMergeNode", { in: "b" }), s("feMergeNode", { in: "SourceGraphic" })),
    ),
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

/** The line from (ax, ay) to (bx, by) without `cut` board units at each end. */
function trim({ ax, ay, bx, by }, cut) {
  const d = Math.hypot(bx - ax, by - ay) || 1,
    k = Math.min(0.5, cut / d);
  return { x1: ax + (bx - ax) * k, y1: ay + (by - ay) * k, x2: bx - (bx - ax) * k, y2: by - (by - ay) * k };
}

export class TTRBoard {
  constructor(board, handlers) {
    this.b = board;
    this.on = handlers;
    const [x0, y0, x1, y1] = board.bounds;
    // a tall board (New York) is drawn smaller on a wide page: larger labels (class tall-board) and room for them
    const tall = y1 - y0 > 1.2 * (x1 - x0),
      pad = tall ? 75 : 46;
    this.svg = s("svg", {
      viewBox: `${x0 - pad} ${y0 - pad} ${x1 - x0 + 2 * pad} ${y1 - y0 + 2 * pad}`,
      role: "group",
      "aria-label": t("board.label", { name: gameTitle(board.game, board.name) }),
    });
    this.svg.append(
      defs(),
      s("rect", { x: x0 - pad, y: y0 - pad, width: x1 - x0 + 2 * pad, height: y1 - y0 + 2 * pad, fill: "url(#paper)" }),
      s("rect", { x: x0 - pad, y: y0 - pad, width: x1 - x0 + 2 * pad, height: y1 - y0 + 2 * pad, fill: "url(#grid)" }),
    );
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
    const A = this.b.cities[r.a],
      B = this.b.cities[r.b];
    const dx = B.x - A.x,
      dy = B.y - A.y,
      d = Math.hypot(dx, dy);
    const ux = dx / d,
      uy = dy / d,
      nx = -uy,
      ny = ux;
    const lanes = [r.i, ...r.twins].sort((p, q) => p - q);
    const k = lanes.indexOf(r.i),
      off = (k - (lanes.length - 1) / 2) * 11;
    const start = CITY_R + 3,
      usable = d - 2 * start,
      gap = 2.2;
    const len = Math.max(4, (usable - gap * (r.length - 1)) / r.length);
    const segs = [];
    for (let j = 0; j < r.length; j++) {
      const t = start + j * (len + gap) + len / 2;
      segs.push([A.x + ux * t + nx * off, A.y + uy * t + ny * off]);
    }
    return {
      segs,
      len,
      angle: (Math.atan2(dy, dx) * 180) / Math.PI,
      ax: A.x + nx * off,
      ay: A.y + ny * off,
      bx: B.x + nx * off,
      by: B.y + ny * off,
    };
  }

  drawRoute(r) {
    const g = this.geometry(r);
    const A = this.b.cities[r.a].display,
      B = this.b.cities[r.b].display;
    // roving focus: one route is in the tab order (tabindex 0), the arrow keys move between them
    const group = s("g", {
      class: "route",
      "data-route": r.i,
      tabindex: r.i === 0 ? 0 : -1,
      role: "button",
      "aria-label": t(r.tunnel ? "board.route_tunnel" : r.ferry ? "board.route_ferry" : "board.route", {
        a: A,
        b: B,
        need: routeNeed(this.b, r),
      }),
    });
    const tip = s("title", {});
    group.append(tip);
    const segs = g.segs.map(([cx, cy], j) => {
      const seg = s("g", { transform: `translate(${cx.toFixed(1)} ${cy.toFixed(1)}) rotate(${g.angle.toFixed(1)})` });
      const rect = s("rect", {
        class: "seg",
        x: -g.len / 2,
        y: -4.6,
        width: g.len,
        height: 9.2,
        rx: 1.8,
        fill: CARD_FILL[r.color] || "#aaa",
        stroke: r.tunnel ? "#111" : "#3b3125",
        "stroke-width": r.tunnel ? 1.6 : 1,
        "stroke-dasharray": r.tunnel ? "3 2" : null,
      });
      seg.append(rect);
      const label = j < r.ferry ? "★" : j === Math.floor(r.length / 2) ? CARD_LETTER[r.color] || "" : "";
      const text = s("text", {
        x: 0,
        y: 3,
        "text-anchor": "middle",
        "font-size": 8,
        "font-weight": 800,
        fill: j < r.ferry ? "#111" : DARK_TEXT.has(r.color) ? "#333" : "#fff",
        "pointer-events": "none",
        text: label,
      });
      if (j < r.ferry) seg.append(s("circle", { r: 3.8, fill: "#fff", stroke: "#111", "stroke-width": 0.8 }));
      seg.append(text);
      return { seg, rect, text, base: label };
    });
    segs.forEach((x) => group.append(x.seg));
    // Two invisible strokes along the route: a core as wide as the cars, in the route's group (the gaps
    // between cars are the route's too, never a twin lane's), and a hit stroke in a layer under every
    // route (wider on a zoomed board, style.css --hit: a touch target of 44 px) that only catches what
    // no car or core covers, so a wide stroke never takes a click meant for a neighbour.
    const core = s("line", {
      class: "route-core",
      x1: g.ax,
      y1: g.ay,
      x2: g.bx,
      y2: g.by,
      stroke: "transparent",
      "stroke-width": 9,
    });
    group.prepend(core);
    if (!this.hitLayer) {
      this.hitLayer = s("g", { class: "hits" });
      this.routeLayer.before(this.hitLayer);
    }
    const fire = () => this.on.route?.(r.i);
    const hit = s("line", {
      class: "route-hit",
      "data-route": r.i,
      x1: g.ax,
      y1: g.ay,
      x2: g.bx,
      y2: g.by,
      stroke: "transparent",
      "stroke-width": 13,
    });
    hit.addEventListener("click", fire);
    this.hitLayer.append(hit);
    group.addEventListener("click", fire);
    group.addEventListener("keydown", (e) => {
      if (e.key === "Enter" || e.key === " ") {
        e.preventDefault();
        fire();
        return;
      }
      const dir = ARROWS[e.key];
      if (dir) {
        e.preventDefault();
        this.focusRoute(this.neighbour(r.i, dir));
      }
    });
    group.addEventListener("focus", () => this.focusRoute(r.i, false));
    this.routeLayer.append(group);
    const mx = (g.ax + g.bx) / 2,
      my = (g.ay + g.by) / 2;
    return { group, segs, g, tip, mid: [mx, my] };
  }

  // What a finger can aim at (aim.js): every route, the lanes of a double route as one; the cities while the
  // player may build a station
  aimTargets() {
    const cities = this.on.citiesTakeTaps?.() ?? false;
    return {
      // the cars' part of each route: a tap by a city is the city's or a route's by how near each is
      segments: this.routes.map(({ g }, i) => ({
        ...trim(g, CITY_R + 3),
        group: Math.min(i, ...this.b.routes[i].twins),
        label: `${this.b.cities[this.b.routes[i].a].display} – ${this.b.cities[this.b.routes[i].b].display}`,
        fire: () => (this.on.aimedRoute ?? this.on.route)?.(i),
      })),
      points: cities
        ? this.b.cities.map((c, i) => ({ x: c.x, y: c.y, r: CITY_R, label: c.display, fire: () => this.on.city?.(i) }))
        : [],
    };
  }

  // The route nearest to route i in the arrow's direction (within 60 degrees of it), for keyboard players.
  neighbour(i, [dx, dy]) {
    const [x0, y0] = this.routes[i].mid;
    let best = i,
      bestScore = Infinity;
    this.routes.forEach((o, j) => {
      if (j === i) return;
      const vx = o.mid[0] - x0,
        vy = o.mid[1] - y0,
        d = Math.hypot(vx, vy);
      if (d < 0.5) return;
      const along = (vx * dx + vy * dy) / d;
      if (along < 0.5) return;
      const score = d * (2 - along);
      if (score < bestScore) {
        bestScore = score;
        best = j;
      }
    });
    return best;
  }

  focusRoute(i, move = true) {
    this.routes.forEach((x, j) => x.group.setAttribute("tabindex", j === i ? 0 : -1));
    this.rover = i;
    if (move) this.routes[i].group.focus();
  }

  drawCity(c, i) {
    const g = s("g", { class: "city", "data-city": i, transform: `translate(${c.x} ${c.y})` });
    if (c.attraction) g.append(star(0, 0, 14));
    g.append(
      s("circle", {
        class: "dot",
        r: c.big ? CITY_R + 1.5 : CITY_R,
        fill: c.big ? "#fff3c4" : "#fdf7e8",
        stroke: "#3a2a1a",
        "stroke-width": 2.4,
      }),
    );
    if (c.big) g.append(s("circle", { r: 3, fill: "#3a2a1a" }));
    // a built station stands on the city as the piece does on the board: a house in the owner's colour with a
    // dark outline, over the dot and clear of the name above it (or below it, by the board's top edge)
    const station = s("g", { class: "station", visibility: "hidden" });
    station.append(
      s("path", { d: "M-10 10 V-1 L0 -9 L10 -1 V10 Z", stroke: "#111", "stroke-width": 2, "stroke-linejoin": "round" }),
      s("text", { y: 6.5, "text-anchor": "middle", "font-size": 10, fill: "#fff", "font-weight": 800 }),
    );
    g.append(station);
    const label = s("text", { class: "city-label", y: c.y < 40 ? 24 : -13, "text-anchor": "middle", text: c.display });
    g.append(label);
    g.addEventListener("click", () => this.on.city?.(i));
    this.cityLayer.append(g);
    return { g, station };
  }

  update(view, claimable, selected) {
    const owners = view.route_owner;
    const before = this.owner;
    this.b.routes.forEach((r, i) => {
      const o = owners[i];
      const { group, segs, g, tip } = this.routes[i];
      const free = o === null || o === undefined;
      for (const x of segs) {
        if (free) {
          x.rect.setAttribute("fill", CARD_FILL[r.color] || "#aaa");
          x.rect.setAttribute("stroke", r.tunnel ? "#111" : "#3b3125");
          x.rect.setAttribute("stroke-width", r.tunnel ? 1.6 : 1);
          x.rect.setAttribute("y", -4.6);
          x.rect.setAttribute("height", 9.2);
          x.text.textContent = x.base;
          x.text.setAttribute("font-size", 8);
          x.text.setAttribute("fill", x.base === "★" ? "#111" : DARK_TEXT.has(r.color) ? "#333" : "#fff");
        } else {
          // a train car in the owner's livery: taller than a space, a black outline, the player's symbol
          x.rect.setAttribute("fill", PLAYER_COLORS[o % 6]);
          x.rect.setAttribute("stroke", "#0d0d0d");
          x.rect.setAttribute("stroke-width", 1.8);
          x.rect.setAttribute("y", -6);
          x.rect.setAttribute("height", 12);
          x.text.textContent = PLAYER_SYMBOLS[o % 6];
          x.text.setAttribute("font-size", Math.min(10, g.len * 0.8));
          x.text.setAttribute("fill", PLAYER_INK[o % 6]);
        }
      }
      group.classList.toggle("owned", !free);
      // a route claimed since the last update gets its cars placed (CSS animation, off with reduced motion)
      if (!free && before.length && (before[i] === null || before[i] === undefined)) {
        group.classList.remove("placed");
        void group.getBBox?.();
        group.classList.add("placed");
      }
      tip.textContent = routeTip(this.b, r, o, view.players);
      group.classList.toggle("claimable", claimable.has(i));
      group.classList.toggle("selected", selected === i);
      group.setAttribute("data-owner", o ?? "");
      const ownerName =
        o === null || o === undefined ? t("board.free") : t("board.claimed_by", { name: view.players[o].name });
      group.setAttribute("aria-description", claimable.has(i) ? t("board.claimable", { state: ownerName }) : ownerName);
    });
    this.owner = [...owners];
    const stations = view.stations || {};
    this.b.cities.forEach((c, i) => {
      const o = stations[c.name];
      const st = this.cities[i].station;
      if (o === undefined) {
        st.setAttribute("visibility", "hidden");
        return;
      }
      st.setAttribute("visibility", "visible");
      st.firstChild.setAttribute("fill", PLAYER_COLORS[o % 6]);
      st.lastChild.textContent = PLAYER_SYMBOLS[o % 6];
      st.lastChild.setAttribute("fill", PLAYER_INK[o % 6]);
    });
  }

  highlight(cityNames) {
    const set = new Set(cityNames);
    this.b.cities.forEach((c, i) => this.cities[i].g.classList.toggle("hl", set.has(c.name)));
  }

  layer(name) {
    this.layers = this.layers || {};
    if (!this.layers[name]) {
      this.layers[name] = s("g", { class: `layer-${name}` });
      this.overLayer.append(this.layers[name]);
    }
    return this.layers[name];
  }

  showLongest(routeIndexes, seat, keep = false) {
    const layer = this.layer("longest");
    if (!keep) layer.replaceChildren();
    for (const i of routeIndexes) {
      const { g } = this.routes[i];
      layer.append(
        s("line", {
          class: "longest",
          x1: g.ax,
          y1: g.ay,
          x2: g.bx,
          y2: g.by,
          stroke: PLAYER_COLORS[seat % 6],
          "stroke-width": 18,
          "stroke-opacity": 0.35,
          "stroke-linecap": "round",
        }),
      );
    }
  }

  // What each opponent did last: a halo in their colour around the routes and stations of their last turn,
  // fading (CSS) but kept faintly until they move again. items: [{seat, routes: [i], cities: [name], key}]
  showLastMoves(items) {
    const layer = this.layer("last");
    const old = new Map([...layer.children].map((el) => [el.dataset.key, el]));
    layer.replaceChildren();
    for (const it of items) {
      if (!it.routes.length && !it.cities.length) continue; // a turn that placed nothing (cards, tickets): no halo
      const again = old.get(it.key); // unchanged since the last update: keep it (and its animation state)
      if (again) {
        layer.append(again);
        continue;
      }
      const g = s("g", { class: "lastmove", "data-seat": it.seat, "data-key": it.key });
      const color = PLAYER_COLORS[it.seat % 6];
      for (const i of it.routes) {
        const { g: geo } = this.routes[i];
        g.append(
          s("line", {
            x1: geo.ax,
            y1: geo.ay,
            x2: geo.bx,
            y2: geo.by,
            stroke: "#fff",
            "stroke-width": 26,
            "stroke-opacity": 0.75,
            "stroke-linecap": "round",
          }),
          s("line", {
            x1: geo.ax,
            y1: geo.ay,
            x2: geo.bx,
            y2: geo.by,
            stroke: color,
            "stroke-width": 20,
            "stroke-opacity": 0.55,
            "stroke-linecap": "round",
          }),
        );
      }
      for (const name of it.cities) {
        const c = this.b.cities.find((x) => x.name === name);
        if (c)
          g.append(
            s("circle", {
              cx: c.x,
              cy: c.y + 0.5,
              r: 17,
              fill: color,
              "fill-opacity": 0.45,
              stroke: "#fff",
              "stroke-width": 3,
            }),
          );
      }
      layer.append(g);
    }
  }

  // A player's tickets on the map: a line between the two cities, solid when completed, dashed when failed.
  showTickets(tickets, seat) {
    const layer = this.layer("tickets");
    layer.replaceChildren();
    if (!tickets) return;
    for (const tk of tickets) {
      const A = this.b.cities.find((c) => c.name === tk.from),
        B = this.b.cities.find((c) => c.name === tk.to);
      if (!A || !B) continue;
      const color = tk.completed ? "#17803a" : "#c0162c";
      const mx = (A.x + B.x) / 2,
        my = (A.y + B.y) / 2;
      layer.append(
        s(
          "g",
          { class: `ticket-line ${tk.completed ? "done" : "failed"}`, "data-seat": seat },
          s("line", {
            x1: A.x,
            y1: A.y,
            x2: B.x,
            y2: B.y,
            stroke: "#fff",
            "stroke-width": 7,
            "stroke-linecap": "round",
            "stroke-opacity": 0.8,
          }),
          s("line", {
            x1: A.x,
            y1: A.y,
            x2: B.x,
            y2: B.y,
            stroke: color,
            "stroke-width": 4,
            "stroke-linecap": "round",
            "stroke-dasharray": tk.completed ? null : "10 7",
          }),
          s("circle", { cx: mx, cy: my, r: 10, fill: color, stroke: "#fff", "stroke-width": 2 }),
          s("text", {
            x: mx,
            y: my + 4.5,
            "text-anchor": "middle",
            "font-size": 13,
            "font-weight": 900,
            fill: "#fff",
            text: tk.completed ? "✓" : "✗",
          }),
        ),
      );
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
    this.P = board.points.map(([x, row]) => [(x * TS) / 2, (row * TS * Math.sqrt(3)) / 2]);
    const xs = this.P.map((p) => p[0]),
      ys = this.P.map((p) => p[1]);
    const x0 = Math.min(...xs) - 30,
      y0 = Math.min(...ys) - 30,
      x1 = Math.max(...xs) + 30,
      y1 = Math.max(...ys) + 46;
    this.svg = s("svg", {
      viewBox: `${x0} ${y0} ${x1 - x0} ${y1 - y0}`,
      role: "group",
      "aria-label": t("board.label", { name: gameTitle(board.game, board.name) }),
    });
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
      g.append(
        this.doubleStroke(lx, y, lx + 24, y, TERRAIN[terrain].color),
        s("text", { x: lx + 30, y: y + 3.5, "font-size": 10, fill: "#1d2b30", text: t(`terrain.legend_${terrain}`) }),
      );
    });
    return g;
  }

  doubleStroke(ax, ay, bx, by, color) {
    // two thin parallel strokes and a tick across the middle: a double line
    const len = Math.hypot(bx - ax, by - ay) || 1,
      nx = -(by - ay) / len,
      ny = (bx - ax) / len,
      o = 1.3;
    const mx = (ax + bx) / 2,
      my = (ay + by) / 2;
    return s(
      "g",
      { class: "double" },
      s("line", {
        class: "vis",
        x1: ax + nx * o,
        y1: ay + ny * o,
        x2: bx + nx * o,
        y2: by + ny * o,
        stroke: color,
        "stroke-width": 1.3,
      }),
      s("line", {
        class: "vis",
        x1: ax - nx * o,
        y1: ay - ny * o,
        x2: bx - nx * o,
        y2: by - ny * o,
        stroke: color,
        "stroke-width": 1.3,
      }),
      s("line", {
        x1: mx - nx * 3.5,
        y1: my - ny * 3.5,
        x2: mx + nx * 3.5,
        y2: my + ny * 3.5,
        stroke: color,
        "stroke-width": 1.6,
      }),
    );
  }

  drawEdge(e) {
    const [ax, ay] = this.P[e.a],
      [bx, by] = this.P[e.b];
    const g = s("g", { class: "edge", "data-edge": e.text });
    if (e.cost > 1) {
      const kind = TERRAIN[e.terrain] || TERRAIN.null;
      g.dataset.terrain = e.terrain || "";
      const title = t("terrain.title", { kind: t(kind.key), line: e.text }) + (kind.card ? ` (${t(kind.card)})` : "");
      g.append(s("title", { text: title }), this.doubleStroke(ax, ay, bx, by, kind.color));
    } else {
      g.append(s("line", { class: "vis", x1: ax, y1: ay, x2: bx, y2: by, stroke: "#b3c2c6", "stroke-width": 1.1 }));
    }
    const hit = s("line", {
      class: "edge-hit",
      x1: ax,
      y1: ay,
      x2: bx,
      y2: by,
      stroke: "transparent",
      "stroke-width": 9,
    });
    g.append(hit);
    const fire = () => this.on.edge?.(e);
    g.addEventListener("click", fire);
    g.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" || ev.key === " ") {
        ev.preventDefault();
        fire();
      }
    });
    this.edgeLayer.append(g);
    this.edgeByText.set(e.text, e);
    return g;
  }

  drawPoint(i) {
    const [x, y] = this.P[i];
    const city = this.b.cities.find((c) => c.point === i);
    const g = s("g", { class: "pt", "data-point": this.b.points[i].join(",") });
    if (city) {
      g.append(
        s("circle", {
          r: 8,
          cx: x,
          cy: y,
          fill: CARD_FILL[city.color] || "#444",
          stroke: "#1d2b30",
          "stroke-width": 2,
        }),
      );
      g.append(
        s("text", {
          x,
          y: y + 3,
          "text-anchor": "middle",
          "font-size": 8,
          "font-weight": 800,
          fill: DARK_TEXT.has(city.color) ? "#222" : "#fff",
          "pointer-events": "none",
          text: CARD_LETTER[city.color] || "",
        }),
      );
      g.append(
        s("text", {
          class: "city-label",
          x,
          y: y - 11,
          "text-anchor": "middle",
          "font-size": 9.5,
          style: "font-size:9.5px",
          text: city.name,
        }),
      );
    } else {
      g.append(s("circle", { class: "point", r: 2.2, cx: x, cy: y, fill: "#6f8388" }));
    }
    g.append(s("circle", { class: "point-hit", r: 9, cx: x, cy: y, fill: "transparent" }));
    const fire = () => this.on.point?.(this.b.points[i].join(","));
    g.addEventListener("click", fire);
    g.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" || ev.key === " ") {
        ev.preventDefault();
        fire();
      }
    });
    this.pointLayer.append(g);
    return g;
  }

  pointIndex(text) {
    const [x, row] = text.split(",").map(Number);
    return this.b.points.findIndex((p) => p[0] === x && p[1] === row);
  }

  // opts.summary: a finished round (view.rounds[k]) drawn instead of the table: its rails, every player's
  // revealed cities and missing lines. opts.last: each opponent's last turn, [{seat, lines, key}], haloed.
  update(view, legal, mySeat, opts = {}) {
    const summary = opts.summary || null;
    const railsNow = summary ? summary.rails : view.rails;
    const players = summary ? summary.players : view.players;
    const seen = this.seenRails || null;
    this.railLayer.replaceChildren();
    this.hintLayer.replaceChildren();
    // each other player's last turn, haloed; a halo already drawn is kept (its fading goes on undisturbed)
    if (!this.lastLayer) {
      this.lastLayer = s("g", { class: "layer-last", "pointer-events": "none" });
      this.railLayer.before(this.lastLayer);
    }
    const old = new Map([...this.lastLayer.children].map((el) => [/** @type {SVGElement} */ (el).dataset.key, el]));
    this.lastLayer.replaceChildren();
    for (const it of summary ? [] : opts.last || []) {
      if (!it.lines.length) continue;
      const again = old.get(it.key);
      if (again) {
        this.lastLayer.append(again);
        continue;
      }
      const g = s("g", { class: "lastmove", "data-seat": it.seat, "data-key": it.key });
      for (const line of it.lines) {
        const e = this.edgeByText.get(line);
        if (!e) continue;
        const [ax, ay] = this.P[e.a],
          [bx, by] = this.P[e.b];
        g.append(
          s("line", {
            x1: ax,
            y1: ay,
            x2: bx,
            y2: by,
            stroke: PLAYER_COLORS[it.seat % 6],
            "stroke-width": 16,
            "stroke-opacity": 0.5,
            "stroke-linecap": "round",
          }),
        );
      }
      this.lastLayer.append(g);
    }
    // each rail in its player's colour and with its player's symbol (as TTR wagons are): colour is
    // never the only way to tell whose rail it is
    for (const r of railsNow) {
      const e = this.edgeByText.get(r.line);
      if (!e) continue;
      const [ax, ay] = this.P[e.a],
        [bx, by] = this.P[e.b];
      const owner = r.player === null || r.player === undefined ? null : r.player;
      const who = owner === null ? "" : `${players[owner]?.name ?? "?"} (${PLAYER_SYMBOLS[owner % 6]})`;
      const fresh = !summary && seen && !seen.has(r.line);
      const g = s(
        "g",
        { class: `rail${fresh ? " placed" : ""}`, "data-line": r.line, "data-player": owner ?? "" },
        s("title", { text: who ? t("board.rail_by", { line: r.line, who }) : t("board.rail", { line: r.line }) }),
        s("line", { x1: ax, y1: ay, x2: bx, y2: by, stroke: "#1d1d1d", "stroke-width": 7, "stroke-linecap": "round" }),
        s("line", {
          x1: ax,
          y1: ay,
          x2: bx,
          y2: by,
          stroke: owner === null ? "#444" : PLAYER_COLORS[owner % 6],
          "stroke-width": 4.5,
          "stroke-linecap": "round",
        }),
      );
      if (owner !== null) {
        const mx = (ax + bx) / 2,
          my = (ay + by) / 2;
        g.append(
          s("circle", { cx: mx, cy: my, r: 5.8, fill: PLAYER_COLORS[owner % 6], stroke: "#111", "stroke-width": 1.2 }),
          s("text", {
            class: "rail-symbol",
            x: mx,
            y: my + 2.9,
            "text-anchor": "middle",
            "font-size": 7.5,
            "font-weight": 800,
            fill: PLAYER_INK[owner % 6],
            text: PLAYER_SYMBOLS[owner % 6],
          }),
        );
      }
      this.railLayer.append(g);
    }
    if (!summary) this.seenRails = new Set(view.rails.map((r) => r.line));
    for (const [seat, p] of players.entries()) {
      if (!p.start) continue;
      const idx = this.pointIndex(p.start);
      if (idx < 0) continue;
      const [x, y] = this.P[idx];
      this.railLayer.append(
        s(
          "g",
          { class: "start-marker", "data-player": seat },
          s("title", {
            text: t("board.start_marker", { name: `${p.name} (${PLAYER_SYMBOLS[seat % 6]})`, point: p.start }),
          }),
          s("circle", { cx: x, cy: y, r: 9, fill: PLAYER_COLORS[seat % 6], stroke: "#111", "stroke-width": 2 }),
          s("text", {
            x,
            y: y + 4,
            "text-anchor": "middle",
            "font-size": 11,
            fill: PLAYER_INK[seat % 6],
            "font-weight": 800,
            text: PLAYER_SYMBOLS[seat % 6],
          }),
        ),
      );
    }
    if (summary) {
      // the round is over and every hand is revealed: each player's cities ringed in their colour with their
      // symbol, and one cheapest set of the rails they were missing, dashed in their colour
      summary.players.forEach((p, seat) => {
        const color = PLAYER_COLORS[seat % 6];
        for (const line of p.missing_lines || []) {
          const e = this.edgeByText.get(line);
          if (!e) continue;
          const [ax, ay] = this.P[e.a],
            [bx, by] = this.P[e.b];
          this.hintLayer.append(
            s("line", {
              class: "missing",
              "data-player": seat,
              x1: ax,
              y1: ay,
              x2: bx,
              y2: by,
              stroke: color,
              "stroke-width": 4,
              "stroke-dasharray": "4 3",
              "stroke-linecap": "round",
            }),
          );
        }
        (p.cities || []).forEach((name, k) => {
          const c = this.b.cities.find((x) => x.name === name);
          if (!c) return;
          const [x, y] = this.P[c.point];
          const ang = ((seat * 60 + 30) * Math.PI) / 180,
            bx = x + Math.cos(ang) * 12,
            by = y + Math.sin(ang) * 12;
          this.railLayer.append(
            s(
              "g",
              { class: "revealed-city", "data-player": seat, "data-city": name },
              s("title", { text: t("board.city_of", { city: name, name: `${p.name} (${PLAYER_SYMBOLS[seat % 6]})` }) }),
              s("circle", { cx: x, cy: y, r: 11, fill: "none", stroke: color, "stroke-width": 3 }),
              s("circle", { cx: bx, cy: by, r: 5.5, fill: color, stroke: "#111", "stroke-width": 1 }),
              s("text", {
                x: bx,
                y: by + 2.6,
                "text-anchor": "middle",
                "font-size": 7,
                "font-weight": 800,
                fill: PLAYER_INK[seat % 6],
                text: PLAYER_SYMBOLS[seat % 6],
              }),
            ),
          );
          void k;
        });
      });
    }
    if (!summary && view.missing_lines && mySeat !== null) {
      for (const t of view.missing_lines) {
        const e = this.edgeByText.get(t);
        if (!e) continue;
        const [ax, ay] = this.P[e.a],
          [bx, by] = this.P[e.b];
        this.hintLayer.append(
          s("line", {
            x1: ax,
            y1: ay,
            x2: bx,
            y2: by,
            stroke: PLAYER_COLORS[mySeat % 6],
            "stroke-width": 3,
            "stroke-dasharray": "3 3",
            "stroke-opacity": 0.8,
          }),
        );
      }
    }
    const rails = new Set(legal.filter((m) => m.startsWith("rail ")).map((m) => m.slice(5)));
    const starts = new Set(legal.filter((m) => m.startsWith("start ")).map((m) => m.slice(6)));
    this.edges.forEach((g) => {
      const on = rails.has(g.dataset.edge);
      g.classList.toggle("legal", on);
      if (on) {
        g.setAttribute("tabindex", 0);
        g.setAttribute("role", "button");
        g.setAttribute("aria-label", t("board.rail", { line: g.dataset.edge }));
      } else {
        g.removeAttribute("tabindex");
        g.removeAttribute("role");
      }
    });
    this.points.forEach((g) => {
      const on = starts.has(g.dataset.point);
      const dot = g.querySelector(".point");
      if (dot) dot.classList.toggle("legal", on);
      if (on) {
        g.setAttribute("tabindex", 0);
        g.setAttribute("role", "button");
        g.setAttribute("aria-label", t("board.start_at", { point: g.dataset.point }));
      } else g.removeAttribute("tabindex");
    });
    this.rove();
  }

  // Roving focus over the rails and start points that may be played now: one tab stop, the arrow keys move
  // to the nearest one in that direction (as over the routes of a Ticket to Ride board).
  rove() {
    const items = [
      ...this.edgeLayer.querySelectorAll('[role="button"][tabindex]'),
      ...this.pointLayer.querySelectorAll('[role="button"][tabindex]'),
    ];
    this.focusables = items;
    if (!items.length) return;
    const keep = items.includes(this.rover) ? this.rover : items[0];
    items.forEach((el) => el.setAttribute("tabindex", el === keep ? "0" : "-1"));
    this.rover = keep;
    if (!this.roving) {
      this.roving = true;
      const onKey = (e) => {
        const dir = ARROWS[e.key];
        const from = e.target.closest?.('[role="button"]');
        if (!dir || !from || !this.focusables.includes(from)) return;
        e.preventDefault();
        const mid = (el) => {
          const b = el.getBBox();
          return [b.x + b.width / 2, b.y + b.height / 2];
        };
        const [x0, y0] = mid(from);
        let best = from,
          bestScore = Infinity;
        for (const el of this.focusables) {
          if (el === from) continue;
          const [x, y] = mid(el),
            vx = x - x0,
            vy = y - y0,
            d = Math.hypot(vx, vy);
          if (d < 0.5) continue;
          const along = (vx * dir[0] + vy * dir[1]) / d;
          if (along < 0.5) continue;
          const score = d * (2 - along);
          if (score < bestScore) {
            bestScore = score;
            best = el;
          }
        }
        this.focusables.forEach((el) => el.setAttribute("tabindex", el === best ? "0" : "-1"));
        this.rover = best;
        best.focus();
      };
      this.edgeLayer.addEventListener("keydown", onKey);
      this.pointLayer.addEventListener("keydown", onKey);
      const onFocus = (e) => {
        const el = e.target.closest?.('[role="button"]');
        if (!el || !this.focusables.includes(el)) return;
        this.focusables.forEach((x) => x.setAttribute("tabindex", x === el ? "0" : "-1"));
        this.rover = el;
      };
      this.edgeLayer.addEventListener("focusin", onFocus);
      this.pointLayer.addEventListener("focusin", onFocus);
    }
  }
}
