"""The sessions of requests and the hooks the game server calls when a game is created, joined or over."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections import Counter
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

from fastapi import HTTPException, Request, WebSocket
from fastapi.responses import Response
from sqlalchemy.engine import Engine

from tracklayer.server.accounts.bots import TOKEN_PREFIX, BotStore
from tracklayer.server.accounts.friends import INVITE_WINDOW, TOUCH_EVERY, FriendStore
from tracklayer.server.accounts.limiter import LOGIN_PER_ADDRESS, LoginLimiter, RequestLimiter
from tracklayer.server.accounts.ratings import final_ranks
from tracklayer.server.accounts.stats import final_stats
from tracklayer.server.accounts.store import AccountStore
from tracklayer.server.accounts.sweep import SWEEP_BATCH, SWEEP_EVERY, SWEEP_GRACE, rate_unrated, with_seat_flags
from tracklayer.server.background import Background

if TYPE_CHECKING:
    from tracklayer.server.db import Store
    from tracklayer.server.room import Room

log = logging.getLogger("tracklayer.server")


COOKIE = "tl_session"
CSRF_HEADER = "X-CSRF-Token"


def _same_origin(request: Request | WebSocket) -> bool:
    """False only for a request whose ``Origin`` names another site than the ``Host`` it was sent to."""
    origin = request.headers.get("origin")
    if not origin or origin == "null":
        return origin is None
    host = request.headers.get("host", "")
    return origin.split("://", 1)[-1].rstrip("/") == host


class Accounts:
    """The sessions of requests and the hooks the game server calls (create, join, game over); the
    routes are tracklayer.server.routers.accounts and .ratings."""

    def __init__(self, engine: Engine, api_requests: int = 60, login_attempts: int = LOGIN_PER_ADDRESS) -> None:
        self.store = AccountStore(engine)
        self.limiter = LoginLimiter(lambda: engine, per_address=login_attempts)
        self.bots = BotStore(engine)
        self.api_limiter = RequestLimiter(lambda: engine, api_requests)
        self.tasks: set[asyncio.Task[Any]] = set()
        self._sweeper: Background | None = None
        self.unrateable: set[str] = set()  # games the sweep could not rebuild (logged once, not retried)
        self.friends = FriendStore(engine)
        # invitations sent per account, counted in the database (every process into one row)
        self.invite_counter = LoginLimiter(lambda: engine, window=INVITE_WINDOW, prune_every=float("inf"))
        self._touched: dict[int, float] = {}  # account -> when this process last wrote its activity (monotonic)
        # account -> game id -> its websockets open here ("": watching); renewed together every TOUCH_EVERY
        self.live: dict[int, Counter[str]] = {}
        self._presence: Background | None = None

    async def current(self, request: Request | WebSocket) -> dict[str, Any] | None:
        """The session of the request's cookie, or None; the account counts as active on the site now."""
        sid = request.cookies.get(COOKIE)
        who = await asyncio.to_thread(self.store.session, sid) if sid else None
        if who is not None:
            await self.seen(who["account_id"])
        return who

    async def seen(self, account_id: int) -> None:
        """Write the account's activity, unless this process did in the last ``TOUCH_EVERY`` seconds."""
        now = time.monotonic()
        if now - self._touched.get(account_id, -TOUCH_EVERY) < TOUCH_EVERY:
            return
        if len(self._touched) > 10_000:  # forget the accounts that are not active any more
            self._touched = {a: t for a, t in self._touched.items() if now - t < TOUCH_EVERY}
        self._touched[account_id] = now
        try:
            await asyncio.to_thread(self.friends.touch, [account_id])
        except Exception:  # presence is a courtesy: a failed write must not fail the request
            log.exception("presence: writing an account's activity failed")

    # presence in games --------------------------------------------------------------
    async def arrive(self, ws: WebSocket, game_id: str, role: str) -> int | None:
        """A game websocket opened: its account (same-site sockets only) is on the site while it stays open,
        and in that game if it holds a seat. Returns the account to hand to :meth:`leave`."""
        if not _same_origin(ws):
            return None
        who = await self.current(ws)
        if who is None:
            return None
        account_id = int(who["account_id"])
        key = game_id if role in ("seat", "table") else ""
        self.live.setdefault(account_id, Counter())[key] += 1
        if key:
            try:
                await asyncio.to_thread(self.friends.set_game, account_id, key)
            except Exception:
                log.exception("presence: writing an account's game failed")
        return account_id

    def leave(self, account_id: int | None, game_id: str, role: str) -> None:
        """The websocket :meth:`arrive` counted closed."""
        if account_id is None:
            return
        key = game_id if role in ("seat", "table") else ""
        games = self.live.get(account_id)
        if games is None:
            return
        games[key] -= 1
        if games[key] <= 0:
            del games[key]
        if not games:
            del self.live[account_id]
        if key and key not in games:  # its last seat websocket of that game here: another game it is in, or none
            other = next((g for g in games if g), None)
            self._spawn(asyncio.to_thread(self.friends.set_game, account_id, other, key))

    def start_presence(self, every: float = TOUCH_EVERY) -> None:
        """Renew the activity of every account with a websocket open here, one write every ``every`` seconds."""
        async def step() -> None:
            if self.live:
                await asyncio.to_thread(self.friends.touch, list(self.live))

        if self._presence is None:
            self._presence = Background.every("tracklayer-presence", every, step, "presence: renewing failed")
            self._presence.start()

    def _spawn(self, work: Awaitable[object]) -> None:
        async def run() -> None:
            try:
                await work
            except Exception:
                log.exception("presence: a write failed")

        task = asyncio.get_running_loop().create_task(run())
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def authenticated(self, request: Request) -> dict[str, Any] | None:
        """The session of a state-changing request, CSRF-checked: 403 if the cookie names a live
        session but the request lacks that session's token; None for guests."""
        who = await self.current(request)
        if who is None:
            return None
        sent = request.headers.get(CSRF_HEADER, "")
        if not sent.isascii() or not secrets.compare_digest(sent, who["csrf"]):
            raise HTTPException(403, f"this request needs the {CSRF_HEADER} header (from GET /api/me)")
        return who

    async def api_bot(self, request: Request) -> dict[str, Any] | None:
        """The bot account whose API token the request carries (``Authorization: Bearer tlb_…``),
        counted against the token's rate: ``{"account_id", "username", "token_id"}``; None when the
        request carries no API token (a guest, a person, or a seat token); 401 for an unknown or
        revoked token, 429 with ``Retry-After`` past the rate. A bot's request needs no CSRF token: no
        browser sends it by itself."""
        token = (request.headers.get("authorization") or "").removeprefix("Bearer ").strip()
        if not token.startswith(TOKEN_PREFIX):
            return None
        bot = await asyncio.to_thread(self.bots.authenticate, token)
        if bot is None:
            raise HTTPException(401, "unknown or revoked API token", headers={"WWW-Authenticate": "Bearer"})
        await asyncio.to_thread(self.api_limiter.check, "token", bot["token_id"])
        return bot

    # hooks ------------------------------------------------------------------------
    async def on_create(self, request: Request, seats: list[dict[str, Any]], hotseat: bool,
                        bot: dict[str, Any] | None = None) -> int | None:
        """Before a game is stored: the creator's account (a person's, or the bot account ``bot`` of
        an API token) goes on the first human seat (not in hot-seat games, where one screen plays
        several seats). Returns that seat, or None."""
        who = bot if bot is not None else await self.authenticated(request)
        if who is None or hotseat:
            return None
        for i, s in enumerate(seats):
            if s["kind"] == "human":
                s["account"] = who["account_id"]
                return i
        return None

    async def after_create(self, game_id: str, seats: list[dict[str, Any]], seat: int | None) -> None:
        if seat is not None:
            await asyncio.to_thread(self.store.link_seat, seats[seat]["account"], game_id, seat)

    async def on_join(self, ws: WebSocket, room: Room, role: str, seats: frozenset[int]) -> None:
        """A websocket joined a seat with its token: a logged-in player's account is linked to it
        (once; a same-site socket only, so another site cannot link a seat to a visitor's account)."""
        if role != "seat" or len(seats) != 1 or not _same_origin(ws):
            return
        (seat,) = seats
        if room.record.seats[seat].get("account") is not None or room.game.is_over:
            return
        if room.record.seats[seat].get("lesson"):  # a tutorial is unrated (tracklayer/server/tutorial.py)
            return
        who = await self.current(ws)
        if who is None:
            return
        if any(s.get("account") == who["account_id"] for s in room.record.seats):
            return
        if await asyncio.to_thread(self.store.link_seat, who["account_id"], room.id, seat):
            room.record.seats[seat]["account"] = who["account_id"]

    def on_over(self, room: Room) -> None:
        """A game ended in this process: rate it (in a thread; once, whoever else tries)."""
        try:
            ranks = final_ranks(room.game)
            stats = final_stats(room.game)
        except Exception:
            log.exception("game %s: no final ranks", room.id)
            return
        seats = with_seat_flags(room.record.seats, getattr(room, "control", None))

        async def run() -> None:
            try:
                if await asyncio.to_thread(self.store.finish_game, room.id, room.record.game, seats, ranks,
                                           stats):
                    log.info("game %s rated", room.id)
            except Exception:
                log.exception("game %s: rating failed", room.id)

        task = asyncio.get_running_loop().create_task(run())
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def start_sweeper(self, store: Store, every: float = SWEEP_EVERY, grace: float = SWEEP_GRACE) -> None:
        """Look for games a crash left unrated now (the server is starting) and every ``every``
        seconds after (call with the event loop running). Each look is one indexed query, plus a
        replay per game found. On SQLite the first look needs no grace: one process serves the
        database (``serve`` refuses several), so no other process can be rating a game right now."""
        async def run() -> None:
            first = True
            while True:
                seen = 0
                try:
                    wait = 0.0 if first and not store.notify else grace
                    _, seen = await asyncio.to_thread(rate_unrated, store, wait, SWEEP_BATCH, self.unrateable)
                except Exception:
                    log.exception("looking for finished games left unrated failed")
                first = False
                await asyncio.sleep(0.5 if seen >= SWEEP_BATCH else every)

        if self._sweeper is None:
            self._sweeper = Background("tracklayer-rating-sweep", run)
            self._sweeper.start()

    def set_cookie(self, response: Response, request: Request, sid: str) -> None:
        """The session cookie (``Secure`` when the request came over https)."""
        response.set_cookie(COOKIE, sid, max_age=int(self.store.session_seconds), httponly=True, samesite="lax",
                            secure=request.url.scheme == "https", path="/")

    async def close(self) -> None:
        if self._sweeper is not None:
            await self._sweeper.close()
        if self._presence is not None:
            await self._presence.close()
        for task in list(self.tasks):
            with contextlib.suppress(Exception):
                async with asyncio.timeout(10):  # never wait_for: tracklayer/server/lease.py
                    await task
