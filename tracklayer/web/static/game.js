// The game page: one websocket, the server's view of this seat, and moves made by clicking.
// The server is authoritative: this page only ever sends move texts from the legal list it was given
// (or typed by the player) together with the index of the move it expects to make.
import { h, icon, logo, token, chip, paymentChips, parsePayment, store, CARD_LETTER, PLAYER_COLORS, PLAYER_SYMBOLS } from "/static/common.js";
import { TTRBoard, TransBoard } from "/static/board.js";

const $ = (id) => document.getElementById(id);
const gameId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop());
const tok = location.hash.slice(1);

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
};

// ---------------------------------------------------------------- connection
function connect() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(`${proto}//${location.host}/ws/${encodeURIComponent(gameId)}`);
  ui.ws = ws;
  ws.onopen = () => { ws.send(JSON.stringify({ type: "hello", token: tok })); ui.online = true; ui.retry = 500; renderTop(); };
  ws.onmessage = (ev) => onMessage(JSON.parse(ev.data));
  ws.onclose = (ev) => {
    ui.online = false; renderTop();
    if (ev.code === 4401 || ev.code === 4404) return;
    // jittered: when a server process dies, its clients do not all come back at the same instant
    setTimeout(connect, ui.retry * (0.5 + Math.random()));
    ui.retry = Math.min(ui.retry * 2, 8000);
  };
}

function send(move) {
  if (!ui.st || !ui.ws || ui.ws.readyState !== 1) { toast("Not connected: reconnecting…"); return; }
  ui.ws.send(JSON.stringify({ type: "move", move, expect: ui.st.moves }));
}

async function onMessage(msg) {
  if (msg.type === "error") {
    const fatal = msg.code === "auth" || msg.code === "no-game";
    toast(fatal ? (msg.code === "auth" ? "This link is not valid for this game." : "There is no such game.") : msg.message);
    if (fatal) showFatal(msg.message);
    return;
  }
  if (msg.type === "ack") { ui.selectedRoute = null; ui.selectedCity = null; return; }
  if (msg.type !== "state") return;
  if (msg.log_from) { // only the newer log entries: the earlier ones are in the last state
    const before = ui.st?.view?.log;
    if (!before || before.length < msg.log_from) { ui.ws.send(JSON.stringify({ type: "sync" })); return; }
    msg.view.log = before.slice(0, msg.log_from).concat(msg.view.log);
  }
  const first = !ui.st;
  ui.st = msg;
  if (first) {
    store.remember(gameId, { title: msg.game, tokens: { [msg.role === "seat" ? msg.seat : msg.role === "table" ? "hotseat" : "spectator"]: tok }, seats: msg.seats.map((x) => x.name) });
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
function mySeat() { return covered() ? null : ui.st.seat; }
function name(seat) { return view().players[seat]?.name ?? "?"; }

let toastTimer = null;
function toast(text, kind = "") {
  const t = $("toast");
  t.textContent = text;
  t.className = `toast ${kind}`;
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.hidden = true; }, 4500);
}

function box(title, ...children) {
  return h("section", { class: "box" }, h("h2", {}, ...[].concat(title)), ...children);
}

// ---------------------------------------------------------------- board
function buildBoard() {
  const handlers = { route: onRoute, city: onCity, edge: onEdge, point: onPoint };
  ui.drawing = isTTR() ? new TTRBoard(ui.board, handlers) : new TransBoard(ui.board, handlers);
  $("board").replaceChildren(ui.drawing.svg);
  document.title = `${ui.board.name} — tracklayer`;
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
  const A = ui.board.cities[r.a].display, B = ui.board.cities[r.b].display;
  if (owner !== null && owner !== undefined) { toast(`${A} – ${B} is already claimed by ${name(owner)}.`); return; }
  if (!legal().length) { toast(ui.st.seat === null && ui.st.role !== "table" ? "Spectators cannot move." : `It is ${name(view().current_player)}'s turn.`); return; }
  const moves = claimsFor(i);
  if (!moves.length) {
    const hand = view().hand || {};
    const need = r.color === "gray" ? `${r.length} cards of one colour` : `${r.length} ${r.color}`;
    const anyDraw = legal().every((m) => m.startsWith("draw"));
    toast(anyDraw ? "Take your second card first." : `You cannot claim ${A} – ${B} now: it needs ${need}${r.ferry ? ` with ${r.ferry} ${ui.board.loco}` : ""} (you hold ${hand[r.color] ?? 0} ${r.color === "gray" ? "of your best colour" : r.color} and ${hand[ui.board.loco] ?? 0} ${ui.board.loco}).`);
    return;
  }
  ui.selectedRoute = i;
  ui.selectedCity = null;
  render();
  document.querySelector("#action input[name=payment]")?.focus();
}

