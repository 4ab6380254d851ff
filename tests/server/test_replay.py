"""Finished games: the record API (load_game rebuilds the game exactly) and replay views per seat and
position; running games reveal nothing through either (409)."""

from __future__ import annotations

import json
import time
from typing import Any

import httpx
import pytest

import tracklayer
from tests import waits
from tests.server.helpers import Server


def finished_game(server: Server, game: str, players: int = 2) -> dict[str, Any]:
    """A game played to its end by greedy bots (the server's bot delay is 0)."""
    out = server.create(game, [{"kind": "bot", "bot": "greedy"} for _ in range(players)])
    deadline = waits.deadline(120)
    while httpx.get(f"{server.base}/api/games/{out['id']}", timeout=waits.scaled(10)).json()["status"] != "over":
        assert time.monotonic() < deadline, "the bots did not finish the game"
        time.sleep(0.2)
    return out


def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value))


@pytest.mark.parametrize("game", ["ttr-europe", "ttr-new-york", "trans-europa"])
def test_record_of_a_finished_game_rebuilds_it_exactly(server: Server, game: str) -> None:
    out = finished_game(server, game, 3 if game != "ttr-new-york" else 2)
    r = httpx.get(f"{server.base}/api/games/{out['id']}/record", timeout=waits.scaled(10))
    assert r.status_code == 200, r.text
    record = r.json()
    assert isinstance(record["seed"], int) and record["moves"] and "state" in record
    rebuilt = tracklayer.load_game(record)  # checks the state snapshot against the replayed moves
    assert rebuilt.is_over
    assert _plain(rebuilt.to_json()) == record
    # the same final position and result as the server's game: its spectator view, from its token
    seen = httpx.get(f"{server.base}/api/games/{out['id']}/view", timeout=waits.scaled(10),
                     headers={"Authorization": f"Bearer {out['spectator']['token']}"}).json()
    assert seen["over"] and seen["moves"] == len(record["moves"])
    assert _plain(rebuilt.view(None)) == seen["view"]
    assert _plain(rebuilt.result()) == seen["view"]["result"]

    # replay views: any seat's eyes (or the spectator's) at any position, as the engine computes them
    n = len(record["moves"])
    setup = {k: v for k, v in record.items() if k not in ("moves", "state")}
    for move in (0, 1, 17, n // 2, n - 1, n):
        for seat in (None, 0, 1):
            params: dict[str, Any] = {"move": move, **({"seat": seat} if seat is not None else {})}
            rv = httpx.get(f"{server.base}/api/games/{out['id']}/replay", params=params, timeout=waits.scaled(10))
            assert rv.status_code == 200, rv.text
            body = rv.json()
            expected = tracklayer.load_game({**setup, "moves": record["moves"][:move]})
            assert body["view"] == _plain(expected.view(seat)), (move, seat)
            assert body["move"] == move and body["moves"] == n and body["seat"] == seat
            assert body["last"] == (record["moves"][move - 1] if move else None)
    whole = httpx.get(f"{server.base}/api/games/{out['id']}/replay", timeout=waits.scaled(10)).json()
    assert whole["move"] == n and whole["over"] and whole["view"]["result"]


def test_a_running_game_reveals_nothing(server: Server) -> None:
    out = server.create("ttr-europe", [{"name": "Ann"}, {"kind": "bot", "bot": "random"}], first_player=0)
    gid = out["id"]
    for path in ("record", "replay", "replay?move=0&seat=0", "replay?move=0&seat=1"):
        r = httpx.get(f"{server.base}/api/games/{gid}/{path}", timeout=waits.scaled(10))
        assert r.status_code == 409, (path, r.text)
        assert "still running" in r.json()["detail"]
        assert "seed" not in r.text and "hand" not in r.text and "tickets" not in r.text


def test_replay_refuses_bad_input(server: Server) -> None:
    out = finished_game(server, "ttr-new-york")
    base = f"{server.base}/api/games/{out['id']}/replay"
    n = httpx.get(base, timeout=waits.scaled(10)).json()["moves"]
    for params, code in (({"move": -1}, 400), ({"move": n + 1}, 400), ({"seat": 2}, 400), ({"seat": -1}, 400),
                         ({"move": "x"}, 422), ({"seat": "spectator"}, 422)):
        assert httpx.get(base, params=params, timeout=waits.scaled(10)).status_code == code, params
    assert httpx.get(f"{server.base}/api/games/nope/record", timeout=waits.scaled(10)).status_code == 404
    assert httpx.get(f"{server.base}/api/games/nope/replay", timeout=waits.scaled(10)).status_code == 404
    page = httpx.get(f"{server.base}/replay/{out['id']}", timeout=waits.scaled(10))
    assert page.status_code == 200 and "replay.js" in page.text
