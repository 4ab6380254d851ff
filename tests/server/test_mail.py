"""E-mail (tracklayer.server.mail) against a real server process and a real SMTP server (aiosmtpd) on
this machine: verification links, "your turn" mail in turn-based games, invitations, a mail server
that is down, and a server without mail.

No test waits a fixed time: a mail is waited for in the SMTP server's mailbox, a decision not to
mail in the server's log (each one is logged), and the absence of a second mail is checked once a
later mail went through the same queue (the queue sends in order).
"""

from __future__ import annotations

import email
import email.policy
import re
import threading
import time
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from aiosmtpd.controller import Controller

from tests import waits
from tests.server.helpers import Client, Server, database_url, free_port
from tracklayer.server.db import make_engine, normalise_url
from tracklayer.server.mail import INVITES_PER_TARGET, VERIFY_PER_TARGET, MailStore, address_key
from tracklayer.server.mail.store import VERIFY_SECONDS
from tracklayer.server.mail.texts import catalog, compose
from tracklayer.server.models import _email

NY = "ttr-new-york"
PASSWORD = "correct horse battery"


# ------------------------------------------------------------------------------------------ the SMTP server
class Mailbox:
    """aiosmtpd's handler: keeps every message it is handed, and lets a test wait for one."""

    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []
        self._cond = threading.Condition()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        msg = email.message_from_bytes(envelope.content, policy=email.policy.default)
        assert isinstance(msg, EmailMessage)
        with self._cond:
            self.messages.append(msg)
            self._cond.notify_all()
        return "250 OK"

    def to(self, address: str) -> list[EmailMessage]:
        with self._cond:
            return [m for m in self.messages if m["To"] == address]

    def wait(self, address: str, count: int = 1, timeout: float = 60) -> EmailMessage:
        """The ``count``-th message to ``address``, once it has arrived."""
        bound = waits.scaled(timeout)
        end = time.monotonic() + bound
        with self._cond:
            while len(self.to(address)) < count:
                left = end - time.monotonic()
                assert left > 0, f"no mail number {count} to {address} within {bound:.0f} s: {self.messages}"
                self._cond.wait(left)
            return self.to(address)[count - 1]


@pytest.fixture(scope="module")
def mailbox() -> Iterator[Mailbox]:
    box = Mailbox()
    controller = Controller(box, hostname="127.0.0.1", port=free_port())
    controller.start()
    try:
        box.port = controller.port  # type: ignore[attr-defined]
        yield box
    finally:
        controller.stop()


def mail_server(tmp: Path, smtp_port: int, **env: str) -> Server:
    srv = Server(database_url(tmp), tmp / "server.log",
                 env={"TRACKLAYER_SMTP_HOST": "127.0.0.1", "TRACKLAYER_SMTP_PORT": str(smtp_port),
                      "TRACKLAYER_SMTP_SECURITY": "none", **env})
    srv.env.setdefault("TRACKLAYER_PUBLIC_URL", srv.base)  # the links in mail open this very server
    return srv.start()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, mailbox: Mailbox) -> Iterator[Server]:
    srv = mail_server(tmp_path_factory.mktemp("mail"), mailbox.port)  # type: ignore[attr-defined]
    try:
        yield srv
    finally:
        srv.stop()


# ------------------------------------------------------------------------------------------ helpers
_count = iter(range(10**6))


def unique(prefix: str) -> str:
    return f"{prefix}{time.time_ns() % 10**7}{next(_count)}"


def account(srv: Server, name: str) -> httpx.Client:
    """A logged-in client (its cookie, and the CSRF header on every request)."""
    c = httpx.Client(base_url=srv.base, timeout=waits.scaled(20))
    r = c.post("/api/register", json={"username": name, "password": PASSWORD})
    assert r.status_code == 201, r.text
    c.headers["X-CSRF-Token"] = r.json()["csrf"]
    return c


def link_of(msg: EmailMessage) -> str:
    text = msg.get_body(("plain",)).get_content()  # type: ignore[union-attr]
    found = re.search(r"(http://\S+#\S+)", text)
    assert found, text
    assert found.group(1) in msg.get_body(("html",)).get_content()  # type: ignore[union-attr]
    return found.group(1)


