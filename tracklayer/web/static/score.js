// @ts-check
// The score calculator (/score): the end of a game played on a real table, entered by tapping the map.
// The page's state IS a score file (docs/score-files.md): what is exported, shared and sent to
// POST /api/score, so the breakdown is exactly `tracklayer score --json`'s. The page refuses at
// once what the rules refuse (a lane already taken, both lanes of a double, too many wagons or
// stations) and shows the server's message for everything it does not check itself.
import {
  h,
  s,
  icon,
  logo,
  token,
  PLAYER_COLORS,
  PLAYER_COLOR_NAMES,
  PLAYER_SYMBOLS,
  CARD_FILL,
  gameTitle,
  variantTitle,
  colorName,
} from "./common.js";
import { init as initI18n, t, picker, onLangChange, list } from "./i18n.js";
import { TTRBoard, TransBoard } from "./board.js";
import { scoresTable, tiebreakText, winnersLine } from "./results.js";

const $ = (id) => document.getElementById(id);
const GAMES = ["ttr-europe", "ttr-new-york", "trans-europa", "trans-america"];
const KEY = "tracklayer.score";
const isTrans = (game) => game.startsWith("trans-");

let saved = { game: "ttr-europe", docs: {}, sel: 0, mode: {} };
let doc = null; // the score file being entered
let bd = null; // /api/boards/<game>
let extra = null; // /api/boards/<game>/tickets
let board = null; // TTRBoard or TransBoard
let result = null;
let error = null;
let offline = false; // the last error is no answer at all, not the server's refusal
let local = false; // the last error is the page's own check (in the page's language), not the server's
let zoom = 1;
let query = "";
const draft = { open: false, a: "", b: "", points: "" }; // a ticket being typed survives re-rendering
const maxPlayers = {};
const debug = (window.__score = {
  asked: 0,
  done: 0,
  loading: 0,
  timer: null,
  /** @type {() => boolean} */
  settled: () => false,
  get doc() {
    return doc;
  },
  get result() {
    return result;
  },
  get error() {
    return error;
  },
});
debug.settled = () => !debug.loading && debug.timer === null && debug.asked === debug.done;

// ------------------------------------------------------------------ state
// A file may be broken or hostile (it is shown with the server's message): read lists and rows defensively.
const arr = (x) => (Array.isArray(x) ? x : []);

function fold(x) {
  return String(x ?? "")
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .trim();
}

function newPlayer(game, n, color) {
  const p = { name: t("score.player_default", { n }), color };
  if (isTrans(game)) return { ...p, cities: [] };
  return game === "ttr-europe" ? { ...p, routes: [], stations: [], tickets: [] } : { ...p, routes: [], tickets: [] };
}

function newDoc(game) {
  const players = [newPlayer(game, 1, 0), newPlayer(game, 2, 1)];
  return isTrans(game) ? { game, rails: [], players } : { game, tiebreak: "classic", players };
}

function persist() {
  try {
    localStorage.setItem(KEY, JSON.stringify(saved));
  } catch {
    /* private mode: the page still works */
  }
}

function restore() {
  try {
    const v = JSON.parse(localStorage.getItem(KEY) || "null");
    if (v && typeof v === "object" && GAMES.includes(v.game) && v.docs && typeof v.docs === "object")
      saved = { mode: {}, sel: 0, ...v };
  } catch {
    /* a broken entry: start afresh */
  }
}

function colorOf(i) {
  const c = doc.players[i]?.color;
  return Number.isInteger(c) && c >= 0 && c < 6 ? c : i % 6;
}

function sel() {
  return Math.min(saved.sel || 0, doc.players.length - 1);
}
function mode() {
  return saved.mode[doc.game] || (isTrans(doc.game) ? "start" : "routes");
}

function changed() {
  saved.docs[doc.game] = doc;
  persist();
  draw();
  renderEntry();
  rescore();
}

// ------------------------------------------------------------------ feedback
let toastTimer = null;
function toast(message, info = false) {
  const el = $("toast");
  el.textContent = message;
  el.className = info ? "toast info" : "toast";
  el.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => {
    el.hidden = true;
  }, 3500);
}

// ------------------------------------------------------------------ scoring (the server judges)
function rescore() {
  clearTimeout(debug.timer);
  debug.timer = setTimeout(async () => {
    debug.timer = null;
    const mine = ++debug.asked;
    let res = null,
      err = null;
    // what the page knows the rules refuse is said in the page's language, without asking the server
    const problems = cityProblems();
    if (problems.length) {
      result = null;
      error = problems.map((x) => x.text).join("\n");
      offline = false;
      local = true;
      debug.done = mine;
      draw();
      renderResult();
      return;
    }
    local = false;
    const waiting = unfinished();
    if (waiting.length) {
      // not an error, just not entered yet: say what is missing instead of the server's refusal
      result = null;
      error = null;
      debug.done = mine;
      draw();
      renderResult(t("score.incomplete", { names: list(waiting) }));
      return;
    }
    let lost = false;
    const sent = doc; // another game opened meanwhile: this answer is not about the position shown
    try {
      const r = await fetch("/api/score", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(doc),
      });
      const body = await r.json().catch(() => ({}));
      if (r.ok) res = body;
      else err = typeof body.detail === "string" ? body.detail : `HTTP ${r.status}`;
    } catch {
      err = t("score.offline");
      lost = true;
    }
    if (mine !== debug.asked || sent !== doc) return;
    result = res;
    error = err;
    offline = lost;
    debug.done = mine;
    draw();
    renderResult();
    if (mode() === "tickets" && !isTrans(doc.game)) markTickets();
  }, 150);
}

// Players of a Trans round whose start marker or cities are still to be entered.
function unfinished() {
  if (!isTrans(doc.game)) return [];
  return doc.players.filter((p) => !Array.isArray(p.start) || !arr(p.cities).length).map((p) => p.name);
}

// ------------------------------------------------------------------ Ticket to Ride: the map and the file
let cityIdx = new Map();

function cityOf(name) {
  return cityIdx.get(fold(name));
}

// Which player holds each lane, decided as the engine does: named lanes first, then any free lane.
function resolveRoutes() {
  const owner = bd.routes.map(() => null),
    entry = bd.routes.map(() => null),
    pending = [];
  doc.players.forEach((p, i) =>
    arr(p.routes).forEach((e, j) => {
      if (!Array.isArray(e)) return;
      const a = cityOf(e[0]),
        b = cityOf(e[1]);
      if (a === undefined || b === undefined) return;
      let lanes = bd.routes.filter((r) => (r.a === a && r.b === b) || (r.a === b && r.b === a));
      if (e.length >= 3) {
        const want = fold(e[2]) === "grey" ? "gray" : fold(e[2]);
        lanes = lanes.filter((r) => r.color === want);
      }
      if (lanes.length === 1) {
        if (owner[lanes[0].i] === null) {
          owner[lanes[0].i] = i;
          entry[lanes[0].i] = [i, j];
        }
      } else if (lanes.length) pending.push([i, j, lanes]);
    }),
  );
  for (const [i, j, lanes] of pending) {
    const free = lanes.find((r) => owner[r.i] === null);
    if (free) {
      owner[free.i] = i;
      entry[free.i] = [i, j];
    }
  }
  return { owner, entry };
}

