// The rules page (rules.js): every section a game shows exists in every language with as many paragraphs
// as in English, each section has its own anchor, and every variant of the map data has one to link to.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { SECTIONS, anchor, sections } from "../../tracklayer/web/static/rules.js";
import { rules } from "./catalogs.js";

const LANGS = ["en", "de", "fr", "it", "nl"];

test("every language has every section of every game, paragraph for paragraph", () => {
  const en = rules("en");
  for (const lang of LANGS) {
    const texts = rules(lang);
    for (const [game, keys] of Object.entries(SECTIONS))
      for (const key of keys) {
        assert.ok(texts[key], `${lang}: ${game} lacks ${key}`);
        assert.equal(texts[key].items.length, en[key].items.length, `${lang}: ${key}`);
        assert.ok(texts[key].h && texts[key].items.every((x) => x.trim()), `${lang}: ${key} is empty`);
      }
    assert.deepEqual(Object.keys(texts).sort(), Object.keys(en).sort(), `${lang}: sections nobody shows`);
  }
});

test("anchors are unique per game and the variants have theirs", () => {
  for (const keys of Object.values(SECTIONS)) assert.equal(new Set(keys.map(anchor)).size, keys.length);
  const data = (name) =>
    JSON.parse(readFileSync(new URL(`../../tracklayer/maps/data/${name}.json`, import.meta.url), "utf8"));
  for (const variant of Object.keys(data("ttr-europe").variants))
    assert.ok(SECTIONS["ttr-europe"].map(anchor).includes(variant === "europe" ? "classic" : variant), variant);
  assert.ok(SECTIONS["trans-europa"].map(anchor).includes("special-cards"));
});

test("a language without a section shows English's", () => {
  const en = rules("en");
  const out = sections("ttr-new-york", {}, en);
  assert.equal(out[0].id, "about");
  assert.equal(out[0].h, en["ny.about"].h);
});
