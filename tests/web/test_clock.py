"""Turn clocks in a real browser: the countdown, a player who leaves and comes back, the lobby's choice."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests import waits
from tests.server.helpers import Server, database_url, running
from tests.web.test_browser import scroll_to, state

NY = "ttr-new-york"
SIZES = {"desktop": (1366, 768), "phone": (390, 844), "wide": (1920, 1080)}


def _context(browser: Any, size: str = "desktop", locale: str = "en-US") -> Any:
    w, hgt = SIZES[size]
    return browser.new_context(viewport={"width": w, "height": hgt}, locale=locale,
                               **({"device_scale_factor": 2, "is_mobile": True, "has_touch": True}
                                  if size == "phone" else {}))


def _open(ctx: Any, server: Server, link: str) -> Any:
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors
    page.goto(server.base + link)
    page.wait_for_selector("g.route")
    page.wait_for_function("() => window.__tracklayer.st")
    return page


def test_clock_counts_down_on_the_game_page(web_server: Server, browser: Any, shots: Path) -> None:
    out = web_server.create(NY, [{"name": "Ann"}, {"name": "Bob"}], first_player=0,
                            clock={"preset": "rapid"})
    for lang, locale in (("en", "en-US"), ("de", "de-DE")):
        for size in SIZES:
            ctx = _context(browser, size, locale)
            try:
                page = _open(ctx, web_server, out["seats"][0]["link"])
                page.wait_for_selector("#clockbox [data-clock-left]")
                first = page.inner_text("#clockbox [data-clock-left]")
                # the mover's time counts down between two messages of the server
                page.wait_for_function(
                    f"() => document.querySelector('#clockbox [data-clock-left]').textContent !== {first!r}",
                    timeout=waits.ms(15))
                text = page.inner_text("#clockbox")
                assert ("Rapid" in text) if lang == "en" else ("Schnell" in text and "Reserve" in text)
                assert page.locator("#resign").count() == 1
                scroll_to(page, "#clockbox")
                page.screenshot(path=str(shots / f"clock-{lang}-{size}.png"))
                page.locator("#clockbox").screenshot(path=str(shots / f"clockbox-{lang}-{size}.png"))
                assert not page.errors, page.errors
            finally:
                ctx.close()


def _play_bob(bob: Any) -> None:
    """Bob plays any legal move when it is his turn (the keyboard panel), so that only Ann times out."""
    s = state(bob)
    if s and not s["over"] and s.get("legal") and bob.locator("#all-moves").count():
        n = s["moves"]
        bob.select_option("#all-moves", s["legal"][0])
        bob.click("#all-moves + button")
        bob.wait_for_function(f"() => window.__tracklayer.st.moves > {n}", timeout=waits.ms(20))


def test_player_leaves_the_standin_plays_and_she_takes_her_seat_back(web_server: Server, browser: Any,
                                                                     shots: Path) -> None:
    out = web_server.create(NY, [{"name": "Ann"}, {"name": "Bob"}], first_player=0,
                            clock={"turn_seconds": 6, "bank_seconds": 0}, standin="greedy")
    ann_ctx, bob_ctx = _context(browser), _context(browser)
    try:
        bob = _open(bob_ctx, web_server, out["seats"][1]["link"])
        ann = _open(ann_ctx, web_server, out["seats"][0]["link"])
        ann.wait_for_selector("#clockbox .clock-row.moving [data-clock-left]")
        ann.close()  # Ann leaves
        deadline = waits.deadline(150)
        while True:  # Bob plays on; Ann's stand-in plays her turns, then keeps her seat
            s = state(bob)
            if s["seats"][0].get("standin") and s["clock"]["timeouts"][0] >= 2:
                break
            assert time.monotonic() < deadline, s["clock"]
            _play_bob(bob)
            bob.wait_for_timeout(200)
        assert "A bot plays for this seat" in bob.inner_text("#clockbox")
        scroll_to(bob, "#clockbox")
        bob.screenshot(path=str(shots / "clock-standin-seen-by-bob.png"))
        # Ann comes back: her page says a bot plays for her and offers her seat back
        ann = _open(ann_ctx, web_server, out["seats"][0]["link"])
        ann.wait_for_selector("#takeback")
        assert "A bot is playing for you" in ann.inner_text("#takeback-bar")
        scroll_to(ann, "#clockbox")
        ann.screenshot(path=str(shots / "clock-takeback.png"))
        ann.click("#takeback")
        ann.wait_for_function("() => !window.__tracklayer.st.seats[0].standin || window.__tracklayer.st.over",
                              timeout=waits.ms(20))
        bob.wait_for_function("() => !window.__tracklayer.st.seats[0].standin || window.__tracklayer.st.over",
                              timeout=waits.ms(20))
        assert not ann.errors and not bob.errors, ann.errors + bob.errors
    finally:
        ann_ctx.close()
        bob_ctx.close()


@pytest.fixture(scope="module")
def paced_server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Bots that take a quarter of a second a move: the game goes on while a person clicks."""
    tmp = tmp_path_factory.mktemp("paced")
    with running(database_url(tmp), tmp / "server.log", bot_delay=0.25, rate=50) as srv:
        yield srv


