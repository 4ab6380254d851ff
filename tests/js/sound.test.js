// Which sound effects an update of the game page calls for.
import { test } from "node:test";
import assert from "node:assert/strict";
import { soundsFor } from "../../tracklayer/web/static/sound.js";

/** A Ticket to Ride view of seat 0 in a game of Ann (seat 0) and Bob (seat 1). */
function ttr(over = {}) {
  return {
    game: "ttr-europe",
    current_player: 1,
    players: [{ name: "Ann" }, { name: "Bob" }],
    route_owner: [null, 1, null, null],
    stations: {},
    hand: { red: 2, blue: 1, locomotive: 0 },
    tickets: [
      { id: "EU1", completed: false },
      { id: "EU2", completed: false },
    ],
    log: [],
    ...over,
  };
}

test("my turn begins: a chime, once", () => {
  const before = ttr({ current_player: 1 });
  const after = ttr({ current_player: 0 });
  assert.deepEqual(soundsFor(before, after, 0), ["turn"]);
  // the rest of my turn (a second card to draw) is not a new turn
  assert.deepEqual(soundsFor(after, ttr({ current_player: 0, phase: "second_draw" }), 0), []);
});

test("an opponent's claim that hands me the turn: the clack, then the chime", () => {
  const before = ttr({ current_player: 1 });
  const after = ttr({ current_player: 0, route_owner: [1, 1, null, null] });
  assert.deepEqual(soundsFor(before, after, 0), ["claim", "turn"]);
  // a station is a piece placed on the board too
  assert.deepEqual(soundsFor(before, ttr({ stations: { Berlin: 1 } }), 0), ["claim"]);
});

test("a card I draw", () => {
  const before = ttr({ current_player: 0 });
  const after = ttr({ current_player: 0, hand: { red: 2, blue: 2, locomotive: 0 } });
  assert.deepEqual(soundsFor(before, after, 0), ["draw"]);
  // my own claim spends cards: the clack, no draw
  const claimed = ttr({ current_player: 1, route_owner: [0, 1, null, null], hand: { red: 0, blue: 1, locomotive: 0 } });
  assert.deepEqual(soundsFor(before, claimed, 0), ["claim"]);
});

test("a ticket completed by my claim", () => {
  const before = ttr({ current_player: 0 });
  const after = ttr({
    current_player: 1,
    route_owner: [0, 1, null, null],
    hand: { red: 0, blue: 1, locomotive: 0 },
    tickets: [
      { id: "EU1", completed: true },
      { id: "EU2", completed: false },
    ],
  });
  assert.deepEqual(soundsFor(before, after, 0), ["claim", "ticket"]);
});

test("a rail placed in Trans Europa", () => {
  const trans = (rails, current) => ({
    game: "trans-europa",
    current_player: current,
    players: [{ name: "Ann" }, { name: "Bob" }],
    rails,
    log: [],
  });
  assert.deepEqual(soundsFor(trans([], 1), trans([{ player: 1 }], 1), 0), ["claim"]);
  assert.deepEqual(soundsFor(trans([{ player: 1 }], 1), trans([{ player: 1 }, { player: 1 }], 0), 0), [
    "claim",
    "turn",
  ]);
  // a new round clears the board: nothing placed
  assert.deepEqual(soundsFor(trans([{ player: 1 }], 1), trans([], 1), 0), []);
});

test("the end of the game: a fanfare for a winner, a plain chord otherwise, once", () => {
  const before = ttr({ current_player: 1 });
  const wonBy = (name) =>
    ttr({ current_player: null, route_owner: [1, 1, null, null], result: { winners: [name], players: [] } });
  assert.deepEqual(soundsFor(before, wonBy("Ann"), 0), ["win"]);
  assert.deepEqual(soundsFor(before, wonBy("Bob"), 0), ["end"]);
  assert.deepEqual(soundsFor(before, wonBy("Ann"), null), ["end"], "a spectator hears the plain chord");
  assert.deepEqual(soundsFor(wonBy("Ann"), wonBy("Ann"), 0), [], "an ended game stays quiet");
  // Trans: a round's result while rounds remain is not the end
  const round = ttr({ current_player: 0, result: { winners: ["Ann"], players: [], final: false } });
  assert.deepEqual(soundsFor(before, round, 0), ["turn"]);
});

test("a reconnect that sends the same state again: nothing", () => {
  const v = ttr({ current_player: 0, route_owner: [0, 1, null, null] });
  assert.deepEqual(soundsFor(v, structuredClone(v), 0), []);
  assert.deepEqual(soundsFor(null, v, 0), [], "the page's first state");
});

test("a spectator hears claims, not turns nor anyone's cards", () => {
  const before = ttr({ current_player: 0, hand: undefined, tickets: undefined });
  assert.deepEqual(soundsFor(before, ttr({ current_player: 1, hand: undefined, tickets: undefined }), null), []);
  const claimed = ttr({ current_player: 1, route_owner: [0, 1, null, null], hand: undefined, tickets: undefined });
  assert.deepEqual(soundsFor(before, claimed, null), ["claim"]);
});
