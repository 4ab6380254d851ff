// The clock's texts: remaining time and the lobby's label of a game's clock.
import { test } from "node:test";
import assert from "node:assert/strict";
import { duration, clockLabel, defaultPreset, PRESETS } from "../../tracklayer/web/static/clock.js";
import { speak } from "./catalogs.js";

test("time left is shown as m:ss, and as h:mm h from an hour on, rounded up", () => {
  assert.equal(duration(0), "0:00");
  assert.equal(duration(-5), "0:00");
  assert.equal(duration(9.1), "0:10");
  assert.equal(duration(59.2), "1:00");
  assert.equal(duration(3599), "59:59");
  assert.equal(duration(3600), "1:00 h");
  assert.equal(duration(3725), "1:02 h");
  assert.equal(duration(72 * 3600), "72:00 h");
});

test("a game's clock label: its preset's name, a custom time, or nothing", () => {
  speak("en");
  assert.equal(clockLabel(null), "");
  assert.equal(clockLabel({ turn_seconds: 90 }), "1:30 a turn");
  speak("de");
  assert.equal(clockLabel({ turn_seconds: 90 }), "1:30 pro Zug");
  for (const preset of PRESETS.filter(Boolean)) {
    const label = clockLabel({ preset });
    assert.ok(label && !label.startsWith("clock."), `preset ${preset} has a German name`);
  }
});

test("a new game has a clock when two or more people play it on their own screens", () => {
  const seats = (...kinds) => kinds.map((kind) => ({ kind }));
  assert.equal(defaultPreset(seats("human", "bot", "bot"), false), "");
  assert.equal(defaultPreset(seats("human", "human"), false), "standard");
  assert.equal(defaultPreset(seats("human", "open", "bot"), false), "standard");
  assert.equal(defaultPreset(seats("human", "human", "human"), true), "", "a hot-seat table shares one screen");
  assert.equal(defaultPreset(seats("bot", "bot"), false), "");
});
