// @ts-check
// The rating ladder per game family: people and bots (each bot name one player, each bot account one), by openskill ordinal.
import { h, icon } from "./common.js";
import { t } from "./i18n.js";
import { account, startPage } from "./account.js";

const FAMILIES = ["ttr", "trans"];
let family = new URLSearchParams(location.search).get("game") === "trans" ? "trans" : "ttr";
let data = null;
let failed = false;
const fmt = (x) => x.toFixed(1);

async function load() {
  try {
    const r = await fetch(`/api/leaderboard?game=${family}`);
    data = await r.json();
    failed = !r.ok;
  } catch {
    failed = true;
  }
  render();
}

function choose(f) {
  family = f;
  history.replaceState(null, "", `/leaderboard?game=${f}`);
  data = null;
  render();
  load();
}

function row(p, mine) {
  const who =
    p.kind === "bot"
      ? h(
          "span",
          { class: "who" },
          icon("bot", 15),
          // a bot account (an outside program: `account`, with its owner) has a profile; the server's own bots do not
          p.account
            ? h(
                "a",
                { href: `/u/${encodeURIComponent(p.name)}`, title: p.owner || "" },
                t("leaderboard.bot", { name: p.name }),
              )
            : h("span", {}, t("leaderboard.bot", { name: p.name })),
          p.level ? h("span", { class: "level" }, t(`level.${p.level}`)) : null,
        )
      : h("span", { class: "who" }, icon("person", 15), h("a", { href: `/u/${encodeURIComponent(p.name)}` }, p.name));
  return h(
    "tr",
    { class: mine ? "me" : null },
    h("td", { class: "num" }, String(p.rank)),
    h("td", {}, who),
    h("td", { class: "num" }, h("b", {}, fmt(p.rating))),
    h("td", { class: "num" }, fmt(p.mu)),
    h("td", { class: "num" }, fmt(p.sigma)),
    h("td", { class: "num" }, String(p.games)),
  );
}

async function render() {
  document.title = t("leaderboard.page_title");
  const me = await account();
  const tabs = h(
    "div",
    { class: "tabs", role: "tablist" },
    FAMILIES.map((f) =>
      h(
        "button",
        {
          class: "btn small",
          role: "tab",
          type: "button",
          id: `tab-${f}`,
          "aria-selected": String(f === family),
          onclick: () => choose(f),
        },
        t(`leaderboard.family.${f}`),
      ),
    ),
  );
  let body;
  if (failed) body = h("p", { class: "error" }, t("leaderboard.failed"));
  else if (!data) body = h("p", { class: "empty-note" }, t("leaderboard.loading"));
  else if (!data.players.length) body = h("p", { class: "empty-note", id: "ladder-empty" }, t("leaderboard.empty"));
  else {
    body = h(
      "div",
      { class: "tablewrap" },
      h(
        "table",
        { class: "ladder", id: "ladder" },
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            h("th", { class: "num" }, "#"),
            h("th", {}, t("leaderboard.player")),
            h("th", { class: "num", title: t("leaderboard.rating_help") }, t("leaderboard.rating")),
            h("th", { class: "num greek" }, "μ"),
            h("th", { class: "num greek" }, "σ"),
            h("th", { class: "num" }, t("leaderboard.games")),
          ),
        ),
        h(
          "tbody",
          {},
          data.players.map((p) => row(p, me && p.kind === "human" && p.name === me.username)),
        ),
      ),
    );
  }
  document
    .getElementById("main")
    .replaceChildren(
      h("div", {}, h("h1", {}, t("leaderboard.title")), h("p", { class: "sub" }, t("leaderboard.intro"))),
      h("section", { class: "panel" }, tabs, h("div", { style: "margin-top:14px" }, body)),
    );
}

startPage(render).then(() => {
  document.addEventListener("tracklayer:account", () => render());
  load();
});
