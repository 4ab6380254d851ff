// @ts-check
// The game page: one websocket, the server's view of this seat, and moves made by clicking.
// The server is authoritative: this page only ever sends move texts from the legal list it was given
// (or typed by the player) together with the index of the move it expects to make.
import {
  h,
  icon,
  logo,
  token,
  chip,
  paymentChips,
  parsePayment,
  store,
  CARD_LETTER,
  PLAYER_COLORS,
  PLAYER_SYMBOLS,
  gameTitle,
  variantTitle,
  colorName,
  cards,
} from "./common.js";
import { TTRBoard, TransBoard, routeNeed } from "./board.js";
import { attachZoom } from "./zoom.js";
import { init as initI18n, t, picker, onLangChange, list } from "./i18n.js";
import { accountBox } from "./account.js";
import { describeMove, describeNote, describePayment, routeText, cityText } from "./moves.js";
import { mountChat } from "./chat.js";
import { mountGamePanel } from "./links.js";
import { clockPanel, onClockState } from "./clock.js";
import { scoresTable, tiebreakText, winnersLine } from "./results.js";

const $ = (id) => document.getElementById(id);
const gameId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop());
const tok = location.hash.slice(1);

const linkPanel = mountGamePanel(gameId);
const ui = {
  st: null, // last "state" message
  board: null, // board data
  drawing: null, // TTRBoard | TransBoard
  ws: null,
  online: false,
  selectedRoute: null,
  selectedCity: null,
  revealed: null, // hot-seat: the seat whose secrets are shown
  finalShown: false,
  tickets: new Set(), // ticket ids ticked in a keep choice
  keepKey: "",
  retry: 500,
  zoom: null, // pan and zoom of the board (zoom.js)
  roundsSeen: null, // Trans: finished rounds whose summary the player has closed
  roundShown: null, // Trans: index into view.rounds of the round drawn on the board, or null for the table
  ticketsOf: null, // game over: the seat whose tickets are drawn on the map
  prev: null, // the last rendered view, to animate what changed (cards gained, tickets taken)
};

// ---------------------------------------------------------------- motion
// Animations are short and optional: off when the system asks for reduced motion, unless the player turned
// them on here, and the player's choice (the top bar's toggle) is kept in localStorage.
const MOTION_KEY = "tracklayer.motion";
function reducedMotion() {
  let saved = null;
  try {
    saved = localStorage.getItem(MOTION_KEY);
  } catch {
    /* storage blocked: follow the system */
  }
  if (saved === "reduce") return true;
  if (saved === "full") return false;
  return window.matchMedia?.("(prefers-reduced-motion: reduce)").matches ?? false;
}
function applyMotion() {
  document.documentElement.classList.toggle("reduce-motion", reducedMotion());
}
function toggleMotion() {
  try {
    localStorage.setItem(MOTION_KEY, reducedMotion() ? "full" : "reduce");
  } catch {
    /* this page only */
  }
  applyMotion();
  renderTop();
}
applyMotion();

// ---------------------------------------------------------------- connection
function connect() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(`${proto}//${location.host}/ws/${encodeURIComponent(gameId)}`);
  ui.ws = ws;
  ws.onopen = () => {
    ws.send(JSON.stringify({ type: "hello", token: tok }));
    ui.online = true;
    ui.retry = 500;
    renderTop();
  };
  ws.onmessage = (ev) => onMessage(JSON.parse(ev.data));
  ws.onclose = (ev) => {
    ui.online = false;
    renderTop();
    if (ev.code === 4401 || ev.code === 4404) return;
    // 1008: the server ended this connection for a reason it names (its first word a protocol error code)
    if (ev.code === 1008)
      toast(ev.reason.startsWith("rate:") ? t("err.closed-rate") : t("err.closed", { detail: ev.reason }));
    // jittered: when a server process dies, its clients do not all come back at the same instant
    setTimeout(connect, ui.retry * (0.5 + Math.random()));
    ui.retry = Math.min(ui.retry * 2, 8000);
  };
}

function send(move) {
  if (!ui.st || !ui.ws || ui.ws.readyState !== 1) {
    toast(t("err.offline"));
    return;
  }
  ui.ws.send(JSON.stringify({ type: "move", move, expect: ui.st.moves }));
}

async function onMessage(msg) {
  if (ui.chat?.handle(msg, ui.st)) return; // chat messages and chat refusals (chat.js)
  if (msg.type === "error") {
    const fatal = msg.code === "auth" || msg.code === "no-game";
    const text = errorText(msg);
    toast(text);
    if (fatal) showFatal(text);
    return;
  }
  if (msg.type === "ack") {
    ui.selectedRoute = null;
    ui.selectedCity = null;
    return;
  }
  if (msg.type !== "state") return;
  if (msg.log_from) {
    // only the newer log entries: the earlier ones are in the last state
    const before = ui.st?.view?.log;
    if (!before || before.length < msg.log_from) {
      ui.ws.send(JSON.stringify({ type: "sync" }));
      return;
    }
    msg.view.log = before.slice(0, msg.log_from).concat(msg.view.log);
  }
  const first = !ui.st;
  ui.st = msg;
  linkPanel(msg); // the creator's links and the "waiting for players" banner (links.js)
  onClockState(msg); // clocks, seat control, "your turn" notice (clock.js)
  if (first) {
    store.remember(gameId, {
      title: msg.game,
      game: msg.game,
      tokens: { [msg.role === "seat" ? msg.seat : msg.role === "table" ? "hotseat" : "spectator"]: tok },
      seats: msg.seats.map((x) => x.name),
    });
    ui.board = await (await fetch(`/api/boards/${msg.game}`)).json();
    buildBoard();
  }
  render();
}

// ---------------------------------------------------------------- helpers
const isTTR = () => ui.board?.family === "ttr";
const legal = () => (covered() ? [] : ui.st?.legal || []);
const view = () => ui.st.view;
function covered() {
  const st = ui.st;
  return st && st.role === "table" && st.seat !== null && st.seat !== ui.revealed;
}
// A ticket's cities as printed on the board ("München", not the engine's "Munchen").
function ticketText(tk) {
  return `${cityText(tk.from, ui.board)} – ${cityText(tk.to, ui.board)}`;
}
function mySeat() {
  return covered() ? null : ui.st.seat;
}
function name(seat) {
  return view().players[seat]?.name ?? "?";
}

