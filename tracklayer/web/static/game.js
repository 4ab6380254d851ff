// @ts-check
// The game page: one websocket, the server's view of this seat, and moves made by clicking.
// The server is authoritative: this page only ever sends move texts from the legal list it was given
// (or typed by the player) together with the index of the move it expects to make.
import { h, icon, logo, token, store, gameTitle, gameNamePill, rulesLink } from "./common.js";
import { attachAim } from "./aim.js";
import { attachZoom } from "./zoom.js";
import { init as initI18n, t, picker, onLangChange, list } from "./i18n.js";
import { accountBox } from "./account.js";
import { describeMove, logList } from "./moves.js";
import { mountChat } from "./chat.js";
import { mountGamePanel } from "./links.js";
import { clockPanel, onClockState } from "./clock.js";
import { scoresTable, tiebreakText, winnersLine } from "./results.js";
import { $, ui, legal, view, covered, mySeat, name, toast, box } from "./gamepage.js";
import { ttrFamily } from "./game-ttr.js";
import { soundsFor, play, muted, toggleSound, installSound, played } from "./sound.js";
import { transFamily } from "./game-trans.js";
import { mountGuide } from "./tutorial.js";

const gameId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop());
const tok = location.hash.slice(1);

const linkPanel = mountGamePanel(gameId);

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

// ---------------------------------------------------------------- sound
// Effects (sound.js) start with the player's first touch or key; the top bar's toggle mutes them.
installSound();
ui.sounds = played;
function toggleMute() {
  toggleSound();
  renderTop();
}

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
      tokens: {
        [msg.role === "seat" ? msg.seat : msg.role === "table" ? "hotseat" : "spectator"]: tok,
      },
      seats: msg.seats.map((x) => x.name),
    });
    ui.board = await (await fetch(`/api/boards/${msg.game}`)).json();
    const page = { send, render };
    ui.family = ui.board.family === "ttr" ? ttrFamily(page) : transFamily(page);
    buildBoard();
    const lesson = msg.role === "seat" ? msg.seats[msg.seat]?.lesson : null;
    if (lesson) mountTutorial(lesson);
  }
  render();
}

// A tutorial game (the seat has a lesson): the guide above the board (tutorial.js), updated with every render.
async function mountTutorial(lesson) {
  ui.guide = await mountGuide(gameId, lesson, () => ({
    v: view(),
    legal: legal(),
    seat: mySeat(),
    board: ui.board,
    over: ui.st.over,
    other: name(view().players.findIndex((_, seat) => seat !== mySeat())),
  }));
  render();
}

// ---------------------------------------------------------------- helpers

// The server's protocol errors carry a stable code, translated here; an engine's refusal of a move
// (code "illegal") is detailed English text from the rules engine, wrapped in a translated sentence.
function errorText(msg) {
  const detail = msg.message || "";
  if (msg.code === "illegal") return t("err.illegal", { detail });
  return t(`err.${msg.code}`, { detail }, t("err.unknown", { detail }));
}

