"""A bot in a process of its own, so that it cannot reach the game it plays in.

A bot is only ever given its seat's view and the legal moves. In the caller's process that is a
convention, not a wall: Python code can walk up the call stack (``sys._getframe(1).f_locals``) to
the runner's frame and read the game object, with the deck, the other hands and the tickets. An
isolated bot runs in a fresh interpreter: the view and the legal moves
travel over a socket, the bot answers with the index of its move, and nothing of the game exists in
its process. The project's own bots run in the caller's process (they are read and tested here,
and the socket costs about 0.1 ms a move); a bot from outside the project (``package.module:factory``)
is isolated unless the caller asks otherwise (``make_bot(..., isolate=False)``).

Processes are kept for the next bot of the same name: the lab plays many games a bot, and starting
an interpreter costs far more than a game of moves.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import socket
import subprocess
import sys
import threading
import traceback
import weakref
from collections.abc import Sequence
from multiprocessing.connection import Connection
from typing import Any

from tracklayer.bots.base import Budget
from tracklayer.core.errors import TracklayerError


class _Worker:
    """One bot process (``python -m tracklayer.bots.isolated``) and its end of a socket pair. A new
    interpreter rather than a multiprocessing child: nothing of the caller's ``__main__`` runs in it,
    so a script that plays against an outside bot needs no ``if __name__ == "__main__"`` guard."""

    def __init__(self, spec: str) -> None:
        self.spec = spec
        mine, theirs = socket.socketpair()
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}  # the caller's imports
        with theirs:
            self.proc = subprocess.Popen([sys.executable, "-m", "tracklayer.bots.isolated", str(theirs.fileno()), spec],
                                         pass_fds=(theirs.fileno(),), env=env, stdin=subprocess.DEVNULL)
        self.conn = Connection(mine.detach())
        self.needs_view = True

    def call(self, *msg: Any) -> Any:
        try:
            self.conn.send(msg)
            kind, value = self.conn.recv()
        except (EOFError, OSError) as exc:
            raise TracklayerError(f"bot {self.spec!r}: its process ended ({type(exc).__name__})") from None
        if kind == "error":
            raise TracklayerError(f"bot {self.spec!r} failed in its process:\n{value}")
        return value

    def reset(self, seed: int | str | None) -> None:
        self.needs_view = bool(self.call("new", seed))

    def stop(self) -> None:
        with contextlib.suppress(OSError):
            self.conn.send(("stop",))
        self.conn.close()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def alive(self) -> bool:
        return self.proc.poll() is None


_idle: dict[str, list[_Worker]] = {}
_lock = threading.Lock()


def _acquire(spec: str, seed: int | str | None) -> _Worker:
    with _lock:
        pool = _idle.get(spec, [])
        worker = pool.pop() if pool else None
    if worker is None or not worker.alive():
        worker = _Worker(spec)
    worker.reset(seed)
    return worker


def _release(worker: _Worker) -> None:
    if worker.alive():
        with _lock:
            _idle.setdefault(worker.spec, []).append(worker)


def stop_all() -> None:
    """End every idle bot process (each also ends when this process does: its socket closes)."""
    with _lock:
        workers = [w for pool in _idle.values() for w in pool]
        _idle.clear()
    for w in workers:
        w.stop()


atexit.register(stop_all)


class IsolatedBot:
    """Plays bot ``spec`` (a registry name or ``module:factory``) in its own process."""

    def __init__(self, spec: str, seed: int | str | None = None) -> None:
        self.spec = spec
        self._worker = _acquire(spec, seed)
        self.needs_view = self._worker.needs_view
        self._finalizer = weakref.finalize(self, _release, self._worker)

    def choose(self, view: dict[str, Any], legal: Sequence[Any], budget: Budget | None = None) -> Any:
        moves = list(legal)
        index = self._worker.call("choose", view, moves, budget)
        if not isinstance(index, int) or not 0 <= index < len(moves):
            raise TracklayerError(f"bot {self.spec!r} answered {index!r}, not the index of a legal move")
        return moves[index]

    def close(self) -> None:
        """Give the process back for the next bot of this name."""
        self._finalizer()


# ---------------------------------------------------------------------------------------- the child
def serve(conn: Connection, spec: str) -> None:
    """The bot process: build the bot on ``new``, answer ``choose`` with a move's index, end on ``stop``
    or when the pipe closes. A bot's exception goes back as text; the process lives on."""
    from tracklayer.bots import make_bot

    bot: Any = None
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        try:
            if msg[0] == "stop":
                return
            if msg[0] == "new":
                bot = make_bot(spec, msg[1], isolate=False)
                conn.send(("ok", getattr(bot, "needs_view", True)))
            else:
                _, view, legal, budget = msg
                conn.send(("ok", index_of(bot.choose(view, legal, budget), legal)))
        except Exception:
            conn.send(("error", traceback.format_exc(limit=8)))


def index_of(choice: Any, legal: Sequence[Any]) -> int:
    """The index of the bot's choice among the legal moves (the parent plays its own copy of it)."""
    for i, move in enumerate(legal):
        if move is choice:
            return i
    for i, move in enumerate(legal):
        if move == choice:
            return i
    raise TracklayerError(f"the bot chose {choice!r}, which is not one of the legal moves")


if __name__ == "__main__":  # python -m tracklayer.bots.isolated FD SPEC
    serve(Connection(int(sys.argv[1])), sys.argv[2])
