"""Links are never lost, Join / Watch from the lobby, quick play, as people do it in a browser:
the creator clicks Play and still reaches every other link (the game page's "Invite links" panel and
the My games page), copies one (read back from the clipboard), a second browser joins the open seat
from the lobby, a third watches; two browsers quick-play into one game and bots fill the rest."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import update

from tests import waits
from tests.server.helpers import Server
from tracklayer.server.db import Store, games

SIZES = [(1366, 768), (390, 844), (1920, 1080)]


def _context(browser: Any, base: str, locale: str = "en-US", size: tuple[int, int] = (1366, 768)) -> Any:
    mobile = size[0] < 600
    ctx = browser.new_context(viewport={"width": size[0], "height": size[1]}, locale=locale, is_mobile=mobile,
                              has_touch=mobile)
    ctx.grant_permissions(["clipboard-read", "clipboard-write"], origin=base)
    return ctx


def _page(ctx: Any) -> Any:
    page = ctx.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    return page


def _game_id(page: Any) -> str:
    return page.url.split("/game/")[1].split("#")[0]


def _state(page: Any) -> dict[str, Any]:
    return page.evaluate("() => window.__tracklayer.st")


def test_links_survive_play_join_and_watch(web_server: Server, browser: Any, shots: Path) -> None:
    base = web_server.base
    ann_ctx = _context(browser, base)
    try:
        ann = _page(ann_ctx)
        ann.goto(base + "/")
        ann.wait_for_selector(".tile")
        ann.click('.tile[data-game="ttr-europe"]')
        ann.fill(".seat input >> nth=0", "Ann")
        ann.click('.seat >> nth=1 >> button[data-kind="human"]')
        ann.fill(".seat input >> nth=1", "Bob")
        ann.click('.seat >> nth=2 >> button[data-kind="open"]')
        ann.click("#create")
        ann.wait_for_selector("#links a.primary")
        bob_link = ann.locator("#links .link >> nth=1 >> code").inner_text()
        ann.click("#links a.primary")  # Play: the page the other links were on is gone
        ann.wait_for_selector("g.route")
        gid = _game_id(ann)
        ann.wait_for_selector("#waitbar:not([hidden])")
        assert "1" in ann.inner_text("#waitbar")
        assert _state(ann)["waiting"] is True
        # the creator reopens every link from the game page and copies Bob's
        ann.click("#linkbtn")
        ann.wait_for_selector("#linkpanel .link code")
        panel = ann.inner_text("#linkpanel")
        assert bob_link in panel and "Bob" in panel and "Seat 3: open" in panel
        copy = ann.locator(f'#linkpanel button[data-copy="{bob_link}"]')
        copy.click()
        ann.wait_for_function("(b) => b.textContent === 'Copied'", arg=copy.element_handle())
        assert ann.evaluate("() => navigator.clipboard.readText()") == bob_link
        ann.screenshot(path=str(shots / "lobby13-game-links-en.png"))
        # back in the lobby, and on My games: still every token of the game, Bob's too
        ann.go_back()
        ann.goto(base + "/my")
        row = ann.locator(f'#my-list li[data-game="{gid}"]')
        row.wait_for()
        assert "Ann" in row.inner_text() and "Bob" in row.inner_text()
        row.locator("summary").click()
        row.locator(".links code").first.wait_for()
        assert bob_link in row.inner_text()
        kept = ann.evaluate("() => JSON.parse(localStorage.getItem('tracklayer.games'))")[gid]["tokens"]
        assert set(kept) >= {"0", "1", "spectator", "creator"}

        # a second browser joins the open seat from the lobby
        cleo_ctx = _context(browser, base)
        try:
            cleo = _page(cleo_ctx)
            cleo.goto(base + "/")
            cleo.fill("#q-name", "Cleo")
            cleo.click(f'button[data-join="{gid}"]')
            cleo.wait_for_url(f"**/game/{gid}#*")
            cleo.wait_for_selector("g.route")
            cleo.wait_for_function("() => window.__tracklayer.st && !window.__tracklayer.st.waiting")
            st = _state(cleo)
            assert st["role"] == "seat" and st["seat"] == 2 and st["seats"][2]["name"] == "Cleo"
            ann.goto(base + f"/game/{gid}#{kept['0']}")
            ann.wait_for_function("() => window.__tracklayer.st && !window.__tracklayer.st.waiting")
            assert ann.locator("#waitbar").is_hidden()
            # a third watches from the lobby's list
            cleo.goto(base + "/")
            cleo.click(f'a[data-watch="{gid}"]')
            cleo.wait_for_selector("g.route")
            cleo.wait_for_function("() => window.__tracklayer.st")
            assert _state(cleo)["role"] == "spectator"
            assert not cleo.errors, cleo.errors
        finally:
            cleo_ctx.close()
        assert not ann.errors, ann.errors
    finally:
        ann_ctx.close()


def test_quick_play_two_browsers_then_bots(web_server: Server, browser: Any) -> None:
    base = web_server.base
    contexts = [_context(browser, base) for _ in range(2)]
    try:
        pages = [_page(c) for c in contexts]
        for page, name in zip(pages, ("Dora", "Emil"), strict=True):
            page.goto(base + "/")
            page.wait_for_selector("#q-game option", state="attached")
            page.select_option("#q-game", "trans-america")
            page.select_option("#q-players", "3")
            page.select_option("#q-wait", "30")
            page.fill("#q-name", name)
            page.click("#quick-go")
            page.wait_for_url("**/game/*")
            page.wait_for_selector("#waitbar:not([hidden])")
        gid = _game_id(pages[0])
        assert _game_id(pages[1]) == gid
        st = _state(pages[1])
        assert [s["name"] for s in st["seats"][:2]] == ["Dora", "Emil"] and st["seats"][2]["kind"] == "open"
        store = Store(web_server.db_url)  # the 30 s are up (not waited for here)
        try:
            with store.engine.begin() as conn:
                conn.execute(update(games).where(games.c.id == gid).values(fill_at=time.time() - 1))
        finally:
            store.close()
        for page in pages:
            page.wait_for_function("() => window.__tracklayer.st && !window.__tracklayer.st.waiting",
                                   timeout=waits.ms(30))
            assert page.locator("#waitbar").is_hidden()
        assert _state(pages[0])["seats"][2]["kind"] == "bot"
        for page in pages:
            assert not page.errors, page.errors
    finally:
        for c in contexts:
            c.close()


@pytest.mark.parametrize("locale", ["en-US", "de-DE"])
def test_screenshots(web_server: Server, browser: Any, shots: Path, locale: str) -> None:
    """The new pages and panels at three sizes, in English and German (looked at by a person)."""
    base = web_server.base
    lang = locale[:2]
    out = web_server.create("ttr-europe", [{"name": "Ann"}, {"name": "Bob"}, {"kind": "open"}])
    other = web_server.create("trans-america", [{"name": "Zoë"}, {"kind": "bot"}], first_player=1)
    gid = out["id"]
    tokens = {"0": out["seats"][0]["token"], "1": out["seats"][1]["token"], "spectator": out["spectator"]["token"],
              "creator": out["creator"]["token"]}
    mine = {gid: {"game": "ttr-europe", "tokens": tokens, "at": 1},
            other["id"]: {"game": "trans-america", "tokens": {"0": other["seats"][0]["token"]}, "at": 2}}
    httpx.post(base + "/api/quickplay", json={"game": "ttr-new-york", "players": 3, "name": "Quinn", "wait": 600})
    for w, hgt in SIZES:
        ctx = _context(browser, base, locale, (w, hgt))
        try:
            page = _page(ctx)
            page.goto(base + "/")
            page.evaluate("(m) => localStorage.setItem('tracklayer.games', JSON.stringify(m))", mine)
            page.reload()
            page.wait_for_selector("button[data-join]")
            page.wait_for_timeout(300)
            page.screenshot(path=str(shots / f"lobby13-lobby-{lang}-{w}.png"), full_page=True)
            page.goto(base + "/my")
            page.wait_for_selector(f'#my-list li[data-game="{gid}"] .status')
            page.locator(f'#my-list li[data-game="{gid}"] summary').click()
            page.wait_for_selector(f'#my-list li[data-game="{gid}"] .links code')
            first = page.locator("#my-list li").first.get_attribute("data-game")
            assert first == other["id"]  # Zoë's turn: first in the list
            page.screenshot(path=str(shots / f"lobby13-my-{lang}-{w}.png"), full_page=True)
            page.goto(base + f"/game/{gid}#{tokens['0']}")
            page.wait_for_selector("#waitbar:not([hidden])")
            page.click("#linkbtn")
            page.wait_for_selector("#linkpanel .link code")
            page.screenshot(path=str(shots / f"lobby13-game-{lang}-{w}.png"))
            assert not page.errors, page.errors
        finally:
            ctx.close()
