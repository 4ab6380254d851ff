// @ts-check
// Friends (docs/server.md, Friends): a player's online status, the follow button of a profile, the lobby's
// friends list and invitations box, the "invite a friend" control of a game's seat links, and the invitations a
// game's creator sent, with their state, on the game's links (the game page's panel, My games).
// Every request that changes something carries the session's CSRF token (account.js).
import { h, icon, gameTitle, store } from "./common.js";
import { t, lang } from "./i18n.js";
import { csrfHeaders } from "./account.js";

async function send(path, body, headers = {}) {
  const r = await fetch(path, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", ...csrfHeaders(), ...headers },
    body: JSON.stringify(body || {}),
  });
  const out = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(typeof out.detail === "string" ? out.detail : `HTTP ${r.status}`);
  return out;
}

/** "5 minutes ago" in the page's language. */
export function ago(sec) {
  const diff = Math.round(sec - Date.now() / 1000);
  const rtf = new Intl.RelativeTimeFormat(lang, { numeric: "auto" });
  const units = /** @type {const} */ ([
    ["day", 86400],
    ["hour", 3600],
    ["minute", 60],
  ]);
  for (const [unit, size] of units) if (Math.abs(diff) >= size) return rtf.format(Math.round(diff / size), unit);
  return rtf.format(0, "minute");
}

/** An account's status (the API's ``presence``): a dot and a line; a watch link for a public game. */
export function presenceLine(p, id) {
  if (!p) return null;
  const state = p.in_game ? "playing" : p.online ? "online" : "offline";
  const text = p.in_game
    ? t("friends.in_game")
    : p.online
      ? t("friends.online")
      : p.last_seen
        ? t("friends.last_seen", { when: ago(p.last_seen) })
        : t("friends.never_seen");
  return h(
    "span",
    { class: `presence ${state}`, "data-presence": state, ...(id ? { id } : {}) },
    h("span", { class: "dot", "aria-hidden": "true" }),
    h("span", {}, text),
    p.watch
      ? h(
          "a",
          { class: "watch", href: p.watch, "data-watch-friend": "" },
          icon("eye", 13),
          " ",
          t("friends.watch", { game: gameTitle(p.game) }),
        )
      : null,
  );
}

/** The follow / unfollow button of a profile (``relation`` from GET /api/users/{name}); ``done`` gets the answer. */
export function followButton(username, relation, done) {
  const following = !!relation.following;
  const btn = h(
    "button",
    {
      class: `btn small ${following ? "" : "gold"}`,
      type: "button",
      id: "profile-follow",
      "aria-pressed": String(following),
      onclick: async () => {
        btn.disabled = true;
        try {
          done(await send(`/api/users/${encodeURIComponent(username)}/${following ? "unfollow" : "follow"}`));
        } catch (e) {
          done(null, t("friends.follow_failed", { detail: e.message }));
        }
      },
    },
    icon(following ? "check" : "person", 14),
    " ",
    following ? t("friends.following") : t("friends.follow"),
  );
  return btn;
}

// ---------------------------------------------------------------- the lobby's panel
/** The friends panel of the lobby: the invitations box and the list of the players one follows. */
export function friendsPanel() {
  const invites = h("ul", { class: "gamelist invites", id: "invites" });
  const invitesBox = h(
    "div",
    { id: "invites-box", hidden: true },
    h("h3", { id: "invites-h" }, t("friends.invitations")),
    invites,
    h("p", { class: "error", id: "invite-error", role: "alert" }),
  );
  const list = h("ul", { class: "gamelist friends", id: "friends" });
  const panel = h(
    "section",
    { class: "panel", id: "friends-panel", "aria-labelledby": "friends-h", hidden: true },
    h("h2", { id: "friends-h" }, t("friends.title")),
    invitesBox,
    list,
  );
  /** @type {any} */
  let last = null;

  function draw() {
    const data = last;
    panel.hidden = !data;
    if (!data) return;
    panel.querySelector("#friends-h").textContent = t("friends.title"); // the language may have changed
    panel.querySelector("#invites-h").textContent = t("friends.invitations");
    invitesBox.hidden = !data.invitations.length;
    invites.replaceChildren(
      ...data.invitations.map((inv) =>
        h(
          "li",
          { "data-invitation": inv.id },
          h(
            "div",
            { class: "meta" },
            h("b", {}, t("friends.invitation", { name: inv.from, game: gameTitle(inv.game) })),
            h("span", {}, t("friends.invitation_seat", { seat: inv.seat_name, count: inv.players.length })),
          ),
          h(
            "span",
            { class: "acts" },
            h("button", { class: "btn small primary", type: "button", onclick: () => accept(inv) }, t("friends.join")),
            h("button", { class: "btn small", type: "button", onclick: () => decline(inv) }, t("friends.decline")),
          ),
        ),
      ),
    );
    list.replaceChildren(
      ...(data.following.length
        ? data.following.map((f) =>
            h(
              "li",
              { "data-friend": f.username },
              h(
                "div",
                { class: "meta" },
                h(
                  "b",
                  {},
                  h("a", { href: `/u/${encodeURIComponent(f.username)}` }, f.username),
                  f.friend ? h("span", { class: "friend-mark" }, t("friends.friend")) : null,
                ),
                presenceLine(f),
              ),
            ),
          )
        : [h("li", { class: "empty" }, t("friends.empty"))]),
    );
  }

  async function accept(inv) {
    panel.querySelector("#invite-error").textContent = "";
    try {
      const out = await send(`/api/invitations/${encodeURIComponent(inv.id)}/accept`);
      store.remember(out.id, { game: out.game, tokens: { [out.seat]: out.token }, seats: inv.players });
      location.href = out.link;
    } catch (e) {
      panel.querySelector("#invite-error").textContent = t("friends.join_failed", { detail: e.message });
      refresh();
    }
  }

  async function decline(inv) {
    try {
      await send(`/api/invitations/${encodeURIComponent(inv.id)}/decline`);
    } catch {
      /* gone already */
    }
    refresh();
  }

  /** Ask again (the lobby calls this on its timer): nothing for a guest. */
  async function refresh() {
    try {
      const r = await fetch("/api/friends", { credentials: "same-origin" });
      last = r.ok ? await r.json() : null;
    } catch {
      /* offline: keep what is shown */
    }
    draw();
    return last;
  }

  return { panel, refresh, draw, signedIn: () => !!last, followers: () => (last ? last.followers : []) };
}

