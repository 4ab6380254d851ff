"""Turn clocks, stand-in bots, resigning and handing seats over (tracklayer.server.clocks), against real servers.

Clocks of 1-3 seconds keep the tests short; every wait is generous (the machine is shared), and no
assertion is about how long something took.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa

from tests import waits
from tests.server.helpers import NO_LIMITS, PG_ENV, Server, database_url, running
from tracklayer.server.clocks import PRESETS
from tracklayer.server.db import Store

NY = "ttr-new-york"


def _post(server: Server, body: dict[str, Any]) -> httpx.Response:
    return httpx.post(server.base + "/api/games", json=body, timeout=waits.scaled(10))


def _until(pred: Callable[[], Any], timeout: float = 60, what: str = "condition") -> Any:
    deadline = waits.deadline(timeout)
    while True:
        value = pred()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def _seat_action(server: Server, gid: str, seat: int, what: str, token: str) -> httpx.Response:
    return httpx.post(f"{server.base}/api/games/{gid}/seats/{seat}/{what}",
                      headers={"Authorization": f"Bearer {token}"}, timeout=waits.scaled(20))


def test_clock_contract(server: Server) -> None:
    seats = [{"name": "Ann"}, {"kind": "bot", "bot": "random"}]
    bad = [
        ({"preset": "bullet"}, "preset"),
        ({"turn_seconds": 0}, "turn_seconds"),
        ({"turn_seconds": "60"}, "turn_seconds"),
        ({"turn_seconds": True}, "turn_seconds"),
        ({"turn_seconds": 10**9}, "turn_seconds"),
        ({"turn_seconds": 60, "bank_seconds": -1}, "bank_seconds"),
        ({"turn_seconds": 60, "bonus": 3}, "unknown"),
        ({}, "turn_seconds"),
        ([60], "object"),
        ("blitz", "object"),
    ]
    for clock, word in bad:
        r = _post(server, {"game": NY, "seats": seats, "clock": clock})
        assert r.status_code == 400, (clock, r.text)
        assert word in r.json()["detail"], (clock, r.json())
    for standin in ("no-such-bot", "steiner", 7):  # steiner plays Trans only
        r = _post(server, {"game": NY, "seats": seats, "clock": {"preset": "blitz"}, "standin": standin})
        assert r.status_code == 400 and "standin" in r.json()["detail"], standin
    made = server.create(NY, seats, clock={"preset": "blitz"}, standin="expert")  # a level
    assert made["clock"]["standin"] == "mcts"
    made = server.create("trans-europa", seats)
    assert made["clock"] is None

    for name, (turn, bank) in PRESETS.items():
        made = server.create(NY, seats, clock={"preset": name})
        assert made["clock"] == {"turn_seconds": turn, "bank_seconds": bank, "preset": name, "standin": "planner"}
        assert len(made["creator"]["token"]) > 16
    made = server.create(NY, seats, clock={"turn_seconds": 90, "bank_seconds": 30}, standin="greedy",
                         first_player=0)
    assert made["clock"] == {"turn_seconds": 90, "bank_seconds": 30, "preset": None, "standin": "greedy"}
    plain = server.create(NY, seats)
    assert plain["clock"] is None and plain["creator"]["token"]  # no clock: today's behaviour

    listed = {g["id"]: g for g in httpx.get(server.base + "/api/games", timeout=waits.scaled(10)).json()["games"]}
    assert listed[made["id"]]["clock"] == {"preset": None, "turn_seconds": 90, "bank_seconds": 30}
    assert listed[plain["id"]]["clock"] is None

    ann = server.client(made["id"], made["seats"][0]["token"])
    try:
        st = ann.wait_state()
        clock = st["clock"]
        assert clock["seat"] == 0 and 0 < clock["left"] <= 120 and clock["banks"] == [30, 30]
        assert clock["standin"] == "greedy"
    finally:
        ann.close()
    ann = server.client(plain["id"], plain["seats"][0]["token"])
    try:
        assert "clock" not in ann.wait_state()
    finally:
        ann.close()


def test_timeouts_standin_keeps_seat_and_player_takes_it_back(tmp_path: Path) -> None:
    with running(database_url(tmp_path), tmp_path / "s.log", bot_delay=0.3) as srv:
        g = srv.create(NY, [{"name": "Ann"}, {"kind": "bot", "bot": "random"}], first_player=0,
                       clock={"turn_seconds": 1, "bank_seconds": 0})
        token = g["seats"][0]["token"]
        watch = srv.client(g["id"], g["spectator"]["token"])
        try:
            # Ann is not there: her stand-in plays her first turn, then she times out again and it keeps the seat
            st = watch.wait_state(lambda s: s["clock"]["timeouts"][0] >= 1 and s["moves"] >= 1, timeout=60)
            st = watch.wait_state(lambda s: s["seats"][0].get("standin") and s["clock"]["timeouts"][0] >= 2,
                                  timeout=60)
            n = st["moves"]
            watch.wait_state(lambda s: s["moves"] >= n + 3, timeout=60)  # the game goes on without her
            # somebody else's token cannot take her seat back
            r = _seat_action(srv, g["id"], 0, "takeback", g["spectator"]["token"])
            assert r.status_code == 403
            ann = srv.client(g["id"], token)
            try:
                ann.wait_state()
                ann.send({"type": "takeback"})
                st = ann.wait_state(lambda s: not s["seats"][0].get("standin") and not s["over"], timeout=30)
                st = ann.my_turn(timeout=60)
                assert st["clock"]["seat"] == 0 and not st["seats"][0].get("standin")
                ack = ann.move(st["legal"][0])
                assert ack["type"] == "ack", ack
                st = ann.wait_state(lambda s: s["clock"]["timeouts"][0] == 0)  # moved in time: the count restarts
            finally:
                ann.close()
        finally:
            watch.close()
        assert "seat 0 timed out (1 in a row); its stand-in bot plays this turn" in srv.log()


def test_resign_and_creator_handover(server: Server) -> None:
    g = server.create(NY, [{"name": "Ann"}, {"name": "Bob"}], first_player=0)
    ann_token, bob_token = g["seats"][0]["token"], g["seats"][1]["token"]
    creator = g["creator"]["token"]
    bob = server.client(g["id"], bob_token)
    try:
        bob.wait_state()
        # the creator may hand an absent seat over at once; Bob only once Ann has stayed away (120 s here)
        r = _seat_action(server, g["id"], 0, "handover", bob_token)
        assert r.status_code == 409 and "s to go" in r.json()["detail"], r.text
        assert _seat_action(server, g["id"], 0, "handover", "x" * 20).status_code == 403
        assert _seat_action(server, g["id"], 1, "handover", creator).status_code == 409  # Bob is here
        assert _seat_action(server, g["id"], 5, "handover", creator).status_code == 400
        assert _seat_action(server, g["id"], 0, "dance", creator).status_code == 404
        r = _seat_action(server, g["id"], 0, "handover", creator)
        assert r.status_code == 200 and r.json()["standin"] is True
        st = bob.wait_state(lambda s: s["moves"] >= 1 and s["seats"][0].get("standin"), timeout=60)
        assert not st["seats"][1].get("standin")
        # Bob resigns: a bot plays his seat to the end, marked resigned; it cannot be taken back
        r = _seat_action(server, g["id"], 1, "resign", bob_token)
        assert r.status_code == 200 and r.json() == {"ok": True, "seat": 1, "standin": True, "resigned": True}
        assert _seat_action(server, g["id"], 1, "resign", bob_token).status_code == 409
        assert _seat_action(server, g["id"], 1, "takeback", bob_token).status_code == 409
        st = bob.wait_state(lambda s: s["over"], timeout=180)  # two bots finish the game
        assert st["seats"][1]["resigned"] is True and not st["seats"][0].get("resigned")
        # Ann could have taken her seat back (not resigned); after the end nothing changes hands
        assert _seat_action(server, g["id"], 0, "takeback", ann_token).status_code == 409
    finally:
        bob.close()


def test_the_other_players_hand_over_a_seat_that_stayed_away(tmp_path: Path) -> None:
    """No game depends on its creator: Bob hands Ann's seat to its stand-in once she has stayed away
    TRACKLAYER_AWAY_SECONDS; never his own seat, never with a spectator's token, never while she is
    here, and on a turn-based clock only after a timeout."""
    limit = waits.scaled(4)
    with running(database_url(tmp_path), tmp_path / "s.log", env={"TRACKLAYER_AWAY_SECONDS": str(limit)}) as srv:
        g = srv.create(NY, [{"name": "Ann"}, {"name": "Bob"}], first_player=0)
        ann_token, bob_token = g["seats"][0]["token"], g["seats"][1]["token"]
        bob = srv.client(g["id"], bob_token)
        try:
            st = bob.wait_state()
            assert 0 < st["seats"][0]["handover_in"] <= limit + 0.1 and "handover_in" not in st["seats"][1]
            r = _seat_action(srv, g["id"], 0, "handover", bob_token)
            if r.status_code == 409:  # the usual case: sent well within the limit
                assert "Ann has been away for less than" in r.json()["detail"], r.text
            assert _seat_action(srv, g["id"], 1, "handover", bob_token).status_code == 409  # his own seat
            assert _seat_action(srv, g["id"], 0, "handover", g["spectator"]["token"]).status_code == 403
            r = _until(lambda: (x := _seat_action(srv, g["id"], 0, "handover", bob_token)).status_code == 200
                       and x, timeout=60, what="the handover once Ann stayed away")
            assert r.json()["standin"] is True
            st = bob.wait_state(lambda s: s["seats"][0].get("standin") and s["moves"] >= 1, timeout=60)
            assert "handover_in" not in st["seats"][0]  # a bot plays it: nothing more to hand over
            # Ann comes back and takes her seat: she is here, so nobody may hand it over
            ann = srv.client(g["id"], ann_token)
            try:
                ann.wait_state()
                ann.send({"type": "takeback"})
                st = bob.wait_state(lambda s: not s["seats"][0].get("standin") and s["seats"][0]["online"])
                assert "handover_in" not in st["seats"][0]
                assert _seat_action(srv, g["id"], 0, "handover", bob_token).status_code == 409
            finally:
                ann.close()
        finally:
            bob.close()
        # a turn-based clock: being away is how it is played, only a timeout lets Bob act
        g = srv.create(NY, [{"name": "Ann"}, {"name": "Bob"}], first_player=0, clock={"preset": "day-24h"})
        bob = srv.client(g["id"], g["seats"][1]["token"])
        try:
            st = bob.wait_state()
            assert "handover_in" not in st["seats"][0]
            r = _seat_action(srv, g["id"], 0, "handover", g["seats"][1]["token"])
            assert r.status_code == 409 and "turn-based" in r.json()["detail"], r.text
        finally:
            bob.close()


def _wait_log(srv: Server, pattern: str, timeout: float = 60) -> None:
    _until(lambda: re.search(pattern, srv.log()), timeout, pattern)


def test_timeout_fires_after_a_restart(tmp_path: Path) -> None:
    url = database_url(tmp_path)
    srv = Server(url, tmp_path / "a.log", bot_delay=0.0).start()
    try:
        g = srv.create(NY, [{"name": "Ann"}, {"name": "Bob"}], first_player=0,
                       clock={"turn_seconds": 3, "bank_seconds": 0}, standin="greedy")
        srv.kill9()  # before Ann's three seconds are over: nobody is there to fire her deadline
        time.sleep(4)  # it passes while the server is down
        srv2 = Server(url, tmp_path / "b.log", bot_delay=0.0).start()
        try:
            # nobody connects: the restarted server finds the overdue deadline itself (the database shows
            # the stand-in's move; on a shared PostgreSQL another live test server may be the one to fire)
            store = Store(url)
            try:
                _until(lambda: store.load_moves(g["id"]), 90, "the stand-in's move")
            finally:
                store.close()
            if not os.environ.get(PG_ENV):
                assert re.search(rf"game {re.escape(g['id'])}: seat 0 timed out \(1 in a row\)", srv2.log())
            watch = srv2.client(g["id"], g["spectator"]["token"])
            try:
                # (>= 1: on PostgreSQL the module's server may have run the game on meanwhile, through
                # Ann's second timeout, before this process even started)
                watch.wait_state(lambda s: s["moves"] >= 1 and s["clock"]["timeouts"][0] >= 1, timeout=60)
            finally:
                watch.close()
        finally:
            srv2.stop()
    finally:
        srv.stop()


def test_upgrade_from_0001_keeps_old_games(tmp_path: Path) -> None:
    """A database made by the 0001 schema, with a game in it, is migrated; the game plays on (no clock)."""
    from alembic import command
    from alembic.config import Config

    import tracklayer
    from tracklayer.server import db as dbmod

    url = f"sqlite:///{tmp_path / 'old.sqlite3'}"
    engine = dbmod.make_engine(url)
    cfg = Config()
    cfg.set_main_option("script_location", str(Path(dbmod.__file__).parent / "migrations"))
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0001")
    game = tracklayer.new_game(NY, ["Ann", "Bob"], seed=3, first_player=0)
    import json
    with engine.begin() as conn:
        conn.execute(sa.text("INSERT INTO games VALUES ('oldgame', :g, NULL, :setup, :seats, 'spec-token-0001', "
                             "NULL, 'open', 1.0, 1.0)"),
                     {"g": NY, "setup": json.dumps(game.setup()),
                      "seats": json.dumps([{"name": "Ann", "kind": "human", "token": "ann-token-0001"},
                                           {"name": "Bob", "kind": "human", "token": "bob-token-0001"}])})
    engine.dispose()
    with running(url, tmp_path / "s.log") as srv:
        ann = srv.client("oldgame", "ann-token-0001")
        try:
            st = ann.my_turn()
            assert "clock" not in st
            assert ann.move(st["legal"][0])["type"] == "ack"
        finally:
            ann.close()
        r = _seat_action(srv, "oldgame", 0, "resign", "ann-token-0001")
        assert r.status_code == 409


pg = pytest.mark.skipif(not os.environ.get(PG_ENV), reason=f"two processes need PostgreSQL: set {PG_ENV}")


@pg
def test_two_processes_only_the_lease_holder_fires(tmp_path: Path, server: Server) -> None:
    # ``server`` (this module's) is a third process on the same database: it may look for due games too
    url = os.environ[PG_ENV]
    extra = ("--log-level", "debug", *NO_LIMITS)
    a = Server(url, tmp_path / "a.log", bot_delay=0.0, extra=extra).start()
    b = Server(url, tmp_path / "b.log", bot_delay=0.0, extra=extra).start()
    try:
        g = a.create(NY, [{"name": "Ann"}, {"name": "Bob"}], first_player=0,
                     clock={"turn_seconds": 2, "bank_seconds": 0}, standin="greedy")
        # both processes hold the game (a spectator on each): both could fire its clock
        watchers = [s.client(g["id"], g["spectator"]["token"]) for s in (a, b)]
        try:
            for w in watchers:
                w.wait_state(lambda s: s["clock"]["timeouts"][0] >= 1 and s["moves"] >= 1, timeout=60)
            logs = a.log() + b.log() + server.log()
            fired = re.findall(rf"game {re.escape(g['id'])}: seat 0 timed out \(1 in a row\)", logs)
            assert len(fired) == 1, fired
            engine = sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))

            def stored_deadline() -> Any:
                with engine.connect() as conn:
                    return conn.execute(sa.text("SELECT deadline FROM clocks WHERE game_id = :g"),
                                        {"g": g["id"]}).scalar()

            try:  # the next turn's deadline is stored (by the owner, after the stand-in's move)
                _until(stored_deadline, 30, "a stored deadline")
            finally:
                engine.dispose()
        finally:
            for w in watchers:
                w.close()
    finally:
        a.stop()
        b.stop()


class _Game:
    """Just what Control.observe reads of a game."""

    def __init__(self, current: int | None, over: bool = False) -> None:
        self.current_player, self.is_over = current, over


def test_control_bank_timeouts_and_turn_restart() -> None:
    from tracklayer.server.clocks import Control

    c = Control(creator="x", spec={"turn_seconds": 10, "bank_seconds": 30, "standin": "greedy"}, standin_bot="greedy",
                n=3)
    human = [True, True, False]
    assert c.observe(_Game(0), human, now=100.0) and c.deadline == 140.0
    assert not c.observe(_Game(0), human, now=105.0)  # a second move of the same turn: same clock
    c.timeouts[0] = 1
    c.observe(_Game(1), human, now=125.0)  # Ann took 25 s: 15 over her turn come out of her bank
    assert c.banks == [15.0, 30.0, 30.0] and c.timeouts[0] == 0 and c.deadline == 165.0
    c.observe(_Game(2), human, now=126.0)  # a bot's turn: nothing counts down
    assert c.deadline is None and c.block(now=127.0)["seat"] is None
    c.observe(_Game(0), human, now=130.0)
    assert c.deadline == 155.0 and c.block(now=131.0)["left"] == 24.0
    c.standin[1] = True  # Bob's stand-in keeps his seat: handing over in his turn touches nobody else
    c.observe(_Game(1), human, now=131.0)
    assert c.deadline is None
    c.standin[1] = False
    c.restart_turn(_Game(1), human)
    assert c.deadline is not None and c.banks == [15.0, 30.0, 30.0] and c.timeouts == [0, 0, 0]
    c.observe(_Game(None, over=True), human, now=200.0)
    assert c.deadline is None and c.turn_seat is None
