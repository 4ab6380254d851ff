"""Several server processes on one PostgreSQL database: the glue between the rooms and the database.

:class:`Cluster` is what :class:`tracklayer.server.rooms.Rooms` calls at its few hook points (a
room loaded or unloaded, may this process move for a game's bots?). It combines the move fan-out
(:mod:`tracklayer.server.fanout`: every stored move reaches every process's rooms) and the game
lease (:mod:`tracklayer.server.lease`: one process runs each game's bots). On SQLite there is no
cluster (:func:`attach` returns None): one process serves everything, as before.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from tracklayer.server.fanout import Fanout
from tracklayer.server.lease import Lease
from tracklayer.server.presence import Presence

if TYPE_CHECKING:
    from tracklayer.server.room import Room
    from tracklayer.server.rooms import Rooms

log = logging.getLogger("tracklayer.server")


class Cluster:
    def __init__(self, rooms: Rooms, url: str) -> None:
        self.rooms = rooms
        self.fanout = Fanout(rooms, url)
        self.lease = Lease(url, self._acquired, self._lost)
        self.presence = Presence(rooms)  # who is online in the other processes (tracklayer.server.presence)

    def start(self) -> None:
        self.fanout.start()
        self.lease.start()
        self.presence.start()

    async def close(self) -> None:
        await self.presence.close()  # announces this process's games empty while the database is still there
        await self.fanout.close()
        await self.lease.close()

    # ------------------------------------------------------------------ hooks called by Rooms
    def loaded(self, room: Room) -> None:
        """A room was built from the database (or created): catch up with anything stored meanwhile
        (a move may have been announced while it was being built, before anyone here listened for
        it) and try to own it."""
        self.fanout.resync(room.id)
        room.presence = self.presence
        self.presence.loaded(room.id)
        if self.needs_owner(room):
            self.lease.want(room.id)

    def needs_owner(self, room: Room) -> bool:
        """Does the game need one process to act for it? Today: it has bots and is not over (turn clocks
        will add their games). Games of humans only need none, and hold no lock."""
        if room.record.status == "waiting":  # a quick-play game's bots fill its seats at a deadline (lobby.py)
            return room.record.fill_at is not None
        clocked = room.control is not None and room.control.clocked
        return (bool(room.bots) or clocked) and not room.game.is_over

    def unloaded(self, game_id: str) -> None:
        self.lease.release(game_id)

    def owns(self, game_id: str) -> bool:
        """May this process move for the game's bots (start its bot task)?"""
        return self.lease.owns(game_id)

    # ------------------------------------------------------------------ lease callbacks
    def _acquired(self, game_id: str) -> None:
        # the previous owner may have stored moves this room has not applied yet: catch up first
        # (the resync kicks the bots once the room is current)
        self.fanout.resync(game_id)
        # its clock too: the stored deadline is the truth (it may be overdue: it fires at once)
        self.rooms.clocks.spawn(self.rooms.clocks.reload(game_id))

    def _lost(self, game_ids: list[str]) -> None:
        for game_id in game_ids:
            room = self.rooms.rooms.get(game_id)
            if room is not None and room.bot_task is not None and not room.bot_task.done():
                room.bot_task.cancel()
            # a bot move cancelled on its way may still be committed: its notification (or the
            # resync after the listener's next reconnect) brings it in
            self.fanout.resync(game_id)


def attach(rooms: Rooms) -> Cluster | None:
    """A started cluster for ``rooms`` on PostgreSQL (call with the event loop running); None on SQLite."""
    if not rooms.store.notify:
        return None
    cluster = Cluster(rooms, rooms.store.url)
    rooms.cluster = cluster
    cluster.start()
    return cluster
