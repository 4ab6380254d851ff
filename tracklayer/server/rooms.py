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
import queue
import secrets
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import tracklayer
from tracklayer.bots.base import bot_view
from tracklayer.server.accounts.store import would_rate
from tracklayer.server.botpool import BotPool, SeatBot, make_seat_bot
from tracklayer.server.clocks import SCAN_HORIZON, TURN_BASED, Clocks, load_control, standin_moves
from tracklayer.server.db import GameRecord, MoveConflict, Store
from tracklayer.server.resume import Resume

log = logging.getLogger("tracklayer.server")

MAX_MOVE_TEXT = 400


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
    game: Any
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    connections: set[Connection] = field(default_factory=set)
    bots: dict[int, SeatBot] = field(default_factory=dict)
    bot_task: asyncio.Task[None] | None = None
    broken: str | None = None
    last_used: float = field(default_factory=time.monotonic)
    _legal: tuple[Any, int, dict[str, Any]] | None = None
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

    def set_game(self, game: Any) -> None:
        """Hold ``game`` from now on. Every game a room holds keeps what each of its moves revealed, which
        is what undo needs and what the engine keeps only if asked: assign ``game`` through here only."""
        if game is not None:
            game.track_reveals()
        self.game = game

    @property
    def id(self) -> str:
        return self.record.id

    def access(self, token: Any) -> Access | None:
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
        if c.spec is not None and c.spec["turn_seconds"] >= TURN_BASED:
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

    def legal_texts(self) -> dict[str, Any]:
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


class Committer:
    """Group commit in a dedicated writer thread: moves of different games waiting at the same time
    share one transaction.

    Each caller still waits for *its* move to be committed (or refused as a conflict) before it
    acknowledges anything, so durability is unchanged; the database just fsyncs once per batch.
    The thread keeps SQL and fsync off the event loop and forms the next batch while the current
    one is being written, without the loop having to schedule anything.
    """

    def __init__(self, store: Store, max_batch: int = 512) -> None:
        self.store = store
        self.max_batch = max_batch
        self._queue: queue.SimpleQueue[_Pending | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    async def append(self, game_id: str, idx: int, text: str, status: str | None) -> None:
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[None] = loop.create_future()
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="tracklayer-writer", daemon=True)
                self._thread.start()
        self._queue.put(((game_id, idx, text, status), loop, fut))
        await fut

    def _run(self) -> None:
        while True:
            first = self._queue.get()
            if first is None:
                return
            batch = [first]
            stop = False
            while len(batch) < self.max_batch:
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    stop = True
                    break
                batch.append(more)
            try:
                stored = self.store.append_batch([item for item, _, _ in batch])
            except Exception as exc:  # every waiting move learns the failure
                outcomes: list[BaseException | None] = [exc] * len(batch)
            else:
                outcomes = [None if ok else MoveConflict(f"move {item[1]} of game {item[0]} is already stored")
                            for (item, _, _), ok in zip(batch, stored, strict=True)]
            by_loop: dict[asyncio.AbstractEventLoop, list[tuple[asyncio.Future[None], BaseException | None]]] = {}
            for (_, loop, fut), outcome in zip(batch, outcomes, strict=True):
                by_loop.setdefault(loop, []).append((fut, outcome))
            for loop, settled in by_loop.items():  # one wake-up of the loop per batch, not one per move
                with contextlib.suppress(RuntimeError):  # a closed loop has nobody left to tell
                    loop.call_soon_threadsafe(_settle, settled)
            if stop:
                return

    def close(self) -> None:
        """Write what is queued, then stop the thread."""
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join(10)


_Pending = tuple[tuple[str, int, str, "str | None"], asyncio.AbstractEventLoop, "asyncio.Future[None]"]


def _settle(settled: list[tuple[asyncio.Future[None], BaseException | None]]) -> None:
    """Resolve waiting moves' futures (in the event loop): stored, or the error that refused them."""
    for fut, error in settled:
        if fut.done():  # its caller was cancelled
            continue
        if error is None:
            fut.set_result(None)
        else:
            fut.set_exception(error)


def _status(game: Any) -> str:
    return "over" if game.is_over else ("running" if game.moves else "open")


