// The game page: one websocket, the server's view of this seat, and moves made by clicking.
// The server is authoritative: this page only ever sends move texts from the legal list it was given
// (or typed by the player) together with the index of the move it expects to make.
import { h, icon, logo, token, chip, paymentChips, parsePayment, store, CARD_LETTER, PLAYER_COLORS, PLAYER_SYMBOLS,
  gameTitle, variantTitle, colorName, cards } from "/static/common.js";
import { TTRBoard, TransBoard, routeNeed } from "/static/board.js";
import { init as initI18n, t, picker, onLangChange, list } from "/static/i18n.js";
import { accountBox } from "/static/account.js";
import { describeMove, describeNote, describePayment, routeText, cityText } from "/static/moves.js";

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
  if (!ui.st || !ui.ws || ui.ws.readyState !== 1) { toast(t("err.offline")); return; }
  ui.ws.send(JSON.stringify({ type: "move", move, expect: ui.st.moves }));
}

async function onMessage(msg) {
  if (msg.type === "error") {
    const fatal = msg.code === "auth" || msg.code === "no-game";
    const text = errorText(msg);
    toast(text);
    if (fatal) showFatal(text);
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
    store.remember(gameId, { title: msg.game, game: msg.game, tokens: { [msg.role === "seat" ? msg.seat : msg.role === "table" ? "hotseat" : "spectator"]: tok }, seats: msg.seats.map((x) => x.name) });
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
function ticketText(tk) { return `${cityText(tk.from, ui.board)} – ${cityText(tk.to, ui.board)}`; }
function mySeat() { return covered() ? null : ui.st.seat; }
function name(seat) { return view().players[seat]?.name ?? "?"; }

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
  toastTimer = setTimeout(() => { el.hidden = true; }, 4500);
}

function box(title, ...children) {
  return h("section", { class: "box" }, h("h2", {}, ...[].concat(title)), ...children);
}

// ---------------------------------------------------------------- board
function buildBoard() {
  const handlers = { route: onRoute, city: onCity, edge: onEdge, point: onPoint };
  ui.drawing = isTTR() ? new TTRBoard(ui.board, handlers) : new TransBoard(ui.board, handlers);
  $("board").replaceChildren(ui.drawing.svg);
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
  const A = ui.board.cities[r.a].display, B = ui.board.cities[r.b].display;
  if (owner !== null && owner !== undefined) { toast(t("claim.taken", { a: A, b: B, name: name(owner) })); return; }
  if (!legal().length) { toast(ui.st.seat === null && ui.st.role !== "table" ? t("claim.spectator") : t("claim.not_your_turn", { name: name(view().current_player) })); return; }
  const moves = claimsFor(i);
  if (!moves.length) {
    const hand = view().hand || {};
    const loco = ui.board.loco;
    const best = Math.max(0, ...ui.board.colors.map((c) => hand[c] ?? 0));
    const have = r.color === "gray" ? t("claim.have_best", { count: best }) : cards(r.color, hand[r.color] ?? 0);
    const anyDraw = legal().every((m) => m.startsWith("draw"));
    toast(anyDraw ? t("claim.second_card") : t("claim.cannot", { a: A, b: B, need: routeNeed(ui.board, r), have, locos: cards(loco, hand[loco] ?? 0) }));
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
    const tix = (view().tickets || []).concat(view().offer || []).filter((tk) => tk.from === city.name || tk.to === city.name);
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
    const shown = variant && variant !== "standard" && variant !== "classic" ? ` · ${variantTitle(ui.board.game, variant, variant)}` : "";
    parts.push(h("span", { class: "pill game-name" }, gameTitle(ui.board.game, ui.board.name) + shown));
    if (st.role === "spectator") parts.push(h("span", { class: "pill" }, icon("eye"), " ", t("top.spectating")));
    if (st.role === "table") parts.push(h("span", { class: "pill" }, icon("swap"), " ", t("top.hotseat")));
  }
  parts.push(accountBox(), langPicker, h("span", { class: `pill ${ui.online ? "ok" : "bad"}`, role: "status" }, ui.online ? t("top.live") : t("top.reconnecting")));
  top.replaceChildren(...parts.filter(Boolean));
}

function turnText() {
  const v = view();
  if (ui.st.over) return [h("span", {}, icon("flag", 18), " ", t("turn.over"))];
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
  return [token(cur), h("span", {}, t("turn.other", { name: name(cur) }), v.final_round ? h("span", { class: "hint" }, " · ", t("turn.final_round")) : null)];
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
      ? [[icon("wagon"), p.wagons, `stat.${ui.board.piece}`], [icon("cards"), p.cards, "stat.cards"], [icon("ticket"), p.tickets, "stat.tickets"],
        p.stations_left !== undefined && ui.board.features.stations ? [icon("station"), p.stations_left, "stat.stations_left"] : null]
      : [[icon("cards"), p.cities, "stat.city_cards"], p.start ? [icon("flag"), p.start, "stat.start"] : null,
        [h("span", { class: "sym-rail", "aria-hidden": "true" }, PLAYER_SYMBOLS[seat % 6]), v.rails.filter((r) => r.player === seat).length, "stat.rails_laid"]];
    const extra = isTTR() ? [] : [
      p.open_cities?.length ? h("div", { class: "stats open" }, t("players.shows", { cities: list(p.open_cities) })) : null,
      p.shares_network_with?.length ? h("div", { class: "stats" }, t("players.shares", { names: list(p.shares_network_with.map(name)) })) : null];
    const score = isTTR() ? p.route_points : p.score;
    return h("div", { class: `player ${v.current_player === seat ? "current" : ""} ${info.online ? "" : "offline"}`, "data-seat": seat },
      token(seat),
      h("div", {}, h("div", { class: "name" }, p.name, info.kind === "bot" ? h("span", { title: t("players.bot"), class: "botmark" }, " ", icon("bot")) : "",
        seat === mySeat() ? ` ${t("players.you")}` : "", !info.online ? ` · ${t("players.away")}` : ""),
        h("div", { class: "stats" }, stats.filter(Boolean).map(([ic, n, what]) => h("span", { title: t(what, { count: n }), "aria-label": `${n} ${t(what, { count: n })}` }, ic, ` ${n}`))), extra),
      h("div", { class: "score", title: isTTR() ? t("players.route_points") : t("players.prestige") }, score));
  });
  return box([t("players.title"), h("span", {}, isTTR() ? t("players.points") : t("players.goal", { goal: v.goal }))], h("div", { class: "players" }, rows));
}