function stationOwners() {
  const out = {};
  doc.players.forEach((p, i) =>
    arr(p.stations).forEach((c) => {
      const k = cityOf(c);
      if (k !== undefined && !(bd.cities[k].name in out)) out[bd.cities[k].name] = i;
    }),
  );
  return out;
}

function wagonsUsed(owner, i) {
  return bd.routes.reduce((n, r) => n + (owner[r.i] === i ? r.length : 0), 0);
}

function routeName(r) {
  return `${bd.cities[r.a].display} – ${bd.cities[r.b].display}`;
}

// Why the selected player may not take lane r now (null: they may), the page's immediate check.
function refusal(r, owner) {
  const me = sel(),
    name = doc.players[me].name;
  if (owner[r.i] !== null) return t("score.err.claimed", { route: routeName(r), name: doc.players[owner[r.i]].name });
  for (const tw of r.twins) {
    if (owner[tw] === me) return t("score.err.both_lanes", { name, route: routeName(r) });
    if (owner[tw] !== null && extra.closed_with_players.includes(doc.players.length)) {
      return t("score.err.closed", { count: doc.players.length, route: routeName(r) });
    }
  }
  const used = wagonsUsed(owner, me);
  if (used + r.length > bd.wagons)
    return t("score.err.wagons", { name, count: bd.wagons, piece: t(`stat.${bd.piece}`, { count: bd.wagons }) });
  return null;
}

function takeLane(r) {
  const { owner, entry } = resolveRoutes();
  const me = sel();
  if (owner[r.i] === me) {
    const [i, j] = entry[r.i];
    doc.players[i].routes.splice(j, 1);
    changed();
    return;
  }
  const why = refusal(r, owner);
  if (why) {
    toast(why);
    return;
  }
  const A = bd.cities[r.a].name,
    B = bd.cities[r.b].name;
  if (!Array.isArray(doc.players[me].routes)) doc.players[me].routes = [];
  doc.players[me].routes.push(r.twins.length ? [A, B, r.color] : [A, B]);
  changed();
}

function onRoute(i) {
  const r = bd.routes[i];
  if (!r.twins.length) {
    closeSheet();
    takeLane(r);
    return;
  }
  // a double route: the lanes lie 11 map units apart, too close for a finger, so the page asks which
  const { owner } = resolveRoutes();
  const lanes = [r.i, ...r.twins].sort((p, q) => p - q).map((k) => bd.routes[k]);
  openSheet(
    t("score.pick_lane", { route: routeName(r) }),
    lanes.map((lane) => {
      const o = owner[lane.i];
      const state = o === null ? t("board.free") : t("board.claimed_by", { name: doc.players[o].name });
      return h(
        "button",
        {
          class: "btn lane",
          type: "button",
          "data-lane": lane.i,
          onclick: () => {
            closeSheet();
            takeLane(lane);
          },
        },
        h("span", { class: "swatch", style: `background:${CARD_FILL[lane.color] || "#aaa"}` }),
        h("span", {}, colorName(lane.color)),
        h("small", {}, state),
      );
    }),
  );
}

function onCity(k) {
  const name = bd.cities[k].name;
  if (mode() === "tickets") {
    query = bd.cities[k].display;
    renderEntry();
    $("sc-search")?.focus();
    return;
  }
  if (mode() !== "stations" || !bd.features.stations) return;
  const owners = stationOwners(),
    me = sel(),
    p = doc.players[me];
  if (!Array.isArray(p.stations)) p.stations = [];
  if (owners[name] === me) {
    p.stations = p.stations.filter((c) => cityOf(c) !== k);
    changed();
    return;
  }
  if (owners[name] !== undefined) {
    toast(t("score.err.station_taken", { city: bd.cities[k].display, name: doc.players[owners[name]].name }));
    return;
  }
  if (p.stations.length >= bd.stations) {
    toast(t("score.err.stations", { name: p.name, count: bd.stations }));
    return;
  }
  p.stations.push(name);
  changed();
}

// ------------------------------------------------------------------ Trans: the map and the file
let pointIdx = new Map();
let edgeIdx = new Map();
let transIdx = new Map(); // folded city name -> index in bd.cities

function railEdge(line) {
  if (!Array.isArray(line) || line.length !== 2 || !Array.isArray(line[0]) || !Array.isArray(line[1])) return undefined;
  const a = pointIdx.get(line[0].join(",")),
    b = pointIdx.get(line[1].join(","));
  return a === undefined || b === undefined ? undefined : edgeIdx.get(`${Math.min(a, b)}-${Math.max(a, b)}`);
}

function onEdge(k) {
  if (mode() !== "rails") {
    toast(t("score.hint.choose_rails"), true);
    return;
  }
  const e = bd.edges[k];
  if (!Array.isArray(doc.rails)) doc.rails = [];
  const at = doc.rails.findIndex((l) => railEdge(l) === k);
  if (at >= 0) doc.rails.splice(at, 1);
  else if (doc.rails.length >= bd.rails) {
    toast(t("score.err.rails", { count: bd.rails }));
    return;
  } else doc.rails.push([bd.points[e.a], bd.points[e.b]]);
  changed();
}

function onPoint(text) {
  if (mode() !== "start") {
    toast(t("score.hint.choose_start"), true);
    return;
  }
  const me = sel(),
    p = doc.players[me];
  const other = doc.players.findIndex((q, i) => i !== me && Array.isArray(q.start) && q.start.join(",") === text);
  if (other >= 0) {
    toast(t("score.err.start_taken", { name: doc.players[other].name }));
    return;
  }
  p.start = text.split(",").map(Number);
  changed();
}

// ------------------------------------------------------------------ drawing the map
function byColor(extraFields) {
  const out = Array.from({ length: 6 }, () => ({ name: "", start: null }));
  doc.players.forEach((p, i) => {
    out[colorOf(i)] = { name: p.name, ...extraFields(p, i) };
  });
  return out;
}

