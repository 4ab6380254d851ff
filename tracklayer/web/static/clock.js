// @ts-check
// Turn clocks and seat control on the game page (and the clock choice in the lobby).
// The server runs the clocks and decides timeouts; this module only shows the time left, counting
// down between two states from the server's own figures, and offers the seat's buttons: take back
// my seat (when a stand-in bot plays it), resign, and "tell me when it is my turn" (Notification API,
// asked for on a click, never on load; otherwise the tab title changes).
import { h, store } from "./common.js";
import { t, onLangChange } from "./i18n.js";

// ---------------------------------------------------------------- lobby
export const PRESETS = ["", "blitz", "rapid", "standard", "day-12h", "day-24h", "day-72h"];

/**
 * The clock a new game starts with, until the creator picks one: "standard" (5 minutes a turn and a
 * 10-minute bank) when two or more people share the game on their own screens, so that a player who
 * leaves costs the others one turn's wait before a stand-in plays, never the game; long enough for a
 * newcomer's first ticket choice. None against bots only (nobody waits for a bot) or at a hot-seat table
 * (everybody sits at the one screen). Friends who play over days pick a turn-based preset.
 * @param {Array<{ kind: string }>} seats the create form's seats ("human", "open" or "bot")
 * @param {boolean} hotseat
 */
export function defaultPreset(seats, hotseat) {
  const people = seats.filter((s) => s.kind !== "bot").length;
  return !hotseat && people >= 2 ? "standard" : "";
}

/** The <select> of clock presets for the create form (first: no clock). */
export function clockPicker() {
  const select = h(
    "select",
    { id: "clock", "aria-label": t("clock.choose") },
    PRESETS.map((p) => h("option", { value: p }, t(p ? `clock.preset.${p}` : "clock.preset.none"))),
  );
  select.addEventListener("change", () => {
    select.dataset.chosen = "1"; // the creator's choice: the seats no longer change it
  });
  return select;
}

/**
 * The create form's seats changed: the picker follows `defaultPreset` until the creator picks a clock.
 * @param {string} preset
 */
export function suggestClock(preset) {
  const select = /** @type {HTMLSelectElement | null} */ (document.getElementById("clock"));
  if (select && !select.dataset.chosen) select.value = preset;
}

/** Put the picker into #clock-choice of the lobby (again on a language change, keeping the choice). */
export function mountClockPicker() {
  const place = () => {
    const box = document.getElementById("clock-choice");
    if (!box) return;
    const old = /** @type {HTMLSelectElement | null} */ (document.getElementById("clock"));
    const sel = clockPicker();
    if (old) {
      sel.value = old.value;
      if (old.dataset.chosen) sel.dataset.chosen = old.dataset.chosen;
      old.replaceWith(sel);
    } else box.append(sel);
  };
  place();
  onLangChange(place);
}

/** The create request's `clock` (undefined: no clock). */
export function clockBody() {
  const p = /** @type {HTMLSelectElement | null} */ (document.getElementById("clock"))?.value;
  return p ? { preset: p } : undefined;
}

/** A short label of a game's clock for lobby lists ("" without one). */
export function clockLabel(clock) {
  if (!clock) return "";
  return clock.preset ? t(`clock.preset.${clock.preset}`) : t("clock.custom", { time: duration(clock.turn_seconds) });
}

export function duration(sec) {
  sec = Math.max(0, Math.ceil(sec));
  if (sec >= 3600) {
    const hh = Math.floor(sec / 3600),
      mm = Math.floor((sec % 3600) / 60);
    return `${hh}:${String(mm).padStart(2, "0")} h`;
  }
  return `${Math.floor(sec / 60)}:${String(sec % 60).padStart(2, "0")}`;
}

// ---------------------------------------------------------------- game page
let received = 0; // performance.now() when the last state came: the countdown runs from there
let ticker = null;
let baseTitle = null;

/** Call with every state message (also plays the "your turn" notice). */
export function onClockState(st) {
  received = performance.now();
  if (!ticker) {
    ticker = setInterval(tick, 250);
    document.addEventListener("visibilitychange", restoreTitle);
  }
  yourTurnNotice(st);
}

