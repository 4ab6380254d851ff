"""Accounts in a real browser: register in the top bar, create and finish a game, see the rating on the
profile and the leaderboard; screenshots of the new pages in English and German at three sizes."""

from __future__ import annotations

import json
import secrets
import time
from pathlib import Path
from typing import Any

import httpx

from tests import waits
from tests.server.helpers import Server
from tests.web.test_browser import play_one_turn, state, wait_my_turn

SIZES = [(1366, 768), (390, 844), (1920, 1080)]


def register(page: Any, base: str, username: str) -> None:
    page.goto(base + "/")
    page.wait_for_selector("#acct-open")
    page.click("#acct-open")
    page.fill("#acct-user", username)
    page.fill("#acct-pass", "a long enough password")
    page.click("#acct-register")
    page.wait_for_selector(f"#acct-profile:has-text('{username}')")


def test_register_play_and_see_the_rating(web_server: Server, page: Any, browser: Any, shots: Path) -> None:
    base = web_server.base
    username = f"ann_{secrets.token_hex(3)}"
    register(page, base, username)
    # a game of New York against one bot, created from the lobby as a logged-in player
    page.click('.tile[data-game="ttr-new-york"]')
    while page.locator(".seat").count() > 2:
        page.locator(".seat button.x").last.click()
    page.fill(".seat input >> nth=0", "Ann")
    page.click("#create")
    page.wait_for_selector("#links a.primary")
    page.click("#links a.primary")
    page.wait_for_selector("g.route")
    assert page.inner_text("#acct-profile") == username  # the top bar of the game page knows her too
    deadline = waits.deadline(300)
    while time.monotonic() < deadline:
        s = wait_my_turn(page, 60)
        if s["over"]:
            break
        play_one_turn(page)
    assert state(page)["over"]
    game_id = state(page)["game_id"]
    page.wait_for_selector("#final")
    page.keyboard.press("Escape")  # the final scores close; the top bar's link to her profile is there
    page.click("#acct-profile")
    page.wait_for_selector("#profile-games tbody tr")
    rating = page.locator('#profile-ratings [data-family="ttr"] b').inner_text()
    assert rating != "—"
    # the finished game's row opens its replay
    link = page.locator("#profile-games a[data-replay]")
    assert link.count() == 1
    assert link.get_attribute("href") == f"/replay/{game_id}"
    page.click("#acct-board")
    page.wait_for_selector("#ladder")
    mine = page.locator("#ladder tr.me")
    assert mine.count() == 1 and username in mine.inner_text() and rating in mine.inner_text()
    assert page.locator("#ladder tbody tr").count() >= 2  # the bot(s) she played are on the ladder too
    # log out: the top bar offers the login again, the profile stays public
    page.click("#acct-logout")
    page.wait_for_selector("#acct-open")
    page.goto(f"{base}/u/{username}")
    page.wait_for_selector("#profile-games tbody tr")

    guest = web_server.create("ttr-new-york", [{"name": "Bea"}, {"kind": "bot", "bot": "random"}])
    for locale in ("en-US", "de-DE"):
        for w, h in SIZES:
            ctx = browser.new_context(viewport={"width": w, "height": h}, locale=locale)
            pg = ctx.new_page()
            errors: list[str] = []
            pg.on("pageerror", lambda e, errors=errors: errors.append(str(e)))
            tag = f"{locale[:2]}-{w}"
            pg.goto(f"{base}/u/{username}")
            pg.wait_for_selector("#profile-games tbody tr")
            pg.screenshot(path=str(shots / f"profile-{tag}.png"))
            pg.goto(f"{base}/leaderboard")
            pg.wait_for_selector("#ladder")
            pg.screenshot(path=str(shots / f"leaderboard-{tag}.png"))
            pg.goto(base + guest["seats"][0]["link"])  # the game page's top bar with the account area
            pg.wait_for_selector("g.route")
            pg.wait_for_selector("#acct-open")
            pg.screenshot(path=str(shots / f"game-topbar-{tag}.png"))
            pg.goto(base + "/")
            pg.click("#acct-open")
            pg.wait_for_selector("#acct-form")
            pg.fill("#acct-user", username)
            pg.fill("#acct-pass", "wrong password!")
            pg.click("#acct-login")
            pg.wait_for_selector("#acct-error")
            pg.screenshot(path=str(shots / f"login-{tag}.png"))
            if locale == "de-DE":
                assert "Falscher Benutzername" in pg.inner_text("#acct-error")
                assert "Anmelden" in pg.inner_text("#acct")
            ctx.close()
            assert not errors, errors


