// @ts-check
import { h, s, icon, logo, token, store, PLAYER_COLORS, CARD_FILL, gameTitle, variantTitle } from "./common.js";
import { init as initI18n, t, picker, onLangChange, list } from "./i18n.js";
import { geoLayer } from "./geo.js";
import { linkRow, eyeMark, tableMark, playerList } from "./links.js";
import { inviteForm, mailEnabled } from "./mail.js";
import { mountClockPicker, clockBody, clockLabel, defaultPreset, suggestClock } from "./clock.js";
import { accountBox, csrfHeaders } from "./account.js";
import { learnPanel } from "./learn.js";
import { friendsPanel, inviteControl } from "./friends.js";

const $ = (id) => document.getElementById(id);
/** A field of the quick-play form (its selects and the name input). @type {(id: string) => HTMLInputElement | HTMLSelectElement} */
const quickField = (id) => /** @type {HTMLInputElement | HTMLSelectElement} */ ($(id));
let catalog = { games: [], bots: [] };
let chosen = null;
let seats = [];
const friends = friendsPanel(); // the signed-in player's friends and invitations (friends.js)

async function api(path, opts) {
  const r = await fetch(path, opts);
  const body = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(typeof body.detail === "string" ? body.detail : `HTTP ${r.status}`);
  return body;
}

function miniArt(board) {
  const svg = s("svg", {
    class: "art",
    viewBox: "0 0 200 92",
    preserveAspectRatio: "xMidYMid slice",
    "aria-hidden": "true",
  });
  svg.append(s("rect", { width: 200, height: 92, fill: board.family === "trans" ? "#e9f1f3" : "#f1e6c8" }));
  if (board.family === "ttr") {
    const [x0, y0, x1, y1] = board.bounds;
    const sc = Math.min(190 / (x1 - x0), 84 / (y1 - y0));
    const ox = (200 - (x1 - x0) * sc) / 2,
      oy = (92 - (y1 - y0) * sc) / 2;
    const P = (c) => [ox + (c.x - x0) * sc, oy + (c.y - y0) * sc];
    svg.append(
      s(
        "g",
        { transform: `translate(${ox - x0 * sc} ${oy - y0 * sc}) scale(${sc})` },
        geoLayer(board, [x0, y0, x1, y1]),
      ),
    );
    for (const r of board.routes) {
      const [ax, ay] = P(board.cities[r.a]);
      const [bx, by] = P(board.cities[r.b]);
      svg.append(
        s("line", {
          x1: ax,
          y1: ay,
          x2: bx,
          y2: by,
          stroke: CARD_FILL[r.color] || "#999",
          "stroke-width": 2.2,
          "stroke-dasharray": r.tunnel ? "2 1.5" : null,
          "stroke-linecap": "round",
        }),
      );
    }
    for (const c of board.cities) {
      const [x, y] = P(c);
      svg.append(s("circle", { cx: x, cy: y, r: 2.2, fill: "#3a2a1a" }));
    }
  } else {
    const xs = board.points.map((p) => p[0]),
      ys = board.points.map((p) => p[1] * 1.732);
    const minx = Math.min(...xs),
      maxx = Math.max(...xs),
      miny = Math.min(...ys),
      maxy = Math.max(...ys);
    const sc = Math.min(190 / (maxx - minx), 84 / (maxy - miny));
    const P = (i) => [5 + (board.points[i][0] - minx) * sc, 4 + (board.points[i][1] * 1.732 - miny) * sc];
    // the map is drawn in TransBoard's units (x·15, row·15·√3); these tiles use x, row·√3
    svg.append(
      s(
        "g",
        { transform: `translate(${5 - minx * sc} ${4 - miny * sc}) scale(${sc / 15})` },
        geoLayer(board, [minx * 15, miny * 15, maxx * 15, maxy * 15]),
      ),
    );
    for (const e of board.edges) {
      const [ax, ay] = P(e.a);
      const [bx, by] = P(e.b);
      svg.append(
        s("line", {
          x1: ax,
          y1: ay,
          x2: bx,
          y2: by,
          stroke: e.cost > 1 ? "#7a5b3a" : "#9fb2b8",
          "stroke-width": e.cost > 1 ? 1.4 : 0.7,
        }),
      );
    }
    for (const c of board.cities) {
      const [x, y] = P(c.point);
      svg.append(
        s("circle", { cx: x, cy: y, r: 3, fill: CARD_FILL[c.color] || "#333", stroke: "#222", "stroke-width": 0.6 }),
      );
    }
  }
  return svg;
}

