// @ts-check
// Shared by the lobby and the game page: colours, symbols, small DOM helpers.
import { t } from "./i18n.js";

// Player colours kept apart from the card colours (red, orange, yellow, green, blue, pink, black, white, gray)
// so that a claimed route never looks like a free one: cyan and lime sit between the card hues and are light,
// violet, wine and brown are darker than any card of a similar hue, lavender is a pale blue-violet. Colour-blind
// players (for whom red/green and similar lightness merge) tell players apart by the symbol on every car, rail
// and token, and by the lightness steps: light cyan / lime / lavender carry a dark symbol, the dark ones a white one.
export const PLAYER_COLORS = ["#12b4cc", "#6b3fc0", "#a5cf1f", "#8c1c4c", "#c3b0f5", "#6b4218"];
export const PLAYER_SYMBOLS = ["●", "▲", "■", "◆", "★", "✚"];
export const PLAYER_COLOR_NAMES = ["cyan", "violet", "lime", "wine", "lavender", "brown"];
// The symbol's colour on a player's colour: dark on the light ones.
export const PLAYER_INK = ["#062a30", "#fff", "#1d2a00", "#fff", "#241650", "#fff"];
export const CARD_LETTER = {
  pink: "P",
  white: "W",
  blue: "B",
  yellow: "Y",
  orange: "O",
  black: "K",
  red: "R",
  green: "G",
  locomotive: "★",
  taxi: "★",
  gray: "",
  brown: "N",
  turquoise: "T",
};
export const CARD_FILL = {
  pink: "#e77fb3",
  white: "#f3efe3",
  blue: "#2f72cf",
  yellow: "#f0cb24",
  orange: "#ef8a26",
  black: "#2a2a2a",
  red: "#d2302b",
  green: "#2f9345",
  gray: "#a9a49a",
  locomotive: "#777",
  taxi: "#f6c700",
  brown: "#8b5a2b",
  turquoise: "#25b6b0",
};
export const DARK_TEXT = new Set(["white", "yellow", "taxi", "gray"]);

/** @typedef {Node | string | number | boolean | null | undefined | ChildList} Child */
/** @typedef {Array<Child>} ChildList */

/**
 * The children's nodes and texts in order, nested lists flattened (a panel passes `rows.map(...)` inline).
 * @param {Child} child
 * @param {Array<Exclude<Child, ChildList>>} [out]
 */
function flatten(child, out = []) {
  if (Array.isArray(child)) for (const c of child) flatten(c, out);
  else out.push(child);
  return out;
}

/**
 * An HTML element: `on…` attributes are listeners, `text` the text, `true` an empty attribute, and
 * null, undefined or false leave an attribute or child out (so optional parts read inline).
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, any> | null} [attrs]
 * @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") el.className = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "text") el.textContent = v;
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of flatten(children)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

const SVGNS = "http://www.w3.org/2000/svg";
/**
 * An SVG element, with the same attribute conventions as `h`.
 * @template {keyof SVGElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, any> | null} [attrs]
 * @param {...Child} children
 * @returns {SVGElementTagNameMap[K]}
 */
export function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "text") el.textContent = v;
    else el.setAttribute(k, v);
  }
  for (const c of flatten(children)) if (c) el.append(c instanceof Node ? c : String(c));
  return el;
}

export function token(seat, extra = "") {
  return h(
    "span",
    {
      class: `token ${extra}`,
      style: `background:${PLAYER_COLORS[seat % 6]};color:${PLAYER_INK[seat % 6]}`,
      title: `${t(`player_color.${PLAYER_COLOR_NAMES[seat % 6]}`)} ${PLAYER_SYMBOLS[seat % 6]}`,
      "aria-hidden": "true",
    },
    PLAYER_SYMBOLS[seat % 6],
  );
}

export function chip(color, n) {
  const dark = DARK_TEXT.has(color);
  return h(
    "span",
    {
      class: `chip c-${color}`,
      style: dark ? "color:#222;text-shadow:none" : "",
      title: n === "" ? colorName(color) : cards(color, n),
    },
    `${n}${CARD_LETTER[color] ?? color[0].toUpperCase()}`,
  );
}

// "3 red + 1 locomotive" -> [["red", 3], ["locomotive", 1]]
export function parsePayment(text) {
  return text
    .split("+")
    .map((t) => t.trim())
    .filter(Boolean)
    .map((t) => {
      const m = t.match(/^(\d+)\s+(.+)$/);
      return m ? [m[2].trim(), Number(m[1])] : [t, 0];
    });
}

export function paymentChips(text) {
  return h(
    "span",
    { class: "row", style: "gap:4px" },
    parsePayment(text).map(([c, n]) => chip(c, n)),
  );
}

// Every token this browser has seen, by game id and then by seat number, "hotseat", "spectator" or
// "creator". Tokens are added, never replaced by another game's or seat's (opening one link must not
// lose the others: the "My games" page lists them all).
export const store = {
  mine() {
    try {
      return JSON.parse(localStorage.getItem("tracklayer.games") || "{}");
    } catch {
      return {};
    }
  },
  remember(gameId, entry) {
    const all = store.mine();
    const old = all[gameId] || {};
    all[gameId] = { ...old, ...entry, tokens: { ...(old.tokens || {}), ...(entry.tokens || {}) }, at: Date.now() };
    try {
      localStorage.setItem("tracklayer.games", JSON.stringify(all));
    } catch {
      /* storage full or blocked */
    }
  },
};

