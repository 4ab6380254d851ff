"""Accounts, sessions, CSRF, rated games, the leaderboard and profiles (tracklayer.server.accounts).

In-process (FastAPI's TestClient) so a test can age a session or read the stored hash; on PostgreSQL
when CI sets TRACKLAYER_TEST_DATABASE_URL, every name is unique per test (the database is shared).
"""

from __future__ import annotations

import json
import random
import secrets
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from argon2 import PasswordHasher
from fastapi.testclient import TestClient

from tests import waits
from tests.server.helpers import database_url
from tracklayer.server.accounts import (
    COOKIE,
    AccountStore,
    _sid_hash,
    accounts,
    rated_games,
    ratings,
    sessions,
    username_skeleton,
)
from tracklayer.server.app import Settings, create_app
from tracklayer.server.db import make_engine, migrate

PASSWORD = "correct horse battery"


def settings(url: str) -> Settings:
    return Settings(database_url=url, bot_delay=0.0, tune_gc=False, games_per_minute=0, bot_games=0,
                    bot_workers=1)


@pytest.fixture
def url(tmp_path: Path) -> str:
    return database_url(tmp_path)


def address() -> str:
    """A client address of its own for each test client: the login limits are counted in the database,
    which the tests share on PostgreSQL (and with earlier runs within the limits' window)."""
    return f"testclient-{secrets.token_hex(6)}"  # a label in the ASGI scope: no traffic goes anywhere


@pytest.fixture
def client(url: str) -> Iterator[TestClient]:
    with TestClient(create_app(settings(url)), client=(address(), 50000)) as c:
        yield c


@pytest.fixture
def engine(url: str) -> Iterator[sa.Engine]:
    e = make_engine(url)
    migrate(e)
    yield e
    e.dispose()


def name(prefix: str = "ann") -> str:
    return f"{prefix}_{secrets.token_hex(4)}"


def register(c: TestClient, username: str, password: str = PASSWORD) -> dict[str, Any]:
    r = c.post("/api/register", json={"username": username, "password": password})
    assert r.status_code == 201, r.text
    return r.json()


def test_register_login_logout(client: TestClient, engine: sa.Engine) -> None:
    user = name()
    out = register(client, user)
    assert out["username"] == user and len(out["csrf"]) >= 32
    cookie = client.cookies[COOKIE]
    header = client.post("/api/login", json={"username": user, "password": PASSWORD}).headers["set-cookie"]
    assert "HttpOnly" in header and "samesite=lax" in header.lower() and "Secure" not in header  # http here
    me = client.get("/api/me").json()
    assert me["account"] == {"username": user} and me["csrf"]
    # logout needs the CSRF token; it deletes the session row, and the cookie opens nothing after
    assert client.post("/api/logout", json={}).status_code == 403
    sid = client.cookies[COOKIE]
    assert client.post("/api/logout", headers={"X-CSRF-Token": me["csrf"]}).status_code == 200
    with engine.connect() as conn:
        assert conn.execute(sa.select(sessions).where(sessions.c.id_hash == _sid_hash(sid))).first() is None
    client.cookies.set(COOKIE, sid)
    assert client.get("/api/me").json() == {"account": None}
    client.cookies.set(COOKIE, cookie)  # the first session (from register) is still a session of its own
    assert client.get("/api/me").json()["account"] == {"username": user}


def test_wrong_password_and_unknown_user(client: TestClient) -> None:
    user = name()
    register(client, user)
    client.cookies.clear()
    for body in ({"username": user, "password": "wrong password"}, {"username": name("nobody"), "password": PASSWORD}):
        r = client.post("/api/login", json=body)
        assert r.status_code == 401 and r.json()["detail"] == "wrong username or password"
        assert COOKIE not in client.cookies
    assert client.post("/api/login", json={"username": user.upper(), "password": PASSWORD}).status_code == 200


def test_duplicate_username_ignores_case(client: TestClient) -> None:
    user = name("Bob")
    register(client, user)
    for other in (user.lower(), user.upper()):
        r = client.post("/api/register", json={"username": other, "password": PASSWORD})
        assert r.status_code == 409 and "taken" in r.json()["detail"]