class Rooms:
    """The games in memory: each loaded from the database on first use (replaying its moves) and
    unloaded again once idle, so memory holds the games being played rather than every game ever.

    A room is idle when nobody is connected, no bot of it is moving and nothing touched it for
    ``idle_seconds``; past ``max_rooms`` the least recently used idle rooms go first, however
    recently used. Nothing is lost by unloading: every move is in the database, and the room is
    rebuilt from it when the game is next opened.
    """

    def __init__(self, store: Store, bot_delay: float = 0.4, idle_seconds: float = 900.0,
                 max_rooms: int = 2000, pool: BotPool | None = None, away_seconds: float = 120.0,
                 undo_grace: float = 5.0) -> None:
        self.store = store
        self.undo_grace = undo_grace  # seconds bots wait after a move its player may take back
        self.away_seconds = away_seconds
        self._pool = pool
        self.bot_moves: dict[str, int] = {"pool": 0, "inline": 0, "fallback": 0}
        self.bot_delay = bot_delay
        self.idle_seconds = idle_seconds
        self.max_rooms = max_rooms
        self.rooms: dict[str, Room] = {}
        self.committer = Committer(store)
        self._loading: dict[str, asyncio.Lock] = {}
        self._sweeper: asyncio.Task[None] | None = None
        self.cluster: Any = None  # several processes on PostgreSQL: tracklayer.server.cluster.Cluster
        self.chat: Any = None  # tracklayer.server.chat.ChatHub (set by the app)
        # tracklayer.server.lobby.Matchmaker (set by the app): fanout.py refreshes waiting games with it
        self.matchmaker: Any = None
        self.clocks = Clocks(self)  # turn clocks and stand-in bots (tracklayer.server.clocks)
        self.resume = Resume(self)  # games a bot is to move in, loaded with nobody there (tracklayer.server.resume)
        self.on_over: list[Callable[[Room], None]] = []  # called once a move stored here ended a game

    @property
    def pool(self) -> BotPool:
        """Where bots think (made on first use when none was given)."""
        if self._pool is None:
            self._pool = BotPool()
        return self._pool

    def start(self) -> None:
        """Unload idle rooms from time to time, and load the games a bot is to move in (call with the
        event loop running)."""
        if self._sweeper is None:
            self._sweeper = asyncio.get_running_loop().create_task(self._sweep())
        self.clocks.start()
        self.resume.start()

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(min(max(self.idle_seconds / 2, 0.05), 30.0))
            self.evict()

    @staticmethod
    def _busy(room: Room) -> bool:
        deadline = room.control.deadline if room.control is not None else None
        bots = room.bot_task is not None and not room.bot_task.done()
        soon = deadline is not None and deadline < time.time() + SCAN_HORIZON  # a clock about to fire
        return bool(room.connections) or room.lock.locked() or bots or soon

    def connections_changed(self, room: Room) -> None:
        """A websocket joined or left ``room``: the other server processes show its seats online or not."""
        if self.cluster is not None:
            self.cluster.presence.changed(room)

    def evict(self, now: float | None = None) -> list[str]:
        """Unload idle rooms (and the least recently used ones past ``max_rooms``); returns their ids."""
        now = time.monotonic() if now is None else now
        idle = sorted((r for r in self.rooms.values() if not self._busy(r)), key=lambda r: r.last_used)
        over = len(self.rooms) - self.max_rooms
        gone: list[str] = []
        for room in idle:
            if now - room.last_used < self.idle_seconds and len(gone) >= over:
                break  # the rest were used more recently still
            self._unload(room)
            gone.append(room.id)
        return gone

    def unload(self, room: Room) -> bool:
        """Unload ``room`` now if it is idle (a room loaded only to look at it); True if unloaded."""
        if self.rooms.get(room.id) is not room or self._busy(room):
            return False
        self._unload(room)
        return True

    def _unload(self, room: Room) -> None:
        del self.rooms[room.id]
        if self.cluster is not None:
            self.cluster.unloaded(room.id)
        log.info("game %s unloaded (idle)", room.id)

    async def get(self, game_id: str) -> Room | None:
        room = self.rooms.get(game_id)
        if room is not None:
            room.last_used = time.monotonic()
            return room
        lock = self._loading.setdefault(game_id, asyncio.Lock())
        try:
            async with lock:
                room = self.rooms.get(game_id)
                if room is None:
                    try:
                        rec = await asyncio.to_thread(self.store.load_game, game_id)
                        if rec is None:
                            return None
                        room = await asyncio.to_thread(self._build, rec)
                    except (ValueError, KeyError, TypeError, tracklayer.TracklayerError):
                        # a row this server cannot read is a game nobody can open, not a 500 (the
                        # database failing is still one)
                        log.exception("game %s cannot be loaded", game_id)
                        return None
                    self._warm(room)
                    self.rooms[game_id] = room
                    if self.cluster is not None:
                        self.cluster.loaded(room)
            return room
        finally:  # also for unknown ids (a forged link must not leave a lock behind for ever)
            self._loading.pop(game_id, None)

    def _build(self, rec: GameRecord) -> Room:
        broken = None
        try:
            game = tracklayer.load_game({**rec.setup, "moves": rec.moves})
        except tracklayer.TracklayerError as exc:  # the engine changed under a stored game: show it, keep the log
            log.error("game %s cannot be replayed: %s", rec.id, exc)
            game = tracklayer.load_game({**rec.setup, "moves": []})
            broken = "this game's stored moves cannot be replayed by this version of tracklayer"
        room = Room(record=rec, game=game, broken=broken, away_limit=self.away_seconds)
        room.control = load_control(self.store, rec.id, len(rec.seats), rec.game)
        rec.moves = []  # the engine holds the moves from here on
        self._seat_bots(room)
        log.info("game %s loaded (%d moves)", rec.id, len(game.moves))
        return room

    def add(self, rec: GameRecord, game: Any, control: Any = None) -> Room:
        room = Room(record=rec, game=game, control=control, away_limit=self.away_seconds)
        self._seat_bots(room)
        self._warm(room)
        self.rooms[rec.id] = room
        if self.cluster is not None:
            self.cluster.loaded(room)
        return room

    @staticmethod
    def _seat_bots(room: Room) -> None:
        for i, s in enumerate(room.record.seats):
            if s["kind"] == "bot":
                room.bots[i] = make_seat_bot(s.get("bot") or "bot")
        if room.control is not None:  # seats a stand-in bot holds
            for i in room.control.bot_seats():
                room.bots[i] = make_seat_bot(room.control.standin_bot)

    def _warm(self, room: Room) -> None:
        """The first room with a bot that thinks in the pool starts the pool's workers (a server
        nobody plays such bots on never starts them). In the event loop: the pool is not thread-safe."""
        if any(b.inline is None for b in room.bots.values()):
            self.pool.warm()

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
            if room.record.status == "waiting":
                raise ProtocolError("waiting", "the game starts when every seat is taken")
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
                action = candidate.apply(room.legal_texts().get(text, text))
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
        # the run of one person's moves: another seat's move (hot-seat) starts a new one
        same = room.undo_at == n and n > 0 and room.game.move_log[-1][0] == candidate.move_log[-1][0]
        room.undo_moves = room.undo_moves + 1 if same else 1
        room.undo_at = n + 1
        room.set_game(candidate)
        room.record.status = _status(candidate)
        self.clocks.tick(room)
        log.debug("game %s: move %d by seat %s stored", room.id, n, candidate.move_log[-1][0])
        if sender is not None:
            sender.send(ack)
        room.broadcast()
        self._ended(room)
        self.kick_bots(room)

    def _ended(self, room: Room) -> None:
        """The hooks of a game this process just finished (ratings: tracklayer.server.accounts)."""
        if room.game.is_over:
            for hook in self.on_over:
                try:
                    hook(room)
                except Exception:
                    log.exception("game %s: a game-over hook failed", room.id)

    async def _reload(self, room: Room) -> None:
        texts = await asyncio.to_thread(self.store.load_moves, room.id)
        room.undo_moves = 0
        room.set_game(tracklayer.load_game({**room.record.setup, "moves": texts}))
        room.forget_logs()
        room.broadcast()

    # ------------------------------------------------------------------ undo
    async def undo(self, room: Room, seats: Iterable[int], sender: Connection | None = None) -> None:
        """Take back the last move (docs/protocol.md#undo): rebuild the game without it, delete it from the
        database in one transaction, and publish the position from before it; or raise ProtocolError."""
        seats = frozenset(seats)
        async with room.lock:
            why = room.undo_refusal(seats)
            if why is not None:
                raise ProtocolError("undo", why)
            g = room.game
            n = len(g.moves)
            candidate = await asyncio.to_thread(g.undone, 1)
            try:
                await asyncio.to_thread(self.store.take_back, room.id, n - 1, n, _status(candidate))
            except MoveConflict:
                await self._reload(room)
                raise ProtocolError("conflict", "another move was stored at the same time; the game has been "
                                                "refreshed", moves=len(room.game.moves)) from None
            except Exception:
                log.exception("game %s: taking back move %d failed", room.id, n - 1)
                raise ProtocolError("storage", "the move could not be taken back; nothing changed, try again") from None
            room.set_game(candidate)
            room.record.status = _status(candidate)
            room.undo_moves -= 1
            room.undo_at = n - 1
            self._release(room)
            self.clocks.tick(room)
            log.info("game %s: move %d taken back by seat %s", room.id, n - 1, g.move_log[-1][0])
            if sender is not None:
                sender.send({"type": "undone", "moves": n - 1})
            room.forget_logs()  # the log lost its last entry: every client gets it whole
            room.broadcast()
        self.kick_bots(room)

    def done(self, room: Room, seats: Iterable[int]) -> None:
        """The person will not take their move back: the bots waiting for them move now."""
        if room.undo_refusal(frozenset(seats)) is None:
            room.undo_moves = 0
            self._release(room)
            room.broadcast()

    @staticmethod
    def _release(room: Room) -> None:
        if room.undo_release is not None:
            room.undo_release.set()
            room.undo_release = None

    async def _wait_for_undo(self, room: Room) -> None:
        """While the last move may still be taken back, bots wait for its player: until an undo, a "done",
        or ``undo_grace`` seconds; then the move is final (no undo once the bots go on)."""
        if self.undo_grace <= 0 or not room.game.moves:
            return
        if room.undo_refusal(frozenset({room.game.move_log[-1][0]})) is not None:
            return
        release = room.undo_release = asyncio.Event()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(self.undo_grace):  # never wait_for: tracklayer/server/lease.py
                await release.wait()
        if room.undo_release is release:  # the grace passed: the move stands
            room.undo_release = None
            room.undo_moves = 0
            room.broadcast()

    # ------------------------------------------------------------------ bots
    def kick_bots(self, room: Room) -> None:
        self.clocks.tick(room)
        g = room.game
        if g.is_over or room.broken or g.current_player not in room.bots or room.record.status == "waiting":
            return
        if self.cluster is not None and not self.cluster.owns(room.id):
            return  # another server process runs this game's bots
        if room.bot_task is None or room.bot_task.done():
            room.bot_task = asyncio.get_running_loop().create_task(self._run_bots(room))

    async def _run_bots(self, room: Room) -> None:
        while True:
            await self._wait_for_undo(room)
            if self.bot_delay:
                await asyncio.sleep(self.bot_delay)
            async with room.lock:
                g = room.game
                seat = g.current_player
                if g.is_over or room.broken or seat not in room.bots or room.record.status == "waiting":
                    return
                candidate = g.clone()
                try:
                    candidate.apply(await self._bot_action(room, seat, candidate))
                except Exception:  # a bot that fails (or has no plan for this game) still moves
                    log.exception("game %s: bot of seat %d failed; it plays a random legal move", room.id, seat)
                    candidate = g.clone()
                    legal = candidate.legal_actions()
                    candidate.apply(legal[secrets.randbelow(len(legal))])
                try:
                    await self._commit_bot(room, candidate, len(g.moves), str(candidate.moves[-1]))
                except ProtocolError:
                    await asyncio.sleep(1)

    async def _bot_action(self, room: Room, seat: int, game: Any) -> Any:
        """The move of the bot at ``seat``: thought out in the pool (a cheap bot: here), or the seat's
        fallback move when the pool gives no answer in time."""
        bot = room.bots[seat]
        legal = game.legal_actions()
        if room.record.seats[seat]["kind"] == "human":  # a stand-in plays for a person who is away
            legal = standin_moves(legal)
        if bot.inline is not None:
            self.bot_moves["inline"] += 1
            return bot.inline.choose(bot_view(bot.inline, game, seat), legal)
        urgent = any(s["kind"] == "human" for s in room.record.seats)  # somebody waits for this move
        choice = bot.last = await self.pool.choose(bot.name, bot.seed, game.view(seat), legal, urgent)
        if choice.index is None:
            log.warning("game %s: bot of seat %d gave no move (%s); a fallback move is played", room.id, seat,
                        choice.reason)
            self.bot_moves["fallback"] += 1
            return bot.fallback.choose({}, legal)
        self.bot_moves["pool"] += 1
        return legal[choice.index]

    async def _commit_bot(self, room: Room, candidate: Any, n: int, text: str) -> None:
        try:
            await self.committer.append(room.id, n, text, _status(candidate))
        except MoveConflict:
            await self._reload(room)
            raise ProtocolError("conflict", "refreshed") from None
        except Exception:
            log.exception("game %s: storing bot move %d failed", room.id, n)
            raise ProtocolError("storage", "storage failed") from None
        room.undo_moves = 0
        room.set_game(candidate)
        room.record.status = _status(candidate)
        self.clocks.tick(room)
        log.debug("game %s: move %d by bot seat %s stored", room.id, n, candidate.move_log[-1][0])
        room.broadcast()
        self._ended(room)

    async def close(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
        await self.clocks.close()
        await self.resume.close()
        self.committer.close()
        for room in self.rooms.values():
            if room.bot_task is not None:
                room.bot_task.cancel()
            for c in room.connections:
                c.close()
        if self._pool is not None:
            self._pool.close()
