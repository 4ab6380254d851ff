"""``tracklayer serve``'s process model: one process on SQLite, any number on PostgreSQL.

One server process runs on one core (one event loop; the engine is Python). To use every core of
a host, ``tracklayer serve --workers N`` starts N processes through uvicorn's own supervisor: they
share the listening socket (the kernel hands each new connection to one of them), and uvicorn
restarts a worker that dies. Across hosts, or behind a reverse proxy, start one ``tracklayer serve``
per port instead (``docs/deploy/nginx.conf``). Either way the processes share the games through
PostgreSQL (:mod:`tracklayer.server.cluster`).

SQLite is the zero-setup default for *one* process: its file has no way to tell other processes
about a move, so several processes on it would each show their own stale copy of a game. The
server therefore refuses ``--workers`` above 1 on SQLite, and a second server on the same SQLite
file (an exclusive ``flock`` on a lock file next to it, released by the kernel when the holder dies,
so a ``kill -9`` leaves nothing to clean up).
"""

from __future__ import annotations

import fcntl
import functools
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from tracklayer.server.db import normalise_url

if TYPE_CHECKING:
    from fastapi import FastAPI

    from tracklayer.server.deadlines import RequestDeadlines
    from tracklayer.server.settings import Settings

_held: list[IO[bytes]] = []  # the lock file stays open (locked) for the life of the process

LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def is_sqlite(url: str) -> bool:
    return normalise_url(url).startswith("sqlite")


def sqlite_refusal(url: str, workers: int) -> str | None:
    """Why this process model cannot run on ``url`` (one line), or None if it can."""
    if workers > 1 and is_sqlite(url):
        return (f"--workers {workers} needs PostgreSQL (--database-url postgresql://...): SQLite serves one "
                "server process")
    return None


def hold_sqlite(url: str) -> str | None:
    """Take the SQLite file's server lock for the life of this process; a one-line reason if another
    server process holds it. No-op for PostgreSQL and in-memory databases."""
    if not is_sqlite(url):
        return None
    path = url.split("///", 1)[1] if "///" in url else ""
    if not path or path == ":memory:":
        return None
    lock = Path(path + ".serve-lock")
    lock.parent.mkdir(parents=True, exist_ok=True)
    f = lock.open("ab")
    try:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        f.close()
        return (f"another tracklayer server is running on {path}: SQLite serves one server process "
                "(use PostgreSQL for several)")
    _held.append(f)
    return None


def configure_logging(level: str) -> None:
    """INFO for everything, ``level`` for tracklayer's own loggers (DEBUG logs each stored move: the
    multi-process tests count who stored which bot move; the libraries' DEBUG would log every frame)."""
    logging.basicConfig(level=logging.INFO, format=LOG_FORMAT)
    logging.getLogger("alembic").setLevel(logging.WARNING)
    logging.getLogger("tracklayer").setLevel(level.upper())


def make_app() -> FastAPI:
    """The app factory of each ``--workers`` process (uvicorn starts them with ``spawn``, so settings
    travel in the environment, as ``TRACKLAYER_*`` variables set by ``tracklayer serve``)."""
    from tracklayer.server import Settings, create_app

    configure_logging(os.environ.get("TRACKLAYER_LOG_LEVEL", "info"))
    return create_app(Settings.from_env())


def request_deadlines(settings: Settings) -> Callable[..., RequestDeadlines]:
    """uvicorn's HTTP protocol for ``settings``: h11 with the header and body deadlines (deadlines.py)."""
    from tracklayer.server.deadlines import RequestDeadlines

    return functools.partial(RequestDeadlines, header_timeout=settings.header_timeout,
                             body_timeout=settings.body_timeout)


def run(settings: Settings, host: str, port: int, workers: int, log_level: str) -> None:
    """Serve with uvicorn: in this process, or in ``workers`` processes sharing the socket."""
    import uvicorn

    from tracklayer.server import create_app

    # no permessage-deflate: states carry only what changed (~1-3 KB), and compressing every frame
    # cost ~10% of the server's CPU plus a zlib context per connection
    # proxy_headers off: uvicorn would believe X-Forwarded-For from 127.0.0.1 (any local process); the
    # app believes it from settings.forwarded_allow_ips only (create_app)
    options: dict[str, Any] = {"host": host, "port": port, "ws": "websockets-sansio", "ws_max_size": settings.max_frame,
                               "ws_per_message_deflate": False, "log_level": "info",
                               "http": request_deadlines(settings), "proxy_headers": False}
    if workers <= 1:
        uvicorn.run(create_app(settings), **options)
        return
    # every setting, None ones as "" (unset), so no variable the parent inherited can disagree with it
    os.environ.update(settings.to_env())
    os.environ["TRACKLAYER_LOG_LEVEL"] = log_level
    uvicorn.run("tracklayer.server.workers:make_app", factory=True, workers=workers, **options)
