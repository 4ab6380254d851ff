"""Seats never block a game: turn clocks, stand-in bots, resigning, and handing a seat to a bot.

Every game created since revision 0002 has a row in ``clocks``: its creator token (who may hand an
absent seat to a bot), its clock (or none: today's behaviour, no timeouts) and the seat control
state (which seats a stand-in bot holds, which resigned, banks, consecutive timeouts, the turn's
start and its deadline). Games made before have no row and behave as before.

The clock (Fischer-like): a seat has ``turn_seconds`` for each turn plus a bank of
``bank_seconds`` for the whole game; time over the turn allowance comes out of the bank, and when
both are gone the seat has timed out. A *turn* is the run of consecutive moves of one seat (a
ticket choice, two card draws), so the clock restarts when the mover changes.

On a timeout the seat's stand-in bot (chosen at creation; by default the family's strongest quick
level) plays that turn. Two timeouts in a row, or one on a turn-based clock (a turn of an hour or
more), and the bot *keeps* the seat until the player takes it back (the "take back my seat"
button: websocket ``{"type": "takeback"}``; deliberately not on connection, so that a stale tab
reopened later does not silently take a seat back). A seat that resigns is played by its stand-in
to the end (the rules have no resignation), is marked ``resigned`` and cannot be taken back.

Exactly once across processes: only the process that owns the game (the lease of
:mod:`tracklayer.server.lease`, taken for every unfinished game with a clock or a bot-held seat;
on SQLite the only process) writes the clock state and fires deadlines. Deadlines are stored, so a
server that restarts (or a process that takes a lease over) loads the games whose deadline is near
or past (:meth:`Clocks.scan`) and fires overdue ones at once. Seats a stand-in holds have no
deadline: :mod:`tracklayer.server.resume` loads the games a bot or a stand-in is to move in.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlalchemy import Column, Float, ForeignKey, Integer, String, Table, Text, insert, select, update

from tracklayer.bots import LIMITS, resolve_bot
from tracklayer.server.background import Background
from tracklayer.server.botpool import make_seat_bot
from tracklayer.server.catalog import BOT_LEVELS, DEFAULT_LEVEL, FAMILY_BOTS, family
from tracklayer.server.db import metadata

if TYPE_CHECKING:
    from tracklayer import Game
    from tracklayer.core.action import Action
    from tracklayer.server.db import Store
    from tracklayer.server.room import Host, Room

log = logging.getLogger("tracklayer.server")

# ---------------------------------------------------------------------------------------- schema
clocks = Table(
    "clocks", metadata,
    Column("game_id", String(32), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    Column("creator_token", String(64), nullable=False),
    Column("spec", Text, nullable=True),  # JSON {turn_seconds, bank_seconds, preset, standin} or NULL: no clock
    Column("state", Text, nullable=False),  # JSON: see Control.dump
    Column("deadline", Float, nullable=True),  # epoch seconds; NULL: nothing is counting down
    Column("version", Integer, nullable=False, default=0),  # Control.version of the stored state
    Column("updated_at", Float, nullable=False),
)

# ---------------------------------------------------------------------------------------- presets
# name -> (turn seconds, bank seconds). Real-time presets have a small bank that absorbs overruns;
# turn-based ones none (a day is long enough).
PRESETS: dict[str, tuple[int, int]] = {
    "blitz": (60, 120), "rapid": (120, 300), "standard": (300, 600),
    "day-12h": (12 * 3600, 0), "day-24h": (24 * 3600, 0), "day-72h": (72 * 3600, 0),
}
MIN_TURN = 1  # seconds (tests use 1-2 s; the lobby offers only the presets)
MAX_TURN = 14 * 24 * 3600
MAX_BANK = 24 * 3600
TURN_BASED = 3600  # a turn of an hour or more: the stand-in keeps the seat after one timeout
KEEP_AFTER = 2  # consecutive timeouts after which the stand-in keeps a real-time seat
SCAN_EVERY = 10.0  # seconds between looks for games whose deadline is near (restarts, evicted rooms)
SCAN_HORIZON = 60.0  # a game whose deadline is this close is loaded and kept in memory


def default_standin(game: str) -> str:
    """The family's "hard" level if it has one, else its default level: strong, and quick to move."""
    fam = family(game)
    levels = dict(BOT_LEVELS[fam])
    return levels.get("hard") or levels[DEFAULT_LEVEL[fam]]


