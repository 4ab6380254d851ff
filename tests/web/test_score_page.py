"""The score calculator page (/score) in Debian's chromium: a small real game entered as a person
would (tapping routes and lanes, stations, tickets from the list and typed by hand; a Trans round),
and the breakdown compared with ``tracklayer score --json`` run on the same file; reload, export and
import, the share link, the server's message for a refused position; a phone in German.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests import waits
from tests.server.helpers import Server
from tracklayer.server.catalog import board_data

ROOT = Path(__file__).resolve().parents[2]


def cli_json(tmp_path: Path, doc: dict[str, Any] | str) -> tuple[int, str]:
    """``tracklayer score --json`` in a subprocess on a position (or a file's raw text): (exit code,
    stdout, or the error line after 'error: FILE: ')."""
    path = tmp_path / "position.json"
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    res = subprocess.run([sys.executable, "-m", "tracklayer.cli", "score", "--json", str(path)],
                         cwd=ROOT, capture_output=True, text=True, timeout=waits.scaled(120))
    if res.returncode == 2:
        return 2, res.stderr.strip().removeprefix(f"error: {path}: ")
    return res.returncode, res.stdout


def route_index(game: str, a: str, b: str, color: str | None = None) -> int:
    bd = board_data(game)
    names = [c["name"] for c in bd["cities"]]
    for r in bd["routes"]:
        if {names[r["a"]], names[r["b"]]} == {a, b} and (color is None or r["color"] == color):
            return r["i"]
    raise KeyError((a, b, color))


def new_page(browser: Any, locale: str = "en-US", width: int = 1366, height: int = 768, mobile: bool = False) -> Any:
    ctx = browser.new_context(viewport={"width": width, "height": height}, locale=locale,
                              has_touch=mobile, is_mobile=mobile, accept_downloads=True)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(f"{e}\n{getattr(e, 'stack', '')}"))
    page.errors = errors
    page.on("dialog", lambda d: d.accept())
    return page


def settle(page: Any) -> dict[str, Any]:
    page.wait_for_function("() => window.__score && window.__score.done > 0 && window.__score.settled()")
    return page.evaluate("() => ({doc: window.__score.doc, result: window.__score.result, "
                         "error: window.__score.error})")


def tap_route(page: Any, game: str, a: str, b: str, color: str | None = None) -> None:
    i = route_index(game, a, b, color)
    page.locator(f'.route[data-route="{i}"]').click()
    if page.locator("#sc-sheet").count():  # a double route: pick the lane
        page.locator(f'#sc-sheet .lane[data-lane="{i}"]').click()


def choose_player(page: Any, i: int) -> None:
    page.locator(f'.sc-player[data-player="{i}"] .sc-select').click()


def name_player(page: Any, i: int, name: str) -> None:
    box = page.locator(f'.sc-player[data-player="{i}"] .sc-name')
    box.fill(name)
    box.press("Enter")
    box.blur()


def europe_game(page: Any, base: str) -> None:
    """Three players: routes (one double lane picked), a station, tickets from the list and by hand."""
    page.goto(base + "/score")
    page.wait_for_selector("#sc-map svg")
    page.click('.gamebtn[data-game="ttr-europe"]')
    page.wait_for_selector(".route")
    name_player(page, 0, "Ann")
    name_player(page, 1, "Bob")
    page.click("#sc-add")
    name_player(page, 2, "Cy")
    choose_player(page, 0)
    tap_route(page, "ttr-europe", "Paris", "Frankfurt", "white")
    tap_route(page, "ttr-europe", "Frankfurt", "Munchen")
    tap_route(page, "ttr-europe", "Munchen", "Wien")
    page.click('.sc-modes [data-mode="stations"]')
    berlin = [c["name"] for c in board_data("ttr-europe")["cities"]].index("Berlin")
    page.locator(f'.city[data-city="{berlin}"] circle.dot').click(force=True)
    page.click('.sc-modes [data-mode="tickets"]')
    page.fill("#sc-search", "wien")
    page.locator(".sc-ticket", has_text="Paris").first.click()
    page.click(".sc-own summary")
    page.fill("#sc-city-a", "Paris")
    page.fill("#sc-city-b", "Berlin")
    page.fill("#sc-points", "7")
    page.click("#sc-add-ticket")
    choose_player(page, 1)
    page.click('.sc-modes [data-mode="routes"]')
    tap_route(page, "ttr-europe", "Berlin", "Frankfurt", "red")
    tap_route(page, "ttr-europe", "Berlin", "Danzig")
    page.click('.sc-modes [data-mode="tickets"]')
    page.fill("#sc-search", "roma")
    page.locator(".sc-ticket", has_text="Berlin").first.click()


def test_a_europe_game_entered_by_tapping(web_server: Server, browser: Any, tmp_path: Path, shots: Path) -> None:
    page = new_page(browser)
    try:
        page.goto(web_server.base + "/")
        page.click("#score-link")  # the lobby links to the page
        page.wait_for_url("**/score")
        europe_game(page, web_server.base)
        state = settle(page)
        doc, result = state["doc"], state["result"]
        assert state["error"] is None
        ann, bob, cy = doc["players"]
        assert ann["routes"] == [["Frankfurt", "Paris", "white"], ["Frankfurt", "Munchen"], ["Munchen", "Wien"]]
        assert ann["stations"] == ["Berlin"]
        assert ann["tickets"] == [["Paris", "Wien"], ["Paris", "Berlin", 7]]
        assert bob["routes"] == [["Berlin", "Frankfurt", "red"], ["Berlin", "Danzig"]]
        assert bob["tickets"] == [["Berlin", "Roma"]] and cy["name"] == "Cy"
        # the page's breakdown is tracklayer score --json's, field for field
        code, out = cli_json(tmp_path, doc)
        assert code == 0 and result == json.loads(out)
        api = httpx.post(web_server.base + "/api/score", content=json.dumps(doc)).json()
        assert api == result
        totals = page.locator("#sc-breakdown .scores tbody tr").evaluate_all(
            "rows => rows.map(r => [Number(r.dataset.player), Number(r.querySelector('.total').textContent)])")
        assert sorted(totals) == [[i, p["total"]] for i, p in enumerate(result["players"])]
        assert page.locator("#sc-breakdown .scores tbody tr").count() == 3
        winners = ", ".join(result["winners"])
        assert winners in page.inner_text(".sc-winners")
        # the longest path is drawn on the map, the borrowed route of Ann's station too
        assert page.locator('.longest[data-player="0"]').count() == len(result["players"][0]["longest_path_routes"])
        assert result["players"][0]["stations"][0]["borrows"]
        assert page.locator('.borrowed[data-player="0"]').count() == 1
        page.screenshot(path=str(shots / "score-europe-1366.png"))
        # the page refuses what the rules refuse: the second lane with 3 players, another's lane, too many wagons
        choose_player(page, 2)
        page.click('.sc-modes [data-mode="routes"]')
        i = route_index("ttr-europe", "Paris", "Frankfurt", "orange")
        page.locator(f'.route[data-route="{i}"]').click()
        page.locator(f'#sc-sheet .lane[data-lane="{i}"]').click()
        assert "only one lane" in page.inner_text("#toast")
        tap_route(page, "ttr-europe", "Berlin", "Danzig")
        assert "already Bob's" in page.inner_text("#toast")
        page.locator(f'.route[data-route="{i}"]').click()
        page.keyboard.press("Escape")  # the lane sheet closes with Escape, nothing taken
        assert page.locator("#sc-sheet").count() == 0
        assert settle(page)["doc"] == doc
        # reload keeps the position and its score
        page.reload()
        page.wait_for_selector("#sc-breakdown .scores")
        again = settle(page)
        assert again["doc"] == doc and again["result"] == result
        # export, start over, import the downloaded file: the same position
        with page.expect_download() as dl:
            page.click("#sc-export")
        exported = json.loads(Path(dl.value.path()).read_text(encoding="utf-8"))
        assert exported == doc
        page.click("#sc-clear")
        assert settle(page)["doc"]["players"][0].get("routes") == []
        page.set_input_files("#sc-import", str(dl.value.path()))
        page.wait_for_function("() => window.__score.doc.players.length === 3")
        assert settle(page)["doc"] == doc
        # the share link restores it in another browser (a fresh context: nothing stored)
        page.click("#sc-share")
        page.wait_for_function("() => document.querySelector('#sc-link').value")
        link = page.input_value("#sc-link")
        assert "/score#z=" in link and len(link) < 1200
        other = new_page(browser)
        try:
            other.goto(link)
            restored = settle(other)
            assert restored["doc"] == doc and restored["result"] == result
            assert "#" not in other.url  # the page's storage keeps it from now on
        finally:
            other.context.close()
        assert not page.errors, page.errors
    finally:
        page.context.close()


def test_a_refused_position_shows_the_servers_message(web_server: Server, browser: Any, tmp_path: Path) -> None:
    """A pasted file the page takes as it is; the server judges it and its message is shown word for word."""
    bad = {"game": "ttr-europe", "players": [
        {"name": "Ann", "routes": [["Paris", "Frankfurt", "white"]]},
        {"name": "Bob", "routes": [["Paris", "Frankfurt", "orange"]]}]}
    page = new_page(browser)
    try:
        page.goto(web_server.base + "/score")
        page.wait_for_selector("#sc-map svg")
        page.click(".sc-paste summary")
        page.fill("#sc-paste-text", json.dumps(bad))
        page.click("#sc-paste-load")
        page.wait_for_selector("#sc-error-msg")
        state = settle(page)
        code, line = cli_json(tmp_path, bad)
        api = httpx.post(web_server.base + "/api/score", content=json.dumps(bad))
        assert code == 2 and api.status_code == 400 and api.json() == {"detail": line}
        assert page.inner_text("#sc-error-msg") == line == state["error"]
        assert "with 2 players only one lane" in line
        # with 4 players both lanes are open: the error goes, the score comes
        page.click("#sc-add")
        page.click("#sc-add")
        page.wait_for_selector("#sc-breakdown .scores")
        assert settle(page)["error"] is None and page.locator("#sc-error").is_hidden()
        # a broken file is shown as it is, with the server's message, in every mode
        broken = {"game": "ttr-europe", "players": [{"name": "A", "routes": [None, "Paris", ["Paris"]], "tickets": [5],
                                                      "stations": {"x": 1}}, {"name": "B", "routes": 7}]}
        page.fill("#sc-paste-text", json.dumps(broken))
        page.click("#sc-paste-load")
        state = settle(page)
        assert state["doc"] == broken and state["error"] == cli_json(tmp_path, broken)[1]
        for mode in ("stations", "tickets", "routes"):
            page.click(f'.sc-modes [data-mode="{mode}"]')
        page.reload()
        assert settle(page)["doc"] == broken
        page.click(".sc-paste summary")
        # more wagons than a player has: refused in the page at once
        bd = board_data("ttr-europe")
        names = [c["name"] for c in bd["cities"]]
        singles = [r for r in bd["routes"] if not r["twins"]]
        mine, used = [], 0
        for r in singles:
            if used + r["length"] <= bd["wagons"] - 1:
                mine.append([names[r["a"]], names[r["b"]]])
                used += r["length"]
        extra = next(r for r in singles if r["length"] >= 2 and [names[r["a"]], names[r["b"]]] not in mine)
        full = {"game": "ttr-europe", "players": [{"name": "Ann", "routes": mine}, {"name": "Bob"}]}
        page.fill("#sc-paste-text", json.dumps(full))
        page.click("#sc-paste-load")
        assert settle(page)["error"] is None
        page.locator(f'.route[data-route="{extra["i"]}"]').click(force=True)
        assert page.inner_text("#toast") == f"Ann has only {bd['wagons']} wagons."
        assert settle(page)["doc"] == full
        # not JSON at all: the server's message for the file, the position unchanged
        page.fill("#sc-paste-text", "{oops")
        page.click("#sc-paste-load")
        page.wait_for_selector("#toast:not([hidden])")
        code, line = cli_json(tmp_path, "{oops")
        assert line in page.inner_text("#toast")
        assert not page.errors, page.errors
    finally:
        page.context.close()


def test_a_trans_round(web_server: Server, browser: Any, tmp_path: Path, shots: Path) -> None:
    bd = board_data("trans-america")
    page = new_page(browser)
    try:
        page.goto(web_server.base + "/score")
        page.wait_for_selector("#sc-map svg")
        page.click('.gamebtn[data-game="trans-america"]')
        page.wait_for_selector(".pt")
        # nothing entered yet: a note of what is missing, not the server's refusal
        page.wait_for_selector("#sc-incomplete")
        assert page.locator("#sc-error").is_hidden()
        name_player(page, 0, "Ann")
        name_player(page, 1, "Bob")
        choose_player(page, 0)
        page.click('.sc-modes [data-mode="start"]')
        page.locator('.pt[data-point="8,8"] .point-hit').click(force=True)
        choose_player(page, 1)
        page.locator('.pt[data-point="12,8"] .point-hit').click(force=True)
        page.click('.sc-modes [data-mode="rails"]')
        for a, b in (([8, 8], [7, 9]), ([12, 8], [13, 7])):
            text = next(e["text"] for e in bd["edges"]
                        if sorted([bd["points"][e["a"]], bd["points"][e["b"]]]) == sorted([a, b]))
            page.locator(f'.edge[data-edge="{text}"] .edge-hit').click(force=True)
        page.click('.sc-modes [data-mode="cities"]')
        color = {c["name"]: c["color"] for c in bd["cities"]}
        page.select_option(f'#sc-entry select[data-color="{color["Denver"]}"]', "Denver")
        choose_player(page, 0)
        page.select_option(f'#sc-entry select[data-color="{color["Phoenix"]}"]', "Phoenix")
        page.fill("#sc-before", "3")
        page.press("#sc-before", "Enter")
        page.click(".sc-specials summary")
        page.check('.sc-specials input[data-card="2"]')
        state = settle(page)
        doc, result = state["doc"], state["result"]
        assert [sorted(line) for line in doc["rails"]] == [[[7, 9], [8, 8]], [[12, 8], [13, 7]]]
        assert doc["players"][0]["start"] == [8, 8] and doc["players"][0]["cities"] == ["Phoenix"]
        assert doc["players"][0]["score"] == 3 and doc["special_cards"] == [2]
        code, out = cli_json(tmp_path, doc)
        assert code == 0 and result == json.loads(out)
        shown = sum(len(p["missing_lines"]) for p in result["players"])
        assert page.locator("line.missing").count() == shown
        assert page.locator('.rail').count() == 2 and page.locator(".start-marker").count() == 2
        page.screenshot(path=str(shots / "score-trans-1366.png"))
        page.reload()
        assert settle(page)["doc"] == doc
        assert not page.errors, page.errors
    finally:
        page.context.close()


@pytest.mark.parametrize("locale", ["en-US", "de-DE"])
def test_on_a_phone(web_server: Server, browser: Any, tmp_path: Path, shots: Path, locale: str) -> None:
    """390x844: one column, no sideways scrolling, 44 px touch targets, lanes picked from a sheet; German text."""
    page = new_page(browser, locale, 390, 844, mobile=True)
    try:
        europe_game(page, web_server.base)
        state = settle(page)
        code, out = cli_json(tmp_path, state["doc"])
        assert code == 0 and state["result"] == json.loads(out)
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
        small = page.evaluate("""() => [...document.querySelectorAll(
            '#scorepage button, #scorepage select, #scorepage input:not([type=file]), #scorepage summary, .sc-upload')]
            .filter(e => e.offsetParent !== null && !e.closest('details:not([open]) > :not(summary)'))
            .map(e => [e.id || e.className || e.tagName, e.getBoundingClientRect().height])
            .filter(([, hgt]) => hgt < 43.5)""")
        assert small == [], small
        page.click("#sc-zoom-in")
        page.click("#sc-zoom-in")
        assert page.evaluate("() => document.querySelector('#sc-map svg').getBoundingClientRect().width") > 700
        for _ in range(3):
            page.click("#sc-zoom-in")
        # at the largest zoom a route's and a city's tap area are 44 px across
        px = page.evaluate("""() => { const svg = document.querySelector('#sc-map svg'), k = svg.getScreenCTM().a;
            const hit = document.querySelector('.route-hit'), city = document.querySelector('.city-hit');
            return [parseFloat(getComputedStyle(hit).strokeWidth) * k, 2 * city.r.baseVal.value * k]; }""")
        assert min(px) >= 44, px
        page.screenshot(path=str(shots / f"score-phone-zoomed-{locale[:2]}.png"))
        page.screenshot(path=str(shots / f"score-phone-{locale[:2]}.png"), full_page=True)
        if locale == "de-DE":
            text = page.inner_text("body")
            assert "Brettspiel auswerten" in text and "Zielkarten" in text
            en = json.loads((ROOT / "tracklayer/web/static/i18n/en.json").read_text(encoding="utf-8"))
            de = json.loads((ROOT / "tracklayer/web/static/i18n/de.json").read_text(encoding="utf-8"))
            english = [v for k, v in en.items()
                       if k.startswith("score.") and v != de[k] and "{" not in v and len(v) > 5]
            assert [v for v in english if v in text] == []
        assert not page.errors, page.errors
    finally:
        page.context.close()


DESKTOPS = [(1366, 768), (1920, 1080)]


@pytest.mark.parametrize("locale", ["en-US", "de-DE"])
def test_screens(web_server: Server, browser: Any, shots: Path, locale: str) -> None:
    """The page at desktop sizes (one game entered, the window resized): nothing wider than the window,
    the side column inside it."""
    page = new_page(browser, locale, *DESKTOPS[0])
    try:
        europe_game(page, web_server.base)
        for width, height in DESKTOPS:
            page.set_viewport_size({"width": width, "height": height})
            settle(page)
            page.wait_for_selector("#sc-breakdown .scores")
            assert page.evaluate("() => document.documentElement.scrollWidth") <= width
            right = page.evaluate("() => Math.max(...[...document.querySelectorAll('.sc-side > *, .sc-setup')]"
                                  ".map(e => e.getBoundingClientRect().right))")
            assert right <= width
            page.screenshot(path=str(shots / f"score-{width}-{locale[:2]}.png"))
        assert not page.errors, page.errors
    finally:
        page.context.close()


def test_offline_once_loaded(web_server: Server, browser: Any) -> None:
    """The service worker keeps the page: it opens without a network, keeps the position, says that
    scoring waits for the server, and scores when the network is back."""
    page = new_page(browser, "en-US", 390, 844, mobile=True)
    try:
        page.goto(web_server.base + "/score")
        page.wait_for_selector("#sc-map svg")
        page.wait_for_function("() => navigator.serviceWorker.ready.then(r => !!r.active)")
        tap_route(page, "ttr-europe", "Berlin", "Danzig")
        doc = settle(page)["doc"]
        page.wait_for_function("() => !!navigator.serviceWorker.controller")
        page.context.set_offline(True)
        page.reload()
        page.wait_for_selector("#sc-map svg")
        state = settle(page)
        assert state["doc"] == doc and state["result"] is None
        assert "cannot be reached" in page.inner_text("#sc-error")
        page.context.set_offline(False)
        page.wait_for_function("() => window.__score.result !== null")
        assert settle(page)["error"] is None
        assert not page.errors, page.errors
    finally:
        page.context.close()


# ------------------------------------------------------------------ Trans: special card 16 (two cities of a colour)
def trans_path(game: str, a: str, b: str) -> list[str]:
    """The lines of a shortest path (by number of lines) between two cities' points, as drawn on the page."""
    bd = board_data(game)
    point = {c["name"]: c["point"] for c in bd["cities"]}
    nxt: dict[int, list[tuple[int, str]]] = {}
    for e in bd["edges"]:
        nxt.setdefault(e["a"], []).append((e["b"], e["text"]))
        nxt.setdefault(e["b"], []).append((e["a"], e["text"]))
    came: dict[int, tuple[int, str] | None] = {point[a]: None}
    todo = [point[a]]
    for p in todo:
        for q, text in nxt[p]:
            if q not in came:
                came[q] = (p, text)
                todo.append(q)
    out, p = [], point[b]
    while (step := came[p]) is not None:
        p, text = step
        out.append(text)
    return out


