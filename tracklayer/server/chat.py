"""Chat in every game: players and spectators, stored with the game, delivered over the game's websocket.

A client sends ``{"type": "chat", "text": ...}``; the server cleans the text (control and bidi
characters out, at most :data:`MAX_CHAT` characters), checks two token buckets (the connection's and
the seat's: a player with two tabs, or a spectator reconnecting, does not get double the rate),
stores it as the next row of the ``chat`` table (``(game_id, idx)`` is the key, like moves) and then
pushes ``{"type": "chat", ...}`` to every connection of the game. A connection gets the last
:data:`HISTORY` messages as ``{"type": "chat_history", "messages": [...]}`` right after its first state.

Several server processes on PostgreSQL: the row is announced with ``pg_notify`` on
:data:`CHANNEL` in the transaction that stores it (like moves, see ``fanout.py``), and the
listener of every other process pushes it to its own connections of that game. The payload names the
process that wrote it, which has already delivered it and ignores its own notification.

Authors are told apart by role: a seat (its name and seat number, shown with the seat's symbol),
the hot-seat table, or a spectator (no name: spectators are anonymous). Spectators' messages reach
the players too, marked as such (as on Board Game Arena). The text is shown by the client as text,
never as HTML.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import re
import secrets
import time
import unicodedata
import weakref
from typing import TYPE_CHECKING, Any

from sqlalchemy import Column, Float, ForeignKey, Integer, String, Table, Text, func, insert, select
from sqlalchemy.exc import IntegrityError

from tracklayer.server.db import metadata
from tracklayer.server.guard import sanitise
from tracklayer.server.notify import CHAT_CHANNEL

if TYPE_CHECKING:
    from tracklayer.server.db import Store
    from tracklayer.server.room import Connection, Room
    from tracklayer.server.rooms import Rooms

log = logging.getLogger("tracklayer.server")

CHANNEL = CHAT_CHANNEL
MAX_CHAT = 500  # characters of one message
HISTORY = 100  # messages sent on connect
RATE_COUNT = 5  # messages ...
RATE_WINDOW = 10.0  # ... per this many seconds, per connection and per seat (spectators: per connection)
ORIGIN = secrets.token_hex(8)  # this process, in its notifications

chat = Table(
    "chat", metadata,
    Column("game_id", String(32), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    Column("idx", Integer, primary_key=True, autoincrement=False),
    Column("role", String(16), nullable=False),  # seat | table | spectator
    Column("seat", Integer, nullable=True),
    Column("name", String(64), nullable=True),
    Column("text", Text, nullable=False),
    Column("created_at", Float, nullable=False),
)

_BIDI = re.compile("[\u200e\u200f\u202a-\u202e\u2066-\u2069]")  # text direction overrides: spoofing, not text


class ChatError(Exception):
    """A chat message refused: ``code`` is the protocol error code (``bad-chat`` or ``chat-rate``)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def clean_text(raw: object) -> str:
    """The message as stored: a string with control characters removed (newlines and tabs become
    spaces), no text-direction overrides, spaces collapsed at the ends; refused if empty or too long."""
    if not isinstance(raw, str):
        raise ChatError("bad-chat", "a chat message is {\"type\": \"chat\", \"text\": \"...\"} with a text")
    valid, _ = sanitise(raw)
    text = "".join(" " if ch in "\n\r\t" else ch for ch in valid
                   if ch in "\n\r\t" or unicodedata.category(ch) not in ("Cc", "Cs"))
    text = _BIDI.sub("", text).strip()
    if not text:
        raise ChatError("bad-chat", "a chat message cannot be empty")
    if len(text) > MAX_CHAT:
        raise ChatError("bad-chat", f"a chat message is at most {MAX_CHAT} characters")
    return text


class Bucket:
    """At most ``count`` messages in any ``window`` seconds (a sliding window of send times)."""

    def __init__(self, count: int = RATE_COUNT, window: float = RATE_WINDOW) -> None:
        self.count = count
        self.window = window
        self.times: list[float] = []

    def wait(self, now: float) -> float:
        """Seconds until one more message is allowed (0: now)."""
        self.times = [t for t in self.times if now - t < self.window]
        return 0.0 if len(self.times) < self.count else self.window - (now - self.times[0])

    def take(self, now: float) -> None:
        self.times.append(now)


def _row(r: Any) -> dict[str, Any]:
    entry, _ = sanitise({"type": "chat", "idx": int(r.idx), "role": r.role, "seat": r.seat, "name": r.name,
                         "text": r.text, "time": float(r.created_at)})
    return entry


