"""Finished games a crash left unrated are rated after a restart, exactly once (tracklayer.server.accounts).

The crash is simulated by what it leaves in the database: a game whose last move is stored (status
``over``) with account seats that have no rank and no ``rated_games`` row, which is what a process
that died between committing the last move and its rating transaction leaves (that transaction
stores ranks and ratings together, so there is no other half-way state). Then: the sweep function
itself, a real server process restarted on it (SQLite or PostgreSQL), and on PostgreSQL two
processes rating the same games at the same moment, two servers starting at once, and a real
server killed (kill -9) while its rating transaction waits on a row the test holds.

On PostgreSQL the database is shared with the other tests (and their servers, whose sweeps wait
``SWEEP_GRACE`` = 60 s): so a test sweeps with a grace of :data:`GRACE` (300 s), its "crashed" games
ended 600 s ago, and games no other sweep may touch ended just now.
"""

from __future__ import annotations

import os
import random
import secrets
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import sqlalchemy as sa

import tracklayer
from tests import waits
from tests.server.helpers import PG_ENV, ROOT, Server, database_url
from tracklayer.server.accounts import (
    AccountStore,
    account_games,
    rate_stored,
    rate_unrated,
    rated_games,
    rating_history,
    ratings,
)
from tracklayer.server.clocks import new_control, store_new
from tracklayer.server.db import GameRecord, Store, games

GRACE = 300.0
pg = pytest.mark.skipif(not os.environ.get(PG_ENV), reason=f"several processes need PostgreSQL: set {PG_ENV}")


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = Store(database_url(tmp_path))
    yield s
    s.close()


def account(store: Store) -> int:
    acct = AccountStore(store.engine).create_account(f"p_{secrets.token_hex(5)}", "$argon2id$not-used")
    assert acct is not None
    return acct


def left_unrated(store: Store, seats: list[int | str | None], *, age: float = 600.0, moves: int | None = None,
                 resigned: frozenset[int] = frozenset(), seed: int = 5) -> tuple[str, list[int]]:
    """A ttr-new-york game played to its end and stored the way a crash before its rating leaves it.
    ``seats``: an account id (a human seat linked to it), a bot name, or None (a guest). ``moves``:
    store only that many (an unfinished game). Returns the game id and the engine's final ranks."""
    names = [f"P{i}" for i in range(len(seats))]
    game = tracklayer.new_game("ttr-new-york", names, seed=seed, first_player=0)
    rng = random.Random(seed)
    while not game.is_over:
        legal = game.legal_actions()
        claims = [a for a in legal if str(a).startswith("claim")]
        game.apply(rng.choice(claims or legal))
    ranks = [int(p["rank"]) for p in game.result()["players"]]
    texts = [str(m) for m in game.moves][:moves]
    gid = secrets.token_urlsafe(8)
    rec_seats = [{"name": n, "kind": "bot", "bot": s} if isinstance(s, str)
                 else {"name": n, "kind": "human", "token": secrets.token_urlsafe(18)}
                 for n, s in zip(names, seats, strict=True)]
    rec = GameRecord(id=gid, game="ttr-new-york", variant="standard", setup=game.setup(), seats=rec_seats,
                     spectator_token=secrets.token_urlsafe(18), table_token=None)
    store.create_game(rec)
    control = new_control((None, "random"), len(seats))
    for i in resigned:
        control.resigned[i] = True
    store_new(store, gid, control)
    accts = AccountStore(store.engine)
    for i, s in enumerate(seats):
        if isinstance(s, int):
            assert accts.link_seat(s, gid, i)
    store.append_batch([(gid, k, t, ("over" if game.is_over and k == len(game.moves) - 1 else "running"))
                        for k, t in enumerate(texts)])
    with store.engine.begin() as conn:  # the crash happened a while ago
        conn.execute(sa.update(games).where(games.c.id == gid).values(updated_at=time.time() - age))
    return gid, ranks


def rating_of(store: Store, acct: int) -> sa.Row | None:
    with store.engine.connect() as conn:
        return conn.execute(sa.select(ratings).where(ratings.c.identity == f"acct:{acct}")).first()


