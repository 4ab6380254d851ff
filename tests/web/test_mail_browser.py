"""E-mail in a browser: a logged-in player sets an address on their profile and sees "verification
sent"; the mailed link opens the page that confirms it. English and German, on a desktop and a phone
(screenshots of each); the German page shows no English, and nothing is cut off or scrolls sideways."""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests import waits
from tests.server.helpers import ROOT, Server
from tests.server.test_mail import Mailbox, link_of, mail_server
from tests.server.test_mail import mailbox as mailbox
from tests.web.test_play import new_page

CATALOGS = ROOT / "tracklayer" / "web" / "static" / "i18n"


@pytest.fixture(scope="module")
def mail_web(tmp_path_factory: pytest.TempPathFactory, mailbox: Mailbox) -> Iterator[Server]:
    srv = mail_server(tmp_path_factory.mktemp("mailweb"), mailbox.port)  # type: ignore[attr-defined]
    try:
        yield srv
    finally:
        srv.stop()


def _logged_in(browser: Any, srv: Server, width: int, height: int, locale: str, phone: bool) -> tuple[Any, str]:
    username = f"Post_{secrets.token_hex(3)}"
    with httpx.Client(base_url=srv.base, timeout=waits.scaled(20)) as http:
        r = http.post("/api/register", json={"username": username, "password": "a long enough password"})
        assert r.status_code == 201, r.text
        cookie = http.cookies["tl_session"]
    page = new_page(browser, width, height, locale=locale, phone=phone)
    page.context.add_cookies([{"name": "tl_session", "value": cookie, "url": srv.base}])
    return page, username


def _fits(page: Any) -> None:
    """The panel and every text and control in it lie within the screen's width (nothing cut at its edge)."""
    vw = page.evaluate("() => document.documentElement.clientWidth")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= vw  # the top bar too (an account's)
    for el in page.locator("#profile-mail, #profile-mail p, #profile-mail input, #profile-mail button, "
                           "#profile-mail label").all():
        box = el.bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= vw + 0.5, (el.inner_text(), box, vw)


@pytest.mark.parametrize("locale", ["en-US", "de-DE"])
def test_setting_an_address_shows_verification_sent(mail_web: Server, mailbox: Mailbox, browser: Any, shots: Path,
                                                    locale: str) -> None:
    lang = locale[:2]
    english = json.loads((CATALOGS / "en.json").read_text())
    own = json.loads((CATALOGS / f"{lang}.json").read_text())
    for w, h, phone in ((1366, 768, False), (390, 844, True)):
        page, username = _logged_in(browser, mail_web, w, h, locale, phone)
        address = f"{username.lower()}@example.org"
        try:
            page.goto(f"{mail_web.base}/u/{username}")
            page.locator("#mail-address").fill(address)
            page.locator("#mail-save").click()
            status = page.locator('#mail-status[data-state="pending"]')
            status.wait_for()
            assert status.inner_text().startswith(own["mail.pending"].split("{email}")[0]), status.inner_text()
            assert address in status.inner_text()
            page.evaluate("() => document.fonts.ready")
            _fits(page)
            page.screenshot(path=str(shots / f"profile-mail-{lang}-{w}.png"), full_page=True)
            panel = page.inner_text("#profile-mail")
            if lang == "de":  # every text of the panel is German: none of the English messages shows
                shown = [english[k] for k in english if k.startswith("mail.") and "{" not in english[k]
                         and english[k] != own[k] and english[k] in panel]
                assert shown == [], shown
                assert "Schreib mir, wenn ich" in panel and "Link erneut senden" in panel
            assert page.locator("#mail-turn_mail").is_checked() and page.locator("#mail-invite_mail").is_checked()
            # the mail came, in the page's language; its link opens the page that confirms the address
            msg = mailbox.wait(address)
            assert msg["Content-Language"] == lang
            link = link_of(msg)
            page.goto(link)
            result = page.locator('#verify-result[data-result="ok"]')
            result.wait_for()
            assert result.inner_text() == own["verify.ok"]
            assert "#" not in page.url  # the token left the address bar
            assert page.evaluate("() => document.documentElement.scrollWidth <= document.documentElement.clientWidth")
            page.screenshot(path=str(shots / f"verify-mail-{lang}-{w}.png"))
            page.goto(f"{mail_web.base}/u/{username}")
            page.locator('#mail-status[data-state="verified"]').wait_for()
            page.goto(link)  # a second time: used
            page.locator('#verify-result[data-result="used"]').wait_for()
            assert re.sub(r"\s+", " ", page.inner_text("#verify-result")) == own["verify.used"]
            assert not page.errors, page.errors
        finally:
            page.context.close()


def test_the_panel_says_when_the_server_sends_no_mail(web_server: Server, browser: Any) -> None:
    page, username = _logged_in(browser, web_server, 390, 844, "de-DE", True)
    try:
        page.goto(f"{web_server.base}/u/{username}")
        off = page.locator("#mail-off")
        off.wait_for()
        assert off.inner_text() == "Dieser Server verschickt keine E-Mails."
        assert page.locator("#mail-address").count() == 0
        assert not page.errors, page.errors
    finally:
        page.context.close()


def test_a_seat_link_goes_out_by_mail_from_my_games(mail_web: Server, mailbox: Mailbox, browser: Any,
                                                    shots: Path) -> None:
    """The creator's links (My games): "Invite by e-mail" under a seat's link mails that link, in German."""
    with httpx.Client(base_url=mail_web.base, timeout=waits.scaled(20)) as http:
        r = http.post("/api/games", json={"game": "ttr-new-york", "seats": [{"name": "Ann"}, {"name": "Bea"}]})
        assert r.status_code == 201, r.text
        g = r.json()
    address = f"bea-{secrets.token_hex(3)}@example.org"
    page = new_page(browser, 390, 844, locale="de-DE", phone=True)
    try:
        page.goto(f"{mail_web.base}/my#{g['id']}:{g['creator']['token']}")
        page.locator(f'details[data-links="{g["id"]}"] summary').click()
        invite = page.locator('.invite[data-seat="1"]')
        invite.locator("button", has_text="Per E-Mail einladen").click()
        invite.locator("input").fill(address)
        invite.locator("button[type=submit]").click()
        invite.locator(".invitenote", has_text="Einladung verschickt.").wait_for()
        _no_sideways_scroll(page)
        page.screenshot(path=str(shots / "invite-mail-de-390.png"), full_page=True)
        msg = mailbox.wait(address)
        assert link_of(msg) == f"{mail_web.base}/game/{g['id']}#{g['seats'][1]['token']}"
        assert msg["Subject"] == "Ann lädt dich zu Ticket to Ride: New York ein"  # a guest: another seat's name
        invite.locator("input").fill("kein name")
        invite.locator("button[type=submit]").click()
        invite.locator(".error", has_text="Einen Spieler mit diesem Namen gibt es nicht.").wait_for()
        assert not page.errors, page.errors
    finally:
        page.context.close()


def _no_sideways_scroll(page: Any) -> None:
    assert page.evaluate("() => document.documentElement.scrollWidth <= document.documentElement.clientWidth")