/** Back on the tab: the "your turn" marker leaves the title. */
function restoreTitle() {
  if (!document.hidden && baseTitle) document.title = baseTitle;
}

function tick() {
  const now = performance.now();
  document.querySelectorAll("[data-handover-due]").forEach((/** @type {HTMLElement} */ el) => {
    el.hidden = now < Number(el.dataset.handoverDue);
  });
  const since = (now - received) / 1000;
  document.querySelectorAll("[data-clock-left]").forEach((/** @type {HTMLElement} */ el) => {
    const left = Math.max(0, Number(el.dataset.clockLeft) - since);
    el.textContent = duration(left);
    el.classList.toggle("low", left < 10);
  });
}

function myTurn(st) {
  return st.role === "seat" && !st.over && (st.legal || []).length > 0;
}

/** The move a "your turn" notification was last shown for: one notification per turn. */
let lastNotice = "";

function yourTurnNotice(st) {
  const mine = myTurn(st);
  if (baseTitle === null || !document.title.startsWith("● ")) baseTitle = document.title;
  document.title = mine && document.hidden ? t("clock.tab_title") : baseTitle;
  if (mine && document.hidden && window.Notification && Notification.permission === "granted") {
    const key = `${st.game_id}:${st.moves}`;
    if (lastNotice !== key) {
      lastNotice = key;
      try {
        new Notification(t("clock.notify_title"), { body: t("clock.notify_body"), tag: `tracklayer-${st.game_id}` });
      } catch {
        /* not allowed here */
      }
    }
  }
}

// While a stand-in plays for this seat, a bar fixed under the top bar says so and offers the seat back:
// one element for the page's lifetime, outside the side column that every move redraws and that a turn
// change moves, so a press and its release land on the same button.
/** @type {HTMLElement | null} */
let takebackBar = null;
/** @type {(msg: object) => void} */
let sendTakeback = () => {};

/**
 * Show or hide the take-back bar.
 * @param {boolean} show
 * @param {(msg: object) => void} send
 */
function showTakeback(show, send) {
  sendTakeback = send;
  if (!show) {
    takebackBar?.remove();
    return;
  }
  if (!takebackBar) {
    takebackBar = h(
      "div",
      { class: "takeback-bar", id: "takeback-bar", role: "region", "aria-labelledby": "takeback-note" },
      h("span", { id: "takeback-note" }),
      h("button", {
        class: "btn primary",
        id: "takeback",
        type: "button",
        onclick: () => sendTakeback({ type: "takeback" }),
      }),
    );
  }
  takebackBar.querySelector("#takeback-note").textContent = t("clock.standin_mine");
  takebackBar.querySelector("#takeback").textContent = t("clock.takeback");
  if (!takebackBar.isConnected) document.body.append(takebackBar);
}

/**
 * "Let a bot play for NAME": hands seat i to its stand-in with the creator's token or the player's own.
 * @param {string} gameId
 * @param {number} i
 * @param {string} name
 * @param {string} token
 * @param {number} due performance.now() from which it is shown (0: at once)
 */
function handoverButton(gameId, i, name, token, due) {
  return h(
    "button",
    {
      class: "btn small",
      type: "button",
      "data-handover": i,
      "data-handover-due": due || null,
      hidden: due > performance.now(),
      onclick: async (/** @type {MouseEvent} */ ev) => {
        const btn = /** @type {HTMLButtonElement} */ (ev.currentTarget);
        btn.disabled = true;
        const r = await fetch(`/api/games/${encodeURIComponent(gameId)}/seats/${i}/handover`, {
          method: "POST",
          headers: { Authorization: `Bearer ${token}` },
        }).catch(() => null);
        if (!r || !r.ok) {
          const detail = r ? (await r.json().catch(() => ({}))).detail || r.status : "";
          btn.replaceWith(h("span", { class: "clock-note", role: "alert" }, t("clock.handover_failed", { detail })));
        }
      },
    },
    t("clock.handover", { name }),
  );
}

/** The clock and seat panel for the game page's side bar, or null when it has nothing to show.
 *  `send(msg)` sends a websocket message; `names[seat]` are the players' names. */
