"""Friends in a browser: Ann follows Bob from his profile and sees him online in her lobby; she creates a
game, invites Bob to a seat from its links, Bob's lobby shows the invitation and "Join" puts him in the game.
Then the pages this touches (the profile with its follow button, the lobby with the friends panel, an
invitation and the invite control) at 390×844 and 1366×768 in English and German: screenshots, nothing cut,
no English on the German pages."""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any

import httpx

from tests import waits
from tests.server.helpers import Server
from tests.web.test_overflow import MEASURE
from tests.web.test_play import new_page

PASSWORD = "a long enough password"


def sign_in(browser: Any, base: str, username: str, width: int = 1366, height: int = 768, locale: str = "en-US",
            register: bool = False) -> Any:
    """A page of its own browser context, signed in as ``username`` (registered first if asked)."""
    page = new_page(browser, width, height, locale=locale, phone=width < 500)
    r = page.context.request.post(f"{base}/api/{'register' if register else 'login'}",
                                  data={"username": username, "password": PASSWORD})
    assert r.ok, r.text()
    return page


def csrf(page: Any, base: str) -> str:
    token: str = page.context.request.get(f"{base}/api/me").json()["csrf"]
    return token


# shortened on purpose, with an ellipsis: a seat link (copied whole by its button) and the top bar's own name
ELLIPSIS = ("div > code", "span.acct-name")


def fits(page: Any, what: str) -> list[str]:
    """What tests/web/test_overflow.py counts as cut or out of reach (a signed-in page here)."""
    page.evaluate("() => document.fonts.ready")
    return [f"{what}: {o['kind']}: {o['selector']} “{o['text']}” ({o['detail']})" for o in page.evaluate(MEASURE)
            if not (o["kind"].startswith("text cut") and o["selector"].endswith(ELLIPSIS))]


def test_follow_see_online_invite_and_join(web_server: Server, browser: Any, shots: Path) -> None:
    base = web_server.base
    ann_name, bob_name = f"Ann_{secrets.token_hex(3)}", f"Bob_{secrets.token_hex(3)}"
    ann = sign_in(browser, base, ann_name, register=True)
    bob = sign_in(browser, base, bob_name, register=True)
    try:
        # only players who follow you can be invited (no invitations from strangers): Bob follows Ann
        r = bob.context.request.post(f"{base}/api/users/{ann_name}/follow", headers={"X-CSRF-Token": csrf(bob, base)})
        assert r.ok, r.text()
        bob.goto(base + "/")  # Bob is on the site: his lobby asks for his friends and invitations
        bob.wait_for_selector("#friends-panel:not([hidden])")

        # Ann follows Bob from his profile: he follows her already, so they are friends now
        ann.goto(f"{base}/u/{bob_name}")
        ann.wait_for_selector("#profile-follow")
        assert ann.inner_text("#profile-presence").strip() == "Online now"
        assert ann.inner_text("#profile-follows-you").strip().lower() == "follows you"
        ann.click("#profile-follow")
        ann.wait_for_selector('#profile-follow[aria-pressed="true"]')
        assert ann.locator("#profile-friend").count() == 1

        # her lobby lists Bob, online, as a friend
        ann.goto(base + "/")
        row = ann.locator(f'#friends [data-friend="{bob_name}"]')
        row.wait_for()
        assert row.locator('[data-presence="online"]').count() == 1 and row.locator(".friend-mark").count() == 1

        # a game with a second human seat; its link row offers the seat to Bob
        ann.wait_for_selector("#seats .seat")
        ann.locator("#seats .seat").nth(1).locator('button[data-kind="human"]').click()
        ann.click("#create")
        ann.wait_for_selector("#created:not([hidden])")
        choice = ann.locator('select[data-invite-seat="1"]')
        choice.select_option(bob_name)
        ann.locator(".invite-row button").click()
        ann.wait_for_function("(n) => document.querySelector('.invite-status').textContent.includes(n)", arg=bob_name)

        # Bob's lobby shows it on its next look (it asks every few seconds), and Join takes the seat
        invitation = bob.locator("#invites [data-invitation]")
        invitation.wait_for(timeout=waits.ms(60))
        assert ann_name in invitation.inner_text()
        invitation.locator("button.primary").click()
        bob.wait_for_url("**/game/**")
        game_id = bob.url.split("/game/", 1)[1].split("#", 1)[0]
        bob.wait_for_selector("#board svg, #board canvas", state="attached")
        profile = httpx.get(f"{base}/api/users/{bob_name}", timeout=waits.scaled(10)).json()
        assert [(g["id"], g["seat"]) for g in profile["games"]] == [(game_id, 1)]
        assert not ann.errors and not bob.errors, (ann.errors, bob.errors)
    finally:
        ann.context.close()
        bob.context.close()


