"""Which server process runs a game's bots (and, later, its clocks): one PostgreSQL advisory lock per game.

Every process that has a game in memory relays its moves (:mod:`tracklayer.server.fanout`), but
only one may *make* moves for its bots, or two processes would both think for the same bot and one
of them would lose every race for the index. This module is that ownership, behind a small
interface: :meth:`Lease.want` when a game is loaded, :meth:`Lease.release` when it is unloaded,
:meth:`Lease.owns` before starting its bots (the same test will do for turn clocks).

Why session-level advisory locks rather than a lease row with an expiry:

* a holder that dies releases at once: PostgreSQL drops a session's advisory locks with its
  connection, and ``kill -9`` closes the socket, so the next process takes the game over within
  one retry period (:data:`RETRY`), not after a lease's expiry. A host that vanishes without closing
  anything is noticed by the database's TCP keepalives on that connection (:data:`SERVER_KEEPALIVES`,
  ~25 s; the holder checks its side every second);
* no clocks: nothing compares times of different hosts, and there is nothing to renew (a renewal
  that is late because the event loop is busy would otherwise hand a live game to another process);
* no schema and no writes: a lock is an entry in PostgreSQL's shared memory.

The price is one connection per process, held open, and one rule: when that connection is lost the
process must stop believing it owns anything (another may take its games as soon as PostgreSQL
drops the session). The lease task checks the connection every :data:`RETRY` seconds, and on loss
forgets every game it held, stops their bots (``on_lost``) and reconnects. A game briefly run by
two processes (between a silent network loss and its detection) costs at most a refused move:
the ``(game_id, idx)`` key of the stored moves still lets only one of two racing moves in, so the
game cannot fork.

Only games that need an owner ask for one (:meth:`Cluster.needs_owner
<tracklayer.server.cluster.Cluster.needs_owner>`: today, unfinished games with a bot seat), since
every lock held takes a slot of PostgreSQL's shared lock table, which holds about
``max_locks_per_transaction`` (64) x ``max_connections`` (100) entries for the whole database server:
several thousand bot games in memory at once need those raised. A full table refuses new locks
(logged; the games stay unowned until a slot frees) and never costs the locks already held.

Keys are 64-bit hashes of the game ids (the one-``bigint`` form of the lock functions), so two
games sharing a key, which would leave one of them without a bot runner, is not a practical worry.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from tracklayer.server.background import Background

if TYPE_CHECKING:
    from psycopg import AsyncConnection
    from psycopg.rows import TupleRow

    from tracklayer.server.db import Store

log = logging.getLogger("tracklayer.server")

RETRY = 1.0  # seconds between attempts on games another process holds, and between connection checks
QUERY_TIMEOUT = 10.0  # a lock query that takes longer means the connection is gone
# the *database's* side of the lease connection probes it too: a holder whose host vanished (no
# FIN, no RST) loses its locks after ~25 s of silence instead of the OS default of two hours
SERVER_KEEPALIVES = "-c tcp_keepalives_idle=10 -c tcp_keepalives_interval=5 -c tcp_keepalives_count=3"


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def lock_key(game_id: str) -> int:
    """The advisory-lock key of a game: a signed 64-bit hash of its id."""
    digest = hashlib.blake2b(b"tracklayer-game:" + game_id.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def held(store: Store, game_ids: list[str]) -> set[str]:
    """Which of ``game_ids`` some process holds the lease of now (any process: this one's are in
    memory here). Read from ``pg_locks`` on one of the store's pooled connections: a lock taken with
    the one-``bigint`` form shows its key's high half in ``classid``, its low half in ``objid`` and 1
    in ``objsubid``."""
    keys = {lock_key(g): g for g in game_ids}
    with store.engine.connect() as conn:
        rows = conn.exec_driver_sql(
            "SELECT classid::bigint, objid::bigint FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 1 "
            "AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())").all()
    out = set()
    for high, low in rows:
        key = (high << 32) | low
        if key >= 1 << 63:
            key -= 1 << 64
        if key in keys:
            out.add(keys[key])
    return out


class Lease:
    """The games this process owns, through advisory locks held on one dedicated connection.

    ``on_acquired(game_id)`` is called (in the event loop) when this process becomes the owner of a
    game it wants, ``on_lost(game_ids)`` when it stops owning games it did not release (connection
    lost). Both run in the event loop.
    """

    def __init__(self, url: str, on_acquired: Callable[[str], None],
                 on_lost: Callable[[list[str]], None]) -> None:
        from tracklayer.server.notify import libpq_url

        self.url = libpq_url(url)
        self.on_acquired = on_acquired
        self.on_lost = on_lost
        self._wanted: set[str] = set()
        self._owned: dict[str, int] = {}  # game id -> key
        self._wake = asyncio.Event()
        self._task = Background("tracklayer-lease", self._run)

    # ------------------------------------------------------------------ the interface
    def owns(self, game_id: str) -> bool:
        """True while this process holds the game: only then may it move for its bots."""
        return game_id in self._owned

    def want(self, game_id: str) -> None:
        """Try to own ``game_id`` (now, and every RETRY seconds while another process holds it)."""
        if game_id not in self._wanted:
            self._wanted.add(game_id)
            self._wake.set()

    def release(self, game_id: str) -> None:
        """Give ``game_id`` up (its room was unloaded): another process that has it may take it."""
        if game_id in self._wanted:
            self._wanted.discard(game_id)
            self._wake.set()

    def owned(self) -> list[str]:
        return list(self._owned)

    def start(self) -> None:
        self._task.start()

    async def close(self) -> None:
        """Stop; closing the connection releases every lock at once."""
        await self._task.close()

    # ------------------------------------------------------------------ the task
    async def _run(self) -> None:
        import psycopg

        from tracklayer.server.notify import KEEPALIVES

        delay = 0.25
        while True:
            try:
                conn = await psycopg.AsyncConnection.connect(
                    self.url, autocommit=True, application_name=f"tracklayer lease {os.getpid()}",
                    options=SERVER_KEEPALIVES, **KEEPALIVES)
                async with conn:
                    delay = 0.25
                    while True:
                        try:
                            await self._step(conn)
                        except psycopg.Error as exc:
                            if conn.closed or conn.broken:
                                raise
                            # the session lives on, and so do its locks (e.g. PostgreSQL's lock table is
                            # full: see max_locks_per_transaction): keep them, try again next period
                            log.warning("game lease: %s", _first_line(exc))
                        self._wake.clear()
                        with contextlib.suppress(TimeoutError):
                            async with asyncio.timeout(RETRY):  # not wait_for: see _query
                                await self._wake.wait()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                lost = list(self._owned)
                self._owned.clear()
                log.warning("game lease connection: %s; %d game(s) given up, reconnecting in %.1f s",
                            _first_line(exc), len(lost), delay)
                if lost:
                    self.on_lost(lost)
            await asyncio.sleep(delay)
            delay = min(delay * 2, 5.0)

    async def _step(self, conn: AsyncConnection[TupleRow]) -> None:
        """Release what is no longer wanted, try for what is wanted and not held (one query each),
        or just check that the connection is alive."""
        release = [g for g in self._owned if g not in self._wanted]
        acquire = [g for g in self._wanted if g not in self._owned]
        if release:
            keys = [self._owned.pop(g) for g in release]
            await self._query(conn, "SELECT pg_advisory_unlock(k) FROM unnest(%s::bigint[]) AS k", [keys])
            for g in release:
                log.info("game %s: lease released", g)
        if acquire:
            games = {lock_key(g): g for g in acquire}
            rows = await self._query(conn, "SELECT k, pg_try_advisory_lock(k) FROM unnest(%s::bigint[]) AS k",
                                     [list(games)])
            for key, got in rows:
                if not got:
                    continue
                game_id = games[key]
                if game_id in self._wanted:
                    self._owned[game_id] = key
                    log.info("game %s: lease taken: this process runs its bots", game_id)
                    self.on_acquired(game_id)
                else:  # unloaded while we asked
                    await self._query(conn, "SELECT pg_advisory_unlock(%s)", [key])
        if not release and not acquire:
            await self._query(conn, "SELECT 1", [])

    @staticmethod
    async def _query(conn: AsyncConnection[TupleRow], sql: str, params: list[object]) -> list[TupleRow]:
        """One query, bounded in time: a connection that does not answer counts as lost.

        ``asyncio.timeout``, never ``asyncio.wait_for``: on Python 3.11 ``wait_for`` returns the inner
        result when the task is cancelled just as that result arrives, dropping the cancellation. This
        loop never ends by itself, so :meth:`close` then waited for ever: a server's shutdown hung
        (tests/server/test_lease_close.py)."""
        async with asyncio.timeout(QUERY_TIMEOUT):
            cur = await conn.execute(sql, params)
            return await cur.fetchall()