/** Under a new game's seat link: choose one of one's followers and send them the seat's invitation. */
export function inviteControl(gameId, seat, creatorToken, followers, onSent = () => {}) {
  const status = h("span", { class: "invite-status", role: "status" });
  // "also by e-mail": offered for a follower whose account takes invite mail (the API's ``invite_mail``)
  const byMail = /** @type {HTMLInputElement} */ (h("input", { type: "checkbox", "data-invite-mail": seat.seat }));
  const mailLabel = h("label", { class: "invite-mail", hidden: true }, byMail, " ", t("friends.invite_by_mail"));
  const select = /** @type {HTMLSelectElement} */ (
    h(
      "select",
      {
        "aria-label": t("friends.invite_label", { seat: seat.name }),
        "data-invite-seat": seat.seat,
        onchange: () => {
          const chosen = followers.find((f) => f.username === select.value);
          mailLabel.hidden = !chosen?.invite_mail;
          byMail.checked = !mailLabel.hidden;
        },
      },
      h("option", { value: "" }, t("friends.choose")),
      followers.map((f) => h("option", { value: f.username }, f.username)),
    )
  );
  const button = h(
    "button",
    {
      class: "btn small gold",
      type: "button",
      onclick: async () => {
        const username = select.value;
        if (!username) return;
        button.disabled = true;
        const mail = !mailLabel.hidden && byMail.checked;
        try {
          const out = await send(
            `/api/games/${encodeURIComponent(gameId)}/invite`,
            { seat: seat.seat, username, mail },
            { Authorization: `Bearer ${creatorToken}` },
          );
          const key = !mail ? "friends.invited" : out.mailed ? "friends.invited_mailed" : "friends.invited_not_mailed";
          status.textContent = t(key, { name: username });
          onSent();
        } catch (e) {
          status.textContent = t("friends.invite_failed", { detail: e.message });
        }
        button.disabled = false;
      },
    },
    t("friends.invite"),
  );
  return h("div", { class: "invite-row" }, select, mailLabel, button, status);
}

/** Who the signed-in account may invite (its followers); none for a guest. */
export async function myFollowers() {
  try {
    const r = await fetch("/api/friends", { credentials: "same-origin" });
    return r.ok ? (await r.json()).followers : [];
  } catch {
    return [];
  }
}

/** The invitations sent for a game (GET /api/games/{id}/invitations, the creator token), each with its state
 * and, while it waits, a button that withdraws it (DELETE /api/invitations/{id}). Hidden while there are none. */
export function sentInvitations(gameId, creatorToken) {
  const list = h("ul", { class: "sent-invites" });
  const note = h("p", { class: "error", role: "alert" });
  const title = h("h3", {});
  const box = h("div", { class: "sent-box", "data-sent-invitations": gameId, hidden: true }, title, list, note);
  const auth = { Authorization: `Bearer ${creatorToken}` };

  async function refresh() {
    let items = [];
    try {
      const r = await fetch(`/api/games/${encodeURIComponent(gameId)}/invitations`, {
        credentials: "same-origin",
        headers: auth,
      });
      if (r.ok) items = (await r.json()).invitations;
    } catch {
      /* offline: nothing to show */
    }
    title.textContent = t("friends.sent");
    box.hidden = !items.length;
    list.replaceChildren(
      ...items.map((inv) =>
        h(
          "li",
          { "data-invitation": inv.id, "data-state": inv.state },
          h(
            "span",
            { class: "who" },
            h("b", {}, inv.username),
            " · ",
            t("friends.sent_seat", { seat: inv.seat_name ?? String(inv.seat + 1) }),
          ),
          h("span", { class: `status invite-${inv.state}` }, t(`friends.state_${inv.state}`)),
          inv.state === "waiting"
            ? h(
                "button",
                {
                  class: "btn small",
                  type: "button",
                  "data-cancel": inv.id,
                  "aria-label": t("friends.cancel_label", { name: inv.username }),
                  onclick: () => cancel(inv),
                },
                t("friends.cancel"),
              )
            : null,
        ),
      ),
    );
  }

  async function cancel(inv) {
    note.textContent = "";
    try {
      const r = await fetch(`/api/invitations/${encodeURIComponent(inv.id)}`, {
        method: "DELETE",
        credentials: "same-origin",
        headers: { ...csrfHeaders(), ...auth },
      });
      if (!r.ok && r.status !== 404) {
        const out = await r.json().catch(() => ({}));
        throw new Error(typeof out.detail === "string" ? out.detail : `HTTP ${r.status}`);
      }
    } catch (e) {
      note.textContent = t("friends.cancel_failed", { detail: e.message });
    }
    await refresh();
  }

  return { box, refresh };
}
