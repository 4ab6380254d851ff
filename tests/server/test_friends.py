"""Friends (tracklayer.server.accounts.friends): following, who is online, invitations to a seat.

In-process (FastAPI's TestClient, as tests/server/test_accounts.py) so a test can age an account's activity in
the database; on PostgreSQL when CI sets TRACKLAYER_TEST_DATABASE_URL (every name is unique per test).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from tests import waits
from tests.server.helpers import database_url
from tracklayer.server.accounts import COOKIE
from tracklayer.server.accounts.friends import INVITES_PER_WINDOW, ONLINE_SECONDS
from tracklayer.server.accounts.tables import accounts, presence
from tracklayer.server.app import Settings, create_app
from tracklayer.server.db import make_engine

PASSWORD = "correct horse battery"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    settings = Settings(database_url=database_url(tmp_path), bot_delay=0.0, tune_gc=False, games_per_minute=0,
                        bot_games=0, bot_workers=1)
    # an address of its own: registrations count against the address in the database the tests share
    with TestClient(create_app(settings), client=(f"friends-{secrets.token_hex(6)}", 50000)) as c:
        yield c


@pytest.fixture
def engine(client: TestClient) -> Iterator[sa.Engine]:
    e = make_engine(client.app.state.settings.database_url)  # type: ignore[attr-defined]
    yield e
    e.dispose()


class Player:
    """One account's session on the shared test client: each request carries this account's cookie only."""

    def __init__(self, c: TestClient, prefix: str) -> None:
        self.c = c
        self.name = f"{prefix}_{secrets.token_hex(4)}"
        c.cookies.clear()
        r = c.post("/api/register", json={"username": self.name, "password": PASSWORD})
        assert r.status_code == 201, r.text
        self.sid, self.csrf = c.cookies[COOKIE], r.json()["csrf"]
        c.cookies.clear()

    def request(self, method: str, path: str, **kw: Any) -> httpx.Response:
        self.c.cookies.clear()
        self.c.cookies.set(COOKIE, self.sid)
        try:
            headers = {"X-CSRF-Token": self.csrf, **kw.pop("headers", {})}
            return self.c.request(method, path, headers=headers, **kw)
        finally:
            self.c.cookies.clear()

    def post(self, path: str, **kw: Any) -> httpx.Response:
        return self.request("POST", path, json=kw.pop("json", {}), **kw)

    def get(self, path: str) -> httpx.Response:
        return self.request("GET", path)

    def friends(self) -> dict[str, Any]:
        r = self.get("/api/friends")
        assert r.status_code == 200, r.text
        out: dict[str, Any] = r.json()
        return out

    def follow(self, other: Player) -> dict[str, Any]:
        r = self.post(f"/api/users/{other.name}/follow")
        assert r.status_code == 200, r.text
        out: dict[str, Any] = r.json()
        return out

    def create(self, seats: int = 2, private: bool = False) -> dict[str, Any]:
        r = self.post("/api/games", json={"game": "ttr-europe", "private": private,
                                          "seats": [{"name": self.name}] + [{"name": f"Seat {i}"}
                                                                            for i in range(1, seats)]})
        assert r.status_code == 201, r.text
        out: dict[str, Any] = r.json()
        return out

    def invite(self, created: dict[str, Any], seat: int, other: Player | str) -> httpx.Response:
        return self.post(f"/api/games/{created['id']}/invite",
                         json={"seat": seat, "username": other if isinstance(other, str) else other.name},
                         headers={"Authorization": f"Bearer {created['creator']['token']}"})


def test_follow_unfollow_and_friends(client: TestClient) -> None:
    ann, bob = Player(client, "ann"), Player(client, "bob")
    assert ann.follow(bob) == {"username": bob.name, "following": True, "follows_you": False, "friend": False}
    assert ann.follow(bob)["following"]  # twice is once
    (entry,) = ann.friends()["following"]
    assert entry["username"] == bob.name and entry["friend"] is False
    # (no invitation by mail: this server sends none)
    assert bob.friends()["followers"] == [{"username": ann.name, "friend": False, "invite_mail": False}]
    # Bob's profile, as Ann sees it, and as Bob sees it
    assert ann.get(f"/api/users/{bob.name}").json()["relation"] == {"following": True, "follows_you": False,
                                                                   "friend": False}
    assert bob.get(f"/api/users/{bob.name}").json()["relation"] == {"self": True}
    client.cookies.clear()
    assert "relation" not in client.get(f"/api/users/{bob.name}").json()  # a guest follows nobody
    # following back makes them friends, for both
    assert bob.follow(ann)["friend"] is True
    assert ann.friends()["following"][0]["friend"] is True
    assert bob.friends()["following"][0] == {**bob.friends()["following"][0], "username": ann.name, "friend": True}
    r = ann.post(f"/api/users/{bob.name}/unfollow")
    assert r.status_code == 200 and r.json()["following"] is False and r.json()["follows_you"] is True
    assert ann.friends()["following"] == []
    assert bob.friends()["following"][0]["friend"] is False


def test_follow_refusals(client: TestClient) -> None:
    ann = Player(client, "ann")
    client.cookies.clear()
    r = client.post(f"/api/users/{ann.name}/follow", json={})
    assert r.status_code == 401 and r.json()["detail"] == "sign in to follow players"
    assert client.get("/api/friends").status_code == 401
    r = ann.post(f"/api/users/{ann.name}/follow")
    assert r.status_code == 400 and r.json()["detail"] == "you cannot follow yourself"
    r = ann.post("/api/users/nobody_here_at_all/follow")
    assert r.status_code == 404 and r.json()["detail"] == "no such player"
    bob = Player(client, "bob")
    r = ann.post(f"/api/users/{bob.name}/follow", headers={"X-CSRF-Token": "not the token"})
    assert r.status_code == 403  # the session's CSRF token, as every state-changing request
    # a bot account (an outside program) cannot be followed
    r = ann.post("/api/me/bots", json={"name": f"robo_{secrets.token_hex(3)}"})
    assert r.status_code == 201, r.text
    robo = r.json()["name"]
    r = ann.post(f"/api/users/{robo}/follow")
    assert r.status_code == 400 and "bot account" in r.json()["detail"]
    assert "presence" not in client.get(f"/api/users/{robo}").json()


def test_online_status_last_seen_and_the_game_to_watch(client: TestClient, engine: sa.Engine) -> None:
    ann, bob = Player(client, "ann"), Player(client, "bob")
    ann.follow(bob)
    (entry,) = ann.friends()["following"]
    assert entry["online"] is True and "in_game" not in entry  # registering is being on the site
    # an hour without a request: offline, last seen then
    with engine.begin() as conn:
        bob_id = conn.execute(sa.select(accounts.c.id).where(accounts.c.username == bob.name)).scalar_one()
        an_hour_ago = conn.execute(sa.select(presence.c.last_seen_at)
                                   .where(presence.c.account_id == bob_id)).scalar_one() - 3600
        conn.execute(sa.update(presence).where(presence.c.account_id == bob_id).values(last_seen_at=an_hour_ago))
    (entry,) = ann.friends()["following"]
    assert entry == {"username": bob.name, "friend": False, "online": False, "last_seen": an_hour_ago}
    assert client.get(f"/api/users/{bob.name}").json()["presence"]["online"] is False
    # Bob opens his seat of a public game: online, in that game, with its watch link
    created = bob.create()
    client.cookies.set(COOKIE, bob.sid)
    with client.websocket_connect(f"/ws/{created['id']}") as ws:
        ws.send_text(json.dumps({"type": "hello", "token": created["seats"][0]["token"]}))
        assert ws.receive_json()["type"] == "state"
        (entry,) = ann.friends()["following"]
        assert entry["online"] is True and entry["in_game"] is True and entry["game"] == "ttr-europe"
        assert entry["watch"] == created["spectator"]["link"]  # the spectator link, never a seat's
        assert entry["last_seen"] > an_hour_ago + ONLINE_SECONDS
    # the websocket closed: still online, in no game (the write follows the close)
    waits.until(lambda: "in_game" not in ann.friends()["following"][0], 10, "Bob's game forgotten")
    assert ann.friends()["following"][0]["online"] is True
    # a private game: "in a game", no map and no link
    hidden = bob.create(private=True)
    client.cookies.set(COOKIE, bob.sid)
    with client.websocket_connect(f"/ws/{hidden['id']}") as ws:
        ws.send_text(json.dumps({"type": "hello", "token": hidden["seats"][0]["token"]}))
        assert ws.receive_json()["type"] == "state"
        (entry,) = ann.friends()["following"]
        assert entry["in_game"] is True and "watch" not in entry and "game" not in entry


def test_invite_a_follower_who_joins_the_seat(client: TestClient) -> None:
    ann, bob = Player(client, "ann"), Player(client, "bob")
    bob.follow(ann)
    created = ann.create(seats=3)
    r = ann.invite(created, 1, bob)
    assert r.status_code == 201, r.text
    assert r.json()["username"] == bob.name and r.json()["seat"] == 1
    assert ann.invite(created, 1, bob).json()["id"] == r.json()["id"]  # inviting again is the same invitation
    out = bob.friends()
    (inv,) = out["invitations"]
    assert inv["from"] == ann.name and inv["game_id"] == created["id"] and inv["seat"] == 1
    assert inv["seat_name"] == "Seat 1" and inv["game"] == "ttr-europe"
    text = json.dumps(out)
    for seat in created["seats"]:  # no token of any seat before the invitation is accepted
        assert seat["token"] not in text
    assert ann.friends()["invitations"] == []
    # accepting links Bob's account to the seat and gives that seat's link, no other
    r = bob.post(f"/api/invitations/{inv['id']}/accept")
    assert r.status_code == 200, r.text
    got = r.json()
    assert got["id"] == created["id"] and got["seat"] == 1 and got["token"] == created["seats"][1]["token"]
    assert got["link"] == created["seats"][1]["link"]
    assert created["seats"][2]["token"] not in r.text and created["creator"]["token"] not in r.text
    (game,) = client.get(f"/api/users/{bob.name}").json()["games"]
    assert game["id"] == created["id"] and game["seat"] == 1
    assert bob.friends()["invitations"] == []
    assert bob.post(f"/api/invitations/{inv['id']}/accept").status_code == 404
    # the seat is Bob's now: nobody is invited to it any more
    r = ann.invite(created, 1, bob)
    assert r.status_code == 409 and "taken" in r.json()["detail"]


def test_decline_and_other_peoples_invitations(client: TestClient) -> None:
    ann, bob, cat = Player(client, "ann"), Player(client, "bob"), Player(client, "cat")
    bob.follow(ann)
    created = ann.create()
    inv = ann.invite(created, 1, bob).json()
    for action in ("accept", "decline"):  # Cat cannot answer Bob's invitation, nor tell it exists
        r = cat.post(f"/api/invitations/{inv['id']}/{action}")
        assert r.status_code == 404 and r.json()["detail"] == "no such invitation"
    assert len(bob.friends()["invitations"]) == 1
    assert bob.post(f"/api/invitations/{inv['id']}/decline").json() == {"ok": True}
    assert bob.friends()["invitations"] == []
    assert bob.post(f"/api/invitations/{inv['id']}/decline").status_code == 404


def test_only_followers_can_be_invited(client: TestClient) -> None:
    ann, bob, cat = Player(client, "ann"), Player(client, "bob"), Player(client, "cat")
    ann.follow(cat)  # Ann follows Cat; Cat does not follow Ann: no invitations from Ann
    created = ann.create(seats=3)
    r = ann.invite(created, 1, cat)
    assert r.status_code == 403
    assert r.json()["detail"].startswith(f"{cat.name} does not follow you: you can invite the players who follow you")
    assert cat.friends()["invitations"] == []
    bob.follow(ann)
    # the creator token, a human seat nobody has, a signed-in creator
    r = ann.post(f"/api/games/{created['id']}/invite", json={"seat": 1, "username": bob.name})
    assert r.status_code == 403 and "creator token" in r.json()["detail"]
    r = ann.post(f"/api/games/{created['id']}/invite", json={"seat": 1, "username": bob.name},
                 headers={"Authorization": f"Bearer {created['spectator']['token']}"})
    assert r.status_code == 403  # another of the game's tokens is no creator token
    assert ann.invite(created, 0, bob).status_code == 409  # Ann's own seat
    assert ann.invite(created, 7, bob).status_code == 400
    assert ann.invite(created, 1, "nobody_here_at_all").status_code == 404
    client.cookies.clear()
    r = client.post(f"/api/games/{created['id']}/invite", json={"seat": 1, "username": bob.name},
                    headers={"Authorization": f"Bearer {created['creator']['token']}"})
    assert r.status_code == 401 and r.json()["detail"] == "sign in to invite friends"


def test_invitations_are_rate_limited(client: TestClient) -> None:
    ann, bob = Player(client, "ann"), Player(client, "bob")
    bob.follow(ann)
    created = ann.create()
    for _ in range(INVITES_PER_WINDOW):
        assert ann.invite(created, 1, bob).status_code == 201
    r = ann.invite(created, 1, bob)
    assert r.status_code == 429 and "invitations" in r.json()["detail"] and int(r.headers["Retry-After"]) > 0


def test_the_creator_sees_the_invitations_sent_and_their_state(client: TestClient) -> None:
    ann, bob, cat, dan = (Player(client, n) for n in ("ann", "bob", "cat", "dan"))
    for p in (bob, cat, dan):
        p.follow(ann)
    created = ann.create(seats=4)
    creator = {"Authorization": f"Bearer {created['creator']['token']}"}
    ids = {p.name: ann.invite(created, seat, p).json()["id"] for seat, p in ((1, bob), (2, cat), (3, dan))}
    assert bob.post(f"/api/invitations/{ids[bob.name]}/accept").status_code == 200
    assert cat.post(f"/api/invitations/{ids[cat.name]}/decline").json() == {"ok": True}
    # the creator token sees every invitation of the game, oldest first, with its state; no token in it
    r = client.get(f"/api/games/{created['id']}/invitations", headers=creator)
    assert r.status_code == 200, r.text
    got = [(i["username"], i["seat"], i["seat_name"], i["state"]) for i in r.json()["invitations"]]
    assert got == [(bob.name, 1, "Seat 1", "accepted"), (cat.name, 2, "Seat 2", "declined"),
                   (dan.name, 3, "Seat 3", "waiting")]
    assert all(s["token"] not in r.text for s in created["seats"])
    # the inviter's session sees the ones it sent; the links say which seats nobody holds yet
    assert [i["id"] for i in ann.get(f"/api/games/{created['id']}/invitations").json()["invitations"]] == \
        [ids[bob.name], ids[cat.name], ids[dan.name]]
    held = [s.get("held") for s in client.get(f"/api/games/{created['id']}/links", headers=creator).json()["seats"]]
    assert held[1:] == [True, False, False]
    # somebody else's session sees none of them; a guest with no creator token is refused
    assert bob.get(f"/api/games/{created['id']}/invitations").json() == {"invitations": []}
    client.cookies.clear()
    r = client.get(f"/api/games/{created['id']}/invitations",
                   headers={"Authorization": f"Bearer {created['spectator']['token']}"})
    assert r.status_code == 403 and "creator token" in r.json()["detail"]
    assert client.get("/api/games/nosuchgame/invitations", headers=creator).status_code == 404
    # the invitee who declined is asked again: the same invitation, waiting again, in their lobby again
    assert ann.invite(created, 2, cat).json()["id"] == ids[cat.name]
    assert [i["id"] for i in cat.friends()["invitations"]] == [ids[cat.name]]


def test_cancel_an_invitation(client: TestClient) -> None:
    ann, bob, cat = Player(client, "ann"), Player(client, "bob"), Player(client, "cat")
    bob.follow(ann)
    cat.follow(ann)
    created = ann.create(seats=3)
    creator = {"Authorization": f"Bearer {created['creator']['token']}"}
    first = ann.invite(created, 1, bob).json()["id"]
    # the creator token cancels a waiting invitation: gone from the invitee's lobby and from the list
    client.cookies.clear()
    r = client.delete(f"/api/invitations/{first}", headers=creator)
    assert r.status_code == 200 and r.json() == {"ok": True}
    assert bob.friends()["invitations"] == []
    assert client.get(f"/api/games/{created['id']}/invitations", headers=creator).json() == {"invitations": []}
    assert bob.post(f"/api/invitations/{first}/accept").status_code == 404
    r = client.delete(f"/api/invitations/{first}", headers=creator)
    assert r.status_code == 404 and r.json()["detail"] == "no such invitation"
    # the inviter's session (with its CSRF token) cancels one too; nobody else's does
    second = ann.invite(created, 2, cat).json()["id"]
    for who in (bob, cat):  # the invitee declines, never cancels
        r = who.request("DELETE", f"/api/invitations/{second}")
        assert r.status_code == 403 and "creator token" in r.json()["detail"]
    r = client.delete(f"/api/invitations/{second}", headers={"Authorization": f"Bearer {created['seats'][0]['token']}"})
    assert r.status_code == 403  # a seat's token is no creator token
    r = ann.request("DELETE", f"/api/invitations/{second}", headers={"X-CSRF-Token": "wrong"})
    assert r.status_code == 403  # a session without its CSRF token
    assert [i["id"] for i in cat.friends()["invitations"]] == [second]
    assert ann.request("DELETE", f"/api/invitations/{second}").json() == {"ok": True}
    assert cat.friends()["invitations"] == []
    # an accepted invitation is the invitee's seat: it stays
    third = ann.invite(created, 1, bob).json()["id"]
    assert bob.post(f"/api/invitations/{third}/accept").status_code == 200
    r = client.delete(f"/api/invitations/{third}", headers=creator)
    assert r.status_code == 409 and "accepted" in r.json()["detail"]
    (left,) = client.get(f"/api/games/{created['id']}/invitations", headers=creator).json()["invitations"]
    assert left["id"] == third and left["state"] == "accepted"
