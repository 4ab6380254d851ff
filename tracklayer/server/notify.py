"""The PostgreSQL notifications the server processes share (:mod:`tracklayer.server.fanout` listens to
them): their channels, the statement that announces stored moves, and how to connect to listen.

The database layer (:class:`tracklayer.server.db.Store`) sends the moves' notification in the
transaction that stores them, and the listeners in the rooms' layer receive them, so these few
definitions sit below both.
"""

from __future__ import annotations

import json
from typing import Any

CHANNEL = "tracklayer_moves"
CHAT_CHANNEL = "tracklayer_chat"  # tracklayer.server.chat: one message stored by another process
PRESENCE_CHANNEL = "tracklayer_presence"  # tracklayer.server.presence: who is connected to another process
MAX_PAYLOAD = 7000  # bytes of one notification (PostgreSQL's limit is 8000)

# a dead peer is noticed by TCP keepalives within ~25 s even when no packet says so (a host that
# vanished, a cable pulled): a listener that hears nothing cannot tell silence from a broken link
KEEPALIVES: dict[str, Any] = {"keepalives": 1, "keepalives_idle": 10, "keepalives_interval": 5,
                              "keepalives_count": 3}


def notify_sql(moves: list[tuple[str, int, str]]) -> tuple[str, tuple[str, ...]]:
    """One ``SELECT pg_notify(...), ...`` statement announcing ``moves`` (``(game_id, idx, text)``).

    One statement whatever the batch size (the writer thread wants few statements per batch), with
    the moves split over as many notifications as PostgreSQL's 8000-byte payload limit requires.
    Each payload is ASCII JSON ``[[game_id, idx, text], ...]`` (so its length in bytes is known).
    """
    payloads: list[str] = []
    chunk: list[str] = []
    size = 2
    for game_id, idx, text in moves:
        item = json.dumps([game_id, idx, text], separators=(",", ":"))
        if chunk and size + len(item) + 1 > MAX_PAYLOAD:
            payloads.append("[" + ",".join(chunk) + "]")
            chunk, size = [], 2
        chunk.append(item)
        size += len(item) + 1
    if chunk:
        payloads.append("[" + ",".join(chunk) + "]")
    calls = ", ".join(["pg_notify(%s, %s)"] * len(payloads))
    return f"SELECT {calls}", tuple(v for p in payloads for v in (CHANNEL, p))


def libpq_url(url: str) -> str:
    """The database URL as libpq reads it (SQLAlchemy's ``postgresql+psycopg://`` is not one)."""
    from sqlalchemy.engine import make_url

    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
