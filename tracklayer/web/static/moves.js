// @ts-check
// The public log in words: a move's notation (docs/notation.md, docs/trans.md; always English, as typed in
// the keyboard box) becomes a translated sentence. Anything not recognised is shown as notation.
import { t, list } from "./i18n.js";
import { h, token, cards, colorName } from "./common.js";

// "3 red + 1 locomotive" -> "3 rote Wagenkarten, 1 Lokomotive"
export function describePayment(text) {
  const parts = text
    .split("+")
    .map((x) => x.trim())
    .filter(Boolean)
    .map((x) => {
      const m = x.match(/^(\d+)\s+(.+)$/);
      return m ? cards(m[2].trim(), Number(m[1])) : x;
    });
  return list(parts);
}

export function routeText(label, board) {
  const r = board?.routes?.find((x) => x.label === label);
  if (!r) return label.replace("-", " – ");
  return `${board.cities[r.a].display} – ${board.cities[r.b].display}`;
}

export function cityText(name, board) {
  return board?.cities?.find((c) => c.name === name)?.display ?? name;
}

export function describeMove(move, board) {
  let m;
  if (move === "draw deck") return t("move.draw_deck");
  if ((m = move.match(/^draw (\w+)$/))) return t("move.draw", { card: colorName(m[1]) });
  if (move === "tickets") return t("move.tickets");
  if ((m = move.match(/^keep (\d+) tickets?$/))) return t("move.keep_n", { count: Number(m[1]) });
  if ((m = move.match(/^keep (.+)$/))) return t("move.keep_n", { count: m[1].trim().split(/\s+/).length });
  if ((m = move.match(/^claim (.+?): (.+)$/)))
    return t("move.claim", { route: routeText(m[1], board), cards: describePayment(m[2]) });
  if ((m = move.match(/^station (.+?): (.+)$/)))
    return t("move.station", { city: cityText(m[1], board), cards: describePayment(m[2]) });
  if ((m = move.match(/^pay: (.+)$/))) return t("move.pay", { cards: describePayment(m[1]) });
  if (move === "decline") return t("move.decline");
  if (move === "pass") return t("move.pass");
  if (move === "end") return t("move.end");
  if ((m = move.match(/^start (\S+)$/))) return t("move.start", { point: m[1] });
  if ((m = move.match(/^rail (\S+)$/))) return t("move.rail", { line: m[1] });
  if (move === "return a city") return t("move.return_hidden");
  if (move === "pass a city") return t("move.pass_hidden");
  if ((m = move.match(/^return (.+)$/))) return t("move.return", { city: m[1] });
  if ((m = move.match(/^pass (.+)$/))) return t("move.pass_city", { city: m[1] });
  return move;
}

// The engine's public notes: a tunnel's revealed cards, the outcome of a Trans round.
export function describeNote(note, board) {
  let m;
  if ((m = note.match(/^tunnel revealed (.+): (\d+) more cards?$/))) {
    const shown = m[1] === "nothing" ? t("note.nothing") : list(m[1].split(", ").map((c) => colorName(c)));
    return t("note.tunnel", { cards: shown, count: Number(m[2]) });
  }
  if ((m = note.match(/^round (\d+) ends \((\w+)\): (.+)$/))) {
    return t("note.round", { round: Number(m[1]), reason: t(`note.ended.${m[2]}`, {}, m[2]), gains: m[3] });
  }
  void board;
  return note;
}

/**
 * The public log as a list, its latest `limit` entries: each player's move and the engine's note, in words.
 * The game page announces new entries to screen readers (`live`); the replay steps through them itself.
 * @param {Array<{ player: number, move: string, note?: string }>} log
 * @param {any} board
 * @param {(seat: number) => string} nameOf
 * @param {number} limit
 * @param {boolean} [live]
 */
export function logList(log, board, nameOf, limit, live = false) {
  const items = log
    .slice(-limit)
    .map((e) =>
      h(
        "li",
        {},
        token(e.player),
        h(
          "span",
          {},
          h("b", {}, nameOf(e.player)),
          " ",
          describeMove(e.move, board),
          e.note ? h("span", { class: "note" }, " — ", describeNote(e.note, board)) : null,
        ),
      ),
    );
  return h(
    "ol",
    { class: "log", "aria-live": live ? "polite" : null },
    items.length ? items : h("li", { class: "empty" }, t("log.none")),
  );
}
