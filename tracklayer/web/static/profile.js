// @ts-check
// A player's profile (/u/{username}): ratings per family, the rating over time, the games played.
import { h, s, gameTitle, icon } from "./common.js";
import { t, onLangChange, lang } from "./i18n.js";
import { followButton, presenceLine } from "./friends.js";
import { account, startPage } from "./account.js";
import { mailSection } from "./mail.js";

const username = decodeURIComponent(location.pathname.split("/").pop() || "");
let data = null;
let missing = false;
let mine = false; // the signed-in person's own profile: it links to their bot accounts
let followError = "";
let mail = null; // the e-mail panel, on one's own profile only
const fmt = (x) => x.toFixed(1);
// averages with at most one decimal, shares as percentages, in the page's language
const num = (x) => new Intl.NumberFormat(lang, { maximumFractionDigits: 1 }).format(x);
const pct = (x) => new Intl.NumberFormat(lang, { style: "percent", maximumFractionDigits: 0 }).format(x);
const when = (sec) =>
  new Date(sec * 1000).toLocaleDateString(lang, { year: "numeric", month: "short", day: "numeric" });

async function load() {
  try {
    const r = await fetch(`/api/users/${encodeURIComponent(username)}`, { credentials: "same-origin" });
    if (r.status === 404) missing = true;
    else data = await r.json();
  } catch {
    missing = true;
  }
  const me = await account();
  mine = !!me && me.username.toLowerCase() === username.toLowerCase();
  if (data && me && me.username === data.username) mail = mailSection();
  render();
}

// the rating (ordinal) after each rated game of one family, as a small line chart
function spark(points) {
  const W = 300,
    H = 120,
    P = 12;
  const ys = points.map((p) => p.rating);
  const lo = Math.min(...ys, 0),
    hi = Math.max(...ys, 1);
  const X = (i) => P + (points.length === 1 ? (W - 2 * P) / 2 : (i * (W - 2 * P)) / (points.length - 1));
  const Y = (v) => H - P - ((v - lo) * (H - 2 * P)) / (hi - lo || 1);
  const svg = s("svg", {
    class: "spark",
    viewBox: `0 0 ${W} ${H}`,
    preserveAspectRatio: "none",
    role: "img",
    "aria-label": t("profile.chart"),
  });
  svg.append(s("line", { x1: P, x2: W - P, y1: Y(0), y2: Y(0), stroke: "#c9b98f", "stroke-dasharray": "3 3" }));
  svg.append(
    s("polyline", {
      points: points.map((p, i) => `${X(i)},${Y(p.rating)}`).join(" "),
      fill: "none",
      stroke: "#a80f1d",
      "stroke-width": 2.5,
      "vector-effect": "non-scaling-stroke",
    }),
  );
  points.forEach((p, i) => svg.append(s("circle", { cx: X(i), cy: Y(p.rating), r: 3, fill: "#a80f1d" })));
  return svg;
}

// one family's summary (the API's stats.<family>): the numbers Board Game Arena keeps, only those the
// family's maps have (no stations on New York, no tickets in Trans)
function familyStats(f, st) {
  const row = (key, value, sub = false) =>
    value === undefined || value === null
      ? null
      : h(
          "tr",
          { "data-stat": key },
          h("td", sub ? { class: "indent" } : {}, t(`profile.stat.${key}`)),
          h("td", { class: "num" }, value),
        );
  const avg = (key) => (st[key] === undefined ? undefined : num(st[key]));
  const rows =
    f === "ttr"
      ? [
          row("games", num(st.games)),
          row("wins", num(st.wins)),
          row("total", avg("total")),
          h("tr", {}, h("th", { colspan: 2 }, t("profile.stat.per_game"))),
          row("route_points", avg("route_points"), true),
          row("ticket_points", avg("ticket_points"), true),
          row("station_points", avg("station_points"), true),
          row("bonus_points", avg("bonus_points"), true),
          row("attraction_points", avg("attraction_points"), true),
          row("tickets", `${num(st.tickets_completed)} / ${num(st.tickets_failed)}`),
          row("ticket_rate", st.ticket_rate == null ? null : pct(st.ticket_rate)),
          row("longest_path", avg("longest_path")),
          row("longest_bonus_share", st.longest_bonus_share === undefined ? undefined : pct(st.longest_bonus_share)),
          row("stations_built", avg("stations_built")),
          row("attractions", avg("attractions")),
        ]
      : [
          row("games", num(st.games)),
          row("wins", num(st.wins)),
          row("total", avg("total")),
          row("rounds", avg("rounds")),
          row("rounds_won", avg("rounds_won")),
          row("missing_rails", avg("missing_rails")),
        ];
  return h(
    "div",
    { class: "statfam", "data-family": f },
    h("h3", {}, t(`leaderboard.family.${f}`)),
    h("table", { class: "ladder stats" }, h("tbody", {}, rows)),
  );
}