def ranks_stored(store: Store, gid: str) -> dict[int, int | None]:
    with store.engine.connect() as conn:
        return {r.seat: r.rank for r in conn.execute(sa.select(account_games).where(account_games.c.game_id == gid))}


def times_rated(store: Store, gid: str) -> tuple[int, int]:
    """(rated_games rows, rating_history rows) of a game."""
    with store.engine.connect() as conn:
        return (conn.execute(sa.select(sa.func.count()).select_from(rated_games)
                             .where(rated_games.c.game_id == gid)).scalar_one(),
                conn.execute(sa.select(sa.func.count()).select_from(rating_history)
                             .where(rating_history.c.game_id == gid)).scalar_one())


def test_sweep_rates_a_game_left_unrated_once(store: Store) -> None:
    a, b = account(store), account(store)
    gid, ranks = left_unrated(store, [a, b])
    assert ranks_stored(store, gid) == {0: None, 1: None} and times_rated(store, gid) == (0, 0)
    rate_unrated(store, grace=GRACE, limit=1000)
    assert ranks_stored(store, gid) == {0: ranks[0], 1: ranks[1]}
    assert times_rated(store, gid) == (1, 2)
    ra, rb = rating_of(store, a), rating_of(store, b)
    assert ra is not None and rb is not None and ra.games == rb.games == 1
    winner, loser = (ra, rb) if ranks[0] < ranks[1] else (rb, ra)
    assert winner.mu > 25 > loser.mu
    # exactly once: the sweep does not find it again, and a late rating by the process that ended it
    # (or any second try) changes nothing
    assert gid not in AccountStore(store.engine).unrated_games(time.time(), 1000)
    assert gid not in rate_unrated(store, grace=GRACE, limit=1000)[0]
    assert rate_stored(store, gid) is False
    assert rating_of(store, a) == ra and times_rated(store, gid) == (1, 2)


def test_a_resigned_seat_is_ranked_last_by_the_sweep_too(store: Store) -> None:
    a, b = account(store), account(store)
    gid, ranks = left_unrated(store, [a, b], resigned=frozenset({0}), age=0)
    # whoever the engine ranks first, seat 0 resigned: it is rated as the loser
    assert rate_stored(store, gid) is True
    ra, rb = rating_of(store, a), rating_of(store, b)
    assert ra is not None and rb is not None
    assert ra.mu < 25 < rb.mu, ranks


def test_what_the_sweep_leaves_alone(store: Store) -> None:
    a, b, c = account(store), account(store), account(store)
    recent, _ = left_unrated(store, [a, b], age=0)  # may still be being rated by the process that ended it
    playing, _ = left_unrated(store, [a, b], moves=10)  # not over
    with_guest, _ = left_unrated(store, [c, None])  # one rated seat: finished, never rated
    found = AccountStore(store.engine).unrated_games(time.time() - GRACE, 1000)
    assert recent not in found and playing not in found
    rate_unrated(store, grace=GRACE, limit=1000)
    assert times_rated(store, recent) == (0, 0) and times_rated(store, with_guest) == (0, 0)
    assert set(ranks_stored(store, with_guest).values()) != {None}  # finished: its rank is on the profile
    assert rating_of(store, c) is None
    found = AccountStore(store.engine).unrated_games(time.time(), 1000)
    assert with_guest not in found and recent in found and playing not in found


def test_a_game_that_cannot_be_rebuilt_is_logged_and_skipped(store: Store, caplog: pytest.LogCaptureFixture) -> None:
    a, b = account(store), account(store)
    bad, _ = left_unrated(store, [a, b], moves=10)
    with store.engine.begin() as conn:  # stored as over, but its moves do not end the game
        conn.execute(sa.update(games).where(games.c.id == bad).values(status="over"))
    good, _ = left_unrated(store, [a, b], seed=9)
    skip: set[str] = set()
    done, _ = rate_unrated(store, grace=GRACE, limit=1000, skip=skip)
    assert bad in skip and bad not in done and times_rated(store, good) == (1, 2)
    assert f"game {bad}: rating it after a crash failed" in caplog.text
    assert bad not in AccountStore(store.engine).unrated_games(time.time(), 1000, skip)


