// @ts-check
// The signed-in person's bot accounts (/bots): outside programs that play rated games with an API token
// (docs/bots.md). Lists them, creates one, and per bot creates and revokes its tokens. A new token's
// secret is shown once, with a copy button: the server keeps only its hash, so a list shows a token by
// its label, public id and dates. Everything goes through /api/me/bots and /api/bots/{name}/tokens.
import { h, icon } from "./common.js";
import { t, lang } from "./i18n.js";
import { account, csrfHeaders, startPage } from "./account.js";
import { copyText } from "./links.js";

let me = null; // the signed-in person, null for a guest
let loaded = false;
let bots = []; // [{name, created_at, tokens: [{id, label, created_at, last_used_at, revoked}]}]
let fresh = null; // {bot, token}: the secret just made, shown until the next change
let error = "";

const when = (sec) =>
  sec ? new Date(sec * 1000).toLocaleDateString(lang, { year: "numeric", month: "short", day: "numeric" }) : "—";

async function api(method, path, payload) {
  const r = await fetch(path, {
    method,
    credentials: "same-origin",
    headers: payload === undefined ? csrfHeaders() : { "Content-Type": "application/json", ...csrfHeaders() },
    body: payload === undefined ? undefined : JSON.stringify(payload),
  });
  const body = await r.json().catch(() => ({}));
  if (!r.ok) {
    const key = { 409: "bots.err_taken", 429: "account.err_slow" }[r.status];
    throw new Error(key ? t(key) : typeof body.detail === "string" ? body.detail : `HTTP ${r.status}`);
  }
  return body;
}

async function load() {
  me = await account();
  if (me) {
    const list = (await api("GET", "/api/me/bots")).bots;
    for (const b of list) b.tokens = (await api("GET", `/api/bots/${encodeURIComponent(b.name)}/tokens`)).tokens;
    bots = list;
  }
  loaded = true;
  render();
}

/** Run a change, then show the list again (an error stays under the form until the next change). */
async function change(work) {
  error = "";
  try {
    await work();
  } catch (e) {
    error = e instanceof Error ? e.message : String(e);
    fresh = null;
  }
  await load();
}

function createForm() {
  const f = h(
    "form",
    {
      class: "bot-new",
      id: "bot-new",
      onsubmit: (e) => {
        e.preventDefault();
        const name = /** @type {HTMLInputElement} */ (f.querySelector("#bot-name")).value.trim();
        const description = /** @type {HTMLInputElement} */ (f.querySelector("#bot-description")).value.trim();
        change(async () => {
          await api("POST", "/api/me/bots", { name, description: description || null });
          fresh = null;
        });
      },
    },
    h(
      "label",
      { for: "bot-name" },
      t("bots.name"),
      h("input", { id: "bot-name", name: "name", required: true, minlength: 3, maxlength: 24, autocomplete: "off" }),
    ),
    h(
      "label",
      { for: "bot-description", class: "wide" },
      t("bots.description"),
      h("input", { id: "bot-description", name: "description", maxlength: 200, autocomplete: "off" }),
    ),
    h("p", { class: "hint" }, t("bots.name_hint")),
    h("button", { class: "btn primary", type: "submit", id: "bot-create" }, icon("bot", 15), " ", t("bots.create")),
  );
  return f;
}

function secretBox(token) {
  const copied = h("span", { class: "copied", role: "status" });
  return h(
    "div",
    { class: "bot-secret", id: "bot-secret" },
    h("p", {}, t("bots.secret_once")),
    h("code", { id: "bot-secret-text" }, token),
    h(
      "button",
      {
        class: "btn small",
        type: "button",
        id: "bot-secret-copy",
        onclick: async () => {
          copied.textContent = (await copyText(token)) ? t("bots.copied") : t("bots.copy_failed");
        },
      },
      t("bots.copy"),
    ),
    copied,
  );
}

