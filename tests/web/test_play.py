"""The game page's look and feel: claims drawn as cars, last moves, layouts without scrolling,
phone zoom and bottom bar, end screens, a Trans round's reveal, keyboard and skip links."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from tests import waits
from tests.server.helpers import Server
from tests.web.test_browser import (
    click_and_wait,
    keep_tickets,
    play_one_turn,
    state,
    wait_moves_after,
    wait_my_turn,
)


def new_page(browser: Any, width: int, height: int, locale: str = "en-US", phone: bool = False) -> Any:
    extra = {"device_scale_factor": 2, "is_mobile": True, "has_touch": True} if phone else {}
    context = browser.new_context(viewport={"width": width, "height": height}, locale=locale, **extra)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors
    return page


def assert_turn_fits(page: Any) -> None:
    """#hand, the market, the tickets and the choice panel lie inside the viewport; the page does not scroll."""
    vw, vh = page.evaluate("() => [innerWidth, innerHeight]")
    scroll = page.evaluate("() => document.documentElement.scrollHeight")
    assert scroll <= vh, f"the page scrolls: {scroll} > {vh}"
    for sel in ("#hand", "#market", "#tickets", "#action"):
        box = page.locator(sel).bounding_box()
        assert box, sel
        assert box["x"] >= 0 and box["y"] >= 0, (sel, box)
        assert box["x"] + box["width"] <= vw + 0.5 and box["y"] + box["height"] <= vh + 0.5, (sel, box, vw, vh)


def eventually(check: Any, seconds: float = 10) -> None:
    """``check()`` passes before the (load-scaled) deadline: a layout that follows an event settles."""
    deadline = waits.deadline(seconds)
    while True:
        try:
            check()
            return
        except AssertionError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def reach_a_claim(page: Any) -> None:
    """Draw from the deck until a route can be claimed, then open the claim panel of one (not a tunnel)."""
    for _ in range(40):
        s = wait_my_turn(page)
        legal = s["legal"]
        if any(m.startswith("keep ") for m in legal):
            keep_tickets(page)
            continue
        if any(m.startswith("claim ") for m in legal):
            break
        n = s["moves"]
        page.click('[data-draw="deck"]' if "draw deck" in legal else "#market button[data-draw]:not([disabled])")
        wait_moves_after(page, n)
    routes = page.locator("g.route.claimable")
    assert routes.count(), "no claimable route after 40 turns"
    tunnels = {r["i"] for r in page.evaluate("() => window.__tracklayer.board.routes") if r["tunnel"]}
    indexes = [routes.nth(k).get_attribute("data-route") for k in range(routes.count())]
    index = next((i for i in indexes if int(i) not in tunnels), indexes[0])
    page.locator(f'g.route[data-route="{index}"]').dispatch_event("click")
    page.wait_for_selector("#action input[name=payment]")


