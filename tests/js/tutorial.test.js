// The tutorial's guide (tutorial.js): which step a position shows, from the view, the legal moves and the seat's
// own moves in the log; the scripts' steps all have their texts in every language.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { facts, stepFor, familyOf } from "../../tracklayer/web/static/tutorial.js";
import { catalog } from "./catalogs.js";

const script = (family) =>
  JSON.parse(readFileSync(new URL(`../../tracklayer/web/static/tutorial/${family}.json`, import.meta.url), "utf8"));
const TTR = script("ttr");
const TRANS = script("trans");

const ttrBoard = {
  family: "ttr",
  loco: "locomotive",
  routes: [
    { label: "Paris-Zurich", tunnel: true },
    { label: "Paris-Bruxelles", tunnel: false },
  ],
};
const transBoard = {
  family: "trans",
  edges: [
    { text: "1,0-2,0", cost: 1 },
    { text: "2,0-3,0", cost: 2 },
  ],
};

/** The step shown for a Ticket to Ride position: the seat's moves so far (seat 0), and the legal moves now. */
function ttrStep(mine, legal, view = {}, acked = []) {
  const log = mine.map((move) => ({ player: 0, move }));
  const f = facts({ log, ...view }, legal, 0, ttrBoard, !!view.over);
  const place = stepFor(TTR, f, new Set(acked));
  return place && `${place.step.id}:${place.mode}`;
}

const MAIN = ["draw deck", "draw red", "draw locomotive", "tickets"];

test("Ticket to Ride: the lesson goes keep, draw, second card, face-up locomotive, claim", () => {
  assert.equal(ttrStep([], ["keep EU1 EU2", "keep EU1 EU2 EU3"]), "keep:do");
  assert.equal(ttrStep(["keep EU1 EU2"], []), "draw:wait"); // the bot chooses its tickets
  assert.equal(ttrStep(["keep EU1 EU2"], MAIN), "draw:do");
  assert.equal(ttrStep(["keep EU1 EU2", "draw red"], ["draw deck", "draw red"]), "second:do");
  const drew = ["keep EU1 EU2", "draw red", "draw deck"];
  assert.equal(ttrStep(drew, MAIN), "loco:do");
  assert.equal(ttrStep(drew, ["draw deck", "draw red", "tickets"]), "claim:pending"); // no locomotive face up
  assert.equal(ttrStep(drew, MAIN, {}, ["loco"]), "claim:pending"); // "Got it"
  assert.equal(ttrStep([...drew, "draw locomotive"], MAIN), "claim:pending"); // taken: the step is done
  assert.equal(ttrStep([...drew, "draw locomotive"], [...MAIN, "claim Paris-Bruxelles: 2 red"]), "claim:do");
});

test("Ticket to Ride: a face-up locomotive taken first ends the drawing step", () => {
  assert.equal(ttrStep(["keep EU1 EU2", "draw locomotive"], MAIN), "claim:pending");
});

test("Ticket to Ride: tunnels, stations, the final round and the end come as they apply", () => {
  const base = ["keep EU1 EU2", "draw red", "draw deck", "draw locomotive", "claim Paris-Bruxelles: 2 red"];
  assert.equal(ttrStep(base, MAIN), "tickets:do"); // no tunnel nor station within reach: more tickets
  assert.equal(ttrStep(base, [...MAIN, "claim Paris-Zurich: 2 red"]), "tunnel:do");
  assert.equal(ttrStep(base, [...MAIN, "station Paris: 1 red"]), "station:do");
  const tunnel = [...base, "claim Paris-Zurich: 2 red"];
  assert.equal(ttrStep(tunnel, ["pay: 1 red", "decline"]), "tunnel_pay:do");
  assert.equal(ttrStep(tunnel, MAIN, {}, ["tickets"]), "final:pending");
  assert.equal(ttrStep(tunnel, [], {}, ["tickets"]), "final:wait");
  assert.equal(ttrStep(tunnel, MAIN, { final_round: true }, ["tickets"]), "final:do");
  assert.equal(ttrStep(tunnel, [], { over: true }, ["tickets"]), "station:recap"); // never within reach
  assert.equal(ttrStep(tunnel, [], { over: true }, ["tickets", "station"]), "over:do");
  assert.equal(ttrStep(tunnel, [], { over: true }, ["tickets", "station", "over"]), null); // the lesson is over
});