function draw() {
  if (!board) return;
  if (isTrans(doc.game)) {
    const rails = arr(doc.rails)
      .map(railEdge)
      .filter((e) => e !== undefined)
      .map((e) => ({ line: bd.edges[e].text, player: null }));
    board.update(
      { rails, players: byColor((p) => ({ start: Array.isArray(p.start) ? p.start.join(",") : null })) },
      [],
      null,
    );
    // the grid dot of a point is drawn above the markers: hide it where a start marker stands
    const starts = new Set(doc.players.filter((p) => Array.isArray(p.start)).map((p) => p.start.join(",")));
    board.points.forEach((g) => g.classList.toggle("under-marker", starts.has(g.dataset.point)));
    if (result) {
      result.players.forEach((rp, i) => {
        const c = PLAYER_COLORS[colorOf(i)],
          off = (i - (result.players.length - 1) / 2) * 2.2;
        for (const text of rp.missing_lines || []) {
          const e = board.edgeByText.get(text);
          if (!e) continue;
          const [ax, ay] = board.P[e.a],
            [bx, by] = board.P[e.b];
          board.hintLayer.append(
            s("line", {
              class: "missing",
              "data-player": i,
              x1: ax + off,
              y1: ay + off,
              x2: bx + off,
              y2: by + off,
              stroke: c,
              "stroke-width": 3.2,
              "stroke-dasharray": "4 3",
              "stroke-linecap": "round",
            }),
          );
        }
      });
    }
    for (const m of ["start", "rails", "cities"]) board.svg.classList.toggle(`mode-${m}`, mode() === m);
    return;
  }
  const { owner } = resolveRoutes();
  const stations = {};
  for (const [city, i] of Object.entries(stationOwners())) stations[city] = colorOf(i);
  board.update(
    { route_owner: owner.map((o) => (o === null ? null : colorOf(o))), players: byColor(() => ({})), stations },
    new Set(),
    null,
  );
  board.overLayer.replaceChildren();
  board.svg.classList.toggle("mode-stations", mode() === "stations");
  if (!result) return;
  const label = new Map(bd.routes.map((r) => [r.label, r.i]));
  result.players.forEach((rp, i) => {
    const c = PLAYER_COLORS[colorOf(i)];
    if (rp.longest_path_bonus > 0) {
      for (const l of rp.longest_path_routes || []) {
        const k = label.get(l);
        if (k === undefined) continue;
        const { g } = board.routes[k];
        board.overLayer.append(
          s("line", {
            class: "longest",
            "data-player": i,
            x1: g.ax,
            y1: g.ay,
            x2: g.bx,
            y2: g.by,
            stroke: c,
            "stroke-width": 18,
            "stroke-opacity": 0.35,
            "stroke-linecap": "round",
          }),
        );
      }
    }
    for (const st of rp.stations || []) {
      const k = st.borrows ? label.get(st.borrows) : undefined;
      if (k === undefined) continue;
      const { g } = board.routes[k];
      board.overLayer.append(
        s("line", {
          class: "borrowed",
          "data-player": i,
          x1: g.ax,
          y1: g.ay,
          x2: g.bx,
          y2: g.by,
          stroke: c,
          "stroke-width": 14,
          "stroke-opacity": 0.9,
          fill: "none",
          "stroke-dasharray": "2 5",
          "stroke-linecap": "round",
        }),
      );
    }
  });
}

// ------------------------------------------------------------------ the lane chooser
function openSheet(title, buttons) {
  closeSheet();
  const sheet = h(
    "div",
    { class: "sc-sheet", id: "sc-sheet", role: "dialog", "aria-label": title },
    h("b", {}, title),
    h("div", { class: "sc-lanes" }, buttons),
    h("button", { class: "btn ghost", type: "button", onclick: closeSheet }, t("score.cancel")),
  );
  document.body.append(sheet);
  sheet.querySelector("button")?.focus();
}
function closeSheet() {
  $("sc-sheet")?.remove();
}
document.addEventListener("keydown", (e) => {
  if (e.key === "Escape") closeSheet();
});

// ------------------------------------------------------------------ the controls
function renderGames() {
  $("sc-games").replaceChildren(
    ...GAMES.map((g) =>
      h(
        "button",
        {
          class: "btn gamebtn",
          type: "button",
          "data-game": g,
          "aria-pressed": String(doc?.game === g),
          onclick: () => switchGame(g),
        },
        gameTitle(g),
      ),
    ),
  );
}

function renderPlayers() {
  const box = $("sc-players");
  const me = sel();
  const rows = doc.players.map((p, i) => {
    const c = colorOf(i);
    const pick = h(
      "button",
      {
        class: "sc-color",
        type: "button",
        style: `background:${PLAYER_COLORS[c]}`,
        title: t("score.color", { color: t(`player_color.${PLAYER_COLOR_NAMES[c]}`) }),
        "aria-label": t("score.color", { color: t(`player_color.${PLAYER_COLOR_NAMES[c]}`) }),
        onclick: () => cycleColor(i),
      },
      PLAYER_SYMBOLS[c],
    );
    const name = h("input", {
      class: "sc-name",
      value: p.name,
      maxlength: 64,
      "aria-label": t("score.name", { n: i + 1 }),
      onfocus: () => select(i),
      onchange: (e) => {
        p.name = e.target.value.trim() || t("score.player_default", { n: i + 1 });
        changed();
        renderPlayers();
      },
    });
    const choose = h(
      "button",
      { class: "btn small sc-select", type: "button", "aria-pressed": String(i === me), onclick: () => select(i) },
      i === me ? t("score.selected") : t("score.select"),
    );
    const remove = h(
      "button",
      {
        class: "x sc-remove",
        type: "button",
        "aria-label": t("score.remove_player", { name: p.name }),
        title: t("score.remove_player", { name: p.name }),
        disabled: doc.players.length <= 1,
        onclick: () => removePlayer(i),
      },
      "×",
    );
    return h("div", { class: `sc-player${i === me ? " on" : ""}`, "data-player": i }, pick, name, choose, remove);
  });
  const add = h(
    "button",
    {
      class: "btn small",
      type: "button",
      id: "sc-add",
      disabled: doc.players.length >= (maxPlayers[doc.game] || 5),
      onclick: addPlayer,
    },
    t("score.add_player"),
  );
  box.replaceChildren(h("h3", {}, t("score.players")), ...rows, add);
}

function renderOpts() {
  const opts = $("sc-opts");
  opts.replaceChildren();
  if (isTrans(doc.game)) {
    opts.append(specialCards());
    return;
  }
  if (!extra) return;
  const tb = h(
    "select",
    {
      id: "sc-tiebreak",
      onchange: (e) => {
        doc.tiebreak = e.target.value;
        changed();
      },
    },
    ["classic", "anniversary-de"].map((v) =>
      h("option", { value: v, selected: (doc.tiebreak || "classic") === v }, t(`option.tiebreak.${v}`)),
    ),
  );
  opts.append(h("label", { class: "field" }, t("option.tiebreak"), tb));
  if (extra.variants.length > 1) {
    const cur = doc.variant || extra.default_variant;
    const vs = h(
      "select",
      {
        id: "sc-variant",
        onchange: (e) => {
          doc.variant = e.target.value;
          changed();
        },
      },
      extra.variants.map((v) =>
        h("option", { value: v.name, selected: cur === v.name }, variantTitle(doc.game, v.name, v.title)),
      ),
    );
    opts.append(h("label", { class: "field" }, t("score.deck"), vs));
  }
}

// The special cards that change what a round scores, by their effect in the card data: the prestige
// table (1, 2), the cost of double lines (4, 5), and passing cities (16), after which a hand may hold
// several cities of one colour. The others change only how the round is played (or leave fewer
// cities, which the picker enters by leaving a colour empty); an imported file keeps them as they are.
const SCORING_EFFECTS = ["prestige_table", "single_terrain", "pass_cards"];
function scoringCards() {
  return arr(extra?.special_cards)
    .filter((c) => SCORING_EFFECTS.includes(c.effect))
    .map((c) => c.id);
}

// How many times cities are passed this round (card 16: 3); 0 means one city of each colour per hand.
function passes() {
  const on = new Set(arr(doc.special_cards));
  return arr(extra?.special_cards)
    .filter((c) => c.effect === "pass_cards" && on.has(c.id))
    .reduce((n, c) => n + (c.times || 0), 0);
}

