"""Several server processes, one set of games (PostgreSQL): moves reach every process in order, each
game's bots run in exactly one process, a killed process's games and clients carry on elsewhere.

Real processes and a real PostgreSQL (``TRACKLAYER_TEST_DATABASE_URL``, set by ``.ci/run``); the
failure test also runs the nginx of ``docs/deploy/nginx.conf``. No timing assertions: waits are
bounded by generous timeouts only.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import WebSocketException

import tracklayer
from tests import waits
from tests.server.helpers import PG_ENV, ROOT, Client, Server, free_port
from tracklayer.server.db import Store

pg = pytest.mark.skipif(not os.environ.get(PG_ENV),
                        reason=f"several server processes need PostgreSQL: set {PG_ENV} (.ci/run does)")


def _server(tmp: Path, name: str, bot_delay: float = 0.0, extra: tuple[str, ...] = ()) -> Server:
    return Server(os.environ[PG_ENV], tmp / f"{name}.log", bot_delay=bot_delay, rate=0,
                  extra=("--log-level", "debug", *extra))


@contextlib.contextmanager
def _processes(tmp: Path, n: int = 2, bot_delay: float = 0.0) -> Iterator[list[Server]]:
    servers = [_server(tmp, "abcd"[k], bot_delay) for k in range(n)]
    try:
        for s in servers:
            s.start()
        yield servers
    finally:
        for s in servers:
            s.stop()


def _stored(gid: str) -> list[tuple[int, str]]:
    store = Store(os.environ[PG_ENV])
    try:
        return store.load_moves_since(gid, 0)
    finally:
        store.close()


def _bot_moves(log: str, gid: str) -> set[int]:
    """Indices of ``gid``'s bot moves this process stored (its DEBUG log)."""
    return {int(m) for m in re.findall(rf"game {re.escape(gid)}: move (\d+) by bot seat", log)}


def _await_leases(server: Server, games: list[dict[str, Any]]) -> None:
    """Wait until ``server`` owns these games (it created them; its lease is a query away)."""
    deadline = waits.deadline(20)
    while not all(f"game {g['id']}: lease taken" in server.log() for g in games):
        assert time.monotonic() < deadline, "the creating process did not take its games' leases"
        time.sleep(0.05)


def _log_of(client: Client) -> list[Any]:
    """The whole log as a client holds it: rebuilt from every state it received, as game.js does."""
    log: list[Any] = []
    for msg in client.messages:
        if msg.get("type") == "state":
            log = log[:msg["log_from"]] + msg["view"]["log"] if msg["log_from"] else msg["view"]["log"]
    return log


@pg
def test_moves_reach_every_process_in_order(tmp_path: Path) -> None:
    with _processes(tmp_path) as (a, b):
        out = a.create("ttr-new-york", [{"name": "Ann"}, {"name": "Bob"}], first_player=0)
        gid = out["id"]
        seats = [a.client(gid, out["seats"][0]["token"]), b.client(gid, out["seats"][1]["token"])]
        spectators = [a.client(gid, out["spectator"]["token"]), b.client(gid, out["spectator"]["token"])]
        rng = random.Random(16)
        acked: list[str] = []
        try:
            for c in (*seats, *spectators):
                c.wait_state()
            while len(acked) < 60:
                n = len(acked)
                # every seat, on either process, sees move n - 1 before anyone plays move n
                states = [c.wait_state(lambda s, n=n: s["moves"] == n, timeout=10) for c in seats]
                if states[0]["over"]:
                    break
                mover = next(c for c, s in zip(seats, states, strict=True) if s.get("legal"))
                legal = mover.state["legal"]
                ack = mover.move(rng.choice(legal), n)
                assert ack["type"] == "ack" and ack["index"] == n, ack
                acked.append(ack["move"])
            for c in (*seats, *spectators):  # the last move too, wherever it was made
                c.wait_state(lambda s: s["moves"] == len(acked), timeout=10)
            assert [t for _, t in _stored(gid)] == acked
            replay = tracklayer.load_game({**Store(os.environ[PG_ENV]).load_game(gid).setup, "moves": acked})
            for c in spectators:  # each spectator saw the moves one state at a time, in order
                counts = [m["moves"] for m in c.messages if m.get("type") == "state"]
                assert counts == sorted(counts) and counts[-1] == len(acked)
                assert _log_of(c) == json.loads(json.dumps(replay.view(None)["log"]))
            for k, c in enumerate(seats):
                assert c.state["view"]["route_owner"] == json.loads(json.dumps(replay.view(k)["route_owner"]))
            assert "from another process" in b.log() and "from another process" in a.log()
        finally:
            for c in (*seats, *spectators):
                c.close()