// the score and tickets of one finished game, under its place
function gameLine(st) {
  if (!st) return null;
  const parts = [t("profile.game_points", { points: st.total })];
  if (st.tickets_completed !== undefined)
    parts.push(t("profile.game_tickets", { done: st.tickets_completed, failed: st.tickets_failed }));
  // each part stays on one line: a phone wraps between them, not inside "4 ✗"
  return h(
    "span",
    { class: "gstat" },
    parts.map((p, i) => [i ? " · " : "", h("span", {}, p)]),
  );
}

function render() {
  document.title = t("profile.page_title", { name: username });
  const main = document.getElementById("main");
  if (missing) {
    main.replaceChildren(
      h("div", {}, h("h1", {}, username), h("p", { class: "sub", id: "profile-missing" }, t("profile.missing"))),
    );
    return;
  }
  if (!data) {
    main.replaceChildren(h("p", { class: "sub" }, t("leaderboard.loading")));
    return;
  }
  const cards = h(
    "div",
    { class: "cards", id: "profile-ratings" },
    ["ttr", "trans"].map((f) => {
      const r = data.ratings[f];
      const hist = data.history.filter((x) => x.family === f);
      return h(
        "div",
        { class: "stat", "data-family": f },
        h("span", {}, t(`leaderboard.family.${f}`)),
        h("b", {}, r ? fmt(r.rating) : "—"),
        h("span", {}, r ? t("profile.rated_games", { count: r.games }) : t("profile.unrated")),
        hist.length > 1 ? spark(hist) : null,
      );
    }),
  );
  const rows = data.games.map((g) =>
    h(
      "tr",
      {},
      h("td", {}, when(g.updated_at)),
      // a finished game opens its replay (a running one has no public page: its links are its players')
      h(
        "td",
        {},
        g.status === "over"
          ? h("a", { href: `/replay/${encodeURIComponent(g.id)}`, "data-replay": g.id }, gameTitle(g.game))
          : gameTitle(g.game),
      ),
      h(
        "td",
        {},
        g.rank ? t("profile.place", { rank: g.rank, players: g.players }) : t(`profile.status.${g.status}`),
        gameLine(g.stats),
      ),
      h("td", { class: "num" }, g.rated ? fmt(g.rating) : "—"),
    ),
  );
  const games = data.games.length
    ? h(
        "div",
        { class: "tablewrap" },
        h(
          "table",
          { class: "ladder", id: "profile-games" },
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              h("th", {}, t("profile.date")),
              h("th", {}, t("profile.game")),
              h("th", {}, t("profile.result")),
              h("th", { class: "num" }, t("leaderboard.rating")),
            ),
          ),
          h("tbody", {}, rows),
        ),
      )
    : h("p", { class: "empty-note" }, t("profile.no_games"));
  const stats = data.stats || {};
  const families = ["ttr", "trans"].filter((f) => stats[f]);
  const parts = [
    h(
      "div",
      {},
      h("h1", { id: "profile-name" }, data.username),
      // a bot account: an outside program playing over the network, with the person who runs it
      data.bot
        ? h(
            "p",
            { class: "sub", id: "profile-bot" },
            icon("bot", 15),
            " ",
            h("a", { href: `/u/${encodeURIComponent(data.owner || "")}` }, t("profile.bot_of", { owner: data.owner })),
          )
        : null,
      data.bot && data.description ? h("p", { class: "sub", id: "profile-description" }, data.description) : null,
      h("p", { class: "sub" }, t("profile.since", { date: when(data.joined) })),
      mine && !data.bot
        ? h(
            "p",
            { class: "sub" },
            h("a", { href: "/bots", id: "profile-bots", class: "botslink" }, icon("bot", 15), " ", t("account.bots")),
          )
        : null,
      presenceLine(data.presence, "profile-presence"),
      follow(),
    ),
    h("section", { class: "panel" }, h("h2", {}, t("profile.ratings")), cards),
    families.length
      ? h(
          "section",
          { class: "panel", id: "profile-stats" },
          h("h2", {}, t("profile.stats_title")),
          h(
            "div",
            { class: "statfams" },
            families.map((f) => familyStats(f, stats[f])),
          ),
        )
      : null,
    mail ? mail.element : null,
    h("section", { class: "panel" }, h("h2", {}, t("profile.games_title", { count: data.games.length })), games),
  ];
  main.replaceChildren(...parts.filter((x) => x !== null));
}

// a signed-in visitor's follow button, and whether this player follows them back (friends.js)
function follow() {
  const rel = data.relation;
  if (!rel || rel.self) return null;
  const done = (answer, error) => {
    if (answer) data.relation = { following: answer.following, follows_you: answer.follows_you, friend: answer.friend };
    followError = error || "";
    render();
  };
  return h(
    "div",
    { class: "follow-row" },
    followButton(data.username, rel, done),
    rel.friend
      ? h("span", { class: "friend-mark", id: "profile-friend" }, t("friends.friend"))
      : rel.follows_you
        ? h("span", { class: "friend-mark", id: "profile-follows-you" }, t("friends.follows_you"))
        : null,
    followError ? h("span", { class: "error", role: "alert" }, followError) : null,
  );
}

startPage(render).then(() => {
  onLangChange(() => mail?.redraw());
  load();
  document.addEventListener("tracklayer:account", load); // signed in or out: the follow button changes
});