const boards = {};
function renderTiles() {
  const tiles = $("tiles");
  tiles.replaceChildren();
  for (const g of catalog.games) {
    const art = s("svg", { class: "art", viewBox: "0 0 200 92" });
    const btn = h(
      "button",
      {
        class: "tile",
        type: "button",
        "aria-pressed": String(chosen?.name === g.name),
        "data-game": g.name,
        onclick: () => choose(g),
      },
      art,
      h(
        "span",
        { class: "cap" },
        h("b", {}, gameTitle(g.name, g.title)),
        h("span", {}, t("lobby.players_range", { min: g.min_players, max: g.max_players })),
      ),
    );
    tiles.append(btn);
    boards[g.name] ??= api(`/api/boards/${g.name}`);
    boards[g.name].then((b) => art.replaceWith(miniArt(b))).catch(() => {});
  }
}

function choose(g) {
  chosen = g;
  document
    .querySelectorAll(".tile")
    .forEach((/** @type {HTMLElement} */ x) => x.setAttribute("aria-pressed", String(x.dataset.game === g.name)));
  const opts = $("opts");
  const keep = Object.fromEntries(
    [...opts.querySelectorAll("select")].map((el) => [el.id || el.dataset.option, el.value]),
  );
  opts.replaceChildren();
  const variant = h(
    "select",
    { id: "variant" },
    g.variants.map((v) =>
      h(
        "option",
        { value: v.name, selected: (keep.variant ?? g.default_variant) === v.name },
        variantTitle(g.name, v.name, v.title),
      ),
    ),
  );
  opts.append(h("label", { class: "field" }, t("lobby.variant"), variant));
  for (const o of g.options) {
    opts.append(
      h(
        "label",
        { class: "field" },
        t(`option.${o.name}`, {}, o.title),
        h(
          "select",
          { "data-option": o.name },
          o.choices.map((c) =>
            h(
              "option",
              { value: c.name, selected: keep[o.name] === c.name },
              t(`option.${o.name}.${c.name}`, {}, c.title),
            ),
          ),
        ),
      ),
    );
  }
  if (!seats.length)
    seats = [
      { kind: "human", name: "" },
      { kind: "bot", name: "" },
      { kind: "bot", name: "" },
    ];
  seats = seats.slice(0, g.max_players);
  while (seats.length < g.min_players) seats.push({ kind: "bot", name: "" });
  renderSeats();
}

// A bot seat's choice: "level:<level>" (the default: a level of this game) or "bot:<name>" (advanced).
function botChoice(seat) {
  const g = chosen;
  const valid = (c) =>
    (c?.startsWith("level:") && g.bot_levels.some((x) => `level:${x.level}` === c)) ||
    (c?.startsWith("bot:") && g.bots.includes(c.slice(4)));
  if (!valid(seat.choice)) seat.choice = `level:${g.default_level ?? g.bot_levels[0]?.level}`;
  return seat.choice;
}

function botFor(seat) {
  const c = botChoice(seat);
  if (c.startsWith("bot:")) return c.slice(4);
  return chosen.bot_levels.find((x) => `level:${x.level}` === c)?.bot;
}

function choiceLine(seat) {
  const c = botChoice(seat);
  const fam = chosen.family;
  if (c.startsWith("bot:")) return t(`bot.${c.slice(4)}.${fam}`, {}, c.slice(4));
  const level = c.slice(6);
  return t(`level.${level}.${fam}`);
}