// The server's protocol errors carry a stable code, translated here; an engine's refusal of a move
// (code "illegal") is detailed English text from the rules engine, wrapped in a translated sentence.
function errorText(msg) {
  const detail = msg.message || "";
  if (msg.code === "illegal") return t("err.illegal", { detail });
  return t(`err.${msg.code}`, { detail }, t("err.unknown", { detail }));
}

let toastTimer = null;
function toast(text, kind = "") {
  const el = $("toast");
  el.textContent = text;
  el.className = `toast ${kind}`;
  el.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => {
    el.hidden = true;
  }, 4500);
}

function box(title, ...children) {
  return h("section", { class: "box" }, h("h2", {}, ...[].concat(title)), ...children);
}

// ---------------------------------------------------------------- board
function buildBoard() {
  const handlers = { route: onRoute, city: onCity, edge: onEdge, point: onPoint };
  ui.drawing = isTTR() ? new TTRBoard(ui.board, handlers) : new TransBoard(ui.board, handlers);
  ui.drawing.svg.setAttribute("preserveAspectRatio", "xMidYMid meet");
  $("board").replaceChildren(ui.drawing.svg);
  ui.zoom = attachZoom(ui.drawing.svg);
  $("board").append(ui.zoom.controls);
  const vb = ui.drawing.svg.viewBox.baseVal;
  $("board").style.setProperty("--board-ratio", `${vb.width} / ${vb.height}`); // phones: the board's own shape
  // the route with keyboard focus stays in view on a zoomed board
  ui.drawing.svg.addEventListener("focusin", (e) => {
    const g = e.target.closest?.("[data-route]");
    if (g && ui.drawing.routes) {
      const [x, y] = ui.drawing.routes[Number(g.dataset.route)].mid;
      ui.zoom.focusPoint(x, y);
    }
  });
  document.title = `${gameTitle(ui.board.game, ui.board.name)} — tracklayer`;
}

function claimsFor(routeIndex) {
  const label = ui.board.routes[routeIndex].label;
  return legal().filter((m) => m.startsWith(`claim ${label}: `));
}

function cheapestFirst(moves) {
  const cost = (m) => {
    const pay = parsePayment(m.split(": ").slice(1).join(": "));
    const loco = pay.filter(([c]) => c === ui.board.loco).reduce((a, [, n]) => a + n, 0);
    const total = pay.reduce((a, [, n]) => a + n, 0);
    return loco * 100 + total;
  };
  return [...moves].sort((a, b) => cost(a) - cost(b) || a.localeCompare(b));
}

function onRoute(i) {
  if (!ui.st || ui.st.over) return;
  const r = ui.board.routes[i];
  const owner = view().route_owner[i];
  const A = ui.board.cities[r.a].display,
    B = ui.board.cities[r.b].display;
  if (owner !== null && owner !== undefined) {
    toast(t("claim.taken", { a: A, b: B, name: name(owner) }));
    return;
  }
  if (!legal().length) {
    toast(
      ui.st.seat === null && ui.st.role !== "table"
        ? t("claim.spectator")
        : t("claim.not_your_turn", { name: name(view().current_player) }),
    );
    return;
  }
  const moves = claimsFor(i);
  if (!moves.length) {
    const hand = view().hand || {};
    const loco = ui.board.loco;
    const best = Math.max(0, ...ui.board.colors.map((c) => hand[c] ?? 0));
    const have = r.color === "gray" ? t("claim.have_best", { count: best }) : cards(r.color, hand[r.color] ?? 0);
    const anyDraw = legal().every((m) => m.startsWith("draw"));
    toast(
      anyDraw
        ? t("claim.second_card")
        : t("claim.cannot", { a: A, b: B, need: routeNeed(ui.board, r), have, locos: cards(loco, hand[loco] ?? 0) }),
    );
    return;
  }
  ui.selectedRoute = i;
  ui.selectedCity = null;
  render();
  /** @type {HTMLElement | null} */ (document.querySelector("#action input[name=payment]"))?.focus();
}

function onCity(i) {
  if (!isTTR() || !ui.st || ui.st.over) return;
  const city = ui.board.cities[i];
  const moves = legal().filter((m) => m.startsWith(`station ${city.name}: `));
  if (!moves.length) {
    const tix = (view().tickets || [])
      .concat(view().offer || [])
      .filter((tk) => tk.from === city.name || tk.to === city.name);
    if (tix.length) ui.drawing.highlight([city.name]);
    return;
  }
  ui.selectedCity = i;
  ui.selectedRoute = null;
  render();
}

function onEdge(e) {
  if (!ui.st) return;
  const move = `rail ${e.text}`;
  if (legal().includes(move)) send(move);
  else if (legal().length) toast(t("trans.cannot_rail", { line: e.text }));
}

function onPoint(p) {
  if (!ui.st) return;
  const move = `start ${p}`;
  if (legal().includes(move)) send(move);
}

// ---------------------------------------------------------------- rendering
function renderTop() {
  const top = $("topbar");
  const st = ui.st;
  const parts = [logo(), h("span", { class: "spacer" })];
  if (st && ui.board) {
    const variant = view().variant;
    const shown =
      variant && variant !== "standard" && variant !== "classic"
        ? ` · ${variantTitle(ui.board.game, variant, variant)}`
        : "";
    parts.push(h("span", { class: "pill game-name" }, gameTitle(ui.board.game, ui.board.name) + shown));
    if (st.role === "spectator") parts.push(h("span", { class: "pill" }, icon("eye"), " ", t("top.spectating")));
    if (st.role === "table") parts.push(h("span", { class: "pill" }, icon("swap"), " ", t("top.hotseat")));
  }
  const calm = reducedMotion();
  parts.push(
    h(
      "button",
      {
        class: "pill motion",
        type: "button",
        id: "motion",
        "aria-pressed": calm ? "true" : "false",
        title: t("motion.title"),
        "aria-label": calm ? t("motion.reduced") : t("motion.on"),
        onclick: toggleMotion,
      },
      h("span", { "aria-hidden": "true" }, calm ? "◌ " : "◉ "),
      h("span", { class: "motion-text" }, calm ? t("motion.reduced") : t("motion.on")),
    ),
  );
  parts.push(
    accountBox(),
    langPicker,
    h(
      "span",
      { class: `pill ${ui.online ? "ok" : "bad"}`, role: "status" },
      ui.online ? t("top.live") : t("top.reconnecting"),
    ),
  );
  top.replaceChildren(...parts.filter(Boolean));
}