def test_friends_pages_in_english_and_german_on_a_phone_and_a_laptop(web_server: Server, browser: Any,
                                                                      shots: Path) -> None:
    base = web_server.base
    ann_name, bob_name = f"Anna_{secrets.token_hex(3)}", f"Bernd_{secrets.token_hex(3)}"
    ann = sign_in(browser, base, ann_name, register=True)
    bob = sign_in(browser, base, bob_name, register=True)
    headers_ann, headers_bob = {"X-CSRF-Token": csrf(ann, base)}, {"X-CSRF-Token": csrf(bob, base)}
    try:
        for who, other, headers in ((ann, bob_name, headers_ann), (bob, ann_name, headers_bob)):
            assert who.context.request.post(f"{base}/api/users/{other}/follow", headers=headers).ok
        # a pending invitation for Bob's lobby
        r = ann.context.request.post(f"{base}/api/games", headers=headers_ann, data={
            "game": "ttr-europe", "seats": [{"name": ann_name}, {"name": "Seat two"}]})
        assert r.ok, r.text()
        created = r.json()
        r = ann.context.request.post(f"{base}/api/games/{created['id']}/invite", data={"seat": 1, "username": bob_name},
                                     headers={**headers_ann, "Authorization": f"Bearer {created['creator']['token']}"})
        assert r.ok, r.text()
    finally:
        ann.context.close()
        bob.context.close()
    found: list[str] = []
    for locale in ("en-US", "de-DE"):
        for width, height in ((390, 844), (1366, 768)):
            tag = f"{locale[:2]}-{width}"
            ann = sign_in(browser, base, ann_name, width, height, locale)
            bob = sign_in(browser, base, bob_name, width, height, locale)
            try:
                ann.goto(f"{base}/u/{bob_name}")
                ann.wait_for_selector("#profile-friend")
                ann.screenshot(path=str(shots / f"friends-profile-{tag}.png"), full_page=True)
                found += fits(ann, f"profile [{tag}]")
                if locale == "de-DE":
                    assert ann.inner_text("#profile-follow").strip() == "Du folgst"
                    assert ann.inner_text("#profile-friend").strip().lower() == "freund"
                    assert ann.inner_text("#profile-presence").strip() == "Jetzt online"
                bob.goto(base + "/")
                bob.wait_for_selector("#invites [data-invitation]")
                bob.wait_for_selector(f'#friends [data-friend="{ann_name}"]')
                bob.screenshot(path=str(shots / f"friends-lobby-{tag}.png"), full_page=True)
                found += fits(bob, f"lobby with an invitation [{tag}]")
                ann.goto(base + "/")
                ann.wait_for_selector(f'#friends [data-friend="{bob_name}"]')
                ann.locator("#seats .seat").nth(1).locator('button[data-kind="human"]').click()
                ann.click("#create")
                ann.wait_for_selector(".invite-row select")
                ann.screenshot(path=str(shots / f"friends-invite-{tag}.png"), full_page=True)
                found += fits(ann, f"lobby with invite links [{tag}]")
                if locale == "de-DE":
                    assert bob.inner_text("#friends-h") == "Freunde"
                    assert bob.inner_text("#invites-h").lower() == "einladungen"
                    assert f"{ann_name} lädt dich zu" in bob.inner_text("#invites")
                    assert "Mitspielen" in bob.inner_text("#invites") and "Ablehnen" in bob.inner_text("#invites")
                    assert bob.inner_text(f'#friends [data-friend="{ann_name}"] .presence').strip() == "Jetzt online"
                    assert ann.inner_text(".invite-row button") == "Einladen"
                    for text in ("Follow", "Friend", "Online", "Invite", "Decline", "Join"):
                        assert text not in bob.inner_text("#friends-panel"), text
                assert not ann.errors and not bob.errors, (ann.errors, bob.errors)
            finally:
                ann.context.close()
                bob.context.close()
    assert not found, "\n".join(found)


