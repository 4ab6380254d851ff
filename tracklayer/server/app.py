"""The FastAPI application: the settings and services on ``app.state``, the routers of each area
(tracklayer.server.routers), the static files of the web client and the request middleware.

The HTTP API and the websocket protocol are documented in ``docs/server.md`` and ``docs/protocol.md``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Sequence
from importlib import resources
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from tracklayer import __version__
from tracklayer.bots.warmup import warm_up
from tracklayer.core.gcpause import freeze_heap
from tracklayer.native import describe as describe_engine
from tracklayer.server.accounts import Accounts
from tracklayer.server.botpool import BotPool
from tracklayer.server.catalog import board_data, catalog
from tracklayer.server.chat import ChatHub
from tracklayer.server.cluster import attach as attach_cluster
from tracklayer.server.db import Store, default_database_url
from tracklayer.server.guard import BodyLimit, JSONOnly, SafeJSONResponse
from tracklayer.server.limits import CreationLimits
from tracklayer.server.lobby import Matchmaker
from tracklayer.server.mail import Mail
from tracklayer.server.replay import Replays
from tracklayer.server.rooms import Rooms
from tracklayer.server.routers import ROUTERS, apidocs
from tracklayer.server.routers.score import SCORE_PATH
from tracklayer.server.settings import ENV_VARS, Settings

__all__ = ["ENV_VARS", "Settings", "create_app", "web_dir"]
log = logging.getLogger("tracklayer.server")


def web_dir() -> Path:
    return Path(str(resources.files("tracklayer.web"))) / "static"


def _warm_server() -> None:
    """What the server builds once before it freezes its heap: every game's tables, and the lobby's
    catalog and board data."""
    warm_up()
    for entry in catalog()["games"]:
        board_data(entry["name"])


@contextlib.asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Build the shared services on ``app.state`` (tracklayer.server.deps hands them to the routes)
    and close them when the server stops."""
    settings: Settings = app.state.settings
    url = settings.database_url or default_database_url()
    store = await asyncio.to_thread(Store, url)  # runs the migrations
    if settings.tune_gc:
        freeze_heap(_warm_server)  # warm up, freeze the heap, rarer collections: short GC pauses (core/gcpause.py)
    pool = BotPool(settings.bot_workers, settings.bot_seconds)  # workers start with the first bot game
    rooms = Rooms(store, settings.bot_delay, settings.idle_seconds, settings.max_rooms, pool,
                  away_seconds=settings.away_seconds, undo_grace=settings.undo_grace)
    # accounts, ratings, leaderboard, profiles
    accounts = Accounts(store.engine, api_requests=settings.api_requests, login_attempts=settings.login_attempts)

    def bot_game_running(game_id: str) -> bool:
        room = rooms.rooms.get(game_id)
        return room is not None and not room.game.is_over and not room.broken

    app.state.store, app.state.rooms, app.state.accounts = store, rooms, accounts
    app.state.limits = CreationLimits(settings.games_per_minute, settings.bot_games, bot_game_running)
    app.state.replays = Replays()
    rooms.start()
    rooms.chat = app.state.chat = ChatHub(rooms)  # the PostgreSQL listener hands it other processes' chat
    rooms.on_over.append(accounts.on_over)  # rated games
    accounts.start_sweeper(store)  # and the games a crash left unrated
    accounts.start_presence()  # friends see who is online (accounts/friends.py)
    mail = app.state.mail = Mail(settings, store.engine)  # verification, "your turn" and invite mail
    mail.start()
    rooms.on_turn.append(mail.on_turn)
    cluster = attach_cluster(rooms)  # PostgreSQL: moves and bot ownership shared by all processes
    matchmaker = rooms.matchmaker = app.state.matchmaker = Matchmaker(store, rooms)  # open seats, quick play
    matchmaker.start()
    log.info("tracklayer server ready (database: %s; %s)", url.split("://", 1)[0], describe_engine())
    try:
        yield
    finally:
        await matchmaker.close()
        if cluster is not None:
            await cluster.close()
        await rooms.close()
        await accounts.close()
        await mail.close()
        store.close()


async def http_error(_request: Request, exc: Exception) -> Response:
    """Refusals render through SafeJSONResponse too: a detail quoting odd input must not become a 500."""
    assert isinstance(exc, StarletteHTTPException)
    return SafeJSONResponse({"detail": exc.detail}, status_code=exc.status_code, headers=exc.headers)


def _field(loc: Sequence[int | str]) -> str:
    """``("body", "seats", 1, "kind")`` as ``seats[1].kind``."""
    out = ""
    for part in loc[1:]:
        out += f"[{part}]" if isinstance(part, int) else f".{part}" if out else str(part)
    return f"field {out}" if out else "the request body"


async def validation_error(_request: Request, exc: Exception) -> Response:
    """A body that does not fit its model (tracklayer.server.models): 400 naming each field and its
    problem, as the API's other refusals; a query or path parameter of the wrong type: 422."""
    assert isinstance(exc, RequestValidationError)
    errors = exc.errors()
    if errors and all(e.get("loc", ("",))[0] == "body" for e in errors):
        return SafeJSONResponse({"detail": "; ".join(f"{_field(e['loc'])}: {e.get('msg', 'not valid')}"
                                                     for e in errors)[:500]}, status_code=400)
    return SafeJSONResponse({"detail": "the request is not valid: " + "; ".join(
        str(e.get("msg", e)) for e in errors)[:500]}, status_code=422)


def create_app(settings: Settings | None = None) -> FastAPI:
    """The application: its settings on ``app.state`` (the lifespan adds the services), the routers
    of tracklayer.server.routers, the static files and the request middleware."""
    app = FastAPI(title="tracklayer", version=__version__, lifespan=lifespan, docs_url=None, redoc_url=None,
                  openapi_url="/openapi.json", default_response_class=SafeJSONResponse,
                  description="The game server's HTTP API. The game websocket, /ws/{game_id}, is in docs/protocol.md.")
    app.state.settings = settings = settings or Settings.from_env()
    app.state.static = static = web_dir()
    app.add_middleware(BodyLimit, max_body=settings.max_body, own_decoder=(SCORE_PATH,))
    # the outer one: a cross-site form is refused before its body is read
    app.add_middleware(JSONOnly, exempt=frozenset({SCORE_PATH}))
    if settings.forwarded_allow_ips:  # the client address and scheme a trusted proxy forwards (limits, cookies)
        app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=settings.forwarded_allow_ips)
    app.add_exception_handler(StarletteHTTPException, http_error)
    app.add_exception_handler(RequestValidationError, validation_error)
    app.mount("/static", StaticFiles(directory=static), name="static")
    app.mount(apidocs.ASSETS, apidocs.assets(), name="docs-assets")  # Swagger UI's files, for /docs
    app.include_router(apidocs.router)
    for router in ROUTERS:
        app.include_router(router)
    return app