def verify(c: httpx.Client, token: str) -> httpx.Response:
    return c.post("/api/mail/verify", json={"token": token})


def set_verified_address(srv: Server, mailbox: Mailbox, c: httpx.Client, address: str, **more: Any) -> None:
    r = c.put("/api/me/mail", json={"email": address, **more})
    assert r.status_code == 200 and r.json()["sent"], r.text
    token = link_of(mailbox.wait(address)).split("#", 1)[1]
    assert verify(c, token).status_code == 200


def wait_log(srv: Server, pattern: str, timeout: float = 60) -> None:
    deadline = waits.deadline(timeout)
    while not re.search(pattern, srv.log()):
        assert time.monotonic() < deadline, f"no {pattern!r} in the log: {srv.log()[-2000:]}"
        time.sleep(0.05)


def play_turn(c: Client, seat: int) -> None:
    """Play the seat's whole turn (every move until another seat is to move)."""
    st = c.my_turn()
    while True:
        ack = c.move(st["legal"][0])
        assert ack["type"] == "ack", ack
        n = ack["index"] + 1
        st = c.wait_state(lambda s, n=n: s["moves"] >= n)
        if st["over"] or not st.get("legal"):
            return


def turn_game(srv: Server, creator: httpx.Client, first: int = 1) -> dict[str, Any]:
    """A day-long turn-based game of the creator's account (seat 0) and a guest, Ann (seat 1)."""
    r = creator.post("/api/games", json={"game": NY, "seats": [{"name": "Bob"}, {"name": "Ann"}],
                                         "first_player": first, "clock": {"preset": "day-24h"}})
    assert r.status_code == 201, r.text
    return r.json()


# ------------------------------------------------------------------------------------------ unit
@pytest.mark.parametrize("good", ["ann@example.org", "Ann.Lee+games@mail.example.co.uk", " a@b.cd "])
def test_addresses_that_pass(good: str) -> None:
    assert _email(good) == good.strip()


@pytest.mark.parametrize("bad", ["", "ann", "ann@", "@example.org", "ann@example", "ann@@example.org",
                                 "ann lee@example.org", "ann@exa mple.org", "ann@example..org", "<a@b.cd>",
                                 "ann@-example.org", "a\n@b.cd", "a" * 65 + "@b.cd", 7])
def test_addresses_that_do_not(bad: Any) -> None:
    with pytest.raises(ValueError):
        _email(bad)


def test_every_language_has_every_message() -> None:
    english = catalog("en")
    for lang in ("de", "it", "fr", "nl"):
        own = catalog(lang)
        assert own.keys() == english.keys()
        assert [k for k in english if own[k] == english[k]] == [], lang  # all translated
        for key, text in own.items():  # the same placeholders as English
            assert set(re.findall(r"\{(\w+)\}", text)) == set(re.findall(r"\{(\w+)\}", english[key])), (lang, key)


def test_a_mail_has_plain_text_and_html_and_escapes_names() -> None:
    msg = compose("invite", "de", "tl@example.org", "ann@example.org", "https://x.example/game/g#tok", None,
                  sender="<b>Bob</b>", game="Ticket to Ride: New York", seat="Ann & Co")
    assert msg["Subject"] == "<b>Bob</b> lädt dich zu Ticket to Ride: New York ein"
    text = msg.get_body(("plain",)).get_content()  # type: ignore[union-attr]
    page = msg.get_body(("html",)).get_content()  # type: ignore[union-attr]
    assert "„Ann & Co“" in text and "https://x.example/game/g#tok" in text
    assert "&lt;b&gt;Bob&lt;/b&gt;" in page and "<b>Bob" not in page and "Ann &amp; Co" in page