function cardButton(color, attrs = {}, count = null) {
  const letter = CARD_LETTER[color] ?? color[0].toUpperCase();
  return h(attrs.onclick ? "button" : "div", { class: `card c-${color} ${count === 0 ? "zero" : ""}`, title: colorName(color), "aria-label": count !== null ? cards(color, count) : colorName(color), ...attrs },
    h("span", { class: "sym" }, letter), h("span", { class: "lbl" }, t(`card_short.${color}`, {}, color)),
    count !== null ? h("span", { class: "n" }, count) : null);
}

function ttrBoxes() {
  const v = view();
  const L = legal();
  const out = [];
  const market = v.market.map((c, slot) => {
    if (c === null) return h("div", { class: "card zero", "aria-label": t("market.empty_slot") }, "–");
    const move = `draw ${c}`;
    return cardButton(c, { type: "button", "data-draw": c, "data-slot": slot, disabled: !L.includes(move), onclick: () => send(move) });
  });
  const deck = h("button", { class: "card deck", type: "button", "data-draw": "deck", disabled: !L.includes("draw deck"), onclick: () => send("draw deck"), "aria-label": t("market.draw_deck", { count: v.deck }) },
    h("span", { class: "sym" }, icon("deck", 22)), h("span", { class: "lbl" }, t("market.deck")), h("span", { class: "n" }, v.deck));
  const tix = h("button", { class: "card tix", type: "button", id: "draw-tickets", disabled: !L.includes("tickets"), onclick: () => send("tickets"), "aria-label": t("market.draw_tickets", { count: v.ticket_deck }) },
    h("span", { class: "sym" }, icon("ticket", 22)), h("span", { class: "lbl" }, t("market.tickets")), h("span", { class: "n" }, v.ticket_deck));
  out.push(box([t("market.title"), h("span", {}, t("market.discard", { count: v.discard }))], h("div", { class: "cards", id: "market" }, market, deck, tix)));
  if (v.hand && mySeat() !== null) {
    const colors = [...ui.board.colors, ui.board.loco];
    out.push(box([t("hand.title"), h("span", {}, t("hand.count", { count: Object.values(v.hand).reduce((a, b) => a + b, 0) }))],
      h("div", { class: "cards", id: "hand" }, colors.map((c) => cardButton(c, {}, v.hand[c] ?? 0)))));
  }
  if (v.tickets && mySeat() !== null) {
    const rows = v.tickets.map((tk) => h("div", { class: `ticket ${tk.long ? "long" : ""} ${tk.completed ? "done" : ""}`, tabindex: 0,
      onmouseenter: () => ui.drawing.highlight([tk.from, tk.to]), onmouseleave: () => ui.drawing.highlight([]),
      onfocus: () => ui.drawing.highlight([tk.from, tk.to]), onblur: () => ui.drawing.highlight([]) },
    h("div", {}, h("b", {}, ticketText(tk)), h("div", { class: "state" }, tk.completed ? [icon("check", 12), " ", t("tickets.connected")] : t("tickets.not_connected"))),
    h("span", { class: "pts" }, tk.points)));
    const done = v.tickets.filter((tk) => tk.completed);
    out.push(box([t("tickets.title"), h("span", {}, t("tickets.summary", { done: done.length, total: v.tickets.length, points: done.reduce((a, tk) => a + tk.points, 0) }))],
      h("div", { class: "tickets", id: "tickets" }, rows.length ? rows : h("span", { class: "empty" }, t("tickets.none")))));
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
  if (ui.keepKey !== key) { // start from everything the rule allows: all tickets, but no long one when they cannot all be kept
    ui.keepKey = key;
    ui.tickets = new Set(v.offer.filter((tk) => !(tk.long && tooManyLong)).map((tk) => tk.id));
  }
  const allowed = new Set(L.filter((m) => m !== "keep all").map((m) => (m === "keep none" ? "" : m.slice(5).split(" ").sort().join(" "))));
  const picked = () => [...ui.tickets].sort().join(" ");
  const confirm = h("button", { class: "btn primary", id: "confirm", type: "button", onclick: () => send(`keep ${picked() || "none"}`) });
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
      if (tk.long && kept.length >= rule.at_most_long) for (const id of kept.slice(0, kept.length - rule.at_most_long + 1)) ui.tickets.delete(id);
    }
    sync();
  };
  const rows = v.offer.map((tk) => {
    const input = boxes[tk.id] = h("input", { type: "checkbox", "data-ticket": tk.id, checked: ui.tickets.has(tk.id), onchange: (e) => tick(tk, e.target.checked) });
    return h("label", { class: `ticket ${tk.long ? "long" : ""}`, onmouseenter: () => ui.drawing.highlight([tk.from, tk.to]) }, input,
      h("div", {}, h("b", {}, ticketText(tk)), tk.long ? h("div", { class: "state" }, t("keep.long")) : null), h("span", { class: "pts" }, tk.points));
  });
  sync();
  const said = rule.at_least === 0 ? [t("keep.long_or_none", { count: rule.at_most_long })]
    : [t("keep.at_least", { count: rule.at_least }), ...(tooManyLong ? [t("keep.at_most_long", { count: rule.at_most_long })] : [])];
  return h("section", { class: "box actionbox", id: "action" }, h("h2", {}, t("keep.title"), h("span", { id: "keep-rule" }, said.join(", "))),
    h("div", { class: "choices" }, rows), h("div", { class: "row" }, confirm));
}

