"""The profile's statistics in a browser: after a finished game the profile shows a statistics
section per game family and, on the game's row, its score and tickets; in German with German labels, at a
desktop size and on a phone (screenshots in English and German at both)."""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any

import httpx

from tests import waits
from tests.server.helpers import Server, finished_account_game
from tests.web.test_play import new_page


def test_the_profile_shows_statistics_in_german(web_server: Server, browser: Any, shots: Path) -> None:
    username = f"Statistik_{secrets.token_hex(3)}"
    finished_account_game(web_server, username)
    with httpx.Client(base_url=web_server.base, timeout=waits.scaled(20)) as http:
        # the statistics are written with the rating, just after the last move
        def with_stats() -> dict[str, Any]:
            profile: dict[str, Any] = http.get(f"/api/users/{username}").json()
            return profile if profile["stats"] else {}

        profile = waits.until(with_stats, 30, "the game's statistics on the profile")
    ttr = profile["stats"]["ttr"]
    (game,) = profile["games"]
    for locale in ("de-DE", "en-US"):
        for w, h, phone in ((1366, 768, False), (390, 844, True)):
            page = new_page(browser, w, h, locale=locale, phone=phone)
            try:
                page.goto(f"{web_server.base}/u/{username}")
                page.wait_for_selector('#profile-stats [data-family="ttr"] [data-stat="tickets"]')
                page.evaluate("() => document.fonts.ready")
                page.screenshot(path=str(shots / f"profile-stats-{locale[:2]}-{w}.png"), full_page=True)
                section = page.inner_text("#profile-stats")
                line = page.inner_text("#profile-games .gstat")
                if locale == "de-DE":
                    assert "Statistik" in section and "Zielkarten erfüllt / nicht erfüllt" in section, section
                    assert "Punkte im Schnitt" in section and "Attraktionspunkte" in section, section
                    assert "Zielkarten" in line and "Punkt" in line, line
                stat = page.locator('#profile-stats [data-family="ttr"] [data-stat="tickets"] td.num').inner_text()
                assert stat == f"{ttr['tickets_completed']} / {ttr['tickets_failed']}"
                games = page.locator('#profile-stats [data-family="ttr"] [data-stat="games"] td.num').inner_text()
                assert games == "1"
                assert f"{game['stats']['tickets_completed']} ✓ {game['stats']['tickets_failed']} ✗" in line
                assert page.locator('#profile-stats [data-family="trans"]').count() == 0  # no Trans game played
                assert not page.errors, page.errors
            finally:
                page.context.close()


def test_a_bot_accounts_profile_says_it_is_a_bot_and_who_runs_it(web_server: Server, browser: Any,
                                                                   shots: Path) -> None:
    owner, bot = f"Besitzer_{secrets.token_hex(3)}", f"Robota_{secrets.token_hex(3)}"
    with httpx.Client(base_url=web_server.base, timeout=waits.scaled(20),
                      headers={"X-Forwarded-For": f"10.8.{secrets.randbelow(250)}.{secrets.randbelow(250)}"}) as http:
        r = http.post("/api/register", json={"username": owner, "password": "a long enough password"})
        assert r.status_code == 201, r.text
        r = http.post("/api/me/bots", json={"name": bot}, headers={"X-CSRF-Token": r.json()["csrf"]})
        assert r.status_code == 201, r.text
    page = new_page(browser, 390, 844, locale="de-DE", phone=True)
    try:
        page.goto(f"{web_server.base}/u/{bot}")
        mark = page.locator("#profile-bot")
        mark.wait_for()
        assert mark.inner_text().strip() == f"Ein Bot (ein Programm) von {owner}"
        assert mark.locator("a").get_attribute("href") == f"/u/{owner}"
        page.screenshot(path=str(shots / "profile-bot-de-390.png"))
        page.goto(f"{web_server.base}/u/{owner}")  # a person's profile has no such line
        page.wait_for_selector("#profile-name")
        assert page.locator("#profile-bot").count() == 0
        assert not page.errors, page.errors
    finally:
        page.context.close()
