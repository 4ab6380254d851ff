"""Login attempts counted per client address and per username, in the database."""

from __future__ import annotations

import hashlib
import logging
import math
import time
from collections.abc import Callable

from fastapi import HTTPException
from sqlalchemy import (
    Insert,
    case,
    delete,
    select,
    update,
)
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError

from tracklayer.server.accounts.tables import login_limits

log = logging.getLogger("tracklayer.server")


LOGIN_WINDOW = 300.0  # seconds
LOGIN_PER_ADDRESS = 20  # login attempts per address per window
LOGIN_FAILS_PER_NAME = 8  # failed logins per username per window


class LoginLimiter:
    """Login attempts per client address and per username, counted in the database so that every
    server process (``serve --workers N``, several hosts) counts into the same rows.

    One row per address and per username (``login_limits``, keyed by a SHA-256 of the scope and the
    value: the table keeps neither addresses nor what people typed as a name), with the start of its
    window and a count; a window starts at the first attempt and ends ``window`` seconds later. The
    count goes up in one atomic upsert, so two processes racing for the last attempt get one each.
    A username's count is taken *before* the password is checked and given back when the login
    succeeds: it counts failures, including those still being verified, so N processes verifying at
    once cannot let N x ``fails_per_name`` guesses through. Expired rows are deleted from time to
    time (every ``prune_every`` seconds per process).
    """

    def __init__(self, engine_of: Callable[[], Engine], window: float = LOGIN_WINDOW,
                 per_address: int = LOGIN_PER_ADDRESS, fails_per_name: int = LOGIN_FAILS_PER_NAME,
                 clock: Callable[[], float] = time.time, prune_every: float = 60.0) -> None:
        self._engine_of = engine_of
        self.window, self.per_address, self.fails_per_name = window, per_address, fails_per_name
        self.clock = clock  # wall-clock time: the rows are shared by processes (and hosts)
        self.prune_every = prune_every
        self._pruned = 0.0

    @staticmethod
    def key(scope: str, value: str) -> str:
        return hashlib.sha256(f"{scope}\0{value}".encode("utf-8", "surrogatepass")).hexdigest()

    def _bump(self, key: str, now: float) -> tuple[int, float]:
        """Count one attempt on ``key``: ``(count in the window, start of the window)``."""
        engine = self._engine_of()
        expired = login_limits.c.started <= now - self.window
        index = [login_limits.c.key]
        bumped = {"count": case((expired, 1), else_=login_limits.c.count + 1),
                  "started": case((expired, now), else_=login_limits.c.started)}
        stmt: Insert  # each dialect's upsert (the same statement, in its own SQL)
        if engine.dialect.name == "postgresql":
            from sqlalchemy.dialects.postgresql import insert as pg_insert

            stmt = pg_insert(login_limits).values(key=key, started=now, count=1).on_conflict_do_update(
                index_elements=index, set_=bumped)
        else:
            from sqlalchemy.dialects.sqlite import insert as sqlite_insert

            stmt = sqlite_insert(login_limits).values(key=key, started=now, count=1).on_conflict_do_update(
                index_elements=index, set_=bumped)
        with engine.begin() as conn:  # the upsert locks the row until the read below has seen its count
            conn.execute(stmt)
            count, started = conn.execute(select(login_limits.c.count, login_limits.c.started)
                                          .where(login_limits.c.key == key)).one()
        return int(count), float(started)

    def count(self, scope: str, value: str) -> tuple[int, float]:
        """Count one event of ``value`` in ``scope``: ``(count in its window, start of the window)``."""
        return self._bump(self.key(scope, value), self.clock())

    def _refuse(self, started: float, now: float) -> HTTPException:
        retry = max(1, math.ceil(started + self.window - now))
        return HTTPException(429, "too many login attempts: wait a few minutes", headers={"Retry-After": str(retry)})

    def prune(self, now: float | None = None) -> int:
        """Delete the rows whose window is over (they count nothing any more); returns how many."""
        now = self.clock() if now is None else now
        self._pruned = now
        try:
            with self._engine_of().begin() as conn:
                return int(conn.execute(delete(login_limits).where(login_limits.c.started <= now - self.window))
                           .rowcount or 0)
        except DBAPIError as exc:  # e.g. a deadlock with another process's prune: the next one will do
            log.debug("pruning login limits: %s", exc)
            return 0

    def _maybe_prune(self, now: float) -> None:
        if now - self._pruned >= self.prune_every:
            self.prune(now)

    def check_address(self, address: str) -> None:
        """Count an attempt of ``address`` (login or registration); 429 past the limit."""
        now = self.clock()
        self._maybe_prune(now)
        count, started = self._bump(self.key("addr", address), now)
        if count > self.per_address:
            raise self._refuse(started, now)

    def check(self, address: str, name_key: str) -> None:
        """Count a login attempt of ``address`` on the username ``name_key``; 429 if either is past its
        limit. Call :meth:`succeeded` when the password was right."""
        self.check_address(address)
        now = self.clock()
        count, started = self._bump(self.key("name", name_key), now)
        if count > self.fails_per_name:
            raise self._refuse(started, now)

    def succeeded(self, name_key: str) -> None:
        """The attempt :meth:`check` counted on ``name_key`` was no failure: give it back."""
        key = self.key("name", name_key)
        with self._engine_of().begin() as conn:
            conn.execute(update(login_limits).where(login_limits.c.key == key, login_limits.c.count > 0)
                         .values(count=login_limits.c.count - 1))


class RequestLimiter:
    """Requests per API token: at most ``per_window`` in a window of ``window`` seconds that starts at
    the first one, counted in the same table and by the same atomic upsert as the login attempts (so
    every server process counts into one row). Past it: 429 with ``Retry-After``. Its rows are pruned
    by the login limiter, whose window is longer; this one never prunes (its shorter window would
    delete login counts early). ``per_window`` 0: no limit."""

    def __init__(self, engine_of: Callable[[], Engine], per_window: int, window: float = 60.0,
                 clock: Callable[[], float] = time.time) -> None:
        self.per_window, self.window = per_window, window
        self._counter = LoginLimiter(engine_of, window=window, clock=clock, prune_every=math.inf)

    def check(self, scope: str, value: str) -> None:
        if self.per_window <= 0:
            return
        count, started = self._counter.count(scope, value)
        if count > self.per_window:
            retry = max(1, math.ceil(started + self.window - self._counter.clock()))
            raise HTTPException(429, f"at most {self.per_window} requests in {self.window:g} s with one API token; "
                                     f"try again in {retry} s", headers={"Retry-After": str(retry)})