function specialCards() {
  const on = new Set(Array.isArray(doc.special_cards) ? doc.special_cards : []);
  const SCORING_CARDS = scoringCards();
  const boxes = SCORING_CARDS.map((n) =>
    h(
      "label",
      { class: "check sc-card" },
      h("input", {
        type: "checkbox",
        "data-card": n,
        checked: on.has(n),
        onchange: (e) => {
          const now = new Set(Array.isArray(doc.special_cards) ? doc.special_cards : []);
          if (e.target.checked) now.add(n);
          else now.delete(n);
          if (now.size) doc.special_cards = [...now].sort((a, b) => a - b);
          else delete doc.special_cards;
          changed();
        },
      }),
      h("span", { class: "special-no" }, String(n)),
      h("span", {}, t(`special.${n}.title`)),
    ),
  );
  return h(
    "details",
    { class: "sc-specials", open: SCORING_CARDS.some((n) => on.has(n)) },
    h("summary", {}, t("score.special_cards")),
    h("div", { class: "sc-cards" }, boxes),
  );
}

function renderTools() {
  const modes = isTrans(doc.game)
    ? ["start", "rails", "cities"]
    : bd.features.stations
      ? ["routes", "stations", "tickets"]
      : ["routes", "tickets"];
  const tabs = h(
    "div",
    { class: "sc-modes", role: "group", "aria-label": t("score.modes") },
    modes.map((m) =>
      h(
        "button",
        {
          class: "btn small",
          type: "button",
          "data-mode": m,
          "aria-pressed": String(mode() === m),
          onclick: () => {
            saved.mode[doc.game] = m;
            persist();
            renderTools();
            renderEntry();
            draw();
          },
        },
        t(`score.mode.${m}`),
      ),
    ),
  );
  const setZoom = (z) => {
    zoom = Math.max(1, Math.min(5, z));
    applyZoom();
  };
  const zooms = h(
    "div",
    { class: "sc-zoom" },
    h(
      "button",
      {
        class: "btn small",
        type: "button",
        id: "sc-zoom-out",
        "aria-label": t("score.zoom_out"),
        title: t("score.zoom_out"),
        onclick: () => setZoom(zoom / 1.5),
      },
      "−",
    ),
    h(
      "button",
      {
        class: "btn small",
        type: "button",
        id: "sc-zoom-in",
        "aria-label": t("score.zoom_in"),
        title: t("score.zoom_in"),
        onclick: () => setZoom(zoom * 1.5),
      },
      "+",
    ),
  );
  $("sc-tools").replaceChildren(tabs, zooms);
}

function applyZoom() {
  const wrap = $("sc-map");
  // keep the middle of what is shown in the middle
  const fx = (wrap.scrollLeft + wrap.clientWidth / 2) / (wrap.scrollWidth || 1);
  const fy = (wrap.scrollTop + wrap.clientHeight / 2) / (wrap.scrollHeight || 1);
  if (board) board.svg.style.width = `${zoom * 100}%`;
  wrap.classList.toggle("zoomed", zoom > 1);
  wrap.scrollLeft = fx * wrap.scrollWidth - wrap.clientWidth / 2;
  wrap.scrollTop = fy * wrap.scrollHeight - wrap.clientHeight / 2;
}

function select(i) {
  if (sel() === i) return;
  saved.sel = i;
  openRow = null;
  persist();
  // in place: re-creating the rows would take the focus from the name being typed
  document.querySelectorAll(".sc-player").forEach((/** @type {HTMLElement} */ row) => {
    const on = Number(row.dataset.player) === i;
    row.classList.toggle("on", on);
    const b = row.querySelector(".sc-select");
    b.setAttribute("aria-pressed", String(on));
    b.textContent = on ? t("score.selected") : t("score.select");
  });
  renderEntry();
}

function cycleColor(i) {
  const used = new Set(doc.players.map((_, k) => colorOf(k)));
  let c = colorOf(i);
  for (let k = 1; k <= 6; k++) {
    const n = (c + k) % 6;
    if (!used.has(n)) {
      c = n;
      break;
    }
  }
  doc.players[i].color = c;
  changed();
  renderPlayers();
}

function addPlayer() {
  const used = new Set(doc.players.map((_, k) => colorOf(k)));
  const c = [0, 1, 2, 3, 4, 5].find((k) => !used.has(k)) ?? 0;
  doc.players.push(newPlayer(doc.game, doc.players.length + 1, c));
  saved.sel = doc.players.length - 1;
  changed();
  renderPlayers();
}

function removePlayer(i) {
  doc.players.splice(i, 1);
  saved.sel = Math.max(0, Math.min(sel(), doc.players.length - 1));
  changed();
  renderPlayers();
}

// ------------------------------------------------------------------ the entry panel: what the selected player has
function ticketText(a, b) {
  return `${bd.cities[a].display} – ${bd.cities[b].display}`;
}

// The score-file entry of a ticket picked from the list: [a, b] as a person would write it, with the
// points added when the deck has several tickets between those cities (the scorer refuses to guess).
function ticketEntry(tk) {
  const logos = logosOf();
  const same = extra.tickets.filter(
    (x) =>
      ((x.a === tk.a && x.b === tk.b) || (x.a === tk.b && x.b === tk.a)) &&
      (!logos || x.logos.some((l) => logos.has(l))),
  );
  const A = bd.cities[tk.a].name,
    B = bd.cities[tk.b].name;
  return new Set(same.map((x) => x.points)).size === 1 ? [A, B] : [A, B, tk.points];
}

function logosOf() {
  const v = extra.variants.find((x) => x.name === (doc.variant || extra.default_variant));
  return v ? new Set(v.logos) : null;
}

// The board ticket an entry stands for (null: a ticket typed by hand).
function ticketOf(e) {
  if (!Array.isArray(e)) return null;
  const a = cityOf(e[0]),
    b = cityOf(e[1]);
  const logos = logosOf();
  return (
    extra.tickets.find(
      (x) =>
        ((x.a === a && x.b === b) || (x.a === b && x.b === a)) &&
        (e.length >= 3 ? x.points === e[2] : !logos || x.logos.some((l) => logos.has(l))),
    ) || null
  );
}