@pg
def test_each_games_bots_run_in_one_process(tmp_path: Path) -> None:
    with _processes(tmp_path, bot_delay=0.01) as (a, b):
        bots = a.create("ttr-new-york", [{"kind": "bot"}, {"kind": "bot"}, {"kind": "bot"}])
        mixed = a.create("ttr-new-york", [{"name": "Ann"}, {"kind": "bot"}], first_player=0)
        _await_leases(a, [bots, mixed])
        # both processes hold both games in memory (a spectator on each): both could run the bots
        watchers = [s.client(g["id"], g["spectator"]["token"]) for g in (bots, mixed) for s in (a, b)]
        human = b.client(mixed["id"], mixed["seats"][0]["token"])  # the human plays on the other process
        rng = random.Random(7)
        try:
            for _ in range(25):
                st = human.my_turn(timeout=20)
                if st["over"]:
                    break
                ack = human.move(rng.choice(st["legal"]), st["moves"])
                # a bot may have moved meanwhile (the initial ticket choices are made in any order)
                assert ack["type"] == "ack" or ack["code"] == "stale", ack
                if ack["type"] == "error":
                    human.wait_state(lambda s, n=ack["moves"]: s["moves"] >= n)
            over = watchers[0].wait_state(lambda s: s["over"], timeout=120)
            watchers[1].wait_state(lambda s: s["moves"] == over["moves"], timeout=10)
            logs = a.log(), b.log()
            for g in (bots, mixed):
                stored = _stored(g["id"])
                bot_seats = {i for i, s in enumerate(g["seats"]) if s["kind"] == "bot"}
                # each process logs the bot moves it stored (DEBUG): had both run the bots, each would
                # have won some of the races for the index
                per_process = [_bot_moves(log, g["id"]) for log in logs]
                assert per_process[0] and not per_process[1], "both processes moved for this game's bots"
                assert ("lease taken" in logs[0]) and f"game {g['id']}: lease taken" not in logs[1]
                n_bot = sum(1 for i, _ in stored if i in per_process[0])
                assert n_bot == len(per_process[0]) and bot_seats
        finally:
            human.close()
            for c in watchers:
                c.close()


def _refused(args: list[str], tmp: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRACKLAYER_")}
    return subprocess.run([sys.executable, "-m", "tracklayer.cli", "serve", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=waits.scaled(60))


def test_several_processes_on_sqlite_are_refused(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'one.sqlite3'}"
    r = _refused(["--workers", "2", "--database-url", url, "--port", str(free_port())], tmp_path)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "PostgreSQL" in r.stderr, r.stderr
    first = Server(url, tmp_path / "first.log").start()
    try:
        r = _refused(["--database-url", url, "--port", str(free_port())], tmp_path)
        assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
        assert "another tracklayer server" in r.stderr and "one server process" in r.stderr
    finally:
        first.stop()


NGINX = shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if Path(p).exists()), None)