def pick_city(page: Any, color: str, row: int, city: str) -> None:
    page.select_option(f'#sc-entry select[data-color="{color}"][data-row="{row}"]', city)


def card16_round(page: Any, base: str) -> None:
    """Trans Europa with special card 16, entered as at the table: after the three passes Ann holds two pink
    cities (Madrid, Barcelona) and no orange one, Bob two orange (Berlin, Paris) and no pink one."""
    bd = board_data("trans-europa")
    at = {c["name"]: c["point_text"] for c in bd["cities"]}
    page.goto(base + "/score")
    page.wait_for_selector("#sc-map svg")
    page.click('.gamebtn[data-game="trans-europa"]')
    page.wait_for_selector(".pt")
    name_player(page, 0, "Ann")
    name_player(page, 1, "Bob")
    choose_player(page, 0)
    page.click('.sc-modes [data-mode="start"]')
    page.locator(f'.pt[data-point="{at["Madrid"]}"] .point-hit').click(force=True)
    choose_player(page, 1)
    page.locator(f'.pt[data-point="{at["Berlin"]}"] .point-hit').click(force=True)
    page.click('.sc-modes [data-mode="rails"]')
    for text in trans_path("trans-europa", "Madrid", "Barcelona") + trans_path("trans-europa", "Berlin", "Paris")[:2]:
        page.locator(f'.edge[data-edge="{text}"] .edge-hit').click(force=True)
    page.click(".sc-specials summary")
    page.check('.sc-specials input[data-card="16"]')
    page.click('.sc-modes [data-mode="cities"]')
    choose_player(page, 0)
    pick_city(page, "pink", 0, "Madrid")
    page.click('#sc-entry .sc-more[data-color="pink"]')  # "+": another pink city
    pick_city(page, "pink", 1, "Barcelona")
    for color, city in (("white", "Oslo"), ("turquoise", "Minsk"), ("brown", "Sofia")):
        pick_city(page, color, 0, city)
    choose_player(page, 1)
    pick_city(page, "orange", 0, "Berlin")
    page.click('#sc-entry .sc-more[data-color="orange"]')
    pick_city(page, "orange", 1, "Paris")
    for color, city in (("white", "Glasgow"), ("turquoise", "Kyiv"), ("brown", "Rome")):
        pick_city(page, color, 0, city)


