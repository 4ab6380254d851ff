"""Rooms in memory: idle games are unloaded and rebuilt from the database on next use."""

from __future__ import annotations

import ast
import asyncio
import secrets
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import tracklayer
from tests import waits
from tests.server.helpers import database_url, running
from tracklayer.server.db import GameRecord, MoveConflict, Store
from tracklayer.server.room import Access, Connection
from tracklayer.server.rooms import Committer, Rooms


def _new_game(store: Store, rooms: Rooms) -> Any:
    names = ["Ann", "Bob"]
    game = tracklayer.new_game("ttr-new-york", names, seed=secrets.randbits(40), first_player=0)
    rec = GameRecord(id=secrets.token_urlsafe(8), game="ttr-new-york", variant=None, setup=game.setup(),
                     seats=[{"name": n, "kind": "human", "token": secrets.token_urlsafe(12)} for n in names],
                     spectator_token=secrets.token_urlsafe(12), table_token=None)
    store.create_game(rec)
    return rooms.add(rec, game)


async def _play(rooms: Rooms, room: Any, n: int) -> None:
    for _ in range(n):
        g = room.game
        await rooms.play(room, {g.current_player}, str(g.legal_actions()[-1]), len(g.moves))


def test_idle_rooms_are_unloaded_and_rebuilt_the_same(tmp_path: Path) -> None:
    async def scenario() -> None:
        store = Store(database_url(tmp_path))
        rooms = Rooms(store, bot_delay=0, idle_seconds=60, max_rooms=2)
        try:
            a, b, c = (_new_game(store, rooms) for _ in range(3))
            await _play(rooms, a, 4)
            await _play(rooms, b, 2)
            views = {r.id: (r.game.view(0), r.game.view(1), [str(m) for m in r.game.moves]) for r in (a, b, c)}
            now = time.monotonic()
            a.last_used, b.last_used, c.last_used = now - 3, now - 1, now - 2
            watcher = Connection(None, Access("spectator", frozenset()), 0, 1)
            b.connections.add(watcher)
            assert rooms.evict(now) == [a.id]  # 3 rooms, 2 allowed: the least recently used goes
            assert set(rooms.rooms) == {b.id, c.id}
            assert rooms.evict(now) == []  # within the cap and nothing idle for 60 s
            assert rooms.evict(now + 61) == [c.id]  # b has a connection: it stays however idle
            b.connections.clear()
            assert rooms.evict(now + 61) == [b.id] and not rooms.rooms
            for gid, (v0, v1, moves) in views.items():
                again = await rooms.get(gid)
                assert again is not None and again is not {a.id: a, b.id: b, c.id: c}[gid]
                assert [str(m) for m in again.game.moves] == moves  # replayed from the database
                assert again.game.view(0) == v0 and again.game.view(1) == v1
            again = await rooms.get(a.id)
            assert again is rooms.rooms[a.id]  # loaded once, then served from memory
            await _play(rooms, again, 2)  # play goes on where it stopped
            assert len(store.load_moves(a.id)) == 6
        finally:
            await rooms.close()

    asyncio.run(scenario())


def test_unknown_game_ids_leave_nothing_behind(tmp_path: Path) -> None:
    """Forged or stale links ask for games that do not exist: each is answered None and keeps no state."""

    async def scenario() -> None:
        rooms = Rooms(Store(database_url(tmp_path)), bot_delay=0)
        try:
            for _ in range(3):
                assert await rooms.get(secrets.token_urlsafe(8)) is None
            assert not rooms.rooms and not rooms._loading
        finally:
            await rooms.close()

    asyncio.run(scenario())


def test_server_unloads_an_idle_game_and_reopens_it(tmp_path: Path) -> None:
    with running(database_url(tmp_path), tmp_path / "server.log", idle_timeout=0.3) as srv:
        out = srv.create("ttr-new-york", [{"name": "Ann"}, {"name": "Bob"}], first_player=0)
        gid = out["id"]
        ann = srv.client(gid, out["seats"][0]["token"])
        try:
            s = ann.my_turn()
            assert ann.move(s["legal"][0])["type"] == "ack"
            ann.wait_state(lambda st: st["moves"] == 1)
        finally:
            ann.close()
        deadline = waits.deadline(20)
        while f"game {gid} unloaded" not in srv.log():
            assert time.monotonic() < deadline, "the idle game was never unloaded"
            time.sleep(0.1)
        bob = srv.client(gid, out["seats"][1]["token"])
        try:
            s = bob.my_turn()
            assert s["moves"] == 1 and s["view"]["log"][0]["player"] == 0
            assert bob.move(s["legal"][0])["type"] == "ack"
        finally:
            bob.close()
        assert srv.log().count(f"game {gid} loaded (1 moves)") == 1


