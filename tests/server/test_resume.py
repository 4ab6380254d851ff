"""Games go on by themselves after a restart, with nobody connected (tracklayer.server.resume).

Each test kills every server with ``kill -9`` in the middle of games that need nobody (bots only, and
absent humans whose stand-ins hold their seats after their clocks ran out), starts new servers and
then only reads the database: no websocket and no HTTP request about those games, so nothing but the
servers themselves can move them on. Waits are generous (the machine is shared) and poll the
database; no assertion is about how long something took.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

import tracklayer
from tests import waits
from tests.server.helpers import PG_ENV, Server, database_url
from tracklayer.server import resume
from tracklayer.server.clocks import clocks
from tracklayer.server.db import GameRecord, Store, games
from tracklayer.server.rooms import Rooms

NY = "ttr-new-york"
FINISH = 240  # seconds for the restarted servers to finish the games (bots at full speed: far less)


def _until(pred: Callable[[], Any], timeout: float, what: str) -> Any:
    return waits.until(pred, timeout, what, poll=0.2)  # scaled to the machine's load


def _status(store: Store, gid: str) -> str:
    with store.engine.connect() as conn:
        return conn.execute(sa.select(games.c.status).where(games.c.id == gid)).scalar_one()


def _standins(store: Store, gid: str) -> list[bool]:
    with store.engine.connect() as conn:
        state = conn.execute(sa.select(clocks.c.state).where(clocks.c.game_id == gid)).scalar_one()
    return list(json.loads(state)["standin"])


def _replayed(store: Store, gid: str) -> Any:
    """The stored game replayed by the engine: a log with a gap or a move applied twice does not replay."""
    rec = store.load_game(gid)
    assert rec is not None
    return tracklayer.load_game({**rec.setup, "moves": rec.moves})


def _stored(store: Store, kinds: list[str]) -> str:
    """A new game stored with seats of these kinds ("human" or "bot"), seat 0 to move, not in memory."""
    names = [f"{k} {i}" for i, k in enumerate(kinds)]
    game = tracklayer.new_game(NY, names, seed=secrets.randbits(40), first_player=0)
    rec = GameRecord(id=secrets.token_urlsafe(8), game=NY, variant=None, setup=game.setup(),
                     seats=[{"name": n, "kind": k, **({"bot": "random"} if k == "bot" else
                                                      {"token": secrets.token_urlsafe(12)})}
                            for n, k in zip(names, kinds, strict=True)],
                     spectator_token=secrets.token_urlsafe(12), table_token=None)
    store.create_game(rec)
    return rec.id


def test_a_pass_loads_the_games_a_bot_is_to_move_in_and_no_more(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The sweep in one process, pass by pass: bounded, each game loaded once, a game that waits for a
    person unloaded again and left alone until its row changes, games of people only never loaded."""
    monkeypatch.setattr(resume, "MAX_LOADS", 2)
    monkeypatch.setattr(resume, "PAGE", 3)

    async def scenario() -> None:
        store = Store(f"sqlite:///{tmp_path / 'db.sqlite3'}")
        rooms = Rooms(store, bot_delay=0)
        try:
            bots = [_stored(store, ["bot", "bot"]) for _ in range(3)]
            person = _stored(store, ["human", "bot"])  # the person moves first
            people = _stored(store, ["human", "human"])
            loads = [await rooms.resume.step() for _ in range(3)]
            assert loads == [2, 2, 0]
            assert set(rooms.rooms) == set(bots)  # the person's game was looked at and unloaded
            assert people not in rooms.rooms
            assert await rooms.resume.step() == 0  # nothing changed: nothing loaded
            game = tracklayer.load_game({**store.load_game(person).setup, "moves": []})  # type: ignore[union-attr]
            store.append_move(person, 0, str(game.legal_actions()[0]), "running")  # the person moved
            assert await rooms.resume.step() == 1
            for gid in bots:  # nobody connected: the bots play the games to their end
                while store.load_game(gid).status != "over":  # type: ignore[union-attr]
                    await asyncio.sleep(0.05)
        finally:
            await rooms.close()
            store.close()

    asyncio.run(asyncio.wait_for(scenario(), 120))