function paymentChoice(title, moves, prefixLen, cancel) {
  const sorted = cheapestFirst(moves);
  let chosen = sorted[0];
  const rows = sorted.map((m, k) => {
    const pay = m.slice(prefixLen);
    const input = h("input", { type: "radio", name: "payment", value: m, checked: k === 0, onchange: () => { chosen = m; } });
    return h("label", { class: "choice" }, input, paymentChips(pay), h("span", { class: "sr-only" }, describePayment(pay)), k === 0 ? h("span", { class: "state", style: "margin-left:auto;font-size:12px;color:#5d6b70" }, t("pay.cheapest")) : null);
  });
  return h("section", { class: "box actionbox", id: "action" }, h("h2", {}, title),
    h("div", { class: "choices", role: "radiogroup" }, rows),
    h("div", { class: "row" }, h("button", { class: "btn primary", id: "confirm", type: "button", onclick: () => send(chosen) }, t("pay.confirm")),
      h("button", { class: "btn ghost", type: "button", onclick: cancel }, t("pay.cancel"))));
}

function ttrAction() {
  const v = view();
  const L = legal();
  if (!L.length) {
    if (v.tunnel) return box(t("tunnel.title"), h("div", {}, t("tunnel.digging", { name: name(v.current_player), route: routeText(v.tunnel.route, ui.board) }), " ", v.tunnel.revealed.map((c) => chip(c, 1)), " → ", t("tunnel.more", { count: v.tunnel.extra })));
    return null;
  }
  if (L.some((m) => m.startsWith("keep ")) && v.offer?.length) return keepChoice();
  if (v.tunnel && (L.includes("decline") || L.some((m) => m.startsWith("pay:")))) {
    const pays = L.filter((m) => m.startsWith("pay: "));
    const tn = v.tunnel;
    const panel = paymentChoice(t("tunnel.pay_title", { route: routeText(tn.route, ui.board), count: tn.extra }), pays.length ? pays : [], 5, () => send("decline"));
    panel.querySelector(".choices").before(h("div", {}, t("tunnel.revealed"), " ", tn.revealed.map((c) => chip(c, 1)), h("br"), t("tunnel.you_laid"), " ", paymentChips(tn.played)));
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
      const title = t(r.tunnel ? "claim.title_tunnel" : "claim.title", { a: ui.board.cities[r.a].display, b: ui.board.cities[r.b].display });
      return paymentChoice(title, moves, moves[0].indexOf(": ") + 2, () => { ui.selectedRoute = null; render(); });
    }
    ui.selectedRoute = null;
  }
  if (ui.selectedCity !== null) {
    const c = ui.board.cities[ui.selectedCity];
    const moves = L.filter((m) => m.startsWith(`station ${c.name}: `));
    if (moves.length) return paymentChoice(t("station.title", { city: c.display }), moves, moves[0].indexOf(": ") + 2, () => { ui.selectedCity = null; render(); });
    ui.selectedCity = null;
  }
  if (L.length === 1 && L[0] === "pass") return box(t("pass.none"), h("button", { class: "btn primary", type: "button", onclick: () => send("pass") }, t("pass.button")));
  return null;
}