class _GatedStore:
    """A store whose first batch waits for a gate, so the moves sent meanwhile queue up behind it."""

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.entered = threading.Event()
        self.batches: list[list[tuple[str, int, str, str | None]]] = []
        self.fail: Exception | None = None

    def append_batch(self, items: list[tuple[str, int, str, str | None]]) -> list[bool]:
        self.entered.set()
        self.gate.wait(waits.scaled(10))
        self.batches.append(list(items))
        if self.fail is not None:
            raise self.fail
        return [item[0] != "taken" for item in items]


def test_group_commit_batches_waiting_moves_and_answers_each_after_its_commit() -> None:
    async def scenario() -> None:
        store = _GatedStore()
        committer = Committer(store, max_batch=8)  # type: ignore[arg-type]
        try:
            first = asyncio.ensure_future(committer.append("a", 0, "keep all", "running"))
            await asyncio.to_thread(store.entered.wait, 10)  # the writer holds the first batch open
            waiting = [asyncio.ensure_future(committer.append(g, 3, "draw deck", None)) for g in ("b", "taken", "c")]
            await asyncio.sleep(0.05)
            assert not first.done() and not any(w.done() for w in waiting)  # nothing answered before its commit
            store.gate.set()
            await first
            assert await waiting[0] is None and await waiting[2] is None
            with pytest.raises(MoveConflict):
                await waiting[1]  # only the move whose index was taken hears about it
            assert [[i[0] for i in b] for b in store.batches] == [["a"], ["b", "taken", "c"]]  # one commit for three
            store.fail = RuntimeError("disk full")
            failing = [asyncio.ensure_future(committer.append(g, 4, "draw deck", None)) for g in ("b", "c")]
            for f in failing:
                with pytest.raises(RuntimeError, match="disk full"):
                    await f
        finally:
            committer.close()

    asyncio.run(scenario())


def test_a_stand_in_never_draws_tickets_its_player_did_not_ask_for(tmp_path: Path) -> None:
    """A stand-in (a bot in a person's seat) plays every legal move but drawing destination tickets; a
    bot seat of the same bot draws them too."""
    from tracklayer.server.botpool import make_seat_bot

    async def scenario() -> None:
        store = Store(database_url(tmp_path))
        rooms = Rooms(store, bot_delay=0, idle_seconds=60, max_rooms=4)
        try:
            room = _new_game(store, rooms)
            g = room.game
            while g.state.phase != "main":  # the starting ticket choices
                await rooms.play(room, {g.current_player}, str(g.legal_actions()[-1]), len(g.moves))
                g = room.game
            seat = g.current_player
            assert any(a.kind == "tickets" for a in g.legal_actions())
            room.bots[seat] = make_seat_bot("random")
            kinds = {(await rooms._bot_action(room, seat, g.clone())).kind for _ in range(300)}
            assert "tickets" not in kinds and "draw" in kinds  # the person's seat: a stand-in
            room.record.seats[seat]["kind"] = "bot"
            kinds = {(await rooms._bot_action(room, seat, g.clone())).kind for _ in range(300)}
            assert "tickets" in kinds  # a bot's own seat: every legal move
        finally:
            await rooms.close()

    asyncio.run(scenario())


def test_every_game_a_room_holds_keeps_its_reveals_for_undo(tmp_path: Path) -> None:
    """Undo needs what each move revealed, which the engine keeps only when asked: a room asks for every
    game it is given (at its start and through ``Room.set_game``), and nothing in the server gives a room a
    game another way."""
    store = Store(database_url(tmp_path))
    room = _new_game(store, Rooms(store, bot_delay=0))
    assert room.game.revealed is not None
    later = tracklayer.load_game({**room.record.setup, "moves": []})
    assert later.revealed is None
    room.set_game(later)
    assert room.game is later and later.revealed is not None
    server = Path(tracklayer.__file__).parent / "server"
    direct = []
    for path in sorted(server.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name == "set_game":
                node.body = []  # the one place that assigns it
        for node in ast.walk(tree):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
                node, ast.AnnAssign | ast.AugAssign) else []
            direct += [f"{path.relative_to(server)}:{node.lineno}" for t in targets
                       if isinstance(t, ast.Attribute) and t.attr == "game"]
    assert direct == [], f"a room's game assigned without Room.set_game: {direct}"
