// Payments as the engine writes them ("3 red + 1 locomotive") and card names.
import { test } from "node:test";
import assert from "node:assert/strict";
import { parsePayment, cards, colorName } from "../../tracklayer/web/static/common.js";
import { speak } from "./catalogs.js";

test("a payment splits into colours and counts", () => {
  assert.deepEqual(parsePayment("3 red + 1 locomotive"), [
    ["red", 3],
    ["locomotive", 1],
  ]);
  assert.deepEqual(parsePayment(" 2  blue "), [["blue", 2]]);
  assert.deepEqual(parsePayment(""), []);
});

test("a part without a count is kept with a count of 0", () => {
  assert.deepEqual(parsePayment("locomotive + 2 red"), [
    ["locomotive", 0],
    ["red", 2],
  ]);
});

test("card and colour names are translated, unknown ones kept", () => {
  speak("de");
  assert.equal(colorName("black"), "schwarz");
  assert.equal(cards("red", 1), "1 rote Karte");
  assert.equal(colorName("sparkly"), "sparkly");
  assert.equal(cards("sparkly", 2), "2 sparkly");
});
