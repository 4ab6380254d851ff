"""The game server: lobby, live multiplayer over websockets, persistence as an event log.

``tracklayer serve`` starts it (see ``docs/server.md``). The engine stays authoritative: every
move is checked by ``game.apply`` before it is stored, and every client only ever receives
``game.view(seat)`` of its own seat.

The application is imported on first use of ``Settings`` or ``create_app``: the bot worker processes
import ``tracklayer.server.botpool`` only, and must start fast (the web framework takes most of a
second to import, time a bot move waiting for a fresh worker would lose).
"""

from __future__ import annotations

from typing import Any

__all__ = ["Settings", "create_app"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from tracklayer.server import app

        return getattr(app, name)
    raise AttributeError(f"module 'tracklayer.server' has no attribute {name!r}")