def test_lookalike_usernames_are_refused(client: TestClient) -> None:
    tail = secrets.token_hex(4)
    user = f"Victim_{tail}"
    register(client, user)
    # dotless i, fullwidth V, Cyrillic i, "rn" for "m", and the same name in other case
    for other in (f"Vıctım_{tail}", f"Ｖictim_{tail}", f"Vіctim_{tail}", f"Victirn_{tail}"):
        r = client.post("/api/register", json={"username": other, "password": PASSWORD})
        assert r.status_code == 409, (other, r.text)
        assert r.json()["code"] == "username-lookalike" and user in r.json()["detail"], r.text
    r = client.post("/api/register", json={"username": user.upper(), "password": PASSWORD})
    assert r.status_code == 409 and r.json()["code"] == "username-taken"
    assert client.get(f"/api/users/{user}").json()["username"] == user  # shown as typed
    register(client, f"Victor_{tail}")  # a name that merely shares letters is no look-alike


def test_skeletons_are_uts39_after_nfkc_and_case_folding() -> None:
    assert username_skeleton("Vıctım") == username_skeleton("Ｖictim") == username_skeleton("victim")
    assert username_skeleton("Straße") == username_skeleton("STRASSE")
    assert username_skeleton("Victim") != username_skeleton("Victor")


def test_racing_lookalike_registrations_make_one_account(engine: sa.Engine) -> None:
    tail = secrets.token_hex(4)
    names = [f"{v}_{tail}" for v in ("Victim", "Vıctım", "Ｖictim", "Vіctim", "victim", "VICTIM")]
    store = AccountStore(engine)
    barrier = threading.Barrier(len(names))

    def create(username: str) -> int | None:
        barrier.wait()
        return store.create_account(username, "$argon2id$not-used")

    with ThreadPoolExecutor(len(names)) as pool:
        made = [i for i in pool.map(create, names) if i is not None]
    assert len(made) == 1


def _old_database(tmp_path: Path) -> tuple[str, sa.Engine, Any]:
    """A fresh SQLite file and the Alembic config that upgrades it one revision at a time."""
    from alembic.config import Config

    db = f"sqlite:///{tmp_path / 'old.sqlite3'}"
    cfg = Config()
    cfg.set_main_option("script_location", str(Path(migrate.__code__.co_filename).parent / "migrations"))
    return db, make_engine(db), cfg


def test_upgrade_to_0007_keeps_lookalike_accounts(tmp_path: Path) -> None:
    """Accounts stored before skeletons existed may look alike: the upgrade keeps them all (the oldest
    holds the skeleton) instead of failing, and no new name may look like any of them."""
    from alembic import command

    db, e, cfg = _old_database(tmp_path)
    with e.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0006")
        for n in ("Victim", "Vıctım", "Ｖictim", "Other"):
            conn.execute(sa.text("INSERT INTO accounts (username, username_key, password_hash, created_at) "
                                 "VALUES (:u, :k, 'h', 1)"), {"u": n, "k": n.casefold()})
    with e.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")
    with e.connect() as conn:
        rows = dict(conn.execute(sa.select(accounts.c.username, accounts.c.username_skeleton)).all())
    e.dispose()
    assert rows == {"Victim": username_skeleton("Victim"), "Vıctım": None, "Ｖictim": None,
                    "Other": username_skeleton("Other")}
    with TestClient(create_app(settings(db)), client=(address(), 50000)) as c:
        r = c.post("/api/register", json={"username": "vıctim", "password": PASSWORD})
        assert r.status_code == 409 and r.json()["code"] == "username-lookalike"
        register(c, "Otter")


@pytest.mark.parametrize("body", [
    {"username": "ab", "password": PASSWORD},
    {"username": "x" * 25, "password": PASSWORD},
    {"username": "ann smith", "password": PASSWORD},
    {"username": "ann/../x", "password": PASSWORD},
    {"username": "ann\u202e", "password": PASSWORD},
    {"username": 7, "password": PASSWORD},
    {"username": "annabel", "password": "short"},
    {"username": "annabel", "password": "x" * 257},
    {"username": "annabel"},
    [1, 2],
])
def test_bad_registrations_get_400(client: TestClient, body: Any) -> None:
    r = client.post("/api/register", json=body)
    assert r.status_code == 400, r.text
    assert isinstance(r.json()["detail"], str)