function transAction() {
  const v = view();
  const L = legal();
  if (!L.length) return null;
  const buttons = [];
  if (L.includes("end")) buttons.push(h("button", { class: "btn primary", type: "button", id: "end-turn", onclick: () => send("end") }, t("trans.end_turn")));
  if (L.includes("pass")) buttons.push(h("button", { class: "btn", type: "button", onclick: () => send("pass") }, t("pass.button")));
  const cityMoves = L.filter((m) => m.startsWith("return ") || m.startsWith("pass "));
  const choices = cityMoves.map((m) => h("button", { class: "btn small", type: "button", "data-move": m, onclick: () => send(m) },
    m.startsWith("return ") ? t("trans.return_city", { city: m.slice(7) }) : t("trans.pass_city", { city: m.slice(5) })));
  if (!buttons.length && !choices.length) return null;
  return h("section", { class: "box actionbox", id: "action" }, h("h2", {}, v.choice ? t("trans.choose", { step: t(`step.${v.choice.step}`, {}, v.choice.step) }) : t("turn.yours")),
    choices.length ? h("div", { class: "row" }, choices) : null, h("div", { class: "row" }, buttons));
}

function transBoxes() {
  const v = view();
  const out = [];
  if (v.cities && mySeat() !== null) {
    const n = v.missing_rails;
    out.push(box([t("trans.cities"), n !== undefined ? h("span", {}, n === 0 ? t("trans.all_connected") : t("trans.missing", { count: n })) : ""],
      h("div", { class: "tickets" }, v.cities.map((c) => h("div", { class: "ticket" }, h("div", {}, chip(c.color, ""), " ", h("b", {}, c.name)), h("span", { class: "state" }, c.point))))));
  }
  out.push(box(t("trans.round_title"), h("div", {}, t("trans.round", { round: v.round }), " · ", t("trans.supply", { count: v.supply }))));
  if (v.rounds?.length) {
    const rows = v.rounds.map((r) => h("tr", {}, h("td", {}, t("trans.round", { round: r.round })), r.players.map((p) => h("td", {}, `${p.prestige >= 0 ? "+" : ""}${p.prestige}`))));
    out.push(box(t("trans.finished_rounds"), h("table", { class: "scores" }, h("tr", {}, h("th", {}, ""), v.players.map((p) => h("th", {}, p.name))), rows)));
  }
  return out;
}