def test_claims_last_moves_and_layout_without_scrolling(web_server: Server, browser: Any, shots: Path) -> None:
    seats = [{"name": "Ann"}, {"kind": "bot", "name": "Robo"}, {"kind": "bot", "name": "Otto"}]
    out = web_server.create("ttr-europe", seats, first_player=0)
    page = new_page(browser, 1366, 768)
    try:
        page.goto(web_server.base + out["seats"][0]["link"])
        page.wait_for_selector("#action input[data-ticket]")
        assert_turn_fits(page)  # the keep-tickets choice is a choice panel too
        reach_a_claim(page)
        assert_turn_fits(page)
        page.screenshot(path=str(shots / "play-claim-1366.png"))
        for w, h in ((1440, 900), (1920, 1080)):  # the testers' laptop, and a big screen
            page.set_viewport_size({"width": w, "height": h})
            page.wait_for_function("([w, h]) => innerWidth === w && innerHeight === h", arg=[w, h])
            eventually(lambda: assert_turn_fits(page))  # the page lays itself out anew on a resize
        page.screenshot(path=str(shots / "play-claim-1920.png"))
        # the bots' last turns: a banner in words and a halo on the board, in their colours
        banner = page.inner_text("#banner")
        assert "Robo" in banner and "Otto" in banner, banner
        # claim: the route turns into cars in Ann's colour with her symbol, and says so in its tooltip
        index = page.evaluate("() => window.__tracklayer.selectedRoute")
        n = state(page)["moves"]
        page.click("#confirm")
        wait_moves_after(page, n)
        s = state(page)
        if s["view"]["route_owner"][index] == 0:
            route = page.locator(f'g.route[data-route="{index}"]')
            assert "owned" in route.get_attribute("class")
            assert set(route.locator("text").all_text_contents()) == {"●"}
            assert route.locator(".seg").first.get_attribute("fill") == "#12b4cc"
            tip = route.locator("title").text_content()
            assert "Ann (●)" in tip and "space" in tip, tip
        # every route has a tooltip with its length and colour
        tip = page.locator("g.route title").first.text_content()
        assert "space" in tip and "·" in tip, tip
        # each opponent's last turn is haloed on the board when it placed something (a claim or a station);
        # a few more turns until one of them has
        routes = page.evaluate("() => window.__tracklayer.board.routes")
        for _ in range(20):
            s = wait_my_turn(page)
            if s["over"]:
                break
            expected, log = set(), s["view"]["log"]
            for seat in (1, 2):
                idx = [k for k, e in enumerate(log) if e["player"] == seat]
                run: list[int] = []
                for k in reversed(idx):
                    if run and k != run[-1] - 1:
                        break
                    run.append(k)
                owned = {routes[i]["label"] for i, o in enumerate(s["view"]["route_owner"]) if o == seat}
                if any(log[k]["move"].startswith("station ") or (log[k]["move"].startswith("claim ")
                       and log[k]["move"][6:].split(": ")[0] in owned) for k in run):  # not a tunnel given up
                    expected.add(str(seat))
            halos = page.locator("svg .layer-last .lastmove").evaluate_all("gs => gs.map(g => g.dataset.seat)")
            assert set(halos) == expected, (halos, expected)
            if expected:
                break
            play_one_turn(page)
        else:
            raise AssertionError("no opponent claimed a route in 20 turns")
        # reduce motion: a toggle kept in localStorage
        calm = page.get_attribute("#motion", "aria-pressed")
        page.click("#motion")
        assert page.get_attribute("#motion", "aria-pressed") != calm
        stored = page.evaluate("() => localStorage.getItem('tracklayer.motion')")
        assert stored == ("full" if calm == "true" else "reduce")
        calm_now = page.evaluate("() => document.documentElement.classList.contains('reduce-motion')")
        assert calm_now == (stored == "reduce")
        assert not page.errors, page.errors
    finally:
        page.context.close()


def test_a_turn_that_placed_nothing_has_no_halo(web_server: Server, browser: Any) -> None:
    """Bob's last turn is haloed when it placed something (a station here) and has no halo when it only
    kept tickets: the page draws a halo group only around what a turn placed."""
    out = web_server.create("ttr-europe", [{"name": "Ann"}, {"name": "Bob"}], first_player=0)
    page = new_page(browser, 1366, 768)
    bob = web_server.client(out["id"], out["seats"][1]["token"])
    halos = "svg .layer-last .lastmove"
    try:
        page.goto(web_server.base + out["seats"][0]["link"])
        keep_tickets(page)
        s = bob.my_turn()
        assert bob.move(next(m for m in s["legal"] if m.startswith("keep ")))["type"] == "ack"
        page.wait_for_function("() => window.__tracklayer.st.moves === 2", timeout=waits.ms(20))
        assert "Bob" in page.inner_text("#banner")  # his turn is said, but it placed nothing on the board
        assert page.locator(halos).count() == 0
        click_and_wait(page, '[data-draw="deck"]')
        wait_my_turn(page)
        click_and_wait(page, '[data-draw="deck"]')
        s = bob.wait_state(lambda st: st["moves"] == 4)  # Ann's turn over: his turn (not his last state)
        assert bob.move(next(m for m in s["legal"] if m.startswith("station ")))["type"] == "ack"
        page.wait_for_function("() => window.__tracklayer.st.moves === 5", timeout=waits.ms(20))
        assert page.locator(halos).evaluate_all("gs => gs.map(g => g.dataset.seat)") == ["1"]
        assert page.locator(f"{halos} circle").count() == 1  # the station's city
        assert not page.errors, page.errors
    finally:
        bob.close()
        page.context.close()