def _games_nobody_needs(server: Server) -> list[str]:
    """A bot-only game and a game of two absent humans with a one-second clock, both under way, and a
    game waiting for a second player; returned once the humans' stand-ins hold both their seats
    (after two timeouts each): from then on no deadline is left to count down. The third game's bot
    fill is given a deadline while the servers are down (:func:`_frozen`), as quick play would."""
    bots = server.create(NY, [{"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}])
    absent = server.create(NY, [{"name": "Ann"}, {"name": "Bob"}], clock={"turn_seconds": 1, "bank_seconds": 0},
                           standin="random")
    lobby = server.create(NY, [{"name": "Cy"}, {"kind": "open"}])  # waits for a second player
    store = Store(server.db_url)
    try:
        _until(lambda: _standins(store, absent["id"]) == [True, True], 120, "both stand-ins keeping their seats")
        _until(lambda: len(store.load_moves(bots["id"])) >= 3, 120, "the bots' first moves")
    finally:
        store.close()
    return [bots["id"], absent["id"], lobby["id"]]


def _frozen(store: Store, played: list[str], waiting: str) -> None:
    """What the killed servers left: every game unfinished (else the test would prove nothing), and the
    waiting game's bot fill due (its deadline passed while no server ran), as quick play would set it."""
    for gid in played:
        assert _status(store, gid) != "over", f"game {gid} ended before the kill: the test needs slower bots"
    with store.engine.begin() as conn:
        conn.execute(sa.update(games).where(games.c.id == waiting).values(fill_at=time.time() - 1))


def _resumed(store: Store, played: list[str], waiting: str) -> None:
    """The games went on with nobody connected: the bot games and the absent humans' game end, and the
    waiting game is filled with bots, who move until its one person's turn."""
    for gid in played:
        _until(lambda gid=gid: _status(store, gid) == "over", FINISH, f"game {gid} to be played to its end")
        assert _replayed(store, gid).is_over
    _until(lambda: _status(store, waiting) != "waiting", FINISH, "the bot fill")
    rec = store.load_game(waiting)
    assert rec is not None and [s["kind"] for s in rec.seats] == ["human", "bot"]
    _until(lambda: _replayed(store, waiting).current_player == 0, FINISH, "the bots' moves up to Cy's turn")


def test_games_nobody_watches_go_on_after_kill_9(tmp_path: Path) -> None:
    url = database_url(tmp_path)
    # slow bots while the games are set up, so they are still under way at the kill
    first = Server(url, tmp_path / "a.log", bot_delay=0.5).start()
    try:
        ids = _games_nobody_needs(first)
        first.kill9()
    finally:
        first.stop()
    store = Store(url)
    try:
        _frozen(store, ids[:2], ids[2])
        again = Server(url, tmp_path / "b.log", bot_delay=0.0).start()
        try:
            _resumed(store, ids[:2], ids[2])
        finally:
            again.stop()
    finally:
        store.close()


pg = pytest.mark.skipif(not os.environ.get(PG_ENV), reason=f"two processes need PostgreSQL: set {PG_ENV}")


def _start_together(servers: list[Server]) -> None:
    starting = [threading.Thread(target=s.start) for s in servers]
    for t in starting:
        t.start()
    for t in starting:
        t.join()
    assert all(s.proc is not None and s.proc.poll() is None for s in servers)


@pg
def test_every_process_killed_at_once_and_restarted_together(tmp_path: Path) -> None:
    url = os.environ[PG_ENV]
    first = [Server(url, tmp_path / f"{n}1.log", bot_delay=0.5) for n in ("a", "b")]
    try:
        _start_together(first)
        made = [_games_nobody_needs(s) for s in first]  # each process owns the games it made
        for s in first:
            s.kill9()
    finally:
        for s in first:
            s.stop()
    played = [gid for ids in made for gid in ids[:2]]
    store = Store(url)
    try:
        for ids in made:
            _frozen(store, ids[:2], ids[2])
        again = [Server(url, tmp_path / f"{n}2.log", bot_delay=0.0) for n in ("a", "b")]
        try:
            _start_together(again)
            for ids in made:
                _resumed(store, ids[:2], ids[2])
        finally:
            for s in again:
                s.stop()
        for gid in played:  # one process moved each game: every index stored once, and the log replays
            assert len(store.load_moves(gid)) == len(_replayed(store, gid).moves)
    finally:
        store.close()
