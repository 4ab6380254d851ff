"""No control of the game page covers what a player must see: at 390×844 (a phone, touch) and 1366×768,
in a Ticket to Ride game and a Trans game, in English and German.

The controls: the chat button, the creator's invitation links button and the banner while seats are open, the
zoom buttons, the tutorial's guide and the sound and motion toggles. What they must not cover: the seats box, the
board's cities, the turn bar, the hand, the market, the tickets, the choice panel (and the Trans special cards),
and one another.

Measured as the player sees it (``RECTS``): a rectangle is cut to what its scrolling ancestors show, and one that
scrolls with the page to the band between the sticky top bar and the phone's fixed dock (what scrolls under
those is hidden, not covered, unless it is painted over them). The page is measured at every 120 px of its
scroll, top to bottom.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests import waits
from tests.server.helpers import Server
from tests.web.test_play import new_page

CONTROLS = {
    "chat button": "#chat-toggle",
    "links button": "#linkbtn",
    "waiting banner": "#waitbar",
    "zoom button": ".zoombar button",
    "tutorial guide": "#guide",
    "sound toggle": ".topbar .sound",
    "motion toggle": ".topbar .motion",
}
CONTENT = {
    "seats box": "#players-box",
    "turn bar": ".turnbar",
    "hand": "#hand",
    "market": "#market",
    "special cards": "#special-cards",
    "tickets": "#tickets-box",
    "choice": "#action",
    "city": "svg g.city, svg g.pt:has(circle)",
}

RECTS = r"""([controls, content]) => {
  const shown = (e) =>
    e.getClientRects().length && getComputedStyle(e).visibility === "visible" && !e.closest("[hidden]");
  const pinned = (e) => {
    for (let a = e; a && a !== document.documentElement; a = a.parentElement)
      if (["fixed", "sticky"].includes(getComputedStyle(a).position)) return true;
    return false;
  };
  const cut = (r, c) =>
    ({ l: Math.max(r.l, c.l), t: Math.max(r.t, c.t), r: Math.min(r.r, c.r), b: Math.min(r.b, c.b) });
  const topbar = document.querySelector(".topbar"), dock = document.getElementById("dock");
  const band = {
    l: 0, r: innerWidth,
    t: topbar ? topbar.getBoundingClientRect().bottom : 0,
    b: dock && getComputedStyle(dock).position === "fixed" ? dock.getBoundingClientRect().top : innerHeight,
  };
  const seen = (e) => {
    const b = e.getBoundingClientRect();
    let r = { l: b.left, t: b.top, r: b.right, b: b.bottom };
    for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (s.overflowX !== "visible" || s.overflowY !== "visible") {
        const c = a.getBoundingClientRect();
        r = cut(r, { l: c.left, t: c.top, r: c.right, b: c.bottom });
      }
    }
    // what scrolls under the top bar or the dock is hidden, unless it paints over them (a z-index): then it covers
    if (!pinned(e)) {
      const over = [{ ...r, b: Math.min(r.b, band.t) }, { ...r, t: Math.max(r.t, band.b) }].some((u) => {
        if (u.r - u.l < 2 || u.b - u.t < 2) return false;
        const hit = document.elementFromPoint((u.l + u.r) / 2, (u.t + u.b) / 2);
        return hit && e.contains(hit);
      });
      if (!over) r = cut(r, band);
    }
    return r.r - r.l > 0.5 && r.b - r.t > 0.5 ? r : null;
  };
  const items = [];
  for (const [group, names] of [["control", controls], ["content", content]])
    for (const [name, sel] of Object.entries(names))
      document.querySelectorAll(sel).forEach((e, k) => {
        if (!shown(e)) return;
        const r = seen(e);
        const label = sel.includes("g.city") ? ` ${e.textContent || k + 1}` : k ? ` ${k + 1}` : "";
        if (r) items.push({ group, name: name + label, e, r });
      });
  const out = [];
  for (const a of items.filter((x) => x.group === "control"))
    for (const b of items) {
      if (a === b || a.e.contains(b.e) || b.e.contains(a.e)) continue;
      if (b.group === "control" && items.indexOf(b) < items.indexOf(a)) continue;
      const o = cut(a.r, b.r);
      if (o.r - o.l > 1 && o.b - o.t > 1)
        out.push(`${a.name} covers ${b.name} at scroll ${Math.round(scrollY)}: ` +
                 `${[a.r.l, a.r.t, a.r.r, a.r.b].map(Math.round)} × ${[b.r.l, b.r.t, b.r.r, b.r.b].map(Math.round)}`);
    }
  return out;
}"""


def overlaps(page: Any) -> list[str]:
    """Every overlap at each scroll position of the page, from its top to its bottom."""
    found: list[str] = []
    end = page.evaluate("() => document.documentElement.scrollHeight - innerHeight")
    for y in [*range(0, max(end, 0), 120), max(end, 0)]:
        page.evaluate(f"() => scrollTo(0, {y})")
        page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
        found += [o for o in page.evaluate(RECTS, [CONTROLS, CONTENT]) if o not in found]
    page.evaluate("() => scrollTo(0, 0)")
    return found


@pytest.fixture(scope="module")
def games(web_server: Server) -> dict[str, dict[str, Any]]:
    """A game of each family with an open seat, so that the creator's links button shows; a tutorial of each,
    with its guide above the board."""
    bot = {"kind": "bot", "bot": "greedy"}
    tutorials = {}
    for family, game in (("ttr", "ttr-europe"), ("trans", "trans-europa")):
        r = httpx.post(web_server.base + "/api/tutorial", json={"game": game}, timeout=waits.scaled(10))
        assert r.status_code == 201, r.text
        tutorials[f"{family}-tutorial"] = {**r.json(), "seats": [{"link": r.json()["link"]}]}
    return {
        **tutorials,
        "ttr": web_server.create("ttr-europe", [{"name": "Annabelle"}, bot, {"kind": "open"}], first_player=0),
        "trans": web_server.create("trans-europa", [{"name": "Annabelle"}, {"kind": "bot"}, {"kind": "open"}],
                                   variant="special-cards", first_player=0),
    }


@pytest.mark.parametrize("locale", ["en-US", "de-DE"])
@pytest.mark.parametrize("size", ["phone", "laptop"])
@pytest.mark.parametrize("family", ["ttr", "trans", "ttr-tutorial", "trans-tutorial"])
def test_no_control_covers_the_game(web_server: Server, browser: Any, games: dict[str, dict[str, Any]],
                                    family: str, size: str, locale: str, shots: Path) -> None:
    game = games[family]
    page = new_page(browser, *((390, 844) if size == "phone" else (1366, 768)), locale=locale,
                    phone=size == "phone")
    try:
        if "creator" in game:
            mine = {game["id"]: {"tokens": {"creator": game["creator"]["token"]}}}
            page.add_init_script(f"localStorage.setItem('tracklayer.games', {json.dumps(json.dumps(mine))})")
        page.goto(web_server.base + game["seats"][0]["link"])
        page.wait_for_selector("#players-box")
        page.wait_for_selector(CONTENT["city"])
        page.wait_for_selector("#guide" if family.endswith("tutorial") else "#linkbtn:not([hidden])")
        page.wait_for_selector("#chat-toggle")
        page.wait_for_function("() => document.fonts.status === 'loaded'", timeout=waits.ms(10))
        found = overlaps(page)
        page.screenshot(path=str(shots / f"floating-{family}-{size}-{locale[:2]}.png"))
        assert not page.errors, page.errors
    finally:
        page.context.close()
    assert not found, f"{len(found)} overlaps ({family}, {size}, {locale}):\n" + "\n".join(found)
