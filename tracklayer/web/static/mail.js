// @ts-check
// E-mail (docs/server.md, "E-mail"): the address and switches on one's own profile, and a seat's
// invitation mailed from a game's links. The server decides everything (verification, limits); these
// only show its answers in the page's language.
import { h } from "./common.js";
import { t, lang } from "./i18n.js";
import { csrfHeaders } from "./account.js";

async function call(method, path, payload, headers = {}) {
  const r = await fetch(path, {
    method,
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", ...csrfHeaders(), ...headers },
    body: payload === undefined ? undefined : JSON.stringify(payload),
  });
  const body = await r.json().catch(() => ({}));
  return { ok: r.ok, status: r.status, body };
}

// what a refusal means to the person who typed: the server's detail names the field in English
function refusal(res) {
  if (res.status === 429) return t("mail.slow");
  if (res.status === 400 && String(res.body.detail || "").startsWith("field email")) return t("mail.invalid");
  return t("mail.failed", { detail: typeof res.body.detail === "string" ? res.body.detail : `HTTP ${res.status}` });
}

/** The "E-mail" panel of one's own profile (GET/PUT /api/me/mail). */
export function mailSection() {
  const section = h("section", { class: "panel", id: "profile-mail" }, h("h2", {}, t("mail.title")));
  let state = null;
  let note = "";
  let failed = false;

  async function save(payload) {
    const res = await call("PUT", "/api/me/mail", { ...payload, lang });
    failed = !res.ok;
    if (res.ok || res.body.enabled !== undefined) state = res.ok ? res.body : { ...state, ...res.body };
    note = res.ok ? (res.body.sent ? "" : t("mail.saved")) : refusal(res);
    draw();
  }

  function draw() {
    /** @type {(HTMLElement | null)[]} */
    const parts = [h("h2", {}, t("mail.title"))];
    if (!state) {
      section.replaceChildren(...parts);
      return;
    }
    if (!state.enabled) {
      parts.push(h("p", { class: "empty-note", id: "mail-off" }, t("mail.off")));
      section.replaceChildren(...parts);
      return;
    }
    const input = h("input", {
      type: "email",
      id: "mail-address",
      autocomplete: "email",
      maxlength: 254,
      "aria-label": t("mail.address"),
      placeholder: t("mail.address"),
      value: state.email || "",
    });
    const form = h(
      "form",
      {
        class: "row mailform",
        onsubmit: (e) => {
          e.preventDefault();
          save({ email: input.value.trim() || null });
        },
      },
      input,
      h("button", { class: "btn small primary", type: "submit", id: "mail-save" }, t("mail.save")),
      state.email
        ? h(
            "button",
            { class: "btn small ghost", type: "button", onclick: () => save({ email: null }) },
            t("mail.remove"),
          )
        : null,
    );
    let status = null;
    if (state.email && state.verified)
      status = h("p", { class: "mailstate ok", id: "mail-status", "data-state": "verified" }, "✓ ", t("mail.verified"));
    else if (state.email)
      status = h(
        "p",
        { class: "mailstate", id: "mail-status", "data-state": state.pending ? "pending" : "unconfirmed" },
        state.pending ? t("mail.pending", { email: state.email }) : t("mail.unconfirmed"),
        " ",
        h(
          "button",
          { class: "btn small ghost", type: "button", id: "mail-resend", onclick: () => save({ resend: true }) },
          t("mail.resend"),
        ),
      );
    const toggle = (key, label) =>
      h(
        "label",
        { class: "mailswitch" },
        h("input", {
          type: "checkbox",
          id: `mail-${key}`,
          checked: !!state[key],
          onchange: (e) => save({ [key]: e.target.checked }),
        }),
        " ",
        label,
      );
    parts.push(
      h("p", { class: "mailintro" }, t("mail.intro")),
      form,
      status,
      toggle("turn_mail", t("mail.turn")),
      toggle("invite_mail", t("mail.invite")),
      note ? h("p", { class: failed ? "error" : "mailintro", role: "status" }, note) : null,
    );
    section.replaceChildren(...parts.filter((x) => x !== null));
  }

  call("GET", "/api/me/mail").then((res) => {
    if (res.ok) state = res.body;
    draw();
  });
  return { element: section, redraw: draw };
}

let enabled = null;
/** Whether this server sends mail (GET /api/mail, asked once a page). */
export function mailEnabled() {
  enabled ??= fetch("/api/mail")
    .then((r) => r.json())
    .then((b) => !!b.enabled)
    .catch(() => false);
  return enabled;
}

/** "Invite by e-mail" under a seat's link (the game's creator token). */
export function inviteForm(gameId, seat, creatorToken) {
  const out = h("p", { class: "invitenote", role: "status" });
  const input = h("input", {
    type: "text",
    autocomplete: "off",
    maxlength: 254,
    "aria-label": t("invite.to"),
    placeholder: t("invite.to"),
  });
  const form = h(
    "form",
    {
      class: "row inviteform",
      hidden: true,
      onsubmit: async (e) => {
        e.preventDefault();
        const to = input.value.trim();
        if (!to) return;
        const res = await call(
          "POST",
          `/api/games/${encodeURIComponent(gameId)}/invite-mail`,
          to.includes("@") ? { seat, email: to, lang } : { seat, username: to, lang },
          { Authorization: `Bearer ${creatorToken}` },
        );
        out.className = res.ok ? "invitenote" : "error";
        out.textContent = res.ok
          ? t("invite.sent")
          : res.status === 404
            ? t("invite.no_player")
            : res.status === 409 && !to.includes("@")
              ? t("invite.declines")
              : t("invite.failed", { detail: refusal(res) });
        if (res.ok) input.value = "";
      },
    },
    input,
    h("button", { class: "btn small", type: "submit" }, t("invite.send")),
  );
  const open = h(
    "button",
    {
      class: "btn small ghost",
      type: "button",
      onclick: () => {
        form.hidden = !form.hidden;
        if (!form.hidden) input.focus();
      },
    },
    t("invite.button"),
  );
  return h("div", { class: "invite", "data-seat": seat }, open, form, out);
}
