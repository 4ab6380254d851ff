"""Bots think in worker processes, within a time cap, and the server limits game creation per address."""

from __future__ import annotations

import asyncio
import os
import secrets
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

import tracklayer
from tests import waits
from tests.server.helpers import database_url, running
from tracklayer.bots import make_bot
from tracklayer.server.botpool import GRACE, BotPool
from tracklayer.server.db import GameRecord, Store
from tracklayer.server.limits import CreationLimits, Refused
from tracklayer.server.rooms import Rooms


class _Sleepy:
    def choose(self, view: dict[str, Any], legal: Any, budget: Any = None) -> Any:
        time.sleep(120)
        return legal[0]


class _Hold:
    def choose(self, view: dict[str, Any], legal: Any, budget: Any = None) -> Any:
        time.sleep(3)  # keeps the only worker busy while the test queues requests behind it
        return legal[0]


class _Crash:
    def choose(self, view: dict[str, Any], legal: Any, budget: Any = None) -> Any:
        os._exit(3)


def test_factory(name: str, seed: int) -> Any:
    """Built in the workers (by reference): the registry's bots plus two that misbehave."""
    special = {"sleepy": _Sleepy, "crash": _Crash, "hold": _Hold}
    return special[name]() if name in special else make_bot(name, seed)


test_factory.__test__ = False  # type: ignore[attr-defined]  # not a test, pytest


def _position(game: str = "ttr-europe", players: int = 3, moves: int = 40, bot: str = "random", seed: int = 11) -> Any:
    g = tracklayer.new_game(game, [f"p{i}" for i in range(players)], seed=seed)
    bots = [make_bot(bot, i + 1) for i in range(players)]
    for _ in range(moves):
        seat = g.current_player
        g.apply(bots[seat].choose(g.view(seat), g.legal_actions()))
    return g


def test_pool_moves_come_from_another_process_and_match_the_bot() -> None:
    async def scenario() -> None:
        pool = BotPool(workers=1, move_seconds=60)
        try:
            # (the New York position is one where mcts searches: its time-capped budget must not change that)
            for g, name in ((_position("ttr-europe"), "planner"), (_position("trans-europa"), "greedy"),
                            (_position("ttr-new-york", 2, 11, "planner", 3), "mcts")):
                seat = g.current_player
                view, legal = g.view(seat), g.legal_actions()
                choice = await pool.choose(name, 1234, view, legal)
                assert choice.index is not None and choice.pid != os.getpid()
                # the same seed and view give the same move as the bot in this process (deterministic)
                here = make_bot(name, 1234)
                assert legal[choice.index] == here.choose(view, legal)
                if name == "mcts":
                    assert here._impl.last_stats  # type: ignore[attr-defined]  # it did search
        finally:
            pool.close()

    asyncio.run(scenario())


def test_a_bot_past_its_time_cap_gets_the_fallback_and_the_pool_recovers() -> None:
    async def scenario() -> None:
        # not niced, and the test waits for workers to start rather than counting it in the cap: on a
        # loaded machine a niced worker's first move can take seconds
        pool = BotPool(workers=1, move_seconds=10.0, nice=0, factory=test_factory)
        try:
            g = _position()
            view, legal = g.view(g.current_player), g.legal_actions()
            pool.warm()
            await pool.ready()
            first = await pool.choose("planner", 1, view, legal)
            assert first.index is not None
            slow = await pool.choose("sleepy", 1, view, legal)
            assert slow.index is None and "no answer" in slow.reason
            pool.check()
            assert pool.stats["recycled"] == 0  # given up, but maybe only queued: not stuck yet
            await asyncio.sleep(pool.move_seconds + GRACE + 0.1)
            pool.check()
            assert pool.stats["recycled"] == 1  # its only worker is stuck: a fresh pool
            await pool.ready()
            again = await pool.choose("planner", 1, view, legal)
            assert again.index == first.index and again.pid != first.pid
            crash = await pool.choose("crash", 1, view, legal)
            assert crash.index is None and pool.stats["broken"] == 1
            await pool.ready()
            after = await pool.choose("planner", 1, view, legal)
            assert after.index == first.index and after.pid not in (first.pid, again.pid)
        finally:
            pool.close()

    asyncio.run(scenario())


def test_a_person_s_bots_go_before_bot_only_games() -> None:
    async def scenario() -> None:
        pool = BotPool(workers=1, move_seconds=60, factory=test_factory)
        try:
            g = _position()
            view, legal = g.view(g.current_player), g.legal_actions()
            pool.warm()
            await pool.ready()
            order: list[str] = []

            async def ask(tag: str, name: str, urgent: bool) -> None:
                choice = await pool.choose(name, 1, view, legal, urgent)
                assert choice.index is not None
                order.append(tag)

            async def until(cond: Any) -> None:
                while not cond():
                    await asyncio.sleep(0.01)

            hold = asyncio.create_task(ask("hold", "hold", False))
            await until(lambda: pool._busy == 1)
            bot_only = asyncio.create_task(ask("bot-only", "planner", False))
            await until(lambda: len(pool._waiting) == 1)
            person = asyncio.create_task(ask("person", "planner", True))  # asks later, goes first
            await until(lambda: len(pool._waiting) == 2)
            await asyncio.gather(hold, bot_only, person)
            assert order == ["hold", "person", "bot-only"]
            assert pool._busy == 0 and not pool._waiting  # every slot given back
        finally:
            pool.close()

    asyncio.run(scenario())


