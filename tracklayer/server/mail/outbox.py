"""Sending: mail to send is a row of ``mail_outbox``, written before anything is sent (in the transaction
that decides on the mail, where there is one), and one background task in each process sends the rows through
the standard library's SMTP client, in a worker thread, so that no request and no move ever waits for a
mail server, and a server that stops (or is killed) loses no mail.

* **Claims.** A row belongs to the process that claims it (``claimed_by``, a random id per process) until
  ``claimed_until``. A process claims the mail it queues at once, and renews the claims of its pending
  rows every :data:`LEASE` / 3 seconds; a process that stops releases them (but the one it is sending at
  that moment). Every :data:`POLL` seconds, and at start, a process claims the pending rows that nobody
  claims or whose claim lapsed (a process killed :data:`LEASE` seconds ago or more): what a previous
  process left is sent by the next one. The claim is one ``UPDATE`` of rows that are still unclaimed
  (PostgreSQL: chosen ``FOR UPDATE SKIP LOCKED``, re-checked under the row lock; SQLite has one writer),
  so two processes on one database never claim the same row at once. Claims compare the clocks of
  the processes' hosts: they must agree to well within :data:`LEASE`.
* **The guarantee: at least once.** A row is marked sent only after the SMTP server accepted the mail.
  A process that dies between that acceptance and the mark (or stops while it sends, or cannot renew
  its claims for :data:`LEASE` seconds while it sends) leaves the row pending under a claim that lapses,
  and the next claimant sends the mail a second time. Nothing else sends a mail twice.
* **Failures.** A send that fails is logged (the kind of mail and the error's type and SMTP code: never
  the address or a link, which carries a token) and tried again after ``retry``, ``2 * retry`` and
  ``4 * retry`` seconds (the attempts and the time of the next are in the row, so a restart keeps them);
  then the row is marked failed, with the error, and an error is logged.
* **Bounds.** At most :data:`PENDING` mails wait, all processes together (a mail server down for long):
  past it new mail is dropped with a warning rather than growing without end (two processes queueing at
  the same instant may pass it by one each). Rows sent or failed are deleted :data:`RETENTION` seconds
  later; a sent row keeps no message (it carried links with tokens), a failed one keeps it until then.

Mail is best effort all the same: nothing a game does depends on it.
"""

from __future__ import annotations

import asyncio
import contextlib
import email
import email.policy
import logging
import smtplib
import ssl
import time
import uuid
from collections.abc import Awaitable
from dataclasses import dataclass
from email.message import EmailMessage
from typing import Any

from sqlalchemy import func, insert, or_, select, update
from sqlalchemy.engine import Connection, Engine

from tracklayer.server.background import Background
from tracklayer.server.mail.tables import mail_outbox
from tracklayer.server.settings import Settings

log = logging.getLogger("tracklayer.server")

ATTEMPTS = 4  # sends of one mail at most: the first and three retries
PENDING = 5000  # mails waiting at most, all processes on the database together
TIMEOUT = 20.0  # seconds an SMTP connection may take for each step
LEASE = 120.0  # seconds a claim lasts unless renewed: a killed process's mail waits this long for another
POLL = 10.0  # seconds between looks for mail nobody claims (another process stopped or died)
BATCH = 50  # rows claimed or sent in one pass at most
RETENTION = 7 * 86400.0  # seconds a sent or failed row is kept (the log of what became of a mail)
PRUNE = 3600.0  # seconds between deletions of rows past their retention
SECURITY = ("starttls", "ssl", "none")


@dataclass
class Letter:
    msg: EmailMessage
    what: str  # how the log names it: "turn mail (game abc, account 7)", no address, no token


