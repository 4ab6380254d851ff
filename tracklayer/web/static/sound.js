// @ts-check
// Sound effects of the game page, synthesized with the Web Audio API (no audio files): your turn, a route,
// station or rail placed by anyone, a card you drew, a ticket you completed, the end of the game.
// Browsers let a page make sound only after the player touched it: the AudioContext is created on the first
// pointerdown or keydown, and an effect due before that is skipped. The player's choice (the top bar's toggle)
// is kept in localStorage as `tracklayer.sound` ("on" or "off", on by default).

/** @typedef {"turn" | "claim" | "draw" | "ticket" | "win" | "end"} Effect */

/**
 * One effect the page asked for, kept for tests and curious players (`window.__tracklayer.sounds`): whether it
 * was muted, and whether it was heard (audio started by a gesture, not muted).
 * @typedef {{ name: Effect, muted: boolean, heard: boolean }} Played
 */

/** @type {Played[]} */
export const played = [];

const KEY = "tracklayer.sound";
const VOLUME = 0.12; // quiet: a board game's table, not an arcade

// ---------------------------------------------------------------- what to play

/** @param {any} v */
function isOver(v) {
  return !!v?.result && v.result.final !== false;
}

/** Routes, stations and rails on the board: Ticket to Ride's owned routes and stations, Trans' rails. */
function placed(v) {
  const routes = (v.route_owner || []).filter((o) => o !== null && o !== undefined).length;
  const stations = Object.keys(v.stations || {}).length;
  const rails = Array.isArray(v.rails) ? v.rails.length : 0;
  return routes + stations + rails;
}

/** @param {any} v */
function handSize(v) {
  return Object.values(v.hand || {}).reduce((a, n) => a + (Number(n) || 0), 0);
}

/** @param {any} v */
function ticketsDone(v) {
  return (v.tickets || []).filter((tk) => tk.completed).length;
}

/**
 * The effects an update calls for: `prev` and `next` are the game's views for the same eyes before and after
 * it, `seat` the seat whose secrets they show (null for a spectator, who hears only what is placed on the board
 * and the end). A state sent again unchanged (a reconnect) calls for nothing.
 * @param {any} prev
 * @param {any} next
 * @param {number | null} seat
 * @returns {Effect[]}
 */
export function soundsFor(prev, next, seat) {
  if (!prev || !next) return [];
  /** @type {Effect[]} */
  const out = [];
  const mine = seat !== null && seat !== undefined;
  if (isOver(next)) {
    if (isOver(prev)) return [];
    const me = mine ? next.players?.[seat]?.name : undefined;
    return [me !== undefined && (next.result.winners || []).includes(me) ? "win" : "end"];
  }
  if (placed(next) > placed(prev)) out.push("claim");
  if (mine) {
    if (handSize(next) > handSize(prev)) out.push("draw");
    if (ticketsDone(next) > ticketsDone(prev)) out.push("ticket");
    if (next.current_player === seat && prev.current_player !== seat) out.push("turn");
  }
  return out;
}

// ---------------------------------------------------------------- the player's choice

/** True when the player turned sound off (storage blocked: on). */
export function muted() {
  try {
    return localStorage.getItem(KEY) === "off";
  } catch {
    return false;
  }
}

export function toggleSound() {
  const off = !muted();
  try {
    localStorage.setItem(KEY, off ? "off" : "on");
  } catch {
    /* this page only: nothing to keep it in */
  }
  if (off) ctx?.suspend().catch(() => {});
  else ctx?.resume().catch(() => {});
}

// ---------------------------------------------------------------- audio

/** @type {AudioContext | null} */
let ctx = null;
/** @type {GainNode | null} */
let master = null;

/** Create or resume the audio on a gesture: the only moment a browser allows it. */
function unlock() {
  if (muted()) return;
  try {
    if (!ctx) {
      const Ctx = window.AudioContext || /** @type {any} */ (window).webkitAudioContext;
      if (!Ctx) return;
      ctx = new Ctx();
      master = ctx.createGain();
      master.gain.value = VOLUME;
      master.connect(ctx.destination);
    }
    if (ctx.state === "suspended") ctx.resume().catch(() => {});
  } catch {
    ctx = null; // no audio on this browser: the page plays silently
  }
}

