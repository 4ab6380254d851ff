// @ts-check
// The guide of a tutorial game (a seat with a `lesson`, tracklayer/server/tutorial.py): a panel above the board
// that says what to do now, outlines the control or the board to use, and goes on when the player has done it.
// The steps are data (/static/tutorial/<family>.json); their texts are the catalogs' "tut.<family>.<step>.*".
// Which step is shown follows from the game state alone (the view, the legal moves, the seat's moves in the
// log) and from the steps the player waved on ("Got it", "Skip"), kept per game in localStorage: a reload, an
// undo or a reconnection shows the right step again. No timers.
//
// A step of the script:
//   id        its catalog keys: tut.<family>.<id>.title, .text (and .pending when it has "pending")
//   when      facts that must all hold for the step to be shown ("!fact": must not hold)
//   done      counters (facts) and the number each must reach: any one reached means the step is done
//   optional  the step is passed over while it does not apply (a tunnel, a station)
//   recap     an optional step the game never reached is told at its end, in its .recap text, before the
//             last step: so every lesson of the script is told once, whatever the deal brought
//   pending   a required step that does not apply yet says its .pending text (what leads to it) meanwhile
//   ack       the step has a "Got it" button (an explanation that needs no move)
//   target    CSS selectors of what to outline: the first one on the page is ("{loco}": the board's wild card)
import { h } from "./common.js";
import { t } from "./i18n.js";

/**
 * @typedef {object} Step
 * @property {string} id
 * @property {string[]} [when]
 * @property {Record<string, number>} [done]
 * @property {boolean} [optional]
 * @property {boolean} [recap]
 * @property {boolean} [pending]
 * @property {boolean} [ack]
 * @property {string[]} [target]
 */
/** @typedef {{ family: string, steps: Step[] }} Script */
/** @typedef {{ index: number, step: Step, mode: "do" | "pending" | "wait" | "recap" }} Place */

/** The family of a lesson's game (its script's name). */
export const familyOf = (game) => (String(game).startsWith("trans") ? "trans" : "ttr");

/**
 * What the steps ask about: flags of the position (legal moves) and counters of the seat's own moves.
 * @param {any} v the seat's view
 * @param {string[]} legal the moves this seat may make now
 * @param {number} seat
 * @param {any} board the board data (/api/boards/<game>)
 * @param {boolean} over
 * @returns {Record<string, number>}
 */
export function facts(v, legal, seat, board, over) {
  const mine = (v.log || []).filter((e) => e.player === seat).map((e) => String(e.move));
  const count = (test) => mine.filter(test).length;
  const some = (prefix) => legal.some((m) => m.startsWith(prefix));
  const out = { myTurn: legal.length > 0 ? 1 : 0, over: over ? 1 : 0 };
  if (board.family === "trans") {
    const cost = new Map((board.edges || []).map((e) => [e.text, e.cost]));
    const double = (m) => m.startsWith("rail ") && (cost.get(m.slice(5)) ?? 1) > 1;
    return {
      ...out,
      canStart: some("start ") ? 1 : 0,
      canRail: some("rail ") ? 1 : 0,
      canEnd: legal.includes("end") ? 1 : 0,
      canDouble: legal.some(double) ? 1 : 0,
      starts: count((m) => m.startsWith("start ")),
      rails: count((m) => m.startsWith("rail ")),
      doubles: count(double),
      roundsOver: (v.rounds || []).length,
    };
  }
  const loco = board.loco;
  const tunnels = new Set((board.routes || []).filter((r) => r.tunnel).map((r) => r.label));
  const tunnel = (m) => m.startsWith("claim ") && tunnels.has(m.slice(6).split(": ")[0]);
  const secondCard = legal.length > 0 && legal.every((m) => m.startsWith("draw "));
  return {
    ...out,
    canKeep: some("keep ") ? 1 : 0,
    firstCard: some("draw ") && !secondCard ? 1 : 0,
    secondCard: secondCard ? 1 : 0,
    locoUp: !secondCard && legal.includes(`draw ${loco}`) ? 1 : 0,
    canClaim: some("claim ") ? 1 : 0,
    canTunnel: legal.some(tunnel) ? 1 : 0,
    tunnelChoice: some("pay:") || legal.includes("decline") ? 1 : 0,
    canStation: some("station ") ? 1 : 0,
    canDrawTickets: legal.includes("tickets") ? 1 : 0,
    finalRound: v.final_round ? 1 : 0,
    kept: count((m) => m.startsWith("keep ")),
    draws: count((m) => m.startsWith("draw ")),
    locoTaken: count((m) => m === `draw ${loco}`),
    claims: count((m) => m.startsWith("claim ")),
    tunnels: count(tunnel),
    stations: count((m) => m.startsWith("station ")),
    moreTickets: count((m) => m === "tickets"),
  };
}

/** @param {Step} step @param {Record<string, number>} f */
const holds = (step, f) => (step.when || []).every((w) => (w.startsWith("!") ? !f[w.slice(1)] : !!f[w]));
/** @param {Step} step @param {Record<string, number>} f */
const done = (step, f) => Object.entries(step.done || {}).some(([k, n]) => (f[k] ?? 0) >= n);

/**
 * The step to show: the first one not done nor waved on that applies now ("do"); a required step that does not
 * apply yet stops the search ("wait" while another player moves, "pending" with its own text); once the game is
 * over, an optional step it never reached is told as a "recap". Null: the lesson is over.
 * @param {Script} script
 * @param {Record<string, number>} f facts()
 * @param {Set<string>} acked the steps the player waved on
 * @returns {Place | null}
 */