# ------------------------------------------------------------------------------------------ verification
def test_verification_link_verifies_once(server: Server, mailbox: Mailbox) -> None:
    name = unique("ver")
    c = account(server, name)
    assert c.get("/api/me/mail").json() == {"enabled": True, "email": None, "verified": False, "pending": False,
                                           "turn_mail": True, "invite_mail": True, "lang": "en"}
    r = c.put("/api/me/mail", json={"email": "not an address"})
    assert r.status_code == 400 and r.json()["detail"].startswith("field email: "), r.text
    assert c.put("/api/me/mail", json={"email": "a@b.cd", "colour": "red"}).status_code == 400
    assert c.put("/api/me/mail", json={"lang": "xx"}).json()["detail"].startswith("field lang")
    assert httpx.put(server.base + "/api/me/mail", json={"email": "a@b.cd"}).status_code == 401  # no session
    address = f"{name}@example.org"
    r = c.put("/api/me/mail", json={"email": address, "lang": "fr"})
    assert r.status_code == 200, r.text
    assert r.json() | {"sent": True} == r.json() and r.json()["pending"] and not r.json()["verified"]

    msg = mailbox.wait(address)
    assert msg["Subject"] == "Confirmez votre adresse e-mail pour tracklayer"  # the language asked for
    assert msg["From"] == "tracklayer@127.0.0.1"
    link = link_of(msg)
    assert link.startswith(f"{server.base}/verify-email#")
    token = link.split("#", 1)[1]
    assert httpx.get(link.split("#")[0], timeout=waits.scaled(10)).status_code == 200  # the page it opens
    # a forged token: another signature, another account, another expiry, garbage
    acct, expires, nonce, sig = token.split(".")
    for forged in (f"{acct}.{expires}.{nonce}.{sig[:-2]}AA", f"{int(acct) + 1}.{expires}.{nonce}.{sig}",
                   f"{acct}.{int(expires) + 3600}.{nonce}.{sig}", "x", "1.2.3"):
        r = verify(c, forged)
        assert (r.status_code, r.json()["code"]) == (400, "token-invalid"), (forged, r.text)
    assert not c.get("/api/me/mail").json()["verified"]
    r = httpx.post(server.base + "/api/mail/verify", json={"token": token}, timeout=waits.scaled(10))
    assert r.status_code == 200  # no session needed: the link may be opened on another device
    assert c.get("/api/me/mail").json()["verified"]
    r = verify(c, token)
    assert (r.status_code, r.json()["code"]) == (400, "token-used")

    # an expired link: a token made (with the server's key) 48 hours ago
    engine = make_engine(normalise_url(server.db_url))
    try:
        store = MailStore(engine)
        c.put("/api/me/mail", json={"email": f"new-{address}"})
        mailbox.wait(f"new-{address}")
        old = store.new_token(int(acct), f"new-{address}", now=time.time() - VERIFY_SECONDS - 60)
        r = verify(c, old)
        assert (r.status_code, r.json()["code"]) == (400, "token-expired")
        # the first address's link is void for the new address
        assert verify(c, token).json()["code"] == "token-invalid"
    finally:
        engine.dispose()
    state = c.get("/api/me/mail").json()
    assert state["email"] == f"new-{address}" and not state["verified"]
    # removing the address
    assert c.put("/api/me/mail", json={"email": None}).json()["email"] is None


def test_verification_mail_is_rate_limited(server: Server, mailbox: Mailbox) -> None:
    name = unique("lim")
    c = account(server, name)
    codes = [c.put("/api/me/mail", json={"email": f"{name}{i}@example.org"}).status_code for i in range(6)]
    assert codes == [200] * 5 + [429]
    assert c.put("/api/me/mail", json={"resend": True}).status_code == 429
    # one address gets a few verification mails a day, whichever accounts ask
    target = f"{name}-target@example.org"
    codes = [account(server, unique("lim")).put("/api/me/mail", json={"email": target}).status_code
             for _ in range(VERIFY_PER_TARGET + 1)]
    assert codes == [200] * VERIFY_PER_TARGET + [429]