function turnText() {
  const v = view();
  if (ui.st.over) {
    return [
      h("span", {}, icon("flag", 18), " ", t("turn.over")),
      v.result
        ? h(
            "button",
            { class: "btn small gold", type: "button", id: "show-result", onclick: openFinal },
            icon("trophy", 14),
            " ",
            t("final.reopen"),
          )
        : null,
    ];
  }
  const cur = v.current_player;
  const L = legal();
  if (L.length) {
    let hint = "";
    if (isTTR()) {
      if (L.some((m) => m.startsWith("keep"))) hint = t("turn.keep");
      else if (L.some((m) => m.startsWith("pay:")) || L.includes("decline")) hint = t("turn.tunnel");
      else if (L.every((m) => m.startsWith("draw"))) hint = t("turn.second_card");
      else hint = ui.board.features.stations ? t("turn.options_stations") : t("turn.options");
    } else if (v.phase === "start") hint = t("turn.start");
    else if (v.phase === "choose") hint = t("turn.choose");
    else if (v.turn) hint = t("turn.rails", { left: v.turn.left, budget: v.turn.budget });
    return [token(cur), h("span", {}, t("turn.yours"), h("br"), h("span", { class: "hint" }, hint))];
  }
  return [
    token(cur),
    h(
      "span",
      {},
      t("turn.other", { name: name(cur) }),
      v.final_round ? h("span", { class: "hint" }, " · ", t("turn.final_round")) : null,
    ),
  ];
}

function render() {
  if (!ui.st || !ui.drawing) return;
  renderTop();
  const v = view();
  const L = legal();
  // rounds finished before this page opened count as seen, except one that has just ended (no rail laid since)
  // or the one that ended the game
  if (ui.roundsSeen === null)
    ui.roundsSeen = (v.rounds?.length ?? 0) - (v.rounds?.length && (!v.rails?.length || ui.st.over) ? 1 : 0);
  if (!isTTR() && v.rounds && v.rounds.length > ui.roundsSeen) ui.roundShown = v.rounds.length - 1; // a round just ended
  const last = lastTurns();
  if (isTTR()) {
    const claimable = new Set();
    const labels = new Set(L.filter((m) => m.startsWith("claim ")).map((m) => m.slice(6).split(": ")[0]));
    ui.board.routes.forEach((r) => {
      if (labels.has(r.label)) claimable.add(r.i);
    });
    ui.drawing.update(v, claimable, ui.selectedRoute);
    ui.drawing.showLastMoves(
      ui.st.over ? [] : last.map((x) => ({ seat: x.seat, key: x.key, routes: x.routes, cities: x.cities })),
    );
    const res = v.result;
    ui.drawing.showTickets(res && ui.ticketsOf !== null ? res.players[ui.ticketsOf]?.tickets : null, ui.ticketsOf);
  } else {
    const summary = ui.roundShown !== null ? v.rounds?.[ui.roundShown] : null;
    ui.drawing.update(v, summary ? [] : L, mySeat(), {
      summary,
      last: last.map((x) => ({ seat: x.seat, key: x.key, lines: x.lines })),
    });
  }
  $("strip").replaceChildren(bannerBox(last), playersBox());
  const side = $("side");
  /** @type {HTMLElement[]} */
  const sections = [
    h("div", { class: `turnbar ${L.length ? "mine" : ""}`, role: "status", "aria-live": "polite" }, turnText()),
  ];
  const summaryBox = !isTTR() && ui.roundShown !== null ? roundSummaryBox() : null;
  if (summaryBox) sections.push(summaryBox);
  const action = isTTR() ? ttrAction() : transAction();
  // the dock: the current choice, the market and the hand; in the side column on wide screens, a bar at the
  // bottom of the screen on phones (style.css)
  const dock = h("div", { class: "dock", id: "dock" });
  if (action) dock.append(action);
  const special = isTTR() ? null : specialCardsBox(); // next to the choice it may ask for
  if (special) sections.push(special);
  const clockBox = clockPanel(
    ui.st,
    v.players.map((p) => p.name),
    (m) => ui.ws?.readyState === 1 && ui.ws.send(JSON.stringify(m)),
  );
  if (clockBox) sections.push(clockBox);
  if (isTTR()) {
    const rest = [];
    for (const b of ttrBoxes()) {
      if (b.id === "market-box" || b.id === "hand-box") dock.append(b);
      else rest.push(b);
    }
    sections.push(dock, ...rest);
  } else {
    sections.push(dock, ...transBoxes());
  }
  sections.push(logBox(), movesBox());
  side.replaceChildren(...sections);
  const log = side.querySelector(".log");
  if (log) log.scrollTop = log.scrollHeight;
  animateChanges();
  renderOverlay();
  fitDock();
}

// On a phone the dock is fixed to the bottom of the screen: the page keeps room for it below the content.
function fitDock() {
  const dock = $("dock");
  const fixed = dock && getComputedStyle(dock).position === "fixed";
  document.body.style.paddingBottom = fixed ? `${dock.offsetHeight + 8}px` : "";
}
window.addEventListener("resize", () => fitDock());

// Each other player's last turn, read from the public log: the run of their latest consecutive entries.
// What it placed (routes, stations, rails) is haloed on the board and said in the banner.
function lastTurns() {
  const v = view();
  const log = v.log || [];
  const me = mySeat();
  const out = [];
  for (let seat = 0; seat < v.players.length; seat++) {
    if (seat === me) continue;
    let end = -1;
    for (let k = log.length - 1; k >= 0; k--)
      if (log[k].player === seat) {
        end = k;
        break;
      }
    if (end < 0) continue;
    let start = end;
    while (start > 0 && log[start - 1].player === seat) start--;
    const run = log.slice(start, end + 1);
    const routes = [],
      cities = [],
      lines = [];
    for (const e of run) {
      let m;
      if (isTTR() && (m = e.move.match(/^claim (.+?): /))) {
        const label = m[1];
        const r = ui.board.routes.find((x) => x.label === label && v.route_owner[x.i] === seat); // none: a tunnel given up
        if (r) routes.push(r.i);
      } else if ((m = e.move.match(/^station (.+?): /))) cities.push(m[1]);
      else if ((m = e.move.match(/^rail (\S+)$/))) lines.push(m[1]);
    }
    out.push({ seat, key: `${seat}:${start}:${end}`, at: end, run, routes, cities, lines });
  }
  return out.sort((p, q) => p.at - q.at);
}