function renderEntry() {
  const box = $("sc-entry");
  if (!doc || !bd) return;
  const me = sel(),
    p = doc.players[me],
    m = mode();
  const head = h("h2", {}, h("span", {}, token(colorOf(me)), " ", p.name));
  if (isTrans(doc.game)) {
    if (m === "start")
      box.replaceChildren(
        head,
        h("p", { class: "hint" }, t("score.hint.start", { name: p.name })),
        h("p", {}, Array.isArray(p.start) ? t("score.start_at", { point: p.start.join(",") }) : t("score.no_start")),
      );
    else if (m === "rails")
      box.replaceChildren(
        head,
        h("p", { class: "hint" }, t("score.hint.rails")),
        h("p", { id: "sc-railcount" }, t("score.rails_count", { count: arr(doc.rails).length, max: bd.rails })),
      );
    else {
      box.replaceChildren(
        head,
        h(
          "p",
          { class: "hint", id: "sc-city-hint" },
          passes()
            ? t("score.hint.cities_passed", { name: p.name, most: 1 + passes() })
            : t("score.hint.cities", { name: p.name }),
        ),
        citySelects(p),
      );
    }
    return;
  }
  const { owner } = resolveRoutes();
  if (m === "routes") {
    const mine = bd.routes.filter((r) => owner[r.i] === me);
    box.replaceChildren(
      head,
      h("p", { class: "hint" }, t("score.hint.routes", { name: p.name })),
      h(
        "p",
        { id: "sc-wagons" },
        t("score.wagons", {
          used: wagonsUsed(owner, me),
          count: bd.wagons,
          piece: t(`stat.${bd.piece}`, { count: bd.wagons }),
        }),
      ),
      h(
        "ul",
        { class: "sc-list" },
        mine.map((r) =>
          h(
            "li",
            {},
            h("span", {}, routeName(r), r.twins.length ? ` (${colorName(r.color)})` : ""),
            h(
              "button",
              {
                class: "x",
                type: "button",
                "aria-label": t("score.remove", { what: routeName(r) }),
                onclick: () => takeLane(r),
              },
              "×",
            ),
          ),
        ),
      ),
    );
  } else if (m === "stations") {
    box.replaceChildren(
      head,
      h("p", { class: "hint" }, t("score.hint.stations", { name: p.name, count: bd.stations })),
      h(
        "ul",
        { class: "sc-list" },
        arr(p.stations).map((c) => {
          const k = cityOf(c);
          return h(
            "li",
            {},
            h("span", {}, k === undefined ? c : bd.cities[k].display),
            h(
              "button",
              {
                class: "x",
                type: "button",
                "aria-label": t("score.remove", { what: c }),
                onclick: () => {
                  if (k !== undefined) onCity(k);
                  else {
                    p.stations = p.stations.filter((x) => x !== c);
                    changed();
                  }
                },
              },
              "×",
            ),
          );
        }),
      ),
    );
  } else {
    box.replaceChildren(head, ...ticketPanel(p, me).filter(Boolean));
    const search = /** @type {HTMLInputElement | null} */ ($("sc-search"));
    if (search && document.activeElement?.id !== "sc-search") search.value = query;
  }
}

function ticketPanel(p, me) {
  const held = new Set();
  doc.players.forEach((q) =>
    arr(q.tickets).forEach((e) => {
      const x = ticketOf(e);
      if (x) held.add(x.id);
    }),
  );
  const logos = logosOf();
  const list_ = h("div", { class: "sc-tickets", id: "sc-ticket-list" });
  const fill = () => {
    const q2 = fold(/** @type {HTMLInputElement | null} */ ($("sc-search"))?.value ?? query);
    const found = extra.tickets.filter(
      (x) =>
        !held.has(x.id) &&
        (!logos || x.logos.some((l) => logos.has(l))) &&
        (!q2 ||
          fold(
            `${bd.cities[x.a].display} ${bd.cities[x.b].display} ${bd.cities[x.a].name} ${bd.cities[x.b].name} ${x.id}`,
          ).includes(q2)),
    );
    list_.replaceChildren(
      ...found.slice(0, 60).map((x) =>
        h(
          "button",
          {
            class: "sc-ticket",
            type: "button",
            "data-ticket": x.id,
            onclick: () => {
              if (!Array.isArray(p.tickets)) p.tickets = [];
              p.tickets.push(ticketEntry(x));
              changed();
            },
          },
          h("span", {}, ticketText(x.a, x.b)),
          h("b", { class: "pts" }, String(x.points)),
        ),
      ),
    );
    if (!found.length) list_.append(h("p", { class: "empty" }, t("score.no_ticket")));
  };
  const search = h("input", {
    id: "sc-search",
    type: "search",
    value: query,
    placeholder: t("score.ticket_search"),
    "aria-label": t("score.ticket_search"),
    oninput: (e) => {
      query = e.target.value;
      fill();
    },
  });
  fill();
  const names = h(
    "datalist",
    { id: "sc-cities" },
    bd.cities.map((c) => h("option", { value: c.display })),
  );
  const ca = h("input", {
    id: "sc-city-a",
    list: "sc-cities",
    value: draft.a,
    placeholder: t("score.city_a"),
    "aria-label": t("score.city_a"),
    oninput: (e) => {
      draft.a = e.target.value;
    },
  });
  const cb = h("input", {
    id: "sc-city-b",
    list: "sc-cities",
    value: draft.b,
    placeholder: t("score.city_b"),
    "aria-label": t("score.city_b"),
    oninput: (e) => {
      draft.b = e.target.value;
    },
  });
  const pts = h("input", {
    id: "sc-points",
    type: "number",
    min: 1,
    max: 1000,
    value: draft.points,
    inputmode: "numeric",
    placeholder: t("score.points"),
    "aria-label": t("score.points"),
    oninput: (e) => {
      draft.points = e.target.value;
    },
  });
  const addOwn = h(
    "button",
    {
      class: "btn small",
      type: "button",
      id: "sc-add-ticket",
      onclick: () => {
        const a = cityOf(ca.value),
          b = cityOf(cb.value),
          n = Number(pts.value);
        if (a === undefined || b === undefined) {
          toast(t("score.err.city", { city: a === undefined ? ca.value : cb.value }));
          return;
        }
        if (!Number.isInteger(n) || n < 1 || n > 1000) {
          toast(t("score.err.points"));
          return;
        }
        if (!Array.isArray(p.tickets)) p.tickets = [];
        p.tickets.push([bd.cities[a].name, bd.cities[b].name, n]);
        Object.assign(draft, { a: "", b: "", points: "" });
        changed();
      },
    },
    t("score.add_ticket"),
  );
  const status = new Map();
  const rp = result?.players?.[me];
  (rp?.tickets || []).forEach((x, j) => status.set(j, x.completed));
  const mine = h(
    "ul",
    { class: "sc-list sc-held", id: "sc-held" },
    arr(p.tickets).map((e0, j) => {
      const e = Array.isArray(e0) ? e0 : [String(e0), "?"];
      const a = cityOf(e[0]),
        b = cityOf(e[1]);
      const x = ticketOf(e);
      const pts_ = e.length >= 3 ? e[2] : x?.points;
      const done = status.get(j);
      return h(
        "li",
        { class: done === true ? "done" : done === false ? "failed" : "" },
        h(
          "span",
          {},
          h("span", { class: "mark" }, done === undefined ? "" : icon(done ? "check" : "cross")),
          " ",
          a !== undefined && b !== undefined ? ticketText(a, b) : `${e[0]} – ${e[1]}`,
        ),
        h("b", { class: "pts" }, String(pts_ ?? "?")),
        h(
          "button",
          {
            class: "x",
            type: "button",
            "aria-label": t("score.remove", { what: `${e[0]} – ${e[1]}` }),
            onclick: () => {
              p.tickets.splice(j, 1);
              changed();
            },
          },
          "×",
        ),
      );
    }),
  );
  return [
    h("h3", {}, t("score.tickets_of", { name: p.name })),
    mine,
    arr(p.tickets).length ? null : h("p", { class: "empty" }, t("score.no_tickets")),
    h("h3", {}, t("score.add_tickets")),
    search,
    list_,
    h(
      "details",
      {
        class: "sc-own",
        open: draft.open,
        ontoggle: (e) => {
          draft.open = e.target.open;
        },
      },
      h("summary", {}, t("score.own_ticket")),
      h("div", { class: "row" }, ca, cb, pts, addOwn),
      names,
    ),
  ];
}

