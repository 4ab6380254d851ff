"""Every page a player sees fits a phone in every language: at 390×844 nothing scrolls sideways, no label
is cut off, no table column is out of reach, and every control of the top bar and the sign-in form is a
finger target (``TARGETS``).

What counts, measured in the page (``MEASURE``):

- the document is no wider than the window (its ``clientWidth``: on a phone ``innerWidth`` grows to fit
  content wider than the screen, so it would never tell);
- no text is cut: a text node (outside SVG) whose glyphs reach past the box of an ancestor that clips them
  (``overflow`` hidden or clip: its padding box; with ``text-overflow: ellipsis`` its content box, where the
  ellipsis starts), or past the window's edge, is truncated;
  a scrolling ancestor (``overflow: auto|scroll``) stops the search, as its text can be scrolled to;
- no table column is hidden: every heading of a table's first row is rendered, and one wider than its
  box is fine only in a box that scrolls sideways and whose scroll range reaches its first and last heading.

One server and a few games serve every language: an account's finished game (its end screen, its replay,
the profile and the leaderboard), a game of Ticket to Ride Europe at its ticket choice and later, and a
Trans Europa game with special cards; the rules page of each game.
"""

from __future__ import annotations

import base64
import json
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests import waits
from tests.server.helpers import Server, finished_account_game
from tests.web.test_play import new_page

LOCALES = ["en-US", "de-DE", "fr-FR", "it-IT", "nl-NL"]
PASSWORD = "a long enough password"  # tests.server.helpers.finished_account_game's

MEASURE = r"""() => {
  // the layout viewport: a phone's innerWidth grows with content wider than the screen, clientWidth does not
  const W = document.documentElement.clientWidth, out = [];
  const name = (e) => {
    let s = e.tagName.toLowerCase();
    if (e.id) return s + "#" + e.id;
    const cls = [...e.classList].slice(0, 2).join(".");
    if (cls) s += "." + cls;
    const p = e.parentElement;
    return p ? name(p).split(" ").slice(-1)[0] + " > " + s : s;
  };
  const add = (kind, e, text, detail) => {
    const key = kind + name(e);
    if (!out.some((o) => o.key === key))
      out.push({ key, kind, selector: name(e), text: text.trim().slice(0, 60), detail });
  };
  const root = document.scrollingElement || document.documentElement;
  if (root.scrollWidth > W) add("page scrolls sideways", document.documentElement, "", `${root.scrollWidth} > ${W}`);
  const rootClips = ["hidden", "clip"].includes(getComputedStyle(document.body).overflowX) ||
                    ["hidden", "clip"].includes(getComputedStyle(document.documentElement).overflowX);
  // (b) cut text
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!n.textContent.trim() || !el || el.closest("svg, script, style, noscript, template, option")) continue;
    const cs = getComputedStyle(el);
    if (cs.visibility !== "visible") continue;
    range.selectNodeContents(n);
    const rects = [...range.getClientRects()].filter((r) => r.width > 0.5 && r.height > 0.5);
    if (!rects.length) continue;
    const left = Math.min(...rects.map((r) => r.left)), right = Math.max(...rects.map((r) => r.right));
    const top = Math.min(...rects.map((r) => r.top)), bottom = Math.max(...rects.map((r) => r.bottom));
    let scrolls = false;
    for (let a = el; a && a !== document.body && a !== document.documentElement; a = a.parentElement) {
      const s = getComputedStyle(a);
      const box = a.getBoundingClientRect();
      if (box.width <= 2 || box.height <= 2) { scrolls = true; break; } // a visually hidden text (sr-only)
      const bl = a.clientLeft, bt = a.clientTop;
      // an ellipsis replaces what passes the content box; a bare clip cuts at the padding box
      const pl = s.textOverflow === "clip" ? 0 : parseFloat(s.paddingLeft);
      const pr = s.textOverflow === "clip" ? 0 : parseFloat(s.paddingRight);
      const inner = { left: box.left + bl + pl, right: box.left + bl + a.clientWidth - pr,
                      top: box.top + bt, bottom: box.top + bt + a.clientHeight };
      const ox = s.overflowX, oy = s.overflowY;
      if (["auto", "scroll"].includes(ox) && ["auto", "scroll"].includes(oy)) { scrolls = true; break; }
      const cutX = ["hidden", "clip"].includes(ox) && (right > inner.right + 1 || left < inner.left - 1);
      const cutY = ["hidden", "clip"].includes(oy) && (bottom > inner.bottom + 1 || top < inner.top - 1);
      if (cutX || cutY) {
        add("text cut", a, a.innerText || n.textContent,
            `${cutX ? "width" : "height"}: text ${Math.round(cutX ? right - left : bottom - top)} px in a box of ` +
            `${cutX ? a.clientWidth : a.clientHeight} px (overflow ${ox}/${oy}, text-overflow ${s.textOverflow})`);
        scrolls = true;
        break;
      }
      if (["auto", "scroll"].includes(ox)) { scrolls = true; break; }
    }
    if (!scrolls && (right > W + 1 || left < -1) && (rootClips || cs.position === "fixed"))
      add("text past the window", el, n.textContent, `${Math.round(left)}..${Math.round(right)} of ${W}`);
  }
  // (c) tables: every heading of the first row rendered and reachable
  for (const table of document.querySelectorAll("table")) {
    const tb = table.getBoundingClientRect();
    if (!tb.width || getComputedStyle(table).visibility !== "visible" || table.closest("[hidden]")) continue;
    const row = table.rows[0];
    if (!row) continue;
    const cells = [...row.cells];
    const hidden = cells.filter((c) => !c.getClientRects().length || c.getBoundingClientRect().width < 1);
    for (const c of hidden) add("column hidden", c, c.textContent || `column ${c.cellIndex + 1}`, "not rendered");
    let box = null;
    for (let a = table.parentElement; a && a !== document.body; a = a.parentElement) {
      if (getComputedStyle(a).overflowX !== "visible") { box = a; break; }
    }
    const limit = box ? box.getBoundingClientRect() : { left: 0, right: W };
    const scrolls = box ? ["auto", "scroll"].includes(getComputedStyle(box).overflowX) : !rootClips;
    for (const c of [cells[0], cells[cells.length - 1]]) {
      if (!c) continue;
      const r = c.getBoundingClientRect();
      const inside = r.left >= limit.left - 1 && r.right <= limit.right + 1;
      const reachable = scrolls && (box
        ? r.right - limit.left + box.scrollLeft <= box.scrollWidth + 1 && r.left - limit.left + box.scrollLeft >= -1
        : r.right + scrollX <= root.scrollWidth + 1);
      if (!inside && !reachable)
        add("column out of reach", c, c.textContent || `column ${c.cellIndex + 1}`,
            `${Math.round(r.left)}..${Math.round(r.right)} in a box ` +
            `${Math.round(limit.left)}..${Math.round(limit.right)}`);
    }
  }
  return out.map(({ key, ...o }) => o);
}"""

