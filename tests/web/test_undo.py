"""Undo on the game page against a bot: the Undo button appears after a claim the player may take back,
is finger-sized on a phone, works by mouse and by keyboard, and the claim is gone afterwards."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.server.helpers import database_url, running
from tests.server.test_undo import GRACE, _to_claim
from tests.web.test_clock import _context, _open

NY = "ttr-new-york"


def test_undo_button_takes_back_a_claim_against_a_bot(tmp_path: Path, browser: Any, shots: Path) -> None:
    with running(database_url(tmp_path), tmp_path / "server.log", rate=50, env=GRACE) as srv:
        out = srv.create(NY, [{"name": "Ann"}, {"kind": "bot", "bot": "random"}], first_player=0)
        gid, token = out["id"], out["seats"][0]["token"]
        ann = srv.client(gid, token)
        try:
            before = _to_claim(ann)
            n = before["moves"]
            claim = next(m for m in before["legal"] if m.startswith("claim"))
            for lang, locale in (("en", "en-US"), ("de", "de-DE")):
                for size in ("desktop", "phone"):
                    assert ann.move(claim, n)["type"] == "ack"
                    ann.wait_state(lambda s: s["moves"] == n + 1 and s.get("can_undo") is True)
                    ctx = _context(browser, size, locale)
                    try:
                        page = _open(ctx, srv, f"/game/{gid}#{token}")
                        button = page.locator("#undo")
                        button.wait_for(state="visible")
                        assert button.inner_text() == ("Undo" if lang == "en" else "Rückgängig")
                        assert page.locator("#undo-done").is_visible()  # the bot waits for Ann
                        box = button.bounding_box()
                        assert box is not None and box["height"] >= 44 and box["width"] >= 44
                        button.scroll_into_view_if_needed()
                        page.screenshot(path=str(shots / f"undo-{lang}-{size}.png"))
                        if size == "phone":
                            button.focus()
                            page.keyboard.press("Enter")
                        else:
                            button.click()
                        page.wait_for_function(f"() => window.__tracklayer.st.moves === {n}")
                        button.wait_for(state="detached")
                        st = page.evaluate("() => window.__tracklayer.st")
                        assert "can_undo" not in st and claim in st["legal"]
                        assert st["view"]["route_owner"] == before["view"]["route_owner"]
                        assert not page.errors, page.errors
                    finally:
                        ctx.close()
                    ann.wait_state(lambda s: s["moves"] == n)
        finally:
            ann.close()
