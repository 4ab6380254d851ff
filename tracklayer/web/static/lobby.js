import { h, s, icon, logo, token, store, PLAYER_COLORS, CARD_FILL } from "/static/common.js";

const $ = (id) => document.getElementById(id);
let catalog = { games: [], bots: [] };
let chosen = null;
let seats = [];

async function api(path, opts) {
  const r = await fetch(path, opts);
  const body = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(body.detail || `HTTP ${r.status}`);
  return body;
}

function miniArt(board) {
  const svg = s("svg", { class: "art", viewBox: "0 0 200 92", preserveAspectRatio: "xMidYMid slice", "aria-hidden": "true" });
  svg.append(s("rect", { width: 200, height: 92, fill: board.family === "trans" ? "#e9f1f3" : "#f1e6c8" }));
  if (board.family === "ttr") {
    const [x0, y0, x1, y1] = board.bounds;
    const sc = Math.min(190 / (x1 - x0), 84 / (y1 - y0));
    const ox = (200 - (x1 - x0) * sc) / 2, oy = (92 - (y1 - y0) * sc) / 2;
    const P = (c) => [ox + (c.x - x0) * sc, oy + (c.y - y0) * sc];
    for (const r of board.routes) {
      const [ax, ay] = P(board.cities[r.a]); const [bx, by] = P(board.cities[r.b]);
      svg.append(s("line", { x1: ax, y1: ay, x2: bx, y2: by, stroke: CARD_FILL[r.color] || "#999", "stroke-width": 2.2,
        "stroke-dasharray": r.tunnel ? "2 1.5" : null, "stroke-linecap": "round" }));
    }
    for (const c of board.cities) { const [x, y] = P(c); svg.append(s("circle", { cx: x, cy: y, r: 2.2, fill: "#3a2a1a" })); }
  } else {
    const xs = board.points.map((p) => p[0]), ys = board.points.map((p) => p[1] * 1.732);
    const minx = Math.min(...xs), maxx = Math.max(...xs), miny = Math.min(...ys), maxy = Math.max(...ys);
    const sc = Math.min(190 / (maxx - minx), 84 / (maxy - miny));
    const P = (i) => [5 + (board.points[i][0] - minx) * sc, 4 + (board.points[i][1] * 1.732 - miny) * sc];
    for (const e of board.edges) {
      const [ax, ay] = P(e.a); const [bx, by] = P(e.b);
      svg.append(s("line", { x1: ax, y1: ay, x2: bx, y2: by, stroke: e.cost > 1 ? "#7a5b3a" : "#9fb2b8", "stroke-width": e.cost > 1 ? 1.4 : 0.7 }));
    }
    for (const c of board.cities) { const [x, y] = P(c.point); svg.append(s("circle", { cx: x, cy: y, r: 3, fill: CARD_FILL[c.color] || "#333", stroke: "#222", "stroke-width": .6 })); }
  }
  return svg;
}

function renderTiles() {
  const tiles = $("tiles");
  tiles.replaceChildren();
  for (const g of catalog.games) {
    const art = s("svg", { class: "art", viewBox: "0 0 200 92" });
    const btn = h("button", { class: "tile", type: "button", "aria-pressed": String(chosen?.name === g.name), "data-game": g.name,
      onclick: () => choose(g) }, art, h("span", { class: "cap" }, h("b", {}, g.title), h("span", {}, `${g.min_players}–${g.max_players} players`)));
    tiles.append(btn);
    api(`/api/boards/${g.name}`).then((b) => art.replaceWith(miniArt(b))).catch(() => {});
  }
}

function choose(g) {
  chosen = g;
  document.querySelectorAll(".tile").forEach((t) => t.setAttribute("aria-pressed", String(t.dataset.game === g.name)));
  const opts = $("opts");
  opts.replaceChildren();
  const variant = h("select", { id: "variant" }, g.variants.map((v) => h("option", { value: v.name, selected: v.name === g.default_variant }, v.title)));
  opts.append(h("label", { class: "field" }, "Variant", variant));
  for (const o of g.options) {
    opts.append(h("label", { class: "field" }, o.title, h("select", { "data-option": o.name }, o.choices.map((c) => h("option", { value: c.name }, c.title)))));
  }
  if (!seats.length) seats = [{ kind: "human", name: "You" }, { kind: "bot", name: "" }, { kind: "bot", name: "" }];
  seats = seats.slice(0, g.max_players);
  while (seats.length < g.min_players) seats.push({ kind: "bot", name: "" });
  renderSeats();
}

function renderSeats() {
  const box = $("seats");
  box.replaceChildren();
  seats.forEach((seat, i) => {
    const name = h("input", { value: seat.name, placeholder: seat.kind === "bot" ? `Bot ${i + 1}` : `Player ${i + 1}`,
      "aria-label": `Seat ${i + 1} name`, maxlength: 24, oninput: (e) => { seat.name = e.target.value; } });
    const who = h("span", { class: "who", role: "group", "aria-label": `Seat ${i + 1} is played by` },
      ["human", "bot"].map((k) => h("button", { type: "button", "aria-pressed": String(seat.kind === k),
        onclick: () => { seat.kind = k; renderSeats(); } }, icon(k === "human" ? "person" : "bot"), k === "human" ? " Human" : " Bot")));
    const kind = seat.kind === "bot" ? h("select", { "aria-label": `Seat ${i + 1} bot`, class: "botkind",
      onchange: (e) => { seat.bot = e.target.value; } }, catalog.bots.map((b) => h("option", { value: b, selected: (seat.bot || "random") === b }, b))) : null;
    const rm = h("button", { class: "x", type: "button", "aria-label": `Remove seat ${i + 1}`, disabled: seats.length <= (chosen?.min_players ?? 2),
      onclick: () => { seats.splice(i, 1); renderSeats(); } }, "×");
    box.append(h("div", { class: "seat" }, token(i), h("div", { class: "row", style: "gap:6px;flex-wrap:nowrap" }, name, kind), who, rm));
  });
  $("add-seat").disabled = !chosen || seats.length >= chosen.max_players;
}