# ------------------------------------------------------------------------------------------ your turn
def test_turn_mail_once_per_turn_only_when_away_verified_and_wanted(server: Server, mailbox: Mailbox) -> None:
    name = unique("bob")
    bob = account(server, name)
    address = f"{name}@example.org"
    assert bob.put("/api/me/mail", json={"email": address, "lang": "de"}).status_code == 200  # not verified yet
    g = turn_game(server, bob)
    gid, bob_token, ann_token = g["id"], g["seats"][0]["token"], g["seats"][1]["token"]
    ann = server.client(gid, ann_token)
    moves = 0

    def bob_plays() -> None:
        c = server.client(gid, bob_token)
        try:
            play_turn(c, 0)
        finally:
            c.close()

    def ann_plays() -> None:
        nonlocal moves
        play_turn(ann, 1)
        moves = ann.state["moves"]  # type: ignore[index]

    try:
        ann_plays()  # Bob's turn; his address is not verified
        wait_log(server, rf"no turn mail for turn:{gid}:0:{moves} \(no verified address\)")
        assert verify(bob, link_of(mailbox.wait(address)).split("#", 1)[1]).status_code == 200
        bob_plays()
        bob_seat = server.client(gid, bob_token)  # Bob is here
        try:
            bob_seat.wait_state()
            ann_plays()
            wait_log(server, rf"no turn mail for seat 0 of game {gid} \(connected\)")
            play_turn(bob_seat, 0)
        finally:
            bob_seat.close()
        assert bob.put("/api/me/mail", json={"turn_mail": False}).json()["turn_mail"] is False
        ann_plays()
        wait_log(server, rf"no turn mail for turn:{gid}:0:{moves} \(turn mail off\)")
        assert bob.put("/api/me/mail", json={"turn_mail": True}).status_code == 200
        bob_plays()
        ann_plays()  # away, verified, wanted: one mail, in German, with his seat's link
        msg = mailbox.wait(address, 2)  # the verification, then this
        assert msg["Subject"] == "Du bist am Zug in Ticket to Ride: New York", msg["Subject"]
        assert "gegen Ann" in msg.get_body(("plain",)).get_content()  # type: ignore[union-attr]
        link = link_of(msg)
        assert link == f"{server.base}/game/{gid}#{bob_token}"
        # a later mail through the same queue: any second mail for that turn would have come before it
        marker = f"marker-{name}@example.org"
        r = httpx.post(f"{server.base}/api/games/{gid}/invite-mail", json={"seat": 1, "email": marker},
                       headers={"Authorization": f"Bearer {g['creator']['token']}"}, timeout=waits.scaled(10))
        assert r.status_code == 200, r.text
        mailbox.wait(marker)
        assert len(mailbox.to(address)) == 2
        # the link opens Bob's seat; the next turn of his while he is away is mailed again
        bob_plays()
        ann_plays()
        mailbox.wait(address, 3)
    finally:
        ann.close()
    assert address not in server.log() and bob_token not in server.log()  # the log names no address, no link


# ------------------------------------------------------------------------------------------ invitations
def test_invite_mail_to_an_address_and_to_a_player(server: Server, mailbox: Mailbox) -> None:
    name = unique("inv")
    creator = account(server, name)
    g = turn_game(server, creator, first=0)
    gid, creator_token = g["id"], g["creator"]["token"]

    def invite(body: dict[str, Any], token: str = creator_token, seat: int = 1) -> httpx.Response:
        # sent logged in: the mail names the creator's account (a guest's: the name of another seat)
        return creator.post(f"/api/games/{gid}/invite-mail", json={"seat": seat, **body},
                            headers={"Authorization": f"Bearer {token}"})

    address = f"friend-{name}@example.org"
    assert invite({"email": address}, token=g["seats"][0]["token"]).status_code == 403  # a seat's token
    r = invite({"email": "friend@"})
    assert r.status_code == 400 and r.json()["detail"].startswith("field email: "), r.text
    assert invite({}).status_code == 400
    assert invite({"email": address, "username": name}).status_code == 400
    assert invite({"email": address}, seat=7).status_code == 400
    assert invite({"email": address, "lang": "it"}).status_code == 200
    msg = mailbox.wait(address)
    assert msg["Subject"] == f"{name} ti invita a Ticket to Ride: New York"
    assert "«Ann»" in msg.get_body(("plain",)).get_content()  # type: ignore[union-attr]
    link = link_of(msg)
    assert link == f"{server.base}/game/{gid}#{g['seats'][1]['token']}"
    guest = Client(server.ws_base + f"/ws/{gid}", link.split("#", 1)[1])  # the link is the seat
    try:
        st = guest.wait_state()
        assert st["role"] == "seat" and st["controls"] == [1]
    finally:
        guest.close()
    # one address gets a few invitations a day at most
    codes = [invite({"email": address.upper()}).status_code for _ in range(INVITES_PER_TARGET)]
    assert codes == [200] * (INVITES_PER_TARGET - 1) + [429]

    # a registered player: only with a verified address and invite mail on; the address is never shown
    friend_name = unique("fri")
    friend = account(server, friend_name)
    assert invite({"username": friend_name}).status_code == 409  # no address
    friend_address = f"{friend_name}@example.org"
    set_verified_address(server, mailbox, friend, friend_address, lang="nl", invite_mail=False)
    r = invite({"username": friend_name})
    assert r.status_code == 409 and friend_address not in r.text
    friend.put("/api/me/mail", json={"invite_mail": True})
    assert invite({"username": unique("nobody")}).status_code == 404
    r = invite({"username": friend_name.upper(), "lang": "de"})
    assert r.status_code == 200 and friend_address not in r.text
    msg = mailbox.wait(friend_address, 2)
    assert msg["Subject"] == f"{name} nodigt je uit voor Ticket to Ride: New York"  # the player's own language
    assert f"/u/{friend_name}" in msg.get_body(("plain",)).get_content()  # type: ignore[union-attr]