def test_card_16_two_cities_of_a_colour(web_server: Server, browser: Any, tmp_path: Path, shots: Path) -> None:
    page = new_page(browser)
    try:
        card16_round(page, web_server.base)
        state = settle(page)
        doc, result = state["doc"], state["result"]
        assert state["error"] is None, state["error"]
        assert doc["special_cards"] == [16]
        assert doc["players"][0]["cities"] == ["Madrid", "Barcelona", "Oslo", "Minsk", "Sofia"]
        assert doc["players"][1]["cities"] == ["Berlin", "Paris", "Glasgow", "Kyiv", "Rome"]
        # the downloaded file scores in the CLI exactly as the page shows it
        with page.expect_download() as dl:
            page.click("#sc-export")
        exported = Path(dl.value.path())
        assert json.loads(exported.read_text(encoding="utf-8")) == doc
        code, out = cli_json(tmp_path, exported.read_text(encoding="utf-8"))
        assert code == 0 and json.loads(out) == result
        ann, bob = result["players"]
        assert ann["missing_rails"] > 0 and bob["missing_rails"] > 0  # the rails entered join Madrid and Barcelona
        totals = page.locator("#sc-breakdown .scores tbody tr").evaluate_all(
            "rows => rows.map(r => [Number(r.dataset.player), Number(r.querySelector('.total').textContent)])")
        assert sorted(totals) == [[0, ann["total"]], [1, bob["total"]]]
        # the breakdown names the card and shows each hand, the doubled colour marked
        assert "16 (Swap three times)" in page.inner_text("#sc-cards-in-play")
        doubled = page.locator(".sc-detail .sc-chip.double").evaluate_all("cs => cs.map(c => c.textContent)")
        assert doubled == ["Madrid", "Barcelona", "Berlin", "Paris"]
        page.screenshot(path=str(shots / "score-card16-1366.png"))
        # the page refuses at once what the rules refuse, in words: another's city, a sixth city
        choose_player(page, 1)
        page.click('#sc-entry .sc-more[data-color="orange"]')
        assert page.inner_text("#toast") == "Bob already holds 5 cities, a full hand: remove one first."
        page.click('#sc-entry .sc-drop[data-color="orange"][data-row="1"]')  # × takes Paris back
        assert settle(page)["doc"]["players"][1]["cities"] == ["Berlin", "Glasgow", "Kyiv", "Rome"]
        pick_city(page, "pink", 0, "Barcelona")
        assert page.inner_text("#toast") == "Barcelona is already Ann's city card."
        assert page.input_value('#sc-entry select[data-color="pink"][data-row="0"]') == ""
        page.click('#sc-entry .sc-more[data-color="orange"]')
        pick_city(page, "orange", 1, "Paris")
        again = settle(page)
        assert again["doc"]["players"][1]["cities"] == ["Berlin", "Glasgow", "Kyiv", "Rome", "Paris"]  # added last
        assert [p["total"] for p in again["result"]["players"]] == [ann["total"], bob["total"]]
        # without card 16 the hands cannot be: the page says why (not the server's English), rows outlined
        page.uncheck('.sc-specials input[data-card="16"]')
        state = settle(page)
        assert state["result"] is None and "special_cards" not in state["doc"]
        problems = page.locator("#sc-error li").all_inner_texts()
        assert problems == [
            "Ann holds 2 cities of colour pink (Madrid and Barcelona). A player holds one city of each colour; "
            "only special card 16 lets a colour end up doubled.",
            "Bob holds 2 cities of colour orange (Berlin and Paris). A player holds one city of each colour; "
            "only special card 16 lets a colour end up doubled."]
        assert page.locator("#sc-entry select.bad").count() == 2  # Bob's two orange rows
        assert page.locator("#sc-entry .sc-more").count() == 0  # no "+" without the card; "×" stays
        assert page.locator("#sc-entry .sc-drop").count() == 1
        code, line = cli_json(tmp_path, state["doc"])
        assert code == 2 and "a player holds one city of each colour" in line  # the CLI refuses it too
        page.check('.sc-specials input[data-card="16"]')
        assert settle(page)["result"] == again["result"]
        # start over, open the downloaded file: the same position, two pink rows for Ann
        page.click("#sc-clear")
        assert settle(page)["doc"]["players"][0]["cities"] == []
        page.set_input_files("#sc-import", str(exported))
        page.wait_for_function("() => window.__score.doc.players[0].cities.length === 5")
        assert settle(page) == {"doc": doc, "result": result, "error": None}
        choose_player(page, 0)
        assert page.input_value('#sc-entry select[data-color="pink"][data-row="1"]') == "Barcelona"
        # the share link restores it in a fresh browser
        page.click("#sc-share")
        page.wait_for_function("() => document.querySelector('#sc-link').value")
        other = new_page(browser)
        try:
            other.goto(page.input_value("#sc-link"))
            assert settle(other) == {"doc": doc, "result": result, "error": None}
            other.click('.sc-modes [data-mode="cities"]')
            assert other.locator("#sc-entry select[data-row='1']").count() == 1
            assert other.locator(".sc-detail .sc-chip.double").count() == 4
        finally:
            other.context.close()
        assert not page.errors, page.errors
    finally:
        page.context.close()


