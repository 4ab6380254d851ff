// @ts-check
// "Learn to play": buttons that start a tutorial game (POST /api/tutorial, tracklayer/server/tutorial.py) and
// open it; the lobby lists one per game, the rules page one for its game.
import { h, gameTitle } from "./common.js";
import { t } from "./i18n.js";

export const LESSONS = ["ttr-europe", "ttr-new-york", "trans-europa", "trans-america"];

/** The name the player last gave in the lobby ("" if none). */
export function savedName() {
  try {
    return localStorage.getItem("tracklayer.name") || "";
  } catch {
    return "";
  }
}

/**
 * Start the tutorial of `game` and go to its page; a refusal is said in `error`.
 * @param {string} game
 * @param {string} player the player's name ("" for the language's "You")
 * @param {HTMLElement | null} error
 */
export async function startTutorial(game, player, error) {
  try {
    const r = await fetch("/api/tutorial", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ game, name: player.trim() || t("tut.player"), bot_name: t("tut.bot_name") }),
    });
    const body = await r.json().catch(() => ({}));
    if (!r.ok) throw new Error(typeof body.detail === "string" ? body.detail : `HTTP ${r.status}`);
    location.href = body.link;
  } catch (e) {
    if (error) error.textContent = t("tut.start_failed", { detail: e.message });
  }
}

/**
 * A button that starts the tutorial of `game`.
 * @param {string} game
 * @param {string} label
 * @param {() => string} player
 * @param {HTMLElement | null} error
 */
export function learnButton(game, label, player, error) {
  return h(
    "button",
    {
      class: "btn learn",
      type: "button",
      "data-lesson": game,
      onclick: (e) => {
        const button = /** @type {HTMLButtonElement} */ (e.currentTarget);
        button.disabled = true; // one game per click
        startTutorial(game, player(), error).finally(() => {
          button.disabled = false;
        });
      },
    },
    label,
  );
}

/** The lobby's panel: one button per game. */
export function learnPanel() {
  const error = h("span", { class: "error", role: "alert", id: "learn-error" });
  return [
    h("h2", { id: "learn-h" }, t("tut.learn_title")),
    h("p", { class: "learn-text" }, t("tut.learn_text")),
    h(
      "div",
      { class: "learn-games" },
      LESSONS.map((g) => learnButton(g, gameTitle(g, g), savedName, error)),
    ),
    error,
  ];
}