// Completed / failed marks on the selected player's tickets, from the last score.
function markTickets() {
  const rp = result?.players?.[sel()];
  document.querySelectorAll("#sc-held li").forEach((li, j) => {
    const x = rp?.tickets?.[j];
    li.classList.toggle("done", x?.completed === true);
    li.classList.toggle("failed", x?.completed === false);
    const mark = li.querySelector(".mark");
    if (mark) mark.replaceChildren(x ? icon(x.completed ? "check" : "cross") : "");
  });
}

// ------------------------------------------------------------------ Trans: city cards
// Each colour has a row per city of that colour the player holds (one, as dealt; with card 16 up to
// one more per pass, as after the passes at a real table). A city is kept where it stands in the file.
let openRow = null; // {player, color}: an extra row opened with "+", not yet chosen (not in the file)

function cityIndex(name) {
  return transIdx.get(fold(name));
}

// Who holds each city of the board (the first holder, as the scorer reads the file).
function cityHolders() {
  const out = new Map();
  doc.players.forEach((q, i) =>
    arr(q.cities).forEach((n) => {
      const k = cityIndex(n);
      if (k !== undefined && !out.has(k)) out.set(k, i);
    }),
  );
  return out;
}

// What the rules refuse in the players' cities, in the page's words (the scorer says the same in English):
/** @typedef {{ player?: number, color?: string, text: string }} CityProblem player and color mark the rows at fault */

/** @returns {CityProblem[]} */
function cityProblems() {
  if (!isTrans(doc.game) || !bd?.colors) return [];
  /** @type {CityProblem[]} */
  const out = [];
  const most = 1 + passes(),
    holders = new Map(),
    byColor = new Map();
  doc.players.forEach((p, i) => {
    const cities = arr(p.cities);
    if (cities.length > bd.colors.length)
      out.push({ player: i, text: t("score.err.hand", { name: p.name, count: cities.length, max: bd.colors.length }) });
    const mine = new Map();
    for (const n of cities) {
      const k = cityIndex(n);
      if (k === undefined) continue; // the server names an unknown city, with suggestions
      const c = bd.cities[k];
      if (holders.has(k)) {
        const other = doc.players[holders.get(k)].name;
        out.push({
          player: i,
          color: c.color,
          text:
            other === p.name
              ? t("score.err.city_twice", { name: p.name, city: c.name })
              : t("score.err.city_held", { city: c.name, name: p.name, other }),
        });
        continue;
      }
      holders.set(k, i);
      mine.set(c.color, [...(mine.get(c.color) || []), c.name]);
      byColor.set(c.color, [...(byColor.get(c.color) || []), c.name]);
    }
    for (const [color, names] of mine) {
      if (names.length <= 1) continue;
      const args = { name: p.name, count: names.length, color: colorName(color), cities: list(names), most };
      if (most === 1) out.push({ player: i, color, text: t("score.err.same_color", args) });
      else if (names.length > most) out.push({ player: i, color, text: t("score.err.color_most", args) });
    }
  });
  const n = doc.players.length;
  for (const [color, names] of byColor) {
    if (names.length > n)
      out.push({
        color,
        text: t("score.err.dealt", { count: names.length, color: colorName(color), cities: list(names), players: n }),
      });
  }
  return out;
}

function citySelects(p) {
  const me = sel(),
    most = 1 + passes(),
    holders = cityHolders(),
    cities = arr(p.cities);
  // the rows at fault are outlined; the messages themselves stand in the score box below
  const bad = new Set(
    cityProblems()
      .filter((x) => (x.player === me || x.player === undefined) && x.color)
      .map((x) => x.color),
  );
  const acts =
    most > 1 ||
    bd.colors.some((c) => cities.filter((n) => bd.cities[cityIndex(n)]?.color === c).length > 1) ||
    cities.some((n) => cityIndex(n) === undefined); // the columns of "×" and "+"
  const full = () => cities.length >= bd.colors.length;
  const rows = [];
  for (const c of bd.colors) {
    const ofColor = bd.cities.map((x, k) => [x, k]).filter(([x]) => x.color === c);
    // the player's cities of this colour: [index in p.cities, board city]
    const held = cities.map((n, j) => [j, cityIndex(n)]).filter(([, k]) => k !== undefined && bd.cities[k].color === c);
    const slots = held.length ? [...held] : [[-1, undefined]];
    if (openRow && openRow.player === me && openRow.color === c && held.length) slots.push([-1, undefined]);
    slots.forEach(([j, cur], r) => {
      const label =
        r === 0
          ? t("score.city_of", { color: colorName(c) })
          : t("score.city_of_more", { color: colorName(c), n: r + 1 });
      const pick = h(
        "select",
        {
          "data-color": c,
          "data-row": r,
          "aria-label": label,
          class: bad.has(c) ? "bad" : null,
          onchange: (e) => {
            const v = e.target.value,
              k = v ? cityIndex(v) : undefined;
            const who = k === undefined ? undefined : holders.get(k);
            if (who !== undefined && who !== me) {
              toast(t("score.err.city_taken", { city: v, name: doc.players[who].name }));
              e.target.value = cur === undefined ? "" : bd.cities[cur].name;
              return;
            }
            if (!Array.isArray(p.cities)) p.cities = [];
            if (j >= 0 && v) p.cities[j] = v;
            else if (j >= 0) p.cities.splice(j, 1);
            else if (v) p.cities.push(v);
            openRow = null;
            changed();
          },
        },
        h("option", { value: "" }, "—"),
        ofColor.map(([x, k]) => {
          const who = holders.get(k),
            mine = who === me && k !== cur;
          const text =
            who !== undefined && who !== me
              ? t("score.city_held_by", { city: x.name, name: doc.players[who].name })
              : x.name;
          return h("option", { value: x.name, selected: k === cur, disabled: mine }, text);
        }),
      );
      // card 16 in play: "+" opens another row of this colour; an extra row has "×" to remove it
      const more =
        most > 1 && r === slots.length - 1 && cur !== undefined
          ? h(
              "button",
              {
                class: "btn small sc-more",
                type: "button",
                "data-color": c,
                "aria-label": t("score.add_city", { color: colorName(c) }),
                title: t("score.add_city", { color: colorName(c) }),
                onclick: () => {
                  if (held.length >= most) {
                    toast(t("score.err.color_full", { name: p.name, color: colorName(c), most }));
                    return;
                  }
                  if (full()) {
                    toast(t("score.err.hand_full", { name: p.name, max: bd.colors.length }));
                    return;
                  }
                  openRow = { player: me, color: c };
                  renderEntry();
                  /** @type {HTMLSelectElement | null} */ (
                    document.querySelector(`#sc-entry select[data-color="${c}"][data-row="${r + 1}"]`)
                  )?.focus();
                },
              },
              "+",
            )
          : acts
            ? h("span", {})
            : null;
      const drop =
        r > 0
          ? h(
              "button",
              {
                class: "x sc-drop",
                type: "button",
                "data-color": c,
                "data-row": r,
                "aria-label": t("score.remove", { what: cur === undefined ? label : bd.cities[cur].name }),
                onclick: () => {
                  if (j >= 0) p.cities.splice(j, 1);
                  openRow = null;
                  changed();
                },
              },
              "×",
            )
          : acts
            ? h("span", {})
            : null;
      rows.push(
        h(
          "div",
          { class: `sc-citysel${r ? " extra" : ""}`, "data-color": c, "data-row": r },
          h("span", { class: "swatch", style: `background:${CARD_FILL[c] || "#888"}` }),
          h("span", {}, r === 0 ? colorName(c) : ""),
          pick,
          drop,
          more,
        ),
      );
    });
  }
  // cities the page does not know (a misspelling or an alias in an imported file): kept, shown, removable
  cities.forEach((n, j) => {
    if (cityIndex(n) !== undefined) return;
    rows.push(
      h(
        "div",
        { class: "sc-citysel" },
        h("span", {}),
        h("span", {}),
        h("span", { class: "sc-unknown" }, String(n)),
        h(
          "button",
          {
            class: "x sc-drop",
            type: "button",
            "aria-label": t("score.remove", { what: String(n) }),
            onclick: () => {
              p.cities.splice(j, 1);
              changed();
            },
          },
          "×",
        ),
        h("span", {}),
      ),
    );
  });
  return h(
    "div",
    { class: `sc-cities${acts ? " acts" : ""}` },
    rows,
    h(
      "label",
      { class: "sc-citysel" },
      h("span", {}),
      h("span", {}, t("score.before")),
      h("input", {
        type: "number",
        min: 0,
        max: 1000,
        id: "sc-before",
        value: p.score ?? "",
        inputmode: "numeric",
        "aria-label": t("score.before"),
        onchange: (e) => {
          const v = e.target.value === "" ? undefined : Number(e.target.value);
          if (v === undefined) delete p.score;
          else p.score = v;
          changed();
        },
      }),
    ),
  );
}

