"""E-mail: an optional, verified address on an account, "your turn" mail in turn-based games, and a
seat's invitation mailed by the game's creator. Decisions (documented in ``docs/server.md``):

* Mail is on only when the server has an SMTP host and a public URL (``TRACKLAYER_SMTP_HOST``,
  ``TRACKLAYER_PUBLIC_URL``): links in mail must be absolute. Off, the pages say so and the API
  refuses to take an address (409, ``mail-off``); nothing else changes.
* An address gets no mail but its verification link until that link is opened. The link carries
  ``account.expiry.nonce.signature`` after ``#`` (tokens never reach the server in a URL; the page
  posts it): HMAC-SHA256 under a key the migration made, over the account, the expiry (48 hours),
  a nonce and the address. The account row keeps the one nonce that is valid now, so a link works
  once, and a newer link or a new address makes older links void.
* "Your turn": when a turn-based game's turn (a clock of an hour or more) passes to a person's seat
  linked to an account with a verified address and turn mail on, and that person is connected to
  none of the server's processes, one mail goes out with the seat's link. The process that owns the
  game's clock decides (:mod:`tracklayer.server.clocks`); ``mail_log.once`` (game, seat, move count)
  makes it once per turn even across processes, restarts and undo; a multi-step turn is one turn.
  At most :data:`TURN_PER_HOUR` a hour per account.
* Invites: the creator token of a game mails one seat's link to an address, or to a registered
  person whose account takes invite mail (the address is never shown). At most
  :data:`INVITES_PER_HOUR` an hour per sender (account, else client address) and
  :data:`INVITES_PER_TARGET` a day per recipient address.
* Sending is off the request path, and durable: a mail is written to the database's outbox in the
  transaction that notes it in ``mail_log`` (so its once key and rate limits count only a mail that is
  queued), and sent from there (:class:`~tracklayer.server.mail.outbox.Outbox`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlsplit

from tracklayer.server.mail.outbox import Letter, Outbox
from tracklayer.server.mail.store import LANGS, MailStore, TokenRefused, address_key, digest
from tracklayer.server.mail.texts import compose

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection, Engine

    from tracklayer.server.rooms import Room
    from tracklayer.server.settings import Settings

__all__ = ["INVITES_PER_HOUR", "INVITES_PER_TARGET", "LANGS", "TURN_PER_HOUR", "VERIFY_PER_HOUR", "VERIFY_PER_TARGET",
           "Limited", "Mail", "MailStore", "TokenRefused", "address_key"]
log = logging.getLogger("tracklayer.server")

VERIFY_PER_HOUR = 5  # verification mails an account may ask for in an hour
VERIFY_PER_TARGET = 5  # verification mails one address gets in a day (from any number of accounts)
TURN_PER_HOUR = 12  # "your turn" mails one account gets in an hour at most (many games at once)
INVITES_PER_HOUR = 10  # invitations one sender may mail in an hour
INVITES_PER_TARGET = 3  # invitations one address gets in a day


class Limited(Exception):
    """A mail refused by a rate limit (the message says which)."""


class Mail:
    """The mail service of the server (``app.state.mail``): on when the settings name an SMTP host and a
    public URL. ``start`` and ``close`` with the event loop running."""

    def __init__(self, settings: Settings, engine: Engine) -> None:
        self.store = MailStore(engine)
        self.base = (settings.public_url or "").rstrip("/")
        self.enabled = bool(settings.smtp_host) and bool(self.base)
        if settings.smtp_host and not self.base:
            log.warning("mail is off: $TRACKLAYER_SMTP_HOST is set but $TRACKLAYER_PUBLIC_URL is not "
                        "(links in mail need the address people open the site at)")
        self.sender = settings.mail_from or f"tracklayer@{urlsplit(self.base).hostname or 'localhost'}"
        self.outbox = Outbox(settings, engine) if self.enabled else None
        self.tasks: set[asyncio.Task[Any]] = set()

    def start(self) -> None:
        if self.outbox is not None:
            self.outbox.start()

    async def close(self) -> None:
        for task in list(self.tasks):
            task.cancel()
        if self.outbox is not None:
            await self.outbox.close()

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def _queue(self, kind: str, lang: str, to: str, link: str, what: str, profile: str | None,
               **params: Any) -> Callable[[Connection], object]:
        """The write of a mail to the outbox, for :meth:`MailStore.log` to run in its transaction."""
        assert self.outbox is not None
        letter = Letter(compose(kind, lang, self.sender, to, link, profile, **params), what)
        outbox = self.outbox
        return lambda conn: outbox.add(conn, letter)

    def _profile(self, username: str) -> str:
        return f"{self.base}/u/{quote(username, safe='')}"

    # ------------------------------------------------------------------ verification
    def send_verification(self, account_id: int, username: str) -> None:
        """Mail a new verification link to the account's address (worker thread). Limited past
        :data:`VERIFY_PER_HOUR` an hour."""
        if self.store.count("verify", time.time() - 3600, account_id=account_id) >= VERIFY_PER_HOUR:
            raise Limited(f"at most {VERIFY_PER_HOUR} verification mails an hour: try again later")
        current = self.store.settings(account_id)
        email, lang = current["email"], current["lang"]
        if email is None:
            return
        if self.store.count("verify", time.time() - 86400, target=address_key(email)) >= VERIFY_PER_TARGET:
            raise Limited(f"that address had {VERIFY_PER_TARGET} verification mails today: try again tomorrow")
        token = self.store.new_token(account_id, email)
        assert self.outbox is not None
        self.store.log("verify", account_id=account_id, target=address_key(email),
                       then=self._queue("verify", lang, email, f"{self.base}/verify-email#{token}",
                                        f"verification mail (account {account_id})", self._profile(username),
                                        username=username))
        self.outbox.wake()

    # ------------------------------------------------------------------ your turn
    def on_turn(self, room: Room, seat: int) -> None:
        """A turn-based game's turn passed to a person's seat (:meth:`Clocks.tick`, the owner process):
        mail its account if it is away and wants it."""
        if not self.enabled or room.game.is_over:
            return
        rec = room.record
        account_id = rec.seats[seat].get("account")
        if account_id is None:
            return
        if seat in room.note_presence():
            log.info("mail: no turn mail for seat %d of game %s (connected)", seat, rec.id)
            return
        once = f"turn:{rec.id}:{seat}:{len(room.game.moves)}"
        others = [s["name"] for i, s in enumerate(rec.seats) if i != seat]
        token = rec.seats[seat].get("token")
        link = f"{self.base}/game/{rec.id}" + (f"#{token}" if token else "")
        self._spawn(self._turn(int(account_id), rec.game, rec.id, once, others, link))

    async def _turn(self, account_id: int, game: str, game_id: str, once: str, others: list[str], link: str) -> None:
        try:
            await asyncio.to_thread(self._turn_mail, account_id, game, game_id, once, others, link)
        except Exception:
            log.exception("mail: deciding on a turn mail (game %s) failed", game_id)

    def _turn_mail(self, account_id: int, game: str, game_id: str, once: str, others: list[str], link: str) -> None:
        """Queue the turn mail unless the account has no verified address, turned it off, had its limit,
        or this turn was mailed already (each logged)."""
        assert self.outbox is not None
        found = self.store.recipient(account_id)
        why = ("no verified address" if found is None else "turn mail off" if not found[2]
               else f"{TURN_PER_HOUR} turn mails this hour"
               if self.store.count("turn", time.time() - 3600, account_id=account_id) >= TURN_PER_HOUR
               else None)
        if why is None and found is not None:
            username = self.store.username(account_id)
            queue = self._queue("turn", found[1], found[0], link, f"turn mail (game {game_id}, account {account_id})",
                                self._profile(username), username=username, game=_title(game),
                                players=", ".join(others))
            if self.store.log("turn", account_id=account_id, target=address_key(found[0]), once=once, then=queue):
                self.outbox.wake()
                return
            why = "mailed already"
        log.info("mail: no turn mail for %s (%s)", once, why)

    # ------------------------------------------------------------------ invites
    def invite(self, room: Room, seat: int, sender: str, sender_name: str, lang: str, email: str | None,
               account_id: int | None) -> None:
        """Mail seat ``seat``'s link to ``email`` or to the verified address of ``account_id`` (which
        must take invite mail: LookupError if not). Limited per sender and per address (worker thread)."""
        if account_id is not None:
            found = self.store.recipient(account_id)
            if found is None or not found[3]:
                raise LookupError("that player does not take invitations by mail")
            email, lang = found[0], found[1]
        assert email is not None
        target = address_key(email)
        now = time.time()
        if self.store.count("invite", now - 3600, sender=sender) >= INVITES_PER_HOUR:
            raise Limited(f"at most {INVITES_PER_HOUR} invitations an hour: try again later")
        if self.store.count("invite", now - 86400, target=target) >= INVITES_PER_TARGET:
            raise Limited(f"that address had {INVITES_PER_TARGET} invitations today: try again tomorrow")
        rec = room.record
        profile = self._profile(self.store.username(account_id)) if account_id is not None else None
        link = f"{self.base}/game/{rec.id}#{rec.seats[seat]['token']}"
        assert self.outbox is not None
        self.store.log("invite", account_id=account_id, sender=sender, target=target,
                       then=self._queue("invite", lang if lang in LANGS else "en", email, link,
                                        f"invitation (game {rec.id}, seat {seat})", profile, sender=sender_name,
                                        game=_title(rec.game), seat=rec.seats[seat]["name"]))
        self.outbox.wake()

    @staticmethod
    def sender_key(account_id: int | None, address: str) -> str:
        return digest(f"acct:{account_id}" if account_id is not None else f"addr:{address}")


def _title(game: str) -> str:
    from tracklayer.server.catalog import catalog

    return next((g["title"] for g in catalog()["games"] if g["name"] == game), game)
