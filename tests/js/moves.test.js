// The public log in words: every notation the engine writes becomes a sentence in the reader's language.
import { test } from "node:test";
import assert from "node:assert/strict";
import { describeMove, describeNote, describePayment, routeText, cityText } from "../../tracklayer/web/static/moves.js";
import { speak } from "./catalogs.js";

const board = {
  cities: [
    { name: "Berlin", display: "Berlin" },
    { name: "Wien", display: "Wien" },
    { name: "Moskva", display: "Moskau" },
  ],
  routes: [{ label: "Berlin-Wien", a: 0, b: 1 }],
};

test("Ticket to Ride moves in English", () => {
  speak("en");
  const cases = {
    "draw deck": "draws a card from the deck",
    "draw red": "takes a face-up red card",
    tickets: "draws destination tickets",
    "keep 1 ticket": "keeps 1 ticket",
    "keep 2 tickets": "keeps 2 tickets",
    "keep 3 7 12": "keeps 3 tickets",
    "claim Berlin-Wien: 3 red + 1 locomotive": "claims Berlin – Wien with 3 red cards and 1 locomotive",
    "station Moskva: 2 blue": "builds a station in Moskau with 2 blue cards",
    "pay: 1 locomotive": "pays 1 locomotive for the tunnel",
    decline: "gives up the tunnel",
    pass: "passes",
  };
  for (const [move, text] of Object.entries(cases)) assert.equal(describeMove(move, board), text, move);
});

test("Ticket to Ride moves in German use the German card and city names", () => {
  speak("de");
  assert.equal(describeMove("draw locomotive", board), "nimmt eine offene Karte: Lokomotive");
  assert.equal(
    describeMove("claim Berlin-Wien: 3 red + 1 locomotive", board),
    "baut Berlin – Wien (3 rote Karten und 1 Lokomotive)",
  );
  assert.equal(describeMove("station Moskva: 2 blue", board), "errichtet einen Bahnhof in Moskau (2 blaue Karten)");
});

test("Trans moves", () => {
  speak("en");
  assert.equal(describeMove("start A12", board), "places the start marker at A12");
  assert.equal(describeMove("rail A1-A2", board), "lays a rail on A1-A2");
  assert.equal(describeMove("end", board), "ends the turn");
  assert.equal(describeMove("return a city", board), "returns a city card");
  assert.equal(describeMove("pass a city", board), "passes a city card on");
  assert.equal(describeMove("return Hamburg", board), "returns Hamburg");
  assert.equal(describeMove("pass Hamburg", board), "passes Hamburg on");
});

test("notation the client does not know is shown as written", () => {
  speak("de");
  assert.equal(describeMove("teleport Wien", board), "teleport Wien");
  assert.equal(describeNote("something new happened", board), "something new happened");
});

test("unknown routes and cities fall back to their notation", () => {
  assert.equal(routeText("Paris-Roma", board), "Paris – Roma");
  assert.equal(routeText("Paris-Roma", null), "Paris – Roma");
  assert.equal(cityText("Moskva", board), "Moskau");
  assert.equal(cityText("Atlantis", board), "Atlantis");
});

test("payments list their cards in the language", () => {
  speak("de");
  assert.equal(describePayment("2 black + 1 locomotive"), "2 schwarze Karten und 1 Lokomotive");
  speak("en");
  assert.equal(describePayment("1 locomotive"), "1 locomotive");
});

test("notes: a tunnel's revealed cards and a Trans round's end", () => {
  speak("en");
  assert.equal(
    describeNote("tunnel revealed red, locomotive, blue: 2 more cards", board),
    "the tunnel revealed red, locomotive, and blue: 2 more cards",
  );
  assert.equal(
    describeNote("tunnel revealed nothing: 0 more cards", board),
    "the tunnel revealed nothing: no more cards",
  );
  speak("de");
  assert.equal(
    describeNote("tunnel revealed nothing: 0 more cards", board),
    "der Tunnel deckte auf: nichts – keine weitere Karte",
  );
  assert.match(describeNote("round 2 ends (connected): Ann 3", board), /^Durchgang 2 endet/);
});
