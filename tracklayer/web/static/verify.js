// @ts-check
// The page a verification link opens (/verify-email#TOKEN): the token never reaches the server in a
// URL; this page posts it (POST /api/mail/verify) and says what came of it.
import { h, logo } from "./common.js";
import { init as initI18n, t, picker, onLangChange } from "./i18n.js";
import { accountBox } from "./account.js";

const token = decodeURIComponent(location.hash.slice(1));
history.replaceState(null, "", location.pathname); // the token leaves the address bar (and the history)
let result = "working";
let langPicker = null;

async function run() {
  if (!token) result = "invalid";
  else {
    try {
      const r = await fetch("/api/mail/verify", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ token }),
      });
      const body = await r.json().catch(() => ({}));
      result = r.ok ? "ok" : { "token-expired": "expired", "token-used": "used" }[body.code] || "invalid";
    } catch {
      result = "invalid";
    }
  }
  render();
}

function render() {
  document.title = t("verify.page_title");
  document.getElementById("topbar").replaceChildren(logo(), h("span", { class: "spacer" }), accountBox(), langPicker);
  document
    .getElementById("main")
    .replaceChildren(
      h(
        "section",
        { class: "panel" },
        h("h2", {}, t("verify.title")),
        h(
          "p",
          { id: "verify-result", "data-result": result, class: result === "ok" ? "" : "sub" },
          t(`verify.${result}`),
        ),
        h("p", {}, h("a", { class: "btn small", href: "/" }, t("verify.to_lobby"))),
      ),
    );
}

initI18n().then(() => {
  langPicker = picker();
  onLangChange(render);
  render();
  run();
});