// "Bob claims Paris – Wien with 3 red cards": what the others did since, in the page's language.
function bannerBox(last) {
  const items = last
    .filter((x) => x.at >= view().log.length - 12)
    .map((x) => {
      const moves = x.run.map((e) => describeMove(e.move, ui.board));
      const merged = [];
      for (const m of moves) if (merged[merged.length - 1] !== m) merged.push(m);
      return h(
        "li",
        { "data-seat": x.seat },
        token(x.seat),
        h("span", {}, t("banner.did", { name: name(x.seat), what: list(merged) })),
      );
    });
  return h(
    "div",
    { class: "banner", id: "banner", role: "status", "aria-live": "polite", "aria-label": t("banner.label") },
    items.length ? h("ul", {}, items) : h("span", { class: "empty" }, t("banner.none")),
  );
}

// Short animations of what changed: cards that came into the hand, tickets taken, opponents' counters.
function animateChanges() {
  const v = view();
  const prev = ui.prev;
  ui.prev = {
    hand: { ...(v.hand || {}) },
    tickets: (v.tickets || []).map((tk) => tk.id),
    players: v.players.map((p) => ({ ...p })),
    seat: mySeat(),
  };
  if (!prev || prev.seat !== mySeat() || reducedMotion()) return;
  for (const [c, n] of Object.entries(v.hand || {})) {
    if (n > (prev.hand[c] ?? 0)) document.querySelector(`#hand .c-${c}`)?.classList.add("gained");
  }
  const had = new Set(prev.tickets);
  (v.tickets || []).forEach((tk, k) => {
    if (!had.has(tk.id)) document.querySelectorAll("#tickets .ticket")[k]?.classList.add("gained");
  });
  v.players.forEach((p, seat) => {
    const before = prev.players[seat];
    if (!before) return;
    const row = document.querySelector(`#strip .player[data-seat="${seat}"]`);
    if (row && (p.cards > before.cards || p.tickets > before.tickets)) row.classList.add("bump");
  });
}

function playersBox() {
  const v = view();
  const rows = v.players.map((p, seat) => {
    const info = ui.st.seats[seat] || {};
    const stats = isTTR()
      ? [
          [icon("wagon"), p.wagons, `stat.${ui.board.piece}`],
          [icon("cards"), p.cards, "stat.cards"],
          [icon("ticket"), p.tickets, "stat.tickets"],
          p.stations_left !== undefined && ui.board.features.stations
            ? [icon("station"), p.stations_left, "stat.stations_left"]
            : null,
        ]
      : [
          [icon("cards"), p.cities, "stat.city_cards"],
          p.start ? [icon("flag"), p.start, "stat.start"] : null,
          [
            h("span", { class: "sym-rail", "aria-hidden": "true" }, PLAYER_SYMBOLS[seat % 6]),
            v.rails.filter((r) => r.player === seat).length,
            "stat.rails_laid",
          ],
        ];
    const extra = isTTR()
      ? []
      : [
          p.open_cities?.length
            ? h("div", { class: "stats open" }, t("players.shows", { cities: list(p.open_cities) }))
            : null,
          p.shares_network_with?.length
            ? h("div", { class: "stats" }, t("players.shares", { names: list(p.shares_network_with.map(name)) }))
            : null,
        ];
    // at the end the real totals (tickets, stations, longest path included), not the route points of the table
    const final = v.result?.players?.[seat];
    const score = isTTR() ? (final ? final.total : p.route_points) : p.score;
    const showTix =
      isTTR() && final?.tickets?.length
        ? h(
            "button",
            {
              class: "btn small ghost tix-on-map",
              type: "button",
              "data-tickets-of": seat,
              "aria-pressed": ui.ticketsOf === seat ? "true" : "false",
              onclick: () => showTicketsOf(ui.ticketsOf === seat ? null : seat),
            },
            icon("ticket", 12),
            " ",
            t("final.tickets_on_map"),
          )
        : null;
    return h(
      "div",
      {
        class: `player ${v.current_player === seat ? "current" : ""} ${info.online ? "" : "offline"}`,
        "data-seat": seat,
      },
      token(seat),
      h(
        "div",
        {},
        h(
          "div",
          { class: "name" },
          p.name,
          info.kind === "bot" ? h("span", { title: t("players.bot"), class: "botmark" }, " ", icon("bot")) : "",
          seat === mySeat() ? ` ${t("players.you")}` : "",
          !info.online ? ` · ${t("players.away")}` : "",
        ),
        h(
          "div",
          { class: "stats" },
          stats
            .filter(Boolean)
            .map(([ic, n, what]) =>
              h("span", { title: t(what, { count: n }), "aria-label": `${n} ${t(what, { count: n })}` }, ic, ` ${n}`),
            ),
        ),
        extra,
        showTix,
      ),
      h(
        "div",
        {
          class: "score",
          title: isTTR() ? (final ? t("players.total") : t("players.route_points")) : t("players.prestige"),
        },
        score,
      ),
    );
  });
  const b = box(
    [
      t("players.title"),
      h(
        "span",
        {},
        isTTR() ? (v.result ? t("players.final_points") : t("players.points")) : t("players.goal", { goal: v.goal }),
      ),
    ],
    h("div", { class: "players" }, rows),
  );
  b.id = "players-box";
  return b;
}

function cardButton(color, attrs = {}, count = null) {
  const letter = CARD_LETTER[color] ?? color[0].toUpperCase();
  return h(
    attrs.onclick ? "button" : "div",
    {
      class: `card c-${color} ${count === 0 ? "zero" : ""}`,
      title: colorName(color),
      "aria-label": count !== null ? cards(color, count) : colorName(color),
      ...attrs,
    },
    h("span", { class: "sym" }, letter),
    h("span", { class: "lbl" }, t(`card_short.${color}`, {}, color)),
    count !== null ? h("span", { class: "n" }, count) : null,
  );
}