@contextlib.contextmanager
def _nginx(tmp: Path, ports: list[int]) -> Iterator[int]:
    """nginx with ``docs/deploy/nginx.conf`` in front of ``ports`` (only its ports changed); yields its port."""
    assert NGINX is not None
    conf = (ROOT / "docs" / "deploy" / "nginx.conf").read_text()
    upstreams = "".join(f"    server 127.0.0.1:{p} max_fails=1 fail_timeout=5s;\n" for p in ports)
    conf, n = re.subn(r"(    server 127\.0\.0\.1:\d+[^\n]*\n)+", upstreams, conf)
    assert n == 1, "docs/deploy/nginx.conf: the upstream's server lines moved"
    port = free_port()
    conf = conf.replace("listen 80;", f"listen 127.0.0.1:{port};")
    main = tmp / "nginx.conf"
    main.write_text(f"worker_processes 1;\npid {tmp}/nginx.pid;\nerror_log {tmp}/nginx-error.log;\n"
                    f"events {{ worker_connections 1024; }}\nhttp {{\naccess_log off;\n{conf}\n}}\n")
    proc = subprocess.Popen([NGINX, "-p", str(tmp), "-e", str(tmp / "nginx-error.log"), "-c", str(main),
                             "-g", "daemon off;"], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    try:
        deadline = waits.deadline(20)
        while True:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=waits.scaled(2)).status_code == 200:
                    break
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"nginx did not start: {(tmp / 'nginx-error.log').read_text(errors='replace')}")
            time.sleep(0.1)
        yield port
    finally:
        proc.terminate()
        proc.wait(waits.scaled(10))


async def _seat(url: str, token: str, acked: dict[int, str], seen: list[int], stop: asyncio.Event,
                reconnects: list[int]) -> None:
    """A player through the proxy: random legal moves; on a dropped connection, reconnect and go on
    (as game.js does)."""
    rng = random.Random(token)
    while not stop.is_set():
        try:
            async with connect(url, open_timeout=waits.scaled(10), max_size=2**22) as ws:
                await ws.send(json.dumps({"type": "hello", "token": token}))
                while not stop.is_set():
                    try:
                        msg = json.loads(await asyncio.wait_for(ws.recv(), 0.5))
                    except TimeoutError:
                        continue
                    if msg["type"] == "ack":
                        assert acked.setdefault(msg["index"], msg["move"]) == msg["move"], "one index acked twice"
                    elif msg["type"] == "state":
                        seen[0] = max(seen[0], msg["moves"])
                        if msg["over"]:
                            seen[1] = 1
                            return
                        if msg.get("legal"):
                            await ws.send(json.dumps({"type": "move", "move": rng.choice(msg["legal"]),
                                                      "expect": msg["moves"]}))
        except (OSError, WebSocketException):
            reconnects[0] += 1
            await asyncio.sleep(0.2)