def test_password_stored_as_argon2_hash_and_rehashed_on_login(client: TestClient, engine: sa.Engine) -> None:
    user = name()
    register(client, user)
    with engine.connect() as conn:
        stored = conn.execute(sa.select(accounts.c.password_hash).where(accounts.c.username == user)).scalar_one()
    assert stored.startswith("$argon2id$") and PASSWORD not in stored
    assert PasswordHasher().verify(stored, PASSWORD)
    weak = PasswordHasher(time_cost=1, memory_cost=8192, parallelism=1).hash(PASSWORD)  # older parameters
    with engine.begin() as conn:
        conn.execute(sa.update(accounts).where(accounts.c.username == user).values(password_hash=weak))
    assert client.post("/api/login", json={"username": user, "password": PASSWORD}).status_code == 200
    with engine.connect() as conn:
        now = conn.execute(sa.select(accounts.c.password_hash).where(accounts.c.username == user)).scalar_one()
    assert now != weak and not PasswordHasher().check_needs_rehash(now)


def test_session_expires(client: TestClient, engine: sa.Engine) -> None:
    register(client, name())
    sid = client.cookies[COOKIE]
    assert client.get("/api/me").json()["account"] is not None
    with engine.begin() as conn:
        conn.execute(sa.update(sessions).where(sessions.c.id_hash == _sid_hash(sid))
                     .values(expires_at=time.time() - 1))
    assert client.get("/api/me").json() == {"account": None}


def test_csrf_on_cookie_authenticated_posts(client: TestClient) -> None:
    register(client, name())
    csrf = client.get("/api/me").json()["csrf"]
    game = {"game": "ttr-new-york", "seats": [{"kind": "human", "name": "Me"}, {"kind": "bot", "bot": "random"}]}
    r = client.post("/api/games", json=game)
    assert r.status_code == 403 and "X-CSRF-Token" in r.json()["detail"]
    assert client.post("/api/games", json=game, headers={"X-CSRF-Token": "forged"}).status_code == 403
    assert client.post("/api/games", json=game, headers={"X-CSRF-Token": csrf}).status_code == 201
    client.cookies.clear()  # a guest has no cookie and needs no token: play by link as before
    assert client.post("/api/games", json=game).status_code == 201
    # login and register refuse another site's Origin (login CSRF)
    r = client.post("/api/login", json={"username": "whoever", "password": PASSWORD},
                    headers={"Origin": "https://evil.example"})
    assert r.status_code == 403


def test_login_rate_limited_per_username(client: TestClient) -> None:
    user = name()
    register(client, user)
    codes = [client.post("/api/login", json={"username": user, "password": "wrong password"}).status_code
             for _ in range(9)]
    assert codes[:8] == [401] * 8 and codes[8] == 429
    r = client.post("/api/login", json={"username": user, "password": PASSWORD})
    assert r.status_code == 429 and int(r.headers["Retry-After"]) > 0  # even the right password waits


def play_out(client: TestClient, game_id: str, token: str) -> dict[str, Any]:
    """Play a seat through the websocket until the game ends: a claim when there is one, else any legal move
    (the first legal move alone can draw cards for ever)."""
    rng = random.Random(7)
    with client.websocket_connect(f"/ws/{game_id}") as ws:
        ws.send_text(json.dumps({"type": "hello", "token": token}))
        deadline = waits.deadline(240)
        while time.monotonic() < deadline:
            msg = ws.receive_json()
            if msg.get("type") == "error" and msg.get("code") == "rate":
                # this client outran the connection's message budget (10 a second): the move was refused and
                # no state follows, so wait for the budget to refill and ask for the position again
                time.sleep(1)
                ws.send_text(json.dumps({"type": "sync"}))
                continue
            if msg.get("type") != "state":
                continue
            if msg["over"]:
                return msg
            if msg.get("legal"):
                claims = [m for m in msg["legal"] if m.startswith("claim")]
                move = rng.choice(claims or msg["legal"])
                ws.send_text(json.dumps({"type": "move", "move": move, "expect": msg["moves"]}))
    raise AssertionError("the game did not end")


