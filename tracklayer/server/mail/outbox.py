"""Sending: a queue that one background task empties through the standard library's SMTP client, in a
worker thread, so that no request and no move ever waits for a mail server.

A send that fails is logged (the kind of mail and the error's type and SMTP code: never the address
or a link, which carries a token) and tried again after ``retry``, ``2 * retry`` and ``4 * retry``
seconds; then it is dropped with an error in the log. A full queue (a mail server down for long)
drops new mail with a warning rather than growing without end. Mail is best effort: nothing a game
does depends on it, and a server that stops drops what is still queued.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import smtplib
import ssl
from dataclasses import dataclass
from email.message import EmailMessage

from tracklayer.server.background import Background
from tracklayer.server.settings import Settings

log = logging.getLogger("tracklayer.server")

ATTEMPTS = 4  # sends of one mail at most: the first and three retries
QUEUE = 1000  # mails waiting at most
TIMEOUT = 20.0  # seconds an SMTP connection may take for each step
SECURITY = ("starttls", "ssl", "none")


@dataclass
class Letter:
    msg: EmailMessage
    what: str  # how the log names it: "turn mail (game abc, account 7)", no address, no token
    attempt: int = 1


class Outbox:
    """The queue of mail to send and the task that sends it (``start`` with the event loop running)."""

    def __init__(self, settings: Settings) -> None:
        if settings.smtp_security not in SECURITY:
            raise ValueError(f"$TRACKLAYER_SMTP_SECURITY must be one of {', '.join(SECURITY)}, "
                             f"got {settings.smtp_security!r}")
        self.settings = settings
        self.retry = settings.mail_retry_seconds
        self.queue: asyncio.Queue[Letter] = asyncio.Queue(QUEUE)
        self._task = Background("tracklayer-mail", self._run)
        self._later: set[asyncio.TimerHandle] = set()
        self.sent = 0

    def start(self) -> None:
        self._task.start()

    def put(self, letter: Letter) -> None:
        try:
            self.queue.put_nowait(letter)
        except asyncio.QueueFull:
            log.warning("mail: the queue is full, %s dropped", letter.what)

    async def _run(self) -> None:
        while True:
            letter = await self.queue.get()
            try:
                await asyncio.to_thread(self._send, letter.msg)
                self.sent += 1
                log.info("mail: %s sent", letter.what)
            except Exception as exc:  # not CancelledError: stopping still ends the task
                self._failed(letter, exc)

    def _failed(self, letter: Letter, exc: Exception) -> None:
        why = type(exc).__name__ + (f" {exc.smtp_code}" if isinstance(exc, smtplib.SMTPResponseException) else "")
        if letter.attempt >= ATTEMPTS:
            log.error("mail: %s could not be sent (%s); gave up after %d attempts", letter.what, why, letter.attempt)
            return
        delay = self.retry * 2 ** (letter.attempt - 1)
        log.warning("mail: %s could not be sent (%s); attempt %d of %d, next in %g s", letter.what, why,
                    letter.attempt, ATTEMPTS, delay)
        letter.attempt += 1

        def again() -> None:
            self._later.discard(handle)
            self.put(letter)

        handle = asyncio.get_running_loop().call_later(delay, again)
        self._later.add(handle)

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
        for handle in self._later:
            handle.cancel()
        self._later.clear()
        with contextlib.suppress(Exception):
            await self._task.close()