function botSelect(seat, i) {
  const g = chosen;
  const levels = h(
    "optgroup",
    { label: t("lobby.levels") },
    g.bot_levels.map((x) =>
      h("option", { value: `level:${x.level}`, title: t(`level.${x.level}.${g.family}`) }, t(`level.${x.level}`)),
    ),
  );
  const raw = h(
    "optgroup",
    { label: t("lobby.bots_by_name") },
    g.bots.map((b) =>
      h("option", { value: `bot:${b}`, title: t(`bot.${b}.${g.family}`, {}, b) }, t("lobby.bot_name", { bot: b })),
    ),
  );
  const sel = h(
    "select",
    {
      "aria-label": t("lobby.seat_bot", { n: i + 1 }),
      class: "botkind",
      "data-seat": i,
      onchange: (e) => {
        seat.choice = e.target.value;
        renderSeats();
      },
    },
    levels,
    raw,
  );
  sel.value = botChoice(seat);
  return sel;
}

const KIND_ICON = { human: "person", bot: "bot", open: "flag" };

function defaultName(seat, i) {
  return seat.kind === "bot" ? t("lobby.bot_n", { n: i + 1 }) : t("lobby.player_n", { n: i + 1 });
}

function renderSeats() {
  const box = $("seats");
  box.replaceChildren();
  seats.forEach((seat, i) => {
    const name = h("input", {
      value: seat.kind === "open" ? "" : seat.name,
      placeholder: seat.kind === "open" ? t("links.open_short") : defaultName(seat, i),
      disabled: seat.kind === "open",
      "aria-label": t("lobby.seat_name", { n: i + 1 }),
      maxlength: 24,
      oninput: (e) => {
        seat.name = e.target.value;
      },
    });
    const who = h(
      "span",
      { class: "who", role: "group", "aria-label": t("lobby.seat_played_by", { n: i + 1 }) },
      ["human", "bot", "open"].map((k) =>
        h(
          "button",
          {
            type: "button",
            "aria-pressed": String(seat.kind === k),
            "data-kind": k,
            onclick: () => {
              seat.kind = k;
              renderSeats();
            },
          },
          icon(KIND_ICON[k]),
          " ",
          t(`lobby.kind_${k}`),
        ),
      ),
    );
    const kind = seat.kind === "bot" ? botSelect(seat, i) : null;
    const rm = h(
      "button",
      {
        class: "x",
        type: "button",
        "aria-label": t("lobby.remove_seat", { n: i + 1 }),
        disabled: seats.length <= (chosen?.min_players ?? 2),
        onclick: () => {
          seats.splice(i, 1);
          renderSeats();
        },
      },
      "×",
    );
    const desc = seat.kind === "bot" ? h("p", { class: "seat-desc", "data-seat-desc": i }, choiceLine(seat)) : null;
    box.append(
      h("div", { class: `seat ${seat.kind}` }, token(i), h("div", { class: "seat-main" }, name, kind), who, rm, desc),
    );
  });
  /** @type {HTMLButtonElement} */ ($("add-seat")).disabled = !chosen || seats.length >= chosen.max_players;
  suggestClock(defaultPreset(seats, /** @type {HTMLInputElement} */ ($("hotseat")).checked));
}

async function create() {
  $("create-error").textContent = "";
  if (!chosen) {
    $("create-error").textContent = t("lobby.pick_map");
    return;
  }
  const options = {};
  document.querySelectorAll("[data-option]").forEach((/** @type {HTMLSelectElement} */ el) => {
    options[el.dataset.option] = el.value;
  });
  const body = {
    game: chosen.name,
    variant: /** @type {HTMLSelectElement} */ ($("variant")).value,
    options,
    hotseat: /** @type {HTMLInputElement} */ ($("hotseat")).checked,
    private: /** @type {HTMLInputElement} */ ($("private")).checked,
    clock: clockBody(),
    seats: seats.map((x, i) =>
      x.kind === "open"
        ? { kind: "open" }
        : { kind: x.kind, name: x.name.trim() || defaultName(x, i), bot: x.kind === "bot" ? botFor(x) : undefined },
    ),
  };
  try {
    const out = await api("/api/games", {
      method: "POST",
      headers: { "Content-Type": "application/json", ...csrfHeaders() },
      body: JSON.stringify(body),
    });
    showLinks(out);
    $("created").scrollIntoView({ behavior: "smooth", block: "nearest" });
    /** @type {HTMLElement | null} */ ($("links").querySelector("a.primary"))?.focus();
    refresh();
  } catch (e) {
    $("create-error").textContent = t("lobby.create_failed", { detail: e.message });
  }
}

