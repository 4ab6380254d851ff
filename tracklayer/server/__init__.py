"""The game server: lobby, live multiplayer over websockets, persistence as an event log.

``tracklayer serve`` starts it (see ``docs/server.md``). The engine stays authoritative: every
move is checked by ``game.apply`` before it is stored, and every client only ever receives
``game.view(seat)`` of its own seat.
"""

from tracklayer.server.app import Settings, create_app

__all__ = ["Settings", "create_app"]