// ---------------------------------------------------------------- board
function buildBoard() {
  ui.drawing = ui.family.makeDrawing(ui.board);
  ui.drawing.svg.setAttribute("preserveAspectRatio", "xMidYMid meet");
  $("board").replaceChildren(ui.drawing.svg);
  ui.zoom = attachZoom(ui.drawing.svg);
  $("board").append(ui.zoom.controls);
  const drawing = ui.drawing;
  if ("aimTargets" in drawing) ui.aim = attachAim(drawing.svg, ui.zoom, () => drawing.aimTargets());
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

// ---------------------------------------------------------------- rendering
/**
 * A switch of the top bar (motion, sound): a pill button, pressed while the calmer setting is on; its
 * label says the setting now and is hidden on a phone, where the glyph alone shows.
 * @param {string} name the button's id and class
 * @param {boolean} pressed
 * @param {Node} glyph
 * @param {string} label
 * @param {string} title the tooltip: what the switch does
 * @param {() => void} onclick
 */
function topToggle(name, pressed, glyph, label, title, onclick) {
  return h(
    "button",
    {
      class: `pill ${name}`,
      type: "button",
      id: name,
      "aria-pressed": pressed ? "true" : "false",
      title,
      "aria-label": label,
      onclick,
    },
    glyph,
    h("span", { class: `${name}-text` }, " ", label),
  );
}

function renderTop() {
  const top = $("topbar");
  const st = ui.st;
  const parts = [logo(), h("span", { class: "spacer" })];
  if (st && ui.board) {
    parts.push(gameNamePill(ui.board.game, ui.board.name, view().variant), rulesLink(ui.board.game, view().variant));
    if (st.role === "spectator") parts.push(h("span", { class: "pill" }, icon("eye"), " ", t("top.spectating")));
    if (st.role === "table") parts.push(h("span", { class: "pill" }, icon("swap"), " ", t("top.hotseat")));
  }
  const calm = reducedMotion();
  const quiet = muted();
  parts.push(
    topToggle(
      "motion",
      calm,
      h("span", { "aria-hidden": "true" }, calm ? "◌" : "◉"),
      t(calm ? "motion.reduced" : "motion.on"),
      t("motion.title"),
      toggleMotion,
    ),
    topToggle(
      "sound",
      quiet,
      icon(quiet ? "mute" : "sound"),
      t(quiet ? "sound.off" : "sound.on"),
      t("sound.title"),
      toggleMute,
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
            {
              class: "btn small gold",
              type: "button",
              id: "show-result",
              onclick: openFinal,
            },
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
    const hint = ui.family.hint(L);
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
  ui.family.beforeRender(v, L);
  const last = lastTurns();
  ui.family.draw(v, L, last);
  $("strip").replaceChildren(bannerBox(last), playersBox());
  const side = $("side");
  /** @type {HTMLElement[]} */
  const sections = [
    h(
      "div",
      {
        class: `turnbar ${L.length ? "mine" : ""}`,
        role: "status",
        "aria-live": "polite",
      },
      turnText(),
    ),
  ];
  const family = ui.family.sections();
  sections.push(...family.before);
  const clockBox = clockPanel(
    ui.st,
    v.players.map((p) => p.name),
    (m) => ui.ws?.readyState === 1 && ui.ws.send(JSON.stringify(m)),
  );
  if (clockBox) sections.push(clockBox);
  // the dock: the current choice (and in Ticket to Ride the market and the hand); in the side column on wide
  // screens, a bar at the bottom of the screen on phones (style.css)
  sections.push(h("div", { class: "dock", id: "dock" }, undoBar(), ...family.dock), ...family.after);
  sections.push(logBox(), movesBox());
  side.replaceChildren(...sections);
  const log = side.querySelector(".log");
  if (log) log.scrollTop = log.scrollHeight;
  animateChanges();
  renderOverlay();
  fitDock();
  ui.guide?.update();
}

// Undo (docs/protocol.md#undo): the server says when this connection may take its last move back
// (`can_undo`: an unrated game without another person, a move that revealed nothing). While the bots wait
// for that choice, "Done" lets them go on at once.
function undoBar() {
  if (!ui.st?.can_undo) return h("span", { hidden: true });
  const message = (type) => () => {
    if (ui.ws?.readyState === 1) ui.ws.send(JSON.stringify({ type }));
    else toast(t("err.offline"));
  };
  const waiting = !legal().length;
  return h(
    "div",
    { class: "undobar", role: "group", "aria-label": t("undo.label") },
    h("button", { class: "btn undo", type: "button", id: "undo", onclick: message("undo") }, t("undo.button")),
    waiting
      ? h("button", { class: "btn ghost", type: "button", id: "undo-done", onclick: message("done") }, t("undo.done"))
      : null,
    h("span", { class: "undohint" }, t(waiting ? "undo.hint_waiting" : "undo.hint")),
  );
}

// On a phone the dock is fixed to the bottom of the screen: the page keeps room for it below the content.
// The chat and invitation panels, fixed at the bottom corners, open above it (--dock-h).
function fitDock() {
  const dock = $("dock");
  const fixed = dock && getComputedStyle(dock).position === "fixed";
  document.body.style.paddingBottom = fixed ? `${dock.offsetHeight + 8}px` : "";
  document.documentElement.style.setProperty("--dock-h", fixed ? `${dock.offsetHeight}px` : "0px");
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
      const p = ui.family.placed(e.move, seat);
      if (p?.route !== undefined) routes.push(p.route);
      if (p?.city !== undefined) cities.push(p.city);
      if (p?.line !== undefined) lines.push(p.line);
    }
    out.push({
      seat,
      key: `${seat}:${start}:${end}`,
      at: end,
      run,
      routes,
      cities,
      lines,
    });
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
    {
      class: "banner",
      id: "banner",
      role: "status",
      "aria-live": "polite",
      "aria-label": t("banner.label"),
    },
    items.length ? h("ul", {}, items) : h("span", { class: "empty" }, t("banner.none")),
  );
}

// Short animations of what changed (cards that came into the hand, tickets taken, opponents' counters) and
// the sound effects it calls for (sound.js); a view seen before for other eyes (hot-seat) calls only for
// what anyone may hear.
function animateChanges() {
  const v = view();
  const prev = ui.prev;
  ui.prev = {
    hand: { ...(v.hand || {}) },
    tickets: (v.tickets || []).map((tk) => tk.id),
    players: v.players.map((p) => ({ ...p })),
    seat: mySeat(),
    view: v,
  };
  if (prev) play(soundsFor(prev.view, v, prev.seat === mySeat() ? mySeat() : null));
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
    const stats = ui.family.playerStats(p, seat);
    const extra = ui.family.playerExtra(p, seat);
    const score = ui.family.playerScore(p, seat);
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
          stats.filter(Boolean).map(([ic, n, what]) =>
            h(
              "span",
              {
                title: t(what, { count: n }),
                "aria-label": `${n} ${t(what, { count: n })}`,
              },
              ic,
              ` ${n}`,
            ),
          ),
        ),
        extra,
      ),
      h("div", { class: "score", title: score.title }, score.value),
    );
  });
  const b = box([t("players.title"), h("span", {}, ui.family.scoresHeading(v))], h("div", { class: "players" }, rows));
  b.id = "players-box";
  return b;
}