def test_take_back_my_seat_works_on_the_first_real_click_while_the_standin_plays(paced_server: Server,
                                                                                  browser: Any) -> None:
    seats = [{"name": "Ann"}, {"kind": "bot", "name": "Robo"}, {"kind": "bot", "name": "Otto"}]
    out = paced_server.create("ttr-europe", seats, first_player=1)
    r = httpx.post(f"{paced_server.base}/api/games/{out['id']}/seats/0/handover", timeout=waits.scaled(10),
                   headers={"Authorization": f"Bearer {out['creator']['token']}"})
    assert r.status_code == 200, r.text
    ctx = _context(browser)
    try:
        ann = _open(ctx, paced_server, out["seats"][0]["link"])
        ann.wait_for_selector("#takeback")
        # one real press and release, with moves (the stand-in's and the bots') redrawing the page in between
        box = ann.locator("#takeback").bounding_box()
        assert box
        moves = state(ann)["moves"]
        ann.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        ann.mouse.down()
        ann.wait_for_function(f"() => window.__tracklayer.st.moves >= {moves + 2}", timeout=waits.ms(20))
        ann.mouse.up()
        ann.wait_for_function("() => !window.__tracklayer.st.seats[0].standin", timeout=waits.ms(20))
        ann.wait_for_selector("#takeback-bar", state="detached")
        assert not state(ann)["over"]
        assert not ann.errors, ann.errors
        # and from the keyboard, once a stand-in plays again (the creator hands the seat over once more)
        ann.close()
        deadline = waits.deadline(20)
        while True:  # until the server has seen her leave
            r = httpx.post(f"{paced_server.base}/api/games/{out['id']}/seats/0/handover", timeout=waits.scaled(10),
                           headers={"Authorization": f"Bearer {out['creator']['token']}"})
            if r.status_code != 409 or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert r.status_code == 200, r.text
        ann = _open(ctx, paced_server, out["seats"][0]["link"])
        ann.wait_for_selector("#takeback")
        ann.focus("#takeback")
        ann.keyboard.press("Enter")
        ann.wait_for_function("() => !window.__tracklayer.st.seats[0].standin", timeout=waits.ms(20))
        assert not ann.errors, ann.errors
    finally:
        ctx.close()


def test_lobby_offers_clock_presets(web_server: Server, browser: Any, shots: Path) -> None:
    for lang, locale in (("en", "en-US"), ("de", "de-DE")):
        for size in ("desktop", "phone"):
            ctx = _context(browser, size, locale)
            try:
                page = ctx.new_page()
                page.goto(web_server.base + "/")
                page.wait_for_selector(".tile")
                page.wait_for_selector("#clock option", state="attached")
                options = page.locator("#clock option").all_inner_texts()
                assert len(options) == 7
                assert ("Blitz: 1 min a turn + 2 min bank" in options) if lang == "en" else ("Ohne Uhr" in options)
                page.select_option("#clock", "blitz")
                scroll_to(page, "#clock")
                page.screenshot(path=str(shots / f"lobby-clock-{lang}-{size}.png"))
                if lang == "en" and size == "desktop":
                    with page.expect_response(lambda r: r.url.endswith("/api/games")
                                              and r.request.method == "POST") as created:
                        page.click("#create")
                    game_id = created.value.json()["id"]
                    page.wait_for_selector("#created:not([hidden])")
                    # by id: on a shared PostgreSQL other tests create games at the same moment
                    games = httpx.get(web_server.base + "/api/games", timeout=waits.scaled(10)).json()["games"]
                    game = next(g for g in games if g["id"] == game_id)
                    assert game["clock"] == {"preset": "blitz", "turn_seconds": 60, "bank_seconds": 120}
                    page.wait_for_function("() => document.querySelector('#all').textContent.includes('Blitz')",
                                           timeout=waits.ms(20))
            finally:
                ctx.close()