function ttrBoxes() {
  const v = view();
  const L = legal();
  const out = [];
  const market = v.market.map((c, slot) => {
    if (c === null) return h("div", { class: "card zero", "aria-label": t("market.empty_slot") }, "–");
    const move = `draw ${c}`;
    return cardButton(c, {
      type: "button",
      "data-draw": c,
      "data-slot": slot,
      disabled: !L.includes(move),
      onclick: () => send(move),
    });
  });
  const deck = h(
    "button",
    {
      class: "card deck",
      type: "button",
      "data-draw": "deck",
      disabled: !L.includes("draw deck"),
      onclick: () => send("draw deck"),
      "aria-label": t("market.draw_deck", { count: v.deck }),
    },
    h("span", { class: "sym" }, icon("deck", 22)),
    h("span", { class: "lbl" }, t("market.deck")),
    h("span", { class: "n" }, v.deck),
  );
  const tix = h(
    "button",
    {
      class: "card tix",
      type: "button",
      id: "draw-tickets",
      disabled: !L.includes("tickets"),
      onclick: () => send("tickets"),
      "aria-label": t("market.draw_tickets", { count: v.ticket_deck }),
    },
    h("span", { class: "sym" }, icon("ticket", 22)),
    h("span", { class: "lbl" }, t("market.tickets")),
    h("span", { class: "n" }, v.ticket_deck),
  );
  out.push(
    box(
      [t("market.title"), h("span", {}, t("market.discard", { count: v.discard }))],
      h("div", { class: "cards", id: "market" }, market, deck, tix),
    ),
  );
  out[out.length - 1].id = "market-box";
  if (v.hand && mySeat() !== null) {
    const colors = [...ui.board.colors, ui.board.loco];
    out.push(
      box(
        [t("hand.title"), h("span", {}, t("hand.count", { count: Object.values(v.hand).reduce((a, b) => a + b, 0) }))],
        h(
          "div",
          { class: "cards", id: "hand" },
          colors.map((c) => cardButton(c, {}, v.hand[c] ?? 0)),
        ),
      ),
    );
    out[out.length - 1].id = "hand-box";
  }
  if (v.tickets && mySeat() !== null) {
    const rows = v.tickets.map((tk) =>
      h(
        "div",
        {
          class: `ticket ${tk.long ? "long" : ""} ${tk.completed ? "done" : ""}`,
          tabindex: 0,
          onmouseenter: () => ui.drawing.highlight([tk.from, tk.to]),
          onmouseleave: () => ui.drawing.highlight([]),
          onfocus: () => ui.drawing.highlight([tk.from, tk.to]),
          onblur: () => ui.drawing.highlight([]),
        },
        h(
          "div",
          {},
          h("b", {}, ticketText(tk)),
          h(
            "div",
            { class: "state" },
            tk.completed ? [icon("check", 12), " ", t("tickets.connected")] : t("tickets.not_connected"),
          ),
        ),
        h("span", { class: "pts" }, tk.points),
      ),
    );
    const done = v.tickets.filter((tk) => tk.completed);
    out.push(
      box(
        [
          t("tickets.title"),
          h(
            "span",
            {},
            t("tickets.summary", {
              done: done.length,
              total: v.tickets.length,
              points: done.reduce((a, tk) => a + tk.points, 0),
            }),
          ),
        ],
        h(
          "div",
          { class: "tickets", id: "tickets" },
          rows.length ? rows : h("span", { class: "empty" }, t("tickets.none")),
        ),
      ),
    );
    out[out.length - 1].id = "tickets-box";
  }
  return out;
}

function keepChoice() {
  const v = view();
  // the rule of this choice comes with the view: at least N, at most M long (Mega: first 1 long or none)
  const rule = v.keep_rule || { at_least: 1, at_most_long: v.offer.length };
  const L = legal().filter((m) => m.startsWith("keep "));
  const key = v.offer.map((tk) => tk.id).join(" ");
  const longs = v.offer.filter((tk) => tk.long).map((tk) => tk.id);
  const tooManyLong = longs.length > rule.at_most_long;
  if (ui.keepKey !== key) {
    // start from everything the rule allows: all tickets, but no long one when they cannot all be kept
    ui.keepKey = key;
    ui.tickets = new Set(v.offer.filter((tk) => !(tk.long && tooManyLong)).map((tk) => tk.id));
  }
  const allowed = new Set(
    L.filter((m) => m !== "keep all").map((m) => (m === "keep none" ? "" : m.slice(5).split(" ").sort().join(" "))),
  );
  const picked = () => [...ui.tickets].sort().join(" ");
  const confirm = h("button", {
    class: "btn primary",
    id: "confirm",
    type: "button",
    onclick: () => send(`keep ${picked() || "none"}`),
  });
  const boxes = {};
  const sync = () => {
    for (const [id, input] of Object.entries(boxes)) input.checked = ui.tickets.has(id);
    confirm.disabled = !allowed.has(picked());
    confirm.textContent = t("keep.button", { count: ui.tickets.size });
  };
  const tick = (tk, on) => {
    if (!on) ui.tickets.delete(tk.id);
    else {
      ui.tickets.add(tk.id);
      // at most M long tickets: ticking one more long ticket unticks the others
      const kept = longs.filter((id) => ui.tickets.has(id) && id !== tk.id);
      if (tk.long && kept.length >= rule.at_most_long)
        for (const id of kept.slice(0, kept.length - rule.at_most_long + 1)) ui.tickets.delete(id);
    }
    sync();
  };
  const rows = v.offer.map((tk) => {
    const input = (boxes[tk.id] = h("input", {
      type: "checkbox",
      "data-ticket": tk.id,
      checked: ui.tickets.has(tk.id),
      onchange: (e) => tick(tk, e.target.checked),
    }));
    return h(
      "label",
      { class: `ticket ${tk.long ? "long" : ""}`, onmouseenter: () => ui.drawing.highlight([tk.from, tk.to]) },
      input,
      h("div", {}, h("b", {}, ticketText(tk)), tk.long ? h("div", { class: "state" }, t("keep.long")) : null),
      h("span", { class: "pts" }, tk.points),
    );
  });
  sync();
  const said =
    rule.at_least === 0
      ? [t("keep.long_or_none", { count: rule.at_most_long })]
      : [
          t("keep.at_least", { count: rule.at_least }),
          ...(tooManyLong ? [t("keep.at_most_long", { count: rule.at_most_long })] : []),
        ];
  return h(
    "section",
    { class: "box actionbox", id: "action" },
    h("h2", {}, t("keep.title"), h("span", { id: "keep-rule" }, said.join(", "))),
    h("div", { class: "choices" }, rows),
    h("div", { class: "row" }, confirm),
  );
}