function logBox() {
  const v = view();
  return box([t("log.title"), h("span", {}, `${v.log.length}`)], logList(v.log, ui.board, name, 80, true));
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
      h(
        "button",
        {
          class: "btn small",
          type: "button",
          onclick: () => send(select.value),
        },
        t("keys.play"),
      ),
    ),
    form,
  );
}

function openFinal() {
  const ov = $("overlay");
  ov.replaceChildren(finalScreen());
  ov.hidden = false;
  ui.family.onFinalOpen();
  const modal = ov.querySelector("#final");
  modal.scrollTop = 0; // opens at the top, with the winner in view
  /** @type {HTMLElement | null} */ (ov.querySelector("#final-h"))?.focus({
    preventScroll: true,
  });
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
        {
          class: "modal cover",
          role: "dialog",
          "aria-modal": "true",
          "aria-labelledby": "cover-h",
        },
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

function finalScreen() {
  const res = view().result;
  const close = () => {
    $("overlay").hidden = true;
    $("show-result")?.focus();
  };
  const actions = h(
    "div",
    { class: "row", style: "justify-content:flex-end" },
    h("button", { class: "btn", type: "button", id: "show-board", onclick: close }, t("final.show_board")),
    h(
      "a",
      {
        class: "btn gold",
        href: `/replay/${encodeURIComponent(gameId)}`,
        id: "replay-link",
      },
      t("final.replay"),
    ),
    h("a", { class: "btn primary", href: "/" }, t("final.lobby")),
  );
  const heading = h("h2", { id: "final-h", tabindex: -1 }, winnersLine(res, 26));
  const modal = (...parts) =>
    h(
      "div",
      {
        class: "modal",
        id: "final",
        role: "dialog",
        "aria-modal": "true",
        "aria-labelledby": "final-h",
      },
      parts,
    );
  const { rule, details } = ui.family.finalParts(res);
  const said = [tiebreakText(res), rule].filter(Boolean).join(" ");
  return modal(
    heading,
    said ? h("div", { class: "state" }, said) : null,
    scoresTable(res, { id: "scores" }),
    details,
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
  if (target?.dataset.route !== undefined && ui.drawing.focusRoute) ui.drawing.focusRoute(Number(target.dataset.route));
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
      ui.family.onFinalOpen();
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
  }, $("tools"));
  connect();
});
