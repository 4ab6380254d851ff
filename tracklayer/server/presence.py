"""Who is online, across server processes (PostgreSQL): a seat connected to another process shows online.

A seat's ``online`` flag comes from the websockets of the process that builds the state. With
several processes each one only sees its own, so this module shares them, with the same means as
the moves (:mod:`tracklayer.server.fanout`): NOTIFY on the channel :data:`CHANNEL`, heard by every
process's listener. Nothing is stored: presence is what the live processes say, and it fades.

* When the connections of a game change in a process (a websocket joined or left), that process
  announces, for that game, the seats it has connected (and whether a hot-seat table is open):
  ``{"o": origin, "g": [[game_id, [seats], table], ...]}``. Changes of one moment are announced
  together (a short debounce), several games to a notification.
* Every :data:`HEARTBEAT` seconds each process announces again every game it has connections in;
  an entry not renewed within :data:`EXPIRY` seconds is dropped. So a process that dies (``kill
  -9`` included) stops counting after at most ``EXPIRY``; one that stops cleanly announces its games
  empty on its way out.
* A process that loads a game asks the others (``{"o": origin, "q": [game_id]}``) and those with
  connections in it answer at once, so a game opened in a second process does not wait for a
  heartbeat to show who is there.
* A process that hears a change for a game it has in memory pushes the new state to its clients,
  as it does when somebody connects to it directly.

Notifications are sent from a worker thread through the store's engine (one short transaction
each; PostgreSQL delivers them on commit). A lost notification costs at most one heartbeat of a
wrong dot, never a move. On SQLite there is one process and nothing to share.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from tracklayer.server.background import Background
from tracklayer.server.notify import PRESENCE_CHANNEL as CHANNEL

if TYPE_CHECKING:
    from tracklayer.server.room import Room
    from tracklayer.server.rooms import Rooms

log = logging.getLogger("tracklayer.server")

HEARTBEAT = 10.0  # seconds between two announcements of the same games (batched: ~200 games a notification)
EXPIRY = 3 * HEARTBEAT + 5.0  # a process not heard of for this long is taken to be gone (kill -9: 35-45 s)
DEBOUNCE = 0.05  # seconds: joins and leaves of one moment go out in one notification
MAX_PAYLOAD = 7000  # bytes of one notification (PostgreSQL's limit is 8000)


def local_presence(room: Room) -> tuple[list[int], bool]:
    """The seats this process has a websocket for in ``room``, and whether a hot-seat table is open."""
    seats: set[int] = set()
    table = False
    for c in room.connections:
        if c.access.role == "seat":
            seats |= c.access.seats
        elif c.access.role == "table":
            table = True
    return sorted(seats), table


class Presence:
    """This process's side: announce its connections, remember the other processes' announcements."""

    def __init__(self, rooms: Rooms, heartbeat: float = HEARTBEAT, expiry: float = EXPIRY) -> None:
        self.rooms = rooms
        self.heartbeat, self.expiry = heartbeat, expiry
        self.origin = secrets.token_hex(8)
        # game id -> origin -> (seats, table, expires at: monotonic seconds of this process)
        self.remote: dict[str, dict[str, tuple[frozenset[int], bool, float]]] = {}
        self._dirty: set[str] = set()
        self._asked: set[str] = set()
        self._flush: asyncio.Task[None] | None = None
        self._beat = Background.every("tracklayer-presence", heartbeat, self._beat_once, "presence heartbeat failed")
        self._announced: set[str] = set()  # games this process last announced with someone connected
        self._closed = False

    # ------------------------------------------------------------------ reading
    def online(self, game_id: str) -> tuple[frozenset[int], bool]:
        """Seats connected to *other* live processes, and whether one of them has the table open."""
        entries = self.remote.get(game_id)
        if not entries:
            return frozenset(), False
        now = time.monotonic()
        seats: set[int] = set()
        table = False
        for s, t, expires in entries.values():
            if expires > now:
                seats |= s
                table = table or t
        return frozenset(seats), table

    # ------------------------------------------------------------------ this process's changes
    def start(self) -> None:
        self._beat.start()

    def changed(self, room: Room) -> None:
        """The websockets of ``room`` in this process changed: tell the others (soon, batched)."""
        self._dirty.add(room.id)
        self._schedule()

    def loaded(self, game_id: str) -> None:
        """A game was loaded here: ask who is connected to it elsewhere."""
        self._asked.add(game_id)
        self._schedule()

    def _schedule(self) -> None:
        if self._closed:  # shutting down: close() has said goodbye for every game
            return
        if self._flush is None or self._flush.done():
            self._flush = asyncio.get_running_loop().create_task(self._send_soon())

    async def _send_soon(self) -> None:
        while True:  # changes made while one notification was being sent go out in the next
            await asyncio.sleep(DEBOUNCE)
            dirty, asked = self._dirty, self._asked
            if not dirty and not asked:
                return
            self._dirty, self._asked = set(), set()
            await self._send(self._items(dirty), sorted(asked))

    async def _beat_once(self) -> None:
        """Forget what others stopped renewing, renew what this process has announced."""
        self._expire()
        await self._send(self._items(list(self._announced)), [])

    def _items(self, game_ids: Iterable[str]) -> list[list[Any]]:
        """``[game, seats, table]`` of who is connected here to each game; a game with somebody in it
        is announced from now on (renewed by the heartbeat), one with nobody is not any more."""
        items = []
        for game_id in game_ids:
            room = self.rooms.rooms.get(game_id)
            seats, table = local_presence(room) if room is not None else ([], False)
            items.append([game_id, seats, table])
            if seats or table:
                self._announced.add(game_id)
            else:
                self._announced.discard(game_id)
        return items

    def _expire(self) -> None:
        """Forget entries not renewed in time; games in memory whose dots change get a new state."""
        now = time.monotonic()
        for game_id in list(self.remote):
            entries = self.remote[game_id]
            gone = [o for o, (_, _, expires) in entries.items() if expires <= now]
            for o in gone:
                del entries[o]
            if not entries:
                del self.remote[game_id]
            if gone:
                room = self.rooms.rooms.get(game_id)
                if room is not None:
                    room.broadcast()

    async def _send(self, items: list[list[Any]], asked: list[str]) -> None:
        payloads = _payloads(self.origin, items, asked)
        if not payloads:
            return
        engine = self.rooms.store.engine

        def send() -> None:
            with engine.begin() as conn:
                for p in payloads:
                    conn.exec_driver_sql("SELECT pg_notify(%s, %s)", (CHANNEL, p))

        try:
            await asyncio.to_thread(send)
        except Exception as exc:  # the next heartbeat tries again
            log.warning("presence: announcing failed (%s)", type(exc).__name__)

    async def close(self) -> None:
        """Stop; the games this process had people in are announced empty (the others drop the dots now
        rather than after ``EXPIRY``)."""
        self._closed = True
        await self._beat.close()
        if self._flush is not None:
            self._flush.cancel()
            with contextlib.suppress(BaseException):
                await self._flush
        if self._announced:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(5):  # never wait_for: tracklayer/server/lease.py
                    await self._send([[g, [], False] for g in self._announced], [])
            self._announced.clear()

    # ------------------------------------------------------------------ the other processes
    def heard(self, payload: str) -> None:
        """A notification on :data:`CHANNEL` (called by the listener of :mod:`tracklayer.server.fanout`)."""
        try:
            msg = json.loads(payload)
            origin = msg["o"]
            items = msg.get("g", [])
            asked = msg.get("q", [])
            if not isinstance(origin, str) or not isinstance(items, list) or not isinstance(asked, list):
                raise ValueError
        except (ValueError, KeyError, TypeError):
            log.warning("presence: a notification that is not one (ignored)")
            return
        if origin == self.origin:
            return
        expires = time.monotonic() + self.expiry
        for item in items:
            try:
                game_id, seats, table = item
                entry = (frozenset(int(s) for s in seats), bool(table), expires)
            except (TypeError, ValueError):
                continue
            if not isinstance(game_id, str):
                continue
            entries = self.remote.setdefault(game_id, {})
            before = entries.get(origin)
            if entry[0] or entry[1]:
                entries[origin] = entry
            else:
                entries.pop(origin, None)
                if not entries:
                    del self.remote[game_id]
            if before is None or before[:2] != entry[:2]:
                room = self.rooms.rooms.get(game_id)
                if room is not None:
                    room.broadcast()  # the others see the new dot
        for game_id in asked:  # somebody loaded a game: those of its people connected here say so
            room = self.rooms.rooms.get(game_id) if isinstance(game_id, str) else None
            if room is not None and room.connections:
                self._dirty.add(game_id)
                self._schedule()


def _payloads(origin: str, items: list[list[Any]], asked: list[str]) -> list[str]:
    """The notifications carrying ``items`` and ``asked`` (each under :data:`MAX_PAYLOAD` bytes)."""
    out: list[str] = []
    chunk: dict[str, Any] = {"o": origin, "g": [], "q": []}

    def size(c: dict[str, Any]) -> int:
        return len(json.dumps(c, separators=(",", ":")))

    for key, values in (("g", items), ("q", asked)):
        for v in values:
            chunk[key].append(v)
            if size(chunk) > MAX_PAYLOAD and len(chunk["g"]) + len(chunk["q"]) > 1:
                chunk[key].pop()
                out.append(json.dumps(chunk, separators=(",", ":")))
                chunk = {"o": origin, "g": [], "q": []}
                chunk[key].append(v)
    if chunk["g"] or chunk["q"]:
        out.append(json.dumps(chunk, separators=(",", ":")))
    return out
