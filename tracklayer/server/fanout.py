"""Moves stored by one server process reach the rooms of every other process: PostgreSQL LISTEN/NOTIFY.

Several ``tracklayer serve`` processes (on one host or several) share one PostgreSQL database. Each
keeps its own rooms in memory, so a move committed by process A must reach the clients that process
B serves, in order, without polling. The writer announces every stored move with ``pg_notify`` *in
the transaction that inserts it* (:func:`tracklayer.server.notify.notify_sql`, called by ``Store.append_batch`` and
``Store.append_move``): PostgreSQL delivers a notification only when its transaction commits, so a
process never hears of a move that is not stored, and never misses one that is while it listens.

Each process listens on one dedicated connection (:class:`Fanout`). A notification carries
``(game_id, idx, text)`` of each move, so the common case needs no read: a room in memory whose
next index is ``idx`` applies the text with the engine, then pushes the new state to its clients
exactly as a local move would. Anything else falls back to the database, which is the truth:

* a gap (the notification is for a later index than the room's next one: a notification missed,
  or a room loaded while the move was on its way) reads the moves since the room's last one;
* a duplicate or an old index (the process's own moves come back to it too) changes nothing;
* after the listener (re)connects, every room in memory is brought up to date from the database,
  since notifications sent while nobody listened are lost;
* a stored move the engine cannot apply to the room's position means the room is wrong, not the
  database: it is rebuilt from the stored log.

All of that happens under the room's lock, the one the move pipeline holds while it commits, so a
room never applies a move twice or out of order, and the moves a process commits itself are
already in the room when their notification is handled. Besides moves, the same listener hears
chat messages (:mod:`tracklayer.server.chat`) and who is connected where
(:mod:`tracklayer.server.presence`): no cluster protocol, just the database and its commit order.
The lobby list and the game summary are read from the database or from a room kept current this
way, so they need nothing more.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
from typing import TYPE_CHECKING, Protocol

import tracklayer
from tracklayer.server.notify import CHANNEL, CHAT_CHANNEL, KEEPALIVES, PRESENCE_CHANNEL, libpq_url

if TYPE_CHECKING:
    from tracklayer.server.clocks import Clocks
    from tracklayer.server.room import Host, Room

    class FanoutHost(Host, Protocol):
        """What the fan-out uses of the rooms besides what every service does."""

        clocks: Clocks

        async def _reload(self, room: Room) -> None: ...

log = logging.getLogger("tracklayer.server")

class Fanout:
    """This process's listener: applies the moves other processes store to the rooms it has in memory.

    ``start()`` runs the listener as a task of the event loop (psycopg's async connection), which
    reconnects with a growing delay when the connection is lost and resynchronises every loaded
    room after each (re)connection. ``resync(game_id)`` brings one room up to date from the
    database (a room just loaded, or just taken over by this process).
    """

    def __init__(self, rooms: FanoutHost, url: str) -> None:
        self.rooms = rooms
        self.url = libpq_url(url)
        self.connected = asyncio.Event()
        self._pending: dict[str, dict[int, str]] = {}  # moves announced per game, not yet applied
        self._full: set[str] = set()  # games to bring up to date from the database
        self._workers: dict[str, asyncio.Task[None]] = {}
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._listen(), name="tracklayer-fanout")

    async def close(self) -> None:
        tasks = [t for t in (self._task, *self._workers.values()) if t is not None]
        for t in tasks:
            t.cancel()
        for t in tasks:
            with contextlib.suppress(BaseException):
                await t

    # ------------------------------------------------------------------ listening
    async def _listen(self) -> None:
        import psycopg

        delay = 0.25
        while True:
            try:
                conn = await psycopg.AsyncConnection.connect(
                    self.url, autocommit=True, application_name=f"tracklayer listen {os.getpid()}", **KEEPALIVES)
                async with conn:
                    await conn.execute(f"LISTEN {CHANNEL}")
                    await conn.execute(f"LISTEN {CHAT_CHANNEL}")  # chat messages (tracklayer.server.chat)
                    await conn.execute(f"LISTEN {PRESENCE_CHANNEL}")  # who is online (tracklayer.server.presence)
                    delay = 0.25
                    self.connected.set()
                    log.info("listening for moves of other server processes")
                    cluster = getattr(self.rooms, "cluster", None)
                    for game_id in list(self.rooms.rooms):  # whatever was stored while nobody listened
                        self.resync(game_id)
                        if cluster is not None:  # and who is connected elsewhere (presence.py)
                            cluster.presence.loaded(game_id)
                    async for note in conn.notifies():
                        if note.channel == PRESENCE_CHANNEL:
                            cluster = getattr(self.rooms, "cluster", None)
                            if cluster is not None:
                                cluster.presence.heard(note.payload)
                        elif note.channel == CHAT_CHANNEL:
                            hub = getattr(self.rooms, "chat", None)
                            if hub is not None:
                                hub.heard(note.payload)
                        else:
                            self._heard(note.payload)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the connection broke or could not be made: try again
                log.warning("move listener: %s; reconnecting in %.1f s", str(exc).strip().splitlines()[0]
                            if str(exc).strip() else type(exc).__name__, delay)
            self.connected.clear()
            await asyncio.sleep(delay)
            delay = min(delay * 2, 5.0)

    def _heard(self, payload: str) -> None:
        try:
            items = json.loads(payload)
        except ValueError:
            log.warning("move listener: a notification that is not JSON (ignored)")
            return
        if not isinstance(items, list):
            return
        rooms = self.rooms.rooms
        for item in items:
            try:
                game_id, idx, text = item
            except (TypeError, ValueError):
                continue
            if not (isinstance(game_id, str) and isinstance(idx, int) and isinstance(text, str)):
                continue
            room = rooms.get(game_id)
            if room is not None and idx == -1:  # a seat changed hands (tracklayer.server.clocks)
                self.rooms.clocks.spawn(self.rooms.clocks.reload(game_id, text))
                continue
            if room is not None and idx == -2:  # moves were taken back (Store.take_back): the stored log is the truth
                self.rooms.clocks.spawn(self._taken_back(room))
                continue
            if room is None or idx < len(room.game.moves):  # not loaded here, or already applied
                continue
            self._pending.setdefault(game_id, {})[idx] = text
            self._wake(game_id)

    async def _taken_back(self, room: Room) -> None:
        async with room.lock:
            if len(room.game.moves) != len(await asyncio.to_thread(self.rooms.store.load_moves, room.id)):
                await self.rooms._reload(room)

    def resync(self, game_id: str) -> None:
        """Bring the room of ``game_id`` (if loaded) up to date from the database, then let its bots
        move if this process runs them."""
        self._full.add(game_id)
        self._wake(game_id)

    def _wake(self, game_id: str) -> None:
        if game_id not in self._workers:
            self._workers[game_id] = asyncio.get_running_loop().create_task(self._drain(game_id))

    async def _drain(self, game_id: str) -> None:
        """One task per game with news: applies it, then whatever arrived meanwhile, then ends."""
        try:
            while True:
                pending = self._pending.pop(game_id, {})
                full = game_id in self._full
                self._full.discard(game_id)
                if not pending and not full:
                    return
                room = self.rooms.rooms.get(game_id)
                if room is not None:
                    try:
                        await self.catch_up(room, pending, full)
                    except Exception:
                        log.exception("game %s: applying moves of another process failed", game_id)
        finally:
            self._workers.pop(game_id, None)

    # ------------------------------------------------------------------ applying
    async def _seated(self, room: Room) -> bool:
        """Bring a waiting room to its stored seats (lock held); True if the game has started."""
        matchmaker = getattr(self.rooms, "matchmaker", None)
        if matchmaker is None:
            return False
        for row in await asyncio.to_thread(matchmaker.rows, [room.id]):
            matchmaker.refresh(room, row)
        return room.record.status != "waiting"

    async def catch_up(self, room: Room, pending: dict[int, str], full: bool) -> None:
        """Apply the moves the room lacks: from ``pending`` (index -> text, as announced) when they
        follow on from the room's position, else (a gap, or ``full``) from the database."""
        async with room.lock:
            if room.broken:
                return
            if room.record.status == "waiting":
                # No move exists while a seat is open, so a move heard of means another process filled
                # the seats (a quick-play deadline, a join there). Applying it alone would show a started
                # game with an open seat, for good: the matchmaker re-reads only rooms that still wait.
                # The seats, names and status come from the stored row first, together.
                if not await self._seated(room):
                    return  # still waiting: a move comes only after the fill's commit, and its news after that
                full = True  # and every move since, from the database
            game = room.game
            n = len(game.moves)
            texts: list[str] = []
            while n + len(texts) in pending:
                texts.append(pending[n + len(texts)])
            if full or any(i >= n + len(texts) for i in pending):  # a gap: the database has every move
                rows = await asyncio.to_thread(self.rooms.store.load_moves_since, room.id, n)
                texts = [text for k, (i, text) in enumerate(rows) if i == n + k]
            if texts:
                candidate = game.clone()
                try:
                    for text in texts:
                        candidate.apply(text)
                except tracklayer.TracklayerError:
                    log.error("game %s: stored moves from %d do not follow on in memory; reloading", room.id, n)
                    await self.rooms._reload(room)
                    return
                room.set_game(candidate)
                room.record.status = "over" if candidate.is_over else ("running" if candidate.moves else "open")
                log.debug("game %s: moves %d-%d from another process", room.id, n, n + len(texts) - 1)
                room.broadcast()
        self.rooms.kick_bots(room)