@pg
@pytest.mark.skipif(NGINX is None, reason="needs nginx (Debian: apt-get install nginx; .ci/run installs it)")
def test_kill_9_of_one_process_under_load(tmp_path: Path) -> None:
    """Players and bots play through nginx on two processes; one is killed; its clients reconnect to
    the other, its games' bots are taken over, and the stored logs are exactly the acknowledged moves."""
    with _processes(tmp_path, bot_delay=0.01) as (a, b), _nginx(tmp_path, [a.port, b.port]) as port:
        # created on A: A holds every game's lease, so the kill also tests the takeover of its bots
        games = [a.create("ttr-new-york", [{"name": "Ann"}, {"name": "Bob"}, {"kind": "bot"}]) for _ in range(4)]
        _await_leases(a, games)
        acked: dict[str, dict[int, str]] = {g["id"]: {} for g in games}
        seen = {g["id"]: [0, 0] for g in games}
        reconnects = [0]
        at_kill: dict[str, int] = {}

        async def scenario() -> None:
            stop = asyncio.Event()
            tasks = [asyncio.create_task(_seat(f"ws://127.0.0.1:{port}/ws/{g['id']}", s["token"], acked[g["id"]],
                                               seen[g["id"]], stop, reconnects))
                     for g in games for s in g["seats"] if s["kind"] == "human"]

            async def until(pred: Any, what: str) -> None:
                deadline = waits.deadline(120)
                while not pred():
                    assert time.monotonic() < deadline, f"timed out waiting for {what}: {seen}"
                    assert not any(t.done() and t.exception() for t in tasks), [t.exception() for t in tasks]
                    await asyncio.sleep(0.1)

            await until(lambda: all(s[0] >= 10 for s in seen.values()), "10 moves in every game")
            # (counted before the kill: B cannot have moved for a bot yet)
            at_kill.update({gid: len(await asyncio.to_thread(_stored, gid)) for gid in seen})
            await asyncio.to_thread(a.kill9)  # mid-game, moves in flight: no shutdown, no flush
            await until(lambda: all(s[1] or s[0] >= at_kill[gid] + 15 for gid, s in seen.items()),
                        "15 more moves in every game (or its end)")
            stop.set()
            await asyncio.gather(*tasks)

        asyncio.run(scenario())
        assert reconnects[0] > 0  # A's clients did lose their connection
        taken_over = 0
        for g in games:
            gid = g["id"]
            stored = _stored(gid)
            assert [i for i, _ in stored] == list(range(len(stored)))  # no gap, no duplicate
            texts = [t for _, t in stored]
            assert all(texts[i] == t for i, t in acked[gid].items())  # every acknowledged move is there
            assert len(stored) > at_kill[gid]  # the game went on after the kill
            tracklayer.load_game({**Store(os.environ[PG_ENV]).load_game(gid).setup, "moves": texts})  # one line of play
            by_a, by_b = _bot_moves(a.log(), gid), _bot_moves(b.log(), gid)
            # B moves the bot from the kill on, never a move A made; a game that ended before the bot's next
            # turn (New York is short) leaves B nothing to move
            assert by_b or seen[gid][1], (by_a, by_b, seen[gid])
            assert not by_b or (min(by_b) >= at_kill[gid] and (not by_a or max(by_a) < min(by_b))), (by_a, by_b)
            taken_over += bool(by_b)
            assert f"game {gid}: lease taken" in b.log()
            spectator = Client(f"ws://127.0.0.1:{port}/ws/{gid}", g["spectator"]["token"])
            try:  # a fresh client through the proxy sees the stored game
                assert spectator.wait_state()["moves"] == len(_stored(gid))
            finally:
                spectator.close()
        assert taken_over  # B did take over A's bots in the games that went on


@pg
def test_serve_workers_share_the_games(tmp_path: Path) -> None:
    """``serve --workers 2``: two processes on one port (the kernel spreads the connections); every
    connection sees every move whichever worker stored it."""
    srv = _server(tmp_path, "workers", extra=("--workers", "2")).start()
    try:
        out = srv.create("ttr-new-york", [{"name": "Ann"}, {"name": "Bob"}], first_player=0)
        gid = out["id"]
        deadline = waits.deadline(30)
        while srv.log().count("listening for moves") < 2:  # both workers are up
            assert time.monotonic() < deadline, srv.log()[-2000:]
            time.sleep(0.2)
        seats = [srv.client(gid, s["token"]) for s in out["seats"]]
        watchers = [srv.client(gid, out["spectator"]["token"]) for _ in range(6)]
        rng = random.Random(2)
        try:
            n = 0
            while n < 30:
                states = [c.wait_state(lambda s, n=n: s["moves"] == n, timeout=10) for c in seats]
                if states[0]["over"]:
                    break
                mover = next(c for c, s in zip(seats, states, strict=True) if s.get("legal"))
                assert mover.move(rng.choice(mover.state["legal"]), n)["type"] == "ack"
                n += 1
            for c in watchers:
                c.wait_state(lambda s, n=n: s["moves"] == n, timeout=10)
            pids = set(re.findall(r"Started server process \[(\d+)\]", srv.log()))
            assert len(pids) == 2, srv.log()[-2000:]
        finally:
            for c in (*seats, *watchers):
                c.close()
    finally:
        srv.stop()


def _terminate(role: str) -> int:
    """Cut this test process's ``role`` ("listen" or "lease") connection from the server side."""
    import psycopg

    from tracklayer.server.notify import libpq_url

    with psycopg.connect(libpq_url(os.environ[PG_ENV]), autocommit=True) as conn:
        rows = conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = %s",
                            [f"tracklayer {role} {os.getpid()}"]).fetchall()
    return len(rows)


async def _until(pred: Any, what: str, timeout: float = 10) -> None:
    deadline = waits.deadline(timeout)
    while not pred():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.02)


