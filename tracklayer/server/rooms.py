"""Live games in memory: one room per game, its connections, its bots, and the move pipeline.

A move goes: check the expected index and the turn, apply it to a *copy* of the game with the
engine (an illegal move changes nothing), commit it to the database, only then swap the copy in,
acknowledge it and push to every connection the view of its own seat. All of that happens under
the room's lock, so moves of one game are serialised and pushed in order. Secrets stay out of logs:
a log line names the game, the move index and the seat, never the move.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import tracklayer
from tracklayer.bots import make_bot
from tracklayer.server.db import GameRecord, MoveConflict, Store

log = logging.getLogger("tracklayer.server")

MAX_MOVE_TEXT = 400


class ProtocolError(Exception):
    """A refusal sent to one client as ``{"type": "error", "code": ..., "message": ...}``."""

    def __init__(self, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.extra = extra

    def payload(self) -> dict[str, Any]:
        return {"type": "error", "code": self.code, "message": self.message, **self.extra}


@dataclass
class Access:
    """What a token grants: a seat, several seats at one screen (hot-seat), or watching."""

    role: str  # "seat" | "table" | "spectator"
    seats: frozenset[int]

    def view_seat(self, current: int | None) -> int | None:
        if self.role == "seat":
            return next(iter(self.seats))
        if self.role == "table" and current in self.seats:
            return current
        return None


class Connection:
    """One websocket client; messages go out through a queue so a slow client never blocks a room."""

    def __init__(self, ws: Any, access: Access, rate: float, burst: int) -> None:
        self.ws = ws
        self.access = access
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(maxsize=256)
        self.rate = rate
        self.burst = burst
        self.tokens = float(burst)
        self.stamp = time.monotonic()
        self.refused = 0
        self.closed = False

    def allow(self) -> bool:
        """Token bucket: ``rate`` messages a second on average, ``burst`` at once (rate 0: no limit)."""
        if self.rate <= 0:
            return True
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False

    def send(self, message: dict[str, Any]) -> None:
        if self.closed:
            return
        try:
            self.queue.put_nowait(json.dumps(message, separators=(",", ":"), ensure_ascii=False))
        except asyncio.QueueFull:  # a client that reads nothing is dropped rather than buffered forever
            self.close()

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            with contextlib.suppress(asyncio.QueueFull):
                self.queue.put_nowait(None)

    async def writer(self) -> None:
        while True:
            text = await self.queue.get()
            if text is None:
                break
            await self.ws.send_text(text)


@dataclass
class Room:
    record: GameRecord
    game: Any
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    connections: set[Connection] = field(default_factory=set)
    bots: dict[int, Any] = field(default_factory=dict)
    bot_task: asyncio.Task[None] | None = None
    broken: str | None = None

    @property
    def id(self) -> str:
        return self.record.id

    def access(self, token: str) -> Access | None:
        if not isinstance(token, str) or not token:
            return None
        rec = self.record
        for i, seat in enumerate(rec.seats):
            if seat.get("token") and secrets.compare_digest(seat["token"], token):
                return Access("seat", frozenset({i}))
        if rec.table_token and secrets.compare_digest(rec.table_token, token):
            return Access("table", frozenset(i for i, s in enumerate(rec.seats) if s["kind"] == "human"))
        if secrets.compare_digest(rec.spectator_token, token):
            return Access("spectator", frozenset())
        return None

    def seat_info(self) -> list[dict[str, Any]]:
        online: set[int] = set()
        for c in self.connections:
            if c.access.role == "seat":
                online |= c.access.seats
        table = any(c.access.role == "table" for c in self.connections)
        return [{"seat": i, "name": s["name"], "kind": s["kind"], **({"bot": s["bot"]} if s.get("bot") else {}),
                 "online": s["kind"] == "bot" or i in online or (table and s["kind"] == "human")}
                for i, s in enumerate(self.record.seats)]

    def state_message(self, access: Access) -> dict[str, Any]:
        g = self.game
        current = g.current_player
        seat = access.view_seat(current)
        msg: dict[str, Any] = {
            "type": "state", "game_id": self.id, "game": self.record.game, "role": access.role, "seat": seat,
            "controls": sorted(access.seats), "moves": len(g.moves), "over": g.is_over,
            "seats": self.seat_info(), "view": g.view(seat),
        }
        if current is not None and current in access.seats and not g.is_over:
            msg["legal"] = [str(a) for a in g.legal_actions()]
        if self.broken:
            msg["broken"] = self.broken
        return msg

    def broadcast(self) -> None:
        for c in list(self.connections):
            try:
                c.send(self.state_message(c.access))
            except Exception:  # never let one client's view break the room
                log.exception("game %s: building a view failed", self.id)


class Committer:
    """Group commit: moves of different games waiting at the same time share one transaction.

    Each caller still waits for *its* move to be committed (or refused as a conflict) before it
    acknowledges anything, so durability is unchanged; the database just fsyncs once per batch.
    """

    def __init__(self, store: Store, max_batch: int = 256) -> None:
        self.store = store
        self.max_batch = max_batch
        self.queue: asyncio.Queue[tuple[tuple[str, int, str, str | None], asyncio.Future[None]]] = asyncio.Queue()
        self.task: asyncio.Task[None] | None = None

    async def append(self, game_id: str, idx: int, text: str, status: str | None) -> None:
        loop = asyncio.get_running_loop()
        if self.task is None or self.task.done():
            self.task = loop.create_task(self._run())
        fut: asyncio.Future[None] = loop.create_future()
        await self.queue.put(((game_id, idx, text, status), fut))
        await fut

    async def _run(self) -> None:
        while True:
            batch = [await self.queue.get()]
            while not self.queue.empty() and len(batch) < self.max_batch:
                batch.append(self.queue.get_nowait())
            try:
                stored = await asyncio.to_thread(self.store.append_batch, [item for item, _ in batch])
            except Exception as exc:
                for _, fut in batch:
                    if not fut.done():
                        fut.set_exception(exc)
                continue
            for (item, fut), ok in zip(batch, stored, strict=True):
                if fut.done():
                    continue
                if ok:
                    fut.set_result(None)
                else:
                    fut.set_exception(MoveConflict(f"move {item[1]} of game {item[0]} is already stored"))

    def close(self) -> None:
        if self.task is not None:
            self.task.cancel()


def _make_bot(name: str) -> Any:
    """A bot for a seat; the random bot stands in for one that cannot be built (and says so in the log)."""
    try:
        return make_bot(name, secrets.randbits(64))
    except Exception:
        log.exception("bot %r cannot be built; the random bot plays instead", name)
        return make_bot("random", secrets.randbits(64))


def _status(game: Any) -> str:
    return "over" if game.is_over else ("running" if game.moves else "open")


class Rooms:
    """Every game in memory, loaded from the database on first use (replaying its moves)."""

    def __init__(self, store: Store, bot_delay: float = 0.4) -> None:
        self.store = store
        self.bot_delay = bot_delay
        self.rooms: dict[str, Room] = {}
        self.committer = Committer(store)
        self._loading: dict[str, asyncio.Lock] = {}

    async def get(self, game_id: str) -> Room | None:
        room = self.rooms.get(game_id)
        if room is not None:
            return room
        lock = self._loading.setdefault(game_id, asyncio.Lock())
        async with lock:
            room = self.rooms.get(game_id)
            if room is None:
                rec = await asyncio.to_thread(self.store.load_game, game_id)
                if rec is None:
                    return None
                room = await asyncio.to_thread(self._build, rec)
                self.rooms[game_id] = room
        self._loading.pop(game_id, None)
        return room

    def _build(self, rec: GameRecord) -> Room:
        broken = None
        try:
            game = tracklayer.load_game({**rec.setup, "moves": rec.moves})
        except tracklayer.TracklayerError as exc:  # the engine changed under a stored game: show it, keep the log
            log.error("game %s cannot be replayed: %s", rec.id, exc)
            game = tracklayer.load_game({**rec.setup, "moves": []})
            broken = "this game's stored moves cannot be replayed by this version of tracklayer"
        room = Room(record=rec, game=game, broken=broken)
        rec.moves = []  # the engine holds the moves from here on
        for i, s in enumerate(rec.seats):
            if s["kind"] == "bot":
                room.bots[i] = _make_bot(s.get("bot") or "bot")
        log.info("game %s loaded (%d moves)", rec.id, len(game.moves))
        return room

    def add(self, rec: GameRecord, game: Any) -> Room:
        room = Room(record=rec, game=game)
        for i, s in enumerate(rec.seats):
            if s["kind"] == "bot":
                room.bots[i] = _make_bot(s.get("bot") or "bot")
        self.rooms[rec.id] = room
        return room

    # ------------------------------------------------------------------ moves
    async def play(self, room: Room, seats: Iterable[int], text: Any, expect: Any,
                   sender: Connection | None = None) -> dict[str, Any]:
        """Validate, commit and publish one move; returns the acknowledgement or raises ProtocolError.

        ``sender`` gets the acknowledgement before anybody gets the new state.
        """
        if not isinstance(text, str) or not text.strip():
            raise ProtocolError("bad-move", "a move is a non-empty notation text, e.g. \"draw deck\"")
        if len(text) > MAX_MOVE_TEXT:
            raise ProtocolError("bad-move", f"a move text is at most {MAX_MOVE_TEXT} characters")
        if not isinstance(expect, int) or isinstance(expect, bool):
            raise ProtocolError("bad-move", "'expect' must be the index of the move you are making (an integer)")
        seats = frozenset(seats)
        async with room.lock:
            if room.broken:
                raise ProtocolError("broken", room.broken)
            g = room.game
            n = len(g.moves)
            if expect != n:
                raise ProtocolError("stale", f"move {expect} is not the next move: {n} moves have been played; "
                                             "your screen was out of date and has been refreshed", moves=n)
            if g.is_over:
                raise ProtocolError("over", "the game is over")
            current = g.current_player
            if current not in seats:
                who = room.record.seats[current]["name"] if current is not None else "nobody"
                raise ProtocolError("turn", f"it is not your turn: {who} is to move")
            candidate = g.clone()
            try:
                action = candidate.apply(text)
            except tracklayer.TracklayerError as exc:
                raise ProtocolError("illegal", str(exc)) from None
            ack = {"type": "ack", "index": n, "move": str(action)}
            await self._commit(room, candidate, n, str(action), sender, ack)
            return ack

    async def _commit(self, room: Room, candidate: Any, n: int, text: str, sender: Connection | None,
                      ack: dict[str, Any]) -> None:
        """Store move ``n`` then publish it (lock held)."""
        try:
            await self.committer.append(room.id, n, text, _status(candidate))
        except MoveConflict:
            # another server process wrote this index first: take the stored history as the truth
            await self._reload(room)
            raise ProtocolError("conflict", f"move {n} was taken by another move at the same time; "
                                            "the game has been refreshed", moves=len(room.game.moves)) from None
        except Exception:
            log.exception("game %s: storing move %d failed", room.id, n)
            raise ProtocolError("storage", "the move could not be stored; nothing changed, try again") from None
        room.game = candidate
        room.record.status = _status(candidate)
        log.info("game %s: move %d by seat %s stored", room.id, n, candidate.move_log[-1][0])
        if sender is not None:
            sender.send(ack)
        room.broadcast()
        self.kick_bots(room)

    async def _reload(self, room: Room) -> None:
        texts = await asyncio.to_thread(self.store.load_moves, room.id)
        room.game = tracklayer.load_game({**room.record.setup, "moves": texts})
        room.broadcast()

    # ------------------------------------------------------------------ bots
    def kick_bots(self, room: Room) -> None:
        g = room.game
        if g.is_over or room.broken or g.current_player not in room.bots:
            return
        if room.bot_task is None or room.bot_task.done():
            room.bot_task = asyncio.get_running_loop().create_task(self._run_bots(room))

    async def _run_bots(self, room: Room) -> None:
        while True:
            if self.bot_delay:
                await asyncio.sleep(self.bot_delay)
            async with room.lock:
                g = room.game
                seat = g.current_player
                if g.is_over or room.broken or seat not in room.bots:
                    return
                candidate = g.clone()
                try:  # in a thread: a thinking bot must not stall the other games
                    action = await asyncio.to_thread(room.bots[seat].choose, candidate.view(seat),
                                                     candidate.legal_actions())
                    candidate.apply(action)
                except Exception:  # a bot that fails (or has no plan for this game) still moves
                    log.exception("game %s: bot of seat %d failed; it plays a random legal move", room.id, seat)
                    candidate = g.clone()
                    legal = candidate.legal_actions()
                    candidate.apply(legal[secrets.randbelow(len(legal))])
                try:
                    await self._commit_bot(room, candidate, len(g.moves), str(candidate.moves[-1]))
                except ProtocolError:
                    await asyncio.sleep(1)

    async def _commit_bot(self, room: Room, candidate: Any, n: int, text: str) -> None:
        try:
            await self.committer.append(room.id, n, text, _status(candidate))
        except MoveConflict:
            await self._reload(room)
            raise ProtocolError("conflict", "refreshed") from None
        except Exception:
            log.exception("game %s: storing bot move %d failed", room.id, n)
            raise ProtocolError("storage", "storage failed") from None
        room.game = candidate
        room.record.status = _status(candidate)
        log.info("game %s: move %d by bot seat %s stored", room.id, n, candidate.move_log[-1][0])
        room.broadcast()

    async def close(self) -> None:
        self.committer.close()
        for room in self.rooms.values():
            if room.bot_task is not None:
                room.bot_task.cancel()
            for c in room.connections:
                c.close()