def test_the_creator_sees_and_cancels_invitations(web_server: Server, browser: Any, shots: Path) -> None:
    """Ann's game: Bob is invited (waiting), Cat declined. The game page's links panel and My games show both with
    their state, an invite control on each seat nobody holds (not Ann's own), and Cancel withdraws Bob's: gone
    from his lobby. At 390×844 and 1366×768, in English and German: nothing cut, no English on the German page."""
    base = web_server.base
    ann_name, bob_name, cat_name = (f"{n}_{secrets.token_hex(3)}" for n in ("Ann", "Bob", "Cat"))
    pages = {n: sign_in(browser, base, n, register=True) for n in (ann_name, bob_name, cat_name)}
    try:
        for n in (bob_name, cat_name):
            assert pages[n].context.request.post(f"{base}/api/users/{ann_name}/follow",
                                                 headers={"X-CSRF-Token": csrf(pages[n], base)}).ok
        headers = {"X-CSRF-Token": csrf(pages[ann_name], base)}
        r = pages[ann_name].context.request.post(f"{base}/api/games", headers=headers, data={
            "game": "ttr-europe", "seats": [{"name": ann_name}, {"name": "Seat two"}, {"name": "Seat three"}]})
        assert r.ok, r.text()
        created = r.json()
        creator = {**headers, "Authorization": f"Bearer {created['creator']['token']}"}
        ids = {}
        for seat, n in ((1, bob_name), (2, cat_name)):
            r = pages[ann_name].context.request.post(f"{base}/api/games/{created['id']}/invite", headers=creator,
                                                     data={"seat": seat, "username": n})
            assert r.ok, r.text()
            ids[n] = r.json()["id"]
        assert pages[cat_name].context.request.post(f"{base}/api/invitations/{ids[cat_name]}/decline",
                                                    headers={"X-CSRF-Token": csrf(pages[cat_name], base)}).ok
    finally:
        for p in pages.values():
            p.context.close()

    found: list[str] = []
    first = True
    for locale in ("en-US", "de-DE"):
        for width, height in ((390, 844), (1366, 768)):
            tag = f"{locale[:2]}-{width}"
            ann = sign_in(browser, base, ann_name, width, height, locale)
            try:
                # the creator's link keeps the creator token in this browser; Ann sits on her seat
                ann.goto(f"{base}/my#{created['id']}:{created['creator']['token']}")
                ann.wait_for_selector(f'[data-game="{created["id"]}"]')
                ann.goto(base + created["seats"][0]["link"])
                ann.wait_for_selector("#linkbtn:not([hidden])")
                ann.evaluate("() => scrollTo(0, 0)")  # the tools are at the top of the page, above a phone's dock
                ann.click("#linkbtn")
                panel = ann.locator("#linkpanel")
                panel.locator(".sent-box:not([hidden])").wait_for()
                states = {li.locator(".who b").inner_text(): li.get_attribute("data-state")
                          for li in panel.locator(".sent-invites li").all()}
                assert states == {bob_name: "waiting", cat_name: "declined"}  # Bob's later: invited again
                # an invite control on each seat nobody holds, not on Ann's own
                assert sorted(int(s.get_attribute("data-invite-seat"))
                              for s in panel.locator("select[data-invite-seat]").all()) == [1, 2]
                ann.screenshot(path=str(shots / f"invitations-panel-{tag}.png"))
                found += fits(ann, f"game page links panel [{tag}]")
                for button in panel.locator(".sent-invites button, .invite-row select, .invite-row button").all():
                    box = button.bounding_box()
                    assert width > 500 or (box and box["height"] >= 44), (tag, button.inner_text(), box)
                if locale == "de-DE":
                    text = panel.inner_text()
                    assert "Gesendete Einladungen" in text.title() or "GESENDETE EINLADUNGEN" in text, text
                    for word in ("waiting", "declined", "Cancel", "Invitations sent", "Invite"):
                        assert word not in text, word
                if first:
                    # Cancel withdraws Bob's waiting invitation: gone from the list and from his lobby
                    assert panel.locator(f'button[data-cancel="{ids[cat_name]}"]').count() == 0  # answered
                    panel.locator(f'button[data-cancel="{ids[bob_name]}"]').click()
                    panel.locator(f'.sent-invites li[data-invitation="{ids[bob_name]}"]').wait_for(state="detached")
                    bob = sign_in(browser, base, bob_name)
                    try:
                        assert bob.context.request.get(f"{base}/api/friends").json()["invitations"] == []
                    finally:
                        bob.context.close()
                    # and My games invites him again, to the seat nobody holds: waiting again, in the list
                    ann.goto(base + "/my")
                    ann.locator(f'[data-links="{created["id"]}"] summary').click()
                    links = ann.locator(f'[data-links="{created["id"]}"]')
                    links.locator('select[data-invite-seat="1"]').select_option(bob_name)
                    links.locator('select[data-invite-seat="1"] ~ button').click()
                    links.locator('.sent-invites li[data-state="waiting"]').wait_for()
                    first = False
                else:
                    ann.goto(base + "/my")
                    ann.locator(f'[data-links="{created["id"]}"] summary').click()
                    ann.locator(f'[data-links="{created["id"]}"] .sent-box:not([hidden])').wait_for()
                ann.screenshot(path=str(shots / f"invitations-my-{tag}.png"), full_page=True)
                found += fits(ann, f"my games [{tag}]")
                assert not ann.errors, ann.errors
            finally:
                ann.context.close()
    assert not found, "\n".join(found)
