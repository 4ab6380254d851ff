// @ts-check
// Languages: message catalogs in /static/i18n/<lang>.json (flat keys, ICU-like messages) and t(key, params).
// A message is plain text with {name} placeholders and plural forms chosen by Intl.PluralRules:
//   "{count, plural, one {# ticket} other {# tickets}}"   (=0 {...} matches an exact number, # is the number)
// The language comes from localStorage (the picker), else navigator.languages, else English.
// A key missing in a catalog falls back to English, then to the given fallback (e.g. a server-side title).
export const LANGS = { en: "English", de: "Deutsch", it: "Italiano", fr: "Français", nl: "Nederlands" };
const STORE = "tracklayer.lang";

export let lang = "en";
/** @type {Record<string, string>} */
let messages = {};
/** @type {Record<string, string>} */
let english = {};
let plural = new Intl.PluralRules("en");
let number = new Intl.NumberFormat("en");
const listeners = [];

export function detect() {
  try {
    const saved = localStorage.getItem(STORE);
    if (saved && saved in LANGS) return saved;
  } catch {
    /* storage blocked: ask the browser */
  }
  for (const tag of navigator.languages || [navigator.language || "en"]) {
    const primary = String(tag).toLowerCase().split("-")[0];
    if (primary in LANGS) return primary;
  }
  return "en";
}

async function load(code) {
  const r = await fetch(`/static/i18n/${code}.json`);
  if (!r.ok) throw new Error(`no catalog ${code}`);
  return r.json();
}

export async function init() {
  try {
    english = await load("en").catch(() => ({})); // without catalogs the page still works (it shows keys)
    await use(detect());
  } finally {
    document.documentElement.classList.remove("i18n-loading"); // the static text is shown translated, never flashes English
  }
}

async function use(code) {
  useCatalogs(code, code === "en" ? english : await load(code).catch(() => english), english);
  document.documentElement.lang = lang;
  translatePage();
}

/**
 * Speak `code` with these catalogs: `catalog` for the language, `englishCatalog` for any key it lacks.
 * The pages load catalogs over HTTP (`init`, `setLang`); the unit tests (tests/js) read them from disk.
 * @param {string} code
 * @param {Record<string, string>} catalog
 * @param {Record<string, string>} englishCatalog
 */
export function useCatalogs(code, catalog, englishCatalog) {
  english = englishCatalog;
  messages = code === "en" ? english : catalog;
  lang = messages === english ? "en" : code;
  plural = new Intl.PluralRules(lang);
  number = new Intl.NumberFormat(lang);
}

export async function setLang(code) {
  if (!(code in LANGS)) return;
  try {
    localStorage.setItem(STORE, code);
  } catch {
    /* the choice lasts this page only */
  }
  await use(code);
  for (const fn of listeners) fn(lang);
}

export function onLangChange(fn) {
  listeners.push(fn);
}

export function has(key) {
  return key in messages || key in english;
}

// The message for key with params filled in; fallback (if given) when no catalog has the key.
export function t(key, params = {}, fallback) {
  const msg = messages[key] ?? english[key] ?? fallback ?? key;
  return format(msg, params);
}

function fmtValue(v) {
  return typeof v === "number" ? number.format(v) : String(v ?? "");
}

// Index of the "}" that closes the "{" at i.
function closing(msg, i) {
  let depth = 0;
  for (let j = i; j < msg.length; j++) {
    if (msg[j] === "{") depth++;
    else if (msg[j] === "}" && --depth === 0) return j;
  }
  return -1;
}

export function format(msg, params = {}, hash = null) {
  let out = "";
  let i = 0;
  while (i < msg.length) {
    const c = msg[i];
    if (c === "#" && hash !== null) {
      out += number.format(hash);
      i++;
      continue;
    }
    if (c !== "{") {
      out += c;
      i++;
      continue;
    }
    const end = closing(msg, i);
    if (end < 0) {
      out += msg.slice(i);
      break;
    }
    const inner = msg.slice(i + 1, end);
    const m = inner.match(/^\s*(\w+)\s*,\s*plural\s*,([\s\S]*)$/);
    if (m) out += pluralForm(Number(params[m[1]] ?? 0), m[2], params);
    else out += fmtValue(params[inner.trim()]);
    i = end + 1;
  }
  return out;
}

function pluralForm(n, body, params) {
  const forms = {};
  let i = 0;
  while (i < body.length) {
    const open = body.indexOf("{", i);
    if (open < 0) break;
    const sel = body.slice(i, open).trim();
    const end = closing(body, open);
    if (end < 0) break;
    forms[sel] = body.slice(open + 1, end);
    i = end + 1;
  }
  const text = forms[`=${n}`] ?? forms[plural.select(n)] ?? forms.other ?? "";
  return format(text, params, n);
}

// Elements of the static HTML: data-i18n="key" sets the text, data-i18n-attr="attr:key,attr:key" attributes.
export function translatePage(root = document) {
  root.querySelectorAll("[data-i18n]").forEach((/** @type {HTMLElement} */ el) => {
    el.textContent = t(el.dataset.i18n);
  });
  root.querySelectorAll("[data-i18n-attr]").forEach((/** @type {HTMLElement} */ el) => {
    for (const pair of el.dataset.i18nAttr.split(",")) {
      const [attr, key] = pair.split(":");
      el.setAttribute(attr.trim(), t(key.trim()));
    }
  });
}

// The language picker: a labelled <select> of the languages, each in its own language, in a box that also
// holds the language's code ("DE"). A phone's top bar shows only the code in a 44 px circle with the select
// laid invisibly over it (a tap opens the system's list of languages); wider screens show the select itself.
export function picker() {
  const select = document.createElement("select");
  select.id = "lang";
  select.className = "lang";
  select.setAttribute("aria-label", t("lang.label"));
  for (const [code, label] of Object.entries(LANGS)) {
    const o = document.createElement("option");
    o.value = code;
    o.lang = code;
    o.textContent = label;
    o.selected = code === lang;
    select.append(o);
  }
  const code = document.createElement("span");
  code.className = "lang-code";
  code.setAttribute("aria-hidden", "true");
  code.textContent = lang.toUpperCase();
  const box = document.createElement("span");
  box.className = "lang-box";
  box.append(code, select);
  select.addEventListener("change", () => setLang(select.value));
  onLangChange(() => {
    select.value = lang;
    code.textContent = lang.toUpperCase();
    select.setAttribute("aria-label", t("lang.label"));
  });
  return box;
}

/**
 * A list joined the way the language joins lists ("Ann, Bob and Cleo", "Ann, Bob und Cleo").
 * @param {unknown[]} items
 * @param {Intl.ListFormatType} [type]
 * @returns {string}
 */
export function list(items, type = "conjunction") {
  try {
    return new Intl.ListFormat(lang, { style: "long", type }).format(items.map(String));
  } catch {
    return items.join(", ");
  }
}