def test_reduced_motion_is_honoured(web_server: Server, browser: Any) -> None:
    out = web_server.create("ttr-new-york", [{"name": "Ann"}, {"kind": "bot"}], first_player=0)
    context = browser.new_context(viewport={"width": 1366, "height": 768}, locale="en-US", reduced_motion="reduce")
    page = context.new_page()
    try:
        page.goto(web_server.base + out["seats"][0]["link"])
        page.wait_for_selector("#action input[data-ticket]")
        assert page.evaluate("() => document.documentElement.classList.contains('reduce-motion')")
        assert page.get_attribute("#motion", "aria-pressed") == "true"
    finally:
        context.close()


def test_phone_bottom_bar_and_zoom(web_server: Server, browser: Any, shots: Path) -> None:
    out = web_server.create("ttr-europe", [{"name": "Ann"}, {"kind": "bot"}], first_player=0)
    page = new_page(browser, 390, 844, phone=True)
    try:
        page.goto(web_server.base + out["seats"][0]["link"])
        page.wait_for_selector("#action input[data-ticket]")
        keep_tickets(page)
        wait_my_turn(page)
        dock = page.locator("#dock")
        assert dock.evaluate("d => getComputedStyle(d).position") == "fixed"
        box = page.locator("#hand").bounding_box()
        assert box and box["y"] + box["height"] <= 844 and box["y"] >= 0, box
        box = page.locator("#market").bounding_box()
        assert box and box["y"] + box["height"] <= 844 and box["y"] >= 0, box
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= 392, width
        # the chat and invite buttons cover no card: tests/web/test_floating.py measures every control
        page.screenshot(path=str(shots / "play-phone.png"))
        # the zoom buttons cover no city of the board (nor the bottom bar)
        hidden = page.evaluate("""() => {
          const over = (b, c) => b.left < c.right && c.left < b.right && b.top < c.bottom && c.top < b.bottom;
          const buttons = [...document.querySelectorAll('.zoombar button')].map(b => b.getBoundingClientRect());
          const things = [...document.querySelectorAll('#board svg .city, #dock')].map(c => c.getBoundingClientRect());
          return buttons.filter(b => things.some(c => over(b, c))).length; }""")
        assert hidden == 0
        svg = page.locator("#board svg")
        home = svg.get_attribute("viewBox")
        for _ in range(4):
            page.click(".zoom-in")
        zoomed = svg.get_attribute("viewBox")
        assert zoomed != home
        assert float(zoomed.split()[2]) < float(home.split()[2]) / 3
        # zoomed in, a route's invisible hit stroke is at least 44 CSS pixels wide
        hit = page.evaluate("""() => { const svg = document.querySelector('#board svg');
            const line = svg.querySelector('.route-hit'); const w = parseFloat(getComputedStyle(line).strokeWidth);
            const r = svg.getBoundingClientRect(); const vb = svg.viewBox.baseVal;
            return w * Math.min(r.width / vb.width, r.height / vb.height); }""")
        assert hit >= 44, hit
        page.screenshot(path=str(shots / "play-phone-zoomed.png"))
        page.click(".zoom-reset")
        assert svg.get_attribute("viewBox") == home
        # zoomed in on a double route, a tap on either lane's car is that lane's: the wide hit strokes lie
        # under every route's cars
        lanes = page.evaluate("""() => { const ui = window.__tracklayer;
            const r = ui.board.routes.find(x => x.twins.length);
            const car = (i) => ui.drawing.routes[i].segs[0].rect.getBoundingClientRect();
            let b = car(r.i);
            ui.zoom.zoomAt(6, b.x + b.width / 2, b.y + b.height / 2);
            const at = (i) => { const c = car(i), el = document.elementFromPoint(c.x + c.width / 2, c.y + c.height / 2);
                return el?.closest('g.route')?.dataset.route; };
            return [[String(r.i), at(r.i)], [String(r.twins[0]), at(r.twins[0])]]; }""")
        for want, got in lanes:
            assert want == got, lanes
        page.click(".zoom-reset")
        # the wheel (or a pinch) zooms too
        b = svg.bounding_box()
        page.mouse.move(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2)
        page.mouse.wheel(0, -400)
        page.wait_for_function("(home) => document.querySelector('#board svg').getAttribute('viewBox') !== home",
                               arg=home, timeout=waits.ms(10))
        assert not page.errors, page.errors
    finally:
        page.context.close()


