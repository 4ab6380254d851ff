// @ts-check
// Accounts in the top bar (lobby, game, profile, leaderboard): log in, register, log out, a link to
// one's profile and to the leaderboard. Accounts are optional: guests play by link as before.
// State-changing requests that the session cookie authenticates carry the session's CSRF token
// (X-CSRF-Token, from GET /api/me): csrfHeaders() gives it to the other modules (the lobby's "create").
import { h, icon, logo } from "./common.js";
import { init as initI18n, t, onLangChange, picker } from "./i18n.js";

let me = null; // {username} when logged in
let csrf = "";
let box = null;
let open = false;
let error = "";
let typed = ""; // the username survives a refused attempt (the form is drawn anew)
const ready = refresh();

function stylesheet() {
  if (document.querySelector('link[href="/static/account.css"]')) return;
  document.head.append(h("link", { rel: "stylesheet", href: "/static/account.css" }));
}

async function refresh() {
  try {
    const r = await fetch("/api/me", { credentials: "same-origin" });
    const body = await r.json();
    me = body.account;
    csrf = body.csrf || "";
  } catch {
    me = null;
    csrf = "";
  }
  render();
}

/** Headers a cookie-authenticated state-changing request must carry (none for guests). */
export function csrfHeaders() {
  return me && csrf ? { "X-CSRF-Token": csrf } : {};
}
export async function account() {
  await ready;
  return me;
}

async function send(path, payload) {
  const r = await fetch(path, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", ...csrfHeaders() },
    body: JSON.stringify(payload || {}),
  });
  const body = await r.json().catch(() => ({}));
  if (!r.ok) {
    // a name that looks like an existing one (UTS #39 confusables: "Vıctım" next to "Victim") is refused too
    if (r.status === 409 && body.code === "username-lookalike")
      throw new Error(t("account.err_lookalike", { name: String(body.existing ?? "") }));
    const key = { 401: "account.err_wrong", 409: "account.err_taken", 429: "account.err_slow" }[r.status];
    throw new Error(key ? t(key) : typeof body.detail === "string" ? body.detail : `HTTP ${r.status}`);
  }
  return body;
}

async function submit(kind, form) {
  const username = form.querySelector("[name=username]").value.trim();
  typed = username;
  const password = form.querySelector("[name=password]").value;
  if (kind === "register" && password.length < 8) {
    error = t("account.err_short");
    render();
    return;
  }
  try {
    const body = await send(kind === "register" ? "/api/register" : "/api/login", { username, password });
    me = { username: body.username };
    csrf = body.csrf;
    open = false;
    error = "";
  } catch (e) {
    error = e.message;
    form.querySelector("[name=password]").value = ""; // a refused password is typed again
  }
  render();
  if (me) document.dispatchEvent(new CustomEvent("tracklayer:account", { detail: me }));
}

async function logout() {
  try {
    await send("/api/logout");
  } catch {
    /* the cookie may be gone already */
  }
  me = null;
  csrf = "";
  render();
  document.dispatchEvent(new CustomEvent("tracklayer:account", { detail: null }));
}

function form() {
  const f = h(
    "form",
    {
      class: "acct-form",
      id: "acct-form",
      onsubmit: (e) => {
        e.preventDefault();
        submit("login", f);
      },
    },
    h(
      "label",
      {},
      h("span", {}, t("account.username")),
      h("input", {
        name: "username",
        autocomplete: "username",
        required: true,
        maxlength: 24,
        id: "acct-user",
        value: typed,
      }),
    ),
    h(
      "label",
      {},
      h("span", {}, t("account.password")),
      h("input", {
        name: "password",
        type: "password",
        autocomplete: "current-password",
        required: true,
        maxlength: 256,
        id: "acct-pass",
      }),
    ),
    h("p", { class: "acct-hint" }, t("account.hint")),
    error ? h("p", { class: "error", role: "alert", id: "acct-error" }, error) : null,
    h(
      "div",
      { class: "acct-buttons" },
      h(
        "button",
        { class: "btn small", type: "button", id: "acct-register", onclick: () => submit("register", f) },
        t("account.register"),
      ),
      h("button", { class: "btn primary small", type: "submit", id: "acct-login" }, t("account.login")),
    ),
  );
  return f;
}