@pytest.mark.parametrize("sizes", [DESKTOPS, [(390, 844)]], ids=["desktop", "phone"])
@pytest.mark.parametrize("locale", ["en-US", "de-DE"])
def test_card_16_screens(web_server: Server, browser: Any, shots: Path, sizes: list[tuple[int, int]],
                         locale: str) -> None:
    """The card 16 picker and breakdown at three sizes, in English and German: nothing wider than the
    window, a phone's touch targets 44 px, the page's own refusal in German on the German page."""
    phone = sizes[0][0] < 500
    page = new_page(browser, locale, *sizes[0], mobile=phone)
    try:
        card16_round(page, web_server.base)
        for width, height in sizes:
            page.set_viewport_size({"width": width, "height": height})
            settle(page)
            page.wait_for_selector("#sc-breakdown .scores")
            assert page.evaluate("() => document.documentElement.scrollWidth") <= width
            assert page.locator("#sc-entry select[data-row='1']").count() == 1
            if phone:
                small = page.evaluate("""() => [...document.querySelectorAll('#sc-entry button, #sc-entry select')]
                    .map(e => [e.className, e.getBoundingClientRect().height, e.getBoundingClientRect().width])
                    .filter(([, hgt, wid]) => hgt < 43.5 || wid < 43.5)""")
                assert small == [], small
            page.locator("#sc-entry").scroll_into_view_if_needed()
            page.screenshot(path=str(shots / f"score-card16-{width}-{locale[:2]}.png"), full_page=phone)
        page.uncheck('.sc-specials input[data-card="16"]')
        page.wait_for_selector("#sc-error li")
        text = page.inner_text("#sc-error")
        if locale == "de-DE":
            assert "Ann hat 2 Städte der Farbe pink (Madrid und Barcelona)" in text and "holds" not in text
        else:
            assert "Ann holds 2 cities of colour pink" in text
        for width, height in sizes:
            page.set_viewport_size({"width": width, "height": height})
            page.locator("#sc-result").scroll_into_view_if_needed()
            page.screenshot(path=str(shots / f"score-card16-refused-{width}-{locale[:2]}.png"), full_page=phone)
        assert not page.errors, page.errors
    finally:
        page.context.close()