export function logo() {
  const img = h("img", { src: "/static/favicon.svg", alt: "", width: 34, height: 34 });
  return h(
    "a",
    { class: "brand", href: "/", "aria-label": "tracklayer" },
    img,
    h("span", {}, "tracklayer ", h("small", {}, t("brand.tagline"))),
  );
}

// Names of games, variants and cards in the page's language (the server's English title if no catalog has one).
export function gameTitle(game, fallback) {
  return t(`game.${game}`, {}, fallback || game);
}
/**
 * The top bar's game name: the whole title (and a variant other than the usual one), and on a phone
 * (style.css, max-width 520px) the map's short name instead: a map variant's own name ("Mega Europe"),
 * else the game's ("Europe", "Trans Europa"), which may wrap to a second line but is never cut.
 * @param {string} game
 * @param {string} fallback the board's own name, for a game the catalogs lack
 * @param {string | null | undefined} variant
 */
export function gameNamePill(game, fallback, variant) {
  const usual = !variant || variant === "standard" || variant === "classic";
  const title = gameTitle(game, fallback) + (usual ? "" : ` · ${variantTitle(game, variant, variant)}`);
  const mapVariant = usual ? "" : t(`variant.${game}.${variant}`, {}, "");
  const short = mapVariant || t(`game_short.${game}`, {}, gameTitle(game, fallback));
  return h(
    "span",
    { class: "pill game-name", title },
    h("span", { class: "game-long" }, title),
    h("span", { class: "game-short" }, short),
  );
}
/**
 * The link to a game's rules page (rules.js), at the variant's section, in a new tab: the game stays open.
 * @param {string} game
 * @param {string | null | undefined} variant
 */
export function rulesLink(game, variant) {
  const name = gameTitle(game, game);
  return h(
    "a",
    {
      class: "pill rules-link",
      id: "rules-link",
      href: `/rules/${encodeURIComponent(game)}${variant ? `#${encodeURIComponent(variant)}` : ""}`,
      target: "_blank",
      rel: "noopener",
      title: t("rules.link_title", { game: name }),
      "aria-label": t("rules.link_title", { game: name }),
    },
    icon("book", 15),
    h("span", {}, t("rules.link")),
  );
}
export function variantTitle(game, variant, fallback) {
  return t(`variant.${game}.${variant}`, {}, t(`variant.${variant}`, {}, fallback || variant));
}
export function colorName(color) {
  return t(`color.${color}`, {}, color);
}
export function cards(color, count) {
  return t(`cards.${color}`, { count }, `${count} ${color}`);
}

// Small line icons (no emoji font needed).
const ICONS = {
  wagon: "M2 4h12v6H2zM4 12.5a1.3 1.3 0 1 0 .01 0M12 12.5a1.3 1.3 0 1 0 .01 0M1 10.5h14",
  cards: "M3 3h7v10H3zM6 2l7 1.2-1.6 10",
  ticket: "M1.5 4.5h13v2a1.5 1.5 0 0 0 0 3v2h-13v-2a1.5 1.5 0 0 0 0-3zM10 4.5v7",
  station: "M2 14V7l6-5 6 5v7zM6 14v-4h4v4",
  bot: "M3 5h10v8H3zM8 2v3M6 8.5h.01M10 8.5h.01M6 11h4",
  person: "M8 2.5a2.5 2.5 0 1 0 .01 0M3 14c0-3 2.2-5 5-5s5 2 5 5z",
  eye: "M1 8s2.5-4.5 7-4.5S15 8 15 8s-2.5 4.5-7 4.5S1 8 1 8zM8 6a2 2 0 1 0 .01 0",
  swap: "M2 5h11l-3-3M14 11H3l3 3",
  trophy: "M4 2h8v4a4 4 0 0 1-8 0zM4 3H1.5v1.5A2.5 2.5 0 0 0 4 7M12 3h2.5v1.5A2.5 2.5 0 0 1 12 7M8 10v3M5 14h6",
  flag: "M3 15V2M3 2h9l-2 3 2 3H3",
  deck: "M3 2h10v12H3zM5.5 5h5M5.5 8h5M5.5 11h5",
  check: "M2.5 8.5l3.5 3.5 7.5-8",
  cross: "M3 3l10 10M13 3L3 13",
  calc: "M3.5 1.5h9v13h-9zM5.5 3.5h5v2.5h-5zM5.5 8.5h.01M8 8.5h.01M10.5 8.5h.01M5.5 11h.01M8 11h.01M10.5 11h.01",
  book: "M8 4C6.5 2.8 4 2.5 1.5 3v10c2.5-.5 5-.2 6.5 1 1.5-1.2 4-1.5 6.5-1V3C12 2.5 9.5 2.8 8 4zM8 4v10",
  sound: "M2 6h3l4-3.5v11L5 10H2zM11.5 5.5a3.5 3.5 0 0 1 0 5M13.5 3.5a6.5 6.5 0 0 1 0 9",
  mute: "M2 6h3l4-3.5v11L5 10H2zM11 6l4 4M15 6l-4 4",
};
export function icon(name, size = 14) {
  return s(
    "svg",
    { viewBox: "0 0 16 16", width: size, height: size, class: "icon", "aria-hidden": "true" },
    s("path", {
      d: ICONS[name],
      fill: "none",
      stroke: "currentColor",
      "stroke-width": 1.6,
      "stroke-linecap": "round",
      "stroke-linejoin": "round",
    }),
  );
}