def wait_rated(engine: sa.Engine, game_id: str) -> None:
    deadline = waits.deadline(30)
    while time.monotonic() < deadline:
        with engine.connect() as conn:
            if conn.execute(sa.select(rated_games).where(rated_games.c.game_id == game_id)).first():
                return
        time.sleep(0.1)
    raise AssertionError("the game was not rated")


def test_finished_game_is_rated_once_and_shown(client: TestClient, engine: sa.Engine) -> None:
    user = name("Cleo")
    register(client, user)
    csrf = client.get("/api/me").json()["csrf"]
    created = client.post("/api/games", headers={"X-CSRF-Token": csrf}, json={
        "game": "ttr-new-york", "seats": [{"kind": "human", "name": "Cleo"}, {"kind": "bot", "bot": "random"}]}).json()
    game_id = created["id"]
    final = play_out(client, game_id, created["seats"][0]["token"])
    wait_rated(engine, game_id)
    ranks = {p["name"]: p["rank"] for p in final["view"]["result"]["players"]}

    board = client.get("/api/leaderboard", params={"game": "ttr-new-york"}).json()
    assert board["family"] == "ttr"
    rows = {(p["kind"], p["name"]): p for p in board["players"]}
    me, bot = rows[("human", user)], rows[("bot", "random")]
    assert me["games"] == 1
    assert set(me) >= {"rank", "name", "kind", "rating", "mu", "sigma", "games"}
    assert me["rating"] == pytest.approx(me["mu"] - 3 * me["sigma"])
    assert [p["rank"] for p in board["players"]] == list(range(1, len(board["players"]) + 1))
    assert [p["rating"] for p in board["players"]] == sorted((p["rating"] for p in board["players"]), reverse=True)
    if ranks["Cleo"] < ranks[final["seats"][1]["name"]]:
        assert me["mu"] > 25 > bot["mu"] or bot["games"] > 1
    # exactly once: a second try (another process, a repeated hook) changes nothing
    store = AccountStore(engine)
    seats = [{"kind": "human", "name": "Cleo"}, {"kind": "bot", "bot": "random"}]
    assert store.finish_game(game_id, "ttr-new-york", seats, [ranks["Cleo"], 3 - ranks["Cleo"]]) is False
    again = {(p["kind"], p["name"]): p for p in client.get("/api/leaderboard?game=ttr").json()["players"]}
    assert again[("human", user)] == me

    profile = client.get(f"/api/users/{user.upper()}").json()
    assert profile["username"] == user
    assert profile["ratings"]["ttr"]["games"] == 1
    (played,) = profile["games"]
    assert played["id"] == game_id and played["rank"] == ranks["Cleo"] and played["rated"] and played["players"] == 2
    assert profile["history"][0]["rating"] == pytest.approx(me["rating"])
    page = client.get(f"/u/{user}")
    assert page.status_code == 200 and "profile.js" in page.text
    # the seat in the game record carries the account
    with engine.connect() as conn:
        seats_json = conn.execute(sa.text("SELECT seats FROM games WHERE id = :i"), {"i": game_id}).scalar_one()
    assert json.loads(seats_json)[0]["account"] and "account" not in json.loads(seats_json)[1]


def test_joining_by_link_links_the_account(client: TestClient, url: str) -> None:
    created = client.post("/api/games", json={  # made by a guest
        "game": "ttr-new-york", "seats": [{"kind": "human", "name": "A"}, {"kind": "human", "name": "B"}]}).json()
    user = name("dan")
    register(client, user)
    with client.websocket_connect(f"/ws/{created['id']}") as ws:
        ws.send_text(json.dumps({"type": "hello", "token": created["seats"][1]["token"]}))
        assert ws.receive_json()["type"] == "state"
    (game,) = client.get(f"/api/users/{user}").json()["games"]
    assert game["id"] == created["id"] and game["seat"] == 1 and game["rank"] is None