# For every route: the widest stretch (CSS px) across it, at points along it, where a tap goes to it
# straight away, and whether a tap on it anywhere offers it in the menu of near targets (aim.js).
ROUTE_TARGETS = """() => { const ui = window.__tracklayer, m = document.querySelector('#board svg').getScreenCTM();
  return ui.board.routes.map((r) => {
    const g = ui.drawing.routes[r.i].g, group = Math.min(r.i, ...r.twins);
    const dx = g.bx - g.ax, dy = g.by - g.ay, len = Math.hypot(dx, dy);
    let wide = 0, offered = false;
    for (let k = 0.15; k < 0.86; k += 0.05) {
      const x = g.ax + k * dx, y = g.ay + k * dy;
      const p = new DOMPoint(x, y).matrixTransform(m), q = new DOMPoint(x - dy / len, y + dx / len).matrixTransform(m);
      const n = Math.hypot(q.x - p.x, q.y - p.y), nx = (q.x - p.x) / n, ny = (q.y - p.y) / n;
      const aim = (j) => ui.aim.resolve(p.x + nx * j, p.y + ny * j);
      const mine = (j) => aim(j)?.target?.group === group;
      offered ||= (aim(0)?.choose || []).some((t) => t.group === group);
      if (!mine(0)) continue;
      let lo = 0, hi = 0;
      while (hi < 80 && mine(hi + 1)) hi++;
      while (lo < 80 && mine(-(lo + 1))) lo++;
      wide = Math.max(wide, lo + hi + 1);
    }
    return { route: r.label, wide, offered };
  }); }"""


# the cities (a station can be built) that a tap on them neither takes nor offers in the menu
CITIES_MISSED = """() => { const ui = window.__tracklayer, m = document.querySelector('#board svg').getScreenCTM();
  return ui.board.cities.filter((c) => {
    const p = new DOMPoint(c.x, c.y).matrixTransform(m), a = ui.aim.resolve(p.x, p.y);
    return !(a?.target?.label === c.display || (a?.choose || []).some((t) => t.label === c.display));
  }).map((c) => c.name); }"""
# client coordinates of a route's middle, in view, that a tap takes straight away
ROUTE_IN_VIEW = """() => { const ui = window.__tracklayer, svg = document.querySelector('#board svg');
  const box = svg.getBoundingClientRect();
  for (const r of ui.board.routes) {
    const g = ui.drawing.routes[r.i].g;
    const p = new DOMPoint((g.ax + g.bx) / 2, (g.ay + g.by) / 2).matrixTransform(svg.getScreenCTM());
    if (p.x < box.left + 30 || p.x > box.right - 60 || p.y < box.top + 30 || p.y > box.bottom - 30) continue;
    if (ui.aim.resolve(p.x, p.y)?.target?.group === Math.min(r.i, ...r.twins)) return [p.x, p.y];
  }
  return null; }"""
# client coordinates, in view, of a tap that asks which of the near targets
CHOICE_IN_VIEW = """() => { const ui = window.__tracklayer;
  const box = document.querySelector('#board svg').getBoundingClientRect();
  for (let y = box.top + 40; y < box.bottom - 40; y += 3)
    for (let x = box.left + 40; x < box.right - 70; x += 3) if (ui.aim.resolve(x, y)?.choose) return [x, y];
  return null; }"""
ZOOM_TO_BRUXELLES = """() => { const ui = window.__tracklayer, c = ui.board.cities.find((x) => x.name === 'Bruxelles');
  ui.zoom.reset();
  const p = new DOMPoint(c.x, c.y).matrixTransform(document.querySelector('#board svg').getScreenCTM());
  ui.zoom.zoomAt(ui.aim.scale(), p.x, p.y); }"""


