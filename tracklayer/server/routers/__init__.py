"""The server's HTTP and websocket routes, one router per area; ``create_app`` includes them all.

Each module holds an ``APIRouter`` named ``router``. Handlers receive the shared services as typed
dependencies (:mod:`tracklayer.server.deps`) and request bodies as pydantic models
(:mod:`tracklayer.server.models`). Chat has no route of its own: it travels on the game websocket
(:mod:`tracklayer.server.routers.play`).
"""

from __future__ import annotations

from fastapi import APIRouter

from tracklayer.server.routers import (
    accounts,
    bots,
    friends,
    games,
    lobby,
    mail,
    pages,
    play,
    ratings,
    replays,
    score,
    seats,
)

ROUTERS: tuple[APIRouter, ...] = (pages.router, games.router, play.router, lobby.router, seats.router,
                                  replays.router, score.router, accounts.router, bots.router,
                                  ratings.router, friends.router, mail.router)
