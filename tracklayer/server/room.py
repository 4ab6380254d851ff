"""One live game in memory (:class:`Room`: its game, connections, bots and what undo needs) and what the
services that ``tracklayer.server.rooms.Rooms`` builds use of it (:class:`Host`).

``Rooms`` owns the clocks, the resume scan and the fan-out and they call back into it; they name it by
:class:`Host`, and a room by :class:`Room`, from here, so the server's modules point one way:
``rooms`` imports them, and they import this module, which imports none of them.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from tracklayer.server.accounts.store import would_rate
from tracklayer.server.botpool import SeatBot
from tracklayer.server.db import GameRecord, Store

if TYPE_CHECKING:
    from starlette.websockets import WebSocket

    from tracklayer import Game
    from tracklayer.core.action import Action

log = logging.getLogger("tracklayer.server")


def encode(message: dict[str, Any]) -> str:
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False)


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

    def __init__(self, ws: WebSocket, access: Access, rate: float, burst: int) -> None:
        self.ws = ws
        self.access = access
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(maxsize=256)
        self.rate = rate
        self.burst = burst
        self.tokens = float(burst)
        self.stamp = time.monotonic()
        self.refused = 0
        self.closed = False
        # why the server ends this connection: the websocket close frame sent once the queue is written
        # (None: the client left, or the server leaves without a word)
        self.close_code: int | None = None
        self.close_reason = ""
        # how many log entries this client holds, and for which seat's eyes they were written: the
        # next state sends only the newer ones (``log_from``) if that seat is still the one viewing
        self.log_sent = 0
        self.log_seat: int | None = None

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
        self.send_text(encode(message))

    def send_text(self, text: str) -> None:
        if self.closed:
            return
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:  # a client that reads nothing is dropped rather than buffered forever
            self.close(1008, "slow: the client does not read its messages")

    def close(self, code: int | None = None, reason: str = "") -> None:
        """Stop sending; ``code`` and ``reason``: the close frame the client gets after what was queued."""
        if not self.closed:
            self.closed = True
            self.close_code, self.close_reason = code, reason
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
    game: Game
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    connections: set[Connection] = field(default_factory=set)
    bots: dict[int, SeatBot] = field(default_factory=dict)
    bot_task: asyncio.Task[None] | None = None
    broken: str | None = None
    last_used: float = field(default_factory=time.monotonic)
    _legal: tuple[Game, int, dict[str, Action]] | None = None
    control: Any = None  # tracklayer.server.clocks.Control: clock and seat control (None: a game from before)
    presence: Any = None  # tracklayer.server.presence.Presence: seats connected to other processes (PostgreSQL)
    away_limit: float = 120.0  # seconds a person's seat stays away before the other players may hand it over
    away_since: dict[int, float] = field(default_factory=dict)  # human seats nobody holds: since when (monotonic)
    # undo (docs/protocol.md#undo): how many of the last moves a person sent here themselves, valid while the
    # game has ``undo_at`` moves (a move of a bot, of another process or a reload makes it stale: no undo)
    undo_moves: int = 0
    undo_at: int = -1
    undo_release: asyncio.Event | None = None  # set to let bots waiting for a possible undo move on

    def __post_init__(self) -> None:
        self.set_game(self.game)

    def set_game(self, game: Game) -> None:
        """Hold ``game`` from now on. Every game a room holds keeps what each of its moves revealed, which
        is what undo needs and what the engine keeps only if asked: assign ``game`` through here only."""
        if game is not None:
            game.track_reveals()
        self.game = game

    @property
    def id(self) -> str:
        return self.record.id

    def access(self, token: object) -> Access | None:
        # tokens are short URL-safe ASCII; anything else is no token (compare_digest refuses non-ASCII str)
        if not isinstance(token, str) or not token or len(token) > 128 or not token.isascii():
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

    def note_presence(self) -> set[int]:
        """The seats whose player is here (a connection of any server process; the table counts for
        every human seat), and ``away_since`` kept for the others: every state sent reads presence here,
        and a seat that goes away changes what the others are sent, so the moment it left is noted then."""
        online: set[int] = set()
        for c in self.connections:
            if c.access.role == "seat":
                online |= c.access.seats
        table = any(c.access.role == "table" for c in self.connections)
        if self.presence is not None:  # connected to another server process
            elsewhere, table_elsewhere = self.presence.online(self.id)
            online |= elsewhere
            table = table or table_elsewhere
        if table:
            online |= {i for i, s in enumerate(self.record.seats) if s["kind"] == "human"}
        now = time.monotonic()
        for i, s in enumerate(self.record.seats):
            if s["kind"] != "human" or i in online:
                self.away_since.pop(i, None)
            else:
                self.away_since.setdefault(i, now)
        return online

    def seat_info(self) -> list[dict[str, Any]]:
        online = self.note_presence()
        out = []
        for i, s in enumerate(self.record.seats):
            info = {"seat": i, "name": s["name"], "kind": s["kind"], **({"bot": s["bot"]} if s.get("bot") else {}),
                    **({"lesson": s["lesson"]} if s.get("lesson") else {}),  # a tutorial (tutorial.py)
                    "online": s["kind"] == "bot" or i in online,
                    **(self.control.seat_flags(i) if self.control is not None else {})}
            wait = self.handover_in(i)
            if wait is not None:
                info["handover_in"] = round(wait, 1)
            out.append(info)
        return out

    def handover_in(self, seat: int) -> float | None:
        """Seconds until the other seated players may hand ``seat`` to a stand-in (0: now), or None
        when they may not: its player is here, a bot already plays it, or the game is over. A seat that
        ran out its time may be handed over at once; one whose player left a game without a clock or with
        a real-time clock, once it has stayed away ``away_limit`` seconds. On a turn-based clock (hours a
        turn) being away is how the game is played: only a timeout lets the others act."""
        c = self.control
        since = self.away_since.get(seat)
        if c is None or since is None or self.game.is_over or c.standin[seat] or c.resigned[seat]:
            return None
        if c.timeouts[seat] > 0:
            return 0.0
        if c.turn_based:
            return None
        return max(0.0, self.away_limit - (time.monotonic() - since))

    def undo_refusal(self, seats: frozenset[int]) -> str | None:
        """Why a connection controlling ``seats`` may not take back the last move now (None: it may).

        Only in a game without another person (bots, or the people of one hot-seat screen) that is not
        rated; only a move the person sent themselves, that the engine says revealed nothing
        (``BaseGame.undoable``: no card from a pile, no tunnel, nobody else moved since)."""
        g = self.game
        if self.broken or g.is_over or self.record.status == "waiting":
            return "the game is not being played"
        if would_rate(self.record.game, self.record.seats):
            return "rated games have no undo"
        humans = sum(1 for s in self.record.seats if s["kind"] == "human")
        if humans > 1 and self.record.table_token is None:
            return "no undo in a game with other people"
        if not g.moves or g.move_log[-1][0] not in seats:
            return "the last move is not yours"
        if self.undo_at != len(g.moves) or self.undo_moves < 1 or g.undoable(g.move_log[-1][0]) < 1:
            return "the last move cannot be taken back: something new was seen since, or the time for it is over"
        return None

    def legal_texts(self) -> dict[str, Action]:
        """The legal moves of the player to move by their canonical text (cached for this position):
        the texts clients are sent, so a move sent back as one of them needs no parsing."""
        g = self.game
        cached = self._legal
        if cached is None or cached[0] is not g or cached[1] != len(g.moves):
            cached = self._legal = (g, len(g.moves), {str(a): a for a in g.legal_actions()})
        return cached[2]

    def state_message(self, access: Access, log_from: int = 0) -> dict[str, Any]:
        """The state for ``access``. ``log_from`` > 0: ``view.log`` holds only the entries from that
        index on (the client has the earlier ones); ignored once the game is over, when the log
        reveals every ticket choice and is sent whole."""
        g = self.game
        current = g.current_player
        seat = access.view_seat(current)
        n_log = len(g.move_log)
        if g.is_over or not 0 < log_from <= n_log:
            log_from = 0
        view = g.view(seat, log_tail=n_log - log_from) if log_from else g.view(seat)
        msg: dict[str, Any] = {
            "type": "state", "game_id": self.id, "game": self.record.game, "role": access.role, "seat": seat,
            "controls": sorted(access.seats), "moves": len(g.moves), "over": g.is_over,
            "seats": self.seat_info(), "view": view, "log_from": log_from,
        }
        if current is not None and current in access.seats and not g.is_over and self.record.status != "waiting":
            msg["legal"] = list(self.legal_texts())
        if self.broken:
            msg["broken"] = self.broken
        if access.role != "spectator" and self.undo_refusal(access.seats) is None:
            msg["can_undo"] = True
        if self.record.status == "waiting":  # open seats: nobody moves until they are taken (lobby.py)
            msg["waiting"] = True
        if self.control is not None:
            self.control.observe(g, [s["kind"] == "human" for s in self.record.seats])
            clock = self.control.block()
            if clock is not None:
                msg["clock"] = clock
        return msg

    def send_state(self, conn: Connection) -> None:
        """A full state (whole log) to one connection: after its hello, a sync or a refusal."""
        conn.send(self.state_message(conn.access))
        conn.log_sent = len(self.game.move_log)
        conn.log_seat = conn.access.view_seat(self.game.current_player)

    def broadcast(self) -> None:
        """Each connection gets the state of its own access, with the log entries it does not have yet;
        connections in the same situation (two tabs of a seat, spectators) share one built and encoded
        message."""
        self.last_used = time.monotonic()
        encoded: dict[tuple[str, frozenset[int], int], str] = {}
        n_log = len(self.game.move_log)
        current = self.game.current_player
        for c in list(self.connections):
            seat = c.access.view_seat(current)
            log_from = c.log_sent if c.log_seat == seat else 0  # hot-seat: another player's eyes, whole log
            key = (c.access.role, c.access.seats, log_from)
            try:
                text = encoded.get(key)
                if text is None:
                    text = encoded[key] = encode(self.state_message(c.access, log_from))
                c.send_text(text)
                c.log_sent, c.log_seat = n_log, seat
            except Exception:  # never let one client's view break the room
                log.exception("game %s: building a view failed", self.id)

    def forget_logs(self) -> None:
        """The stored history replaced the one in memory: every client gets the whole log again."""
        for c in self.connections:
            c.log_sent = 0


class Host(Protocol):
    """What the clocks, the resume scan and the fan-out use of the rooms (``tracklayer.server.rooms.Rooms``)."""

    store: Store
    rooms: dict[str, Room]  # the games in memory, by id
    cluster: Any  # tracklayer.server.cluster.Cluster with several processes on PostgreSQL, else None
    on_turn: list[Callable[[Room, int], None]]  # called when a person's turn begins in a turn-based game

    async def get(self, game_id: str) -> Room | None: ...

    def kick_bots(self, room: Room) -> None: ...

    def unload(self, room: Room) -> bool: ...
