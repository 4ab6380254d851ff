"""Inviting a friend by mail too, in a browser: the creator's invite control offers "Also by e-mail" for a
follower whose account takes invite mail (verified address, invite mail on; a real SMTP server), checked by
default; the invitation goes to the lobby and by mail, in the friend's language. The control at 390×844,
1366×768 and 1920×1080 in English and German: screenshots, nothing cut, no English on the German page."""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any

from tests.server.helpers import Server
from tests.server.test_mail import Mailbox, account, link_of, mailbox, set_verified_address
from tests.web.test_friends_browser import fits, sign_in
from tests.web.test_mail_browser import mail_web

__all__ = ["mail_web", "mailbox"]  # the SMTP server and a server that mails through it, as the mail pages' tests

SIZES = [(390, 844), (1366, 768), (1920, 1080)]


def created_game(page: Any, base: str) -> Any:
    """A new game of the signed-in page's account with a second human seat; its seat-1 invite control."""
    page.goto(base + "/")
    page.wait_for_selector("#friends-panel:not([hidden])")
    page.wait_for_selector("#seats .seat")
    page.locator("#seats .seat").nth(1).locator('button[data-kind="human"]').click()
    page.click("#create")
    page.wait_for_selector("#created:not([hidden])")
    return page.locator(".invite-row").filter(has=page.locator('select[data-invite-seat="1"]'))


def test_invite_a_friend_by_mail_too(mail_web: Server, browser: Any, mailbox: Mailbox, shots: Path) -> None:
    server = mail_web
    base = server.base
    host_name, fan_name, quiet_name = (f"{p}_{secrets.token_hex(3)}" for p in ("Host", "Fan", "Quiet"))
    fan, quiet = account(server, fan_name), account(server, quiet_name)
    address = f"{fan_name.lower()}@example.org"
    host = sign_in(browser, base, host_name, register=True)
    try:
        for c in (fan, quiet):
            assert c.post(f"/api/users/{host_name}/follow").status_code == 200
        set_verified_address(server, mailbox, fan, address, lang="de")
        row = created_game(host, base)
        label = row.locator(".invite-mail")
        row.locator("select").select_option(quiet_name)  # no address: no mail offered
        assert label.is_hidden()
        row.locator("select").select_option(fan_name)
        assert label.is_visible() and row.locator("input[data-invite-mail]").is_checked()
        row.locator("button").click()
        host.wait_for_function("(n) => document.querySelector('.invite-status').textContent.includes(n)",
                               arg="also by e-mail")
        msg = mailbox.wait(address, 2)  # after the verification mail
        assert msg["Subject"].startswith(host_name) and msg["Subject"].endswith(" ein")  # the friend's German
        assert "#" in link_of(msg)
        assert [i["from"] for i in fan.get("/api/friends").json()["invitations"]] == [host_name]
        assert not host.errors, host.errors
    finally:
        host.context.close()

    for lang, locale in (("en", "en-US"), ("de", "de-DE")):
        for width, height in SIZES:
            page = sign_in(browser, base, host_name, width, height, locale=locale)
            try:
                row = created_game(page, base)
                row.locator("select").select_option(fan_name)
                label = row.locator(".invite-mail")
                assert label.inner_text().strip() == {"en": "Also by e-mail", "de": "Auch per E-Mail"}[lang]
                row.scroll_into_view_if_needed()
                page.screenshot(path=str(shots / f"friends-invite-mail-{lang}-{width}x{height}.png"))
                assert not fits(page, f"{lang} {width}x{height}")
                if width < 500:  # a tap target of at least 44 px on a phone
                    box = label.bounding_box()
                    assert box is not None and box["height"] >= 44, box
                assert not page.errors, page.errors
            finally:
                page.context.close()
