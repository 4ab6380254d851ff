// @ts-check
// Links that are never lost: copying a link, rows of links, and the game page's additions
// (the creator's "Invite links" panel and the "waiting for players" banner), mounted by game.js with
// one call so the game page itself stays as it is.
import { h, icon, token, store } from "./common.js";
import { t, list } from "./i18n.js";
import { inviteForm, mailEnabled } from "./mail.js";
import { inviteControl, myFollowers, sentInvitations } from "./friends.js";

export const abs = (path) => new URL(path, location.href).href;

// The Clipboard API needs a secure context (https or localhost) and the page's focus; elsewhere a
// hidden textarea and execCommand("copy") still work in every browser we support.
export async function copyText(text) {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    /* fall back below */
  }
  const area = h("textarea", { readonly: true, style: "position:fixed;top:-1000px;opacity:0" });
  area.value = text;
  document.body.append(area);
  area.select();
  let ok;
  try {
    ok = document.execCommand("copy");
  } catch {
    ok = false;
  }
  area.remove();
  return ok;
}

export function copyButton(path) {
  const btn = h(
    "button",
    {
      class: "btn small copy",
      type: "button",
      "data-copy": abs(path),
      onclick: async () => {
        btn.textContent = (await copyText(abs(path))) ? t("lobby.copied") : t("lobby.select_copy");
      },
    },
    t("lobby.copy_link"),
  );
  return btn;
}

// One row: a seat's token symbol, a label, the link itself, copy, and open.
export function linkRow(mark, label, path, openLabel, primary = false) {
  return h(
    "div",
    { class: "link" },
    mark,
    h("div", {}, h("b", {}, label), h("br"), h("code", {}, abs(path))),
    copyButton(path),
    h("a", { class: `btn small ${primary ? "primary" : ""}`, href: path }, openLabel),
  );
}

export const eyeMark = () => h("span", { class: "token", style: "background:#777" }, icon("eye", 18));
export const tableMark = () => h("span", { class: "token", style: "background:#333" }, icon("swap", 18));

// Every link of a game from GET /api/games/{id}/links (the creator's token), as rows; the links seen
// are kept in this browser too. A signed-in creator may offer each seat nobody holds to a follower, and sees
// the invitations sent, with their state, under the seats.
export async function creatorLinks(gameId, creatorToken) {
  const r = await fetch(`/api/games/${encodeURIComponent(gameId)}/links`, {
    headers: { Authorization: `Bearer ${creatorToken}` },
  });
  if (!r.ok) throw new Error(String(r.status));
  const out = await r.json();
  const live = out.status !== "over" && !out.hotseat;
  const [mail, followers] = await Promise.all([
    out.status !== "over" && mailEnabled(),
    live ? myFollowers() : Promise.resolve([]),
  ]);
  const sent = sentInvitations(gameId, creatorToken);
  const kept = store.mine()[gameId]?.tokens || {}; // a seat whose link this browser keeps is the creator's own
  const rows = [];
  if (out.hotseat) rows.push(linkRow(tableMark(), t("lobby.hotseat_table"), out.hotseat.link, t("lobby.open")));
  for (const seat of out.seats) {
    if (seat.link) {
      const row = linkRow(token(seat.seat), seat.name, seat.link, t("lobby.open"));
      if (live && !seat.held && !(String(seat.seat) in kept) && followers.length)
        row.append(inviteControl(gameId, seat, creatorToken, followers, () => sent.refresh()));
      rows.push(row);
      if (mail && !out.hotseat) rows.push(inviteForm(gameId, seat.seat, creatorToken));
    } else if (seat.kind === "open")
      rows.push(
        h(
          "div",
          { class: "link open-seat" },
          token(seat.seat),
          h(
            "div",
            {},
            h("b", {}, t("links.open_seat", { n: seat.seat + 1 })),
            h("br"),
            h("span", {}, t("links.open_seat_text")),
          ),
        ),
      );
  }
  rows.push(linkRow(eyeMark(), t("lobby.spectators"), out.spectator.link, t("lobby.open")));
  await sent.refresh();
  rows.push(sent.box);
  return rows;
}

// The game page: a button for the creator that opens every link of the game, and a banner while
// seats are open. Both are in the flow of the page (the button among the tools of game.html, the banner
// above the seats), never over the board or the seats. Returns the function game.js calls with each state message.
export function mountGamePanel(gameId) {
  const banner = h("div", { class: "waitbar", id: "waitbar", role: "status", hidden: true });
  const panel = h("div", {
    class: "linkpanel",
    id: "linkpanel",
    role: "dialog",
    "aria-label": t("links.title"),
    hidden: true,
  });
  const button = h(
    "button",
    { class: "btn small gold linkbtn", id: "linkbtn", type: "button", hidden: true, onclick: () => toggle() },
    icon("person"),
    " ",
    t("links.button"),
  );
  const tools = document.getElementById("tools");
  (tools || document.body).append(button);
  const column = document.getElementById("boardcol");
  if (column) column.prepend(banner);
  else document.body.append(banner);
  document.body.append(panel);
  async function toggle() {
    if (!panel.hidden) {
      panel.hidden = true;
      return;
    }
    const creator = store.mine()[gameId]?.tokens?.creator;
    panel.replaceChildren(h("h2", {}, t("links.title")), h("p", {}, t("lobby.invitations_text")));
    try {
      panel.append(h("div", { class: "links" }, await creatorLinks(gameId, creator)));
    } catch {
      panel.append(h("p", { class: "error" }, t("links.failed")));
    }
    panel.append(
      h(
        "div",
        { class: "row", style: "justify-content:flex-end;margin-top:10px" },
        h("a", { class: "btn small ghost", href: "/my" }, t("my.title")),
        h(
          "button",
          {
            class: "btn small",
            type: "button",
            onclick: () => {
              panel.hidden = true;
            },
          },
          t("links.close"),
        ),
      ),
    );
    panel.hidden = false;
  }
  let last = null;
  function update(msg) {
    last = msg || last;
    if (!last) return;
    panel.setAttribute("aria-label", t("links.title"));
    button.hidden = !store.mine()[gameId]?.tokens?.creator;
    button.lastChild.textContent = ` ${t("links.button")}`;
    const open = (last.seats || []).filter((x) => x.kind === "open").length;
    banner.hidden = !last.waiting;
    if (last.waiting) {
      banner.replaceChildren(
        h("b", {}, t("links.waiting", { count: open })),
        " ",
        h("span", {}, t("links.waiting_text")),
        " ",
        h("a", { class: "btn small", href: "/" }, t("links.to_lobby")),
      );
    }
  }
  return update;
}

export function playerList(players) {
  return list(
    players.map((p) =>
      p.kind === "bot" ? t("lobby.name_bot", { name: p.name }) : p.kind === "open" ? t("links.open_short") : p.name,
    ),
  );
}