let lastCreated = null;
function showLinks(out) {
  lastCreated = out;
  const links = $("links");
  links.replaceChildren();
  const title = catalog.games.find((g) => g.name === out.game)?.title || out.game;
  const tokens = {};
  const add = (tok, label, link, primary) =>
    links.append(linkRow(tok, label, link, primary ? t("lobby.play") : t("lobby.open"), primary));
  if (out.hotseat) {
    tokens.hotseat = out.hotseat.token;
    add(tableMark(), t("lobby.hotseat_table"), out.hotseat.link, true);
  }
  let first = !out.hotseat;
  // a signed-in creator sits on the first human seat (not at a hot-seat table): the others can go to followers
  const invite = friends.signedIn() && !out.hotseat && out.creator;
  let mine = invite;
  const invites = [];
  for (const seat of out.seats) {
    if (seat.kind !== "human") continue;
    tokens[seat.seat] = seat.token;
    add(token(seat.seat), seat.name, seat.link, first);
    if (mine) mine = false;
    else if (invite && friends.followers().length)
      links.lastElementChild.append(inviteControl(out.id, seat, out.creator.token, friends.followers()));
    // the other seats' links may go out by e-mail too (a seat placeholder, filled if the server sends mail)
    if (!first && !out.hotseat && out.creator) {
      const spot = h("div", { hidden: true });
      links.append(spot);
      invites.push([spot, seat.seat]);
    }
    first = false;
  }
  if (invite && !friends.followers().length && out.seats.filter((x) => x.kind === "human").length > 1)
    links.append(h("p", { class: "invite-none" }, t("friends.invite_none")));
  mailEnabled().then((on) => {
    for (const [spot, seat] of invites)
      if (on) {
        spot.replaceWith(inviteForm(out.id, seat, out.creator.token));
      }
  });
  tokens.spectator = out.spectator.token;
  add(eyeMark(), t("lobby.spectators"), out.spectator.link, false);
  if (out.creator) tokens.creator = out.creator.token; // reopens every link later (My games, the game page)
  store.remember(out.id, {
    title,
    game: out.game,
    tokens,
    seats: out.seats.map((x) => x.name),
    creator: out.creator?.token,
  });
  $("created").hidden = false;
}

function statusChip(st) {
  return h("span", { class: `status ${st}` }, t(`status.${st}`, {}, st));
}

