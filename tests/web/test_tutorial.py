"""The tutorial ("Learn to play"): started from the lobby and from the rules page, a real game against the bot
with a guide above the board that outlines what to use and goes on when the player has done it, in English
and in German, on a phone (390×844) and on desktops (1366×768, 1920×1080), where it covers nothing needed."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import httpx

from tests import waits
from tests.server.helpers import Server, play_out

I18N = Path(__file__).resolve().parents[2] / "tracklayer" / "web" / "static" / "i18n"
SIZES = {"phone": (390, 844), "laptop": (1366, 768), "desktop": (1920, 1080)}


def catalog(lang: str) -> dict[str, str]:
    return json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8"))


def context(browser: Any, size: str, locale: str) -> Any:
    w, h = SIZES[size]
    return browser.new_context(viewport={"width": w, "height": h}, locale=locale,
                               **({"device_scale_factor": 2, "is_mobile": True, "has_touch": True}
                                  if size == "phone" else {}))


def opened(ctx: Any, url: str) -> Any:
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors
    page.goto(url)
    return page


def guide_at(page: Any, step: str, mode: str = "do") -> None:
    page.wait_for_selector(f'#guide[data-step="{step}"][data-mode="{mode}"]')


def overlaps(a: dict[str, float], b: dict[str, float]) -> bool:
    return (a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"]
            and a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"])


def check_layout(page: Any, lang: str, shots: Path, name: str, family: str = "ttr") -> None:
    """The guide is seen whole, in the page's language, its buttons finger-sized, and it covers neither the
    board nor the hand (nor the phone's dock); a screenshot to look at."""
    page.evaluate("() => window.scrollTo(0, 0)")
    guide = page.locator("#guide")
    box = guide.bounding_box()
    assert box is not None and box["height"] > 40
    for other in ("#board", "#hand-box", "#dock", "#market-box"):
        el = page.locator(other)
        other_box = el.bounding_box() if el.count() else None  # None: not shown (the desktop's dock is no box)
        if other_box is not None:
            assert not overlaps(box, other_box), f"{name}: the guide covers {other}"
    for button in guide.locator("button").all():
        b = button.bounding_box()
        assert b["height"] >= 44 and b["width"] >= 44, f"{name}: {button.inner_text()!r} is {b}"
    # no cut text: the heading and the paragraph fit their boxes
    cut = page.evaluate("""() => [...document.querySelectorAll('#guide h2, #guide p, #guide button')]
        .filter((e) => e.scrollWidth > e.clientWidth + 1).map((e) => e.textContent)""")
    assert not cut, f"{name}: cut text {cut}"
    step = guide.get_attribute("data-step")
    expected = catalog(lang)[f"tut.{family}.{step}.title"].replace("{loco}", catalog(lang)["color.locomotive"])
    assert guide.locator("h2").inner_text() == expected
    page.screenshot(path=str(shots / f"tutorial-{name}.png"))


def play_first_steps(page: Any, lang: str, shots: Path, size: str) -> None:
    """Keep the tickets, draw two cards, take the face-up locomotive, claim a route: the guide follows."""
    guide_at(page, "keep")
    assert "tut-pulse" in page.get_attribute("#action", "class")
    check_layout(page, lang, shots, f"keep-{lang}-{size}")
    page.click("#confirm")
    guide_at(page, "draw")  # after the bot has chosen its tickets
    assert "tut-pulse" in page.get_attribute("#market", "class")
    page.click('#market button[data-slot]:not([data-draw="locomotive"]):not([disabled])')
    guide_at(page, "second")
    page.click('#market [data-draw="deck"]')
    guide_at(page, "loco")  # the lesson's deck: a locomotive face up at the second turn
    loco = page.locator('#market button[data-draw="locomotive"].tut-pulse')
    assert loco.count() == 1
    check_layout(page, lang, shots, f"loco-{lang}-{size}")
    loco.click()
    guide_at(page, "claim")
    assert "tut-pulse" in page.get_attribute("#board", "class")
    index = page.locator("g.route.claimable").first.get_attribute("data-route")
    page.locator(f'g.route[data-route="{index}"]').dispatch_event("click")
    page.wait_for_selector("#action.tut-pulse #confirm")  # the payment: the guide points to it
    page.click("#confirm")
    page.wait_for_function("() => !['claim', 'loco', 'second', 'draw', 'keep']"
                           ".includes(document.querySelector('#guide').dataset.step)")
    assert not page.errors, page.errors


def start_from_lobby(ctx: Any, server: Server, game: str = "ttr-europe") -> Any:
    page = opened(ctx, server.base + "/")
    page.click(f'#learn button[data-lesson="{game}"]')
    page.wait_for_url("**/game/**")
    page.wait_for_selector("#guide")
    return page


def other_sizes(browser: Any, url: str, lang: str, locale: str, shots: Path, sizes: tuple[str, ...]) -> None:
    for size in sizes:
        ctx = context(browser, size, locale)
        try:
            page = opened(ctx, url)
            page.wait_for_selector("#guide[data-step]")
            page.wait_for_function("() => window.__tracklayer.st && window.__tracklayer.st.legal")
            check_layout(page, lang, shots, f"later-{lang}-{size}")
            assert not page.errors, page.errors
        finally:
            ctx.close()


def test_the_tutorial_guides_the_first_turns_in_english_on_a_laptop(web_server: Server, browser: Any,
                                                                   shots: Path) -> None:
    ctx = context(browser, "laptop", "en-US")
    try:
        page = start_from_lobby(ctx, web_server)
        play_first_steps(page, "en", shots, "laptop")
        url = page.url
    finally:
        ctx.close()
    other_sizes(browser, url, "en", "en-US", shots, ("desktop", "phone"))


def test_the_tutorial_guides_the_first_turns_in_german_on_a_phone(web_server: Server, browser: Any,
                                                                  shots: Path) -> None:
    ctx = context(browser, "phone", "de-DE")
    try:
        page = start_from_lobby(ctx, web_server)
        assert page.locator("#guide .guide-badge").inner_text() == "Einführung"
        play_first_steps(page, "de", shots, "phone")
        url = page.url
    finally:
        ctx.close()
    other_sizes(browser, url, "de", "de-DE", shots, ("laptop", "desktop"))


def test_the_guide_can_be_folded_and_closed_and_stays_so(web_server: Server, browser: Any) -> None:
    ctx = context(browser, "phone", "en-US")
    try:
        page = opened(ctx, web_server.base + "/rules/ttr-europe")
        page.click('.learn-row button[data-lesson="ttr-europe"]')
        page.wait_for_url("**/game/**")
        guide_at(page, "keep")
        page.click("#guide-toggle")
        page.wait_for_selector("#guide.collapsed")
        assert page.locator("#guide p").count() == 0
        page.reload()
        page.wait_for_selector("#guide.collapsed[data-step='keep']")
        page.click("#guide-close")
        page.wait_for_selector("#guide", state="hidden")
        assert page.locator(".tut-pulse").count() == 0
        page.click("#confirm")  # the game goes on without the guide
        page.wait_for_function("() => window.__tracklayer.st.view.players[0].tickets > 0")
        assert page.locator("#guide").is_hidden()
        assert not page.errors, page.errors
    finally:
        ctx.close()


def legal_move(page: Any, prefix: str) -> str:
    page.wait_for_function(f"() => (window.__tracklayer.st.legal || []).some((m) => m.startsWith('{prefix}'))")
    return str(page.evaluate(f"() => window.__tracklayer.st.legal.find((m) => m.startsWith('{prefix}'))"))


def play_trans_steps(page: Any, lang: str, shots: Path, size: str) -> None:
    """Place the start marker, lay two rails: the guide follows."""
    guide_at(page, "start")
    assert "tut-pulse" in page.get_attribute("#board", "class")
    check_layout(page, lang, shots, f"trans-start-{lang}-{size}", "trans")
    page.click(f'g.pt[data-point="{legal_move(page, "start ")[6:]}"]')
    guide_at(page, "rail")  # after the bot's start marker
    assert "tut-pulse" in page.get_attribute("#board", "class")
    check_layout(page, lang, shots, f"trans-rail-{lang}-{size}", "trans")
    page.click(f'g.edge[data-edge="{legal_move(page, "rail ")[5:]}"] .edge-hit', force=True)
    guide_at(page, "second")
    page.click(f'g.edge[data-edge="{legal_move(page, "rail ")[5:]}"] .edge-hit', force=True)
    page.wait_for_function("() => !['start', 'rail', 'second'].includes(document.querySelector('#guide').dataset.step)")
    assert not page.errors, page.errors


def test_the_trans_tutorial_guides_the_first_turns(web_server: Server, browser: Any, shots: Path) -> None:
    for lang, locale, size in (("en", "en-US", "phone"), ("de", "de-DE", "laptop")):
        ctx = context(browser, size, locale)
        try:
            page = start_from_lobby(ctx, web_server, "trans-europa")
            play_trans_steps(page, lang, shots, size)
        finally:
            ctx.close()


MINE = """() => { const ui = window.__tracklayer, v = ui.st.view;
  const tunnels = new Set(ui.board.routes.filter((r) => r.tunnel).map((r) => r.label));
  return { moves: (v.log || []).filter((e) => e.player === 0).map((e) => String(e.move)), tunnels: [...tunnels] }; }"""


def plain_moves(legal: list[str], rng: random.Random) -> str:
    """Claims first, else a card from the deck or a coloured one: never a face-up locomotive, a station or more
    tickets (and a tunnel only by chance)."""
    claims = [m for m in legal if m.startswith("claim ")]
    plain = [m for m in legal if m.startswith(("keep ", "pay", "decline")) or m in ("draw deck", "pass")]
    other = [m for m in legal if m != "draw locomotive" and not m.startswith(("station ", "tickets"))]
    return rng.choice(claims or plain or other or legal)


def test_the_end_of_a_lesson_tells_what_the_game_never_reached(web_server: Server, browser: Any,
                                                                shots: Path) -> None:
    """A lesson played to its end (at random, over the websocket): before the last step the guide tells, once
    each and in the page's language, the optional lessons the game never reached (a face-up locomotive
    taken, a tunnel, a station, more tickets), and none the player met."""
    r = httpx.post(web_server.base + "/api/tutorial", json={"game": "ttr-europe"}, timeout=waits.scaled(20))
    assert r.status_code == 201, r.text
    out = r.json()
    play_out(web_server, out["id"], out["token"], seed=3, choose=plain_moves)
    de = catalog("de")
    ctx = context(browser, "phone", "de-DE")
    try:
        page = opened(ctx, web_server.base + out["link"])
        page.wait_for_selector("#guide[data-step]")
        page.wait_for_function("() => window.__tracklayer.st && window.__tracklayer.st.over")
        page.click("#final #show-board")  # the results first, then the board and its guide
        page.wait_for_selector("#overlay", state="hidden")
        mine = page.evaluate(MINE)
        moves, tunnels = mine["moves"], set(mine["tunnels"])
        met = {"loco": "draw locomotive" in moves,
               "tunnel": any(m.startswith("claim ") and m[6:].split(": ")[0] in tunnels for m in moves),
               "station": any(m.startswith("station ") for m in moves),
               "tickets": "tickets" in moves}
        told = []
        while page.get_attribute("#guide", "data-mode") == "recap":
            step = page.get_attribute("#guide", "data-step")
            assert step not in told, told
            told.append(step)
            title = de[f"tut.ttr.{step}.title"].replace("{loco}", de["color.locomotive"])
            assert page.inner_text("#guide h2") == de["tut.recap_title"].replace("{title}", title)
            text = de[f"tut.ttr.{step}.recap"].replace("{loco}", de["color.locomotive"])
            assert text in page.inner_text("#guide p")
            assert page.inner_text("#guide-next") == de["tut.got_it"]
            if len(told) == 1:
                page.screenshot(path=str(shots / "tutorial-recap-de-phone.png"))
            page.click("#guide-next")
            page.wait_for_function("(step) => document.querySelector('#guide').dataset.step !== step", arg=step)
        guide_at(page, "over")
        assert told == [s for s in ("loco", "tunnel", "station", "tickets") if not met[s]], (told, met)
        assert not page.errors, page.errors
    finally:
        ctx.close()
