// @ts-check
// "My games" (/my): every game this browser holds a link to (common.js store), with its status and
// whose turn it is from one POST /api/games/status, the games where it is your turn first, and every
// link kept (and, for the creator, every link of the game) with copy buttons.
import { h, icon, logo, token, store, gameTitle } from "./common.js";
import { init as initI18n, t, picker, onLangChange } from "./i18n.js";
import { linkRow, eyeMark, tableMark, creatorLinks, playerList } from "./links.js";

const $ = (id) => document.getElementById(id);
const PLAY_ORDER = (k) => (k === "hotseat" ? 0 : /^\d+$/.test(k) ? 1 : k === "spectator" ? 2 : 3);

// A creator's link (/my#GAME:TOKEN, from POST /api/games) is kept here, then taken off the address.
function importFragment() {
  const m = location.hash.slice(1).match(/^([\w-]{1,32}):([\w-]{10,128})$/);
  if (!m) return;
  store.remember(m[1], { tokens: { creator: m[2] } });
  history.replaceState(null, "", location.pathname);
}

let statuses = {};
async function load() {
  const mine = store.mine();
  const items = [];
  for (const [game, entry] of Object.entries(mine))
    for (const tok of Object.values(entry.tokens || {})) items.push({ game, token: tok });
  statuses = {};
  for (let i = 0; i < items.length; i += 100) {
    try {
      const r = await fetch("/api/games/status", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ items: items.slice(i, i + 100) }),
      });
      const out = await r.json();
      out.items.forEach((st, k) => {
        statuses[`${items[i + k].game} ${items[i + k].token}`] = st;
      });
    } catch {
      /* offline: the list shows what this browser knows */
    }
  }
  render();
}

function rowOf(id, entry) {
  const keys = Object.keys(entry.tokens || {}).sort((a, b) => PLAY_ORDER(a) - PLAY_ORDER(b));
  const known = keys.map((k) => [k, entry.tokens[k], statuses[`${id} ${entry.tokens[k]}`]]);
  const live = known.filter(([, , st]) => st && !st.error);
  const best = live.find(([, , st]) => st.your_turn) || live.find(([k]) => k !== "creator") || live[0];
  const st = best?.[2];
  const rank = !st ? 4 : st.your_turn ? 0 : st.status === "waiting" ? 1 : st.status === "over" ? 3 : 2;
  return { id, entry, known, best, st, rank, at: entry.at || 0 };
}

function turnText(st) {
  if (st.status === "over") return t("my.over");
  if (st.status === "waiting") return t("my.waiting");
  if (st.your_turn) return t("turn.yours");
  return st.turn === null || st.turn === undefined
    ? ""
    : t("my.their_turn", { name: st.players[st.turn]?.name ?? "?" });
}

function render() {
  const ul = $("my-list");
  ul.replaceChildren();
  const rows = Object.entries(store.mine())
    .map(([id, e]) => rowOf(id, e))
    .sort((a, b) => a.rank - b.rank || b.at - a.at);
  for (const r of rows) {
    const st = r.st;
    const title = gameTitle(st?.title || r.entry.game, r.entry.title);
    const meta = h(
      "div",
      { class: "meta" },
      h("b", {}, title),
      h("span", {}, st ? playerList(st.players) : (r.entry.seats || []).join(", ")),
      st ? h("span", { class: "turn" }, " · ", turnText(st)) : h("span", {}, " · ", t("my.unavailable")),
    );
    const acts = h("span", { class: "acts" });
    if (r.best && r.best[0] !== "creator") {
      acts.append(
        h(
          "a",
          {
            class: `btn small ${st.your_turn ? "primary" : "gold"}`,
            href: `/game/${r.id}#${r.best[1]}`,
            "data-resume": r.id,
          },
          st.status === "over" ? t("lobby.results") : st.role === "spectator" ? t("lobby.watch") : t("lobby.resume"),
        ),
      );
    }
    const details = h("details", { "data-links": r.id }, h("summary", {}, t("my.links", { count: r.known.length })));
    const links = h("div", { class: "links" });
    details.append(links);
    details.addEventListener("toggle", async () => {
      if (!details.open || links.childElementCount) return;
      const creator = r.entry.tokens?.creator;
      if (creator) {
        try {
          links.append(...(await creatorLinks(r.id, creator)));
          return;
        } catch {
          /* show what this browser kept */
        }
      }
      for (const [k, tok] of r.known) {
        if (k === "creator") continue;
        const mark = k === "spectator" ? eyeMark() : k === "hotseat" ? tableMark() : token(Number(k));
        const label =
          k === "spectator"
            ? t("lobby.spectators")
            : k === "hotseat"
              ? t("lobby.hotseat_table")
              : (st?.players?.[Number(k)]?.name ?? t("lobby.player_n", { n: Number(k) + 1 }));
        links.append(linkRow(mark, label, `/game/${r.id}#${tok}`, t("lobby.open")));
      }
    });
    ul.append(
      h(
        "li",
        { class: st?.your_turn ? "yours" : "", "data-game": r.id, "data-rank": r.rank },
        meta,
        st ? h("span", { class: `status ${st.status}` }, t(`status.${st.status}`, {}, st.status)) : null,
        acts,
        details,
      ),
    );
  }
  if (!rows.length) ul.append(h("li", { class: "empty" }, t("lobby.mine_empty")));
}

let langPicker = null;
function renderTop() {
  $("topbar").replaceChildren(
    logo(),
    h("span", { class: "spacer" }),
    h("a", { class: "btn small ghost", href: "/" }, icon("flag"), " ", t("my.lobby")),
    langPicker,
  );
}

async function main() {
  await initI18n();
  langPicker = picker();
  renderTop();
  importFragment();
  onLangChange(() => {
    renderTop();
    render();
  });
  await load();
  setInterval(load, 15000);
}
main();
