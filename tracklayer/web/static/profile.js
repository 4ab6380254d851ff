// @ts-check
// A player's profile (/u/{username}): ratings per family, the rating over time, the games played.
import { h, s, logo, gameTitle } from "./common.js";
import { init as initI18n, t, picker, onLangChange, lang } from "./i18n.js";
import { accountBox } from "./account.js";

const username = decodeURIComponent(location.pathname.split("/").pop() || "");
let data = null;
let missing = false;
let langPicker = null;
const fmt = (x) => x.toFixed(1);
const when = (sec) =>
  new Date(sec * 1000).toLocaleDateString(lang, { year: "numeric", month: "short", day: "numeric" });

async function load() {
  try {
    const r = await fetch(`/api/users/${encodeURIComponent(username)}`);
    if (r.status === 404) missing = true;
    else data = await r.json();
  } catch {
    missing = true;
  }
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
      h("td", {}, g.rank ? t("profile.place", { rank: g.rank, players: g.players }) : t(`profile.status.${g.status}`)),
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
  main.replaceChildren(
    h(
      "div",
      {},
      h("h1", { id: "profile-name" }, data.username),
      h("p", { class: "sub" }, t("profile.since", { date: when(data.joined) })),
    ),
    h("section", { class: "panel" }, h("h2", {}, t("profile.ratings")), cards),
    h("section", { class: "panel" }, h("h2", {}, t("profile.games_title", { count: data.games.length })), games),
  );
}

function renderTop() {
  document.getElementById("topbar").replaceChildren(logo(), h("span", { class: "spacer" }), accountBox(), langPicker);
}

initI18n().then(() => {
  langPicker = picker();
  renderTop();
  onLangChange(() => {
    renderTop();
    render();
  });
  render();
  load();
});