# the top bar's controls and the sign-in form's: each at least 44 px both ways (the language <select> lies over
# its 44 px box, i18n.js picker) and inside the window
TARGETS = r"""() => {
  const W = document.documentElement.clientWidth, out = [];
  const controls = ".topbar a, .topbar button, .topbar select, #acct-form button, #acct-form input";
  for (const e of document.querySelectorAll(controls)) {
    const box = e.matches(".lang-box > select") ? e.parentElement : e;
    const r = box.getBoundingClientRect();
    if (!r.width || !r.height) continue; // not shown on this page
    const found = (kind, detail) => ({ kind, selector: e.id || e.className || e.tagName, text: e.innerText || "",
                                       detail });
    if (r.width < 43.5 || r.height < 43.5)
      out.push(found("small target", `${Math.round(r.width)}×${Math.round(r.height)} px`));
    if (r.left < -1 || r.right > W + 1)
      out.push(found("control past the window", `${Math.round(r.left)}..${Math.round(r.right)} of ${W}`));
  }
  return out;
}"""

SCORE_DOC = {"game": "ttr-europe", "tiebreak": "anniversary-de", "variant": "classic", "players": [
    {"name": "Annabelle", "color": 3, "routes": [["Paris", "Frankfurt", "white"], ["Frankfurt", "München"],
                                                 ["München", "Wien"]],
     "stations": ["Berlin"], "tickets": [["Paris", "Wien"], ["Paris", "Berlin", 7]]},
    {"name": "Bartholomew", "routes": [["Berlin", "Frankfurt", "red"], ["Berlin", "Danzig"]],
     "tickets": [["Berlin", "Roma"]]},
    {"name": "Cy"}]}


@dataclass
class Games:
    username: str
    finished: dict[str, Any]  # the account's New York game against a bot, over
    start: dict[str, Any]  # Europe at its ticket choice
    europe: dict[str, Any]  # Europe a turn later: hand, market, tickets
    trans: dict[str, Any]  # Trans Europa with special cards


def keep_all(server: Server, out: dict[str, Any]) -> None:
    """Seat 0 keeps its whole first offer and waits for its next turn."""
    client = server.client(out["id"], out["seats"][0]["token"])
    try:
        s = client.my_turn()
        keep = max((m for m in s["legal"] if m.startswith("keep ")), key=len)
        ack = client.move(keep)
        assert ack["type"] == "ack", ack
        client.wait_state(lambda st: st["moves"] > ack["index"] and bool(st.get("legal")))
    finally:
        client.close()