export function stepFor(script, f, acked) {
  for (const [index, step] of script.steps.entries()) {
    if (acked.has(step.id) || done(step, f)) continue;
    if (holds(step, f)) return { index, step, mode: "do" };
    if (step.optional && step.recap && f.over) return { index, step, mode: "recap" };
    if (step.optional) continue;
    if (!f.myTurn && !f.over) return { index, step, mode: "wait" };
    if (step.pending) return { index, step, mode: "pending" };
  }
  return null;
}

// ---------------------------------------------------------------- the panel
const KEY = "tracklayer.tutorial.";

function load(gameId) {
  try {
    const saved = JSON.parse(localStorage.getItem(KEY + gameId) || "{}");
    return { acked: new Set(saved.acked || []), collapsed: !!saved.collapsed, closed: !!saved.closed };
  } catch {
    return { acked: new Set(), collapsed: false, closed: false };
  }
}

function save(gameId, mem) {
  try {
    localStorage.setItem(KEY + gameId, JSON.stringify({ ...mem, acked: [...mem.acked] }));
  } catch {
    /* this page only */
  }
}

/**
 * The guide of a tutorial game, above the board: `update()` after every render of the page.
 * @param {string} gameId
 * @param {string} game the lesson (the game's name)
 * @param {() => { v: any, legal: string[], seat: number, board: any, over: boolean, other: string }} read the
 *   page's state: the view, the legal moves, this seat, the board data, game over, the other player's name
 */
export async function mountGuide(gameId, game, read) {
  const family = familyOf(game);
  const r = await fetch(`/static/tutorial/${family}.json`);
  if (!r.ok) return null;
  /** @type {Script} */
  const script = await r.json();
  const mem = load(gameId);
  const panel = h("section", { class: "guide", id: "guide", "aria-labelledby": "guide-h" });
  document.getElementById("board")?.before(panel);
  /** @type {Element[]} */
  let outlined = [];

  const change = (fn) => () => {
    fn();
    save(gameId, mem);
    update();
  };

  function outline(selectors, board) {
    for (const el of outlined) el.classList.remove("tut-pulse");
    outlined = [];
    for (const sel of selectors) {
      const el = document.querySelector(sel.replaceAll("{loco}", board.loco || ""));
      if (el) {
        el.classList.add("tut-pulse");
        outlined = [el];
        return;
      }
    }
  }

  function update() {
    const { v, legal, seat, board, over, other } = read();
    const place = stepFor(script, facts(v, legal, seat, board, over), mem.acked);
    panel.hidden = mem.closed;
    if (mem.closed) {
      outline([], board);
      return;
    }
    const key = (part) => `tut.${family}.${place.step.id}.${part}`;
    const params = { loco: t(`color.${board.loco}`, {}, board.loco || ""), name: other };
    const title = !place
      ? t("tut.finished_title")
      : place.mode === "recap"
        ? t("tut.recap_title", { title: t(key("title"), params) })
        : t(key("title"), params);
    const count = t("tut.progress", {
      step: (place?.index ?? script.steps.length - 1) + 1,
      count: script.steps.length,
    });
    const head = h(
      "div",
      { class: "guide-head" },
      h("span", { class: "guide-badge" }, t("tut.badge")),
      h("h2", { id: "guide-h" }, title),
      h("span", { class: "guide-count" }, count),
      h(
        "button",
        {
          class: "btn small ghost",
          type: "button",
          id: "guide-toggle",
          "aria-expanded": mem.collapsed ? "false" : "true",
          "aria-controls": "guide-body",
          "aria-label": mem.collapsed ? t("tut.show") : t("tut.hide"),
          title: mem.collapsed ? t("tut.show") : t("tut.hide"),
          onclick: change(() => (mem.collapsed = !mem.collapsed)),
        },
        h("span", { "aria-hidden": "true" }, mem.collapsed ? "▾" : "▴"),
      ),
      h(
        "button",
        {
          class: "btn small ghost",
          type: "button",
          id: "guide-close",
          "aria-label": t("tut.close"),
          title: t("tut.close"),
          onclick: change(() => (mem.closed = true)),
        },
        "×",
      ),
    );
    let body = null;
    if (!mem.collapsed) {
      const text = !place
        ? t("tut.finished_text")
        : place.mode === "wait"
          ? t("tut.wait", { name: other })
          : place.mode === "pending"
            ? t(key("pending"), params)
            : place.mode === "recap"
              ? t(key("recap"), params)
              : t(key("text"), params);
      const wave = place && (place.step.ack || place.mode !== "wait");
      // an explanation to wave on ("Got it"), or a step to pass over ("Skip")
      const told = place && place.step.ack && (place.mode === "do" || place.mode === "recap");
      // the button ends the paragraph: the guide stays low and leaves the board its room
      body = h(
        "div",
        { class: "guide-body", id: "guide-body", "aria-live": "polite" },
        h(
          "p",
          {},
          text,
          wave
            ? h(
                "button",
                {
                  class: `btn small ${told ? "primary" : "ghost"}`,
                  type: "button",
                  id: "guide-next",
                  "data-step": place.step.id,
                  onclick: change(() => mem.acked.add(place.step.id)),
                },
                told ? t("tut.got_it") : t("tut.skip"),
              )
            : null,
        ),
      );
    }
    panel.dataset.step = place ? place.step.id : "finished";
    panel.dataset.mode = place ? place.mode : "finished";
    panel.classList.toggle("collapsed", mem.collapsed);
    panel.replaceChildren(head, body || "");
    outline(place?.mode === "do" ? place.step.target || [] : [], board);
  }

  return { update };
}