def test_a_seated_player_hands_over_a_seat_that_stayed_away(tmp_path: Path, browser: Any, shots: Path) -> None:
    """Not the creator: Bob, playing in his own browser, sees "Let a bot play for Ann" once Ann has stayed
    away long enough, and the stand-in takes her seat."""
    limit = waits.scaled(3)
    with running(database_url(tmp_path), tmp_path / "s.log", env={"TRACKLAYER_AWAY_SECONDS": str(limit)}) as srv:
        out = srv.create(NY, [{"name": "Ann"}, {"name": "Bob"}], first_player=0)
        for lang, locale in (("en", "en-US"), ("de", "de-DE")):
            ctx = _context(browser, "desktop", locale)
            try:
                bob = _open(ctx, srv, out["seats"][1]["link"])
                if lang == "en":  # the button waits for the limit, then appears without a new state
                    bob.wait_for_selector('[data-handover="0"]', state="attached")
                    assert state(bob)["seats"][0]["handover_in"] > 0
                    assert bob.locator('[data-handover="0"]').is_hidden()
                bob.wait_for_selector('[data-handover="0"]', state="visible", timeout=waits.ms(30))
                text = bob.inner_text("#clockbox")
                assert "Let a bot play for Ann" in text if lang == "en" else "Ann" in text and "Bot" in text
                scroll_to(bob, "#clockbox")
                bob.screenshot(path=str(shots / f"clock-away-handover-{lang}.png"))
                if lang == "de":
                    bob.click('[data-handover="0"]')
                    bob.wait_for_function("() => window.__tracklayer.st.seats[0].standin === true",
                                          timeout=waits.ms(20))
                    assert bob.locator('[data-handover="0"]').count() == 0
                assert not bob.errors, bob.errors
            finally:
                ctx.close()


# whether a select's selected option's text fits in the select (a canvas measures it in the select's font)
FITS = """(text) => { const sel = document.querySelector('#clock'); const cs = getComputedStyle(sel);
  const ctx = document.createElement('canvas').getContext('2d'); ctx.font = cs.font;
  const room = sel.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - 20;
  return ctx.measureText(text).width <= room; }"""


def test_lobby_starts_a_clock_when_two_people_share_a_game(web_server: Server, browser: Any, shots: Path) -> None:
    """The clock follows the seats (no clock against bots, "standard" for two people on their own screens,
    none again at a hot-seat table) until the creator picks one; the game is created with it."""
    for lang, locale in (("en", "en-US"), ("de", "de-DE")):
        for size in ("desktop", "phone", "wide"):
            ctx = _context(browser, size, locale)
            try:
                page = ctx.new_page()
                page.goto(web_server.base + "/")
                page.wait_for_selector(".tile")
                page.wait_for_selector("#clock option", state="attached")
                assert page.input_value("#clock") == ""  # Ann against two bots
                page.locator("#seats .seat").nth(1).locator('.who button[data-kind="human"]').click()
                assert page.input_value("#clock") == "standard"
                page.check("#hotseat")
                assert page.input_value("#clock") == ""
                page.uncheck("#hotseat")
                page.locator("#seats .seat").nth(2).locator('.who button[data-kind="open"]').click()
                assert page.input_value("#clock") == "standard"
                scroll_to(page, "#clock")
                page.screenshot(path=str(shots / f"lobby-clock-default-{lang}-{size}.png"))
                # the chosen preset shows whole in the closed picker, in every language
                for code in ("en", "de", "it", "fr", "nl"):
                    page.select_option("#lang", code)
                    page.wait_for_function(f"() => document.documentElement.lang === {code!r}")
                    for preset in ("standard", "rapid", "day-72h"):
                        page.select_option("#clock", preset)
                        text = page.evaluate("() => { const s = document.querySelector('#clock'); "
                                             "return s.options[s.selectedIndex].text; }")
                        fits = page.evaluate(FITS, text)
                        assert fits, (code, preset, text)
                page.select_option("#lang", lang)
                page.select_option("#clock", "standard")
                if size != "desktop":
                    continue
                # the creator's pick stays, whatever the seats do afterwards
                page.select_option("#clock", "day-24h")
                page.locator("#seats .seat").nth(1).locator('.who button[data-kind="bot"]').click()
                page.locator("#seats .seat").nth(2).locator('.who button[data-kind="bot"]').click()
                assert page.input_value("#clock") == "day-24h"
                page.locator("#seats .seat").nth(1).locator('.who button[data-kind="human"]').click()
                page.select_option("#clock", "standard")
                with page.expect_response(lambda r: r.url.endswith("/api/games")
                                          and r.request.method == "POST") as created:
                    page.click("#create")
                game_id = created.value.json()["id"]
                games = httpx.get(web_server.base + "/api/games", timeout=waits.scaled(10)).json()["games"]
                game = next(g for g in games if g["id"] == game_id)
                assert game["clock"] == {"preset": "standard", "turn_seconds": 300, "bank_seconds": 600}
            finally:
                ctx.close()