// ------------------------------------------------------------------ the breakdown
function renderResult(note = null) {
  const out = $("sc-breakdown"),
    err = $("sc-error");
  err.hidden = !error;
  if (error && local)
    err.replaceChildren(
      h("span", {}, t("score.impossible")),
      h(
        "ul",
        { id: "sc-error-msg" },
        error.split("\n").map((x) => h("li", {}, x)),
      ),
    );
  else
    err.replaceChildren(
      ...(error
        ? [offline ? "" : h("span", {}, t("score.invalid")), " ", h("span", { id: "sc-error-msg" }, error)]
        : []),
    );
  err.classList.toggle("offline", offline);
  out.dataset.state = error ? "error" : result ? "ok" : note ? "incomplete" : "";
  if (!result) {
    out.replaceChildren(...(note ? [h("p", { class: "hint", id: "sc-incomplete" }, note)] : []));
    return;
  }
  const seat = new Map(doc.players.map((p, i) => [p.name, i]));
  const winners = h("p", { class: "sc-winners" }, winnersLine(result));
  const tiebreak = tiebreakText(result);
  const rule = tiebreak ? h("p", { class: "hint" }, tiebreak) : null;
  const cards = isTrans(result.game) ? arr(doc.special_cards).filter(Number.isInteger) : [];
  const inPlay = cards.length
    ? h(
        "p",
        { class: "hint", id: "sc-cards-in-play" },
        t("score.cards_in_play", {
          count: cards.length,
          cards: list(
            cards.map((n) => (t(`special.${n}.title`, {}, "") ? `${n} (${t(`special.${n}.title`)})` : String(n))),
          ),
        }),
      )
    : null;
  const details = h(
    "div",
    { class: "sc-details" },
    result.players.map((p, i) => detail(p, seat.get(p.name) ?? i)),
  );
  out.replaceChildren(...[winners, rule, inPlay].filter(Boolean), scoresTable(result, { colorOf }), details);
}

// A player's city cards as the scorer read them, by colour; a colour held more than once (card 16) is marked.
function cityChips(i) {
  const cities = arr(doc.players[i]?.cities)
    .map(cityIndex)
    .filter((k) => k !== undefined)
    .map((k) => bd.cities[k]);
  const count = (c) => cities.filter((x) => x.color === c).length;
  return bd.colors
    .flatMap((c) => cities.filter((x) => x.color === c))
    .map((x) =>
      h(
        "span",
        {
          class: `sc-chip${count(x.color) > 1 ? " double" : ""}`,
          "data-color": x.color,
          title:
            count(x.color) > 1
              ? t("score.doubled", { count: count(x.color), color: colorName(x.color) })
              : colorName(x.color),
        },
        h("span", { class: "swatch", style: `background:${CARD_FILL[x.color] || "#888"}` }),
        x.name,
      ),
    );
}

function detail(p, i) {
  const box = h(
    "details",
    { class: "sc-detail", "data-player": i },
    h("summary", {}, token(colorOf(i)), " ", p.name, " — ", t("final.points", { count: p.total })),
  );
  if (isTrans(result.game)) {
    const chips = cityChips(i);
    box.open = chips.some((x) => x.classList.contains("double")); // a doubled colour (card 16) is worth seeing at once
    box.append(h("p", { class: "sc-chips" }, h("span", {}, t("score.cities_held")), chips));
    box.append(h("p", {}, p.connected ? t("score.connected_all") : t("score.missing", { count: p.missing_rails })));
    if (p.missing_lines?.length) box.append(h("p", { class: "hint" }, t("score.missing_shown")));
    return box;
  }
  box.append(
    h(
      "p",
      {},
      t("score.route_points", {
        count: p.route_points,
        wagons: p.wagons_used,
        piece: t(`stat.${bd.piece}`, { count: p.wagons_used }),
      }),
    ),
  );
  if (p.tickets.length) {
    box.append(
      h(
        "ul",
        { class: "sc-list" },
        p.tickets.map((x) =>
          h(
            "li",
            { class: x.completed ? "done" : "failed" },
            h("span", {}, icon(x.completed ? "check" : "cross"), " ", `${x.from} – ${x.to}`),
            h("b", {}, `${x.completed ? "+" : "−"}${x.points}`),
          ),
        ),
      ),
    );
  }
  if ("longest_path" in p) {
    box.append(h("p", {}, t("score.longest", { count: p.longest_path, bonus: p.longest_path_bonus })));
    if (p.longest_path_bonus > 0) box.append(h("p", { class: "hint" }, t("final.longest_shown")));
  }
  if ((p.stations || []).length) {
    box.append(
      h("p", {}, t("score.stations_used", { count: p.stations_built, points: p.station_points })),
      h(
        "ul",
        { class: "sc-list" },
        p.stations.map((st) =>
          h(
            "li",
            {},
            h(
              "span",
              {},
              st.borrows
                ? t("score.borrows", { city: st.city, route: st.borrows })
                : t("score.borrows_none", { city: st.city }),
            ),
          ),
        ),
      ),
    );
  } else if ("station_points" in p)
    box.append(h("p", {}, t("score.stations_used", { count: p.stations_built, points: p.station_points })));
  if (p.attractions)
    box.append(h("p", {}, t("final.attraction_list", { cities: p.attractions.length ? list(p.attractions) : "—" })));
  return box;
}

