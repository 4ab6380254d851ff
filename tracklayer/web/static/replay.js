// @ts-check
// The replay page (/replay/{id}?move=N&seat=S): a finished game move by move, from the spectator's
// or any player's point of view. The server computes every view (GET /api/games/{id}/replay), as in
// play; this page draws it with the game page's board classes. The address always names the move and
// the point of view shown, so a copied link opens the same position.
import { h, s, icon, logo, token, CARD_LETTER, gameTitle, gameNamePill, colorName, cards } from "./common.js";
import { TTRBoard, TransBoard } from "./board.js";
import { init as initI18n, t, picker, onLangChange } from "./i18n.js";
import { describeMove, cityText, logList } from "./moves.js";
import { scoresTable, winnersLine } from "./results.js";

const $ = (id) => document.getElementById(id);
const gameId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop());
const SPEEDS = [2000, 1000, 500, 250]; // milliseconds a move when playing

const ui = {
  board: null,
  drawing: null,
  data: null, // the last /replay answer
  move: null,
  seat: null,
  total: 0,
  seats: [],
  playing: false,
  speed: 1000,
  timer: null,
  loading: 0,
  want: null,
};
window.__replay = ui; // for tests

function params() {
  const q = new URLSearchParams(location.search);
  const move = q.has("move") ? Number(q.get("move")) : null;
  const seat = q.has("seat") && q.get("seat") !== "" ? Number(q.get("seat")) : null;
  return { move: Number.isInteger(move) ? move : null, seat: Number.isInteger(seat) ? seat : null };
}

/** @type {ReturnType<typeof setTimeout> | undefined} */
let toastTimer;

function toast(text) {
  const el = $("toast");
  el.textContent = text;
  el.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => {
    el.hidden = true;
  }, 4000);
}

async function fetchView(move, seat) {
  const q = new URLSearchParams({ move: String(move) });
  if (seat !== null) q.set("seat", String(seat));
  const r = await fetch(`/api/games/${encodeURIComponent(gameId)}/replay?${q}`);
  const body = await r.json().catch(() => ({}));
  if (!r.ok) {
    throw Object.assign(new Error(body.detail || `HTTP ${r.status}`), { status: r.status });
  }
  return body;
}

// Show move n from the point of view of seat (null: spectator). Requests made while one is on its
// way only keep the newest wish, so dragging the slider does not queue a request per step.
async function show(move, seat = ui.seat) {
  ui.want = { move: Math.max(0, Math.min(move, ui.total || move)), seat };
  if (ui.loading) return;
  ui.loading = 1;
  try {
    while (ui.want) {
      const { move: m, seat: pov } = ui.want;
      ui.want = null;
      const data = await fetchView(m, pov);
      ui.data = data;
      ui.move = data.move;
      ui.seat = data.seat;
      ui.total = data.moves;
      ui.seats = data.seats;
      if (!ui.board) {
        ui.board = await (await fetch(`/api/boards/${data.game}`)).json();
        buildBoard();
      }
      const q = new URLSearchParams({ move: String(ui.move) });
      if (ui.seat !== null) q.set("seat", String(ui.seat));
      history.replaceState(null, "", `${location.pathname}?${q}`);
      render();
    }
  } catch (e) {
    stop();
    if (e.status === 409 || e.status === 404)
      showFatal(e.status === 409 ? t("replay.not_over") : t("replay.not_found"));
    else toast(t("replay.failed", { detail: e.message }));
  } finally {
    ui.loading = 0;
  }
}

function buildBoard() {
  const none = () => {};
  const handlers = { route: none, city: none, edge: none, point: none };
  ui.drawing = ui.board.family === "ttr" ? new TTRBoard(ui.board, handlers) : new TransBoard(ui.board, handlers);
  $("board").replaceChildren(ui.drawing.svg);
  document.title = `${t("replay.title")}: ${gameTitle(ui.board.game, ui.board.name)} — tracklayer`;
}

// ---------------------------------------------------------------- playing
function play() {
  if (ui.move >= ui.total) show(0);
  ui.playing = true;
  tick();
  render();
}
function stop() {
  ui.playing = false;
  clearTimeout(ui.timer);
  if (ui.data) render();
}
function tick() {
  clearTimeout(ui.timer);
  ui.timer = setTimeout(async () => {
    if (!ui.playing) return;
    if (ui.move >= ui.total) {
      stop();
      return;
    }
    await show(ui.move + 1);
    if (ui.playing) tick();
  }, ui.speed);
}
function step(delta) {
  stop();
  show(ui.move + delta);
}