NOTIFY_STUB = """
// a hidden tab and a Notification API that records (headless chromium has neither for real)
Object.defineProperty(document, "hidden", { get: () => window.__hidden === true });
window.__notes = [];
window.__asked = 0;
class FakeNotification {
  constructor(title, opts) { window.__notes.push({ title, body: opts && opts.body }); }
  static requestPermission() {
    window.__asked += 1; FakeNotification.permission = "granted"; return Promise.resolve("granted");
  }
}
FakeNotification.permission = "default";
window.Notification = FakeNotification;
"""


def test_your_turn_notification_and_tab_title(web_server: Server, browser: Any, shots: Path) -> None:
    out = web_server.create(NY, [{"name": "Ann"}, {"name": "Bob"}], first_player=1)
    ctx = _context(browser)
    ctx.add_init_script(NOTIFY_STUB)
    bob = web_server.client(out["id"], out["seats"][1]["token"])
    try:
        page = _open(ctx, web_server, out["seats"][0]["link"])
        assert page.evaluate("() => window.__asked") == 0  # never asked on load
        page.click("#notify")  # asked on a click only
        page.wait_for_function("() => window.__asked === 1 && !document.getElementById('notify')")
        page.evaluate("() => { window.__hidden = true; }")  # Ann switches to another tab
        st = bob.my_turn()
        assert bob.move(st["legal"][0])["type"] == "ack"
        page.wait_for_function("() => (window.__tracklayer.st.legal || []).length > 0")
        page.wait_for_function("() => document.title === '● Your turn — tracklayer' && window.__notes.length === 1",
                               timeout=waits.ms(10))
        assert page.evaluate("() => window.__notes[0].title") == "Your turn"
        page.evaluate("() => { window.__hidden = false; document.dispatchEvent(new Event('visibilitychange')); }")
        page.wait_for_function("() => !document.title.startsWith('●')")
        assert not page.errors, page.errors
    finally:
        bob.close()
        ctx.close()


def test_creator_hands_an_absent_seat_to_a_bot(web_server: Server, browser: Any, shots: Path) -> None:
    ctx = _context(browser)
    try:
        page = ctx.new_page()
        page.goto(web_server.base + "/")
        page.wait_for_selector(".tile")
        page.locator("#seats .seat").nth(2).locator("button.x").click()  # two seats
        page.locator("#seats .seat").nth(1).locator(".who button").first.click()  # seat 2: a person
        page.fill("#seats .seat:nth-child(1) input", "Ann")
        page.fill("#seats .seat:nth-child(2) input", "Bob")
        page.click("#create")
        page.wait_for_selector("#created:not([hidden])")
        page.click("#links a.primary")  # the creator plays Ann; Bob never comes
        page.wait_for_selector("g.route")
        page.wait_for_selector('[data-handover="1"]')
        assert "Let a bot play for Bob" in page.inner_text("#clockbox")
        scroll_to(page, "#clockbox")
        page.screenshot(path=str(shots / "clock-handover.png"))
        page.click('[data-handover="1"]')
        page.wait_for_function("() => window.__tracklayer.st.seats[1].standin === true", timeout=waits.ms(20))
        assert page.locator('[data-handover="1"]').count() == 0
        page.wait_for_selector('#clockbox [data-clock-seat="1"]')
        assert "A bot plays for this seat" in page.inner_text("#clockbox")  # no clock, but the seat's state
        page.screenshot(path=str(shots / "clock-handed-over.png"))
    finally:
        ctx.close()