def test_card_16_hands_that_cannot_be(web_server: Server, browser: Any, tmp_path: Path) -> None:
    """Files the page loads as they are: what the passes or the deal cannot produce is said in the page's
    words, for files the CLI refuses too; and "+" stops at the most a hand can hold of a colour."""
    def players(*hands: list[str]) -> list[dict[str, Any]]:
        starts = ([1, 10], [16, 5], [9, 0], [15, 0], [19, 0])
        names = ("Ann", "Bob", "Cy", "Dan", "Eve")[:len(hands)]
        return [{"name": n, "start": s, "cities": h} for n, s, h in zip(names, starts, hands, strict=False)]

    four = {"game": "trans-europa", "special_cards": [16],
            "players": players(["Madrid", "Barcelona", "London", "Dublin", "Oslo"], ["Berlin"], ["Rome"], ["Kyiv"])}
    too_many = {**four, "players": players(["Madrid", "Barcelona", "London", "Dublin", "Brest"], ["Berlin"], ["Rome"],
                                           ["Kyiv"], ["Riga"])}  # 5 players: 5 pink cities were dealt
    dealt = {"game": "trans-europa", "special_cards": [16],
             "players": players(["Madrid", "Barcelona"], ["London", "Oslo"])}
    page = new_page(browser)
    try:
        page.goto(web_server.base + "/score")
        page.wait_for_selector("#sc-map svg")
        page.click(".sc-paste summary")

        def load(doc: dict[str, Any]) -> dict[str, Any]:
            page.fill("#sc-paste-text", json.dumps(doc))
            page.click("#sc-paste-load")
            page.wait_for_function("(n) => window.__score.doc.players.length === n", arg=len(doc["players"]))
            return settle(page)

        state = load(four)  # 4 pink cities: Ann's own and one from each pass, with 4 players
        code, out = cli_json(tmp_path, four)
        assert state["error"] is None and code == 0 and state["result"] == json.loads(out)
        page.click('.sc-modes [data-mode="cities"]')
        choose_player(page, 0)
        assert page.locator('#sc-entry select[data-color="pink"]').count() == 4
        page.click('#sc-entry .sc-more[data-color="pink"]')
        assert page.inner_text("#toast") == ("Ann already holds 4 cities of colour pink: with special card 16 a hand "
                                             "keeps its own and receives at most one per pass.")
        state = load(too_many)
        assert state["error"] == ("Ann holds 5 cities of colour pink (Madrid, Barcelona, London, Dublin, and Brest); "
                                  "with special card 16 a hand holds at most 4 of one colour "
                                  "(its own and one per pass).")
        assert cli_json(tmp_path, too_many)[0] == 2
        assert page.locator("#sc-entry select.bad").count() == 5
        state = load(dealt)
        assert state["error"] == ("3 cities of colour pink are held (Madrid, Barcelona, and London), but with 2 "
                                  "players only 2 are dealt.")
        assert "only 2 are dealt" in cli_json(tmp_path, dealt)[1]
        assert not page.errors, page.errors
    finally:
        page.context.close()