async function create() {
  $("create-error").textContent = "";
  if (!chosen) { $("create-error").textContent = "Pick a map first."; return; }
  const options = {};
  document.querySelectorAll("[data-option]").forEach((el) => { options[el.dataset.option] = el.value; });
  const body = { game: chosen.name, variant: $("variant").value, options, hotseat: $("hotseat").checked,
    seats: seats.map((x) => ({ kind: x.kind, name: x.name.trim() || undefined, bot: x.kind === "bot" ? (x.bot || "random") : undefined })) };
  try {
    const out = await api("/api/games", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    showLinks(out);
    refresh();
  } catch (e) { $("create-error").textContent = e.message; }
}

function showLinks(out) {
  const links = $("links");
  links.replaceChildren();
  const abs = (p) => new URL(p, location.href).href;
  const title = catalog.games.find((g) => g.name === out.game)?.title || out.game;
  const tokens = {};
  const add = (tok, label, link, primary) => {
    const copy = h("button", { class: "btn small", type: "button", onclick: async () => {
      try { await navigator.clipboard.writeText(abs(link)); copy.textContent = "Copied"; } catch { copy.textContent = "Select & copy"; }
    } }, "Copy link");
    links.append(h("div", { class: "link" }, tok, h("div", {}, h("b", {}, label), h("br"), h("code", {}, abs(link))), copy,
      h("a", { class: `btn small ${primary ? "primary" : ""}`, href: link }, primary ? "Play" : "Open")));
  };
  if (out.hotseat) { tokens.hotseat = out.hotseat.token; add(h("span", { class: "token", style: "background:#333" }, icon("swap", 18)), "Hot-seat table (all human seats)", out.hotseat.link, true); }
  let first = !out.hotseat;
  for (const seat of out.seats) {
    if (seat.kind !== "human") continue;
    tokens[seat.seat] = seat.token;
    add(token(seat.seat), seat.name, seat.link, first);
    first = false;
  }
  tokens.spectator = out.spectator.token;
  add(h("span", { class: "token", style: "background:#777" }, icon("eye", 18)), "Spectators", out.spectator.link, false);
  store.remember(out.id, { title, tokens, seats: out.seats.map((x) => x.name) });
  $("created").hidden = false;
  $("created").scrollIntoView({ behavior: "smooth", block: "nearest" });
  const firstPlay = links.querySelector("a.primary");
  if (firstPlay) firstPlay.focus();
}

function statusChip(st) { return h("span", { class: `status ${st}` }, st === "open" ? "waiting" : st); }

async function refresh() {
  const mine = store.mine();
  let listed = [];
  try { listed = (await api("/api/games")).games; } catch { /* offline: show what we know */ }
  const byId = Object.fromEntries(listed.map((g) => [g.id, g]));
  const mineList = $("mine");
  mineList.replaceChildren();
  const ids = Object.keys(mine).sort((a, b) => (mine[b].at || 0) - (mine[a].at || 0));
  for (const id of ids.slice(0, 12)) {
    const m = mine[id]; const g = byId[id];
    const tok = m.tokens.hotseat || Object.entries(m.tokens).find(([k]) => /^\d+$/.test(k))?.[1] || m.tokens.spectator;
    mineList.append(h("li", {}, h("div", { class: "meta" }, h("b", {}, m.title || g?.game || "game"),
      h("span", {}, (m.seats || []).join(", "), g ? ` · ${g.moves} moves` : "")), g ? statusChip(g.status) : null,
    h("a", { class: "btn small gold", href: `/game/${id}#${tok}` }, g?.status === "over" ? "Results" : "Resume")));
  }
  if (!ids.length) mineList.append(h("li", { class: "empty" }, "Games you create or join appear here."));
  const all = $("all");
  all.replaceChildren();
  const titles = Object.fromEntries(catalog.games.map((g) => [g.name, g.title]));
  const live = listed.filter((g) => g.status !== "over").slice(0, 15);
  for (const g of live) {
    all.append(h("li", {}, h("div", { class: "meta" }, h("b", {}, titles[g.game] || g.game),
      h("span", {}, g.seats.map((x) => x.name + (x.kind === "bot" ? " (bot)" : "")).join(", "), ` · ${g.moves} moves`)), statusChip(g.status)));
  }
  if (!live.length) all.append(h("li", { class: "empty" }, "No games yet: start one!"));
}

async function main() {
  $("topbar").append(logo(), h("span", { class: "spacer" }), h("span", { class: "pill ok", id: "conn" }, "Server online"));
  catalog = await api("/api/catalog");
  chosen = catalog.games.find((g) => g.name === "ttr-europe") || catalog.games[0];
  renderTiles();
  choose(chosen);
  $("add-seat").addEventListener("click", () => { seats.push({ kind: "bot", name: "" }); renderSeats(); });
  $("create").addEventListener("click", create);
  refresh();
  setInterval(refresh, 10000);
}
main();
void PLAYER_COLORS;
