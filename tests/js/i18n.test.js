// Message formatting: placeholders, plural forms, numbers and lists in the page's language.
import { test } from "node:test";
import assert from "node:assert/strict";
import { format, list, t, has, useCatalogs } from "../../tracklayer/web/static/i18n.js";
import { catalog, speak } from "./catalogs.js";

test("placeholders are filled and numbers formatted in the language", () => {
  speak("en");
  assert.equal(format("{name} scores {n}", { name: "Ann", n: 12345.5 }), "Ann scores 12,345.5");
  speak("de");
  assert.equal(format("{name} scores {n}", { name: "Ann", n: 12345.5 }), "Ann scores 12.345,5");
  assert.equal(format("{missing}!", {}), "!");
});

test("plural forms follow the language's rules, with exact matches first", () => {
  speak("en");
  const msg = "{count, plural, =0 {no tickets} one {# ticket} other {# tickets}}";
  assert.equal(format(msg, { count: 0 }), "no tickets");
  assert.equal(format(msg, { count: 1 }), "1 ticket");
  assert.equal(format(msg, { count: 1200 }), "1,200 tickets");
  assert.equal(format("{n, plural, one {# {what}} other {# {what}s}}", { n: 2, what: "card" }), "2 cards");
});

test("an unbalanced brace is shown as written rather than dropped", () => {
  speak("en");
  assert.equal(format("50% {off", {}), "50% {off");
});

test("a key missing in a catalog falls back to English, then to the fallback, then to the key", () => {
  useCatalogs("de", { "only.de": "nur deutsch" }, { "only.en": "English only" });
  assert.equal(t("only.de"), "nur deutsch");
  assert.equal(t("only.en"), "English only");
  assert.equal(t("nowhere", {}, "server title"), "server title");
  assert.equal(t("nowhere"), "nowhere");
  assert.ok(has("only.en"));
  assert.ok(!has("nowhere"));
});

test("lists are joined the language's way", () => {
  speak("en");
  assert.equal(list(["Ann", "Bob", "Cy"]), "Ann, Bob, and Cy");
  speak("de");
  assert.equal(list(["Ann", "Bob", "Cy"]), "Ann, Bob und Cy");
  speak("fr");
  assert.equal(list(["Ann", "Bob"], "disjunction"), "Ann ou Bob");
});

test("the winners line agrees in number with the winners", () => {
  speak("de");
  assert.equal(t("final.winners", { count: 1, names: "Ann" }), "Ann gewinnt!");
  assert.equal(t("final.winners", { count: 2, names: list(["Ann", "Bob"]) }), "Ann und Bob gewinnen!");
});

test("every catalog has the English catalog's keys, and no placeholder English does not fill", () => {
  const en = catalog("en");
  // "{name}" and "{count, plural, ...}" are placeholders; "one {...}" is a plural form's text, not one
  const names = (msg) =>
    new Set([...msg.matchAll(/(?<!(?:zero|one|two|few|many|other|=\d+)\s*)\{\s*(\w+)\s*(?=[},])/g)].map((m) => m[1]));
  for (const lang of ["de", "it", "fr", "nl"]) {
    const other = catalog(lang);
    for (const [key, msg] of Object.entries(en)) {
      assert.ok(key in other, `${lang}.json lacks ${key}`);
      const known = names(msg);
      for (const name of names(other[key])) assert.ok(known.has(name), `${lang}.json ${key}: unknown {${name}}`);
    }
  }
});
