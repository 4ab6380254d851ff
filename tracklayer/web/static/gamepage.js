// @ts-check
// The game page's state and the helpers every part of it uses: game.js (the page: connection, top bar,
// players, log, final screen) and the families' panels (game-ttr.js, game-trans.js).
import { h } from "./common.js";
import { cityText } from "./moves.js";

/**
 * What a game family puts on the page; game.js asks the family of the board it plays on.
 * @typedef {object} Family
 * @property {(board: any) => any} makeDrawing the board's SVG drawing, its clicks wired to the family's moves
 * @property {(L: string[]) => string} hint what the player may do now, under "Your turn"
 * @property {(v: any, L: string[]) => void} beforeRender keeps the family's page state in step with a new view
 * @property {(v: any, L: string[], last: any[]) => void} draw updates the board: claimable or legal pieces, last moves
 * @property {(move: string, seat: number) => { route?: number, city?: string, line?: string } | null} placed
 *   what a logged move placed on the board, to halo it
 * @property {() => { before: HTMLElement[], dock: HTMLElement[], after: HTMLElement[] }} sections the side
 *   column's family panels: before the clock, in the dock (the choice first), after it
 * @property {(p: any, seat: number) => Array<[Node, number, string] | null>} playerStats icon, count and
 *   message key of each counter in a player's row
 * @property {(p: any, seat: number) => Array<Node | null>} playerExtra more lines in a player's row
 * @property {(p: any, seat: number) => { value: number, title: string }} playerScore the score a row shows
 * @property {(v: any) => string} scoresHeading what the players box's scores are
 * @property {(res: any) => { rule: string, details: HTMLElement | null }} finalParts the final screen's
 *   family part: a line under the winners, and details under the scores table
 * @property {() => void} onFinalOpen draws what the final screen points to on the board
 */

/**
 * What the page does for a family's panels.
 * @typedef {object} PageActions
 * @property {(move: string) => void} send sends a move (with the index of the move it expects to make)
 * @property {() => void} render draws the page again from the last state
 */

export const $ = (/** @type {string} */ id) => document.getElementById(id);

export const ui = {
  st: null, // last "state" message
  board: null, // board data
  /** @type {Family | null} */
  family: null, // the panels of the board's family (game-ttr.js, game-trans.js)
  drawing: null, // TTRBoard | TransBoard
  ws: null,
  online: false,
  selectedRoute: null,
  selectedCity: null,
  revealed: null, // hot-seat: the seat whose secrets are shown
  finalShown: false,
  tickets: new Set(), // ticket ids ticked in a keep choice
  keepKey: "",
  retry: 500,
  zoom: null, // pan and zoom of the board (zoom.js)
  aim: null, // a finger's taps on the board (aim.js)
  roundsSeen: null, // Trans: finished rounds whose summary the player has closed
  roundShown: null, // Trans: index into view.rounds of the round drawn on the board, or null for the table
  ticketsOf: null, // game over: the seat whose tickets are drawn on the map
  prev: null, // the last rendered view, to animate what changed (cards gained, tickets taken)
  chat: null, // the chat panel (chat.js)
  sounds: null, // every effect the page asked for, heard or muted (sound.js `played`)
  guide: null, // a tutorial game's guide (tutorial.js)
};

/** The moves this page may make now: none while the hot-seat cover hides the seat to play. */
export const legal = () => (covered() ? [] : ui.st?.legal || []);
export const view = () => ui.st.view;

/** Hot-seat: the seat to play is not yet revealed on this shared screen. */
export function covered() {
  const st = ui.st;
  return st && st.role === "table" && st.seat !== null && st.seat !== ui.revealed;
}

/** A ticket's cities as printed on the board ("München", not the engine's "Munchen"). */
export function ticketText(tk) {
  return `${cityText(tk.from, ui.board)} – ${cityText(tk.to, ui.board)}`;
}

/** The seat whose secrets this page shows, or null. */
export function mySeat() {
  return covered() ? null : ui.st.seat;
}

export function name(seat) {
  return view().players[seat]?.name ?? "?";
}

/** @type {ReturnType<typeof setTimeout> | undefined} */
let toastTimer;
export function toast(text, kind = "") {
  const el = $("toast");
  el.textContent = text;
  el.className = `toast ${kind}`;
  el.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => {
    el.hidden = true;
  }, 4500);
}

/**
 * A side panel with a heading (text, or [text, detail] for a heading with a detail on its right).
 * @param {import("./common.js").Child} title
 * @param {...import("./common.js").Child} children
 */
export function box(title, ...children) {
  return h("section", { class: "box" }, h("h2", {}, title), ...children);
}