export function clockPanel(st, names, send) {
  const clock = st.clock;
  const me = st.role === "seat" ? st.seat : null;
  const own = me !== null ? st.seats[me] : null;
  showTakeback(Boolean(own?.standin && !own.resigned && !st.over), send);
  const rows = [];
  if (clock) {
    st.seats.forEach((seat, i) => {
      if (seat.kind !== "human") return;
      const moving = clock.seat === i && clock.left !== null;
      const flag = seat.resigned ? t("clock.resigned") : seat.standin ? t("clock.standin_plays") : "";
      rows.push(
        h(
          "div",
          { class: `clock-row ${moving ? "moving" : ""}`, "data-clock-seat": i },
          h("span", { class: "clock-name" }, names[i] ?? seat.name),
          flag ? h("span", { class: "clock-flag" }, flag) : null,
          h(
            "span",
            { class: "clock-bank", title: t("clock.bank_hint") },
            t("clock.bank", { time: duration(clock.banks[i]) }),
          ),
          moving
            ? h(
                "b",
                { class: "clock-left", "data-clock-left": clock.left, "aria-label": t("clock.left") },
                duration(clock.left),
              )
            : h("span", { class: "clock-left idle" }, duration(clock.turn_seconds)),
        ),
      );
    });
  } else {
    // no clock: still say which seats a bot plays
    st.seats.forEach((seat, i) => {
      if (seat.kind !== "human" || !(seat.standin || seat.resigned)) return;
      rows.push(
        h(
          "div",
          { class: "clock-row", "data-clock-seat": i },
          h("span", { class: "clock-name" }, names[i] ?? seat.name),
          h("span", { class: "clock-flag" }, seat.resigned ? t("clock.resigned") : t("clock.standin_plays")),
        ),
      );
    });
  }
  const buttons = [];
  const mine = me !== null ? st.seats[me] : null;
  if (mine && !st.over) {
    if (!mine.resigned) {
      buttons.push(
        h(
          "button",
          {
            class: "btn small",
            id: "resign",
            type: "button",
            onclick: () => {
              if (confirm(t("clock.resign_confirm"))) send({ type: "resign" });
            },
          },
          t("clock.resign"),
        ),
      );
    }
    if (window.Notification && Notification.permission === "default") {
      buttons.push(
        h(
          "button",
          {
            class: "btn small",
            id: "notify",
            type: "button",
            onclick: async () => {
              try {
                await Notification.requestPermission();
              } catch {
                /* refused */
              }
              document.getElementById("notify")?.remove();
            },
          },
          t("clock.notify"),
        ),
      );
    }
  }
  // the creator (this browser made the game: the lobby kept its creator token) may hand an absent seat to a
  // bot; the other seated players may once the seat has run out its time or stayed away (handover_in, the
  // seconds to go when the state was sent: the button appears when they have passed, see tick)
  const creator = store.mine()[st.game_id]?.creator;
  if (!st.over && (creator || me !== null)) {
    st.seats.forEach((seat, i) => {
      if (seat.kind !== "human" || seat.standin || i === me) return;
      if (creator ? seat.online : seat.handover_in === undefined) return;
      const due = creator ? 0 : received + seat.handover_in * 1000;
      buttons.push(handoverButton(st.game_id, i, names[i] ?? seat.name, creator || location.hash.slice(1), due));
    });
  }
  if (!rows.length && !buttons.length) return null;
  const preset = clock
    ? clock.preset
      ? t(`clock.preset.${clock.preset}`)
      : t("clock.custom", { time: duration(clock.turn_seconds) })
    : "";
  return h(
    "div",
    { class: "box clockbox", id: "clockbox" },
    h(
      "h2",
      {},
      h("span", {}, clock ? t("clock.title") : t("clock.seats_title")),
      h("span", { class: "clock-preset" }, preset),
    ),
    rows.length ? h("div", { class: "clock-rows" }, rows) : null,
    clock ? h("p", { class: "clock-note" }, t("clock.rule", { bot: clock.standin })) : null,
    buttons.length ? h("div", { class: "clock-buttons" }, buttons) : null,
  );
}
