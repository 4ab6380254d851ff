"""The FastAPI application: lobby pages and JSON API, the game page, and the websocket protocol.

Tokens never travel in a URL that reaches the server: invite links carry them after ``#`` (the
browser keeps the fragment to itself), the websocket receives them in its first message, and the
HTTP view endpoint reads them from the ``Authorization`` header. So access logs hold no secrets.
The protocol is documented in ``docs/server.md``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import secrets
import time
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Header, HTTPException, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

import tracklayer
from tracklayer.bots import resolve_bot
from tracklayer.bots.warmup import warm_up
from tracklayer.core.gcpause import freeze_heap
from tracklayer.native import describe as describe_engine
from tracklayer.server import accounts as accounts_mod
from tracklayer.server import guard, replay
from tracklayer.server.botpool import BotPool
from tracklayer.server.catalog import board_data, catalog, engine_options, game_entry, score_data
from tracklayer.server.chat import ChatError, ChatHub
from tracklayer.server.clocks import annotate_clocks, new_control, parse_clock, store_new
from tracklayer.server.clocks import router as clock_router
from tracklayer.server.cluster import attach as attach_cluster
from tracklayer.server.db import GameRecord, Store, default_database_url
from tracklayer.server.guard import (
    MAX_NAME,
    BadJSON,
    BodyLimit,
    JSONOnly,
    SafeJSONResponse,
    clean_name,
    json_body,
    shown,
    valid_game_id,
)
from tracklayer.server.limits import CreationLimits, Refused
from tracklayer.server.lobby import OPEN, Matchmaker, creator_out, lobby_router, open_seat_name
from tracklayer.server.rooms import Connection, ProtocolError, Room, Rooms

log = logging.getLogger("tracklayer.server")

STATUSES = ("waiting", "open", "running", "over")  # waiting: a seat is still open (lobby.py)
# a websocket refused this many messages past its rate limit is closed with 1008 (policy violation);
# the reason starts with the protocol's error code, which the page translates (game.js)
FLOOD_REFUSALS = 200
FLOOD_CLOSE_CODE = 1008
FLOOD_CLOSE_REASON = "rate: too many messages past the rate limit"


def _flag(text: str) -> bool:
    word = text.strip().lower()
    if word in ("1", "true", "yes", "on"):
        return True
    if word in ("0", "false", "no", "off"):
        return False
    raise ValueError(text)


# how a variable's text becomes a field's value, and what to call it when it cannot
_PARSERS: dict[type, tuple[Callable[[str], Any], str]] = {
    str: (str, "text"), int: (int, "a whole number"), float: (float, "a number"),
    bool: (_flag, "1 or 0 (true/false, yes/no, on/off)"),
}

# Every Settings field and the environment variable that carries it. One table read by
# Settings.from_env and written by Settings.to_env, because ``serve --workers N`` hands its settings
# to the N worker processes through the environment (uvicorn spawns them: no Python object crosses),
# and a field missing here would silently fall back to its default in every worker
# (tests/server/test_settings.py checks that no field is missing). ``tracklayer serve``'s options
# name the same variables (``envvar=``), and docs/server.md lists them.
ENV_VARS: dict[str, tuple[str, type]] = {
    "database_url": ("TRACKLAYER_DATABASE_URL", str),
    "bot_delay": ("TRACKLAYER_BOT_DELAY", float),
    "rate": ("TRACKLAYER_RATE", float),
    "burst": ("TRACKLAYER_BURST", int),
    "max_message": ("TRACKLAYER_MAX_MESSAGE", int),
    "max_frame": ("TRACKLAYER_MAX_FRAME", int),
    "max_body": ("TRACKLAYER_MAX_BODY", int),
    "header_timeout": ("TRACKLAYER_HEADER_TIMEOUT", float),
    "body_timeout": ("TRACKLAYER_BODY_TIMEOUT", float),
    "hello_timeout": ("TRACKLAYER_HELLO_TIMEOUT", float),
    "tune_gc": ("TRACKLAYER_TUNE_GC", bool),
    "idle_seconds": ("TRACKLAYER_IDLE_SECONDS", float),
    "max_rooms": ("TRACKLAYER_MAX_ROOMS", int),
    "bot_workers": ("TRACKLAYER_BOT_WORKERS", int),
    "bot_seconds": ("TRACKLAYER_BOT_SECONDS", float),
    "games_per_minute": ("TRACKLAYER_GAMES_PER_MINUTE", float),
    "bot_games": ("TRACKLAYER_BOT_GAMES", int),
    "away_seconds": ("TRACKLAYER_AWAY_SECONDS", float),
    "forwarded_allow_ips": ("TRACKLAYER_FORWARDED_ALLOW_IPS", str),
}


@dataclass
class Settings:
    """The server's settings. Each field also travels as an environment variable (``ENV_VARS``)."""

    database_url: str | None = None
    bot_delay: float = 0.4  # seconds between bot moves, so people can follow them
    rate: float = 10.0  # websocket messages a second per connection (0: no limit)
    burst: int = 30
    max_message: int = 4096  # bytes of one websocket message from a client
    max_frame: int = 65536  # bytes of one websocket frame: a bigger one closes the socket (1009)
    max_body: int = guard.MAX_BODY  # bytes of one HTTP request body (413 beyond)
    header_timeout: float = 10.0  # seconds a request's headers may take to arrive (408 and closed; server/deadlines.py)
    body_timeout: float = 30.0  # seconds a request's body may take to arrive after its headers (0: no limit, both)
    hello_timeout: float = 15.0
    tune_gc: bool = True  # see core/gcpause.py (a process-wide setting: off when embedding the app elsewhere)
    idle_seconds: float = 900.0  # a game nobody uses is unloaded from memory after this (rebuilt on next use)
    max_rooms: int = 2000  # games in memory at most, idle ones permitting
    bot_workers: int | None = None  # processes bots think in (None: one per core but one, at least one)
    bot_seconds: float = 5.0  # time cap of one bot move; past it a cheap fallback move is played
    games_per_minute: float = 20.0  # games one client address may create a minute (0: no limit)
    bot_games: int = 3  # bot-only games one address may have running at once (0: no limit)
    away_seconds: float = 120.0  # a person away this long (no clock, or a real-time one): others may hand the seat over
    # reverse proxies whose X-Forwarded-For / X-Forwarded-Proto are believed: comma-separated addresses
    # or networks ("127.0.0.1", "10.0.0.0/8"; "*": any); None: no proxy, every client is its peer address
    forwarded_allow_ips: str | None = None

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """The defaults, overridden by each ``ENV_VARS`` variable set in ``env`` (``os.environ`` if
        None) to a non-empty value; ValueError naming the variable if a value does not parse."""
        env = os.environ if env is None else env
        values: dict[str, Any] = {}
        for name, (var, kind) in ENV_VARS.items():
            text = env.get(var)
            if not text:  # unset or empty: the default (so to_env can say "None" with "")
                continue
            parse, what = _PARSERS[kind]
            try:
                values[name] = parse(text)
            except ValueError:
                raise ValueError(f"${var} must be {what}, got {text!r}") from None
        return cls(**values)

    def to_env(self) -> dict[str, str]:
        """Every field as its ``ENV_VARS`` variable, such that ``from_env(s.to_env()) == s``; a None
        field becomes "" (its default, None: every optional field defaults to None)."""
        out: dict[str, str] = {}
        for name, (var, _kind) in ENV_VARS.items():
            value = getattr(self, name)
            # str of a float is its shortest text that reads back as the same float
            out[var] = "" if value is None else ("1" if value else "0") if isinstance(value, bool) else str(value)
        return out