@pg
def test_fanout_fills_gaps_ignores_duplicates_and_resyncs_after_reconnecting() -> None:
    from tests.server.test_rooms import _new_game
    from tracklayer.server.cluster import attach
    from tracklayer.server.rooms import Rooms

    async def scenario() -> None:
        url = os.environ[PG_ENV]
        store, other = Store(url), Store(url)  # ``other`` stands for another server process's writer
        rooms = Rooms(store, bot_delay=0)
        cluster = attach(rooms)
        assert cluster is not None
        cluster.needs_owner = lambda room: True  # type: ignore[method-assign]  # a lease with no bot to run
        try:
            await asyncio.wait_for(cluster.fanout.connected.wait(), 10)
            room = _new_game(store, rooms)
            g = room.game.clone()
            texts = []
            for _ in range(6):
                texts.append(str(g.apply(g.legal_actions()[0])))
            # moves 0 and 1 stored without a word (their notifications lost), then 2 announced: a gap
            other.notify = False
            assert other.append_batch([(room.id, 0, texts[0], None), (room.id, 1, texts[1], None)]) == [True, True]
            other.notify = True
            other.append_move(room.id, 2, texts[2])
            await _until(lambda: len(room.game.moves) == 3, "the gap filled from the database")
            cluster.fanout._heard(json.dumps([[room.id, 1, "draw deck"], [room.id, 2, texts[2]]]))  # duplicates
            await asyncio.sleep(0.2)
            assert [str(m) for m in room.game.moves] == texts[:3]
            # the listener's connection is cut; a move is stored while it is down: the resync after
            # its reconnection brings it in (or its notification does, if it was back already)
            assert _terminate("listen") == 1
            await _until(lambda: not cluster.fanout.connected.is_set(), "the listener noticing")
            other.append_move(room.id, 3, texts[3])
            await _until(lambda: len(room.game.moves) == 4, "the move stored while the listener was down")
            assert cluster.fanout.connected.is_set()
            # the lease connection is cut: the game is given up, then taken again
            await _until(lambda: cluster.owns(room.id), "the lease")
            assert _terminate("lease") == 1
            await _until(lambda: not cluster.owns(room.id), "the lease given up")
            await _until(lambda: cluster.owns(room.id), "the lease taken again")
            other.append_move(room.id, 4, texts[4])
            await _until(lambda: len(room.game.moves) == 5, "moves after the reconnections")
            assert [str(m) for m in room.game.moves] == texts[:5]
        finally:
            await cluster.close()
            await rooms.close()
            store.close()
            other.close()

    asyncio.run(scenario())


@pg
def test_lease_passes_to_another_process_when_its_holder_unloads_the_game() -> None:
    """Two clusters in one test process stand for two server processes: the one that loaded the game
    first owns it; when it unloads the game (idle), the other takes it over."""
    from tests.server.test_rooms import _new_game
    from tracklayer.server.cluster import attach
    from tracklayer.server.rooms import Rooms

    async def scenario() -> None:
        url = os.environ[PG_ENV]
        stores = [Store(url), Store(url)]
        first, second = (Rooms(s, bot_delay=0, idle_seconds=3600) for s in stores)
        clusters = [attach(first), attach(second)]
        for c in clusters:
            c.needs_owner = lambda room: True  # type: ignore[method-assign]  # a lease with no bot to run
        try:
            room = _new_game(stores[0], first)
            await _until(lambda: clusters[0].owns(room.id), "the first process's lease")
            other = await second.get(room.id)
            assert other is not None
            await asyncio.sleep(1.5)  # more than a retry period: the second still does not own it
            assert not clusters[1].owns(room.id)
            assert first.evict(now=waits.deadline(7200)) == [room.id]  # idle: unloaded, released
            await _until(lambda: clusters[1].owns(room.id), "the takeover")
            assert not clusters[0].owns(room.id)
        finally:
            for c in clusters:
                await c.close()
            for r in (first, second):
                await r.close()
            for s in stores:
                s.close()

    asyncio.run(scenario())
