"""Sound effects on the game page: the page records every effect it asks for in
``window.__tracklayer.sounds`` ({name, muted, heard}), heard or not, so a test can tell what a player would hear."""

from __future__ import annotations

from typing import Any

from tests import waits
from tests.server.helpers import Server
from tests.web.test_browser import click_and_wait, keep_tickets, state, wait_my_turn
from tests.web.test_play import new_page

SOUNDS = "() => window.__tracklayer.sounds"


def wait_sound(page: Any, name: str, after: int = 0) -> dict[str, Any]:
    """The first record of effect ``name`` from index ``after`` of the page's list on."""
    page.wait_for_function(f"() => window.__tracklayer.sounds.slice({after}).some((s) => s.name === {name!r})",
                           timeout=waits.ms(30))
    return next(s for s in page.evaluate(SOUNDS)[after:] if s["name"] == name)


def test_effects_follow_the_game_and_the_mute_toggle_is_kept(web_server: Server, browser: Any) -> None:
    out = web_server.create("ttr-europe", [{"name": "Ann"}, {"kind": "bot", "name": "Robo"}], first_player=0)
    page = new_page(browser, 1366, 768)
    try:
        page.goto(web_server.base + out["seats"][0]["link"])
        wait_my_turn(page)
        assert page.get_attribute("#sound", "aria-pressed") == "false"  # on by default
        assert page.evaluate(SOUNDS) == [], "the first state plays nothing"
        keep_tickets(page)  # a click: the audio may start
        turn = wait_sound(page, "turn")  # Robo kept his tickets: my turn again
        assert turn["muted"] is False
        assert turn["heard"] is True, "a click started the audio"
        seen = len(page.evaluate(SOUNDS))
        click_and_wait(page, '[data-draw="deck"]')
        assert wait_sound(page, "draw", seen)["heard"]

        # muted: kept across a reload, and nothing is heard
        page.click("#sound")
        assert page.get_attribute("#sound", "aria-pressed") == "true"
        assert page.evaluate("() => localStorage.getItem('tracklayer.sound')") == "off"
        page.reload()
        s = wait_my_turn(page)
        assert page.get_attribute("#sound", "aria-pressed") == "true"
        assert page.get_attribute("#sound", "aria-label") == "Sound: off"
        if "draw deck" in s["legal"]:  # the second card of the turn: then Robo plays and the turn comes back
            click_and_wait(page, '[data-draw="deck"]')
        else:
            click_and_wait(page, "#market button[data-draw]:not([disabled])")
        turn = wait_sound(page, "turn")
        assert turn["muted"] is True and turn["heard"] is False
        assert not any(x["heard"] for x in page.evaluate(SOUNDS))
        # on again: kept too
        page.click("#sound")
        assert page.evaluate("() => localStorage.getItem('tracklayer.sound')") == "on"
        assert page.get_attribute("#sound", "aria-pressed") == "false"
        assert state(page)["view"]["current_player"] == 0
        assert not page.errors, page.errors
    finally:
        page.context.close()


def test_the_toggle_fits_the_top_bar(web_server: Server, browser: Any, shots: Any) -> None:
    """On a laptop and on a phone, in English and German: the toggle lies inside the window, no smaller than the
    motion toggle beside it, a 44 px touch target on the phone (icon only, named by its aria-label), and the
    bar still holds everything after it."""
    out = web_server.create("ttr-europe", [{"name": "Ann"}, {"kind": "bot", "name": "Robo"}], first_player=0)
    for locale in ("en-US", "de-DE"):
        for width, height, phone in ((1366, 768, False), (390, 844, True)):
            page = new_page(browser, width, height, locale=locale, phone=phone)
            try:
                page.goto(web_server.base + out["seats"][0]["link"])
                wait_my_turn(page)
                page.evaluate("() => document.fonts.ready")
                page.locator("#topbar").screenshot(path=str(shots / f"sound-topbar-{width}-{locale[:2]}.png"))
                toggle, motion = page.locator("#sound").bounding_box(), page.locator("#motion").bounding_box()
                assert toggle and motion
                assert toggle["x"] >= 0 and toggle["x"] + toggle["width"] <= width, toggle
                assert toggle["height"] >= motion["height"] - 0.5, (toggle, motion)
                if phone:
                    assert toggle["height"] >= 44 and toggle["width"] >= max(44, motion["width"]), (toggle, motion)
                    # the whole bar fits: its last pill (online or not) ends inside the window
                    live = page.locator("#topbar > .pill[role=status]").bounding_box()
                    assert live and live["x"] + live["width"] <= width - 4, live
                assert page.get_attribute("#sound", "aria-label")
                assert not page.errors, page.errors
            finally:
                page.context.close()