def test_a_restarted_server_rates_what_the_crash_left(tmp_path: Path) -> None:
    url = database_url(tmp_path)
    store = Store(url)
    try:
        a, b = account(store), account(store)
        gid, _ = left_unrated(store, [a, b], age=120)  # past the servers grace (60 s), within the tests (300 s)
        server = Server(url, tmp_path / "server.log").start()
        try:
            deadline = waits.deadline(60)
            while times_rated(store, gid) != (1, 2):
                assert time.monotonic() < deadline, server.log()[-3000:]
                time.sleep(0.1)
        finally:
            server.stop()
        if not os.environ.get(PG_ENV):  # on the shared PostgreSQL another test's server may have been first
            assert f"game {gid} rated (it had ended without its rating" in server.log()
        # and again: a second restart rates nothing twice
        again = Server(url, tmp_path / "again.log").start()
        again.stop()
        assert times_rated(store, gid) == (1, 2) and rating_of(store, a).games == 1  # type: ignore[union-attr]
        assert f"game {gid} rated" not in again.log()
    finally:
        store.close()


RACER = """
import sys, time
from pathlib import Path
from tracklayer.server.accounts import rate_stored
from tracklayer.server.db import Store
store = Store(sys.argv[1])
ids, ready, go = sys.argv[2].split(","), Path(sys.argv[3]), Path(sys.argv[4])
ready.touch()
while not go.exists():
    time.sleep(0.01)
print(",".join(g for g in ids if rate_stored(store, g)))
"""


@pg
def test_two_processes_rating_the_same_games_at_once_rate_each_once(tmp_path: Path) -> None:
    url = os.environ[PG_ENV]
    store = Store(url)
    try:
        players = [account(store) for _ in range(3)]
        gids = [left_unrated(store, [players[k % 3], players[(k + 1) % 3], "random"], seed=k, age=0)[0]
                for k in range(8)]  # age 0: no other test's sweep takes them
        go = tmp_path / "go"
        procs = []
        for name in ("a", "b"):  # both try every game, in the same order, released together
            procs.append(subprocess.Popen([sys.executable, "-c", RACER, url, ",".join(gids), str(tmp_path / name),
                                           str(go)], cwd=ROOT, stdout=subprocess.PIPE, text=True,
                                          env={**os.environ, "PYTHONPATH": str(ROOT)}))
        deadline = waits.deadline(60)
        while not ((tmp_path / "a").exists() and (tmp_path / "b").exists()):
            assert time.monotonic() < deadline and all(p.poll() is None for p in procs)
            time.sleep(0.05)
        go.touch()
        outs = [p.communicate(timeout=waits.scaled(120))[0].strip() for p in procs]
        assert [p.returncode for p in procs] == [0, 0]
        won = [set(filter(None, o.splitlines()[-1].split(","))) if o else set() for o in outs]
        assert won[0] | won[1] == set(gids) and not won[0] & won[1]
        for gid in gids:
            assert times_rated(store, gid) == (1, 3)
        with store.engine.connect() as conn:
            played = conn.execute(sa.select(ratings.c.games).where(
                ratings.c.identity.in_([f"acct:{p}" for p in players]))).scalars().all()
        assert sorted(played) == [5, 5, 6]  # 8 games of 2 of the 3 players each: 16 seats
    finally:
        store.close()


@pg
def test_two_servers_starting_at_once_rate_each_game_once(tmp_path: Path) -> None:
    url = os.environ[PG_ENV]
    store = Store(url)
    try:
        a, b = account(store), account(store)
        # 120 s ago: past the servers' grace (60 s), within the other tests' (300 s)
        gids = [left_unrated(store, [a, b], seed=k, age=120)[0] for k in range(5)]
        servers = [Server(url, tmp_path / f"{n}.log") for n in ("a", "b")]
        try:
            starting = [threading.Thread(target=s.start) for s in servers]  # at the same time
            for t in starting:
                t.start()
            for t in starting:
                t.join()
            deadline = waits.deadline(60)
            while any(times_rated(store, g) != (1, 2) for g in gids):
                assert time.monotonic() < deadline
                time.sleep(0.1)
        finally:
            for s in servers:
                s.stop()
        logs = [s.log() for s in servers]
        for gid in gids:  # (or none of them: another test's server, on the shared database, was first)
            assert sum(f"game {gid} rated" in log for log in logs) <= 1
        assert rating_of(store, a).games == rating_of(store, b).games == 5  # type: ignore[union-attr]
    finally:
        store.close()