def test_a_friend_invitation_can_go_by_mail_too(server: Server, mailbox: Mailbox) -> None:
    """The friends list says which followers an invitation can reach by mail (never their address); with
    ``mail`` the lobby invitation also goes to them as a seat link, in their language; without consent the
    invitation stands and the answer says why no mail went."""
    name, fan_name, shy_name = unique("host"), unique("fan"), unique("shy")
    creator, fan, shy = account(server, name), account(server, fan_name), account(server, shy_name)
    for c in (fan, shy):
        assert c.post(f"/api/users/{name}/follow").status_code == 200

    def followers() -> dict[str, bool]:
        r = creator.get("/api/friends")
        assert r.status_code == 200, r.text
        assert "@" not in r.text  # no follower's address
        return {f["username"]: f["invite_mail"] for f in r.json()["followers"]}

    assert followers() == {fan_name: False, shy_name: False}  # no verified address yet
    fan_address, shy_address = f"{fan_name}@example.org", f"{shy_name}@example.org"
    set_verified_address(server, mailbox, fan, fan_address, lang="de")
    set_verified_address(server, mailbox, shy, shy_address, invite_mail=False)
    assert followers() == {fan_name: True, shy_name: False}

    g = creator.post("/api/games", json={"game": NY, "seats": [{"name": "Bob"}, {"name": "Ann"}, {"name": "Cy"}],
                                         "clock": {"preset": "day-24h"}}).json()
    auth = {"Authorization": f"Bearer {g['creator']['token']}"}
    r = creator.post(f"/api/games/{g['id']}/invite", json={"seat": 1, "username": fan_name, "mail": True},
                     headers=auth)
    assert r.status_code == 201 and r.json()["mailed"] is True and fan_address not in r.text, r.text
    msg = mailbox.wait(fan_address, 2)  # after the verification mail
    assert msg["Subject"] == f"{name} lädt dich zu Ticket to Ride: New York ein", msg["Subject"]
    assert link_of(msg) == f"{server.base}/game/{g['id']}#{g['seats'][1]['token']}"
    r = creator.post(f"/api/games/{g['id']}/invite", json={"seat": 2, "username": shy_name, "mail": True},
                     headers=auth)
    out = r.json()
    assert r.status_code == 201 and out["mailed"] is False and "invitations by mail" in out["mail_refused"], r.text
    r = creator.post(f"/api/games/{g['id']}/invite", json={"seat": 2, "username": shy_name}, headers=auth)
    assert r.status_code == 201 and r.json()["mailed"] is False and r.json()["mail_refused"] is None
    for c in (fan, shy):  # the lobby invitations stand, mailed or not
        assert [i["from"] for i in c.get("/api/friends").json()["invitations"]] == [name]
    assert len(mailbox.to(shy_address)) == 1  # the verification mail only


# ------------------------------------------------------------------------------------------ failures
def _register_and_play(srv: Server, name: str) -> tuple[httpx.Client, dict[str, Any]]:
    c = account(srv, name)
    g = turn_game(srv, c, first=1)
    ann = srv.client(g["id"], g["seats"][1]["token"])
    try:
        play_turn(ann, 1)
    finally:
        ann.close()
    return c, g


