"""Bot accounts and their API tokens: an outside program plays rated games as an account of its own.

A bot account is a row of ``accounts`` with ``bot_owner`` set to the person's account that made it.
It shares the namespace of usernames (its name is unique and unlike any other to the eye, and it has
a profile at ``/u/{name}``) but has no password: it cannot log in, it acts with API tokens only.

An API token is ``tlb_`` and 256 random bits. Like a session id, only its SHA-256 is stored (a
leaked table opens nothing), next to a public id that names it in lists and to revoke it; the
secret is shown once, when the token is made. The prefix tells API tokens from the seat tokens
that share the ``Authorization: Bearer`` header, so a seat token never costs a database lookup.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from typing import Any

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError

from tracklayer.server.accounts.names import username_key, username_skeleton
from tracklayer.server.accounts.tables import account_games, accounts, api_tokens, rating_history, ratings, sessions

TOKEN_PREFIX = "tlb_"
BOTS_PER_OWNER = 10  # bot accounts one person may own
TOKENS_PER_BOT = 10  # live (not revoked) tokens of one bot account
NO_PASSWORD = "!bot-account"  # not an argon2 hash: every login of a bot account fails its verify


def token_hash(secret: str) -> str:
    return hashlib.sha256(secret.encode("ascii", "replace")).hexdigest()


def is_api_token(token: str) -> bool:
    return token.startswith(TOKEN_PREFIX) and 0 < len(token) <= 128 and token.isascii()


class BotStore:
    """The bot accounts and API tokens, used from worker threads (synchronous SQLAlchemy)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def create_bot(self, owner_id: int, name: str, description: str | None = None) -> int | None:
        """The new bot account's id; None if the name is taken (the unique columns decide, as for people).
        ValueError if the owner has :data:`BOTS_PER_OWNER` bots already or is a bot itself."""
        with self.engine.begin() as conn:
            owner = conn.execute(select(accounts.c.bot_owner).where(accounts.c.id == owner_id)).first()
            if owner is None or owner.bot_owner is not None:
                raise ValueError("only a person's account owns bot accounts")
            mine = conn.execute(select(func.count()).select_from(accounts)
                                .where(accounts.c.bot_owner == owner_id)).scalar_one()
            if mine >= BOTS_PER_OWNER:
                raise ValueError(f"an account owns at most {BOTS_PER_OWNER} bot accounts")
        try:
            with self.engine.begin() as conn:
                res = conn.execute(insert(accounts).values(
                    username=name, username_key=username_key(name), username_skeleton=username_skeleton(name),
                    password_hash=NO_PASSWORD, created_at=time.time(), bot_owner=owner_id,
                    bot_description=description))
                key = res.inserted_primary_key
                assert key is not None, "an insert of one row has its key"
                return int(key[0])
        except IntegrityError:
            return None

    def bots_of(self, owner_id: int) -> list[dict[str, Any]]:
        with self.engine.connect() as conn:
            rows = conn.execute(select(accounts.c.username, accounts.c.created_at, accounts.c.bot_description)
                                .where(accounts.c.bot_owner == owner_id).order_by(accounts.c.id)).all()
        return [{"name": r.username, "created_at": r.created_at, "description": r.bot_description} for r in rows]

    def owned_bot(self, owner_id: int, name: str) -> int | None:
        """The id of the bot account ``name`` if ``owner_id`` owns it, else None (no such bot, or
        somebody else's: the two are not told apart)."""
        with self.engine.connect() as conn:
            row = conn.execute(select(accounts.c.id).where(accounts.c.username_key == username_key(name),
                                                           accounts.c.bot_owner == owner_id)).first()
        return None if row is None else int(row.id)

    def delete_bot(self, bot_id: int) -> None:
        """Delete the bot account with its tokens, ratings and links to the games it sat in. The games
        stay, its seats in them named as they were; a game it sits in goes on unrated for that seat, and
        its name is free again."""
        with self.engine.begin() as conn:
            conn.execute(delete(api_tokens).where(api_tokens.c.account_id == bot_id))
            conn.execute(delete(sessions).where(sessions.c.account_id == bot_id))
            conn.execute(delete(account_games).where(account_games.c.account_id == bot_id))
            conn.execute(delete(ratings).where(ratings.c.account_id == bot_id))
            conn.execute(delete(rating_history).where(rating_history.c.identity == f"acct:{bot_id}"))
            conn.execute(delete(accounts).where(accounts.c.id == bot_id, accounts.c.bot_owner.is_not(None)))

    def new_token(self, bot_id: int, label: str) -> dict[str, Any]:
        """A new token of the bot account: its public fields and, this once, its secret (``token``).
        ValueError past :data:`TOKENS_PER_BOT` live tokens."""
        secret = TOKEN_PREFIX + secrets.token_urlsafe(32)
        row = {"id": secrets.token_urlsafe(9), "secret_hash": token_hash(secret), "account_id": bot_id,
               "label": label, "created_at": time.time()}
        with self.engine.begin() as conn:
            live = conn.execute(select(func.count()).select_from(api_tokens).where(
                api_tokens.c.account_id == bot_id, api_tokens.c.revoked_at.is_(None))).scalar_one()
            if live >= TOKENS_PER_BOT:
                raise ValueError(f"a bot account has at most {TOKENS_PER_BOT} tokens: revoke one first")
            conn.execute(insert(api_tokens).values(**row))
        return {"id": row["id"], "label": label, "created_at": row["created_at"], "token": secret}

    def tokens(self, bot_id: int) -> list[dict[str, Any]]:
        """The bot account's tokens, without their secrets (which are not stored)."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(api_tokens).where(api_tokens.c.account_id == bot_id)
                                .order_by(api_tokens.c.created_at)).all()
        return [{"id": r.id, "label": r.label, "created_at": r.created_at, "last_used_at": r.last_used_at,
                 "revoked": r.revoked_at is not None} for r in rows]

    def revoke(self, bot_id: int, token_id: str) -> bool:
        """Revoke a token of the bot account; False if it has no such live token."""
        with self.engine.begin() as conn:
            res = conn.execute(update(api_tokens).where(api_tokens.c.id == token_id,
                                                        api_tokens.c.account_id == bot_id,
                                                        api_tokens.c.revoked_at.is_(None))
                               .values(revoked_at=time.time()))
        return bool(res.rowcount)

    def authenticate(self, secret: str) -> dict[str, Any] | None:
        """The bot account a live token acts for: ``{"account_id", "username", "token_id"}``; None for
        an unknown or revoked token. Marks the token used (to the minute: one write a minute at most)."""
        if not is_api_token(secret):
            return None
        now = time.time()
        with self.engine.connect() as conn:
            row = conn.execute(select(api_tokens.c.id, api_tokens.c.account_id, api_tokens.c.last_used_at,
                                      api_tokens.c.revoked_at, accounts.c.username)
                               .select_from(api_tokens.join(accounts, accounts.c.id == api_tokens.c.account_id))
                               .where(api_tokens.c.secret_hash == token_hash(secret))).first()
        if row is None or row.revoked_at is not None:
            return None
        if row.last_used_at is None or now - row.last_used_at >= 60:
            with self.engine.begin() as conn:
                conn.execute(update(api_tokens).where(api_tokens.c.id == row.id).values(last_used_at=now))
        return {"account_id": int(row.account_id), "username": row.username, "token_id": row.id}