function paymentChoice(title, moves, prefixLen, cancel) {
  const sorted = cheapestFirst(moves);
  let chosen = sorted[0];
  const rows = sorted.map((m, k) => {
    const pay = m.slice(prefixLen);
    const input = h("input", {
      type: "radio",
      name: "payment",
      value: m,
      checked: k === 0,
      onchange: () => {
        chosen = m;
      },
    });
    return h(
      "label",
      { class: "choice" },
      input,
      paymentChips(pay),
      h("span", { class: "sr-only" }, describePayment(pay)),
      k === 0
        ? h("span", { class: "state", style: "margin-left:auto;font-size:12px;color:#5d6b70" }, t("pay.cheapest"))
        : null,
    );
  });
  return h(
    "section",
    { class: "box actionbox", id: "action" },
    h("h2", {}, title),
    h("div", { class: "choices", role: "radiogroup" }, rows),
    h(
      "div",
      { class: "row" },
      h(
        "button",
        { class: "btn primary", id: "confirm", type: "button", onclick: () => send(chosen) },
        t("pay.confirm"),
      ),
      h("button", { class: "btn ghost", type: "button", onclick: cancel }, t("pay.cancel")),
    ),
  );
}

function ttrAction() {
  const v = view();
  const L = legal();
  if (!L.length) {
    if (v.tunnel)
      return box(
        t("tunnel.title"),
        h(
          "div",
          {},
          t("tunnel.digging", { name: name(v.current_player), route: routeText(v.tunnel.route, ui.board) }),
          " ",
          v.tunnel.revealed.map((c) => chip(c, 1)),
          " → ",
          t("tunnel.more", { count: v.tunnel.extra }),
        ),
      );
    return null;
  }
  if (L.some((m) => m.startsWith("keep ")) && v.offer?.length) return keepChoice();
  if (v.tunnel && (L.includes("decline") || L.some((m) => m.startsWith("pay:")))) {
    const pays = L.filter((m) => m.startsWith("pay: "));
    const tn = v.tunnel;
    const panel = paymentChoice(
      t("tunnel.pay_title", { route: routeText(tn.route, ui.board), count: tn.extra }),
      pays.length ? pays : [],
      5,
      () => send("decline"),
    );
    panel.querySelector(".choices").before(
      h(
        "div",
        {},
        t("tunnel.revealed"),
        " ",
        tn.revealed.map((c) => chip(c, 1)),
        h("br"),
        t("tunnel.you_laid"),
        " ",
        paymentChips(tn.played),
      ),
    );
    const cancel = panel.querySelector(".btn.ghost");
    cancel.textContent = t("tunnel.decline");
    cancel.id = "decline";
    if (!pays.length) panel.querySelector("#confirm").remove();
    return panel;
  }
  if (ui.selectedRoute !== null) {
    const moves = claimsFor(ui.selectedRoute);
    if (moves.length) {
      const r = ui.board.routes[ui.selectedRoute];
      const title = t(r.tunnel ? "claim.title_tunnel" : "claim.title", {
        a: ui.board.cities[r.a].display,
        b: ui.board.cities[r.b].display,
      });
      return paymentChoice(title, moves, moves[0].indexOf(": ") + 2, () => {
        ui.selectedRoute = null;
        render();
      });
    }
    ui.selectedRoute = null;
  }
  if (ui.selectedCity !== null) {
    const c = ui.board.cities[ui.selectedCity];
    const moves = L.filter((m) => m.startsWith(`station ${c.name}: `));
    if (moves.length)
      return paymentChoice(t("station.title", { city: c.display }), moves, moves[0].indexOf(": ") + 2, () => {
        ui.selectedCity = null;
        render();
      });
    ui.selectedCity = null;
  }
  if (L.length === 1 && L[0] === "pass")
    return box(
      t("pass.none"),
      h("button", { class: "btn primary", type: "button", onclick: () => send("pass") }, t("pass.button")),
    );
  return null;
}

function transAction() {
  const v = view();
  const L = legal();
  if (!L.length) return null;
  const buttons = [];
  if (L.includes("end"))
    buttons.push(
      h(
        "button",
        { class: "btn primary", type: "button", id: "end-turn", onclick: () => send("end") },
        t("trans.end_turn"),
      ),
    );
  if (L.includes("pass"))
    buttons.push(h("button", { class: "btn", type: "button", onclick: () => send("pass") }, t("pass.button")));
  const cityMoves = L.filter((m) => m.startsWith("return ") || m.startsWith("pass "));
  const choices = cityMoves.map((m) =>
    h(
      "button",
      { class: "btn small", type: "button", "data-move": m, onclick: () => send(m) },
      m.startsWith("return ")
        ? t("trans.return_city", { city: m.slice(7) })
        : t("trans.pass_city", { city: m.slice(5) }),
    ),
  );
  if (!buttons.length && !choices.length) return null;
  return h(
    "section",
    { class: "box actionbox", id: "action" },
    h(
      "h2",
      {},
      v.choice ? t("trans.choose", { step: t(`step.${v.choice.step}`, {}, v.choice.step) }) : t("turn.yours"),
    ),
    choices.length ? h("div", { class: "row" }, choices) : null,
    h("div", { class: "row" }, buttons),
  );
}

function transBoxes() {
  const v = view();
  const out = [];
  if (v.cities && mySeat() !== null) {
    const n = v.missing_rails;
    out.push(
      box(
        [
          t("trans.cities"),
          n !== undefined ? h("span", {}, n === 0 ? t("trans.all_connected") : t("trans.missing", { count: n })) : "",
        ],
        h(
          "div",
          { class: "tickets" },
          v.cities.map((c) =>
            h(
              "div",
              { class: "ticket" },
              h("div", {}, chip(c.color, ""), " ", h("b", {}, c.name)),
              h("span", { class: "state" }, c.point),
            ),
          ),
        ),
      ),
    );
  }
  out.push(
    box(
      t("trans.round_title"),
      h("div", {}, t("trans.round", { round: v.round }), " · ", t("trans.supply", { count: v.supply })),
    ),
  );
  if (v.rounds?.length) {
    const rows = v.rounds.map((r, k) =>
      h(
        "tr",
        {},
        h(
          "td",
          {},
          h(
            "button",
            {
              class: "linkish",
              type: "button",
              "data-round": k,
              "aria-pressed": ui.roundShown === k ? "true" : "false",
              "aria-label": t("round.show", { round: r.round }),
              onclick: () => {
                ui.roundShown = ui.roundShown === k ? null : k;
                render();
              },
            },
            t("trans.round", { round: r.round }),
          ),
        ),
        r.players.map((p) => h("td", {}, `${p.prestige >= 0 ? "+" : ""}${p.prestige}`)),
      ),
    );
    out.push(
      box(
        t("trans.finished_rounds"),
        h(
          "table",
          { class: "scores" },
          h(
            "tr",
            {},
            h("th", {}, ""),
            v.players.map((p) => h("th", {}, p.name)),
          ),
          rows,
        ),
      ),
    );
  }
  return out;
}