@pytest.fixture(scope="module")
def games(web_server: Server) -> Games:
    username = f"Maximiliane_{secrets.token_hex(3)}"
    finished = finished_account_game(web_server, username)
    with httpx.Client(base_url=web_server.base, timeout=waits.scaled(20)) as http:  # her bot account, one token
        r = http.post("/api/login", json={"username": username, "password": PASSWORD})
        assert r.status_code == 200, r.text
        csrf = {"X-CSRF-Token": r.json()["csrf"]}
        bot = f"Rechenknecht_{secrets.token_hex(3)}"
        r = http.post("/api/me/bots", headers=csrf, json={"name": bot, "description": "Ein Programm, das gierig baut"})
        assert r.status_code == 201, r.text
        r = http.post(f"/api/bots/{bot}/tokens", headers=csrf, json={"label": "Werkstattrechner"})
        assert r.status_code == 201, r.text
    bots = [{"kind": "bot", "bot": "greedy"}, {"kind": "bot", "bot": "greedy"}]
    start = web_server.create("ttr-europe", [{"name": "Annabelle"}, *bots], first_player=0)
    europe = web_server.create("ttr-europe", [{"name": "Annabelle"}, *bots], first_player=0)
    keep_all(web_server, europe)
    trans = web_server.create("trans-europa", [{"name": "Annabelle"}, {"kind": "bot", "bot": "steiner"},
                                               {"kind": "bot"}], variant="special-cards", first_player=0)
    return Games(username, finished, start, europe, trans)


def my_turn(page: Any) -> None:
    page.wait_for_function("() => { const s = window.__tracklayer && window.__tracklayer.st;"
                           " return s && (s.legal || []).length }", timeout=waits.ms(30))


def pages(games: Games) -> list[tuple[str, str, Any]]:
    """(name, address, what to wait for or do once it is loaded) of every page a player sees."""
    fragment = base64.urlsafe_b64encode(json.dumps(SCORE_DOC).encode()).decode().rstrip("=")

    def account_form(page: Any) -> None:
        page.wait_for_selector("#acct-open")
        page.click("#acct-open")
        page.wait_for_selector("#acct-form")

    def sel(selector: str) -> Any:
        return lambda page: page.wait_for_selector(selector)

    def game(selector: str) -> Any:
        def ready(page: Any) -> None:
            page.wait_for_selector(selector)
            my_turn(page)
        return ready

    def signed_in(selector: str) -> Any:
        def ready(page: Any) -> None:
            status = page.evaluate("(body) => fetch('/api/login', {method: 'POST', headers: {'Content-Type': "
                                   "'application/json'}, body}).then((r) => r.status)",
                                   json.dumps({"username": games.username, "password": PASSWORD}))
            assert status == 200, status
            page.reload()
            page.wait_for_selector(selector)
        return ready

    def replay_end(page: Any) -> None:
        page.wait_for_function("() => window.__replay && window.__replay.total > 0 && !window.__replay.loading")
        page.click("#replay-last-btn")
        page.wait_for_selector("#replay-result")

    return [
        ("lobby", "/", sel(".tile")),
        ("login form", "/", account_form),
        ("game: ticket choice", games.start["seats"][0]["link"], game("#action input[data-ticket]")),
        ("game: a turn", games.europe["seats"][0]["link"], game("#hand")),
        ("game: Trans Europa", games.trans["seats"][0]["link"], game("#special-cards")),
        ("game: final scores", games.finished["seats"][0]["link"], sel("#final")),
        ("replay", f"/replay/{games.finished['id']}", replay_end),
        ("score page", f"/score#j={fragment}", sel("#sc-breakdown .scores")),
        ("my games", "/my", sel("#my-list li")),
        ("leaderboard", "/leaderboard", sel("#ladder tbody tr")),
        ("profile", f"/u/{games.username}", sel("#profile-games tbody tr")),
        ("bot accounts, signed out", "/bots", sel("#bots-login")),
        *((f"rules {game}", f"/rules/{game}", sel(".rules-section h2"))
          for game in ("ttr-europe", "ttr-new-york", "trans-europa", "trans-america")),
        ("bot accounts", "/bots", signed_in("#main .tokens tbody tr")),  # the page's context stays signed in
        ("game: a turn, signed in", games.europe["seats"][0]["link"], game("#hand")),  # the fullest top bar
    ]


@pytest.mark.parametrize("locale", LOCALES)
def test_no_cut_text_and_no_hidden_column_on_a_phone(web_server: Server, browser: Any, games: Games,
                                                     locale: str, shots: Path) -> None:
    page = new_page(browser, 390, 844, locale=locale, phone=True)
    found: list[str] = []
    try:
        for name, address, ready in pages(games):
            page.goto(web_server.base + address)
            ready(page)
            page.evaluate("() => document.fonts.ready")
            if locale in ("en-US", "de-DE"):
                page.screenshot(path=str(shots / f"phone-{name.replace(':', '').replace(' ', '-')}-{locale[:2]}.png"))
            for o in page.evaluate(MEASURE) + page.evaluate(TARGETS):
                found.append(f"{name} [{locale[:2]}] {o['kind']}: {o['selector']} “{o['text']}” ({o['detail']})")
        assert not page.errors, page.errors
    finally:
        page.context.close()
    assert not found, f"{len(found)} cut labels, hidden columns or small targets at 390×844:\n" + "\n".join(found)