def test_guest_games_are_unrated_and_bots_rate_each_other(engine: sa.Engine) -> None:
    store = AccountStore(engine)
    guest = [{"kind": "human", "name": "G"}, {"kind": "bot", "bot": "greedy"}]
    assert store.finish_game(name("g"), "ttr-europe", guest, [1, 2]) is False  # one rated seat only
    twins = [{"kind": "bot", "bot": "greedy"}, {"kind": "bot", "bot": "greedy"}]
    assert store.finish_game(name("g"), "ttr-europe", twins, [1, 2]) is False  # a bot against itself
    user = name("eve")
    acct = store.create_account(user, "$argon2id$not-used")
    gid = name("g")
    with store.engine.begin() as conn:
        conn.execute(sa.text("INSERT INTO games (id, game, setup, seats, spectator_token, status, created_at, "
                             "updated_at) VALUES (:i, 'ttr-europe', '{}', '[]', :i, 'over', 1, 1)"), {"i": gid})
    assert store.link_seat(acct, gid, 2)
    twins_and_me = [{"kind": "bot", "bot": "greedy"}, {"kind": "bot", "bot": "greedy"}, {"kind": "human"}]
    assert store.finish_game(gid, "ttr-europe", twins_and_me, [2, 3, 1]) is True  # a lobby game: one person, 2 bots
    with engine.connect() as conn:
        mine = conn.execute(sa.select(ratings).where(ratings.c.identity == f"acct:{acct}")).one()
    assert mine.games == 1 and mine.mu > 25
    fam_bot = f"bot_{secrets.token_hex(3)}"
    bots = [{"kind": "bot", "bot": fam_bot}, {"kind": "bot", "bot": "planner"},
            {"kind": "human", "name": "G"}]
    gid = name("g")
    assert store.finish_game(gid, "trans-europa", bots, [2, 1, 3]) is True
    assert store.finish_game(gid, "trans-europa", bots, [2, 1, 3]) is False
    with engine.connect() as conn:
        row = conn.execute(sa.select(ratings).where(ratings.c.identity == f"bot:{fam_bot}")).one()
    assert row.family == "trans" and row.games == 1 and row.mu < 25


@pytest.mark.parametrize("query", ["", "?game=", "?game=chess", "?game=ttr-europe%00"])
def test_leaderboard_refuses_unknown_games(client: TestClient, query: str) -> None:
    r = client.get("/api/leaderboard" + query)
    assert r.status_code == 400 and "ttr" in r.json()["detail"]


def test_pages(client: TestClient) -> None:
    assert client.get("/leaderboard").status_code == 200
    assert client.get("/u/nobody_here_" + secrets.token_hex(3)).status_code == 404
    assert client.get("/api/users/nobody_here").status_code == 404
    assert client.get("/api/me").json() == {"account": None}


def test_ladder_seed_command(url: str) -> None:
    from typer.testing import CliRunner

    from tracklayer.cli import app

    args = ["ladder", "seed", "--games", "3", "--bots", "random,greedy", "--seed", str(secrets.randbits(30)),
            "--database-url", url]
    first = CliRunner().invoke(app, args)
    assert first.exit_code == 0, first.output
    assert "3 games rated" in first.output
    second = CliRunner().invoke(app, args)
    assert "0 games rated" in second.output  # the same seeding rates nothing twice
    bad = CliRunner().invoke(app, ["ladder", "seed", "--bots", "random,nosuchbot", "--database-url", url])
    assert bad.exit_code == 2


def test_upgrade_from_the_0001_schema_keeps_games(tmp_path: Path) -> None:
    from alembic import command

    from tracklayer.server.db import Store

    db, e, cfg = _old_database(tmp_path)
    with e.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0001")
        conn.execute(sa.text("INSERT INTO games VALUES ('old1', 'ttr-new-york', 'standard', :setup, :seats, 'spec', "
                             "NULL, 'open', 1, 1)"),
                     {"setup": json.dumps({"game": "ttr-new-york", "players": ["A", "B"], "seed": 1}),
                      "seats": json.dumps([{"name": "A", "kind": "human", "token": "t1"},
                                           {"name": "B", "kind": "human", "token": "t2"}])})
    e.dispose()
    store = Store(db)  # migrates to the newest revision
    try:
        assert store.load_game("old1") is not None
        with store.engine.connect() as conn:
            assert conn.execute(sa.select(sa.func.count()).select_from(accounts)).scalar_one() == 0
    finally:
        store.close()
    with TestClient(create_app(settings(db))) as c:
        register(c, name())
        assert c.get("/api/games/old1").json()["status"] == "open"