function render() {
  if (!box) return;
  const board = h(
    "a",
    { class: "acct-link", href: "/leaderboard", title: t("account.leaderboard"), id: "acct-board" },
    icon("trophy", 15),
    h("span", { class: "acct-label" }, t("account.leaderboard")),
  );
  if (me) {
    box.replaceChildren(
      board,
      h(
        "a",
        {
          class: "acct-link acct-me",
          href: `/u/${encodeURIComponent(me.username)}`,
          id: "acct-profile",
          title: t("account.profile"),
        },
        icon("person", 15),
        h("span", { class: "acct-name" }, me.username),
      ),
      h(
        "a",
        { class: "acct-link", href: "/bots", id: "acct-bots", title: t("account.bots") },
        icon("bot", 15),
        h("span", { class: "acct-label" }, t("account.bots")),
      ),
      h(
        "button",
        {
          class: "btn ghost small",
          type: "button",
          id: "acct-logout",
          "aria-label": t("account.logout"),
          onclick: logout,
        },
        icon("flag", 14),
        h("span", { class: "acct-label" }, t("account.logout")),
      ),
    );
    return;
  }
  const toggle = h(
    "button",
    {
      class: "btn ghost small",
      type: "button",
      id: "acct-open",
      "aria-expanded": String(open),
      "aria-label": t("account.login"),
      onclick: () => {
        open = !open;
        error = "";
        render();
        if (open) box.querySelector("#acct-user")?.focus();
      },
    },
    icon("person", 14),
    h("span", { class: "acct-label" }, t("account.login")),
  );
  const kept = typedIn(box);
  box.replaceChildren(...[board, toggle, open ? form() : null].filter(Boolean));
  if (open) restoreTyped(box, kept);
}

/**
 * What the open form holds: the box is drawn anew when /api/me answers or the catalog arrives, which
 * may be while someone types (a slow connection), and must not wipe the name and password typed.
 * @param {Element} root
 */
function typedIn(root) {
  const user = /** @type {HTMLInputElement | null} */ (root.querySelector("#acct-user"));
  const pass = /** @type {HTMLInputElement | null} */ (root.querySelector("#acct-pass"));
  if (!user || !pass) return null;
  const focused = document.activeElement === user ? "#acct-user" : document.activeElement === pass ? "#acct-pass" : "";
  return { user: user.value, pass: pass.value, focused };
}

/**
 * @param {Element} root
 * @param {{user: string, pass: string, focused: string} | null} kept
 */
function restoreTyped(root, kept) {
  if (!kept) return;
  const user = /** @type {HTMLInputElement | null} */ (root.querySelector("#acct-user"));
  const pass = /** @type {HTMLInputElement | null} */ (root.querySelector("#acct-pass"));
  if (!user || !pass) return;
  user.value = kept.user;
  pass.value = kept.pass;
  if (kept.focused) /** @type {HTMLInputElement | null} */ (root.querySelector(kept.focused))?.focus();
}

/** The top bar's account area: one element that stays the same across re-renders of the bar. */
export function accountBox() {
  if (!box) {
    stylesheet();
    box = h("span", { class: "acct", id: "acct" });
    onLangChange(render);
    document.addEventListener("keydown", (e) => {
      if (e.key === "Escape" && open) {
        open = false;
        render();
      }
    });
    render();
  }
  return box;
}

/**
 * Start a page whose top bar is the logo, the account box and the language picker (rules, profile,
 * leaderboard): once the catalog is loaded the bar and `render` are drawn, and drawn again on each
 * change of language.
 * @param {() => void} render draws the page's main part
 * @returns {Promise<void>} settles after the first render
 */
export async function startPage(render) {
  await initI18n();
  const langPicker = picker();
  const renderTop = () =>
    document.getElementById("topbar").replaceChildren(logo(), h("span", { class: "spacer" }), accountBox(), langPicker);
  renderTop();
  onLangChange(() => {
    renderTop();
    render();
  });
  render();
}