// ---------------------------------------------------------------- rendering
function renderTop() {
  const parts = [logo(), h("span", { class: "spacer" })];
  if (ui.board) {
    parts.push(gameNamePill(ui.board.game, ui.board.name, ui.data?.variant));
  }
  parts.push(h("span", { class: "pill" }, icon("flag"), " ", t("replay.title")), langPicker);
  $("topbar").replaceChildren(...parts.filter(Boolean));
}

function box(title, ...children) {
  return h("section", { class: "box" }, h("h2", {}, ...[].concat(title)), ...children);
}
const name = (seat) => ui.seats[seat]?.name ?? "?";

// Player buttons drawn as SVG: the media-control characters are missing from many fonts.
const GLYPHS = {
  first: ["M3.5 3v10", "M13 3L5.5 8l7.5 5z"],
  prev: ["M12 3L4.5 8l7.5 5z"],
  play: ["M5 3l8 5-8 5z"],
  pause: ["M5 3.5v9", "M11 3.5v9"],
  next: ["M4 3l7.5 5L4 13z"],
  last: ["M12.5 3v10", "M3 3l7.5 5L3 13z"],
};
function glyph(name) {
  return s(
    "svg",
    { viewBox: "0 0 16 16", width: 16, height: 16, class: "icon", "aria-hidden": "true" },
    GLYPHS[name].map((d) =>
      s("path", {
        d,
        fill: d.endsWith("z") ? "currentColor" : "none",
        stroke: "currentColor",
        "stroke-width": 2,
        "stroke-linejoin": "round",
        "stroke-linecap": "round",
      }),
    ),
  );
}

function controls() {
  const b = (id, ic, label, onclick, disabled = false) =>
    h("button", { class: "btn small", type: "button", id, title: label, "aria-label": label, onclick, disabled }, ic);
  const atStart = ui.move <= 0,
    atEnd = ui.move >= ui.total;
  const slider = h("input", {
    type: "range",
    id: "replay-slider",
    min: 0,
    max: ui.total,
    value: ui.move,
    step: 1,
    "aria-label": t("replay.slider"),
    oninput: (e) => {
      stop();
      show(Number(e.target.value));
    },
  });
  const speed = h(
    "select",
    {
      id: "replay-speed",
      "aria-label": t("replay.speed"),
      onchange: (e) => {
        ui.speed = Number(e.target.value);
        if (ui.playing) tick();
      },
    },
    SPEEDS.map((ms) => h("option", { value: ms, selected: ms === ui.speed }, t("replay.speed_x", { x: 1000 / ms }))),
  );
  const pov = h(
    "select",
    {
      id: "replay-seat",
      "aria-label": t("replay.view_as"),
      onchange: (e) => show(ui.move, e.target.value === "" ? null : Number(e.target.value)),
    },
    h("option", { value: "", selected: ui.seat === null }, t("replay.spectator")),
    ui.seats.map((x) =>
      h("option", { value: x.seat, selected: ui.seat === x.seat }, `${"●▲■◆★✚"[x.seat % 6]} ${x.name}`),
    ),
  );
  const counter = ui.move === 0 ? t("replay.start") : t("replay.move", { n: ui.move, total: ui.total });
  const last = ui.data.last
    ? h(
        "div",
        { class: "replay-last", id: "replay-last" },
        lastMover() !== null ? token(lastMover()) : null,
        " ",
        h(
          "span",
          {},
          lastMover() !== null ? h("b", {}, name(lastMover()), " ") : null,
          describeMove(ui.data.last, ui.board),
        ),
      )
    : null;
  const share = h(
    "button",
    {
      class: "btn small ghost",
      type: "button",
      id: "replay-share",
      onclick: async () => {
        try {
          await navigator.clipboard.writeText(location.href);
          toast(t("replay.copied"));
        } catch {
          toast(location.href);
        }
      },
    },
    t("replay.share"),
  );
  return box(
    [t("replay.title"), h("span", { id: "replay-counter" }, counter)],
    h(
      "div",
      { class: "replay-buttons" },
      b(
        "replay-first",
        glyph("first"),
        t("replay.first"),
        () => {
          stop();
          show(0);
        },
        atStart,
      ),
      b("replay-prev", glyph("prev"), t("replay.prev"), () => step(-1), atStart),
      ui.playing
        ? b("replay-pause", glyph("pause"), t("replay.pause"), stop)
        : b("replay-play", glyph("play"), t("replay.play"), play),
      b("replay-next", glyph("next"), t("replay.next"), () => step(1), atEnd),
      b(
        "replay-last-btn",
        glyph("last"),
        t("replay.last"),
        () => {
          stop();
          show(ui.total);
        },
        atEnd,
      ),
    ),
    slider,
    h(
      "div",
      { class: "replay-row" },
      h("label", {}, t("replay.speed"), " ", speed),
      h("label", {}, t("replay.view_as"), " ", pov),
    ),
    last,
    h("div", { class: "replay-row" }, share),
  );
}