/** Listen for the first gestures of the page (call once). */
export function installSound() {
  window.addEventListener("pointerdown", unlock, { capture: true });
  window.addEventListener("keydown", unlock, { capture: true });
}

/**
 * A note with a quick attack and an exponential fade.
 * @param {number} freq Hz
 * @param {number} at seconds after now
 * @param {number} length seconds
 * @param {OscillatorType} type
 * @param {number} level 0..1 of the master volume
 */
function note(freq, at, length, type = "sine", level = 0.6) {
  const t0 = ctx.currentTime + at;
  const osc = ctx.createOscillator();
  const gain = ctx.createGain();
  osc.type = type;
  osc.frequency.value = freq;
  gain.gain.setValueAtTime(0.0001, t0);
  gain.gain.exponentialRampToValueAtTime(level, t0 + 0.012);
  gain.gain.exponentialRampToValueAtTime(0.0001, t0 + length);
  osc.connect(gain).connect(master);
  osc.start(t0);
  osc.stop(t0 + length + 0.02);
}

/**
 * A burst of filtered noise: the clack of a wheel on a rail joint, or the swish of a card.
 * @param {number} at seconds after now
 * @param {number} length seconds
 * @param {number} freq the band's centre, Hz
 * @param {number} level
 */
function noise(at, length, freq, level) {
  const t0 = ctx.currentTime + at;
  const frames = Math.max(1, Math.round(ctx.sampleRate * length));
  const buffer = ctx.createBuffer(1, frames, ctx.sampleRate);
  const data = buffer.getChannelData(0);
  for (let i = 0; i < frames; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / frames) ** 3;
  const src = ctx.createBufferSource();
  src.buffer = buffer;
  const band = ctx.createBiquadFilter();
  band.type = "bandpass";
  band.frequency.value = freq;
  band.Q.value = 2.5;
  const gain = ctx.createGain();
  gain.gain.value = level;
  src.connect(band).connect(gain).connect(master);
  src.start(t0);
}

/** Each effect from `at` seconds after now. @type {Record<Effect, (at: number) => void>} */
const EFFECTS = {
  // a soft two-note chime
  turn: (at) => {
    note(659.25, at, 0.45, "sine", 0.5);
    note(987.77, at + 0.14, 0.6, "sine", 0.45);
  },
  // clack-clack: two wheels over a rail joint, and a low thump under each
  claim: (at) => {
    noise(at, 0.06, 1800, 2.2);
    note(110, at, 0.09, "triangle", 0.5);
    noise(at + 0.11, 0.06, 1500, 2.2);
    note(98, at + 0.11, 0.09, "triangle", 0.5);
  },
  // a card slid off the deck
  draw: (at) => noise(at, 0.09, 3200, 1.4),
  // three rising notes
  ticket: (at) => [523.25, 659.25, 783.99].forEach((f, k) => note(f, at + k * 0.09, 0.35, "triangle", 0.45)),
  // a small fanfare
  win: (at) => {
    [523.25, 659.25, 783.99].forEach((f, k) => note(f, at + k * 0.12, 0.22, "triangle", 0.5));
    [523.25, 659.25, 783.99, 1046.5].forEach((f) => note(f, at + 0.36, 1.1, "triangle", 0.32));
  },
  // a plain chord
  end: (at) => [392, 523.25, 659.25].forEach((f) => note(f, at, 1.2, "sine", 0.3)),
};

/**
 * Play effects one after the other (recorded in `played` whether heard or not).
 * @param {Effect[]} names
 */
export function play(names) {
  const off = muted();
  let at = 0;
  for (const name of names) {
    const heard = !off && ctx !== null && ctx.state === "running";
    played.push({ name, muted: off, heard });
    if (played.length > 200) played.shift();
    if (heard) {
      try {
        EFFECTS[name](at);
      } catch {
        /* an effect is never worth an error */
      }
      at += 0.3;
    }
  }
}