@pg
def test_a_server_killed_while_rating_leaves_the_game_to_the_next_one(tmp_path: Path) -> None:
    """A real crash at the right point: the test holds the account's ratings row (``FOR UPDATE``), so the
    server's rating transaction of the game it just ended waits there; then the server is killed with
    ``kill -9``, which aborts that transaction. The game is stored as over and is not rated; the next
    server rates it, once."""
    url = os.environ[PG_ENV]
    store = Store(url)
    server = Server(url, tmp_path / "a.log", rate=0).start()
    holder = store.engine.connect()
    try:
        headers = {"X-Forwarded-For": f"2001:db8::{secrets.token_hex(2)}:{secrets.token_hex(2)}"}  # a label only
        user = f"kim_{secrets.token_hex(4)}"
        with httpx.Client(base_url=server.base, headers=headers, timeout=waits.scaled(30)) as http:
            r = http.post("/api/register", json={"username": user, "password": "correct horse battery"})
            assert r.status_code == 201, r.text
            created = http.post("/api/games", headers={"X-CSRF-Token": r.json()["csrf"]}, json={
                "game": "ttr-new-york", "seats": [{"kind": "human", "name": "Kim"}, {"kind": "bot", "bot": "random"}]})
            assert created.status_code == 201, created.text
        gid, token = created.json()["id"], created.json()["seats"][0]["token"]
        acct = AccountStore(store.engine).find_account(user).id
        with store.engine.begin() as conn:  # Kim has a rating already: the row the test will hold
            conn.execute(sa.insert(ratings).values(family="ttr", identity=f"acct:{acct}", kind="human", name=user,
                                                   account_id=acct, mu=25.0, sigma=25 / 3, games=0,
                                                   updated_at=time.time()))
        pid = holder.exec_driver_sql("SELECT pg_backend_pid()").scalar_one()
        holder.execute(sa.select(ratings).where(ratings.c.identity == f"acct:{acct}").with_for_update())
        kim = server.client(gid, token)
        rng = random.Random(3)
        try:
            while True:
                state = kim.my_turn(timeout=60)
                if state["over"]:
                    break
                claims = [m for m in state["legal"] if m.startswith("claim")]
                kim.move(rng.choice(claims or state["legal"]), state["moves"])
        finally:
            kim.close()
        deadline = waits.deadline(60)  # the server's rating transaction waits for the row the test holds
        while not holder.exec_driver_sql("SELECT count(*) FROM pg_stat_activity WHERE %s = ANY(pg_blocking_pids(pid))",
                                         (pid,)).scalar_one():
            assert time.monotonic() < deadline, server.log()[-3000:]
            time.sleep(0.1)
        server.kill9()
        holder.rollback()
        with store.engine.connect() as conn:
            assert conn.execute(sa.select(games.c.status).where(games.c.id == gid)).scalar_one() == "over"
        assert times_rated(store, gid) == (0, 0) and ranks_stored(store, gid) == {0: None}
        with store.engine.begin() as conn:  # two minutes pass (past the servers' grace of 60 s)
            conn.execute(sa.update(games).where(games.c.id == gid).values(updated_at=games.c.updated_at - 120))
        again = Server(url, tmp_path / "b.log").start()
        try:
            deadline = waits.deadline(60)
            while times_rated(store, gid) != (1, 2):
                assert time.monotonic() < deadline, again.log()[-3000:]
                time.sleep(0.1)
        finally:
            again.stop()
        assert rating_of(store, acct).games == 1  # type: ignore[union-attr]
        assert ranks_stored(store, gid)[0] in (1, 2)
    finally:
        holder.close()
        server.stop()
        store.close()