function lastMover() {
  const log = ui.data.view.log || [];
  return log.length ? log[log.length - 1].player : null;
}

function playersBox() {
  const v = ui.data.view,
    ttr = ui.board.family === "ttr";
  const rows = v.players.map((p, seat) => {
    const stats = ttr
      ? [
          [icon("wagon"), p.wagons],
          [icon("cards"), p.cards],
          [icon("ticket"), p.tickets],
        ]
      : [[icon("cards"), p.cities]];
    return h(
      "div",
      { class: `player ${v.current_player === seat && !ui.data.over ? "current" : ""}`, "data-seat": seat },
      token(seat),
      h(
        "div",
        {},
        h("div", { class: "name" }, p.name, seat === ui.seat ? ` ${t("replay.eyes")}` : ""),
        h(
          "div",
          { class: "stats" },
          stats.map(([ic, n]) => h("span", {}, ic, ` ${n}`)),
        ),
      ),
      h("div", { class: "score" }, ttr ? p.route_points : p.score),
    );
  });
  return box(
    [t("players.title"), h("span", {}, ttr ? t("players.points") : t("players.goal", { goal: v.goal }))],
    h("div", { class: "players" }, rows),
  );
}

function secretsBox() {
  const v = ui.data.view;
  if (ui.seat === null) return null;
  if (ui.board.family === "ttr") {
    const colors = [...ui.board.colors, ui.board.loco];
    const hand = h(
      "div",
      { class: "cards", id: "replay-hand" },
      colors.map((c) =>
        h(
          "div",
          {
            class: `card c-${c} ${(v.hand?.[c] ?? 0) === 0 ? "zero" : ""}`,
            title: colorName(c),
            "aria-label": cards(c, v.hand?.[c] ?? 0),
          },
          h("span", { class: "sym" }, CARD_LETTER[c] ?? c[0].toUpperCase()),
          h("span", { class: "lbl" }, t(`card_short.${c}`, {}, c)),
          h("span", { class: "n" }, v.hand?.[c] ?? 0),
        ),
      ),
    );
    const tix = (v.tickets || []).map((tk) =>
      h(
        "div",
        { class: `ticket ${tk.long ? "long" : ""} ${tk.completed ? "done" : ""}` },
        h("div", {}, h("b", {}, `${cityText(tk.from, ui.board)} – ${cityText(tk.to, ui.board)}`)),
        h("span", { class: "pts" }, tk.points),
      ),
    );
    return box(
      t("replay.secrets", { name: name(ui.seat) }),
      hand,
      h("div", { class: "tickets", id: "replay-tickets" }, tix),
    );
  }
  const cities = (v.cities || []).map((c) => h("span", { class: "pill replay-city" }, cityText(c.name, ui.board)));
  return box(
    t("replay.secrets", { name: name(ui.seat) }),
    h("div", { class: "replay-cities", id: "replay-tickets" }, cities),
  );
}

function resultBox() {
  const res = ui.data.view.result;
  if (!ui.data.over || !res) return null;
  return box([h("span", {}, winnersLine(res))], scoresTable(res, { id: "replay-result", compact: true }));
}

function logBox() {
  const log = ui.data.view.log || [];
  return box([t("log.title"), h("span", {}, `${log.length}`)], logList(log, ui.board, name, 30));
}

function render() {
  if (!ui.data || !ui.drawing) return;
  renderTop();
  const v = ui.data.view;
  if (ui.board.family === "ttr") ui.drawing.update(v, new Set(), null);
  else ui.drawing.update(v, [], ui.seat);
  const side = $("side");
  side.replaceChildren(...[controls(), resultBox(), playersBox(), secretsBox(), logBox()].filter(Boolean));
  const log = side.querySelector(".log");
  if (log) log.scrollTop = log.scrollHeight;
}

function showFatal(message) {
  $("side").replaceChildren(
    h(
      "section",
      { class: "box", id: "replay-fatal" },
      h("p", {}, message),
      h("a", { class: "btn primary", href: "/" }, t("final.lobby")),
    ),
  );
}

document.addEventListener("keydown", (e) => {
  if (!ui.data || (e.target instanceof Element && e.target.closest("input, select, textarea"))) return;
  if (e.key === "ArrowLeft") step(-1);
  else if (e.key === "ArrowRight") step(1);
  else if (e.key === " ") {
    e.preventDefault();
    if (ui.playing) stop();
    else play();
  }
});

let langPicker = null;
initI18n().then(() => {
  langPicker = picker();
  onLangChange(() => {
    if (ui.board) buildBoard();
    renderTop();
    render();
  });
  renderTop();
  const p = params();
  show(p.move ?? 0, p.seat);
});
