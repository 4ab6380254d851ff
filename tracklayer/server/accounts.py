"""Optional accounts, sessions, seat links, skill ratings per game family, the leaderboard and profiles.

Guests keep playing by link exactly as before: an account only adds a name that lasts, a history
and a rating. Decisions (documented in ``docs/server.md``):

* Passwords are hashed with argon2id (argon2-cffi's ``PasswordHasher``; a hash made with older
  parameters is replaced at the next login). Hashing runs in a worker thread: it is CPU-heavy on
  purpose and must not stall the event loop that serves every game.
* A session is a random id in an ``HttpOnly``, ``SameSite=Lax`` cookie (``Secure`` over https). The
  database keeps only the SHA-256 of the id (a leaked table opens no session), with an expiry;
  logout deletes the row.
* CSRF: every state-changing request that the cookie authenticates must carry the session's own
  token in ``X-CSRF-Token`` (given by ``GET /api/me`` and by login/register), else 403. Login and
  register, which have no session yet, refuse a cross-site ``Origin`` instead (login CSRF).
* A username is refused if it looks like an existing one: names are compared by their Unicode
  confusable skeleton (UTS #39, ICU's ``SpoofChecker`` through PyICU) of the NFKC, case-folded
  name, stored in ``username_skeleton`` (a unique column), so ``Vıctım`` or ``Ｖictim`` cannot sit
  next to ``Victim``; names are shown as typed.
* Login is rate-limited per client address and per username (failures), in the database so that the
  limits hold across server processes (:class:`LoginLimiter`).
* A game is rated when it ends with at least two rated seats: seats linked to an account and bot
  seats (each bot name is one identity per family, ``bot:planner``, so the ladder shows how strong
  the bots are; a bot on several seats gets the mean of their updates). Guests are not rated and
  do not count. Ranks are the engine's final ranks; a seat
  marked ``resigned`` is ranked last. The update is applied exactly once: the ``rated_games`` row of
  the game is inserted in the same transaction as the new ratings (and the final ranks), so a second
  process (or a second call) fails on its primary key and changes nothing.
* A crash between a game's last move and its rating is made good by a sweep every process runs at
  start and every 2 minutes (:func:`rate_unrated`): finished games with account seats and no ranks.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import math
import re
import secrets
import threading
import time
import unicodedata
from collections.abc import Callable, Collection, Sequence
from typing import TYPE_CHECKING, Any

import icu
from argon2 import PasswordHasher
from fastapi import HTTPException, Request, WebSocket
from fastapi.responses import Response
from sqlalchemy import (
    Column,
    Float,
    ForeignKey,
    Index,
    Insert,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    case,
    delete,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError, IntegrityError

import tracklayer
from tracklayer.server.background import Background
from tracklayer.server.guard import clean_name

if TYPE_CHECKING:
    from tracklayer.server.db import Store

log = logging.getLogger("tracklayer.server")
metadata = MetaData()
SKELETON_MAX = 512  # characters of a stored skeleton: a 24-character name's is at most 432 (U+FDFA gives 18)

# ---------------------------------------------------------------------------- tables (migration 0003)
accounts = Table(
    "accounts", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("username", String(24), nullable=False),
    Column("username_key", String(96), nullable=False, unique=True),  # casefolded: names unique ignoring case
    # UTS #39 skeleton (migration 0007): look-alike names are one name. Unique; NULL only for an account
    # that already looked like an older one when the column was added (the older one keeps the skeleton)
    Column("username_skeleton", String(SKELETON_MAX), nullable=True),
    Index("ux_accounts_username_skeleton", "username_skeleton", unique=True),
    Column("password_hash", Text, nullable=False),
    Column("created_at", Float, nullable=False),
)
sessions = Table(
    "sessions", metadata,
    Column("id_hash", String(64), primary_key=True),  # sha256 of the cookie's session id
    Column("account_id", Integer, ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False),
    Column("csrf", String(64), nullable=False),
    Column("created_at", Float, nullable=False),
    Column("expires_at", Float, nullable=False),
)
account_games = Table(
    "account_games", metadata,
    Column("account_id", Integer, ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True),
    Column("game_id", String(32), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    Column("seat", Integer, nullable=False),
    Column("rank", Integer, nullable=True),  # set when the game ends
    Column("players", Integer, nullable=True),
    Column("joined_at", Float, nullable=False),
)
ratings = Table(
    "ratings", metadata,
    Column("family", String(16), primary_key=True),
    Column("identity", String(64), primary_key=True),  # "acct:<id>" or "bot:<name>"
    Column("kind", String(8), nullable=False),  # human or bot
    Column("name", String(64), nullable=False),
    Column("account_id", Integer, ForeignKey("accounts.id", ondelete="CASCADE"), nullable=True),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("games", Integer, nullable=False),
    Column("updated_at", Float, nullable=False),
)
rated_games = Table(
    "rated_games", metadata,
    Column("game_id", String(64), primary_key=True),  # one row per rated game: the exactly-once guard
    Column("family", String(16), nullable=False),
    Column("game", String(64), nullable=False),
    Column("rated_at", Float, nullable=False),
)
rating_history = Table(
    "rating_history", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("game_id", String(64), nullable=False),
    Column("family", String(16), nullable=False),
    Column("identity", String(64), nullable=False),
    Column("rank", Integer, nullable=False),
    Column("players", Integer, nullable=False),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("ordinal", Float, nullable=False),
    Column("at", Float, nullable=False),
)
login_limits = Table(  # migration 0006: login attempts counted across every server process (LoginLimiter)
    "login_limits", metadata,
    Column("key", String(64), primary_key=True),  # sha256 of "addr\0<address>" or "name\0<username key>"
    Column("started", Float, nullable=False),  # the window of this count started then (epoch seconds)
    Column("count", Integer, nullable=False),
)

# ---------------------------------------------------------------------------- rules
COOKIE = "tl_session"
CSRF_HEADER = "X-CSRF-Token"
SESSION_SECONDS = 30 * 24 * 3600.0
USERNAME_MIN, USERNAME_MAX = 3, 24
PASSWORD_MIN, PASSWORD_MAX = 8, 256  # characters; the maximum bounds the work one login makes argon2 do
FAMILIES = ("ttr", "trans")
LOGIN_WINDOW = 300.0  # seconds
LOGIN_PER_ADDRESS = 20  # login attempts per address per window
LOGIN_FAILS_PER_NAME = 8  # failed logins per username per window
_USERNAME_CHARS = re.compile(r"^[\w.-]+$")

hasher = PasswordHasher()
_DUMMY_HASH = hasher.hash("not a password of anybody")  # unknown names cost a verify too (no timing oracle)
_rating_lock = threading.Lock()  # one rating update at a time per process (SQLite has one writer anyway)


def username_key(name: str) -> str:
    return unicodedata.normalize("NFC", name.casefold())


_spoof = threading.local()  # an ICU SpoofChecker per thread (registration runs in worker threads)


def username_skeleton(name: str) -> str:
    """What ``name`` looks like, for telling look-alike names apart: the UTS #39 confusable skeleton
    (ICU's data and algorithm) of the NFKC-normalised, case-folded name. NFKC maps compatibility
    forms (fullwidth ``Ｖ``, ``ﬁ``) to plain ones and case folding ignores case; the skeleton maps
    confusables (dotless ``ı``, Cyrillic ``а``, ``rn`` and ``m``) to one prototype. Two names with the
    same skeleton can be mistaken for each other; a skeleton is a key, never shown."""
    checker = getattr(_spoof, "checker", None)
    if checker is None:
        checker = _spoof.checker = icu.SpoofChecker()
    return str(checker.getSkeleton(0, unicodedata.normalize("NFKC", name).casefold()))


def check_username(raw: Any) -> str:
    """A username as stored: a name by guard.clean_name's rules (printable, NFC, at most 24) that is
    also 3+ characters of letters, digits, ``_ . -`` (it is a URL path segment: ``/u/{username}``)."""
    name = clean_name(raw, "", "username")
    if not USERNAME_MIN <= len(name) <= USERNAME_MAX:
        raise HTTPException(400, f"a username has {USERNAME_MIN} to {USERNAME_MAX} characters")
    if not _USERNAME_CHARS.match(name) or name.startswith((".", "-")):
        raise HTTPException(400, "a username holds only letters, digits, '_', '.' and '-' (no spaces), "
                                 "and starts with a letter or digit")
    return name


def check_password(raw: Any) -> str:
    if not isinstance(raw, str):
        raise HTTPException(400, "'password' is a text")
    if not PASSWORD_MIN <= len(raw) <= PASSWORD_MAX:
        raise HTTPException(400, f"a password has {PASSWORD_MIN} to {PASSWORD_MAX} characters")
    try:
        raw.encode("utf-8")
    except UnicodeEncodeError:
        raise HTTPException(400, "the password is not valid Unicode") from None
    return raw


def _sid_hash(sid: str) -> str:
    return hashlib.sha256(sid.encode("ascii", "replace")).hexdigest()


def family_of(name: str | None) -> str | None:
    """``ttr`` / ``trans`` for a family name or a game name; None for anything else."""
    if name in FAMILIES:
        return name
    if isinstance(name, str) and name in tracklayer.games():
        return "trans" if name.startswith("trans") else "ttr"
    return None


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


# ---------------------------------------------------------------------------- storage
class AccountStore:
    """The account tables, used from worker threads (synchronous SQLAlchemy like ``db.Store``)."""

    def __init__(self, engine: Engine, session_seconds: float = SESSION_SECONDS) -> None:
        self.engine = engine
        self.session_seconds = session_seconds

    # accounts and sessions
    def create_account(self, username: str, password_hash: str) -> int | None:
        """The new account's id, or None if the name (ignoring case) or its look-alike skeleton is taken:
        the unique columns decide, so of two registrations racing for look-alike names one wins."""
        try:
            with self.engine.begin() as conn:
                res = conn.execute(insert(accounts).values(
                    username=username, username_key=username_key(username),
                    username_skeleton=username_skeleton(username), password_hash=password_hash,
                    created_at=time.time()))
                key = res.inserted_primary_key
                assert key is not None, "an insert of one row has its key"
                return int(key[0])
        except IntegrityError:
            return None

    def name_holder(self, username: str) -> tuple[str, bool] | None:
        """The existing account ``username`` collides with: ``(its name, True if the same name ignoring
        case, False if only a look-alike)``; None if there is none."""
        key, skeleton = username_key(username), username_skeleton(username)
        with self.engine.connect() as conn:
            row = conn.execute(select(accounts.c.username, accounts.c.username_key).where(
                (accounts.c.username_key == key) | (accounts.c.username_skeleton == skeleton))
                .order_by((accounts.c.username_key == key).desc())).first()
        return None if row is None else (row.username, row.username_key == key)

    def find_account(self, username: str) -> Any:
        with self.engine.connect() as conn:
            return conn.execute(select(accounts).where(accounts.c.username_key == username_key(username))).first()

    def set_hash(self, account_id: int, password_hash: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(update(accounts).where(accounts.c.id == account_id).values(password_hash=password_hash))

    def new_session(self, account_id: int) -> tuple[str, str]:
        """A new session: ``(session id for the cookie, CSRF token)``."""
        sid, csrf, now = secrets.token_urlsafe(32), secrets.token_urlsafe(32), time.time()
        with self.engine.begin() as conn:
            conn.execute(delete(sessions).where(sessions.c.expires_at < now))  # the expired ones go as we pass
            conn.execute(insert(sessions).values(id_hash=_sid_hash(sid), account_id=account_id, csrf=csrf,
                                                 created_at=now, expires_at=now + self.session_seconds))
        return sid, csrf

    def session(self, sid: str) -> dict[str, Any] | None:
        """The live session of this cookie value: account id, username, CSRF token; None if none."""
        if not sid or len(sid) > 128 or not sid.isascii():
            return None
        with self.engine.connect() as conn:
            row = conn.execute(select(sessions.c.account_id, sessions.c.csrf, sessions.c.expires_at,
                                      accounts.c.username)
                               .select_from(sessions.join(accounts, accounts.c.id == sessions.c.account_id))
                               .where(sessions.c.id_hash == _sid_hash(sid))).first()
        if row is None or row.expires_at < time.time():
            return None
        return {"account_id": int(row.account_id), "username": row.username, "csrf": row.csrf}

    def end_session(self, sid: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(delete(sessions).where(sessions.c.id_hash == _sid_hash(sid)))

    # seats
    def link_seat(self, account_id: int, game_id: str, seat: int) -> bool:
        """Link ``seat`` of a game to an account (once: a seat keeps its first account, an account
        keeps its first seat of a game). Returns True if this call made the link."""
        from tracklayer.server.db import games

        try:
            with self.engine.begin() as conn:
                taken = conn.execute(select(account_games.c.account_id).where(
                    account_games.c.game_id == game_id, account_games.c.seat == seat)).first()
                if taken is not None:
                    return False
                conn.execute(insert(account_games).values(account_id=account_id, game_id=game_id, seat=seat,
                                                          joined_at=time.time()))
                row = conn.execute(select(games.c.seats).where(games.c.id == game_id)).first()
                if row is not None:  # the seat in the game record carries its account too
                    import json

                    seats = json.loads(row.seats)
                    if 0 <= seat < len(seats):
                        seats[seat]["account"] = account_id
                        conn.execute(update(games).where(games.c.id == game_id).values(seats=json.dumps(seats)))
            return True
        except IntegrityError:
            return False

    def seat_accounts(self, conn: Connection, game_id: str) -> dict[int, tuple[int, str]]:
        rows = conn.execute(select(account_games.c.seat, account_games.c.account_id, accounts.c.username)
                            .select_from(account_games.join(accounts, accounts.c.id == account_games.c.account_id))
                            .where(account_games.c.game_id == game_id)).all()
        return {int(r.seat): (int(r.account_id), r.username) for r in rows}

    # ratings
    def finish_game(self, game_id: str, game: str, seats: Sequence[dict[str, Any]], ranks: Sequence[int]) -> bool:
        """Record the final ranks of the account seats and rate the game if it is rated. Returns True
        if this call applied the rating (False: unrated, or already rated by somebody else).

        One transaction: the ranks, the ``rated_games`` row and the new ratings are stored together or
        not at all, so an account seat without a rank in a finished game means exactly "the rating
        code never finished this game" (what :func:`rate_unrated` looks for after a crash)."""
        family = family_of(game)
        with _rating_lock:
            try:
                with self.engine.begin() as conn:
                    linked = self.seat_accounts(conn, game_id)
                    entrants: list[tuple[str, str, str, int | None, int]] = []  # identity, kind, name, account, rank
                    worst = max(ranks) + 1
                    for i, s in enumerate(seats):
                        rank = worst if s.get("resigned") else int(ranks[i])
                        if i in linked:
                            account_id, username = linked[i]
                            entrants.append((f"acct:{account_id}", "human", username, account_id, rank))
                        elif s.get("kind") == "bot":
                            bot = str(s.get("bot") or "bot")
                            entrants.append((f"bot:{bot}", "bot", bot, None, rank))
                    # the same bot on several seats: each seat is rated against the others and the bot's new
                    # rating is the mean of its seats' (so a lobby game of a person and two Medium bots
                    # counts); a game between copies of one bot only tells nothing and is not rated
                    rated = family is not None and len({e[0] for e in entrants}) >= 2
                    if rated:
                        # first: a second rating of this game fails here (on PostgreSQL it waits for the
                        # first one's commit, then fails), before anything changed
                        conn.execute(insert(rated_games).values(game_id=game_id, family=family, game=game,
                                                                rated_at=time.time()))
                    for seat, (account_id, _) in linked.items():  # the ranks of the account seats, for profiles
                        conn.execute(update(account_games).where(account_games.c.game_id == game_id,
                                                                 account_games.c.account_id == account_id)
                                     .values(rank=int(ranks[seat]), players=len(ranks)))
                    if rated:
                        assert family is not None
                        _apply(conn, game_id, family, entrants)
            except IntegrityError:
                return False  # rated already (another process, a second call)
            return rated

    def unrated_games(self, before: float, limit: int, skip: Collection[str] = ()) -> list[str]:
        """Finished games with an account seat the rating code never finished (no rank stored, no
        ``rated_games`` row) whose last move is older than ``before``: what a crash between a game's
        last move and its rating leaves. Reads the partial index ``ix_account_games_unranked`` (the
        account seats of unfinished games only), oldest first, at most ``limit``."""
        from tracklayer.server.db import games

        query = (select(account_games.c.game_id)
                 .select_from(account_games.join(games, games.c.id == account_games.c.game_id))
                 .where(account_games.c.rank.is_(None), games.c.status == "over", games.c.updated_at < before,
                        ~select(rated_games.c.game_id).where(rated_games.c.game_id == account_games.c.game_id)
                        .exists())
                 .group_by(account_games.c.game_id).order_by(func.min(games.c.updated_at)).limit(limit))
        if skip:
            query = query.where(account_games.c.game_id.not_in(list(skip)))
        with self.engine.connect() as conn:
            return list(conn.execute(query).scalars().all())

    def leaderboard(self, family: str, limit: int = 200) -> list[dict[str, Any]]:
        with self.engine.connect() as conn:
            rows = conn.execute(select(ratings).where(ratings.c.family == family)).all()
        table = sorted(({"name": r.name, "kind": r.kind, "identity": r.identity, "mu": r.mu, "sigma": r.sigma,
                         "rating": ordinal(r.mu, r.sigma), "games": int(r.games)} for r in rows),
                       key=lambda e: (-e["rating"], e["name"]))[:limit]
        from tracklayer.server.catalog import BOT_LEVELS

        levels = {bot: level for level, bot in BOT_LEVELS.get(family, [])}
        for i, e in enumerate(table):
            e["rank"] = i + 1
            if e["kind"] == "bot" and e["name"] in levels:
                e["level"] = levels[e["name"]]  # the lobby's level of this bot: the ladder as a difficulty scale
        return table

    def profile(self, username: str) -> dict[str, Any] | None:
        from tracklayer.server.db import games

        acct = self.find_account(username)
        if acct is None:
            return None
        ident = f"acct:{acct.id}"
        with self.engine.connect() as conn:
            rs = conn.execute(select(ratings).where(ratings.c.identity == ident)).all()
            hist = conn.execute(select(rating_history).where(rating_history.c.identity == ident)
                                .order_by(rating_history.c.at)).all()
            played = conn.execute(select(account_games, games.c.game, games.c.variant, games.c.status,
                                         games.c.updated_at)
                                  .select_from(account_games.join(games, games.c.id == account_games.c.game_id))
                                  .where(account_games.c.account_id == acct.id)
                                  .order_by(games.c.updated_at.desc()).limit(200)).all()
        after = {h.game_id: h for h in hist}
        return {
            "username": acct.username, "joined": acct.created_at,
            "ratings": {r.family: {"rating": ordinal(r.mu, r.sigma), "mu": r.mu, "sigma": r.sigma,
                                   "games": int(r.games)} for r in rs},
            "history": [{"game_id": h.game_id, "family": h.family, "rank": h.rank, "players": h.players,
                         "rating": h.ordinal, "at": h.at} for h in hist],
            "games": [{"id": g.game_id, "game": g.game, "variant": g.variant, "status": g.status, "seat": g.seat,
                       "rank": g.rank, "players": g.players, "updated_at": g.updated_at,
                       "rated": g.game_id in after,
                       **({"rating": after[g.game_id].ordinal} if g.game_id in after else {})} for g in played],
        }


def ordinal(mu: float, sigma: float) -> float:
    """The ladder's number: openskill's ordinal (mu - 3 sigma), a conservative estimate of skill."""
    return mu - 3.0 * sigma


def _model() -> Any:
    from openskill.models import PlackettLuce

    return PlackettLuce()


def _apply(conn: Connection, game_id: str, family: str,
           entrants: Sequence[tuple[str, str, str, int | None, int]]) -> None:
    """One openskill update (Plackett-Luce) of the entrants' ratings from their ranks (lock held,
    inside the transaction that inserted the game's ``rated_games`` row)."""
    model = _model()
    idents = [e[0] for e in entrants]
    query = select(ratings).where(ratings.c.family == family, ratings.c.identity.in_(idents))
    if conn.dialect.name == "postgresql":
        query = query.with_for_update()  # two processes rating games of the same bot take turns
    current = {r.identity: r for r in conn.execute(query).all()}
    teams = []
    for ident, *_ in entrants:
        r = current.get(ident)
        teams.append([model.rating(mu=r.mu, sigma=r.sigma) if r is not None else model.rating()])
    new = model.rate(teams, ranks=[e[4] for e in entrants])
    now = time.time()
    ranked = sorted({e[4] for e in entrants})
    merged: dict[str, dict[str, Any]] = {}
    for (ident, kind, name, account_id, rank), [rating] in zip(entrants, new, strict=True):
        m = merged.setdefault(ident, {"kind": kind, "name": name, "account_id": account_id, "rank": rank,
                                      "mu": [], "sigma": []})
        m["rank"] = min(m["rank"], rank)
        m["mu"].append(rating.mu)
        m["sigma"].append(rating.sigma)
    for ident, m in merged.items():
        mu, sigma = sum(m["mu"]) / len(m["mu"]), sum(m["sigma"]) / len(m["sigma"])
        if ident in current:
            conn.execute(update(ratings).where(ratings.c.family == family, ratings.c.identity == ident)
                         .values(mu=mu, sigma=sigma, games=ratings.c.games + 1, name=m["name"], updated_at=now))
        else:
            conn.execute(insert(ratings).values(family=family, identity=ident, kind=m["kind"], name=m["name"],
                                                account_id=m["account_id"], mu=mu, sigma=sigma, games=1,
                                                updated_at=now))
        conn.execute(insert(rating_history).values(game_id=game_id, family=family, identity=ident,
                                                   rank=1 + ranked.index(m["rank"]), players=len(entrants), mu=mu,
                                                   sigma=sigma, ordinal=ordinal(mu, sigma), at=now))


def final_ranks(game: Any) -> list[int]:
    """The engine's final rank of each seat (1 is first; ties share a rank)."""
    players = game.result()["players"]
    return [int(p["rank"]) for p in players]


# ---------------------------------------------------------------------------- games a crash left unrated
SWEEP_EVERY = 120.0  # seconds between two looks for finished games nobody rated
SWEEP_GRACE = 60.0  # a game that ended less long ago may still be being rated by the process that ended it
SWEEP_BATCH = 20  # games one look rates at most (a full batch: the next look comes at once)
SWEEP_SKIP_MAX = 1000  # games that cannot be rated that one process remembers (and stops retrying)


def rate_unrated(store: Store, grace: float = SWEEP_GRACE, limit: int = SWEEP_BATCH,
                 skip: set[str] | None = None) -> tuple[list[str], int]:
    """Rate the finished games that a crash left unrated: the process that stored a game's last
    move rates it just after (:meth:`Accounts.on_over`), and a crash in between used to lose the
    rating for good. Games that cannot be rebuilt are logged and added to ``skip``.

    Returns ``(ids of the games this call rated, how many games it looked at)``.
    """
    skip = set() if skip is None else skip
    found = AccountStore(store.engine).unrated_games(time.time() - grace, limit, skip)
    done: list[str] = []
    for game_id in found:
        try:
            if rate_stored(store, game_id):
                log.info("game %s rated (it had ended without its rating: a crash)", game_id)
                done.append(game_id)
        except Exception:
            log.exception("game %s: rating it after a crash failed; this process leaves it", game_id)
            if len(skip) < SWEEP_SKIP_MAX:
                skip.add(game_id)
    return done, len(found)


def rate_stored(store: Store, game_id: str) -> bool:
    """Finish and rate one stored game as :meth:`Accounts.on_over` would have: rebuilt from its stored
    moves (the engine's final ranks) and its stored seat control (a resigned seat is ranked last).
    :meth:`AccountStore.finish_game`'s ``rated_games`` row makes it exactly once, whoever else tries
    at the same time. True if this call rated it; ValueError if the stored game has not ended."""
    from tracklayer.server.clocks import load_control

    rec = store.load_game(game_id)
    if rec is None:
        return False
    game = tracklayer.load_game({**rec.setup, "moves": rec.moves})
    if not game.is_over:
        raise ValueError(f"the stored moves of game {game_id} do not end it")
    seats = with_seat_flags(rec.seats, load_control(store, game_id, len(rec.seats), rec.game))
    return AccountStore(store.engine).finish_game(game_id, rec.game, seats, final_ranks(game))


def with_seat_flags(seats: Sequence[dict[str, Any]], control: Any) -> list[dict[str, Any]]:
    """The seats with the clocks' flags of each (tracklayer.server.clocks ``Control.seat_flags``, e.g.
    ``resigned``, which :meth:`AccountStore.finish_game` ranks last); ``control`` None: as they are."""
    return [{**s, **(control.seat_flags(i) if control is not None else {})} for i, s in enumerate(seats)]


# ---------------------------------------------------------------------------- HTTP
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

    def __init__(self, engine: Engine) -> None:
        self.store = AccountStore(engine)
        self.limiter = LoginLimiter(lambda: engine)
        self.tasks: set[asyncio.Task[Any]] = set()
        self._sweeper: Background | None = None
        self.unrateable: set[str] = set()  # games the sweep could not rebuild (logged once, not retried)

    async def current(self, request: Request | WebSocket) -> dict[str, Any] | None:
        sid = request.cookies.get(COOKIE)
        return await asyncio.to_thread(self.store.session, sid) if sid else None

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

    # hooks ------------------------------------------------------------------------
    async def on_create(self, request: Request, seats: list[dict[str, Any]], hotseat: bool) -> int | None:
        """Before a game is stored: the creator's account goes on the first human seat (not in
        hot-seat games, where one screen plays several seats). Returns that seat, or None."""
        who = await self.authenticated(request)
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

    async def on_join(self, ws: WebSocket, room: Any, role: str, seats: frozenset[int]) -> None:
        """A websocket joined a seat with its token: a logged-in player's account is linked to it
        (once; a same-site socket only, so another site cannot link a seat to a visitor's account)."""
        if role != "seat" or len(seats) != 1 or not _same_origin(ws):
            return
        (seat,) = seats
        if room.record.seats[seat].get("account") is not None or room.game.is_over:
            return
        who = await self.current(ws)
        if who is None:
            return
        if any(s.get("account") == who["account_id"] for s in room.record.seats):
            return
        if await asyncio.to_thread(self.store.link_seat, who["account_id"], room.id, seat):
            room.record.seats[seat]["account"] = who["account_id"]

    def on_over(self, room: Any) -> None:
        """A game ended in this process: rate it (in a thread; once, whoever else tries)."""
        try:
            ranks = final_ranks(room.game)
        except Exception:
            log.exception("game %s: no final ranks", room.id)
            return
        seats = with_seat_flags(room.record.seats, getattr(room, "control", None))

        async def run() -> None:
            try:
                if await asyncio.to_thread(self.store.finish_game, room.id, room.record.game, seats, ranks):
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
        for task in list(self.tasks):
            with contextlib.suppress(Exception):
                async with asyncio.timeout(10):  # never wait_for: tracklayer/server/lease.py
                    await task