// The special card(s) of this round, spelled out: what each changes, in the words of the card.
function specialCardsBox() {
  const v = view();
  const specials = v.special_cards || [];
  if (!specials.length && !v.special_deck) return null;
  const items = specials.map((c) =>
    h(
      "li",
      { class: "special", "data-card": c.id },
      h("span", { class: "special-no", "aria-hidden": "true" }, c.id),
      h(
        "div",
        {},
        h("b", {}, t(`special.${c.id}.title`, {}, c.title)),
        h("p", {}, t(`special.${c.id}.text`, {}, c.text)),
      ),
    ),
  );
  return h(
    "section",
    { class: "box", id: "special-cards", "aria-labelledby": "special-h" },
    h(
      "h2",
      { id: "special-h" },
      t("special.heading", { count: Math.max(1, specials.length) }),
      h("span", {}, t("special.left", { count: v.special_deck })),
    ),
    items.length ? h("ul", { class: "specials" }, items) : h("p", { class: "empty" }, t("special.none")),
    h("details", {}, h("summary", {}, t("special.how")), h("p", {}, t("special.explain"))),
  );
}

function logBox() {
  const v = view();
  const items = v.log
    .slice(-80)
    .map((e) =>
      h(
        "li",
        {},
        token(e.player),
        h(
          "span",
          {},
          h("b", {}, name(e.player)),
          " ",
          describeMove(e.move, ui.board),
          e.note ? h("span", { class: "note" }, " — ", describeNote(e.note, ui.board)) : null,
        ),
      ),
    );
  return box(
    [t("log.title"), h("span", {}, `${v.log.length}`)],
    h("ol", { class: "log", "aria-live": "polite" }, items.length ? items : h("li", { class: "empty" }, t("log.none"))),
  );
}

function movesBox() {
  const L = legal();
  if (!L.length) return h("span");
  const select = h(
    "select",
    { "aria-label": t("keys.all_moves"), id: "all-moves" },
    L.slice(0, 400).map((m) => h("option", { value: m }, m)),
  );
  const input = h("input", {
    placeholder: t("keys.placeholder"),
    "aria-label": t("keys.notation"),
    id: "notation",
    lang: "en",
  });
  const form = h(
    "form",
    {
      class: "notation",
      onsubmit: (e) => {
        e.preventDefault();
        const text = input.value.trim();
        if (text) send(text);
        input.value = "";
      },
    },
    input,
    h("button", { class: "btn small", type: "submit" }, t("keys.send")),
  );
  return box(
    [t("keys.title"), h("span", {}, t("keys.count", { count: L.length }))],
    h(
      "div",
      { class: "notation" },
      select,
      h("button", { class: "btn small", type: "button", onclick: () => send(select.value) }, t("keys.play")),
    ),
    form,
  );
}

// The tickets of one player drawn on the map (game over): completed solid, failed dashed.
function showTicketsOf(seat) {
  ui.ticketsOf = seat;
  render();
}

// A Trans round is over: everybody's cities and one cheapest set of missing rails, until the player continues.
function roundSummaryBox() {
  const v = view();
  const r = v.rounds[ui.roundShown];
  if (!r) return null;
  const rows = r.players.map((p, seat) =>
    h(
      "li",
      { class: "round-player", "data-seat": seat },
      token(seat),
      h(
        "div",
        {},
        h("b", {}, p.name),
        " ",
        h("span", { class: "pts" }, `${p.prestige >= 0 ? "+" : ""}${p.prestige}`),
        h(
          "div",
          { class: "state" },
          p.connected ? t("round.connected") : t("round.missing", { count: p.missing_rails }),
        ),
        h(
          "div",
          { class: "cities" },
          (p.cities || []).map((c) => h("span", { class: "city-tag" }, c)),
        ),
      ),
    ),
  );
  const latest = ui.roundShown === v.rounds.length - 1;
  const close = () => {
    ui.roundShown = null;
    ui.roundsSeen = v.rounds.length;
    render();
    $("board").focus?.();
  };
  return h(
    "section",
    { class: "box actionbox round-summary", id: "round-summary", "aria-labelledby": "round-h" },
    h(
      "h2",
      { id: "round-h" },
      t("round.title", { round: r.round }),
      h("span", {}, t(`note.ended.${r.ended_by}`, {}, r.ended_by)),
    ),
    h("p", { class: "state" }, t("round.explain")),
    h("ol", { class: "round-players" }, rows),
    h(
      "div",
      { class: "row" },
      h(
        "button",
        { class: "btn primary", type: "button", id: "round-continue", onclick: close },
        latest && !ui.st.over ? t("round.continue") : t("round.close"),
      ),
    ),
  );
}

function openFinal() {
  const ov = $("overlay");
  ov.replaceChildren(finalScreen());
  ov.hidden = false;
  showLongest();
  const modal = ov.querySelector("#final");
  modal.scrollTop = 0; // opens at the top, with the winner in view
  /** @type {HTMLElement | null} */ (ov.querySelector("#final-h"))?.focus({ preventScroll: true });
}

// ---------------------------------------------------------------- overlays
function renderOverlay() {
  const ov = $("overlay");
  const st = ui.st;
  if (covered()) {
    const seat = st.seat;
    ov.replaceChildren(
      h(
        "div",
        { class: "modal cover", role: "dialog", "aria-modal": "true", "aria-labelledby": "cover-h" },
        h("h2", { id: "cover-h" }, t("cover.title", { name: name(seat) })),
        token(seat),
        h("p", {}, t("cover.text", { name: name(seat) })),
        h(
          "button",
          {
            class: "btn primary",
            id: "reveal",
            type: "button",
            onclick: () => {
              ui.revealed = seat;
              render();
            },
          },
          t("cover.reveal", { name: name(seat) }),
        ),
      ),
    );
    ov.style.background = "rgba(12, 30, 24, .97)";
    ov.hidden = false;
    /** @type {HTMLElement} */ (ov.querySelector("#reveal")).focus();
    return;
  }
  ov.style.background = "";
  if (st.over && view().result && !ui.finalShown) {
    ui.finalShown = true;
    openFinal();
    return;
  }
  if (!st.over && ov.querySelector("#final")) ov.hidden = true;
  if (ov.querySelector(".cover")) ov.hidden = true;
}

