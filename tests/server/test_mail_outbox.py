"""The durable outbox (tracklayer.server.mail.outbox, migration 0014): mail waits in the database, so a
server that stops loses none; retries keep their count across a restart; two processes on one database
never claim the same mail; the migration applies on a database at 0013.

Each test has a database of its own (a SQLite file; on PostgreSQL, when CI sets
TRACKLAYER_TEST_DATABASE_URL, a schema of its own): on a shared database another test's server, with
another SMTP server, would take over mail that a stopped server left. Real server processes and a real
SMTP server (aiosmtpd) where the test is about them; the claims are tested on two outboxes in one process.
No test waits a fixed time: a mail is waited for in the SMTP server's mailbox, a failure in the log.
"""

from __future__ import annotations

import asyncio
import os
import time
from concurrent.futures import ThreadPoolExecutor
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from aiosmtpd.controller import Controller

from tests import waits
from tests.server.helpers import PG_ENV, Server, free_port
from tests.server.test_mail import Mailbox, account, unique, wait_log
from tracklayer.server.db import make_engine, migrate, normalise_url
from tracklayer.server.mail import outbox as outbox_module
from tracklayer.server.mail.outbox import Letter, Outbox
from tracklayer.server.mail.tables import mail_outbox
from tracklayer.server.settings import Settings


