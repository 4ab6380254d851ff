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
import logging
import queue
import secrets
import threading
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import tracklayer
from tracklayer.bots.base import bot_view
from tracklayer.server.botpool import BotPool, make_seat_bot
from tracklayer.server.clocks import SCAN_HORIZON, Clocks, load_control, standin_moves
from tracklayer.server.db import GameRecord, MoveConflict, Store
from tracklayer.server.resume import Resume
from tracklayer.server.room import Connection, ProtocolError, Room

if TYPE_CHECKING:
    from tracklayer import Game
    from tracklayer.core.action import Action
    from tracklayer.server.clocks import Control

log = logging.getLogger("tracklayer.server")

MAX_MOVE_TEXT = 400


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


def _status(game: Game) -> str:
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
        # called when a person's turn begins in a turn-based game, in the process that owns its clock
        self.on_turn: list[Callable[[Room, int], None]] = []

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

    def add(self, rec: GameRecord, game: Game, control: Control | None = None) -> Room:
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
                room.bots[i] = make_seat_bot(s.get("bot") or "bot", s.get("seed"))
        if room.control is not None:  # seats a stand-in bot holds
            for i in room.control.bot_seats():
                room.bots[i] = make_seat_bot(room.control.standin_bot)

    def _warm(self, room: Room) -> None:
        """The first room with a bot that thinks in the pool starts the pool's workers (a server
        nobody plays such bots on never starts them). In the event loop: the pool is not thread-safe."""
        if any(b.inline is None for b in room.bots.values()):
            self.pool.warm()

    # ------------------------------------------------------------------ moves
    async def play(self, room: Room, seats: Iterable[int], text: object, expect: object,
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

    async def _commit(self, room: Room, candidate: Game, n: int, text: str, sender: Connection | None,
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
            candidate = await asyncio.to_thread(lambda: g.undone(1))
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

    async def _bot_action(self, room: Room, seat: int, game: Game) -> Action:
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

    async def _commit_bot(self, room: Room, candidate: Game, n: int, text: str) -> None:
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