async function refresh() {
  friends.refresh();
  const mine = store.mine();
  let listed = [];
  try {
    listed = (await api("/api/games")).games;
  } catch {
    /* offline: show what we know */
  }
  const byId = Object.fromEntries(listed.map((g) => [g.id, g]));
  const mineList = $("mine");
  mineList.replaceChildren();
  const ids = Object.keys(mine).sort((a, b) => (mine[b].at || 0) - (mine[a].at || 0));
  const titleOf = (game, fallback) =>
    gameTitle(game, catalog.games.find((x) => x.name === game)?.title || fallback || game);
  const shown = ids.slice(0, 12).map((id) => {
    const tk = mine[id].tokens || {};
    return [id, tk.hotseat || Object.entries(tk).find(([k]) => /^\d+$/.test(k))?.[1] || tk.spectator];
  });
  // private games are not in the public list: their status (and whose turn it is) comes per token
  const st = {};
  try {
    const items = shown.filter(([, tok]) => tok).map(([game, tok]) => ({ game, token: tok }));
    if (items.length) {
      const out = await api("/api/games/status", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ items }),
      });
      out.items.forEach((x) => {
        if (!x.error) st[x.game] = x;
      });
    }
  } catch {
    /* offline */
  }
  for (const [id, tok] of shown) {
    const m = mine[id];
    const g = byId[id] || st[id];
    const yours = st[id]?.your_turn;
    mineList.append(
      h(
        "li",
        { class: yours ? "yours" : "" },
        h(
          "div",
          { class: "meta" },
          h("b", {}, titleOf(m.game || g?.game || g?.title, m.title) || t("lobby.game")),
          h(
            "span",
            {},
            st[id] ? playerList(st[id].players) : list(m.seats || []),
            g ? ` · ${t("lobby.moves", { count: g.moves })}` : "",
          ),
        ),
        g ? statusChip(g.status) : null,
        h(
          "a",
          { class: `btn small ${yours ? "primary" : "gold"}`, href: tok ? `/game/${id}#${tok}` : "/my" },
          g?.status === "over" ? t("lobby.results") : t("lobby.resume"),
        ),
        g?.status === "over"
          ? h("a", { class: "btn small", href: `/replay/${encodeURIComponent(id)}` }, t("lobby.replay"))
          : null,
      ),
    );
  }
  if (!ids.length) mineList.append(h("li", { class: "empty" }, t("lobby.mine_empty")));
  const all = $("all");
  all.replaceChildren();
  const live = listed.filter((g) => g.status !== "over").slice(0, 15);
  for (const g of live) {
    const open = g.seats.filter((x) => x.kind === "open").length;
    const acts = h("span", { class: "acts" });
    if (g.status === "waiting" && open)
      acts.append(
        h(
          "button",
          { class: "btn small gold", type: "button", "data-join": g.id, onclick: () => join(g) },
          t("lobby.join"),
        ),
      );
    if (g.watch)
      acts.append(
        h("a", { class: "btn small", href: g.watch, "data-watch": g.id }, icon("eye"), " ", t("lobby.watch")),
      );
    all.append(
      h(
        "li",
        { "data-game": g.id },
        h(
          "div",
          { class: "meta" },
          h("b", {}, titleOf(g.game)),
          h(
            "span",
            {},
            playerList(g.seats),
            ` · ${open ? t("lobby.open_seats", { count: open }) : t("lobby.moves", { count: g.moves })}`,
            g.clock ? h("span", { class: "lobby-clock" }, ` · ${clockLabel(g.clock)}`) : null,
          ),
        ),
        statusChip(g.status),
        acts,
      ),
    );
  }
  if (!live.length) all.append(h("li", { class: "empty" }, t("lobby.all_empty")));
  // finished games, each with its replay (replay pages need no token: a finished game hides nothing)
  const done = listed.filter((g) => g.status === "over").slice(0, 10);
  $("finished").replaceChildren(
    ...(done.length
      ? done.map((g) =>
          h(
            "li",
            {},
            h(
              "div",
              { class: "meta" },
              h("b", {}, titleOf(g.game)),
              h(
                "span",
                {},
                list(g.seats.map((x) => (x.kind === "bot" ? t("lobby.name_bot", { name: x.name }) : x.name))),
                ` · ${t("lobby.moves", { count: g.moves })}`,
              ),
            ),
            h("a", { class: "btn small gold", href: `/replay/${encodeURIComponent(g.id)}` }, t("lobby.replay")),
          ),
        )
      : [h("li", { class: "empty" }, t("lobby.finished_empty"))]),
  );
}

// ---------------------------------------------------------------- join, quick play
const NAME_KEY = "tracklayer.name";
function myName() {
  try {
    return localStorage.getItem(NAME_KEY) || "";
  } catch {
    return "";
  }
}
function setMyName(v) {
  try {
    localStorage.setItem(NAME_KEY, v);
  } catch {
    /* this page only */
  }
}

async function join(g) {
  const name = (myName() || "").trim() || undefined;
  try {
    const out = await api(`/api/games/${encodeURIComponent(g.id)}/join`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ name }),
    });
    store.remember(g.id, { game: g.game, tokens: { [out.seat]: out.token }, seats: g.seats.map((x) => x.name) });
    location.href = out.link;
  } catch (e) {
    $("quick-error").textContent = t("lobby.join_failed", { detail: e.message });
    refresh();
  }
}