// ------------------------------------------------------------------ files and links
function b64u(bytes) {
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
function unb64u(text) {
  const bin = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

// A share link: the score file in the fragment (never sent to a server), deflated when the browser can.
export async function shareLink(value) {
  const bytes = new TextEncoder().encode(JSON.stringify(value));
  let frag = `j=${b64u(bytes)}`;
  if (typeof CompressionStream === "function") {
    try {
      const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream("deflate-raw"));
      frag = `z=${b64u(new Uint8Array(await new Response(stream).arrayBuffer()))}`;
    } catch {
      /* keep the plain form */
    }
  }
  return `${location.origin}/score#${frag}`;
}

async function fromFragment(hash) {
  const m = /^#([zj])=([A-Za-z0-9_-]+)$/.exec(hash);
  if (!m) return null;
  let bytes = unb64u(m[2]);
  if (m[1] === "z") {
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
    bytes = new Uint8Array(await new Response(stream).arrayBuffer());
  }
  return new TextDecoder().decode(bytes);
}

// Load a score file from text: a well-formed file of a known game becomes the page's position (the
// server then judges the rest); anything else is sent to the server only for its error message.
async function loadText(text) {
  let value;
  try {
    value = JSON.parse(text);
  } catch {
    value = null;
  }
  if (
    value &&
    typeof value === "object" &&
    !Array.isArray(value) &&
    GAMES.includes(value.game) &&
    Array.isArray(value.players) &&
    value.players.length
  ) {
    value.players = value.players.map((p) =>
      p && typeof p === "object" && !Array.isArray(p) ? p : { name: String(p) },
    );
    saved.docs[value.game] = value;
    saved.sel = 0;
    await switchGame(value.game, true);
    return true;
  }
  try {
    const r = await fetch("/api/score", { method: "POST", body: text });
    const body = await r.json().catch(() => ({}));
    toast(r.ok ? t("score.err.not_loaded") : t("score.err.file", { detail: body.detail }));
  } catch {
    toast(t("score.offline"));
  }
  return false;
}

function exportFile() {
  const blob = new Blob([`${JSON.stringify(doc, null, 2)}\n`], { type: "application/json" });
  const a = h("a", { href: URL.createObjectURL(blob), download: `score-${doc.game}.json` });
  document.body.append(a);
  a.click();
  setTimeout(() => {
    URL.revokeObjectURL(a.href);
    a.remove();
  }, 1000);
}

async function share() {
  const link = await shareLink(doc);
  const box = /** @type {HTMLInputElement} */ ($("sc-link"));
  box.value = link;
  box.hidden = false;
  box.select();
  try {
    await navigator.clipboard.writeText(link);
    toast(t("score.copied"), true);
  } catch {
    toast(t("lobby.select_copy"), true);
  }
}

// ------------------------------------------------------------------ switching games
async function fetchJSON(path) {
  const r = await fetch(path);
  if (!r.ok) throw new Error(`HTTP ${r.status}`);
  return r.json();
}

async function switchGame(game, keepDoc = false) {
  closeSheet();
  $("toast").hidden = true; // a refusal on the last board means nothing on this one
  // the new board's data first: until it is here, doc and board data stay those of the old game (a score
  // answer or a tap arriving meanwhile must never read one game's position against another's board)
  debug.loading += 1;
  let data;
  try {
    data = await Promise.all([fetchJSON(`/api/boards/${game}`), fetchJSON(`/api/boards/${game}/tickets`)]);
  } finally {
    debug.loading -= 1;
  }
  if (!keepDoc && doc) saved.docs[doc.game] = doc;
  saved.game = game;
  openRow = null;
  const kept = saved.docs[game];
  doc =
    kept && typeof kept === "object" && Array.isArray(kept.players) && kept.players.length && kept.game === game
      ? kept
      : newDoc(game);
  saved.docs[game] = doc;
  [bd, extra] = data;
  maxPlayers[game] = extra.max_players;
  result = null;
  error = null;
  if (isTrans(game)) {
    pointIdx = new Map(bd.points.map((p, i) => [p.join(","), i]));
    edgeIdx = new Map(bd.edges.map((e) => [`${Math.min(e.a, e.b)}-${Math.max(e.a, e.b)}`, e.i]));
    transIdx = new Map(bd.cities.map((c, k) => [fold(c.name), k]));
    board = new TransBoard(bd, { edge: (e) => onEdge(e.i), point: onPoint });
  } else {
    cityIdx = new Map();
    bd.cities.forEach((c, i) => {
      cityIdx.set(fold(c.name), i);
      cityIdx.set(fold(c.display), i);
    });
    board = new TTRBoard(bd, { route: onRoute, city: onCity });
    // a larger, invisible disc under each city: stations are placed with a finger
    board.cities.forEach(({ g }) => g.prepend(s("circle", { class: "city-hit", r: 13 })));
  }
  $("sc-map").replaceChildren(board.svg);
  persist();
  applyZoom();
  renderGames();
  renderPlayers();
  renderOpts();
  renderTools();
  renderResult();
  changed();
}

function rerenderAll() {
  if (!doc) return;
  renderGames();
  renderPlayers();
  renderOpts();
  renderTools();
  renderEntry();
  renderResult();
}

// ------------------------------------------------------------------ start
async function main() {
  await initI18n();
  const bar = () => [
    logo(),
    h("span", { class: "spacer" }),
    h("a", { class: "pill", href: "/" }, t("score.lobby")),
    picker(),
  ];
  $("topbar").replaceChildren(...bar());
  onLangChange(() => {
    $("topbar").replaceChildren(...bar());
    rerenderAll();
  });
  restore();
  if (location.hash.length > 1) {
    try {
      const text = await fromFragment(location.hash);
      if (text !== null) {
        history.replaceState(null, "", location.pathname); // from now on the page's own storage keeps it
        if (await loadText(text)) {
          bindFiles();
          return;
        }
      }
    } catch {
      toast(t("score.err.link"));
    }
  }
  await switchGame(GAMES.includes(saved.game) ? saved.game : "ttr-europe", true);
  bindFiles();
}

function bindFiles() {
  $("sc-export").onclick = exportFile;
  $("sc-share").onclick = share;
  $("sc-clear").onclick = () => {
    if (confirm(t("score.clear_confirm"))) {
      delete saved.docs[doc.game];
      saved.sel = 0;
      switchGame(doc.game, true);
    }
  };
  const fileInput = /** @type {HTMLInputElement} */ ($("sc-import"));
  fileInput.onchange = async () => {
    const f = fileInput.files?.[0];
    if (f) await loadText(await f.text());
    fileInput.value = "";
  };
  $("sc-paste-load").onclick = async () => {
    const pasted = /** @type {HTMLTextAreaElement} */ ($("sc-paste-text"));
    if (await loadText(pasted.value)) pasted.value = "";
  };
}

main();
// offline once loaded (a plus at a table without reception); not where service workers are unavailable
window.addEventListener("online", () => {
  if (doc) rescore();
}); // the promise of score.offline
if ("serviceWorker" in navigator) navigator.serviceWorker.register("/score-sw.js", { scope: "/score" }).catch(() => {});