function onCity(i) {
  if (!isTTR() || !ui.st || ui.st.over) return;
  const city = ui.board.cities[i];
  const moves = legal().filter((m) => m.startsWith(`station ${city.name}: `));
  if (!moves.length) {
    const tix = (view().tickets || []).concat(view().offer || []).filter((t) => t.from === city.name || t.to === city.name);
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
  else if (legal().length) toast(`You cannot lay a rail on ${e.text} now.`);
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
    parts.push(h("span", { class: "pill" }, ui.board.name + (view().variant && view().variant !== "standard" && view().variant !== "classic" ? ` · ${view().variant}` : "")));
    if (st.role === "spectator") parts.push(h("span", { class: "pill" }, icon("eye"), " Spectating"));
    if (st.role === "table") parts.push(h("span", { class: "pill" }, icon("swap"), " Hot-seat"));
  }
  parts.push(h("span", { class: `pill ${ui.online ? "ok" : "bad"}`, role: "status" }, ui.online ? "Live" : "Reconnecting…"));
  top.replaceChildren(...parts);
}

function turnText() {
  const v = view();
  if (ui.st.over) return [h("span", {}, icon("flag", 18), " Game over")];
  const cur = v.current_player;
  const L = legal();
  if (L.length) {
    let hint = "";
    if (isTTR()) {
      if (L.some((m) => m.startsWith("keep"))) hint = "Choose the tickets to keep.";
      else if (L.some((m) => m.startsWith("pay:")) || L.includes("decline")) hint = "Tunnel! Pay the extra cards or give up.";
      else if (L.every((m) => m.startsWith("draw"))) hint = "Take your second card.";
      else hint = "Draw cards, claim a route" + (ui.board.features.stations ? ", build a station" : "") + " or take tickets.";
    } else if (v.phase === "start") hint = "Place your start marker: click a point.";
    else if (v.phase === "choose") hint = "Choose a city card.";
    else if (v.turn) hint = `Lay rails: ${v.turn.left} of ${v.turn.budget} left this turn.`;
    return [token(cur), h("span", {}, "Your turn", h("br"), h("span", { class: "hint" }, hint))];
  }
  return [token(cur), h("span", {}, `${name(cur)} is playing…`, v.final_round ? h("span", { class: "hint" }, " · final round!") : null)];
}

function render() {
  if (!ui.st || !ui.drawing) return;
  renderTop();
  const v = view();
  const L = legal();
  if (isTTR()) {
    const claimable = new Set();
    const labels = new Set(L.filter((m) => m.startsWith("claim ")).map((m) => m.slice(6).split(": ")[0]));
    ui.board.routes.forEach((r) => { if (labels.has(r.label)) claimable.add(r.i); });
    ui.drawing.update(v, claimable, ui.selectedRoute);
  } else {
    ui.drawing.update(v, L, mySeat());
  }
  const side = $("side");
  const sections = [h("div", { class: `turnbar ${L.length ? "mine" : ""}`, role: "status", "aria-live": "polite" }, turnText())];
  const action = isTTR() ? ttrAction() : transAction();
  if (action) sections.push(action);
  const special = isTTR() ? null : specialCardsBox(); // next to the choice it may ask for
  if (special) sections.push(special);
  sections.push(playersBox());
  if (isTTR()) sections.push(...ttrBoxes()); else sections.push(...transBoxes());
  sections.push(logBox(), movesBox());
  side.replaceChildren(...sections);
  const log = side.querySelector(".log");
  if (log) log.scrollTop = log.scrollHeight;
  renderOverlay();
}