SCORE_PATH = "/api/score"  # its body is a score file: score_document decodes it, not the body middleware


def web_dir() -> Path:
    return Path(str(resources.files("tracklayer.web"))) / "static"


def _bad(message: str) -> HTTPException:
    return HTTPException(status_code=400, detail=message)


def _warm_server() -> None:
    """What the server builds once before it freezes its heap: every game's tables, and the lobby's
    catalog and board data."""
    warm_up()
    for entry in catalog()["games"]:
        board_data(entry["name"])


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings.from_env()
    state: dict[str, Any] = {}

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        url = settings.database_url or default_database_url()
        store = await asyncio.to_thread(Store, url)  # runs the migrations
        if settings.tune_gc:
            freeze_heap(_warm_server)  # warm up, freeze the heap, rarer collections: short GC pauses (core/gcpause.py)
        state["store"] = store
        pool = BotPool(settings.bot_workers, settings.bot_seconds)  # workers start with the first bot game
        state["rooms"] = Rooms(store, settings.bot_delay, settings.idle_seconds, settings.max_rooms, pool,
                               away_seconds=settings.away_seconds)
        state["rooms"].start()
        state["rooms"].chat = chat_hub  # the PostgreSQL listener hands it other processes' chat messages
        state["rooms"].on_over.append(acct.on_over)  # rated games (tracklayer.server.accounts)
        acct.start_sweeper(store)  # and the games a crash left unrated
        cluster = attach_cluster(state["rooms"])  # PostgreSQL: moves and bot ownership shared by all processes
        matchmaker = state["rooms"].matchmaker = Matchmaker(store, state["rooms"])  # open seats, quick play
        matchmaker.start()
        log.info("tracklayer server ready (database: %s; %s)", url.split("://", 1)[0], describe_engine())
        try:
            yield
        finally:
            await matchmaker.close()
            if cluster is not None:
                await cluster.close()
            await state["rooms"].close()
            await acct.close()
            store.close()

    app = FastAPI(title="tracklayer", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None,
                  default_response_class=SafeJSONResponse)
    app.add_middleware(BodyLimit, max_body=settings.max_body, own_decoder=(SCORE_PATH,))
    # the outer one: a cross-site form is refused before its body is read
    app.add_middleware(JSONOnly, exempt=frozenset({SCORE_PATH}))
    if settings.forwarded_allow_ips:  # the client address and scheme a trusted proxy forwards (limits, cookies)
        app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=settings.forwarded_allow_ips)

    # refusals render through SafeJSONResponse too: a detail quoting odd input must not become a 500
    @app.exception_handler(StarletteHTTPException)
    async def http_error(_request: Request, exc: StarletteHTTPException) -> Response:
        return SafeJSONResponse({"detail": exc.detail}, status_code=exc.status_code, headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def validation_error(_request: Request, exc: RequestValidationError) -> Response:
        return SafeJSONResponse({"detail": "the request is not valid: " + "; ".join(
            str(e.get("msg", e)) for e in exc.errors())[:500]}, status_code=422)

    def bot_game_running(game_id: str) -> bool:
        room = rooms().rooms.get(game_id)
        return room is not None and not room.game.is_over and not room.broken

    chat_hub = ChatHub(lambda: state["rooms"])
    limits = CreationLimits(settings.games_per_minute, settings.bot_games, bot_game_running)
    static = web_dir()
    app.mount("/static", StaticFiles(directory=static), name="static")
    app.include_router(clock_router(lambda: state["rooms"]))  # seat changes: resign, takeback, handover

    def store() -> Store:
        return state["store"]

    acct = accounts_mod.install(app, lambda: store().engine, static)  # accounts, ratings, leaderboard, profiles

    def rooms() -> Rooms:
        return state["rooms"]

    # ------------------------------------------------------------------ pages
    @app.get("/", response_class=HTMLResponse)
    async def lobby_page() -> FileResponse:
        return FileResponse(static / "lobby.html", media_type="text/html")

    @app.get("/game/{game_id}", response_class=HTMLResponse)
    async def game_page(game_id: str) -> FileResponse:
        return FileResponse(static / "game.html", media_type="text/html")

    @app.get("/score", response_class=HTMLResponse)
    async def score_page() -> FileResponse:
        """The score calculator for a game played on a real table (docs/score-files.md)."""
        return FileResponse(static / "score.html", media_type="text/html")

    @app.get("/score-sw.js")
    async def score_worker() -> FileResponse:
        """The score page's service worker, served at the root so that it may control ``/score``."""
        return FileResponse(static / "score-sw.js", media_type="text/javascript", headers={"Cache-Control": "no-cache"})

    @app.get("/replay/{game_id}", response_class=HTMLResponse)
    async def replay_page(game_id: str) -> FileResponse:
        return FileResponse(static / "replay.html", media_type="text/html")

    app.include_router(replay.router(rooms))  # finished games: record and replay views

    @app.get("/favicon.ico")
    async def favicon() -> FileResponse:
        return FileResponse(static / "favicon.svg", media_type="image/svg+xml")

    @app.get("/healthz")
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    # ------------------------------------------------------------------ JSON API
    @app.get("/api/catalog")
    async def api_catalog() -> dict[str, Any]:
        return catalog()

    @app.get("/api/boards/{game}")
    async def api_board(game: str) -> Response:
        if game not in tracklayer.games() or game_entry(game) is None:
            raise HTTPException(404, f"no board {game!r}")
        data = board_data(game)
        return Response(json.dumps(data, separators=(",", ":")), media_type="application/json",
                        headers={"Cache-Control": "public, max-age=3600"})

    @app.get("/api/boards/{game}/tickets")
    async def api_board_tickets(game: str) -> Response:
        """The tickets and decks of a board, for the score page's ticket list (public map data)."""
        if game not in tracklayer.games() or game_entry(game) is None:
            raise HTTPException(404, f"no board {game!r}")
        return Response(json.dumps(score_data(game), separators=(",", ":")), media_type="application/json",
                        headers={"Cache-Control": "public, max-age=3600"})

    @app.get("/api/games")
    async def api_games(status: str | None = None) -> dict[str, Any]:
        statuses = tuple(s for s in (status or "").split(",") if s) or None
        if statuses is not None and not set(statuses) <= set(STATUSES):
            raise _bad(f"'status' is a comma-separated list of {', '.join(STATUSES)}")
        listed = await asyncio.to_thread(store().list_games, 200, statuses)
        return {"games": await asyncio.to_thread(annotate_clocks, store(), listed)}

    @app.post("/api/games", status_code=201)
    async def api_create(request: Request) -> JSONResponse:
        body = await json_body(request)
        if not isinstance(body, dict):
            raise _bad("the request body must be a JSON object")
        address = request.client.host if request.client else "unknown"
        try:
            limits.check_rate(address)
            rec, game = _new_record(body)
            try:
                control = new_control(parse_clock(body, rec.game), len(rec.seats))
                control.creator = rec.creator_token or control.creator
                control.observe(game, [s["kind"] == "human" for s in rec.seats])  # the first deadline, stored now
            except ValueError as exc:
                raise _bad(str(exc)) from None
            my_seat = await acct.on_create(request, rec.seats, rec.table_token is not None)
            bot_only = all(s["kind"] == "bot" for s in rec.seats)
            if bot_only:
                limits.check_bot_games(address)
        except Refused as exc:
            raise HTTPException(429, exc.message, headers={"Retry-After": str(exc.retry_after)}) from None
        await asyncio.to_thread(store().create_game, rec)
        await asyncio.to_thread(store_new, store(), rec.id, control)
        await acct.after_create(rec.id, rec.seats, my_seat)
        limits.created(address, rec.id, bot_only)
        room = rooms().add(rec, game, control)
        rooms().kick_bots(room)
        log.info("game %s created (%s, %d seats)", rec.id, rec.game, len(rec.seats))
        links = [{"seat": i, "name": s["name"], "kind": s["kind"],
                  **({"token": s["token"], "link": f"/game/{rec.id}#{s['token']}"} if s.get("token") else {})}
                 for i, s in enumerate(rec.seats)]
        out: dict[str, Any] = {"id": rec.id, "game": rec.game, "variant": rec.variant, "seats": links,
                               "spectator": {"token": rec.spectator_token,
                                             "link": f"/game/{rec.id}#{rec.spectator_token}"}}
        if rec.table_token:
            out["hotseat"] = {"token": rec.table_token, "link": f"/game/{rec.id}#{rec.table_token}"}
        out.update(creator_out(rec))  # one creator token: links (lobby.py) and seat hand-over (clocks.py)
        out["clock"] = control.spec
        return JSONResponse(out, status_code=201)

    @app.get("/api/games/{game_id}")
    async def api_game(game_id: str) -> dict[str, Any]:
        room = await rooms().get(game_id) if valid_game_id(game_id) else None
        if room is None:
            raise HTTPException(404, "no such game")
        g = room.game
        return {"id": room.id, "game": room.record.game, "variant": room.record.variant,
                "status": room.record.status, "moves": len(g.moves), "seats": room.seat_info(),
                "current_player": g.current_player}

    @app.get("/api/games/{game_id}/view")
    async def api_view(game_id: str, authorization: str | None = Header(default=None)) -> dict[str, Any]:
        room = await rooms().get(game_id) if valid_game_id(game_id) else None
        if room is None:
            raise HTTPException(404, "no such game")
        token = (authorization or "").removeprefix("Bearer ").strip()
        access = room.access(token)
        if access is None:
            raise HTTPException(403, "send your seat or spectator token as 'Authorization: Bearer TOKEN'")
        return room.state_message(access)

    @app.post(SCORE_PATH)
    async def api_score(request: Request) -> JSONResponse:
        """Score a table position: the body is a score file; the answer is ``tracklayer score --json``'s."""
        from tracklayer.score_file import ScoreFileError, score_document

        try:  # in a thread: a large file takes ~0.1 s, which must not stall every game's websocket
            return JSONResponse(await asyncio.to_thread(score_document, await request.body()))
        except ScoreFileError as exc:
            raise _bad(str(exc)) from None

    def _new_record(body: dict[str, Any]) -> tuple[GameRecord, Any]:
        name = body.get("game")
        entry = game_entry(name) if isinstance(name, str) and name in tracklayer.games() else None
        if not isinstance(name, str) or entry is None:
            offered = ", ".join(g["name"] for g in catalog()["games"])
            raise _bad(f"unknown game {shown(name)}; games: {offered}")
        seats_in = body.get("seats")
        if not isinstance(seats_in, list) or not seats_in:
            raise _bad("'seats' must be a list like [{\"kind\": \"human\", \"name\": \"Ann\"}, {\"kind\": \"bot\"}]")
        if not entry["min_players"] <= len(seats_in) <= entry["max_players"]:
            raise _bad(f"{entry['title']} is played by {entry['min_players']} to {entry['max_players']} players, "
                       f"not {len(seats_in)}")
        seats: list[dict[str, Any]] = []
        for i, s in enumerate(seats_in):
            if not isinstance(s, dict):
                raise _bad(f"seats[{i}] must be an object")
            kind = s.get("kind", "human")
            if kind == "human":
                seats.append({"name": clean_name(s.get("name"), f"Player {i + 1}", f"seats[{i}]"), "kind": "human",
                              "token": secrets.token_urlsafe(18)})
            elif kind == OPEN:  # a seat anyone may claim from the lobby (POST /api/games/{id}/join)
                seats.append({"name": open_seat_name(i), "kind": OPEN})
            elif kind == "bot":
                wanted = s.get("bot") or "bot"
                bot = resolve_bot(wanted) if isinstance(wanted, str) else None
                if bot is None:
                    raise _bad(f"seats[{i}]: unknown bot {shown(wanted)}; bots: {', '.join(catalog()['bots'])}")
                seats.append({"name": clean_name(s.get("name"), f"Bot {i + 1}", f"seats[{i}]"), "kind": "bot",
                              "bot": bot})
            else:
                raise _bad(f"seats[{i}]: kind must be 'human', 'bot' or 'open', not {shown(kind)}")
        names = [s["name"] for s in seats]
        for i, n in enumerate(names):  # names must differ: number repeats
            if names.count(n) > 1:
                names[i] = seats[i]["name"] = f"{n[:MAX_NAME - 3].rstrip()} {i + 1}"
        if len(set(names)) != len(names):
            raise _bad("player names must differ")
        variant = body.get("variant") or entry["default_variant"]
        if not isinstance(variant, str) or variant not in {v["name"] for v in entry["variants"]}:
            raise _bad(f"{entry['title']} has no variant {shown(variant)}; variants: "
                       f"{', '.join(v['name'] for v in entry['variants'])}")
        options = body.get("options") or {}
        if not isinstance(options, dict):
            raise _bad("'options' must be an object")
        seed = secrets.randbits(62)  # secret: it fixes the deck order
        first = secrets.randbelow(len(seats)) if body.get("first_player") is None else body.get("first_player")
        if not isinstance(first, int) or isinstance(first, bool) or not 0 <= first < len(seats):
            raise _bad("'first_player' must be a seat number")
        try:
            game = tracklayer.new_game(name, names, seed=seed, first_player=first,
                                       **engine_options(name, variant, options))
        except (tracklayer.TracklayerError, TypeError) as exc:
            raise _bad(str(exc)) from None
        humans = sum(1 for s in seats if s["kind"] == "human")
        table = secrets.token_urlsafe(18) if body.get("hotseat") and humans >= 1 else None
        private = body.get("private", False)
        if not isinstance(private, bool):
            raise _bad("'private' must be true or false")
        waiting = any(s["kind"] == OPEN for s in seats)
        if waiting and (private or table):
            raise _bad("open seats are claimed from the lobby: a private or hot-seat game cannot have them")
        now = time.time()
        rec = GameRecord(id=secrets.token_urlsafe(8), game=name, variant=variant, setup=game.setup(), seats=seats,
                         spectator_token=secrets.token_urlsafe(18), table_token=table,
                         status="waiting" if waiting else "open", created_at=now, updated_at=now,
                         creator_token=secrets.token_urlsafe(18), private=private)
        return rec, game

    app.include_router(lobby_router(store, rooms, lambda body: _new_record(body), limits))

    # ------------------------------------------------------------------ websocket
    def decode(message: Mapping[str, Any]) -> dict[str, Any]:
        """One client websocket message as a JSON object, or the ProtocolError to answer it with. Text
        and binary frames alike (a binary one must hold UTF-8 JSON); the size is checked before any
        decoding, the JSON by the same safe decoder as HTTP bodies."""
        raw: str | bytes | None = message.get("text")
        if raw is None:
            raw = message.get("bytes") or b""
        size = len(raw) if isinstance(raw, bytes) else len(raw.encode("utf-8", "surrogatepass"))
        if size > settings.max_message:
            raise ProtocolError("size", f"a message is at most {settings.max_message} bytes")
        try:
            msg = guard.loads(raw)
        except BadJSON as exc:
            raise ProtocolError("bad-json", f"messages are JSON objects: {exc}") from None
        if not isinstance(msg, dict):
            raise ProtocolError("bad-json", "messages are JSON objects")
        return msg

    @app.websocket("/ws/{game_id}")
    async def ws_game(ws: WebSocket, game_id: str) -> None:
        await ws.accept()
        room = await rooms().get(game_id) if valid_game_id(game_id) else None
        if room is None:
            await ws.send_text(json.dumps({"type": "error", "code": "no-game", "message": "no such game"}))
            await ws.close(code=4404)
            return
        try:
            async with asyncio.timeout(settings.hello_timeout):  # never wait_for: tracklayer/server/lease.py
                first = await ws.receive()
        except (TimeoutError, WebSocketDisconnect, RuntimeError):
            with contextlib.suppress(Exception):
                await ws.close(code=4408)
            return
        if first.get("type") == "websocket.disconnect":
            return
        access = None
        with contextlib.suppress(ProtocolError):  # any hello that is not one: the documented 'auth' refusal
            hello = decode(first)
            if hello.get("type") == "hello":
                access = room.access(hello.get("token"))
        if access is None:
            await ws.send_text(json.dumps({"type": "error", "code": "auth",
                                           "message": "first send {\"type\": \"hello\", \"token\": ...} with the "
                                                      "token of your invite link"}))
            await ws.close(code=4401)
            return
        # the room may have been unloaded while we waited for the hello: take the one in memory now
        # (no await between this and joining it, so it cannot be unloaded under the new connection)
        room = await rooms().get(game_id) or room
        await acct.on_join(ws, room, access.role, access.seats)
        conn = Connection(ws, access, settings.rate, settings.burst)
        room.connections.add(conn)
        rooms().connections_changed(room)  # other server processes show the seat online (presence.py)
        writer = asyncio.create_task(conn.writer())
        try:
            room.broadcast()  # the newcomer gets its state (its log_sent is 0: the whole log); the others see it online
            rooms().kick_bots(room)
            await chat_hub.welcome(room, conn)
            await _serve(room, conn, ws)
        finally:
            room.connections.discard(conn)
            rooms().connections_changed(room)
            conn.close()
            room.broadcast()
            with contextlib.suppress(Exception):
                async with asyncio.timeout(5):
                    await writer
            writer.cancel()
            if conn.close_code is not None:  # the server ends it: say why (else the client sees 1006)
                with contextlib.suppress(Exception):
                    await ws.close(code=conn.close_code, reason=conn.close_reason)

    async def _serve(room: Room, conn: Connection, ws: WebSocket) -> None:
        while not conn.closed:
            try:
                message = await ws.receive()
            except (WebSocketDisconnect, RuntimeError):
                return
            if message.get("type") == "websocket.disconnect":
                return
            if not conn.allow():
                conn.refused += 1
                conn.send(ProtocolError("rate", "too many messages: slow down").payload())
                if conn.refused > FLOOD_REFUSALS:  # a policy violation, said so in the close frame
                    conn.close(FLOOD_CLOSE_CODE, FLOOD_CLOSE_REASON)
                continue
            try:
                await _handle(room, conn, decode(message))
            except ProtocolError as exc:
                conn.send(exc.payload())
            except Exception:  # one message must never take the connection (or the server) down
                log.exception("game %s: a websocket message could not be handled", room.id)
                conn.send(ProtocolError("internal", "the server could not handle that message").payload())

    async def _handle(room: Room, conn: Connection, msg: dict[str, Any]) -> None:
        kind = msg.get("type")
        if kind == "move":
            try:
                await rooms().play(room, conn.access.seats, msg.get("move"), msg.get("expect"), conn)
            except ProtocolError as exc:
                conn.send(exc.payload())
                if exc.code in ("stale", "turn", "conflict"):
                    room.send_state(conn)
        elif kind == "chat":
            try:
                await chat_hub.post(room, conn, msg.get("text"))
            except ChatError as exc:
                conn.send(ProtocolError(exc.code, exc.message).payload())
        elif kind in ("takeback", "resign"):  # the seat's own player (tracklayer.server.clocks)
            if conn.access.role != "seat" or room.control is None:
                raise ProtocolError("bad-type", "only a seat's own player can take it back or resign")
            try:
                await rooms().clocks.change(room, next(iter(conn.access.seats)), kind)
            except ValueError as exc:
                raise ProtocolError("seat", str(exc)) from None
        elif kind == "ping":
            conn.send({"type": "pong"})
        elif kind == "sync":
            room.send_state(conn)
        elif kind == "hello":
            conn.send(ProtocolError("bad-type", "already connected").payload())
        else:
            conn.send(ProtocolError("bad-type", "message types: move, chat, sync, ping").payload())

    return app
