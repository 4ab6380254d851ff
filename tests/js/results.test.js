// The shared scores component: which columns a result has, what each cell says, the standings and the
// winners' line, for the engine's results and the score API's.
import { test } from "node:test";
import assert from "node:assert/strict";
import { columnsOf, isFinal, standings, tiebreakText, winnersText } from "../../tracklayer/web/static/results.js";
import { speak } from "./catalogs.js";

const europe = {
  players: [
    {
      name: "Ann",
      route_points: 40,
      ticket_points: 21,
      station_points: 8,
      longest_path: 17,
      longest_path_bonus: 0,
      total: 69,
      rank: 2,
    },
    {
      name: "Bob",
      route_points: 45,
      ticket_points: 12,
      station_points: 12,
      longest_path: 23,
      longest_path_bonus: 10,
      total: 79,
      rank: 1,
    },
  ],
  winners: ["Bob"],
  tiebreak: "points",
};
const newYork = {
  players: [
    { name: "Ann", route_points: 12, ticket_points: 9, attraction_points: 6, total: 27, rank: 1 },
    { name: "Bob", route_points: 10, ticket_points: 5, attraction_points: 2, total: 17, rank: 2 },
  ],
  winners: ["Ann"],
  tiebreak: "points",
};
const transGame = {
  players: [
    { name: "Ann", prestige_per_round: [3, 0], missing_rails: [0, 4], total: 3, rank: 1 },
    { name: "Bob", prestige_per_round: [1, 2], missing_rails: [2, 0], total: 3, rank: 1 },
    { name: "Cy", prestige_per_round: [0, 1], missing_rails: [5, 3], total: 1, rank: 3 },
  ],
  winners: ["Ann", "Bob"],
  final: false,
};
const transSheet = {
  players: [
    { name: "Ann", connected: true, missing_rails: 0, prestige: 2, total: 2, rank: 1 },
    { name: "Bob", connected: false, missing_rails: 4, prestige: 0, total: 0, rank: 2 },
  ],
  winners: ["Ann"],
  game_over: false,
  tiebreak: "prestige, ties share",
};

const keys = (result) => columnsOf(result).map((c) => c.key);
const cells = (result, i) => columnsOf(result).map((c) => c.cell(result.players[i]));

test("each game shows the scores it has, in one order", () => {
  assert.deepEqual(keys(europe), ["route_points", "ticket_points", "station_points", "longest_path_bonus"]);
  assert.deepEqual(keys(newYork), ["route_points", "ticket_points", "attraction_points"]);
  assert.deepEqual(keys(transGame), ["prestige_per_round", "missing_rails"]);
  assert.deepEqual(keys(transSheet), ["missing_rails", "prestige"]);
});

test("the longest path column shows the bonus and the path's length", () => {
  assert.deepEqual(cells(europe, 0), ["40", "21", "8", "– (17)"]);
  assert.deepEqual(cells(europe, 1), ["45", "12", "12", "+10 (23)"]);
});

test("Trans cells: round by round for a game, connected or missing rails for a score sheet", () => {
  speak("en");
  assert.deepEqual(cells(transGame, 1), ["1 · 2", "2 · 0"]);
  assert.deepEqual(cells(transSheet, 0), ["connected", "2"]);
  assert.deepEqual(cells(transSheet, 1), ["4", "0"]);
  speak("de");
  assert.equal(cells(transSheet, 0)[0], "verbunden");
});

test("standings run by rank, ties in seat order", () => {
  assert.deepEqual(standings(europe), [1, 0]);
  assert.deepEqual(standings(transGame), [0, 1, 2]);
  assert.deepEqual(standings({ players: [{ name: "A" }, { name: "B" }], winners: ["B"] }), [1, 0]);
});

test("a game's end announces winners; a standing after some rounds, leaders", () => {
  speak("en");
  assert.ok(isFinal(europe));
  assert.equal(winnersText(europe), "Bob wins!");
  assert.ok(!isFinal(transGame) && !isFinal(transSheet));
  assert.equal(winnersText(transGame), "Ann and Bob lead");
  assert.equal(winnersText(transSheet), "Ann leads");
  assert.equal(winnersText({ ...transSheet, game_over: true }), "Ann wins!");
  speak("de");
  assert.equal(winnersText(transGame), "Ann und Bob führen");
});

test("the tie-break is named only when something beyond points decided", () => {
  speak("en");
  assert.equal(tiebreakText(europe), null);
  assert.equal(tiebreakText(transSheet), "Decided by: prestige (equal prestige shares the victory).");
});
