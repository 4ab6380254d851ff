// @ts-check
// The rules of one game (/rules/{game}#{variant}): a players' summary in the page's language. The texts are
// in /static/i18n/rules/<lang>.json, one entry per section ({"h": heading, "items": [paragraphs]}); which
// sections a game shows, in which order, is said here (SECTIONS). A section's anchor is its key after the
// first dot: "europe.mega" is #mega, so the game page links a variant straight to its section.
import { h, gameTitle } from "./common.js";
import { t, lang } from "./i18n.js";
import { startPage } from "./account.js";
import { LESSONS, learnButton, savedName } from "./learn.js";

/** @type {Record<string, string[]>} */
export const SECTIONS = {
  "ttr-europe": [
    "europe.about",
    "europe.setup",
    "europe.turn",
    "europe.cards",
    "europe.claim",
    "europe.tunnels",
    "europe.ferries",
    "europe.stations",
    "europe.tickets",
    "europe.end",
    "europe.classic",
    "europe.1912",
    "europe.mega",
    "europe.big-cities",
    "europe.bonus",
  ],
  "ttr-new-york": ["ny.about", "ny.setup", "ny.turn", "ny.claim", "ny.tickets", "ny.end"],
  "trans-europa": [
    "trans-europa.about",
    "trans.setup",
    "trans.turn",
    "trans.round-end",
    "trans.scoring",
    "trans.end",
    "trans.special-cards",
  ],
  "trans-america": [
    "trans-america.about",
    "trans.setup",
    "trans.turn",
    "trans.round-end",
    "trans.scoring",
    "trans.end",
    "trans.special-cards",
  ],
};

/** @param {string} key */
export const anchor = (key) => key.slice(key.indexOf(".") + 1);

/**
 * The game's sections in a language: its own text, else English's (a language file that lacks a section).
 * @param {string} game
 * @param {Record<string, {h: string, items: string[]}>} texts
 * @param {Record<string, {h: string, items: string[]}>} english
 */
export function sections(game, texts, english) {
  return (SECTIONS[game] || []).map((key) => ({ key, id: anchor(key), ...(texts[key] || english[key]) }));
}

const game = typeof location === "undefined" ? "" : decodeURIComponent(location.pathname.split("/")[2] || "");
/** @type {Record<string, Record<string, {h: string, items: string[]}>>} */
const loaded = {};

async function texts(code) {
  if (!loaded[code]) {
    const r = await fetch(`/static/i18n/rules/${code}.json`);
    if (!r.ok) throw new Error(`no rules ${code}`);
    loaded[code] = await r.json();
  }
  return loaded[code];
}

function section(s) {
  return h(
    "section",
    { class: "panel rules-section", id: s.id, "aria-labelledby": `${s.id}-h` },
    h("h2", { id: `${s.id}-h` }, s.h),
    s.items.length > 1
      ? h(
          "ul",
          {},
          s.items.map((x) => h("li", {}, x)),
        )
      : h("p", {}, s.items[0]),
  );
}

function others() {
  return h(
    "nav",
    { class: "rules-games", "aria-label": t("rules.other_games") },
    Object.keys(SECTIONS).map((g) =>
      h("a", { class: "btn small", href: `/rules/${g}`, "aria-current": g === game ? "page" : null }, gameTitle(g, g)),
    ),
  );
}

async function render() {
  const main = document.getElementById("main");
  if (!(game in SECTIONS)) {
    document.title = t("rules.page_title_plain");
    main.replaceChildren(
      h("h1", {}, t("rules.page_title_plain")),
      h("p", { class: "error" }, t("rules.unknown")),
      others(),
    );
    return;
  }
  const name = gameTitle(game, game);
  document.title = t("rules.page_title", { game: name });
  let list;
  try {
    const english = await texts("en");
    list = sections(game, lang === "en" ? english : await texts(lang).catch(() => english), english);
  } catch {
    main.replaceChildren(h("h1", {}, name), h("p", { class: "error" }, t("rules.failed")));
    return;
  }
  const contents = h(
    "nav",
    { class: "rules-toc", "aria-label": t("rules.contents") },
    h(
      "ol",
      {},
      list.map((s) => h("li", {}, h("a", { href: `#${s.id}` }, s.h))),
    ),
  );
  main.replaceChildren(
    h(
      "div",
      { class: "rules-head" },
      h("h1", {}, t("rules.title", { game: name })),
      h("p", { class: "sub" }, t("rules.intro")),
      LESSONS.includes(game) ? learnRow() : null,
    ),
    others(),
    contents,
    ...list.map(section),
  );
  // the variant the game page links to: shown once the sections exist (the browser looked before they did)
  const target = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
  if (target) target.scrollIntoView();
}

// "Learn to play": a tutorial game of this game (learn.js)
function learnRow() {
  const error = h("span", { class: "error", role: "alert" });
  return h("div", { class: "row learn-row" }, learnButton(game, t("tut.learn_rules"), savedName, error), error);
}

if (typeof document !== "undefined" && document.getElementById("main")) {
  startPage(render);
}
