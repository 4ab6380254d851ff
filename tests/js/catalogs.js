// The real message catalogs, read from disk, for tests that check texts in a language.
import { readFileSync } from "node:fs";
import { useCatalogs } from "../../tracklayer/web/static/i18n.js";

const dir = new URL("../../tracklayer/web/static/i18n/", import.meta.url);

/** @param {string} lang */
export function catalog(lang) {
  return JSON.parse(readFileSync(new URL(`${lang}.json`, dir), "utf8"));
}

/** Speak `lang` with its shipped catalog (English filling gaps), as the page does after loading it. */
export function speak(lang) {
  useCatalogs(lang, catalog(lang), catalog("en"));
}

/** The rules page's texts in `lang` (rules.js): section key → {h, items}. */
export function rules(lang) {
  return JSON.parse(readFileSync(new URL(`rules/${lang}.json`, dir), "utf8"));
}
