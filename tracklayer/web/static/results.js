// @ts-check
// A game's scores, the same on the game page's final screen, in the replay and on the score
// calculator's page. The columns come from the result itself: the engine's `result()` and the score
// API write the same fields (ttr/scoring.py, trans/game.py, trans/table_score.py), and a field a game
// does not score (stations in New York, attractions in Europe) is absent, so is its column.
import { h, icon, token } from "./common.js";
import { t, list } from "./i18n.js";

/**
 * One player's line of a result.
 * @typedef {{ name: string, total: number, rank?: number, [field: string]: any }} PlayerResult
 */
/**
 * A result as the engine and the score API send it. `final` (engine, Trans) is false while rounds
 * remain; `game_over` (score API, Trans) is false when the round scored does not end the game.
 * @typedef {{ players: PlayerResult[], winners: string[], tiebreak?: string, final?: boolean, game_over?: boolean }} Result
 */
/**
 * @typedef {object} Column
 * @property {string} key the result field that decides whether the column is shown
 * @property {string} heading message key of the column heading
 * @property {(p: PlayerResult) => string} cell
 */

/** @param {unknown} x */
const text = (x) => String(x ?? "");

/** Every column a result may have, in the order they are shown. @type {Column[]} */
const COLUMNS = [
  // Ticket to Ride
  { key: "route_points", heading: "final.routes", cell: (p) => text(p.route_points) },
  { key: "ticket_points", heading: "final.tickets", cell: (p) => text(p.ticket_points) },
  { key: "station_points", heading: "final.stations", cell: (p) => text(p.station_points) },
  {
    key: "longest_path_bonus",
    heading: "final.longest",
    // the bonus, and the length of the player's longest path beside it
    cell: (p) =>
      `${p.longest_path_bonus ? `+${p.longest_path_bonus}` : "–"}${p.longest_path === undefined ? "" : ` (${p.longest_path})`}`,
  },
  { key: "attraction_points", heading: "final.attractions", cell: (p) => text(p.attraction_points) },
  // Trans: a game's prestige round by round, or the one round a score sheet holds
  { key: "prestige_per_round", heading: "final.prestige_by_round", cell: (p) => p.prestige_per_round.join(" · ") },
  {
    key: "missing_rails",
    heading: "final.missing_rails",
    cell: (p) =>
      Array.isArray(p.missing_rails)
        ? p.missing_rails.join(" · ")
        : p.connected
          ? t("score.connected")
          : text(p.missing_rails),
  },
  { key: "prestige", heading: "score.prestige", cell: (p) => text(p.prestige) },
];

/**
 * The columns this result has, between the player and the total.
 * @param {Result} result
 * @returns {Column[]}
 */
export function columnsOf(result) {
  const first = result.players[0] ?? {};
  return COLUMNS.filter((c) => c.key in first);
}

/**
 * Whether the result is a game's end, rather than the standing after some rounds.
 * @param {Result} result
 */
export function isFinal(result) {
  return result.final !== false && result.game_over !== false;
}

/**
 * "Ann wins!" at a game's end; "Ann leads" while rounds remain.
 * @param {Result} result
 */
export function winnersText(result) {
  const key = isFinal(result) ? "final.winners" : "final.leaders";
  return t(key, { count: result.winners.length, names: list(result.winners) });
}

/**
 * How a tie was decided, or null when the points decided alone.
 * @param {Result} result
 */
export function tiebreakText(result) {
  if (!result.tiebreak || result.tiebreak === "points") return null;
  return t("final.tiebreak", { rule: t(`tiebreak.${result.tiebreak}`, {}, result.tiebreak) });
}

/**
 * Player indexes in the order of the standings: by rank, ties in seat order.
 * @param {Result} result
 */
export function standings(result) {
  const rank = (/** @type {number} */ i) =>
    result.players[i].rank ?? (result.winners.includes(result.players[i].name) ? 1 : 2);
  return [...result.players.keys()].sort((a, b) => rank(a) - rank(b) || a - b);
}

/**
 * The scores table: a row per player in the order of the standings (rank before the name), winners
 * marked, each row carrying its player's index (`data-player`). The total is the last column and stays
 * in view while a narrow screen scrolls the breakdown sideways.
 * @param {Result} result
 * @param {object} [options]
 * @param {string} [options.id] the table's id
 * @param {(i: number) => number} [options.colorOf] the player colour of player i (default: the seat)
 * @param {boolean} [options.compact] only the total
 * @returns {HTMLDivElement} the table, in a box that scrolls sideways on narrow screens
 */
export function scoresTable(result, { id, colorOf = (i) => i, compact = false } = {}) {
  const cols = compact ? [] : columnsOf(result);
  const rows = standings(result).map((i) => {
    const p = result.players[i];
    return h(
      "tr",
      { class: result.winners.includes(p.name) ? "win" : null, "data-player": i },
      h(
        "td",
        { class: "who" },
        p.rank === undefined ? null : h("span", { class: "rank", title: t("final.rank") }, `${p.rank}.`),
        token(colorOf(i)),
        " ",
        p.name,
      ),
      cols.map((c) => h("td", { "data-col": c.key }, c.cell(p))),
      h("td", { class: "total" }, text(p.total)),
    );
  });
  const head = [
    h("th", {}, t("final.player")),
    cols.map((c) => h("th", {}, t(c.heading))),
    h("th", { class: "total" }, t("final.total")),
  ];
  return h(
    "div",
    { class: "table-scroll" },
    h("table", { class: "scores", id }, h("thead", {}, h("tr", {}, head)), h("tbody", {}, rows)),
  );
}

/**
 * The winners' line with its trophy.
 * @param {Result} result
 * @param {number} [size] the trophy's size in pixels
 */
export function winnersLine(result, size = 14) {
  return [icon("trophy", size), " ", winnersText(result)];
}