def test_a_lookalike_name_is_refused_on_a_german_phone(web_server: Server, browser: Any, shots: Path) -> None:
    """The form names the existing account in German, and lies inside a 390 px phone: the lobby's
    longest German option (the turn clock's) must not widen the page past the screen."""
    suffix = secrets.token_hex(3)
    r = httpx.post(web_server.base + "/api/register", json={"username": f"Victim{suffix}",
                                                            "password": "a long enough password"})
    assert r.status_code == 201, r.text
    catalog = json.loads((Path(__file__).resolve().parents[2] / "tracklayer/web/static/i18n/de.json")
                         .read_text(encoding="utf-8"))
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True,
                              has_touch=True, locale="de-DE")
    pg = ctx.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    try:
        pg.goto(web_server.base + "/")
        pg.click("#acct-open")
        pg.fill("#acct-user", f"V\u0131ct\u0131m{suffix}")  # dotless i twice
        pg.fill("#acct-pass", "a long enough password")
        pg.click("#acct-register")
        pg.wait_for_selector("#acct-error")
        assert pg.text_content("#acct-error") == catalog["account.err_lookalike"].replace("{name}", f"Victim{suffix}")
        pg.screenshot(path=str(shots / "lookalike-de-390.png"))
        width = pg.evaluate("() => document.documentElement.scrollWidth")
        assert width <= 390, f"the German lobby is {width}px wide on a 390px phone"
        box = pg.locator("#acct-form").bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390, box
        assert not errors, errors
    finally:
        ctx.close()


def test_the_login_form_keeps_what_was_typed_when_the_top_bar_is_drawn_anew(web_server: Server,
                                                                            browser: Any) -> None:
    """On a slow connection /api/me answers after the form was opened and filled: the top bar is drawn
    again then, and what was typed must still be there (it used to be wiped, and the login went nowhere)."""
    username = f"slow_{secrets.token_hex(3)}"
    r = httpx.post(web_server.base + "/api/register", json={"username": username, "password": "a long enough password"})
    assert r.status_code == 201, r.text
    ctx = browser.new_context(viewport={"width": 1366, "height": 768}, locale="en-US")
    held: list[Any] = []
    ctx.route("**/api/me", lambda route: held.append(route))  # answered only when the form is filled
    pg = ctx.new_page()
    try:
        pg.goto(web_server.base + "/")
        pg.wait_for_selector("#acct-open")
        pg.click("#acct-open")
        pg.fill("#acct-user", username)
        pg.fill("#acct-pass", "wrong password!")
        pg.focus("#acct-pass")
        assert held, "the page asked /api/me"
        pg.evaluate("() => { document.querySelector('#acct-form').dataset.before = '1'; }")
        for route in held:
            route.continue_()
        # the answer draws the top bar again: a new form, without the mark
        pg.wait_for_function("() => { const f = document.querySelector('#acct-form'); return f && !f.dataset.before; }",
                             timeout=waits.ms(30))
        assert pg.input_value("#acct-user") == username
        assert pg.input_value("#acct-pass") == "wrong password!"
        assert pg.evaluate("() => document.activeElement.id") == "acct-pass"
        pg.click("#acct-login")
        pg.wait_for_selector("#acct-error")
        assert pg.input_value("#acct-user") == username
        assert pg.input_value("#acct-pass") == ""  # a refused password is typed again
        pg.fill("#acct-pass", "a long enough password")
        pg.click("#acct-login")
        pg.wait_for_selector(f"#acct-profile:has-text('{username}')")
    finally:
        ctx.close()