function renderQuick() {
  const box = $("quick");
  const keep = {
    game: quickField("q-game")?.value,
    players: quickField("q-players")?.value,
    wait: quickField("q-wait")?.value,
  };
  const game = catalog.games.find((g) => g.name === keep.game) || catalog.games[0];
  if (!game) return;
  const gameSel = h(
    "select",
    { id: "q-game", onchange: renderQuick },
    catalog.games.map((g) =>
      h("option", { value: g.name, selected: g.name === game.name }, gameTitle(g.name, g.title)),
    ),
  );
  const counts = [];
  for (let n = game.min_players; n <= game.max_players; n++) counts.push(n);
  const players = h(
    "select",
    { id: "q-players" },
    counts.map((n) =>
      h("option", { value: n, selected: String(n) === (keep.players || "3") }, t("lobby.players_n", { count: n })),
    ),
  );
  const wait = h(
    "select",
    { id: "q-wait" },
    [
      [30, "quick.wait_30"],
      [120, "quick.wait_120"],
      [600, "quick.wait_600"],
    ].map(([s, k]) => h("option", { value: s, selected: String(s) === (keep.wait || "120") }, t(k))),
  );
  const name = h("input", {
    id: "q-name",
    value: myName(),
    maxlength: 24,
    placeholder: t("quick.name_placeholder"),
    oninput: (e) => setMyName(e.target.value),
  });
  box.replaceChildren(
    h("label", { class: "field wide" }, t("lobby.map"), gameSel),
    h("label", { class: "field" }, t("quick.players"), players),
    h("label", { class: "field" }, t("quick.wait"), wait),
    h("label", { class: "field wide" }, t("quick.name"), name),
  );
}

async function quickPlay() {
  $("quick-error").textContent = "";
  const body = {
    game: quickField("q-game").value,
    players: Number(quickField("q-players").value),
    wait: Number(quickField("q-wait").value),
    name: quickField("q-name").value.trim() || undefined,
    avoid: Object.keys(store.mine()).slice(0, 500),
  }; // never a second seat in a game this browser plays
  try {
    const out = await api("/api/quickplay", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    store.remember(out.id, { game: body.game, tokens: { [out.seat]: out.token } });
    location.href = out.link;
  } catch (e) {
    $("quick-error").textContent = t("quick.failed", { detail: e.message });
  }
}

function renderTop() {
  $("topbar").replaceChildren(
    logo(),
    h("span", { class: "spacer" }),
    h(
      "a",
      {
        class: "pill score-link",
        href: "/score",
        id: "score-link",
        title: t("lobby.score_link"),
        "aria-label": t("lobby.score_link"),
      },
      icon("calc"),
      h("span", {}, t("lobby.score_link")),
    ),
    accountBox(),
    langPicker,
    h("span", { class: "pill ok", id: "conn" }, t("lobby.online")),
  );
}

let langPicker = null;
async function main() {
  await initI18n();
  langPicker = picker();
  renderTop();
  $("side").prepend(friends.panel);
  document.addEventListener("tracklayer:account", () => friends.refresh());
  catalog = await api("/api/catalog");
  chosen = catalog.games.find((g) => g.name === "ttr-europe") || catalog.games[0];
  renderTiles();
  choose(chosen);
  mountClockPicker(); // turn clocks (clock.js)
  $("hotseat").addEventListener("change", renderSeats);
  renderSeats(); // the clock the seats call for
  $("add-seat").addEventListener("click", () => {
    seats.push({ kind: "bot", name: "" });
    renderSeats();
  });
  $("create").addEventListener("click", create);
  renderQuick();
  $("learn").replaceChildren(...learnPanel()); // tutorial games (learn.js)
  $("quick-go").addEventListener("click", quickPlay);
  onLangChange(() => {
    renderTop();
    renderTiles();
    choose(chosen);
    renderQuick();
    $("learn").replaceChildren(...learnPanel());
    refresh();
    friends.draw();
    if (lastCreated) showLinks(lastCreated);
  });
  refresh();
  setInterval(refresh, 10000);
}
main();
void PLAYER_COLORS;