function playersBox() {
  const v = view();
  const rows = v.players.map((p, seat) => {
    const info = ui.st.seats[seat] || {};
    const stats = isTTR()
      ? [[icon("wagon"), ` ${p.wagons}`, `${ui.board.piece}s`], [icon("cards"), ` ${p.cards}`, "cards"], [icon("ticket"), ` ${p.tickets}`, "tickets"],
        p.stations_left !== undefined && ui.board.features.stations ? [icon("station"), ` ${p.stations_left}`, "stations left"] : null]
      : [[icon("cards"), ` ${p.cities}`, "city cards"], p.start ? [icon("flag"), ` ${p.start}`, "start"] : null,
        [h("span", { class: "sym-rail", "aria-hidden": "true" }, PLAYER_SYMBOLS[seat % 6]), ` ${v.rails.filter((r) => r.player === seat).length}`, "rails laid"]];
    const extra = isTTR() ? [] : [
      p.open_cities?.length ? h("div", { class: "stats open" }, `Shows: ${p.open_cities.join(", ")}`) : null,
      p.shares_network_with?.length ? h("div", { class: "stats" }, `Shares a network with ${p.shares_network_with.map(name).join(", ")}`) : null];
    const score = isTTR() ? p.route_points : p.score;
    return h("div", { class: `player ${v.current_player === seat ? "current" : ""} ${info.online ? "" : "offline"}`, "data-seat": seat },
      token(seat),
      h("div", {}, h("div", { class: "name" }, p.name, info.kind === "bot" ? h("span", { title: "bot", class: "botmark" }, " ", icon("bot")) : "", seat === mySeat() ? " (you)" : "", !info.online ? " · away" : ""),
        h("div", { class: "stats" }, stats.filter(Boolean).map(([ic, n, what]) => h("span", { title: what, "aria-label": `${n.trim()} ${what}` }, ic, n))), extra),
      h("div", { class: "score", title: isTTR() ? "route points" : "prestige" }, score));
  });
  return box(["Players", h("span", {}, isTTR() ? "points" : `to ${v.goal}`)], h("div", { class: "players" }, rows));
}

function cardButton(color, attrs = {}, count = null) {
  const letter = CARD_LETTER[color] ?? color[0].toUpperCase();
  return h(attrs.onclick ? "button" : "div", { class: `card c-${color} ${count === 0 ? "zero" : ""}`, title: color, "aria-label": `${count !== null ? count + " " : ""}${color}`, ...attrs },
    h("span", { class: "sym" }, letter), h("span", { class: "lbl" }, color === "locomotive" ? "loco" : color),
    count !== null ? h("span", { class: "n" }, count) : null);
}

function ttrBoxes() {
  const v = view();
  const L = legal();
  const out = [];
  const market = v.market.map((c, slot) => {
    if (c === null) return h("div", { class: "card zero", "aria-label": "empty slot" }, "–");
    const move = `draw ${c}`;
    return cardButton(c, { type: "button", "data-draw": c, "data-slot": slot, disabled: !L.includes(move), onclick: () => send(move) });
  });
  const deck = h("button", { class: "card deck", type: "button", "data-draw": "deck", disabled: !L.includes("draw deck"), onclick: () => send("draw deck"), "aria-label": `Draw from the deck (${v.deck} cards)` },
    h("span", { class: "sym" }, icon("deck", 22)), h("span", { class: "lbl" }, "deck"), h("span", { class: "n" }, v.deck));
  const tix = h("button", { class: "card tix", type: "button", id: "draw-tickets", disabled: !L.includes("tickets"), onclick: () => send("tickets"), "aria-label": `Draw destination tickets (${v.ticket_deck} left)` },
    h("span", { class: "sym" }, icon("ticket", 22)), h("span", { class: "lbl" }, "tickets"), h("span", { class: "n" }, v.ticket_deck));
  out.push(box(["Market", h("span", {}, `discard ${v.discard}`)], h("div", { class: "cards", id: "market" }, market, deck, tix)));
  if (v.hand && mySeat() !== null) {
    const colors = [...ui.board.colors, ui.board.loco];
    out.push(box(["Your hand", h("span", {}, `${Object.values(v.hand).reduce((a, b) => a + b, 0)} cards`)],
      h("div", { class: "cards", id: "hand" }, colors.map((c) => cardButton(c, {}, v.hand[c] ?? 0)))));
  }
  if (v.tickets && mySeat() !== null) {
    const list = v.tickets.map((t) => h("div", { class: `ticket ${t.long ? "long" : ""} ${t.completed ? "done" : ""}`, tabindex: 0,
      onmouseenter: () => ui.drawing.highlight([t.from, t.to]), onmouseleave: () => ui.drawing.highlight([]),
      onfocus: () => ui.drawing.highlight([t.from, t.to]), onblur: () => ui.drawing.highlight([]) },
    h("div", {}, h("b", {}, `${t.from} – ${t.to}`), h("div", { class: "state" }, t.completed ? [icon("check", 12), " connected"] : "not yet connected")),
    h("span", { class: "pts" }, t.points)));
    const done = v.tickets.filter((t) => t.completed);
    out.push(box(["Your tickets", h("span", {}, `${done.length}/${v.tickets.length} done · ${done.reduce((a, t) => a + t.points, 0)} pts`)],
      h("div", { class: "tickets", id: "tickets" }, list.length ? list : h("span", { class: "empty" }, "No tickets yet."))));
  }
  return out;
}

