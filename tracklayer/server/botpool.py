"""Bots think in worker processes, never in the server's event loop or its thread pool.

Twenty games of five ``mcts`` bots used to make the lobby list take 9-16 s and a human's move 0.48 s:
bots thought in ``asyncio.to_thread``, the same small thread pool the database calls use, and under
the same GIL as the event loop. Now a :class:`BotPool` (a ``ProcessPoolExecutor`` of ``workers``
processes, at a lower CPU priority than the server) is sent ``(bot name, seed, view, legal
actions, deadline)`` and answers the index of the chosen action. The server process only builds the
view and applies the answer.

The pool hands its workers one job each and keeps the other requests itself, in order of priority:
the moves of bots in games with a human seat (somebody is waiting for them) before those of bot-only
games, first come first served within each. So bot-only games, however many, delay a person's game
by at most the job a worker is busy with.

Every move has a time cap (``move_seconds``), counted from the request. The bot is told it (a
:class:`Budget` of the default search iterations *and* the seconds left, so a search bot stops in
time and, when it does not hit the cap, chooses exactly as before); a request still waiting for a
worker when its time is up is dropped; if no answer comes in time the caller plays a cheap fallback
move, so a game never stalls. A worker that dies breaks the executor: the pool is recreated. A job
nobody waits for any more is left to finish (its worker stays taken until then); one still
unfinished a whole cap after it was given up is stuck, and once as many jobs are stuck as there are
workers, or one for ``STUCK_SECONDS``, the pool is recreated (its processes killed), so runaway bots
cannot starve the others.

Determinism: registry bots other than ``random`` choose as a function of (seed, view) (their
per-move RNG comes from ``move_seed``), so whichever worker builds them from (name, seed) plays the
same move. The random bot draws from one stream over its life, so it runs in the server process
(``INLINE_BOTS``; it costs microseconds).
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import importlib
import itertools
import logging
import multiprocessing
import os
import secrets
import signal
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tracklayer.bots import Bot, RandomBot, make_bot, resolve_bot
from tracklayer.bots.base import Budget

if TYPE_CHECKING:
    from tracklayer.core.action import Action

log = logging.getLogger("tracklayer.server")

INLINE_BOTS = frozenset({"random"})  # cheap bots whose RNG is one stream per object: they stay in-process
WORKER_NICE = 5  # workers yield the CPU to the server process (moves, lobby) when both want it
GRACE = 0.5  # seconds past the cap allowed for the answer to travel back
STUCK_SECONDS = 60.0  # a job given up this long ago and still running: recreate the pool even so


def default_workers() -> int:
    """One worker per core but one (the server process keeps a core for the event loop), at least one."""
    return max(1, (os.cpu_count() or 2) - 1)


@dataclass(frozen=True, slots=True)
class Choice:
    """A pool's answer: ``index`` into the legal actions, or None when the caller must fall back
    (``reason`` says why); ``pid`` of the process that chose."""

    index: int | None
    pid: int
    reason: str = ""


BotFactory = Callable[[str, int], Bot]

_bots: OrderedDict[tuple[BotFactory, str, int], Bot] = OrderedDict()  # per worker: bots by (factory, name, seed)
_MAX_BOTS = 512


def _init_worker(nice: int, server: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the server, which stops the pool
    if nice:
        with contextlib.suppress(OSError):
            os.nice(nice)
    threading.Thread(target=_exit_with_parent, args=(server,), name="parent-watch", daemon=True).start()


def _exit_with_parent(server: int) -> None:
    """A worker whose server died without stopping it (kill -9) must not live on as an orphan: it
    holds both ends of its pipes, so it would wait for work for ever. It watches its parent instead
    (``server`` is the pid the server passed: it may have died before this worker finished starting)."""
    while os.getppid() == server:
        time.sleep(1.0)
    os._exit(0)


def _search_iterations() -> int:
    from tracklayer.bots.ttr_mcts import DEFAULT_ITERATIONS

    return DEFAULT_ITERATIONS


def think(factory: BotFactory, name: str, seed: int, view: dict[str, Any], legal: Sequence[Action],
          deadline: float) -> tuple[int | None, int, str]:
    """In a worker: ``(index of the chosen action, pid, "")``, or ``(None, pid, reason)`` for a job
    whose time was up before it started. ``deadline`` is wall-clock (``time.time()``)."""
    pid = os.getpid()
    left = deadline - time.time()
    if left <= GRACE / 2:
        return None, pid, "its time was up before a worker was free"
    key = (factory, name, seed)
    bot = _bots.get(key)
    if bot is None:
        bot = _bots[key] = factory(name, seed)
        if len(_bots) > _MAX_BOTS:
            _bots.popitem(last=False)
    else:
        _bots.move_to_end(key)
    action = bot.choose(view, legal, Budget(seconds=left * 0.8, iterations=_search_iterations()))
    try:
        return legal.index(action), pid, ""
    except ValueError:
        raise ValueError(f"bot {name!r} chose an action that is not legal: {action!r}") from None


def _preload() -> int:
    """A warming job: import the bots' modules, so a worker's first move does not pay for that."""
    for module in ("tracklayer.bots.ttr_mcts", "tracklayer.bots.ttr_heuristic", "tracklayer.bots.trans_bots"):
        importlib.import_module(module)
    return os.getpid()


class BotPool:
    """Worker processes for bot moves (see the module doc). Create and use it in one event loop."""

    def __init__(self, workers: int | None = None, move_seconds: float = 5.0, nice: int = WORKER_NICE,
                 factory: BotFactory = make_bot) -> None:
        self.workers = workers or default_workers()
        self.move_seconds = move_seconds
        self.nice = nice
        self.factory = factory
        self.stats: Counter[str] = Counter()  # answered, timeout, expired, error, broken, recycled
        self._executor: ProcessPoolExecutor | None = None
        self._abandoned: dict[Future[Any], float] = {}  # given-up jobs: when they were given up
        self._warming: list[Future[Any]] = []
        # the slots: jobs handed to the current executor and not finished, and the requests waiting
        # for one (priority, arrival, waiter); a recreated executor starts a new generation
        self._busy = 0
        self._waiting: list[tuple[int, int, asyncio.Future[None]]] = []
        self._arrival = itertools.count()
        self._generation = 0

    def _pool(self) -> ProcessPoolExecutor:
        if self._executor is None:
            # spawn, not fork: the server process has threads (the writer, the database pool), and a
            # fork copies their locks in whatever state they are
            self._executor = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"),
                                                 initializer=_init_worker, initargs=(self.nice, os.getpid()))
        return self._executor

    def warm(self) -> None:
        """Start the workers now (imports take a second), so the first bot move does not pay for it.
        Does nothing if they are started already."""
        if self._executor is not None:
            return
        with contextlib.suppress(Exception):
            self._warming = [self._pool().submit(_preload) for _ in range(self.workers)]

    async def ready(self) -> None:
        """Wait until the workers started by :meth:`warm` are up (tests; nothing in the server waits)."""
        for fut in self._warming:
            with contextlib.suppress(Exception):
                await asyncio.wrap_future(fut)

    async def choose(self, name: str, seed: int, view: dict[str, Any], legal: Sequence[Action],
                     urgent: bool = True) -> Choice:
        """The bot ``name`` with ``seed`` chooses among ``legal`` in a worker, within ``move_seconds``.
        ``urgent``: a person waits for this move (served before the others)."""
        self.check()
        deadline = time.time() + self.move_seconds
        if not await self._take_slot(urgent, self.move_seconds):
            return self._fallback("expired", "no worker was free within the time cap")
        executor, generation = self._pool(), self._generation
        loop = asyncio.get_running_loop()
        try:
            fut = executor.submit(think, self.factory, name, seed, view, list(legal), deadline)
        except (BrokenProcessPool, RuntimeError):
            self._recycle(executor, "it was broken")
            return self._fallback("broken", "the worker pool was broken")
        fut.add_done_callback(lambda _f: _call_soon(loop, self._free_slot, generation))
        try:
            left = max(deadline - time.time(), 0.0)
            # never wait_for: on Python 3.11 it can drop the cancellation of a bot task (lease.py)
            async with asyncio.timeout(left + GRACE):
                index, pid, reason = await asyncio.wrap_future(fut)
        except TimeoutError:
            if not fut.done():  # cancelled if it was still queued; else a worker is still on it
                self._abandon(executor, fut)
            return self._fallback("timeout", f"no answer within {self.move_seconds:g} s")
        except BrokenProcessPool:
            self._recycle(executor, "a worker died")
            return self._fallback("broken", "a worker died")
        except Exception as exc:
            log.warning("bot %r failed in a worker (%s: %s); a fallback move is played", name,
                        type(exc).__name__, exc)
            return self._fallback("error", str(exc))
        if index is None:
            return self._fallback("expired", reason)
        self.stats["answered"] += 1
        return Choice(index, pid)

    async def _take_slot(self, urgent: bool, timeout: float) -> bool:
        """Wait (at most ``timeout`` s) until a worker is free for this request; False if none was."""
        if self._busy < self.workers and not self._waiting:
            self._busy += 1
            return True
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._waiting, (0 if urgent else 1, next(self._arrival), waiter))
        try:
            async with asyncio.timeout(timeout):
                await asyncio.shield(waiter)
            return True
        except BaseException as exc:  # timed out or cancelled: a slot handed over just now goes on
            if waiter.done() and not waiter.cancelled():
                self._free_slot(self._generation)
            else:
                waiter.cancel()
            if isinstance(exc, TimeoutError):
                return False
            raise

    def _free_slot(self, generation: int) -> None:
        """A job of ``generation`` ended: its worker goes to the first waiting request, or is free."""
        if generation != self._generation:  # a job of an executor since replaced
            return
        while self._waiting:
            waiter = heapq.heappop(self._waiting)[2]
            if not waiter.done():
                waiter.set_result(None)  # the slot passes on
                return
        self._busy = max(self._busy - 1, 0)

    def _fallback(self, stat: str, reason: str) -> Choice:
        self.stats[stat] += 1
        return Choice(None, os.getpid(), reason)

    def _abandon(self, executor: ProcessPoolExecutor, fut: Future[Any]) -> None:
        """Nobody waits for ``fut`` any more (it is queued or running); :meth:`check` watches it."""
        if executor is self._executor:
            self._abandoned[fut] = time.monotonic()

    def check(self) -> None:
        """Recreate the pool if its workers are stuck: as many given-up jobs as workers still running a
        whole cap after they were given up, or one for ``STUCK_SECONDS``. (Called before every move.)"""
        if not self._abandoned or self._executor is None:
            return
        now = time.monotonic()
        self._abandoned = {f: t for f, t in self._abandoned.items() if not f.done()}
        stuck = [t for t in self._abandoned.values() if now - t > self.move_seconds + GRACE]
        if len(stuck) >= self.workers or any(now - t > STUCK_SECONDS for t in stuck):
            self._recycle(self._executor, f"{len(stuck)} bot jobs still running long past their time cap")

    def _recycle(self, executor: ProcessPoolExecutor, why: str) -> None:
        if executor is not self._executor:  # someone already replaced it
            return
        log.warning("bot worker pool recreated: %s", why)
        self.stats["recycled"] += 1
        self._executor = None
        self._abandoned = {}
        self._generation += 1  # the old jobs' ends free no slot of the new executor
        self._busy = 0
        _stop(executor)
        self.warm()  # the next move should not wait for the new workers' start-up
        while self._busy < self.workers and self._waiting:  # waiting requests take the new workers
            waiter = heapq.heappop(self._waiting)[2]
            if not waiter.done():
                waiter.set_result(None)
                self._busy += 1

    def close(self) -> None:
        if self._executor is not None:
            _stop(self._executor)
            self._executor = None


def _call_soon(loop: asyncio.AbstractEventLoop, callback: Callable[..., Any], *args: Any) -> None:
    """Run ``callback`` in ``loop`` from any thread (a closed loop has nobody left to tell)."""
    with contextlib.suppress(RuntimeError):
        loop.call_soon_threadsafe(callback, *args)


def _stop(executor: ProcessPoolExecutor) -> None:
    """Stop an executor at once: its workers may be deep in a search nobody waits for."""
    processes = list((getattr(executor, "_processes", None) or {}).values())
    executor.shutdown(wait=False, cancel_futures=True)
    for p in processes:
        with contextlib.suppress(Exception):
            p.kill()


@dataclass
class SeatBot:
    """A bot seat: its registry name and seed (all a pool worker needs to build the same bot), the bot
    object itself for the cheap bots that think in the server process, and a random bot of the same
    seed for the move played when the pool does not answer in time."""

    name: str
    seed: int
    inline: Bot | None
    fallback: RandomBot
    last: Choice | None = None  # the last pool answer (tests read where the move was chosen)


def make_seat_bot(name: str, seed: int | None = None) -> SeatBot:
    """A bot for a seat (``seed``: a tutorial's, that replays the same game; else drawn); the random bot
    stands in for one that cannot be built (and says so in the log)."""
    if not isinstance(seed, int) or isinstance(seed, bool):
        seed = secrets.randbits(64)
    key = resolve_bot(name)
    if key is None:
        log.error("bot %r is not in the registry; the random bot plays instead", name)
        key = "random"
    try:
        inline = make_bot(key, seed) if key in INLINE_BOTS else None
        if inline is None:
            make_bot(key, seed)  # fails here, not in every worker, if it cannot be built
    except Exception:
        log.exception("bot %r cannot be built; the random bot plays instead", name)
        key = "random"
        inline = make_bot(key, seed)
    return SeatBot(key, seed, inline, RandomBot(seed))