function tokenRow(bot, tok) {
  const revoke = tok.revoked
    ? null
    : h(
        "button",
        {
          class: "btn small ghost revoke",
          type: "button",
          "aria-label": t("bots.revoke_label", { label: tok.label }),
          onclick: () => {
            if (!confirm(t("bots.revoke_confirm", { label: tok.label }))) return;
            change(async () => {
              await api("DELETE", `/api/bots/${encodeURIComponent(bot.name)}/tokens/${encodeURIComponent(tok.id)}`);
              fresh = null;
            });
          },
        },
        t("bots.revoke"),
      );
  // the token's action stands in its own cell, so a phone's narrow table keeps it in view
  return h(
    "tr",
    { "data-token": tok.id, class: tok.revoked ? "revoked" : null },
    h(
      "td",
      {},
      h(
        "div",
        { class: "tok-head" },
        h("div", {}, h("b", {}, tok.label), h("div", { class: "tok-id" }, t("bots.token_id", { id: tok.id }))),
        revoke,
      ),
    ),
    h("td", {}, when(tok.created_at)),
    h("td", {}, tok.revoked ? t("bots.revoked") : tok.last_used_at ? when(tok.last_used_at) : t("bots.never")),
  );
}

function botCard(bot) {
  const label = h("input", {
    class: "tok-label",
    name: "label",
    maxlength: 24,
    placeholder: t("bots.token_label_short"),
    "aria-label": t("bots.token_label"),
  });
  return h(
    "section",
    { class: "panel bot", "data-bot": bot.name },
    h(
      "h2",
      {},
      icon("bot", 18),
      " ",
      h("a", { href: `/u/${encodeURIComponent(bot.name)}` }, bot.name),
      h("span", { class: "since" }, t("bots.since", { date: when(bot.created_at) })),
    ),
    bot.description ? h("p", { class: "bot-description" }, bot.description) : null,
    fresh && fresh.bot === bot.name ? secretBox(fresh.token) : null,
    bot.tokens.length
      ? h(
          "div",
          { class: "tablewrap" },
          h(
            "table",
            { class: "ladder tokens" },
            h(
              "thead",
              {},
              h(
                "tr",
                {},
                h("th", {}, t("bots.token")),
                h("th", {}, t("bots.created")),
                h("th", {}, t("bots.last_used")),
              ),
            ),
            h("tbody", {}, ...bot.tokens.map((tok) => tokenRow(bot, tok))),
          ),
        )
      : h("p", { class: "empty" }, t("bots.no_tokens")),
    h(
      "form",
      {
        class: "tok-new",
        onsubmit: (e) => {
          e.preventDefault();
          const text = label.value.trim();
          change(async () => {
            const made = await api("POST", `/api/bots/${encodeURIComponent(bot.name)}/tokens`, {
              label: text || null,
            });
            fresh = { bot: bot.name, token: made.token };
          });
        },
      },
      label,
      h("button", { class: "btn small new-token", type: "submit" }, t("bots.new_token")),
    ),
    h(
      "div",
      { class: "bot-delete" },
      h(
        "button",
        {
          class: "btn small ghost delete-bot",
          type: "button",
          onclick: () => {
            if (!confirm(t("bots.delete_confirm", { name: bot.name }))) return;
            change(async () => {
              await api("DELETE", `/api/me/bots/${encodeURIComponent(bot.name)}`);
              fresh = null;
            });
          },
        },
        t("bots.delete"),
      ),
    ),
  );
}

function render() {
  const main = document.getElementById("main");
  document.title = t("bots.page_title");
  const head = h("div", {}, h("h1", {}, t("bots.title")), h("p", { class: "sub" }, t("bots.intro")));
  if (!loaded) {
    main.replaceChildren(head);
    return;
  }
  if (!me) {
    main.replaceChildren(head, h("section", { class: "panel" }, h("p", { id: "bots-login" }, t("bots.login_first"))));
    return;
  }
  main.replaceChildren(
    head,
    h(
      "section",
      { class: "panel" },
      h("h2", {}, t("bots.new_title")),
      createForm(),
      error ? h("p", { class: "error", role: "alert", id: "bots-error" }, error) : null,
    ),
    ...(bots.length
      ? bots.map(botCard)
      : [h("section", { class: "panel" }, h("p", { class: "empty" }, t("bots.none")))]),
  );
}

startPage(render).then(() => {
  document.addEventListener("tracklayer:account", () => load());
  load();
});