function keepChoice() {
  const v = view();
  const L = legal().filter((m) => m.startsWith("keep "));
  const key = v.offer.map((t) => t.id).join(" ");
  if (ui.keepKey !== key) { ui.keepKey = key; ui.tickets = new Set(v.offer.map((t) => t.id)); }
  const allowed = new Set(L.filter((m) => m !== "keep all").map((m) => m.slice(5).split(" ").sort().join(" ")));
  const picked = () => [...ui.tickets].sort().join(" ");
  const confirm = h("button", { class: "btn primary", id: "confirm", type: "button", onclick: () => send(`keep ${picked()}`) }, "Keep selected");
  const sync = () => { confirm.disabled = !allowed.has(picked()); confirm.textContent = `Keep ${ui.tickets.size} ticket${ui.tickets.size === 1 ? "" : "s"}`; };
  const rows = v.offer.map((t) => {
    const input = h("input", { type: "checkbox", "data-ticket": t.id, checked: ui.tickets.has(t.id),
      onchange: (e) => { if (e.target.checked) ui.tickets.add(t.id); else ui.tickets.delete(t.id); sync(); } });
    return h("label", { class: `ticket ${t.long ? "long" : ""}`, onmouseenter: () => ui.drawing.highlight([t.from, t.to]) }, input,
      h("div", {}, h("b", {}, `${t.from} – ${t.to}`), t.long ? h("div", { class: "state" }, "long route") : null), h("span", { class: "pts" }, t.points));
  });
  sync();
  const minKeep = Math.min(...[...allowed].map((x) => x.split(" ").length));
  return h("section", { class: "box actionbox", id: "action" }, h("h2", {}, "Destination tickets", h("span", {}, `keep at least ${minKeep}`)),
    h("div", { class: "choices" }, rows), h("div", { class: "row" }, confirm));
}

function paymentChoice(title, moves, prefixLen, cancel) {
  const sorted = cheapestFirst(moves);
  let chosen = sorted[0];
  const rows = sorted.map((m, k) => {
    const pay = m.slice(prefixLen);
    const input = h("input", { type: "radio", name: "payment", value: m, checked: k === 0, onchange: () => { chosen = m; } });
    return h("label", { class: "choice" }, input, paymentChips(pay), h("span", { class: "sr-only" }, pay), k === 0 ? h("span", { class: "state", style: "margin-left:auto;font-size:12px;color:#5d6b70" }, "cheapest") : null);
  });
  return h("section", { class: "box actionbox", id: "action" }, h("h2", {}, title),
    h("div", { class: "choices", role: "radiogroup" }, rows),
    h("div", { class: "row" }, h("button", { class: "btn primary", id: "confirm", type: "button", onclick: () => send(chosen) }, "Confirm"),
      h("button", { class: "btn ghost", type: "button", onclick: cancel }, "Cancel")));
}