// The special card(s) of this round, spelled out: what each changes, in the words of the card.
function specialCardsBox() {
  const v = view();
  const specials = v.special_cards || [];
  if (!specials.length && !v.special_deck) return null;
  const items = specials.map((c) => h("li", { class: "special", "data-card": c.id },
    h("span", { class: "special-no", "aria-hidden": "true" }, c.id),
    h("div", {}, h("b", {}, t(`special.${c.id}.title`, {}, c.title)), h("p", {}, t(`special.${c.id}.text`, {}, c.text)))));
  return h("section", { class: "box", id: "special-cards", "aria-labelledby": "special-h" },
    h("h2", { id: "special-h" }, t("special.heading", { count: Math.max(1, specials.length) }), h("span", {}, t("special.left", { count: v.special_deck }))),
    items.length ? h("ul", { class: "specials" }, items) : h("p", { class: "empty" }, t("special.none")),
    h("details", {}, h("summary", {}, t("special.how")), h("p", {}, t("special.explain"))));
}

function logBox() {
  const v = view();
  const items = v.log.slice(-80).map((e) => h("li", {}, token(e.player), h("span", {}, h("b", {}, name(e.player)), " ", describeMove(e.move, ui.board),
    e.note ? h("span", { class: "note" }, " — ", describeNote(e.note, ui.board)) : null)));
  return box([t("log.title"), h("span", {}, `${v.log.length}`)], h("ol", { class: "log", "aria-live": "polite" }, items.length ? items : h("li", { class: "empty" }, t("log.none"))));
}

function movesBox() {
  const L = legal();
  if (!L.length) return h("span");
  const select = h("select", { "aria-label": t("keys.all_moves"), id: "all-moves" }, L.slice(0, 400).map((m) => h("option", { value: m }, m)));
  const input = h("input", { placeholder: t("keys.placeholder"), "aria-label": t("keys.notation"), id: "notation", lang: "en" });
  const form = h("form", { class: "notation", onsubmit: (e) => { e.preventDefault(); const text = input.value.trim(); if (text) send(text); input.value = ""; } }, input, h("button", { class: "btn small", type: "submit" }, t("keys.send")));
  return box([t("keys.title"), h("span", {}, t("keys.count", { count: L.length }))],
    h("div", { class: "notation" }, select, h("button", { class: "btn small", type: "button", onclick: () => send(select.value) }, t("keys.play"))), form);
}

