// @ts-check
// The chat panel of the game page: players and spectators, over the game's websocket.
// Mounted by game.js with mountChat(send); game.js hands it the "chat", "chat_history" and chat error
// messages. Every text is put in the page as text (h() makes text nodes), never as HTML: a message
// reading "<img onerror=...>" is shown as those characters. Collapsed by default behind a small button
// with an unread count, so on a phone it covers nothing until opened. The button goes in the page's
// tools (game.html's #tools, in the flow of the page beside the seats, or under them on a phone),
// so that it never floats over a seat, a city or a card.
import { h, s, token } from "./common.js";
import { t, onLangChange, lang } from "./i18n.js";

const MAX = 500; // the server's limit (tracklayer.server.chat.MAX_CHAT)
const OPEN_KEY = "tracklayer.chat.open";

function bubble(size = 20) {
  return s(
    "svg",
    { viewBox: "0 0 16 16", width: size, height: size, class: "icon", "aria-hidden": "true" },
    s("path", {
      d: "M2 3h12v8H7l-3 3v-3H2z",
      fill: "none",
      stroke: "currentColor",
      "stroke-width": 1.6,
      "stroke-linejoin": "round",
    }),
  );
}

export function mountChat(send, slot = document.body) {
  const state = { messages: [], unread: 0, open: false, self: null, role: null };
  const list = h("ol", { class: "chat-list", id: "chat-list", "aria-live": "polite" });
  const note = h("div", { class: "chat-note", role: "status", hidden: true });
  const input = h("input", { id: "chat-input", maxlength: MAX, autocomplete: "off" });
  const sendBtn = h("button", { class: "btn small", type: "submit", id: "chat-send" });
  const form = h(
    "form",
    {
      class: "chat-form",
      onsubmit: (e) => {
        e.preventDefault();
        const text = input.value.trim();
        if (!text) return;
        if (send({ type: "chat", text })) input.value = "";
      },
    },
    input,
    sendBtn,
  );
  const title = h("h2", { id: "chat-h" });
  const closeBtn = h("button", { class: "chat-close", type: "button", onclick: () => setOpen(false) }, "×");
  const panel = h(
    "section",
    { class: "chat-panel", id: "chat", role: "dialog", "aria-labelledby": "chat-h", hidden: true },
    h("header", {}, title, closeBtn),
    list,
    note,
    form,
  );
  const badge = h("span", { class: "chat-badge", id: "chat-badge", hidden: true });
  const toggle = h(
    "button",
    { class: "chat-toggle", type: "button", id: "chat-toggle", onclick: () => setOpen(!state.open) },
    bubble(),
    badge,
  );
  document.head.append(h("link", { rel: "stylesheet", href: "/static/chat.css" }));
  slot.append(toggle);
  document.body.append(panel);

  function who(m) {
    if (m.role === "seat")
      return [token(m.seat), " ", h("b", {}, m.name ?? "?"), m.seat === state.self ? ` ${t("chat.you")}` : ""];
    return [h("span", { class: "chat-role" }, m.role === "table" ? t("chat.table") : t("chat.spectator"))];
  }

  function item(m) {
    const time = new Date((m.time || 0) * 1000);
    return h(
      "li",
      { class: `chat-msg role-${m.role}`, "data-idx": m.idx },
      h("span", { class: "chat-who" }, who(m)),
      h(
        "time",
        { datetime: time.toISOString() },
        time.toLocaleTimeString(lang, { hour: "2-digit", minute: "2-digit" }),
      ),
      h("div", { class: "chat-text" }, m.text),
    ); // a text node: never parsed as HTML
  }

  function render() {
    title.textContent = t("chat.title");
    closeBtn.setAttribute("aria-label", t("chat.close"));
    closeBtn.title = t("chat.close");
    input.placeholder = t("chat.placeholder");
    input.setAttribute("aria-label", t("chat.placeholder"));
    sendBtn.textContent = t("chat.send");
    toggle.setAttribute(
      "aria-label",
      state.unread ? `${t("chat.open")} — ${t("chat.unread", { count: state.unread })}` : t("chat.open"),
    );
    toggle.title = toggle.getAttribute("aria-label");
    toggle.setAttribute("aria-expanded", String(state.open));
    badge.textContent = state.unread > 99 ? "99+" : String(state.unread);
    badge.hidden = !state.unread || state.open;
    list.replaceChildren(
      ...(state.messages.length ? state.messages.map(item) : [h("li", { class: "empty" }, t("chat.empty"))]),
    );
    list.scrollTop = list.scrollHeight;
  }

  function setOpen(open) {
    state.open = open;
    panel.hidden = !open;
    toggle.classList.toggle("on", open);
    try {
      localStorage.setItem(OPEN_KEY, open ? "1" : "");
    } catch {
      /* private mode */
    }
    if (open) {
      state.unread = 0;
      input.focus({ preventScroll: true });
    }
    render();
  }

  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let showNoteTimer;
  function showNote(text) {
    note.textContent = text;
    note.hidden = false;
    clearTimeout(showNoteTimer);
    showNoteTimer = setTimeout(() => {
      note.hidden = true;
    }, 5000);
  }

  // Returns true if the message was the chat's to handle.
  function handle(msg, st) {
    if (st) state.self = st.role === "seat" ? st.seat : null;
    if (msg.type === "chat_history") {
      state.messages = msg.messages || [];
      render();
      return true;
    }
    if (msg.type === "chat") {
      if (state.messages.some((m) => m.idx === msg.idx)) return true; // a reconnect's history had it
      state.messages.push(msg);
      if (state.messages.length > 300) state.messages.splice(0, state.messages.length - 300);
      if (!state.open && !(msg.role === "seat" && msg.seat === state.self)) state.unread += 1;
      render();
      return true;
    }
    if (msg.type === "error" && (msg.code === "chat-rate" || msg.code === "bad-chat")) {
      if (!state.open) setOpen(true);
      showNote(t(`err.${msg.code}`));
      return true;
    }
    return false;
  }

  onLangChange(render);
  let wasOpen = false;
  try {
    wasOpen = localStorage.getItem(OPEN_KEY) === "1" && window.innerWidth > 980;
  } catch {
    /* private mode */
  }
  setOpen(wasOpen);
  return { handle, setOpen };
}