function showLongest() {
  if (!isTTR()) return;
  const res = view().result;
  const best = Math.max(...res.players.map((p) => p.longest_path || 0));
  const idx = [];
  res.players.forEach((p, seat) => {
    if (!p.longest_path || p.longest_path !== best) return;
    for (const label of p.longest_path_routes || []) {
      const r =
        ui.board.routes.find((x) => x.label === label && view().route_owner[x.i] === seat) ||
        ui.board.routes.find((x) => x.label === label);
      if (r) idx.push([r.i, seat]);
    }
  });
  const bySeat = new Map();
  idx.forEach(([i, seat]) => {
    if (!bySeat.has(seat)) bySeat.set(seat, []);
    bySeat.get(seat).push(i);
  });
  for (const [seat, list] of bySeat) ui.drawing.showLongest(list, seat);
}

function finalScreen() {
  const res = view().result;
  const close = () => {
    $("overlay").hidden = true;
    $("show-result")?.focus();
  };
  const actions = h(
    "div",
    { class: "row", style: "justify-content:flex-end" },
    h("button", { class: "btn", type: "button", onclick: close }, t("final.show_board")),
    h("a", { class: "btn gold", href: `/replay/${encodeURIComponent(gameId)}`, id: "replay-link" }, t("final.replay")),
    h("a", { class: "btn primary", href: "/" }, t("final.lobby")),
  );
  const heading = h("h2", { id: "final-h", tabindex: -1 }, winnersLine(res, 26));
  const modal = (...parts) =>
    h(
      "div",
      { class: "modal", id: "final", role: "dialog", "aria-modal": "true", "aria-labelledby": "final-h" },
      parts,
    );
  if (!isTTR()) return modal(heading, scoresTable(res, { id: "scores" }), actions);
  const onMap = (seat) =>
    h(
      "button",
      {
        class: "btn small",
        type: "button",
        "data-tickets-of": seat,
        onclick: () => {
          $("overlay").hidden = true;
          showTicketsOf(seat);
          $("show-result")?.focus();
        },
      },
      icon("ticket", 12),
      " ",
      t("final.tickets_on_map"),
    );
  const details = res.players.map((p, seat) =>
    box(
      [h("span", {}, token(seat), " ", p.name), h("span", {}, t("final.points", { count: p.total }))],
      (p.tickets || []).length ? onMap(seat) : null,
      h(
        "div",
        { class: "tickets" },
        (p.tickets || []).map((tk) =>
          h(
            "div",
            { class: `ticket ${tk.completed ? "done" : ""}` },
            h(
              "div",
              {},
              h("b", {}, ticketText(tk)),
              h(
                "div",
                { class: "state" },
                tk.completed
                  ? [icon("check", 12), " ", t("final.completed")]
                  : [icon("cross", 12), " ", t("final.missed")],
              ),
            ),
            h("span", { class: "pts" }, `${tk.completed ? "+" : "−"}${tk.points}`),
          ),
        ),
      ),
      (p.stations || []).length
        ? h(
            "div",
            { class: "state" },
            t("final.station_list", { cities: list(p.stations.map((x) => cityText(x.city, ui.board))) }),
          )
        : null,
      (p.attractions || []).length
        ? h(
            "div",
            { class: "state" },
            t("final.attraction_list", { cities: list(p.attractions.map((x) => cityText(x, ui.board))) }),
          )
        : null,
    ),
  );
  const longest = ui.board.features.longest_path ? ` ${t("final.longest_shown")}` : "";
  const rule = [tiebreakText(res), longest].filter(Boolean).join(" ").trim();
  return modal(
    heading,
    rule ? h("div", { class: "state" }, rule) : null,
    scoresTable(res, { id: "scores" }),
    h("div", { class: "detail" }, details),
    actions,
  );
}

function showFatal(message) {
  const ov = $("overlay");
  ov.replaceChildren(
    h(
      "div",
      { class: "modal" },
      h("h2", {}, t("fatal.title")),
      h("p", {}, message),
      h("a", { class: "btn primary", href: "/" }, t("final.lobby")),
    ),
  );
  ov.hidden = false;
}

document.addEventListener("keydown", (e) => {
  if (e.key === "Escape") {
    if (ui.selectedRoute !== null || ui.selectedCity !== null) {
      ui.selectedRoute = null;
      ui.selectedCity = null;
      render();
    } else if ($("overlay").querySelector("#final")) $("overlay").hidden = true;
  }
});

// Skip links: the current choice and the board are each one key press away from the top of the page.
function jumpToChoice(e) {
  e.preventDefault();
  const target =
    /** @type {HTMLElement | null} */ (
      document.querySelector(
        "#action input:checked, #action input, #action button:not([disabled]), #round-continue, #show-result, #dock button:not([disabled]), #notation",
      )
    ) || $("side");
  if (target === $("side")) target.setAttribute("tabindex", "-1");
  target.focus();
  target.scrollIntoView?.({ block: "nearest" });
}
function jumpToBoard(e) {
  e.preventDefault();
  const svg = ui.drawing?.svg;
  if (!svg) return;
  const target = svg.querySelector(".route.claimable") || svg.querySelector('[tabindex="0"]');
  if (target && isTTR()) ui.drawing.focusRoute(Number(target.dataset.route));
  else if (target) target.focus();
  else {
    svg.setAttribute("tabindex", "-1");
    svg.focus();
  }
}
$("skip-choice").addEventListener("click", jumpToChoice);
$("skip-board").addEventListener("click", jumpToBoard);

window.__tracklayer = ui; // for tests and curious players: holds only what this seat may know
let langPicker = null;
initI18n().then(() => {
  langPicker = picker();
  onLangChange(() => {
    renderTop();
    linkPanel();
    if (!ui.drawing) return;
    buildBoard(); // the board's labels are translated too
    render();
    if (ui.st.over && view().result) {
      showLongest();
      const ov = $("overlay");
      if (!ov.hidden && ov.querySelector("#final")) ov.replaceChildren(finalScreen());
    }
  });
  renderTop();
  ui.chat = mountChat((m) => {
    // true if sent
    if (!ui.ws || ui.ws.readyState !== 1) {
      toast(t("err.offline"));
      return false;
    }
    ui.ws.send(JSON.stringify(m));
    return true;
  });
  connect();
});
void PLAYER_COLORS;
void PLAYER_SYMBOLS;