function ttrAction() {
  const v = view();
  const L = legal();
  if (!L.length) {
    if (v.tunnel) return box("Tunnel", h("div", {}, `${name(v.current_player)} is digging ${v.tunnel.route}: revealed `, v.tunnel.revealed.map((c) => chip(c, 1)), ` → ${v.tunnel.extra} more`));
    return null;
  }
  if (L.some((m) => m.startsWith("keep ")) && v.offer?.length) return keepChoice();
  if (v.tunnel && (L.includes("decline") || L.some((m) => m.startsWith("pay:")))) {
    const pays = L.filter((m) => m.startsWith("pay: "));
    const t = v.tunnel;
    const panel = paymentChoice(`Tunnel ${t.route}: ${t.extra} more card${t.extra === 1 ? "" : "s"}`, pays.length ? pays : [], 5, () => send("decline"));
    panel.querySelector(".choices").before(h("div", {}, "Revealed: ", t.revealed.map((c) => chip(c, 1)), h("br"), "You laid: ", paymentChips(t.played)));
    const cancel = panel.querySelector(".btn.ghost");
    cancel.textContent = "Give up (decline)";
    cancel.id = "decline";
    if (!pays.length) panel.querySelector("#confirm").remove();
    return panel;
  }
  if (ui.selectedRoute !== null) {
    const moves = claimsFor(ui.selectedRoute);
    if (moves.length) {
      const r = ui.board.routes[ui.selectedRoute];
      const title = `Claim ${ui.board.cities[r.a].display} – ${ui.board.cities[r.b].display}${r.tunnel ? " (tunnel)" : ""}`;
      return paymentChoice(title, moves, moves[0].indexOf(": ") + 2, () => { ui.selectedRoute = null; render(); });
    }
    ui.selectedRoute = null;
  }
  if (ui.selectedCity !== null) {
    const c = ui.board.cities[ui.selectedCity];
    const moves = L.filter((m) => m.startsWith(`station ${c.name}: `));
    if (moves.length) return paymentChoice(`Station in ${c.display}`, moves, moves[0].indexOf(": ") + 2, () => { ui.selectedCity = null; render(); });
    ui.selectedCity = null;
  }
  if (L.length === 1 && L[0] === "pass") return box("No move possible", h("button", { class: "btn primary", type: "button", onclick: () => send("pass") }, "Pass"));
  return null;
}

function transAction() {
  const v = view();
  const L = legal();
  if (!L.length) return null;
  const buttons = [];
  if (L.includes("end")) buttons.push(h("button", { class: "btn primary", type: "button", id: "end-turn", onclick: () => send("end") }, "End turn"));
  if (L.includes("pass")) buttons.push(h("button", { class: "btn", type: "button", onclick: () => send("pass") }, "Pass"));
  const cityMoves = L.filter((m) => m.startsWith("return ") || m.startsWith("pass "));
  const choices = cityMoves.map((m) => h("button", { class: "btn small", type: "button", onclick: () => send(m) }, m));
  if (!buttons.length && !choices.length) return null;
  return h("section", { class: "box actionbox", id: "action" }, h("h2", {}, v.choice ? `Choose: ${v.choice.step}` : "Your turn"),
    choices.length ? h("div", { class: "row" }, choices) : null, h("div", { class: "row" }, buttons));
}

function transBoxes() {
  const v = view();
  const out = [];
  if (v.cities && mySeat() !== null) {
    const n = v.missing_rails;
    out.push(box(["Your cities", n !== undefined ? h("span", {}, n === 0 ? "all connected!" : `${n} rails missing`) : ""],
      h("div", { class: "tickets" }, v.cities.map((c) => h("div", { class: "ticket" }, h("div", {}, chip(c.color, ""), " ", h("b", {}, c.name)), h("span", { class: "state" }, c.point))))));
  }
  out.push(box("Round", h("div", {}, `Round ${v.round} · rails left in supply: ${v.supply}`)));
  if (v.rounds?.length) {
    const rows = v.rounds.map((r) => h("tr", {}, h("td", {}, `Round ${r.round}`), r.players.map((p) => h("td", {}, `${p.prestige >= 0 ? "+" : ""}${p.prestige}`))));
    out.push(box("Finished rounds", h("table", { class: "scores" }, h("tr", {}, h("th", {}, ""), v.players.map((p) => h("th", {}, p.name))), rows)));
  }
  return out;
}

