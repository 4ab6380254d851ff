"""How long the tests wait: one factor for every bound, and the child processes they must not leave behind.

Every wait in the tests is for an event (a message, a file, a process exit, a server's health check);
the bound on it only turns a hang into a failure. On a loaded machine everything is slower, so every
bound is multiplied by :func:`scale`: ``$TRACKLAYER_TEST_TIMEOUT_SCALE`` when set, else the machine's
load per core (at least 1, at most ``MAX_AUTO_SCALE``), read when the wait starts. A slow machine then
gives slow tests, not red ones; a thing that hangs still fails, later, saying what never happened.

Child processes (servers and what they start) go in their own session (:data:`NEW_SESSION`), are
recorded with :func:`track`, and are killed as a group by :func:`kill_group`; whatever is still
recorded when the test session ends (a failure between start and stop, Ctrl-C) is killed then, and
at interpreter exit as a last resort.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Callable
from typing import Any, TypeVar

ENV = "TRACKLAYER_TEST_TIMEOUT_SCALE"
MAX_AUTO_SCALE = 20.0
NEW_SESSION: dict[str, Any] = {"start_new_session": True}  # Popen keywords: the child leads its own group
POLL = 0.1

T = TypeVar("T")


def scale() -> float:
    """The factor on every bound: the environment's setting, else the 1-minute load per core (≥ 1)."""
    setting = os.environ.get(ENV)
    if setting:
        return max(float(setting), 0.01)
    try:
        load = os.getloadavg()[0]
    except OSError:  # no load average on this platform
        return 1.0
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return min(max(load / cores, 1.0), MAX_AUTO_SCALE)


def scaled(seconds: float) -> float:
    """``seconds`` (a bound right on a quiet machine) for this machine now."""
    return seconds * scale()


def ms(seconds: float) -> float:
    """A scaled bound in milliseconds (Playwright's unit)."""
    return scaled(seconds) * 1000


def deadline(seconds: float) -> float:
    """The ``time.monotonic()`` at which a wait bounded by ``seconds`` (scaled) gives up."""
    return time.monotonic() + scaled(seconds)


def until(check: Callable[[], T], seconds: float, what: str, poll: float = POLL) -> T:
    """Poll ``check`` until it returns something true (returned); an AssertionError naming ``what``
    and the last value after ``seconds`` (scaled)."""
    bound = scaled(seconds)
    end = time.monotonic() + bound
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() >= end:
            raise AssertionError(f"timed out after {bound:.0f} s waiting for {what}; the last check gave {value!r}")
        time.sleep(poll)


# ---------------------------------------------------------------------------- child processes
_tracked: dict[int, subprocess.Popen[Any]] = {}


def track(proc: subprocess.Popen[Any]) -> subprocess.Popen[Any]:
    """Record a child started with :data:`NEW_SESSION`, so :func:`kill_all` can end its group."""
    _tracked[proc.pid] = proc
    return proc


def group_alive(pgid: int) -> list[int]:
    """The pids (Linux /proc) in process group ``pgid``, zombies left out."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        with contextlib.suppress(OSError, IndexError, ValueError):
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if int(fields[2]) == pgid and fields[0] != "Z":
                found.append(int(entry))
    return found


def kill_group(proc: subprocess.Popen[Any]) -> None:
    """SIGKILL ``proc``'s whole group (it and everything it started that stayed in its session), reap it
    and forget it. Safe to call twice and after the process exited."""
    _tracked.pop(proc.pid, None)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(scaled(10))


def untrack(proc: subprocess.Popen[Any]) -> None:
    _tracked.pop(proc.pid, None)


def kill_all() -> list[int]:
    """Kill the group of every child still recorded; their pids (the session-end guard reports them)."""
    left = list(_tracked.values())
    for proc in left:
        kill_group(proc)
    return [p.pid for p in left]


atexit.register(kill_all)
