"""Games that need nobody go on by themselves: the sweep that loads stored games a bot is to move in.

Rooms are built lazily (:class:`tracklayer.server.rooms.Rooms`): a game is in memory because somebody
opened it, or because its process made it. A bot moves only in a room, so after a restart (``kill -9``
included, of one process or of every PostgreSQL process at once) a game whose next move is a bot's
would wait for the next websocket: a bot-only game, or a game of absent humans whose stand-ins hold
their seats (no deadline is counting down there for :meth:`Clocks.scan
<tracklayer.server.clocks.Clocks.scan>` to find). This sweep is what loads them: every
:data:`EVERY` seconds, and at once at start-up, it reads the unfinished, started games that have a
bot seat or a seat a stand-in plays, and loads those that are not in memory here. Loading is all it
takes: the room's bots start (on PostgreSQL: once this process holds the game's lease, which loading
asks for; the lease lets one process, and only one, move for a game's bots).

What the other sweeps cover: deadlines within a minute are :meth:`Clocks.scan
<tracklayer.server.clocks.Clocks.scan>`'s, and the bot fill of a waiting game is the matchmaker's
(:mod:`tracklayer.server.lobby`); both read their deadlines from the database too.

Bounded work: a pass reads at most :data:`MAX_ROWS` candidate rows (by id, going on where the last
pass stopped, and from the start again at the end) and loads at most :data:`MAX_LOADS` games. A game
loaded and found with a person to move (its bot seats wait for them) is unloaded again at once and
remembered with its stored times, and not loaded again until a move or a seat change touches its
row. On PostgreSQL a game whose lease another process holds is skipped: that process moves for it
(PostgreSQL's ``pg_locks`` shows which games are held, :func:`tracklayer.server.lease.held`).
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import TYPE_CHECKING

from sqlalchemy import or_, select

from tracklayer.server.background import Background
from tracklayer.server.clocks import clocks
from tracklayer.server.db import games

if TYPE_CHECKING:
    from tracklayer.server.db import Store
    from tracklayer.server.room import Host, Room

log = logging.getLogger("tracklayer.server")

EVERY = 10.0  # seconds between passes (a process that died on PostgreSQL: its games go on within this)
PAGE = 500  # candidate rows per query
MAX_ROWS = 5000  # candidate rows one pass reads at most
MAX_LOADS = 50  # games one pass loads at most (each is replayed by the engine)


def _bot_held(seats_text: str, state_text: str | None) -> bool:
    """Does a bot play any seat of the game: a bot seat, or a human seat its stand-in holds, plays
    after a resignation or plays for this one turn? (The stored row, read without the engine.)"""
    try:
        if any(s.get("kind") == "bot" for s in json.loads(seats_text)):
            return True
        if state_text is None:
            return False
        state = json.loads(state_text)
        return any(state.get("standin") or []) or any(state.get("resigned") or []) or state.get("acting") is not None
    except (ValueError, TypeError, AttributeError):
        return True  # a row this check cannot read is left to loading, which logs what is wrong with it


def candidates(store: Store, after: str, limit: int) -> list[tuple[str, bool, tuple[float, float | None]]]:
    """``(id, bot_held, stamp)`` of unfinished, started games with ids after ``after``, in id order,
    whose row may show a bot seat (a text match, checked by :func:`_bot_held`); ``stamp`` changes
    whenever a move or a seat change is stored."""
    query = (select(games.c.id, games.c.seats, games.c.updated_at, clocks.c.state, clocks.c.updated_at.label("c_at"))
             .select_from(games.outerjoin(clocks, clocks.c.game_id == games.c.id))
             .where(games.c.status.in_(("open", "running")), games.c.id > after,
                    or_(games.c.seats.like('%"bot"%'), clocks.c.state.like("%true%"),
                        clocks.c.state.not_like('%"acting": null%')))
             .order_by(games.c.id).limit(limit))
    with store.engine.connect() as conn:
        rows = conn.execute(query).all()
    return [(r.id, _bot_held(r.seats, r.state), (r.updated_at, r.c_at)) for r in rows]


class Resume:
    """The sweep of one server process (see the module's docstring)."""

    def __init__(self, rooms: Host) -> None:
        self.rooms = rooms
        self._cursor = ""  # the last id the previous pass read
        self._waiting: dict[str, tuple[float, float | None]] = {}  # games left to a person: their stamp then
        self._seen: set[str] = set()  # the candidates of this round through the table
        self._task = Background.every("tracklayer-resume", EVERY, lambda: self.step(),
                                      "looking for games a bot is to move in failed")

    def start(self) -> None:
        self._task.start()

    async def close(self) -> None:
        await self._task.close()

    async def step(self) -> int:
        """One pass; returns the number of games it loaded for their bots."""
        store, rooms = self.rooms.store, self.rooms
        read = loaded = 0
        while read < MAX_ROWS and loaded < MAX_LOADS:
            page = await asyncio.to_thread(candidates, store, self._cursor, PAGE)
            read += len(page)
            todo = {game_id: stamp for game_id, bot_held, stamp in page
                    if bot_held and game_id not in rooms.rooms and self._waiting.get(game_id) != stamp}
            if todo and rooms.cluster is not None:
                from tracklayer.server.lease import held

                for game_id in await asyncio.to_thread(held, store, list(todo)):
                    del todo[game_id]
            last = self._cursor
            for game_id, _, _ in page:
                if loaded >= MAX_LOADS:  # the next pass goes on from this game
                    self._cursor = last
                    return loaded
                self._seen.add(game_id)
                last = game_id
                if game_id in todo:
                    loaded += 1
                    await self._load(game_id, todo[game_id])
            self._cursor = last if len(page) == PAGE else ""
            if not self._cursor:  # a round through the table ends: forget the games no longer in it
                self._waiting = {g: s for g, s in self._waiting.items() if g in self._seen}
                self._seen = set()
                break
        return loaded

    async def _load(self, game_id: str, stamp: tuple[float, float | None]) -> None:
        """Load a game for its bots: kept if a bot is to move (its bots start), else unloaded again and
        remembered as waiting for a person until its row changes."""
        try:  # one game that cannot be loaded must not keep the others waiting
            room = await self.rooms.get(game_id)
        except Exception:
            log.exception("game %s: loading it for its bots failed", game_id)
            return
        if room is None or not self._bot_to_move(room):
            self._waiting[game_id] = stamp
            if room is not None:
                self.rooms.unload(room)
            return
        log.info("game %s: resumed: a bot is to move and nobody had it open", game_id)
        self.rooms.kick_bots(room)

    @staticmethod
    def _bot_to_move(room: Room) -> bool:
        g = room.game
        return not (g.is_over or room.broken or room.record.status == "waiting") and g.current_player in room.bots