def store_message(store: Store, game_id: str, role: str, seat: int | None, name: str | None,
                  text: str) -> dict[str, Any]:
    """Append a message to the game's chat (next index; PostgreSQL: announced on commit)."""
    engine = store.engine
    for _ in range(8):  # two writers racing for one index: the loser takes the next one
        now = time.time()
        try:
            with engine.begin() as conn:
                idx = conn.execute(select(func.coalesce(func.max(chat.c.idx), -1) + 1)
                                   .where(chat.c.game_id == game_id)).scalar_one()
                conn.execute(insert(chat).values(game_id=game_id, idx=idx, role=role, seat=seat, name=name,
                                                 text=text, created_at=now))
                entry = {"type": "chat", "idx": int(idx), "role": role, "seat": seat, "name": name, "text": text,
                         "time": now}
                if engine.dialect.name == "postgresql":
                    payload = json.dumps({"o": ORIGIN, "g": game_id, "m": entry}, separators=(",", ":"))
                    conn.exec_driver_sql("SELECT pg_notify(%s, %s)", (CHANNEL, payload))
                return entry
        except IntegrityError:
            continue
    raise ChatError("bad-chat", "the message could not be stored; try again")


def load_history(store: Store, game_id: str, limit: int = HISTORY) -> list[dict[str, Any]]:
    """The last ``limit`` messages of a game, oldest first."""
    with store.engine.connect() as conn:
        rows = conn.execute(select(chat).where(chat.c.game_id == game_id)
                            .order_by(chat.c.idx.desc()).limit(limit)).all()
    return [_row(r) for r in reversed(rows)]


class ChatHub:
    """Chat of the games of this process: rate limits, storing, delivery (local and from other processes)."""

    def __init__(self, rooms: Rooms) -> None:
        self.rooms = rooms
        self._per_conn: weakref.WeakKeyDictionary[Connection, Bucket] = weakref.WeakKeyDictionary()
        self._per_seat: dict[tuple[str, int], Bucket] = {}

    def _author(self, room: Room, conn: Connection) -> tuple[str, int | None, str | None]:
        access = conn.access
        if access.role == "seat":
            seat = next(iter(access.seats))
            return "seat", seat, str(room.record.seats[seat]["name"])
        if access.role == "table":
            return "table", None, None
        return "spectator", None, None

    async def post(self, room: Room, conn: Connection, raw: object) -> None:
        """Handle ``{"type": "chat"}`` from ``conn``: refuse (ChatError) or store and deliver."""
        text = clean_text(raw)
        role, seat, name = self._author(room, conn)
        now = time.monotonic()
        buckets = [self._per_conn.setdefault(conn, Bucket())]
        if seat is not None:
            if len(self._per_seat) > 10_000:  # forget old windows now and then
                for key, old in list(self._per_seat.items()):
                    old.wait(now)  # drops the send times out of the window
                    if not old.times:
                        del self._per_seat[key]
            buckets.append(self._per_seat.setdefault((room.id, seat), Bucket()))
        wait = max(b.wait(now) for b in buckets)
        if wait > 0:
            raise ChatError("chat-rate", f"at most {RATE_COUNT} chat messages in {RATE_WINDOW:g} seconds: "
                                         f"wait {math.ceil(wait)} s")
        for b in buckets:
            b.take(now)
        entry = await asyncio.to_thread(store_message, self.rooms.store, room.id, role, seat, name, text)
        self.deliver(room, entry)

    @staticmethod
    def deliver(room: Room, entry: dict[str, Any]) -> None:
        text = json.dumps(entry, separators=(",", ":"), ensure_ascii=False)
        for c in list(room.connections):
            c.send_text(text)

    async def welcome(self, room: Room, conn: Connection) -> None:
        """The recent history to a connection that just joined."""
        try:
            history = await asyncio.to_thread(load_history, self.rooms.store, room.id)
        except Exception:
            log.exception("game %s: chat history could not be read", room.id)
            history = []
        conn.send({"type": "chat_history", "messages": history})

    def heard(self, payload: str) -> None:
        """A notification on :data:`CHANNEL` (another process stored a message)."""
        try:
            data = json.loads(payload)
            if data.get("o") == ORIGIN:
                return
            room = self.rooms.rooms.get(data["g"])
            entry = data["m"]
        except (ValueError, KeyError, TypeError, AttributeError):
            log.warning("chat listener: a notification that is not understood (ignored)")
            return
        if room is not None and isinstance(entry, dict) and entry.get("type") == "chat":
            self.deliver(room, entry)
