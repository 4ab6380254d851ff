"""The account tables' reads and writes: accounts, sessions, seat links, ratings, the ladder, profiles."""

from __future__ import annotations

import hashlib
import json
import secrets
import threading
import time
from collections.abc import Collection, Sequence
from typing import Any

from sqlalchemy import (
    delete,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError

import tracklayer
from tracklayer.server.accounts.names import username_key, username_skeleton
from tracklayer.server.accounts.ratings import _apply, ordinal
from tracklayer.server.accounts.stats import aggregate, load
from tracklayer.server.accounts.tables import account_games, accounts, rated_games, rating_history, ratings, sessions

SESSION_SECONDS = 30 * 24 * 3600.0
FAMILIES = ("ttr", "trans")
_rating_lock = threading.Lock()  # one rating update at a time per process (SQLite has one writer anyway)


def _sid_hash(sid: str) -> str:
    return hashlib.sha256(sid.encode("ascii", "replace")).hexdigest()


def family_of(name: str | None) -> str | None:
    """``ttr`` / ``trans`` for a family name or a game name; None for anything else."""
    if name in FAMILIES:
        return name
    if isinstance(name, str) and name in tracklayer.games():
        return "trans" if name.startswith("trans") else "ttr"
    return None


def would_rate(game: str, seats: Sequence[dict[str, Any]]) -> bool:
    """Whether a game of these seats is rated when it ends, as far as is known now: the rule of
    :meth:`AccountStore.finish_game` (two different entrants among the seats linked to an account and
    the bots), read from the seats' ``account`` fields (a seat linked later makes a game rated later)."""
    entrants = {f"acct:{s['account']}" if s.get("account") is not None else f"bot:{s.get('bot') or 'bot'}"
                for s in seats if s.get("account") is not None or s.get("kind") == "bot"}
    return family_of(game) is not None and len(entrants) >= 2


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

    def seated(self, account_id: int, game_ids: Collection[str]) -> set[str]:
        """Those of ``game_ids`` in which the account has a seat (an account has one seat a game)."""
        if not game_ids:
            return set()
        with self.engine.connect() as conn:
            return set(conn.execute(select(account_games.c.game_id).where(
                account_games.c.account_id == account_id, account_games.c.game_id.in_(list(game_ids))))
                .scalars().all())

    def seat_accounts(self, conn: Connection, game_id: str) -> dict[int, tuple[int, str, bool]]:
        """The accounts linked to the game's seats: seat -> (account id, username, is a bot account)."""
        rows = conn.execute(select(account_games.c.seat, account_games.c.account_id, accounts.c.username,
                                   accounts.c.bot_owner)
                            .select_from(account_games.join(accounts, accounts.c.id == account_games.c.account_id))
                            .where(account_games.c.game_id == game_id)).all()
        return {int(r.seat): (int(r.account_id), r.username, r.bot_owner is not None) for r in rows}

    # ratings
    def finish_game(self, game_id: str, game: str, seats: Sequence[dict[str, Any]], ranks: Sequence[int],
                    stats: Sequence[dict[str, Any]] | None = None) -> bool:
        """Record the final ranks (and ``stats``, each seat's numbers: :func:`stats.final_stats`) of the
        account seats and rate the game if it is rated. Returns True if this call applied the rating
        (False: unrated, or already rated by somebody else).

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
                        if i in linked:  # a person's account, or a bot account (an outside program)
                            account_id, username, is_bot = linked[i]
                            entrants.append((f"acct:{account_id}", "bot" if is_bot else "human", username,
                                             account_id, rank))
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
                    for seat, (account_id, *_) in linked.items():  # the ranks of the account seats, for profiles
                        conn.execute(update(account_games).where(account_games.c.game_id == game_id,
                                                                 account_games.c.account_id == account_id)
                                     .values(rank=int(ranks[seat]), players=len(ranks),
                                             stats=None if stats is None else json.dumps(stats[seat])))
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

    def leaderboard(self, family: str, limit: int = 200, kind: str | None = None) -> list[dict[str, Any]]:
        """The ladder of a family, best first; ``kind`` ``human`` or ``bot``: only those (ranked among
        themselves). A bot account (an outside program) is a ``bot`` with ``"account": true`` and its
        ``owner``, the person's account that made it; the project's own bots have no ``account``."""
        owners = accounts.alias("owners")
        with self.engine.connect() as conn:
            query = (select(ratings, owners.c.username.label("owner"))
                     .select_from(ratings.outerjoin(accounts, accounts.c.id == ratings.c.account_id)
                                  .outerjoin(owners, owners.c.id == accounts.c.bot_owner))
                     .where(ratings.c.family == family))
            if kind is not None:
                query = query.where(ratings.c.kind == kind)
            rows = conn.execute(query).all()
        table = sorted(({"name": r.name, "kind": r.kind, "identity": r.identity, "mu": r.mu, "sigma": r.sigma,
                         "rating": ordinal(r.mu, r.sigma), "games": int(r.games),
                         **({"account": True, "owner": r.owner} if r.owner is not None else {})} for r in rows),
                       key=lambda e: (-e["rating"], e["name"]))[:limit]
        from tracklayer.server.catalog import BOT_LEVELS

        levels = {bot: level for level, bot in BOT_LEVELS.get(family, [])}
        for i, e in enumerate(table):
            e["rank"] = i + 1
            if e["kind"] == "bot" and "account" not in e and e["name"] in levels:
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
            # every finished game with statistics, not only the 200 listed: the summary counts them all. Read
            # before the list: statistics are only ever added, so a game the summary counts has them in the list
            # too, even when its game ends between the two reads
            finished = conn.execute(select(games.c.game, account_games.c.rank, account_games.c.stats)
                                    .select_from(account_games.join(games, games.c.id == account_games.c.game_id))
                                    .where(account_games.c.account_id == acct.id,
                                           account_games.c.stats.is_not(None))).all()
            played = conn.execute(select(account_games, games.c.game, games.c.variant, games.c.status,
                                         games.c.updated_at)
                                  .select_from(account_games.join(games, games.c.id == account_games.c.game_id))
                                  .where(account_games.c.account_id == acct.id)
                                  .order_by(games.c.updated_at.desc()).limit(200)).all()
        after = {h.game_id: h for h in hist}
        stats = {g.game_id: load(g.stats) for g in played}
        by_family: dict[str, list[tuple[int | None, dict[str, Any]]]] = {}
        for game, rank, text in finished:
            family, st = family_of(game), load(text)
            if family is not None and st is not None:
                by_family.setdefault(family, []).append((rank, st))
        owner = None
        if acct.bot_owner is not None:
            with self.engine.connect() as conn:
                owner = conn.execute(select(accounts.c.username).where(accounts.c.id == acct.bot_owner)).scalar()
        return {
            "username": acct.username, "joined": acct.created_at,
            **({"bot": True, "owner": owner, "description": acct.bot_description}
               if acct.bot_owner is not None else {}),
            "ratings": {r.family: {"rating": ordinal(r.mu, r.sigma), "mu": r.mu, "sigma": r.sigma,
                                   "games": int(r.games)} for r in rs},
            "history": [{"game_id": h.game_id, "family": h.family, "rank": h.rank, "players": h.players,
                         "rating": h.ordinal, "at": h.at} for h in hist],
            "games": [{"id": g.game_id, "game": g.game, "variant": g.variant, "status": g.status, "seat": g.seat,
                       "rank": g.rank, "players": g.players, "updated_at": g.updated_at,
                       "rated": g.game_id in after,
                       **({"rating": after[g.game_id].ordinal} if g.game_id in after else {}),
                       **({"stats": stats[g.game_id]} if stats[g.game_id] is not None else {})} for g in played],
            # the finished games with statistics of each family, added up (stats.aggregate)
            "stats": {family: aggregate(rows) for family, rows in by_family.items()},
        }
