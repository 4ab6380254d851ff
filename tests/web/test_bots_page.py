"""The bot accounts page (/bots) in a browser: a signed-in person makes a bot account (with a
description) and an API token, the token (shown once) works against the API, is revoked on the page and
is refused from then on; at last the bot is deleted on the page and its tokens stop working.
Screenshots at 390×844 and 1366×768 in English and German, each just after a new token: German words
only on the German page, and on the phone every control is a finger target (44 px)."""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any

import httpx

from tests import waits
from tests.server.helpers import Server
from tests.web.test_accounts_browser import register
from tests.web.test_play import new_page

TARGETS = r"""() => [...document.querySelectorAll("#main button, #main input")].map((e) => {
  const r = e.getBoundingClientRect();
  return { what: e.id || e.className || e.tagName, w: r.width, h: r.height };
}).filter((t) => t.w < 44 || t.h < 44)"""


def whoami(server: Server, token: str) -> httpx.Response:
    return httpx.get(server.base + "/api/bot", headers={"Authorization": f"Bearer {token}"},
                     timeout=waits.scaled(10))


def new_token(page: Any, bot: str, label: str) -> str:
    card = page.locator(f'[data-bot="{bot}"]')
    card.locator("input.tok-label").fill(label)
    card.locator("button.new-token").click()
    page.wait_for_selector("#bot-secret-text")
    return str(page.inner_text("#bot-secret-text")).strip()


def test_make_a_bot_and_a_token_use_it_and_revoke_it(web_server: Server, browser: Any, shots: Path) -> None:
    owner, bot = f"Tüftler_{secrets.token_hex(3)}", f"Rechner_{secrets.token_hex(3)}"
    page = new_page(browser, 1366, 768)
    try:
        register(page, web_server.base, owner)
        page.click("#acct-profile")  # her own profile links to her bots (a phone's top bar has no room for it)
        page.wait_for_selector("#profile-bots")
        page.click("#acct-bots")
        page.wait_for_selector("#bot-new")
        page.fill("#bot-name", bot)
        page.fill("#bot-description", "Spielt die längste Strecke zuerst")
        page.click("#bot-create")
        card = page.locator(f'[data-bot="{bot}"]')
        card.wait_for()
        assert card.locator(".bot-description").inner_text() == "Spielt die längste Strecke zuerst"
        assert card.locator("p.empty").inner_text() == "No token yet: make one for your program."
        token = new_token(page, bot, "laptop")
        assert token.startswith("tlb_")
        page.click("#bot-secret-copy")
        page.wait_for_function("() => document.querySelector('#bot-secret .copied').textContent !== ''")
        answer = whoami(web_server, token)
        assert answer.status_code == 200, answer.text
        assert answer.json()["username"] == bot and answer.json()["owner"] == owner
        # shown once: after a reload the list names the token by its label and dates, never its secret
        page.reload()
        row = card.locator("tbody tr")
        row.wait_for()
        assert page.locator("#bot-secret").count() == 0
        assert token not in page.content()
        assert "laptop" in row.inner_text() and "never" not in row.inner_text()  # the API call used it
        page.once("dialog", lambda d: d.accept())
        row.locator("button.revoke").click()
        page.wait_for_selector(f'[data-bot="{bot}"] tr.revoked')
        assert "revoked" in row.inner_text()
        assert whoami(web_server, token).status_code == 401
        assert not page.errors, page.errors
        cookies = page.context.cookies()
    finally:
        page.context.close()
    for locale in ("en-US", "de-DE"):
        for w, h, phone in ((390, 844, True), (1366, 768, False)):
            page = new_page(browser, w, h, locale=locale, phone=phone)
            try:
                page.context.add_cookies(cookies)
                page.goto(web_server.base + "/bots")
                page.wait_for_selector(f'[data-bot="{bot}"]')
                new_token(page, bot, f"{locale[:2]}-{w}")
                page.evaluate("() => document.fonts.ready.then(() => scrollTo(0, 0))")
                page.screenshot(path=str(shots / f"bots-{locale[:2]}-{w}.png"), full_page=True)
                text = page.inner_text("body")
                if locale == "de-DE":
                    assert "Deine Bot-Konten" in text and "Widerrufen" in text and "Kopieren" in text, text
                    english = [w for w in ("bot account", "Revoke", "Copy", "Created", "Last used", "New token",
                                           "never", "since") if w in text]
                    assert english == [], english
                if phone:
                    assert page.evaluate(TARGETS) == []
                    # the top bar too: a signed-in person's account links take the room of the brand's name
                    assert page.evaluate("() => document.documentElement.scrollWidth") <= w
                assert not page.errors, page.errors
            finally:
                page.context.close()
    # the bot is deleted on the page: its tokens stop working and its profile is gone
    page = new_page(browser, 390, 844, locale="de-DE", phone=True)
    try:
        page.context.add_cookies(cookies)
        page.goto(f"{web_server.base}/u/{bot}")
        assert page.locator("#profile-description").inner_text() == "Spielt die längste Strecke zuerst"
        page.goto(web_server.base + "/bots")
        live = new_token(page, bot, "last")
        assert whoami(web_server, live).status_code == 200
        page.once("dialog", lambda d: d.accept())
        page.locator(f'[data-bot="{bot}"] button.delete-bot').click()
        page.wait_for_selector(f'[data-bot="{bot}"]', state="detached")
        assert page.locator("#main .empty").inner_text() == "Du hast noch kein Bot-Konto."
        assert whoami(web_server, live).status_code == 401
        assert httpx.get(f"{web_server.base}/api/users/{bot}", timeout=waits.scaled(10)).status_code == 404
        assert not page.errors, page.errors
    finally:
        page.context.close()