test("Ticket to Ride: at the end, the lessons the game never reached are told, each once", () => {
  const plain = ["keep EU1 EU2", "draw red", "draw deck", "claim Paris-Bruxelles: 2 red"];
  const told = [];
  for (;;) {
    const step = ttrStep(plain, [], { over: true }, told);
    if (!step) break;
    told.push(step.split(":")[0]);
    if (told.length > 20) assert.fail(told.join(" "));
  }
  // no face-up locomotive taken, no tunnel, no station, no ticket drawn: each told, then the end
  assert.deepEqual(told, ["loco", "tunnel", "station", "tickets", "over"]);
  const all = [...plain, "draw locomotive", "claim Paris-Zurich: 2 red", "station Paris: 1 red", "tickets"];
  assert.equal(ttrStep(all, [], { over: true }), "over:do"); // all met during the game: nothing to tell
  assert.equal(ttrStep(plain, MAIN, { final_round: true }, ["tickets"]), "loco:do"); // not before the end
});

test("the other player's moves do not count as the learner's", () => {
  const f = facts({ log: [{ player: 1, move: "keep EU3 EU4" }] }, ["keep EU1 EU2"], 0, ttrBoard, false);
  assert.equal(f.kept, 0);
  assert.equal(stepFor(TTR, f, new Set()).step.id, "keep");
});

function transStep(mine, legal, view = {}, acked = []) {
  const log = mine.map((move) => ({ player: 0, move }));
  const f = facts({ log, rounds: [], ...view }, legal, 0, transBoard, !!view.over);
  const place = stepFor(TRANS, f, new Set(acked));
  return place && `${place.step.id}:${place.mode}`;
}

test("Trans: start marker, two rails a turn, double lines, connecting the cities, the round's end", () => {
  assert.equal(transStep([], ["start 1,0", "start 2,0"]), "start:do");
  assert.equal(transStep(["start 1,0"], []), "rail:wait");
  assert.equal(transStep(["start 1,0"], ["rail 1,0-2,0", "rail 2,0-3,0"]), "rail:do");
  assert.equal(transStep(["start 1,0", "rail 1,0-2,0"], ["rail 2,0-3,0", "end"]), "second:do");
  const turn = ["start 1,0", "rail 0,0-1,0", "rail 1,0-2,0"];
  assert.equal(transStep(turn, ["rail 2,0-3,0"]), "double:do"); // a double line within reach
  assert.equal(transStep(turn, ["rail 4,0-5,0"]), "connect:do");
  assert.equal(transStep(["start 1,0", "rail 2,0-3,0"], ["rail 4,0-5,0"]), "connect:do"); // a double: turn over
  assert.equal(transStep(turn, ["start 4,4"], { rounds: [{}] }, ["connect"]), "round:do");
  assert.equal(transStep([...turn, "start 4,4"], ["rail 4,0-5,0"], { rounds: [{}] }, ["double"]), null);
  // a game over without a double line taken: the double lines are told before the end
  assert.equal(transStep([...turn, "start 4,4"], [], { rounds: [{}], over: true }, ["round"]), "double:recap");
});

test("every step of both scripts has its texts in every language, with the same placeholders", () => {
  const en = catalog("en");
  assert.equal(familyOf("trans-america"), "trans");
  assert.equal(familyOf("ttr-new-york"), "ttr");
  for (const lang of ["en", "de", "it", "fr", "nl"]) {
    const c = catalog(lang);
    for (const s of [TTR, TRANS])
      for (const step of s.steps) {
        const parts = ["title", "text", ...(step.pending ? ["pending"] : []), ...(step.recap ? ["recap"] : [])];
        for (const part of parts) {
          const key = `tut.${s.family}.${step.id}.${part}`;
          assert.ok(c[key], `${lang}: ${key}`);
          const names = (m) => [...m.matchAll(/\{(\w+)\}/g)].map((x) => x[1]).sort();
          assert.deepEqual(names(c[key]), names(en[key]), `${lang}: ${key}`);
        }
      }
  }
});