def test_smtp_down_loses_no_game_and_is_logged(tmp_path: Path) -> None:
    srv = mail_server(tmp_path, free_port(), TRACKLAYER_MAIL_RETRY_SECONDS="0.05")  # nobody listens there
    try:
        name = unique("down")
        c = account(srv, name)
        r = c.put("/api/me/mail", json={"email": f"{name}@example.org"})
        assert r.status_code == 200 and r.json()["sent"]  # queued: the request does not wait for the server
        wait_log(srv, r"mail: verification mail \(account \d+\) could not be sent \(ConnectionRefusedError\); "
                      r"gave up after 4 attempts")
        _, g = _register_and_play(srv, unique("dn"))  # games go on
        bob = srv.client(g["id"], g["seats"][0]["token"])
        try:
            play_turn(bob, 0)
        finally:
            bob.close()
        log = srv.log()
        assert "attempt 3 of 4, next in 0.2 s" in log
        assert f"{name}@example.org" not in log and "verify-email#" not in log
    finally:
        srv.stop()


def test_no_smtp_host_means_no_mail(tmp_path: Path, mailbox: Mailbox) -> None:
    srv = Server(database_url(tmp_path), tmp_path / "s.log",
                 env={"TRACKLAYER_SMTP_PORT": str(mailbox.port)}).start()  # type: ignore[attr-defined]
    try:
        name = unique("off")
        c = account(srv, name)
        assert c.get("/api/me/mail").json()["enabled"] is False
        r = c.put("/api/me/mail", json={"email": f"{name}@example.org"})
        assert r.status_code == 409 and "no e-mail" in r.json()["detail"]
        assert c.put("/api/me/mail", json={"turn_mail": False}).status_code == 200  # switches still save
        _, g = _register_and_play(srv, unique("of"))
        r = httpx.post(f"{srv.base}/api/games/{g['id']}/invite-mail", json={"seat": 1, "email": "x@example.org"},
                       headers={"Authorization": f"Bearer {g['creator']['token']}"}, timeout=waits.scaled(10))
        assert r.status_code == 409
        assert mailbox.to(f"{name}@example.org") == [] and mailbox.to("x@example.org") == []
    finally:
        srv.stop()


# ------------------------------------------------------------------------------------------ migration
def test_migration_0011_up_down_up(tmp_path: Path) -> None:
    """On a fresh SQLite file (and on PostgreSQL in a schema of its own when CI has one): up to 0011,
    down to 0010 (the mail tables go, the friends' stay), up again (a new signing key)."""
    import os

    from alembic import command
    from alembic.config import Config

    from tracklayer.server.db import migrate

    urls = [f"sqlite:///{tmp_path / 'm.sqlite3'}"]
    pg = os.environ.get("TRACKLAYER_TEST_DATABASE_URL")
    if pg:  # a schema of this test's own: the database's other schemas stay at their revisions
        base = pg.split("?", 1)[0]
        admin = make_engine(normalise_url(base))
        with admin.begin() as conn:
            conn.exec_driver_sql("DROP SCHEMA IF EXISTS mail_migration CASCADE")
            conn.exec_driver_sql("CREATE SCHEMA mail_migration")
        admin.dispose()
        urls.append(base + "?options=-csearch_path%3Dmail_migration")
    for url in urls:
        engine = make_engine(normalise_url(url))
        try:
            migrate(engine)
            keys = set()
            for _ in range(2):
                assert {"account_mail", "mail_log", "mail_secret"} <= set(sa.inspect(engine).get_table_names())
                keys.add(MailStore(engine).secret())
                cfg = Config()
                cfg.set_main_option("script_location", str(Path(migrate.__code__.co_filename).parent / "migrations"))
                with engine.begin() as conn:
                    cfg.attributes["connection"] = conn
                    command.downgrade(cfg, "0010")
                tables = set(sa.inspect(engine).get_table_names())
                assert "account_mail" not in tables and "follows" in tables
                migrate(engine)
            assert len(keys) == 2 and all(len(k) == 32 for k in keys)
            assert address_key("Ann@Example.org") == address_key(" ann@example.org")
        finally:
            engine.dispose()
