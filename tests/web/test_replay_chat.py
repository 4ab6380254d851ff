"""Replays and chat in a real browser: a finished game opened from its end screen and stepped, jumped,
played and seen by each seat; chat between a player and a spectator (a hostile text shown as text, the
rate limit's answer, the history after a reload). Screenshots at 1366x768, 390x844 and 1920x1080, in
English and German."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests import waits
from tests.server.helpers import Server, play_out
from tracklayer.server.chat import RATE_COUNT

SIZES = {"desktop": (1366, 768), "phone": (390, 844), "wide": (1920, 1080)}


def finish_against_a_bot(server: Server) -> dict[str, Any]:
    """A New York game of Ann (moves sent over the websocket, at random) against a greedy bot, to its end."""
    out = server.create("ttr-new-york", [{"name": "Ann"}, {"kind": "bot", "bot": "greedy", "name": "Robo"}],
                        first_player=0)
    play_out(server, out["id"], out["seats"][0]["token"], seed=13)
    return out


@pytest.fixture(scope="module")
def finished(web_server: Server) -> dict[str, Any]:
    return finish_against_a_bot(web_server)


def _replay(page: Any) -> dict[str, Any]:
    return page.evaluate("() => ({move: window.__replay.move, seat: window.__replay.seat, total: window.__replay.total,"
                         " view: window.__replay.data && window.__replay.data.view, loading: window.__replay.loading})")


def _wait_move(page: Any, n: int, seat: int | None = None) -> None:
    seat_js = "null" if seat is None else str(seat)
    page.wait_for_function(f"() => window.__replay.move === {n} && window.__replay.seat === {seat_js} "
                           "&& !window.__replay.loading", timeout=waits.ms(20))


def test_replay_from_the_end_screen(web_server: Server, browser: Any, finished: dict[str, Any], shots: Path) -> None:
    context = browser.new_context(viewport={"width": 1366, "height": 768}, locale="en-US")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(web_server.base + finished["seats"][0]["link"])
        page.wait_for_selector("#final #replay-link")
        page.click("#final #replay-link")
        page.wait_for_url(f"**/replay/{finished['id']}*")
        _wait_move(page, 0)
        total = _replay(page)["total"]
        assert total > 10
        page.wait_for_selector("#replay-counter")
        assert page.text_content("#replay-counter") == "Before the first move"
        assert page.is_disabled("#replay-prev") and page.is_disabled("#replay-first")
        assert page.locator("#replay-hand").count() == 0  # the spectator's eyes: no hand
        # step forward twice, back once
        page.click("#replay-next")
        _wait_move(page, 1)
        page.click("#replay-next")
        _wait_move(page, 2)
        page.click("#replay-prev")
        _wait_move(page, 1)
        assert page.text_content("#replay-counter") == f"Move 1 of {total}"
        assert page.inner_text("#replay-last")  # the move just replayed, described
        # jump with the slider
        target = total // 2
        page.locator("#replay-slider").fill(str(target))
        _wait_move(page, target)
        assert f"move={target}" in page.url
        # any player's point of view: the engine's view of that seat, hand and tickets shown
        record = json.loads(page.evaluate(f"() => fetch('/api/games/{finished['id']}/record').then(r => r.text())"))
        import tracklayer

        setup = {k: v for k, v in record.items() if k not in ("moves", "state")}
        for seat in (0, 1):
            page.select_option("#replay-seat", str(seat))
            _wait_move(page, target, seat)
            expected = tracklayer.load_game({**setup, "moves": record["moves"][:target]}).view(seat)
            assert _replay(page)["view"] == json.loads(json.dumps(expected))
            page.wait_for_selector("#replay-hand")
            hand = sum(expected["hand"].values())
            shown = sum(int(x) for x in page.locator("#replay-hand .n").all_inner_texts())
            assert shown == hand
            assert page.locator("#replay-tickets .ticket").count() == len(expected["tickets"])
        page.screenshot(path=str(shots / "replay-seat.png"))
        # a shared link opens the same position and point of view
        link = page.url
        other = context.new_page()
        other.goto(link)
        _wait_move(other, target, 1)
        other.close()
        # play: moves advance by themselves, pause stops them
        page.select_option("#replay-speed", "250")
        page.click("#replay-play")
        page.wait_for_function(f"() => window.__replay.move >= {target + 3}", timeout=waits.ms(20))
        page.click("#replay-pause")
        stopped = _replay(page)["move"]
        page.wait_for_timeout(800)
        assert _replay(page)["move"] == stopped
        # to the end: the result
        page.click("#replay-last-btn")
        _wait_move(page, total, 1)
        page.wait_for_selector("#replay-result")
        assert "Ann" in page.inner_text("#replay-result") and "Robo" in page.inner_text("#replay-result")
        for lang in ("en", "de"):
            page.evaluate(f"() => localStorage.setItem('tracklayer.lang', '{lang}')")
            for label, (w, h) in SIZES.items():
                page.set_viewport_size({"width": w, "height": h})
                page.goto(f"{web_server.base}/replay/{finished['id']}?move={target}&seat=0")
                _wait_move(page, target, 0)
                page.wait_for_timeout(300)
                page.screenshot(path=str(shots / f"replay-{label}-{lang}.png"))
            if lang == "de":
                assert "Zug" in page.text_content("#replay-counter")
    finally:
        context.close()
    assert not errors, errors


def test_replay_of_a_running_game_says_so(web_server: Server, page: Any) -> None:
    out = web_server.create("ttr-europe", [{"name": "Ann"}, {"name": "Bob"}])
    page.goto(f"{web_server.base}/replay/{out['id']}")
    page.wait_for_selector("#replay-fatal")
    assert "still running" in page.inner_text("#replay-fatal")


def test_lobby_lists_finished_games_with_their_replay(web_server: Server, page: Any) -> None:
    # A game finished here, not the module's: the lobby lists the ten games that ended last, and the
    # tests run before this one on the same server may have ended more than ten since.
    finished = finish_against_a_bot(web_server)
    page.goto(web_server.base + "/")
    link = page.locator(f"#finished a[href='/replay/{finished['id']}']")
    link.wait_for()
    link.click()
    page.wait_for_url(f"**/replay/{finished['id']}*")
    _wait_move(page, 0)


def _chat_page(browser: Any, url: str, size: tuple[int, int] = (1366, 768), lang: str = "en") -> Any:
    context = browser.new_context(viewport={"width": size[0], "height": size[1]},
                                  locale="de-DE" if lang == "de" else "en-US")
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.on("dialog", lambda d: (page.errors.append("dialog: " + d.message), d.dismiss()))
    page.goto(url)
    page.wait_for_selector("g.route")
    page.wait_for_selector("#chat-toggle")
    return page


def test_chat_between_a_player_and_a_spectator(web_server: Server, browser: Any, shots: Path) -> None:
    out = web_server.create("ttr-europe", [{"name": "Ann"}, {"name": "Bob"}], first_player=0)
    ann = _chat_page(browser, web_server.base + out["seats"][0]["link"])
    spec = _chat_page(browser, web_server.base + out["spectator"]["link"])
    try:
        assert ann.is_hidden("#chat") and ann.is_hidden("#chat-badge")
        ann.click("#chat-toggle")
        ann.fill("#chat-input", "Hello from Ann")
        ann.press("#chat-input", "Enter")
        ann.wait_for_selector("#chat-list .chat-msg")
        # the spectator sees an unread badge, then the message marked with Ann's seat
        spec.wait_for_selector("#chat-badge:not([hidden])")
        assert spec.inner_text("#chat-badge") == "1"
        spec.click("#chat-toggle")
        msg = spec.locator("#chat-list .chat-msg").first
        assert "Ann" in msg.inner_text() and "Hello from Ann" in msg.inner_text()
        assert msg.locator(".token").count() == 1
        # hostile text from the spectator: shown as text, no element made, no script run
        payloads = ["<script>alert(1)</script>", "<img src=x onerror=alert(2)>"]
        for p in payloads:
            spec.fill("#chat-input", p)
            spec.click("#chat-send")
        ann.wait_for_function("() => document.querySelectorAll('#chat-list .chat-msg').length === 3")
        texts = ann.locator("#chat-list .chat-text").all_inner_texts()
        assert texts[1:] == payloads
        assert ann.locator("#chat-list img, #chat-list script").count() == 0
        assert "Spectator" in ann.locator("#chat-list .chat-msg").nth(1).inner_text()
        assert ann.locator("#chat-list .chat-msg.role-spectator").count() == 2
        for lang, page in (("en", ann),):
            for label, (w, h) in SIZES.items():
                page.set_viewport_size({"width": w, "height": h})
                page.wait_for_timeout(200)
                page.screenshot(path=str(shots / f"chat-{label}-{lang}.png"))
        # the rate limit's answer, in the panel
        for k in range(RATE_COUNT):
            ann.fill("#chat-input", f"quick {k}")
            ann.click("#chat-send")
        ann.wait_for_selector(".chat-note:not([hidden])", timeout=waits.ms(20))
        assert "Too many chat messages" in ann.inner_text(".chat-note")
        # history after a reload (and in German)
        spec.context.close()
        spec = _chat_page(browser, web_server.base + out["spectator"]["link"], (390, 844), "de")
        spec.click("#chat-toggle")
        spec.wait_for_function("() => document.querySelectorAll('#chat-list .chat-msg').length >= 7")
        assert spec.locator("#chat-list .chat-text").all_inner_texts()[:3] == ["Hello from Ann", *payloads]
        assert "Zuschauer" in spec.inner_text("#chat-list")
        spec.screenshot(path=str(shots / "chat-phone-de.png"))
        spec.click(".chat-close")
        spec.screenshot(path=str(shots / "chat-phone-closed-de.png"))
        for label, (w, h) in SIZES.items():
            if label == "phone":
                continue
            spec.set_viewport_size({"width": w, "height": h})
            spec.click("#chat-toggle")
            spec.wait_for_timeout(200)
            spec.screenshot(path=str(shots / f"chat-{label}-de.png"))
            spec.click(".chat-close")
        assert not ann.errors and not spec.errors, (ann.errors, spec.errors)
    finally:
        ann.context.close()
        spec.context.close()


def test_replay_of_a_trans_game(web_server: Server, browser: Any, shots: Path) -> None:
    """Trans Europa draws with its own board class: rails and a player's cities at any position."""
    out = web_server.create("trans-europa", [{"kind": "bot", "bot": "greedy"} for _ in range(3)])
    deadline = waits.deadline(120)
    while httpx.get(f"{web_server.base}/api/games/{out['id']}", timeout=waits.scaled(10)).json()["status"] != "over":
        assert time.monotonic() < deadline, "the bots did not finish the game"
        time.sleep(0.5)
    context = browser.new_context(viewport={"width": 1366, "height": 768}, locale="en-US")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(f"{web_server.base}/replay/{out['id']}?move=30&seat=2")
        _wait_move(page, 30, 2)
        page.wait_for_selector("#replay-tickets .replay-city")
        assert page.locator("#replay-tickets .replay-city").count() == len(_replay(page)["view"]["cities"])
        page.click("#replay-last-btn")
        _wait_move(page, _replay(page)["total"], 2)
        page.wait_for_selector("#replay-result")
        page.screenshot(path=str(shots / "replay-trans.png"))
    finally:
        context.close()
    assert not errors, errors