// The special card(s) of this round, spelled out: what each changes, in the words of the card.
function specialCardsBox() {
  const v = view();
  const cards = v.special_cards || [];
  if (!cards.length && !v.special_deck) return null;
  const items = cards.map((c) => h("li", { class: "special", "data-card": c.id },
    h("span", { class: "special-no", "aria-hidden": "true" }, c.id), h("div", {}, h("b", {}, c.title), h("p", {}, c.text))));
  return h("section", { class: "box", id: "special-cards", "aria-labelledby": "special-h" },
    h("h2", { id: "special-h" }, cards.length > 1 ? "Special cards this round" : "Special card this round", h("span", {}, `${v.special_deck} left`)),
    items.length ? h("ul", { class: "specials" }, items) : h("p", { class: "empty" }, "No special card is in play this round."),
    h("details", {}, h("summary", {}, "How special cards work"),
      h("p", {}, "A special card is turned face up at the start of every round. It changes the rules for that round only; the next round brings a new card. The card says what changes; everything else stays as in the standard game.")));
}

function logBox() {
  const v = view();
  const items = v.log.slice(-80).map((e) => h("li", {}, token(e.player), h("span", {}, h("b", {}, name(e.player)), " ", e.move, e.note ? h("span", { class: "note" }, ` — ${e.note}`) : null)));
  return box(["Moves", h("span", {}, `${v.log.length}`)], h("ol", { class: "log", "aria-live": "polite" }, items.length ? items : h("li", { class: "empty" }, "No moves yet.")));
}

function movesBox() {
  const L = legal();
  if (!L.length) return h("span");
  const select = h("select", { "aria-label": "All legal moves", id: "all-moves" }, L.slice(0, 400).map((m) => h("option", { value: m }, m)));
  const input = h("input", { placeholder: "or type a move, e.g. draw deck", "aria-label": "Move in notation", id: "notation" });
  const form = h("form", { class: "notation", onsubmit: (e) => { e.preventDefault(); const t = input.value.trim(); if (t) send(t); input.value = ""; } }, input, h("button", { class: "btn small", type: "submit" }, "Send"));
  return box(["Keyboard", h("span", {}, `${L.length} legal moves`)],
    h("div", { class: "notation" }, select, h("button", { class: "btn small", type: "button", onclick: () => send(select.value) }, "Play")), form);
}

// ---------------------------------------------------------------- overlays
function renderOverlay() {
  const ov = $("overlay");
  const st = ui.st;
  if (covered()) {
    const seat = st.seat;
    ov.replaceChildren(h("div", { class: "modal cover", role: "dialog", "aria-modal": "true", "aria-labelledby": "cover-h" },
      h("h2", { id: "cover-h" }, `Pass the screen to ${name(seat)}`), token(seat),
      h("p", {}, `${name(seat)}'s hand and tickets are hidden until ${name(seat)} is ready.`),
      h("button", { class: "btn primary", id: "reveal", type: "button", onclick: () => { ui.revealed = seat; render(); } }, `I am ${name(seat)}: show my cards`)));
    ov.style.background = "rgba(12, 30, 24, .97)";
    ov.hidden = false;
    ov.querySelector("#reveal").focus();
    return;
  }
  ov.style.background = "";
  if (st.over && view().result && !ui.finalShown) {
    ui.finalShown = true;
    ov.replaceChildren(finalScreen());
    ov.hidden = false;
    showLongest();
    ov.querySelector("button")?.focus();
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
      const r = ui.board.routes.find((x) => x.label === label && view().route_owner[x.i] === seat) || ui.board.routes.find((x) => x.label === label);
      if (r) idx.push([r.i, seat]);
    }
  });
  const bySeat = new Map();
  idx.forEach(([i, seat]) => { if (!bySeat.has(seat)) bySeat.set(seat, []); bySeat.get(seat).push(i); });
  for (const [seat, list] of bySeat) ui.drawing.showLongest(list, seat);
}