class Outbox:
    """The rows of mail to send and the tasks that send them (``start`` with the event loop running).
    ``add`` and ``put`` are called from worker threads (they write to the database), ``wake`` from any."""

    def __init__(self, settings: Settings, engine: Engine, lease: float = LEASE, poll: float = POLL) -> None:
        if settings.smtp_security not in SECURITY:
            raise ValueError(f"$TRACKLAYER_SMTP_SECURITY must be one of {', '.join(SECURITY)}, "
                             f"got {settings.smtp_security!r}")
        self.settings = settings
        self.engine = engine
        self.retry = settings.mail_retry_seconds
        self.lease = lease
        self.poll = poll
        self.me = uuid.uuid4().hex  # this process's claims
        self._task = Background("tracklayer-mail", self._run)
        self._renewer = Background.every("tracklayer-mail-lease", lease / 3, self._renew_and_prune,
                                         "mail: renewing the outbox's claims failed")
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None
        self._sending: int | None = None  # the row a worker thread is sending now
        self._pruned = 0.0
        self.sent = 0

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        self._task.start()
        self._renewer.start()

    # ------------------------------------------------------------------ queueing (worker threads)
    def add(self, conn: Connection, letter: Letter) -> bool:
        """Write a mail to send in the caller's transaction (call :meth:`wake` once it is committed);
        False if :data:`PENDING` mails wait already (it is dropped, with a warning)."""
        waiting = conn.execute(select(func.count()).select_from(mail_outbox)
                               .where(mail_outbox.c.state == "pending")).scalar_one()
        if waiting >= PENDING:
            log.warning("mail: %d mails wait already, %s dropped", waiting, letter.what)
            return False
        now = time.time()
        conn.execute(insert(mail_outbox).values(what=letter.what[:200], message=letter.msg.as_bytes(),
                                                state="pending", attempts=0, next_at=now, claimed_by=self.me,
                                                claimed_until=now + self.lease, created_at=now))
        return True

    def put(self, letter: Letter) -> None:
        """Write a mail to send in a transaction of its own, and wake the sender."""
        with self.engine.begin() as conn:
            added = self.add(conn, letter)
        if added:
            self.wake()

    def wake(self) -> None:
        if self._loop is not None and self._wake is not None:
            with contextlib.suppress(RuntimeError):  # the loop is closed: the server is stopping
                self._loop.call_soon_threadsafe(self._wake.set)

    # ------------------------------------------------------------------ claims (worker threads)
    def claim(self, now: float | None = None) -> int:
        """Claim pending rows that no process claims now (at most :data:`BATCH`); how many."""
        now = time.time() if now is None else now
        free = (select(mail_outbox.c.id)
                .where(mail_outbox.c.state == "pending",
                       or_(mail_outbox.c.claimed_by.is_(None), mail_outbox.c.claimed_until < now))
                .order_by(mail_outbox.c.id).limit(BATCH).with_for_update(skip_locked=True))
        with self.engine.begin() as conn:
            ids = list(conn.execute(free).scalars())
            if not ids:
                return 0
            return int(conn.execute(update(mail_outbox).where(
                mail_outbox.c.id.in_(ids), mail_outbox.c.state == "pending",
                or_(mail_outbox.c.claimed_by.is_(None), mail_outbox.c.claimed_until < now))
                .values(claimed_by=self.me, claimed_until=now + self.lease)).rowcount)

    def _due(self) -> tuple[list[Any], float | None]:
        """This process's rows due now (claiming free ones first), and when its next one is due."""
        now = time.time()
        if self.claim(now):
            log.info("mail: took over mail that no running process sends")
        mine = (mail_outbox.c.state == "pending", mail_outbox.c.claimed_by == self.me)
        with self.engine.connect() as conn:
            rows = conn.execute(select(mail_outbox.c.id, mail_outbox.c.what, mail_outbox.c.message,
                                       mail_outbox.c.attempts)
                                .where(*mine, mail_outbox.c.next_at <= now)
                                .order_by(mail_outbox.c.next_at, mail_outbox.c.id).limit(BATCH)).all()
            later = conn.execute(select(func.min(mail_outbox.c.next_at)).where(*mine, mail_outbox.c.next_at > now)
                                 ).scalar()
        return list(rows), later

    async def _renew_and_prune(self) -> None:
        await asyncio.to_thread(self._renew_and_prune_now)

    def _renew_and_prune_now(self) -> None:
        now = time.time()
        with self.engine.begin() as conn:
            conn.execute(update(mail_outbox).where(mail_outbox.c.state == "pending",
                                                   mail_outbox.c.claimed_by == self.me)
                         .values(claimed_until=now + self.lease))
        if now - self._pruned >= PRUNE:
            self._pruned = now
            self.prune(now)

    def prune(self, now: float | None = None) -> int:
        """Delete the rows sent or given up more than :data:`RETENTION` seconds ago; how many."""
        now = time.time() if now is None else now
        with self.engine.begin() as conn:
            return int(conn.execute(mail_outbox.delete().where(mail_outbox.c.state.in_(("sent", "failed")),
                                                               mail_outbox.c.done_at < now - RETENTION)).rowcount)

    def _release(self) -> None:
        """Hand this process's pending rows to whichever process looks next (not the one being sent)."""
        query = update(mail_outbox).where(mail_outbox.c.state == "pending", mail_outbox.c.claimed_by == self.me)
        if self._sending is not None:
            query = query.where(mail_outbox.c.id != self._sending)
        with self.engine.begin() as conn:
            conn.execute(query.values(claimed_by=None, claimed_until=None))

    # ------------------------------------------------------------------ sending (the task)
    async def _run(self) -> None:
        assert self._wake is not None
        while True:
            self._wake.clear()
            try:
                rows, later = await asyncio.to_thread(self._due)
            except Exception:  # a database that is down for a while must not end the task
                log.exception("mail: reading the outbox failed")
                rows, later = [], None
            noted = [await self._attempt(row) for row in rows]
            if rows and all(noted):
                continue  # more may be due (a row whose outcome could not be noted waits for the next look)
            wait = self.poll if later is None else min(self.poll, max(0.0, later - time.time()))
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(wait):  # not wait_for: see tests/server/test_lease_close.py
                    await self._wake.wait()

    async def _attempt(self, row: Any) -> bool:
        """Send a row and note what became of it; False if that could not be noted."""
        msg = email.message_from_bytes(bytes(row.message), policy=email.policy.default)
        assert isinstance(msg, EmailMessage)
        self._sending = row.id  # until what became of it is noted: stopping keeps its claim
        try:
            await asyncio.to_thread(self._send, msg)
        except Exception as exc:  # not CancelledError: stopping still ends the task
            noted = await self._record(asyncio.to_thread(self._failed, row, exc))
        else:
            self.sent += 1
            noted = await self._record(asyncio.to_thread(self._done, row))
        self._sending = None
        return noted

    @staticmethod
    async def _record(step: Awaitable[None]) -> bool:
        try:
            await step
            return True
        except Exception:
            log.exception("mail: noting what became of a mail failed")
            return False

    def _done(self, row: Any) -> None:
        with self.engine.begin() as conn:
            mine = conn.execute(update(mail_outbox).where(mail_outbox.c.id == row.id,
                                                          mail_outbox.c.claimed_by == self.me)
                                .values(state="sent", attempts=row.attempts + 1, message=None, claimed_by=None,
                                        claimed_until=None, error=None, done_at=time.time())).rowcount
        log.info("mail: %s sent", row.what)
        if not mine:
            log.warning("mail: %s was claimed by another process while this one sent it", row.what)

    def _failed(self, row: Any, exc: Exception) -> None:
        why = type(exc).__name__ + (f" {exc.smtp_code}" if isinstance(exc, smtplib.SMTPResponseException) else "")
        attempt = row.attempts + 1
        now = time.time()
        gave_up = attempt >= ATTEMPTS
        delay = self.retry * 2 ** (attempt - 1)
        values: dict[str, Any] = {"attempts": attempt, "error": why[:200]}
        values |= ({"state": "failed", "done_at": now, "claimed_by": None, "claimed_until": None} if gave_up
                   else {"next_at": now + delay})
        with self.engine.begin() as conn:
            conn.execute(update(mail_outbox).where(mail_outbox.c.id == row.id, mail_outbox.c.claimed_by == self.me)
                         .values(**values))
        if gave_up:
            log.error("mail: %s could not be sent (%s); gave up after %d attempts", row.what, why, attempt)
        else:
            log.warning("mail: %s could not be sent (%s); attempt %d of %d, next in %g s", row.what, why,
                        attempt, ATTEMPTS, delay)

    def _send(self, msg: EmailMessage) -> None:
        """One mail over one SMTP connection (smtplib: TLS, login and the protocol are the library's)."""
        s = self.settings
        assert s.smtp_host is not None
        context = ssl.create_default_context()
        smtp: smtplib.SMTP
        if s.smtp_security == "ssl":
            smtp = smtplib.SMTP_SSL(s.smtp_host, s.smtp_port, timeout=TIMEOUT, context=context)
        else:
            smtp = smtplib.SMTP(s.smtp_host, s.smtp_port, timeout=TIMEOUT)
        with smtp:
            if s.smtp_security == "starttls":
                smtp.starttls(context=context)
            if s.smtp_user:
                smtp.login(s.smtp_user, s.smtp_password or "")
            smtp.send_message(msg)

    async def close(self) -> None:
        """Stop sending and release this process's pending rows, so the next process sends them at once."""
        with contextlib.suppress(Exception):
            await self._task.close()
        with contextlib.suppress(Exception):
            await self._renewer.close()
        try:
            await asyncio.to_thread(self._release)
        except Exception:
            log.exception("mail: releasing the outbox's claims failed (they lapse in %g s)", self.lease)