def parse_standin(raw: object, game: str) -> str:
    """The stand-in bot asked for (a level of the game's family, or one of its bots), else the default."""
    if raw is None:
        return default_standin(game)
    fam = family(game)
    levels = dict(BOT_LEVELS[fam])
    if isinstance(raw, str) and raw in levels:
        return levels[raw]
    bot = resolve_bot(raw) if isinstance(raw, str) else None
    if bot is None or bot not in FAMILY_BOTS[fam] or bot in LIMITS:  # a stand-in must play any seat
        offered = [b for b in FAMILY_BOTS[fam] if b not in LIMITS]
        raise ValueError(f"'standin' must be a level ({', '.join(levels)}) or a bot of this game "
                         f"({', '.join(offered)})")
    return bot


def parse_clock(body: dict[str, Any], game: str) -> tuple[dict[str, Any] | None, str]:
    """The clock asked for in a create request, or None; ValueError with a message for a 400."""
    raw = body.get("clock")
    standin = parse_standin(body.get("standin"), game)
    if raw is None:
        return None, standin
    if not isinstance(raw, dict):
        raise ValueError("'clock' must be an object like {\"preset\": \"blitz\"} or {\"turn_seconds\": 120, "
                         "\"bank_seconds\": 300}")
    unknown = set(raw) - {"preset", "turn_seconds", "bank_seconds"}
    if unknown:
        raise ValueError(f"'clock' has unknown keys: {', '.join(sorted(map(str, unknown)))[:200]}")
    preset = raw.get("preset")
    turn: object  # the request's values (JSON), checked below
    bank: object
    if preset is not None:
        if not isinstance(preset, str) or preset not in PRESETS:
            raise ValueError(f"unknown clock preset; presets: {', '.join(PRESETS)}")
        turn, bank = PRESETS[preset]
    else:
        turn, bank = raw.get("turn_seconds"), raw.get("bank_seconds", 0)
    turn = raw.get("turn_seconds", turn)
    bank = raw.get("bank_seconds", bank)
    for key, value, low, high in (("turn_seconds", turn, MIN_TURN, MAX_TURN), ("bank_seconds", bank, 0, MAX_BANK)):
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            raise ValueError(f"'clock.{key}' must be a whole number of seconds from {low} to {high}")
    return {"turn_seconds": turn, "bank_seconds": bank, "preset": preset, "standin": standin}, standin


def standin_moves(legal: Sequence[Action]) -> Sequence[Action]:
    """The moves a stand-in may make for a seat whose player is away: the seat's legal moves but
    drawing destination tickets, unless that is the only one. A stand-in keeps the seat's game going as
    its player would; new tickets are a commitment the player never asked for (and a risk of losing
    their points)."""
    kept = [a for a in legal if getattr(a, "kind", None) != "tickets"]
    return kept if kept and len(kept) < len(legal) else legal


