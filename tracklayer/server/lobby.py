"""Matchmaking and links that are never lost: open seats, joining, watching, quick play, the
creator's links and the "My games" status batch.

A game created with *open* seats (``{"kind": "open"}``) is stored with status ``"waiting"``: nobody
moves (no first move, no bot move: :mod:`tracklayer.server.rooms` checks the status) until every
seat is taken. A seat is claimed with one conditional UPDATE (``... WHERE id = ? AND seats = <the
seats read> AND status = 'waiting'``): of two joins racing for the last seat, in one process or in
several on one database, exactly one changes the row; the other reads the new row and finds the
seat gone (409). Names are part of the engine's setup, so a claim rewrites the setup's player list
too; no move exists yet, so the game is simply rebuilt from it.

Quick play puts people into a waiting public game of the same map and size (or makes one) whose
open seats go to bots at a deadline stored in the row (``fill_at``). The deadline is fired by a
ticker in every server process, but only for games the process owns through the game lease on
PostgreSQL (:mod:`tracklayer.server.lease`; a waiting game with a deadline asks for an owner), and
the fill is the same conditional UPDATE, so it happens once even if two processes tried. As the
deadline is in the database, a restarted server fires it too (at once if it has passed).

Token rules: a seat token grants its seat, the spectator token watching, the hot-seat token every
human seat, and the *creator* token (returned once by ``POST /api/games``) reading every link of
the game (``GET /api/games/{id}/links``) and nothing else. Public games (``"private": false``, the
default) are listed with their spectator link: the spectator view is what anyone at the table could
see. Private games are not listed at all.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from typing import TYPE_CHECKING, Any

from fastapi import HTTPException
from sqlalchemy import and_, select, update

import tracklayer
from tracklayer.server.background import Background
from tracklayer.server.catalog import game_entry
from tracklayer.server.db import GameRecord, Store, games
from tracklayer.server.guard import MAX_NAME, clean_name, shown

if TYPE_CHECKING:
    from tracklayer.server.room import Room
    from tracklayer.server.rooms import Rooms

log = logging.getLogger("tracklayer.server")

OPEN = "open"  # the kind of a seat nobody has claimed yet
WAITS = (30, 120, 600)  # quick play: seconds before bots take the seats left (the player's choice)
MAX_STATUS_ITEMS = 100  # tokens one status request may ask about
TICK = 1.0  # seconds between the matchmaker's looks at waiting games
MAX_TRIES = 8  # a join that keeps losing races to other joins gives up (409) after this many


def open_seat_name(i: int) -> str:
    """The engine needs a name for every seat: an open one gets a placeholder in no language."""
    return f"#{i + 1}"


def seat_link(game_id: str, token: str) -> str:
    return f"/game/{game_id}#{token}"


def creator_out(rec: GameRecord) -> dict[str, Any]:
    """The part of a creation answer that is for the creator alone."""
    out: dict[str, Any] = {"private": bool(rec.private)}
    if rec.creator_token:
        # the creator's link opens "My games", which keeps the token and shows every link of the game
        out["creator"] = {"token": rec.creator_token, "link": f"/my#{rec.id}:{rec.creator_token}"}
    return out


def bearer(authorization: str | None) -> str:
    return (authorization or "").removeprefix("Bearer ").strip()


def same_secret(secret: str | None, token: object) -> bool:
    return (isinstance(secret, str) and bool(secret) and isinstance(token, str) and 0 < len(token) <= 128
            and token.isascii() and secrets.compare_digest(secret, token))


def _taken(seats: list[dict[str, Any]]) -> int:
    return sum(s["kind"] != OPEN for s in seats)


class Matchmaker:
    """Claims of open seats (joins, bot fills) as conditional UPDATEs, and the ticker that fires the
    bot-fill deadlines and keeps waiting rooms in memory in step with the database (a claim made by
    another server process)."""

    def __init__(self, store: Store, rooms: Rooms, tick: float = TICK) -> None:
        self.store = store
        self.rooms = rooms
        self.tick = tick
        self._task = Background.every("tracklayer-matchmaker", tick, lambda: self.step(),
                                      "matchmaker: a pass failed")  # a failing database must not end it

    # ------------------------------------------------------------------ database
    def _row(self, game_id: str) -> Any:
        with self.store.engine.connect() as conn:
            return conn.execute(select(games.c.id, games.c.game, games.c.setup, games.c.seats, games.c.status,
                                       games.c.private, games.c.fill_at, games.c.quick)
                                .where(games.c.id == game_id)).first()

    def _swap(self, game_id: str, old_seats: str, seats: list[dict[str, Any]], setup: dict[str, Any],
              status: str, fill_at: float | None) -> bool:
        """Replace the seats if nobody changed them since they were read: True for the one winner."""
        with self.store.engine.begin() as conn:
            res = conn.execute(update(games)
                               .where(and_(games.c.id == game_id, games.c.seats == old_seats,
                                           games.c.status == "waiting"))
                               .values(seats=json.dumps(seats), setup=json.dumps(setup), status=status,
                                       fill_at=fill_at, updated_at=time.time()))
            return res.rowcount == 1

    def claim(self, game_id: str, name: str | None, *, public_only: bool = True) -> tuple[int, str]:
        """Seat a person (``name``) in the first open seat; returns (seat, token). Blocking (a thread).

        Raises HTTPException: 404 unknown game, 403 private, 409 no open seat (full or started)."""
        for _ in range(MAX_TRIES):
            row = self._row(game_id)
            if row is None:
                raise HTTPException(404, "no such game")
            if row.private and public_only:
                raise HTTPException(403, "a private game is joined through its invite links only")
            if row.status != "waiting":
                raise HTTPException(409, "this game has no open seat: every seat is taken")
            seats = json.loads(row.seats)
            free = [i for i, s in enumerate(seats) if s["kind"] == OPEN]
            if not free:
                raise HTTPException(409, "this game has no open seat: every seat is taken")
            i = free[0]
            others = {s["name"] for k, s in enumerate(seats) if k != i and s["kind"] != OPEN}
            wanted = clean_name(name, f"Player {i + 1}", "name")
            if wanted in others:  # names must differ: number a repeat, as creation does
                wanted = f"{wanted[:MAX_NAME - 3].rstrip()} {i + 1}"
            if wanted in others:
                raise HTTPException(409, f"the name {shown(wanted)} is taken in this game")
            token = secrets.token_urlsafe(18)
            seats[i] = {"name": wanted, "kind": "human", "token": token}
            if self._swap(game_id, row.seats, seats, *self._after(row, seats)):
                log.info("game %s: seat %d claimed", game_id, i)
                return i, token
        raise HTTPException(409, "too many people are joining this game at once: try again")

    def fill(self, game_id: str) -> bool:
        """Give every open seat of a waiting game to a bot (the deadline passed); True if this call did."""
        row = self._row(game_id)
        if row is None or row.status != "waiting":
            return False
        seats = json.loads(row.seats)
        entry = game_entry(row.game) or {}
        level = entry.get("default_level")
        bot = next((x["bot"] for x in entry.get("bot_levels", []) if x["level"] == level), "bot")
        names = {s["name"] for s in seats}
        for i, s in enumerate(seats):
            if s["kind"] == OPEN:
                name = f"Bot {i + 1}"
                while name in names:
                    name += "+"
                names.add(name)
                seats[i] = {"name": name, "kind": "bot", "bot": bot}
        done = self._swap(game_id, row.seats, seats, *self._after(row, seats))
        if done:
            log.info("game %s: open seats given to bots (deadline)", game_id)
        return done

    @staticmethod
    def _after(row: Any, seats: list[dict[str, Any]]) -> tuple[dict[str, Any], str, float | None]:
        """The setup, status and deadline once ``seats`` is stored."""
        setup = {**json.loads(row.setup), "players": [s["name"] for s in seats]}
        full = all(s["kind"] != OPEN for s in seats)
        return setup, "open" if full else "waiting", None if full else row.fill_at

    def waiting_pool(self, key: str, avoid: set[str]) -> list[str]:
        """Waiting public quick-play games of ``key``, oldest first, but those in ``avoid``."""
        with self.store.engine.connect() as conn:
            ids = conn.execute(select(games.c.id).where(and_(
                games.c.quick == key, games.c.status == "waiting", games.c.private.is_(False)))
                .order_by(games.c.created_at).limit(5 + len(avoid))).scalars()
            return [i for i in ids if i not in avoid][:5]

    def due(self, now: float) -> list[str]:
        with self.store.engine.connect() as conn:
            return list(conn.execute(select(games.c.id).where(and_(
                games.c.status == "waiting", games.c.fill_at.is_not(None), games.c.fill_at <= now))
                .limit(50)).scalars())

    def rows(self, ids: list[str]) -> list[Any]:
        with self.store.engine.connect() as conn:
            return list(conn.execute(select(games.c.id, games.c.setup, games.c.seats, games.c.status,
                                            games.c.fill_at).where(games.c.id.in_(ids))))

    # ------------------------------------------------------------------ rooms in memory
    def refresh(self, room: Room, row: Any) -> None:
        """Bring a room in memory to the stored seats (a claim here or in another process): the game
        is rebuilt from the new setup (no move exists while seats are open), bots are seated, clients
        get the new state, and a full game starts.

        Only forward: a waiting room takes a row with more seats taken, or the row that ends the
        wait, and nothing else. Rows are read outside the room's lock, so a pass may bring one read
        before a claim or a fill that this room already shows; applying it would hand a taken seat
        back (or restart the wait of a started game). Seats only ever go from open to taken, and a
        game never waits again, so that order is the stored order."""
        rec = room.record
        if rec.status != "waiting":
            return  # past the lobby: seats no longer change, and moves are the fan-out's
        seats = json.loads(row.seats)
        if row.status == "waiting" and _taken(seats) <= _taken(rec.seats):
            return  # the seats this room shows, or fewer: nothing new
        rec.seats, rec.setup, rec.status, rec.fill_at = seats, json.loads(row.setup), row.status, row.fill_at
        # the names are in the setup: rebuild (a move another process stored meanwhile is kept; move
        # texts name no player)
        room.set_game(tracklayer.load_game({**rec.setup, "moves": [str(m) for m in room.game.moves]}))
        if rec.status != "waiting":  # started: the status of the moves held here (the fan-out brings the rest)
            rec.status = "over" if room.game.is_over else ("running" if room.game.moves else "open")
        room._legal = None
        room.bots.clear()
        self.rooms._seat_bots(room)
        self.rooms._warm(room)
        room.forget_logs()
        room.broadcast()
        if self.rooms.cluster is not None:
            self.rooms.cluster.loaded(room)
        self.rooms.kick_bots(room)

    async def sync(self, game_id: str) -> None:
        room = self.rooms.rooms.get(game_id)
        if room is not None:
            for row in await asyncio.to_thread(self.rows, [game_id]):
                async with room.lock:
                    self.refresh(room, row)

    # ------------------------------------------------------------------ the ticker
    def start(self) -> None:
        self._task.start()

    async def close(self) -> None:
        await self._task.close()

    async def step(self) -> None:
        """One pass: fire the deadlines this process may fire, then refresh waiting rooms in memory."""
        cluster = self.rooms.cluster
        for game_id in await asyncio.to_thread(self.due, time.time()):
            room = await self.rooms.get(game_id)  # loaded: on PostgreSQL this asks for the game's lease
            if room is None or (cluster is not None and not cluster.owns(game_id)):
                continue  # another process owns it (or will, or we will on a later pass)
            if await asyncio.to_thread(self.fill, game_id):
                await self.sync(game_id)
        waiting = [r.id for r in list(self.rooms.rooms.values()) if r.record.status == "waiting"]
        if waiting:
            for row in await asyncio.to_thread(self.rows, waiting):
                room = self.rooms.rooms.get(row.id)
                if room is not None:
                    async with room.lock:
                        self.refresh(room, row)


def status_of(room: Room, token: str) -> dict[str, Any]:
    rec = room.record
    access = room.access(token)
    if access is not None:
        role, controls = access.role, sorted(access.seats)
    elif same_secret(rec.creator_token, token):
        role, controls = "creator", []
    else:
        return {"game": rec.id, "error": "unknown-token"}
    g = room.game
    current = None if g.is_over or rec.status == "waiting" else g.current_player
    out: dict[str, Any] = {
        "game": rec.id, "title": rec.game, "variant": rec.variant, "status": rec.status, "role": role,
        "seat": controls[0] if role == "seat" else None, "controls": controls, "moves": len(g.moves),
        "players": [{"name": s["name"], "kind": s["kind"]} for s in rec.seats],
        "turn": current, "your_turn": current is not None and current in controls,
        "updated_at": rec.updated_at}
    return out