function finalScreen() {
  const res = view().result;
  const close = () => { $("overlay").hidden = true; };
  const actions = h("div", { class: "row", style: "justify-content:flex-end" },
    h("button", { class: "btn", type: "button", onclick: close }, "Show the board"), h("a", { class: "btn primary", href: "/" }, "Back to the lobby"));
  const winners = res.winners.join(" & ");
  if (!isTTR()) {
    const rows = res.players.map((p, seat) => h("tr", { class: p.rank === 1 ? "win" : "" }, h("td", {}, token(seat), " ", p.name),
      h("td", {}, p.prestige_per_round.join(" · ")), h("td", {}, p.missing_rails.join(" · ")), h("td", { class: "total" }, p.total), h("td", {}, p.rank)));
    return h("div", { class: "modal", id: "final", role: "dialog", "aria-modal": "true", "aria-labelledby": "final-h" },
      h("h2", { id: "final-h" }, icon("trophy", 26), ` ${winners} win${res.winners.length > 1 ? "" : "s"}!`),
      h("table", { class: "scores" }, h("tr", {}, ["Player", "Prestige by round", "Missing rails", "Total", "Rank"].map((x) => h("th", {}, x))), rows), actions);
  }
  const cols = [["route_points", "Routes"], ["ticket_points", "Tickets"], ["station_points", "Stations"], ["longest_path_bonus", "Longest"], ["attraction_points", "Attractions"], ["total", "Total"], ["rank", "Rank"]]
    .filter(([k]) => k in res.players[0]);
  const rows = res.players.map((p, seat) => h("tr", { class: p.rank === 1 ? "win" : "" }, h("td", {}, token(seat), " ", p.name),
    cols.map(([k]) => h("td", { class: k === "total" ? "total" : "" }, k === "longest_path_bonus" ? `${p[k] ? "+" + p[k] : "–"} (${p.longest_path})` : p[k]))));
  const details = res.players.map((p, seat) => box([h("span", {}, token(seat), " ", p.name), h("span", {}, `${p.total} pts`)],
    h("div", { class: "tickets" }, (p.tickets || []).map((t) => h("div", { class: `ticket ${t.completed ? "done" : ""}` },
      h("div", {}, h("b", {}, `${t.from} – ${t.to}`), h("div", { class: "state" }, t.completed ? [icon("check", 12), " completed"] : [icon("cross", 12), " missed"])), h("span", { class: "pts" }, `${t.completed ? "+" : "−"}${t.points}`)))),
    (p.stations || []).length ? h("div", { class: "state" }, "Stations: ", p.stations.map((x) => x.city).join(", ")) : null,
    (p.attractions || []).length ? h("div", { class: "state" }, "Attractions: ", p.attractions.join(", ")) : null));
  return h("div", { class: "modal", id: "final", role: "dialog", "aria-modal": "true", "aria-labelledby": "final-h" },
    h("h2", { id: "final-h" }, icon("trophy", 26), ` ${winners} win${res.winners.length > 1 ? "" : "s"}!`),
    h("div", { class: "state" }, `Tie-break: ${res.tiebreak}. The longest path is highlighted on the board.`),
    h("table", { class: "scores", id: "scores" }, h("tr", {}, h("th", {}, "Player"), cols.map(([, t]) => h("th", {}, t))), rows),
    h("div", { class: "detail" }, details), actions);
}

function showFatal(message) {
  const ov = $("overlay");
  ov.replaceChildren(h("div", { class: "modal" }, h("h2", {}, "Cannot join this game"), h("p", {}, message), h("a", { class: "btn primary", href: "/" }, "Back to the lobby")));
  ov.hidden = false;
}

document.addEventListener("keydown", (e) => {
  if (e.key === "Escape") {
    if (ui.selectedRoute !== null || ui.selectedCity !== null) { ui.selectedRoute = null; ui.selectedCity = null; render(); }
    else if ($("overlay").querySelector("#final")) $("overlay").hidden = true;
  }
});

window.__tracklayer = ui; // for tests and curious players: holds only what this seat may know
renderTop();
connect();
void PLAYER_COLORS; void PLAYER_SYMBOLS;