# ---------------------------------------------------------------------------------------- control
@dataclass
class Control:
    """Seat control and clock of one game (in memory; stored as the ``clocks`` row)."""

    creator: str
    spec: dict[str, Any] | None
    standin_bot: str
    n: int  # seats
    banks: list[float] = field(default_factory=list)
    timeouts: list[int] = field(default_factory=list)
    standin: list[bool] = field(default_factory=list)  # the stand-in bot keeps the seat
    resigned: list[bool] = field(default_factory=list)
    acting: int | None = None  # the seat whose stand-in plays this one turn (a single timeout)
    turn_seat: int | None = None
    turn_start: float = 0.0
    deadline: float | None = None
    dirty: bool = False  # changed since it was last stored
    # seat changes (timeouts, take-backs, resignations, hand-overs) made so far: a state read back from
    # the database replaces the one in memory only if it is at least as new (a write of this process
    # may still be on its way when the lease is taken, or when an older write's notification arrives)
    version: int = 0

    def __post_init__(self) -> None:
        bank = float(self.spec["bank_seconds"]) if self.spec else 0.0
        self.banks = self.banks or [bank] * self.n
        self.timeouts = self.timeouts or [0] * self.n
        self.standin = self.standin or [False] * self.n
        self.resigned = self.resigned or [False] * self.n

    @property
    def clocked(self) -> bool:
        return self.spec is not None

    @property
    def turn_based(self) -> bool:
        """Hours a turn: being away is how the game is played, and the stand-in keeps a seat after one timeout."""
        return self.spec is not None and self.spec["turn_seconds"] >= TURN_BASED

    def dump(self) -> dict[str, Any]:
        return {"banks": self.banks, "timeouts": self.timeouts, "standin": self.standin, "resigned": self.resigned,
                "acting": self.acting, "version": self.version, "turn_seat": self.turn_seat,
                "turn_start": self.turn_start, "standin_bot": self.standin_bot}

    @classmethod
    def load(cls, creator: str, spec: dict[str, Any] | None, state: dict[str, Any], n: int,
             deadline: float | None, game: str) -> Control:
        standin = state.get("standin_bot") or (spec or {}).get("standin") or default_standin(game)
        c = cls(creator=creator, spec=spec, standin_bot=standin, n=n,
                banks=[float(b) for b in state.get("banks", [])], timeouts=list(state.get("timeouts", [])),
                standin=list(state.get("standin", [])), resigned=list(state.get("resigned", [])))
        c.acting = state.get("acting")
        c.version = int(state.get("version") or 0)
        c.turn_seat = state.get("turn_seat")
        c.turn_start = float(state.get("turn_start") or 0.0)
        c.deadline = deadline
        return c

    def adopt(self, fresh: Control) -> bool:
        """Take the stored state ``fresh`` if it is not older than this one (in place: callers hold
        references to this object); True if taken."""
        if fresh.version < self.version:
            return False
        for name in ("banks", "timeouts", "standin", "resigned", "acting", "turn_seat", "turn_start", "deadline",
                     "version"):
            setattr(self, name, getattr(fresh, name))
        return True

    def bot_seats(self) -> set[int]:
        """Human seats a bot plays for now."""
        out = {i for i in range(self.n) if self.standin[i] or self.resigned[i]}
        if self.acting is not None:
            out.add(self.acting)
        return out

    def observe(self, game: Game, human: list[bool], now: float | None = None) -> bool:
        """Follow the game: when the mover changed, close the old turn (bank, timeouts, the one-turn
        stand-in) and start the new one (its deadline). Idempotent; True if anything changed."""
        seat = None if game.is_over else game.current_player
        if self.spec is None:  # no clock: nothing to time, nothing to store at each turn
            self.turn_seat = seat
            return False
        if seat == self.turn_seat and not (seat is None and self.deadline is not None):
            return False
        now = time.time() if now is None else now
        old = self.turn_seat
        if old is not None and self.spec is not None and self.acting != old and human[old] \
                and not (self.standin[old] or self.resigned[old]):
            used = now - self.turn_start
            self.banks[old] = max(0.0, self.banks[old] - max(0.0, used - self.spec["turn_seconds"]))
            self.timeouts[old] = 0  # the player moved in time: the count of timeouts in a row starts again
        if self.acting is not None and self.acting != seat:
            self.acting = None
        self.turn_seat, self.turn_start = seat, now
        self.deadline = None
        if seat is not None and self.spec is not None and human[seat] and seat not in self.bot_seats():
            self.deadline = now + self.spec["turn_seconds"] + self.banks[seat]
        self.dirty = True
        return True

    def restart_turn(self, game: Game, human: list[bool]) -> None:
        """The seat to move changed hands (taken back, handed over): its clock starts afresh, and
        nobody's bank or count of timeouts is touched."""
        seat = None if game.is_over else game.current_player
        self.turn_seat, self.turn_start, self.deadline = seat, time.time(), None
        if seat is not None and self.spec is not None and human[seat] and seat not in self.bot_seats():
            self.deadline = self.turn_start + self.spec["turn_seconds"] + self.banks[seat]
        self.dirty = True

    def block(self, now: float | None = None) -> dict[str, Any] | None:
        """The ``clock`` block of the state message (None without a clock)."""
        if self.spec is None:
            return None
        now = time.time() if now is None else now
        return {"turn_seconds": self.spec["turn_seconds"], "bank_seconds": self.spec["bank_seconds"],
                "preset": self.spec.get("preset"), "standin": self.standin_bot,
                "seat": self.turn_seat if self.deadline is not None else None,
                "turn_left": None if self.deadline is None else round(
                    max(0.0, min(self.spec["turn_seconds"], self.turn_start + self.spec["turn_seconds"] - now)), 1),
                "left": None if self.deadline is None else round(max(0.0, self.deadline - now), 1),
                "banks": [round(b, 1) for b in self.banks], "timeouts": list(self.timeouts),
                "server_time": round(now, 3)}

    def seat_flags(self, seat: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.standin[seat] or self.resigned[seat] or self.acting == seat:
            out["standin"] = True
        if self.resigned[seat]:
            out["resigned"] = True
        return out


def new_control(parsed: tuple[dict[str, Any] | None, str], n: int) -> Control:
    spec, standin = parsed
    return Control(creator=secrets.token_urlsafe(18), spec=spec,
                   standin_bot=standin, n=n)


# ---------------------------------------------------------------------------------------- storage
def store_new(store: Store, game_id: str, control: Control) -> None:
    with store.engine.begin() as conn:
        conn.execute(insert(clocks).values(
            game_id=game_id, creator_token=control.creator,
            spec=json.dumps(control.spec) if control.spec else None, state=json.dumps(control.dump()),
            deadline=control.deadline, version=control.version, updated_at=time.time()))


ORIGIN = secrets.token_hex(8)  # this process, in its notifications (it does not reload what it wrote itself)


def store_state(store: Store, game_id: str, control: Control) -> None:
    with store.engine.begin() as conn:
        # never over a newer seat change another process stored meanwhile (its notification brings it here)
        conn.execute(update(clocks).where(clocks.c.game_id == game_id, clocks.c.version <= control.version).values(
            state=json.dumps(control.dump()), deadline=control.deadline, version=control.version,
            updated_at=time.time()))
        if store.notify:  # the other processes reload it (fanout: index -1 is "the control changed")
            conn.exec_driver_sql("SELECT pg_notify('tracklayer_moves', %s)",
                                 (json.dumps([[game_id, -1, ORIGIN]]),))


def load_control(store: Store, game_id: str, n: int, game: str) -> Control | None:
    with store.engine.connect() as conn:
        row = conn.execute(select(clocks).where(clocks.c.game_id == game_id)).first()
    if row is None:
        return None
    spec = json.loads(row.spec) if row.spec else None
    return Control.load(row.creator_token, spec, json.loads(row.state), n, row.deadline, game)


def due_games(store: Store, before: float) -> list[str]:
    from tracklayer.server.db import games

    with store.engine.connect() as conn:
        return list(conn.execute(select(clocks.c.game_id).join(games, games.c.id == clocks.c.game_id)
                                 .where(clocks.c.deadline.is_not(None), clocks.c.deadline < before,
                                        games.c.status != "over")
                                 .order_by(clocks.c.deadline)).scalars().all())


# ---------------------------------------------------------------------------------------- runtime
class Clocks:
    """The clocks of the games in memory: follows moves, stores changes, fires deadlines (owner only)."""

    def __init__(self, rooms: Host) -> None:
        self.rooms = rooms
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._scanner = Background.every("tracklayer-clocks", SCAN_EVERY, lambda: self.scan(),
                                         "looking for games whose clock runs out failed")
        self._tasks: set[asyncio.Task[Any]] = set()
        self._writing: dict[str, asyncio.Lock] = {}  # one write of a game's clock at a time
        self.fired = 0  # timeouts fired by this process (tests read it through the log)

    def start(self) -> None:
        self._scanner.start()

    async def close(self) -> None:
        await self._scanner.close()
        for t in self._timers.values():
            t.cancel()

    async def scan(self) -> None:
        """Load the games whose deadline is near or past: after a restart, or when their room was
        unloaded; loading one takes its lease and schedules (or fires) its deadline."""
        due = await asyncio.to_thread(due_games, self.rooms.store, time.time() + SCAN_HORIZON)
        for game_id in due:
            if game_id not in self.rooms.rooms:
                try:  # one game that cannot be loaded must not keep the others waiting
                    room = await self.rooms.get(game_id)
                    if room is not None:
                        self.rooms.kick_bots(room)
                except Exception:
                    log.exception("game %s: loading it for its clock failed", game_id)

    def owner(self, room: Room) -> bool:
        cluster = self.rooms.cluster
        return cluster is None or cluster.owns(room.id)

    @staticmethod
    def human(room: Room) -> list[bool]:
        return [s["kind"] == "human" for s in room.record.seats]

    def sync_bots(self, room: Room) -> None:
        """Put stand-in bots in the seats the control says a bot plays, and take them out of the others."""
        c: Control = room.control
        want = c.bot_seats()
        for i, s in enumerate(room.record.seats):
            if s["kind"] != "human":
                continue
            if i in want and i not in room.bots:
                room.bots[i] = make_seat_bot(c.standin_bot)
            elif i not in want and i in room.bots:
                del room.bots[i]
        if want and self.rooms.cluster is not None and not room.game.is_over:
            self.rooms.cluster.lease.want(room.id)

    def tick(self, room: Room) -> None:
        """After anything happened to the room: follow the turn, store what changed, (re)schedule."""
        c: Control | None = getattr(room, "control", None)
        if c is None:
            return
        changed = c.observe(room.game, self.human(room))
        self.sync_bots(room)
        owner = self.owner(room)
        if (c.dirty or changed) and owner:
            c.dirty = False
            self.spawn(self._store(room.id, c))
        if changed and not owner:
            c.dirty = False
        if changed and owner and c.deadline is not None and c.turn_seat is not None \
                and c.spec is not None and c.spec["turn_seconds"] >= TURN_BASED:
            for hook in self.rooms.on_turn:  # a person's turn began in a turn-based game ("your turn" mail)
                try:
                    hook(room, c.turn_seat)
                except Exception:
                    log.exception("game %s: a turn hook failed", room.id)
        self._schedule(room, owner)

    async def _store(self, game_id: str, c: Control) -> None:
        try:
            async with self._writing.setdefault(game_id, asyncio.Lock()):  # in order: the newest state last
                await asyncio.to_thread(store_state, self.rooms.store, game_id, c)
        except Exception:
            log.exception("game %s: storing its clock failed", game_id)

    def _schedule(self, room: Room, owner: bool) -> None:
        c: Control = room.control
        old = self._timers.pop(room.id, None)
        if old is not None:
            old.cancel()
        if not owner or c.deadline is None or room.game.is_over or room.broken:
            return
        delay = max(0.0, c.deadline - time.time())
        loop = asyncio.get_running_loop()
        seat, deadline = c.turn_seat, c.deadline
        self._timers[room.id] = loop.call_later(delay, lambda: self.spawn(self._fire(room, seat, deadline)))

    def spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)  # a task nobody references may be collected before it ends
        task.add_done_callback(self._tasks.discard)

    async def _fire(self, room: Room, seat: int | None, deadline: float | None) -> None:
        async with room.lock:
            c: Control = room.control
            if self.rooms.rooms.get(room.id) is not room or not self.owner(room):
                return
            # this very deadline, still pending (not a turn that ended meanwhile, nor one fired already)
            if seat is None or c.turn_seat != seat or c.deadline is None or c.deadline != deadline \
                    or room.game.is_over:
                return
            if time.time() < c.deadline - 0.05:  # woke up early: schedule again
                self._schedule(room, True)
                return
            c.timeouts[seat] += 1
            c.banks[seat] = 0.0
            assert c.spec is not None
            if c.timeouts[seat] >= KEEP_AFTER or c.spec["turn_seconds"] >= TURN_BASED:
                c.standin[seat] = True
            c.acting = seat
            c.deadline = None
            c.dirty = True
            c.version += 1
            self.fired += 1
            log.info("game %s: seat %d timed out (%d in a row); its stand-in bot plays%s", room.id, seat,
                     c.timeouts[seat], " and keeps the seat" if c.standin[seat] else " this turn")
            self.sync_bots(room)
            room.broadcast()
        self.rooms.kick_bots(room)

    # ------------------------------------------------------------------ seat changes asked for by people
    async def change(self, room: Room, seat: int, what: str) -> None:
        """``takeback``, ``resign`` or ``handover`` of ``seat`` (rights checked by the caller)."""
        async with room.lock:
            c: Control = room.control
            if room.game.is_over:
                raise ValueError("the game is over")
            if what == "takeback":
                if c.resigned[seat]:
                    raise ValueError("a seat that resigned cannot be taken back")
                if not (c.standin[seat] or c.acting == seat):
                    raise ValueError("no bot plays this seat")
                c.standin[seat] = False
                c.timeouts[seat] = 0
                if c.acting == seat:
                    c.acting = None
            elif what == "resign":
                if c.resigned[seat]:
                    raise ValueError("this seat has already resigned")
                c.resigned[seat] = True
            elif what == "handover":
                if c.resigned[seat] or c.standin[seat]:
                    raise ValueError("a bot already plays this seat")
                c.standin[seat] = True
            if c.turn_seat == seat:
                c.restart_turn(room.game, self.human(room))
            c.dirty = True
            c.version += 1
            self.sync_bots(room)
            async with self._writing.setdefault(room.id, asyncio.Lock()):
                await asyncio.to_thread(store_state, self.rooms.store, room.id, c)
            c.dirty = False
            log.info("game %s: seat %d: %s", room.id, seat, what)
            room.broadcast()
        self.tick(room)
        self.rooms.kick_bots(room)

    async def reload(self, game_id: str, origin: str = "") -> None:
        """Another process changed the control of a game: read it again."""
        if origin == ORIGIN:
            return
        room = self.rooms.rooms.get(game_id)
        if room is None or getattr(room, "control", None) is None:
            return
        fresh = await asyncio.to_thread(load_control, self.rooms.store, game_id, len(room.record.seats),
                                        room.record.game)
        async with room.lock:
            if fresh is None or not room.control.adopt(fresh):
                return
            room.control.dirty = False
            self.sync_bots(room)
            room.broadcast()
        self.rooms.kick_bots(room)  # follows the turn (the stored one may be older) and schedules the deadline


# ---------------------------------------------------------------------------------------- HTTP
def annotate_clocks(store: Store, listed: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Lobby lists: each game gains ``clock`` (its preset name and seconds, or None)."""
    ids = [g["id"] for g in listed]
    if not ids:
        return listed
    with store.engine.connect() as conn:
        rows = conn.execute(select(clocks.c.game_id, clocks.c.spec).where(clocks.c.game_id.in_(ids))).all()
    specs: dict[str, Any] = {}
    for r in rows:
        with contextlib.suppress(ValueError, TypeError):
            spec = json.loads(r.spec) if r.spec else None
            specs[r.game_id] = spec and {k: spec.get(k) for k in ("preset", "turn_seconds", "bank_seconds")}
    for g in listed:
        g["clock"] = specs.get(g["id"])
    return listed
