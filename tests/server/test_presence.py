"""Who is online across server processes (tracklayer.server.presence).

The bookkeeping on its own (announcements heard, expiry, notifications split under PostgreSQL's
payload limit), then two real server processes on PostgreSQL: a seat connected to one process shows
online in the other's states, goes offline when its socket closes, and when its process is killed
(after the expiry; a generous timeout, no timing assertion).
"""

from __future__ import annotations

import asyncio
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests import waits
from tests.server.helpers import PG_ENV, Server
from tracklayer.server.presence import EXPIRY, MAX_PAYLOAD, Presence, _payloads

pg = pytest.mark.skipif(not os.environ.get(PG_ENV), reason=f"several processes need PostgreSQL: set {PG_ENV}")


@dataclass
class FakeRoom:
    id: str
    broadcasts: int = 0
    connections: set[Any] = field(default_factory=set)

    def broadcast(self) -> None:
        self.broadcasts += 1


@dataclass
class FakeRooms:
    rooms: dict[str, FakeRoom]


def note(origin: str, games: list[list[Any]] | None = None, asked: list[str] | None = None) -> str:
    return json.dumps({"o": origin, "g": games or [], "q": asked or []})


def test_announcements_heard_expire_and_push_states() -> None:
    room = FakeRoom("g1")
    p = Presence(FakeRooms({"g1": room}), expiry=0.2)  # type: ignore[arg-type]
    assert p.online("g1") == (frozenset(), False)
    p.heard(note("other", [["g1", [1], False], ["g2", [0], True]]))
    p.heard(note("third", [["g1", [2], True]]))
    assert p.online("g1") == (frozenset({1, 2}), True) and p.online("g2") == (frozenset({0}), True)
    assert room.broadcasts == 2  # the clients of g1 here were told, twice (two changes)
    p.heard(note("other", [["g1", [1], False]]))  # a heartbeat: nothing new, no state pushed
    assert room.broadcasts == 2
    p.heard(note(p.origin, [["g1", [0], False]]))  # its own announcement comes back: ignored
    assert p.online("g1") == (frozenset({1, 2}), True)
    p.heard(note("third", [["g1", [], False]]))  # closed: gone at once
    assert p.online("g1") == (frozenset({1}), False) and room.broadcasts == 3
    for bad in ("not json", "[]", json.dumps({"o": 5}), json.dumps({"o": "x", "g": [["g1", ["a"], 1]]})):
        p.heard(bad)  # ignored, nothing breaks
    asyncio.run(asyncio.sleep(0.25))
    assert p.online("g1") == (frozenset(), False)  # "other" was not heard of again: expired
    p._expire()
    assert p.remote == {} and room.broadcasts == 4


def test_notifications_stay_under_the_payload_limit() -> None:
    items = [[f"game{k:06d}xx", list(range(5)), False] for k in range(1000)]
    asked = [f"asked{k:06d}x" for k in range(500)]
    payloads = _payloads("origin", items, asked)
    assert len(payloads) > 1 and all(len(p.encode()) <= MAX_PAYLOAD for p in payloads)
    back = [json.loads(p) for p in payloads]
    assert [i for b in back for i in b["g"]] == items and [q for b in back for q in b["q"]] == asked
    assert _payloads("origin", [], []) == []


def online(state: dict[str, Any]) -> list[bool]:
    return [s["online"] for s in state["seats"]]


@pg
def test_a_seat_connected_to_another_process_shows_online(tmp_path: Path) -> None:
    url = os.environ[PG_ENV]
    a, b = Server(url, tmp_path / "a.log", rate=0), Server(url, tmp_path / "b.log", rate=0)
    clients = []
    try:
        a.start()
        b.start()
        out = a.create("ttr-new-york", [{"name": "Ann"}, {"name": "Bob"}, {"name": "Cid"}], first_player=0)
        gid, tokens = out["id"], [s["token"] for s in out["seats"]]
        ann = a.client(gid, tokens[0])
        clients.append(ann)
        assert online(ann.wait_state()) == [True, False, False]
        bob = b.client(gid, tokens[1])
        clients.append(bob)
        # each sees the other, though they are connected to different processes
        ann.wait_state(lambda s: online(s) == [True, True, False], timeout=30)
        bob.wait_state(lambda s: online(s) == [True, True, False], timeout=30)
        for server in (a, b):  # the public summary too
            seats = httpx.get(f"{server.base}/api/games/{gid}", timeout=waits.scaled(10)).json()["seats"]
            assert [s["online"] for s in seats] == [True, True, False]
        bob.close()
        clients.remove(bob)
        ann.wait_state(lambda s: online(s) == [True, False, False], timeout=30)
        cid = b.client(gid, tokens[2])
        clients.append(cid)
        ann.wait_state(lambda s: online(s) == [True, False, True], timeout=30)
        b.kill9()  # no goodbye: Cid's dot goes when process b's announcements are not renewed
        ann.wait_state(lambda s: online(s) == [True, False, False], timeout=EXPIRY + 60)
    finally:
        for c in clients:
            c.close()
        a.stop()
        b.stop()