def test_phone_every_route_and_city_is_a_finger_target(web_server: Server, browser: Any, shots: Path) -> None:
    out = web_server.create("ttr-europe", [{"name": "Ann"}, {"kind": "bot"}], first_player=0)
    for locale in ("en-US", "de-DE"):
        page = new_page(browser, 390, 844, locale=locale, phone=True)
        try:
            page.goto(web_server.base + out["seats"][0]["link"])
            if locale == "en-US":
                page.wait_for_selector("#action input[data-ticket]")
                keep_tickets(page)
            wait_my_turn(page)
            svg = page.locator("#board svg")
            # on the whole board a tap zooms in around itself (one step) and claims nothing
            b = svg.bounding_box()
            page.touchscreen.tap(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2)
            zoom = float(svg.get_attribute("data-zoom"))
            assert 2 <= zoom <= 4, zoom
            assert page.locator("#action input[name=payment]").count() == 0
            # after that one step every route is a target of 44 px or more, or offered in the menu of near ones
            targets = page.evaluate(ROUTE_TARGETS)
            assert len(targets) == 101
            small = [t for t in targets if t["wide"] < 44 and not t["offered"]]
            assert not small, small
            assert sorted(t["wide"] for t in targets)[len(targets) // 10] >= 44  # nine in ten straight away
            # a city (a station can be built) is its own target, or offered beside the routes at its edge
            cities = page.evaluate(CITIES_MISSED)
            assert cities == [], cities
            # a real tap on a route's widest place opens its claim or says why it cannot be claimed
            spot = page.evaluate(ROUTE_IN_VIEW)
            assert spot, "no route's middle is a target in view"
            page.evaluate("() => { document.getElementById('toast').hidden = true; }")
            page.touchscreen.tap(*spot)
            page.wait_for_function("""() => document.querySelector('#action input[name=payment]')
                || !document.getElementById('toast').hidden""")
            # between two routes about as near, a tap asks which, with buttons of 44 px
            spot = page.evaluate(CHOICE_IN_VIEW)
            if spot is None:  # none in this part of the board: the densest part, Benelux, has some
                page.evaluate(ZOOM_TO_BRUXELLES)
                spot = page.evaluate(CHOICE_IN_VIEW)
            assert spot, "no tap between two routes in view"
            page.touchscreen.tap(*spot)
            menu = page.locator(".aim-menu")
            menu.wait_for()
            heights = menu.locator("button").evaluate_all("bs => bs.map(b => b.getBoundingClientRect().height)")
            assert len(heights) >= 2 and min(heights) >= 44, heights
            if locale == "de-DE":
                assert menu.locator(".aim-title").inner_text() == "Welche?"
            page.screenshot(path=str(shots / f"play-phone-aim-{locale}.png"))
            menu.locator("button").first.click()
            assert menu.count() == 0
            assert not page.errors, page.errors
        finally:
            page.context.close()


def test_keyboard_skip_links_and_roving_focus(web_server: Server, browser: Any) -> None:
    out = web_server.create("ttr-europe", [{"name": "Ann"}, {"kind": "bot"}], first_player=0)
    page = new_page(browser, 1366, 768)
    try:
        page.goto(web_server.base + out["seats"][0]["link"])
        page.wait_for_selector("#action input[data-ticket]")
        page.keyboard.press("Tab")
        assert page.evaluate("() => document.activeElement.id") == "skip-choice"
        assert page.locator("#skip-choice").is_visible()
        page.keyboard.press("Enter")
        assert page.evaluate("() => !!document.activeElement.closest('#action')")
        page.keyboard.press("Shift+Tab")
        page.focus("#skip-board")
        page.keyboard.press("Enter")
        first = page.evaluate("() => document.activeElement.dataset.route")
        assert first is not None
        assert page.locator("g.route[tabindex='0']").count() == 1  # one tab stop for the whole board
        page.keyboard.press("ArrowRight")
        second = page.evaluate("() => document.activeElement.dataset.route")
        assert second is not None and second != first
        assert page.get_attribute(f'g.route[data-route="{second}"]', "tabindex") == "0"
        # every control is labelled
        unlabelled = page.evaluate("""() => [...document.querySelectorAll('button, [role=button], input, select, a')]
            .filter(el => !(el.getAttribute('aria-label') || el.textContent.trim() || el.closest('label') || el.title))
            .map(el => el.outerHTML.slice(0, 80))""")
        assert not unlabelled, unlabelled
        assert not page.errors, page.errors
    finally:
        page.context.close()


def test_end_screen_opens_at_the_top_reopens_and_draws_tickets(web_server: Server, browser: Any, shots: Path) -> None:
    out = web_server.create("ttr-new-york", [{"kind": "bot", "name": "Robo"}, {"kind": "bot", "name": "Otto"}],
                            first_player=0)
    page = new_page(browser, 1366, 768)
    try:
        page.goto(web_server.base + out["spectator"]["link"])
        page.wait_for_selector("#final", timeout=waits.ms(120))
        res = state(page)["view"]["result"]
        # the winner is in view: the dialog starts at its top, the heading has the focus
        assert page.evaluate("() => document.querySelector('#final').scrollTop") == 0
        head = page.locator("#final-h").bounding_box()
        assert head and 0 <= head["y"] < 768
        assert page.evaluate("() => document.activeElement.id") == "final-h"
        assert "wins" in page.inner_text("#final-h") or "win!" in page.inner_text("#final-h")
        page.screenshot(path=str(shots / "play-final-1366.png"))
        # the players' strip shows the real totals, not the route points
        for p, seat in zip(res["players"], range(len(res["players"])), strict=True):
            score = page.inner_text(f'#strip .player[data-seat="{seat}"] .score')
            assert int(score) == p["total"], (score, p["total"])
        # "Show the board" closes it, a button opens it again
        page.click("#final .row .btn:not(.primary)")
        assert page.locator("#overlay").is_hidden()
        page.click("#show-result")
        page.wait_for_selector("#final")
        assert page.locator("#overlay").is_visible()
        # a player's tickets on the map, completed solid and failed dashed, from the final screen
        page.click('#final button[data-tickets-of="0"]')
        assert page.locator("#overlay").is_hidden()
        lines = page.locator("svg .layer-tickets .ticket-line")
        assert lines.count() == len(res["players"][0]["tickets"])
        done = sum(1 for tk in res["players"][0]["tickets"] if tk["completed"])
        assert page.locator("svg .layer-tickets .ticket-line.done").count() == done
        page.screenshot(path=str(shots / "play-final-tickets.png"))
        page.click('#strip button[data-tickets-of="1"]')
        assert page.locator("svg .layer-tickets .ticket-line").count() == len(res["players"][1]["tickets"])
        assert not page.errors, page.errors
    finally:
        page.context.close()


SUMMARY_COUNTS = """() => { const ui = window.__tracklayer; const r = ui.st.view.rounds[ui.roundShown];
  if (!r) return null;
  return {round: r.round, cities: r.players.reduce((a, p) => a + p.cities.length, 0),
          drawn: document.querySelectorAll('g.revealed-city').length,
          missing: r.players.reduce((a, p) => a + p.missing_lines.length, 0),
          dashed: document.querySelectorAll('line.missing').length,
          rails: r.rails.length, railsDrawn: document.querySelectorAll('g.rail').length,
          panel: document.querySelector('#round-summary h2')?.textContent || ''}; }"""


def test_trans_round_end_reveals_cities_and_missing_rails(web_server: Server, browser: Any, shots: Path) -> None:
    seats = [{"kind": "bot", "bot": "steiner", "name": "Robo"}, {"kind": "bot", "bot": "random", "name": "Otto"}]
    out = web_server.create("trans-america", seats, first_player=0)
    page = new_page(browser, 1366, 768)
    try:
        page.goto(web_server.base + out["spectator"]["link"])
        page.wait_for_selector("#round-summary", timeout=waits.ms(120))
        # the bots play on at full speed: check the last round once the game is over and nothing moves
        page.wait_for_function("() => window.__tracklayer.st.over", timeout=waits.ms(120))
        page.wait_for_selector("#final")
        page.screenshot(path=str(shots / "play-trans-final.png"))
        page.click("#final .row .btn:not(.primary)")
        got = page.evaluate(SUMMARY_COUNTS)
        assert got and got["cities"] > 0 and got["drawn"] == got["cities"], got
        assert got["dashed"] == got["missing"] and got["railsDrawn"] == got["rails"], got
        assert f"Round {got['round']}" in got["panel"], got
        assert got["round"] == len(state(page)["view"]["rounds"])  # the round that ended the game
        page.screenshot(path=str(shots / "play-trans-round.png"))
        page.click("#round-continue")
        assert page.locator("#round-summary").count() == 0
        assert page.locator("g.revealed-city").count() == 0 and page.locator("line.missing").count() == 0
        # an earlier round can be shown again from the table of finished rounds
        page.click('button[data-round="0"]')
        page.wait_for_selector("#round-summary")
        assert page.evaluate(SUMMARY_COUNTS)["round"] == 1
        assert not page.errors, page.errors
    finally:
        page.context.close()


def test_trans_keyboard_roving_focus_over_start_points(web_server: Server, browser: Any) -> None:
    out = web_server.create("trans-europa", [{"name": "Ann"}, {"kind": "bot"}], first_player=0)
    page = new_page(browser, 1366, 768)
    try:
        page.goto(web_server.base + out["seats"][0]["link"])
        page.wait_for_selector("g.pt")
        s = wait_my_turn(page)
        assert any(m.startswith("start ") for m in s["legal"])
        assert page.locator("g.pt[tabindex='0']").count() == 1  # one tab stop for all the start points
        page.focus("#skip-board")
        page.keyboard.press("Enter")
        first = page.evaluate("() => document.activeElement.dataset.point")
        page.keyboard.press("ArrowRight")
        second = page.evaluate("() => document.activeElement.dataset.point")
        assert first and second and first != second
        n = s["moves"]
        page.keyboard.press("Enter")
        wait_moves_after(page, n)
        assert state(page)["view"]["players"][0]["start"] == second
        # the rails of the other player's last turn are haloed in their colour
        for _ in range(12):
            s = wait_my_turn(page)
            if s["over"]:
                break
            log = s["view"]["log"]
            run = []
            for e in reversed(log):
                if e["player"] != 1:
                    if run:
                        break
                    continue
                run.append(e["move"])
            rails = [m for m in run if m.startswith("rail ")]
            if rails and s["view"]["phase"] == "rails":
                halo = page.locator('svg .layer-last .lastmove[data-seat="1"] line')
                assert halo.count() == len(rails), (halo.count(), run)
                break
            move = next((m for m in s["legal"] if m.startswith("rail ")), s["legal"][0])
            n = s["moves"]
            page.select_option("#all-moves", move)
            page.click("#all-moves + button")
            wait_moves_after(page, n)
        else:
            raise AssertionError("the other player laid no rail")
        assert not page.errors, page.errors
    finally:
        page.context.close()


def test_a_long_choice_still_fits_at_1366(web_server: Server, browser: Any) -> None:
    """Mega Europe's second deal offers five tickets: the panel scrolls inside, the page does not."""
    out = web_server.create("ttr-europe", [{"name": "Ann"}, {"kind": "bot"}], variant="mega", first_player=0)
    page = new_page(browser, 1366, 768)
    try:
        page.goto(web_server.base + out["seats"][0]["link"])
        page.wait_for_selector("#action input[data-ticket]")
        n = state(page)["moves"]
        page.click("#confirm")
        wait_moves_after(page, n)
        page.wait_for_function("() => (window.__tracklayer.st.view.offer || []).length === 5")
        assert_turn_fits(page)
        assert not page.errors, page.errors
    finally:
        page.context.close()


def test_a_flooded_connection_tells_the_player_why(web_server: Server, browser: Any) -> None:
    """The server closes a websocket that floods it with 1008 and a reason; the page says so in the
    player's language (and reconnects)."""
    import json

    out = web_server.create("ttr-new-york", [{"name": "Ann"}, {"kind": "bot"}], first_player=0)
    page = new_page(browser, 1366, 768, locale="de-DE")
    try:
        page.goto(web_server.base + out["seats"][0]["link"])
        page.wait_for_selector("#action input[data-ticket]")
        page.evaluate("() => { const ws = window.__tracklayer.ws; for (let i = 0; i < 2000; i++) "
                      "ws.send(JSON.stringify({ type: 'ping' })); }")
        catalog = json.loads((Path(__file__).resolve().parents[2] / "tracklayer/web/static/i18n/de.json")
                             .read_text(encoding="utf-8"))
        page.wait_for_function("(text) => document.querySelector('#toast').textContent === text",
                               arg=catalog["err.closed-rate"])
        page.wait_for_function("() => window.__tracklayer.online")  # and it comes back
        assert page.errors == []
    finally:
        page.context.close()


def test_a_flooded_connection_toast_uses_the_phone_width(web_server: Server, browser: Any) -> None:
    """On a phone the toast spans most of the screen (a few lines), not a narrow column over the map."""
    out = web_server.create("ttr-new-york", [{"name": "Ann"}, {"kind": "bot"}], first_player=0)
    page = new_page(browser, 390, 844, locale="de-DE", phone=True)
    try:
        page.goto(web_server.base + out["seats"][0]["link"])
        page.wait_for_selector("#action input[data-ticket]")
        page.evaluate("() => { const ws = window.__tracklayer.ws; for (let i = 0; i < 2000; i++) "
                      "ws.send(JSON.stringify({ type: 'ping' })); }")
        page.wait_for_function("() => document.querySelector('#toast').textContent.length > 0")
        box = page.locator("#toast").bounding_box()
        assert box, "no toast"
        assert box["width"] >= 0.8 * 390 and box["x"] >= 0 and box["x"] + box["width"] <= 390, box
        page.wait_for_function("() => window.__tracklayer.online")  # and it comes back
        assert page.errors == []
    finally:
        page.context.close()


def test_a_built_station_is_clearly_seen(web_server: Server, browser: Any, shots: Path) -> None:
    """A station stands on its city in its owner's colour, outlined, at least 14 px across at 1366×768, and
    neither the city's name nor anything else lies over it."""
    out = web_server.create("ttr-europe", [{"name": "Ann"}, {"name": "Bob"}], first_player=0)
    ann = web_server.client(out["id"], out["seats"][0]["token"])
    bob = web_server.client(out["id"], out["seats"][1]["token"])
    page = new_page(browser, 1366, 768)
    try:
        for client in (ann, bob):
            s = client.my_turn()
            assert client.move(next(m for m in s["legal"] if m.startswith("keep ")))["type"] == "ack"
        s = ann.wait_state(lambda st: st["moves"] == 2 and bool(st.get("legal")))
        move = next(m for m in s["legal"] if m.startswith("station Wien: ") or m.startswith("station Berlin: "))
        assert ann.move(move)["type"] == "ack"
        city = move[len("station "):move.index(":")]
        page.goto(web_server.base + out["seats"][1]["link"])
        page.wait_for_function("() => window.__tracklayer.st && window.__tracklayer.st.moves === 3 && "
                               "window.__tracklayer.board && document.querySelector('g.city')",
                               timeout=waits.ms(20))
        index = [c["name"] for c in page.evaluate("() => window.__tracklayer.board.cities")].index(city)
        marker = page.evaluate("""(i) => {
            const g = document.querySelector(`g.city[data-city="${i}"]`), st = g.querySelector('.station');
            if (!st) return null;
            const r = st.getBoundingClientRect(), label = g.querySelector('.city-label').getBoundingClientRect();
            const shape = st.querySelector('path'), cs = getComputedStyle(shape);
            const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
            return {w: r.width, h: r.height, visible: st.getAttribute('visibility'), fill: shape.getAttribute('fill'),
                    stroke: cs.stroke, strokeWidth: parseFloat(cs.strokeWidth) * shape.getScreenCTM().a,
                    hit: !!hit && st.contains(hit),
                    overlap: Math.max(0, Math.min(r.bottom, label.bottom) - Math.max(r.top, label.top))
                             * Math.max(0, Math.min(r.right, label.right) - Math.max(r.left, label.left))};
        }""", index)
        page.screenshot(path=str(shots / "station-1366.png"))
        assert marker is not None, "no .station marker in the city"
        assert marker["visible"] == "visible", marker
        assert marker["fill"] == "#12b4cc", marker  # Ann's colour
        assert marker["stroke"] in ("rgb(17, 17, 17)", "#111"), marker
        assert marker["strokeWidth"] >= 1.2, marker
        assert min(marker["w"], marker["h"]) >= 14, marker
        assert marker["hit"], marker
        assert marker["overlap"] == 0, marker
        assert not page.errors, page.errors
    finally:
        ann.close()
        bob.close()
        page.context.close()
