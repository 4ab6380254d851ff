"""The mail tables' reads and writes (used from worker threads): addresses, switches, verification
tokens, and the log of mail sent that the rate limits and the exactly-once keys read."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import time
from collections.abc import Callable, Collection
from typing import Any

from sqlalchemy import func, insert, select, update
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError

from tracklayer.server.accounts.tables import accounts
from tracklayer.server.mail.tables import account_mail, mail_log, mail_secret

VERIFY_SECONDS = 48 * 3600.0  # a verification link works this long
LANGS = ("en", "de", "it", "fr", "nl")


class TokenRefused(Exception):
    """A verification token that verifies nothing; ``code`` says why: invalid, expired or used."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()


def address_key(email: str) -> str:
    """The hash an address is counted under (casefolded: ``Ann@X.org`` and ``ann@x.org`` are one)."""
    return digest(email.strip().casefold())


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


class MailStore:
    """The mail tables; ``settings`` of an account without a row are the defaults (no address)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._secret: bytes | None = None

    # ------------------------------------------------------------------ an account's address and switches
    def settings(self, account_id: int) -> dict[str, Any]:
        with self.engine.connect() as conn:
            row = conn.execute(select(account_mail).where(account_mail.c.account_id == account_id)).first()
        if row is None:
            return {"email": None, "verified": False, "pending": False, "turn_mail": True, "invite_mail": True,
                    "lang": "en"}
        return {"email": row.email, "verified": row.email is not None and row.verified_at is not None,
                "pending": row.email is not None and row.verified_at is None and row.verify_nonce is not None,
                "turn_mail": bool(row.turn_mail), "invite_mail": bool(row.invite_mail), "lang": row.lang}

    def save(self, account_id: int, **values: Any) -> None:
        """Set some of ``email`` (a new address is unverified and has no valid link yet), ``turn_mail``,
        ``invite_mail``, ``lang``."""
        values = dict(values, updated_at=time.time())
        if "email" in values:
            values |= {"verified_at": None, "verify_nonce": None}
        with self.engine.begin() as conn:
            done = conn.execute(update(account_mail).where(account_mail.c.account_id == account_id)
                                .values(**values)).rowcount
            if not done:
                conn.execute(insert(account_mail).values(account_id=account_id, **values))

    def recipient(self, account_id: int) -> tuple[str, str, bool, bool] | None:
        """A verified address of an account: ``(address, language, turn mail, invite mail)``; None if none."""
        with self.engine.connect() as conn:
            row = conn.execute(select(account_mail).where(account_mail.c.account_id == account_id,
                                                          account_mail.c.email.is_not(None),
                                                          account_mail.c.verified_at.is_not(None))).first()
        return None if row is None else (row.email, row.lang, bool(row.turn_mail), bool(row.invite_mail))

    def invitable(self, usernames: Collection[str]) -> set[str]:
        """Which of these accounts take a seat's invitation by mail (a verified address, invite mail on)."""
        if not usernames:
            return set()
        with self.engine.connect() as conn:
            rows = conn.execute(select(accounts.c.username)
                                .select_from(account_mail.join(accounts, accounts.c.id == account_mail.c.account_id))
                                .where(accounts.c.username.in_(list(usernames)), account_mail.c.email.is_not(None),
                                       account_mail.c.verified_at.is_not(None), account_mail.c.invite_mail.is_(True)))
            return set(rows.scalars())

    def username(self, account_id: int) -> str:
        with self.engine.connect() as conn:
            return str(conn.execute(select(accounts.c.username).where(accounts.c.id == account_id)).scalar_one())

    def account_named(self, username_key: str) -> int | None:
        """The id of a person's account (not a bot account's) by its username key."""
        with self.engine.connect() as conn:
            return conn.execute(select(accounts.c.id).where(accounts.c.username_key == username_key,
                                                            accounts.c.bot_owner.is_(None))).scalar()

    # ------------------------------------------------------------------ verification links
    def secret(self) -> bytes:
        if self._secret is None:
            with self.engine.connect() as conn:
                self._secret = bytes.fromhex(conn.execute(select(mail_secret.c.secret)
                                                          .where(mail_secret.c.id == 1)).scalar_one())
        return self._secret

    def _sign(self, payload: str, email: str) -> str:
        mac = hmac.new(self.secret(), f"verify\0{payload}\0{email.strip().casefold()}".encode(), hashlib.sha256)
        return _b64(mac.digest())

    def new_token(self, account_id: int, email: str, now: float | None = None) -> str:
        """A verification link's token for the account's current address: ``account.expiry.nonce.signature``
        (HMAC-SHA256 over them and the address). It replaces any earlier link of the account."""
        now = time.time() if now is None else now
        nonce = secrets.token_urlsafe(16)
        payload = f"{account_id}.{int(now + VERIFY_SECONDS)}.{nonce}"
        with self.engine.begin() as conn:
            conn.execute(update(account_mail).where(account_mail.c.account_id == account_id)
                         .values(verify_nonce=nonce))
        return f"{payload}.{self._sign(payload, email)}"

    def verify(self, token: str, now: float | None = None) -> int:
        """Verify the address a token was made for; the account's id. TokenRefused: a token not made
        here or for another address (invalid), past its expiry (expired), or used or replaced (used)."""
        now = time.time() if now is None else now
        parts = token.split(".") if isinstance(token, str) and len(token) < 200 and token.isascii() else []
        if len(parts) != 4 or not parts[0].isdigit() or not parts[1].isdigit():
            raise TokenRefused("invalid", "this verification link is not valid")
        account_id, expires, nonce, signature = int(parts[0]), int(parts[1]), parts[2], parts[3]
        with self.engine.begin() as conn:
            row = conn.execute(select(account_mail).where(account_mail.c.account_id == account_id)).first()
            if row is None or row.email is None or not hmac.compare_digest(
                    self._sign(".".join(parts[:3]), row.email), signature):
                raise TokenRefused("invalid", "this verification link is not valid (or not for this address)")
            if expires < now:
                raise TokenRefused("expired", "this verification link has expired: ask for a new one on your profile")
            done = conn.execute(update(account_mail).where(account_mail.c.account_id == account_id,
                                                           account_mail.c.verify_nonce == nonce)
                                .values(verified_at=now, verify_nonce=None)).rowcount
            if not done:
                raise TokenRefused("used", "this verification link has been used or replaced by a newer one")
        return account_id

    # ------------------------------------------------------------------ the log: once, and rate limits
    def count(self, kind: str, since: float, *, account_id: int | None = None, sender: str | None = None,
              target: str | None = None) -> int:
        query = select(func.count()).select_from(mail_log).where(mail_log.c.kind == kind, mail_log.c.sent_at >= since)
        if account_id is not None:
            query = query.where(mail_log.c.account_id == account_id)
        if sender is not None:
            query = query.where(mail_log.c.sender == sender)
        if target is not None:
            query = query.where(mail_log.c.target == target)
        with self.engine.connect() as conn:
            return int(conn.execute(query).scalar_one())

    def log(self, kind: str, *, account_id: int | None = None, sender: str | None = None,
            target: str | None = None, once: str | None = None,
            then: Callable[[Connection], object] | None = None) -> bool:
        """Note a mail as sent, and run ``then`` (the outbox's write of the mail) in the same transaction,
        so that a mail is noted if and only if it is queued; False if one with the same ``once`` key was
        (nothing noted or queued then)."""
        try:
            with self.engine.begin() as conn:
                conn.execute(insert(mail_log).values(kind=kind, account_id=account_id, sender=sender, target=target,
                                                     once=once, sent_at=time.time()))
                if then is not None:
                    then(conn)
            return True
        except IntegrityError:
            return False