def own_database(tmp: Path, schema: str) -> str:
    """A fresh SQLite file, or on PostgreSQL a fresh schema of this test's own."""
    pg = os.environ.get(PG_ENV)
    if not pg:
        return f"sqlite:///{tmp / 'outbox.sqlite3'}"
    base = pg.split("?", 1)[0]
    admin = make_engine(normalise_url(base))
    try:
        with admin.begin() as conn:
            conn.exec_driver_sql(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
            conn.exec_driver_sql(f"CREATE SCHEMA {schema}")
    finally:
        admin.dispose()
    return base + f"?options=-csearch_path%3D{schema}"


def start_server(db_url: str, log: Path, smtp_port: int, **env: str) -> Server:
    srv = Server(db_url, log, env={"TRACKLAYER_SMTP_HOST": "127.0.0.1", "TRACKLAYER_SMTP_PORT": str(smtp_port),
                                   "TRACKLAYER_SMTP_SECURITY": "none", **env})
    srv.env.setdefault("TRACKLAYER_PUBLIC_URL", srv.base)
    return srv.start()


def rows(db_url: str) -> list[Any]:
    engine = make_engine(normalise_url(db_url))
    try:
        with engine.connect() as conn:
            return list(conn.execute(sa.select(mail_outbox).order_by(mail_outbox.c.id)).all())
    finally:
        engine.dispose()


def smtp_server(box: Any, port: int | None = None) -> Controller:
    controller = Controller(box, hostname="127.0.0.1", port=port or free_port())
    controller.start()
    return controller


# ------------------------------------------------------------------------------------------ a restart
def test_mail_queued_while_smtp_is_down_arrives_once_after_a_restart(tmp_path: Path) -> None:
    db = own_database(tmp_path, "mail_outbox_restart")
    smtp_port = free_port()  # nobody listens there yet
    name = unique("rst")
    address = f"{name}@example.org"
    srv = start_server(db, tmp_path / "first.log", smtp_port, TRACKLAYER_MAIL_RETRY_SECONDS="3600")
    try:
        c = account(srv, name)
        assert c.put("/api/me/mail", json={"email": address}).json()["sent"]
        wait_log(srv, r"verification mail \(account \d+\) could not be sent \(ConnectionRefusedError\); "
                      r"attempt 1 of 4, next in 3600 s")
    finally:
        srv.stop()
    [row] = rows(db)
    assert (row.state, row.attempts, row.claimed_by) == ("pending", 1, None)  # a stopped server lets it go
    # the hour to the next attempt passes while no server runs
    engine = make_engine(normalise_url(db))
    try:
        with engine.begin() as conn:
            conn.execute(sa.update(mail_outbox).values(next_at=time.time() - 1))
    finally:
        engine.dispose()

    box = Mailbox()
    controller = smtp_server(box, smtp_port)
    srv = start_server(db, tmp_path / "second.log", smtp_port, TRACKLAYER_MAIL_RETRY_SECONDS="3600")
    try:
        msg = box.wait(address)
        assert msg["Subject"] == "Confirm your e-mail address for tracklayer"
        # a later mail of the same sender: a second copy of the first would have gone before it
        marker = unique("mrk")
        assert account(srv, marker).put("/api/me/mail", json={"email": f"{marker}@example.org"}).json()["sent"]
        box.wait(f"{marker}@example.org")
        wait_log(srv, r"(verification mail \(account \d+\) sent[\s\S]*){2}")  # both rows marked
        assert len(box.to(address)) == 1
        assert [(r.state, r.attempts, r.message) for r in rows(db)] == [("sent", 2, None), ("sent", 1, None)]
    finally:
        srv.stop()
        controller.stop()


# ------------------------------------------------------------------------------------------ a retry
class Refusing(Mailbox):
    """An SMTP server that refuses the first message (451, try again later) and takes the others."""

    def __init__(self) -> None:
        super().__init__()
        self.refused = 0

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        if not self.refused:
            self.refused += 1
            return "451 4.3.0 try again later"
        return await super().handle_DATA(server, session, envelope)


def test_a_failed_send_is_retried_and_the_row_marked_sent(tmp_path: Path) -> None:
    db = own_database(tmp_path, "mail_outbox_retry")
    box = Refusing()
    controller = smtp_server(box)
    srv = start_server(db, tmp_path / "s.log", controller.port, TRACKLAYER_MAIL_RETRY_SECONDS="0.05")
    try:
        name = unique("rty")
        c = account(srv, name)
        assert c.put("/api/me/mail", json={"email": f"{name}@example.org"}).json()["sent"]
        box.wait(f"{name}@example.org")
        wait_log(srv, r"verification mail \(account \d+\) sent")
        assert box.refused == 1
        assert "could not be sent (SMTPDataError 451); attempt 1 of 4, next in 0.05 s" in srv.log()
        [row] = rows(db)
        assert (row.state, row.attempts, row.message, row.claimed_by) == ("sent", 2, None, None)
        assert row.done_at is not None and row.what.startswith("verification mail (account ")
    finally:
        srv.stop()
        controller.stop()


# ------------------------------------------------------------------------------------------ claims
def letter(n: int) -> Letter:
    msg = EmailMessage()
    msg["Subject"], msg["From"], msg["To"] = f"mail {n}", "tl@example.org", f"p{n}@example.org"
    msg.set_content(f"mail {n}")
    return Letter(msg, f"test mail {n}")


@pytest.fixture
def engine(tmp_path: Path, request: pytest.FixtureRequest) -> Any:
    schema = "mail_outbox_" + request.node.name.removeprefix("test_")[:40]
    eng = make_engine(normalise_url(own_database(tmp_path, schema)))
    migrate(eng)
    try:
        yield eng
    finally:
        eng.dispose()


def settings(smtp_port: int, retry: float = 30.0) -> Settings:
    return Settings(smtp_host="127.0.0.1", smtp_port=smtp_port, smtp_security="none", mail_retry_seconds=retry)


def test_two_processes_never_claim_the_same_mail(engine: Any) -> None:
    first, second, third = (Outbox(settings(free_port()), engine) for _ in range(3))
    for n in range(60):
        first.put(letter(n))  # claimed by the process that queues it
    assert second.claim() == 0
    with engine.begin() as conn:  # the first process stops: its mail is anybody's
        conn.execute(sa.update(mail_outbox).values(claimed_by=None, claimed_until=None))
    with ThreadPoolExecutor(2) as pool:  # two processes look for it at once, again and again
        futures = [(pool.submit(second.claim), pool.submit(third.claim)) for _ in range(4)]
        claimed = [sum(f[i].result() for f in futures) for i in (0, 1)]
    with engine.connect() as conn:
        owners = list(conn.execute(sa.select(mail_outbox.c.claimed_by)).scalars())
    assert claimed == [owners.count(second.me), owners.count(third.me)] and sum(claimed) == 60


def wait_sent(engine: Any) -> None:
    deadline = waits.deadline(60)
    while True:
        with engine.connect() as conn:
            if conn.execute(sa.select(mail_outbox.c.state)).scalar_one() == "sent":
                return
        assert time.monotonic() < deadline, "the mail was not marked sent"
        time.sleep(0.05)


def test_mail_of_a_killed_process_is_sent_by_another_after_its_lease(engine: Any) -> None:
    box = Mailbox()
    controller = smtp_server(box)
    try:
        dead = Outbox(settings(controller.port), engine, lease=0.0)  # never renews: its claim lapses at once
        dead.put(letter(1))

        async def other_process() -> None:
            live = Outbox(settings(controller.port), engine, poll=0.05)
            live.start()
            try:
                await asyncio.to_thread(box.wait, "p1@example.org")
                await asyncio.to_thread(wait_sent, engine)
            finally:
                await live.close()

        asyncio.run(other_process())
        with engine.connect() as conn:
            [row] = conn.execute(sa.select(mail_outbox)).all()
        assert (row.state, row.attempts, row.claimed_by) == ("sent", 1, None)
    finally:
        controller.stop()


def test_the_bound_and_the_retention(engine: Any, monkeypatch: pytest.MonkeyPatch,
                                     caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(outbox_module, "PENDING", 2)
    box = Outbox(settings(free_port()), engine)
    for n in range(3):
        box.put(letter(n))
    assert "mail: 2 mails wait already, test mail 2 dropped" in caplog.text
    now = time.time()
    with engine.begin() as conn:
        conn.execute(sa.update(mail_outbox).where(mail_outbox.c.what == "test mail 0")
                     .values(state="sent", done_at=now - outbox_module.RETENTION - 1))
        conn.execute(sa.update(mail_outbox).where(mail_outbox.c.what == "test mail 1")
                     .values(state="failed", done_at=now - outbox_module.RETENTION + 60))
    assert box.prune(now) == 1
    with engine.connect() as conn:
        assert list(conn.execute(sa.select(mail_outbox.c.what)).scalars()) == ["test mail 1"]


# ------------------------------------------------------------------------------------------ migration
def test_migration_0014_on_a_database_at_0013(tmp_path: Path) -> None:
    """A database at 0013 with an account and its mail log: 0014 adds the outbox and keeps them; down to
    0013 and up again."""
    from alembic import command
    from alembic.config import Config

    url = own_database(tmp_path, "mail_outbox_migration")
    eng = make_engine(normalise_url(url))
    cfg = Config()
    cfg.set_main_option("script_location", str(Path(migrate.__code__.co_filename).parent / "migrations"))

    def to(revision: str, up: bool = True) -> None:
        with eng.begin() as conn:
            cfg.attributes["connection"] = conn
            (command.upgrade if up else command.downgrade)(cfg, revision)

    try:
        to("0013")
        with eng.begin() as conn:
            conn.exec_driver_sql("INSERT INTO accounts (username, username_key, username_skeleton, password_hash, "
                                 "created_at) VALUES ('ann', 'ann', 'ann', 'x', 1.0)")
            conn.exec_driver_sql("INSERT INTO mail_log (kind, account_id, once, sent_at) VALUES ('turn', 1, 'k', 2.0)")
        assert "mail_outbox" not in sa.inspect(eng).get_table_names()
        migrate(eng)
        assert {c["name"] for c in sa.inspect(eng).get_columns("mail_outbox")} == set(mail_outbox.c.keys())
        box = Outbox(settings(free_port()), eng)
        box.put(letter(1))
        with eng.connect() as conn:
            assert conn.exec_driver_sql("SELECT username FROM accounts").scalar_one() == "ann"
            assert conn.exec_driver_sql("SELECT once FROM mail_log").scalar_one() == "k"
            assert conn.execute(sa.select(mail_outbox.c.state)).scalar_one() == "pending"
        to("0013", up=False)
        assert "mail_outbox" not in sa.inspect(eng).get_table_names()
        migrate(eng)
        assert "mail_outbox" in sa.inspect(eng).get_table_names()
    finally:
        eng.dispose()