def test_server_bots_move_through_the_pool(tmp_path: Path) -> None:
    """A planner thinks in the pool, a random bot in the event loop; each moves in its own turn.

    The Rooms here has no cluster (no lease), so its database is its own SQLite file: on a database
    shared with server processes (PostgreSQL in CI) their resume sweeps would load this game, a bot
    seat to move, and play its bots' turns, which this process would then only reload.
    """

    async def scenario() -> None:
        store = Store(f"sqlite:///{tmp_path / 'db.sqlite3'}")
        pool = BotPool(workers=1, move_seconds=60, factory=test_factory)
        rooms = Rooms(store, bot_delay=0, pool=pool)
        try:
            names = ["Ann", "Bot", "Slow"]
            game = tracklayer.new_game("ttr-new-york", names, seed=secrets.randbits(40), first_player=0)
            rec = GameRecord(id=secrets.token_urlsafe(8), game="ttr-new-york", variant=None, setup=game.setup(),
                             seats=[{"name": "Ann", "kind": "human", "token": secrets.token_urlsafe(12)},
                                    {"name": "Bot", "kind": "bot", "bot": "planner"},
                                    {"name": "Slow", "kind": "bot", "bot": "random"}],
                             spectator_token=secrets.token_urlsafe(12), table_token=None)
            store.create_game(rec)
            room = rooms.add(rec, game)
            await rooms.play(room, {0}, str(room.game.legal_actions()[0]), 0)
            # Ann's ticket keep, then the planner's, then the random bot's: Ann is to move again
            deadline = waits.deadline(60)
            while not (room.game.current_player == 0 and any(seat == 2 for seat, *_ in room.game.move_log)):
                assert time.monotonic() < deadline, f"the bots never moved: {room.game.move_log}"
                await asyncio.sleep(0.05)
            assert [seat for seat, *_ in room.game.move_log] == [0, 1, 2]
            assert room.bots[1].last is not None and room.bots[1].last.pid != os.getpid()
            assert rooms.bot_moves["pool"] >= 1 and rooms.bot_moves["inline"] >= 1  # random: in-process
            assert room.bots[2].inline is not None and room.bots[2].last is None
        finally:
            await rooms.close()
            store.close()

    asyncio.run(scenario())


def test_creation_limits_unit() -> None:
    now = [0.0]
    running = {"g1"}
    limits = CreationLimits(3, 1, running.__contains__, clock=lambda: now[0])
    for i in range(3):
        limits.check_rate("a")
        limits.created("a", f"h{i}", bot_only=False)
    with pytest.raises(Refused) as exc:
        limits.check_rate("a")
    assert exc.value.retry_after == 60
    limits.check_rate("b")  # per address
    now[0] = 45.0
    with pytest.raises(Refused) as exc:
        limits.check_rate("a")
    assert exc.value.retry_after == 15
    now[0] = 60.0
    limits.check_rate("a")  # the first of those three left the window
    limits.check_bot_games("a")
    limits.created("a", "g1", bot_only=True)
    with pytest.raises(Refused):
        limits.check_bot_games("a")
    running.clear()  # the bot-only game ended (or is no longer played)
    limits.check_bot_games("a")


def test_creation_limits_answer_429(tmp_path: Path) -> None:
    with running(database_url(tmp_path), tmp_path / "server.log", bot_delay=0.5,
                 extra=("--games-per-minute", "3", "--bot-games", "1", "--bot-workers", "1")) as srv:
        bots = {"game": "ttr-new-york", "seats": [{"kind": "bot"}, {"kind": "bot", "bot": "planner"}]}
        people = {"game": "ttr-new-york", "seats": [{"name": "Ann"}, {"kind": "bot"}]}
        assert httpx.post(srv.base + "/api/games", json=bots).status_code == 201
        r = httpx.post(srv.base + "/api/games", json=bots)
        assert r.status_code == 429 and int(r.headers["Retry-After"]) > 0 and "without a human" in r.json()["detail"]
        assert httpx.post(srv.base + "/api/games", json=people).status_code == 201
        assert httpx.post(srv.base + "/api/games", json=people).status_code == 201
        r = httpx.post(srv.base + "/api/games", json=people)
        assert r.status_code == 429 and 0 < int(r.headers["Retry-After"]) <= 60 and "a minute" in r.json()["detail"]
        assert httpx.get(srv.base + "/api/games").status_code == 200