// ---------------------------------------------------------------- overlays
function renderOverlay() {
  const ov = $("overlay");
  const st = ui.st;
  if (covered()) {
    const seat = st.seat;
    ov.replaceChildren(h("div", { class: "modal cover", role: "dialog", "aria-modal": "true", "aria-labelledby": "cover-h" },
      h("h2", { id: "cover-h" }, t("cover.title", { name: name(seat) })), token(seat),
      h("p", {}, t("cover.text", { name: name(seat) })),
      h("button", { class: "btn primary", id: "reveal", type: "button", onclick: () => { ui.revealed = seat; render(); } }, t("cover.reveal", { name: name(seat) }))));
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
    h("button", { class: "btn", type: "button", onclick: close }, t("final.show_board")), h("a", { class: "btn primary", href: "/" }, t("final.lobby")));
  const winners = t("final.winners", { count: res.winners.length, names: list(res.winners) });
  if (!isTTR()) {
    const rows = res.players.map((p, seat) => h("tr", { class: p.rank === 1 ? "win" : "" }, h("td", {}, token(seat), " ", p.name),
      h("td", {}, p.prestige_per_round.join(" · ")), h("td", {}, p.missing_rails.join(" · ")), h("td", { class: "total" }, p.total), h("td", {}, p.rank)));
    return h("div", { class: "modal", id: "final", role: "dialog", "aria-modal": "true", "aria-labelledby": "final-h" },
      h("h2", { id: "final-h" }, icon("trophy", 26), " ", winners),
      h("div", { class: "table-scroll" }, h("table", { class: "scores" }, h("tr", {}, ["final.player", "final.prestige_by_round", "final.missing_rails", "final.total", "final.rank"].map((x) => h("th", {}, t(x)))), rows)), actions);
  }
  const cols = [["route_points", "final.routes"], ["ticket_points", "final.tickets"], ["station_points", "final.stations"], ["longest_path_bonus", "final.longest"],
    ["attraction_points", "final.attractions"], ["total", "final.total"], ["rank", "final.rank"]]
    .filter(([k]) => k in res.players[0]);
  const rows = res.players.map((p, seat) => h("tr", { class: p.rank === 1 ? "win" : "" }, h("td", {}, token(seat), " ", p.name),
    cols.map(([k]) => h("td", { class: k === "total" ? "total" : "" }, k === "longest_path_bonus" ? `${p[k] ? "+" + p[k] : "–"} (${p.longest_path})` : p[k]))));
  const details = res.players.map((p, seat) => box([h("span", {}, token(seat), " ", p.name), h("span", {}, t("final.points", { count: p.total }))],
    h("div", { class: "tickets" }, (p.tickets || []).map((tk) => h("div", { class: `ticket ${tk.completed ? "done" : ""}` },
      h("div", {}, h("b", {}, ticketText(tk)), h("div", { class: "state" }, tk.completed ? [icon("check", 12), " ", t("final.completed")] : [icon("cross", 12), " ", t("final.missed")])),
      h("span", { class: "pts" }, `${tk.completed ? "+" : "−"}${tk.points}`)))),
    (p.stations || []).length ? h("div", { class: "state" }, t("final.station_list", { cities: list(p.stations.map((x) => cityText(x.city, ui.board))) })) : null,
    (p.attractions || []).length ? h("div", { class: "state" }, t("final.attraction_list", { cities: list(p.attractions.map((x) => cityText(x, ui.board))) })) : null));
  const longest = ui.board.features.longest_path ? ` ${t("final.longest_shown")}` : "";
  return h("div", { class: "modal", id: "final", role: "dialog", "aria-modal": "true", "aria-labelledby": "final-h" },
    h("h2", { id: "final-h" }, icon("trophy", 26), " ", winners),
    h("div", { class: "state" }, t("final.tiebreak", { rule: t(`tiebreak.${res.tiebreak}`, {}, res.tiebreak) }) + longest),
    h("div", { class: "table-scroll" }, h("table", { class: "scores", id: "scores" }, h("tr", {}, h("th", {}, t("final.player")), cols.map(([, key]) => h("th", {}, t(key)))), rows)),
    h("div", { class: "detail" }, details), actions);
}

function showFatal(message) {
  const ov = $("overlay");
  ov.replaceChildren(h("div", { class: "modal" }, h("h2", {}, t("fatal.title")), h("p", {}, message), h("a", { class: "btn primary", href: "/" }, t("final.lobby"))));
  ov.hidden = false;
}

document.addEventListener("keydown", (e) => {
  if (e.key === "Escape") {
    if (ui.selectedRoute !== null || ui.selectedCity !== null) { ui.selectedRoute = null; ui.selectedCity = null; render(); }
    else if ($("overlay").querySelector("#final")) $("overlay").hidden = true;
  }
});

window.__tracklayer = ui; // for tests and curious players: holds only what this seat may know
let langPicker = null;
initI18n().then(() => {
  langPicker = picker();
  onLangChange(() => {
    renderTop();
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
  connect();
});
void PLAYER_COLORS; void PLAYER_SYMBOLS;
