"""Login limits hold across server processes: they are counted in the database (tracklayer.server.accounts).

Two apps on one database stand for two processes (each has its own memory, as ``serve --workers 2``
would); on PostgreSQL also two real server processes, and threads with engines of their own racing
for the last attempt. Every test uses client addresses and usernames of its own: the database is
shared by the tests on PostgreSQL.
"""

from __future__ import annotations

import os
import secrets
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import sqlalchemy as sa
from fastapi import HTTPException
from fastapi.testclient import TestClient

from tests import waits
from tests.server.helpers import PG_ENV, Server, database_url
from tracklayer.server.accounts import LOGIN_FAILS_PER_NAME, LOGIN_PER_ADDRESS, LoginLimiter, login_limits
from tracklayer.server.app import Settings, create_app
from tracklayer.server.db import make_engine, migrate

PASSWORD = "correct horse battery"
pg = pytest.mark.skipif(not os.environ.get(PG_ENV), reason=f"several processes need PostgreSQL: set {PG_ENV}")


def label() -> str:
    return f"testclient-{secrets.token_hex(6)}"  # a client address as the ASGI scope gives it: no traffic


@pytest.fixture
def url(tmp_path: Path) -> str:
    return database_url(tmp_path)


@pytest.fixture
def engine(url: str) -> Iterator[sa.Engine]:
    e = make_engine(url)
    migrate(e)
    yield e
    e.dispose()


@pytest.fixture
def two(url: str) -> Iterator[tuple[TestClient, TestClient]]:
    """Two apps (two processes' worth of memory) on one database, seen from one client address."""
    where = (label(), 50000)
    settings = Settings(database_url=url, bot_delay=0.0, tune_gc=False, games_per_minute=0, bot_games=0,
                        bot_workers=1)
    with TestClient(create_app(settings), client=where) as a, TestClient(create_app(settings), client=where) as b:
        yield a, b


def login(c: TestClient, user: str, password: str) -> int:
    return c.post("/api/login", json={"username": user, "password": password}).status_code


def test_failures_on_a_username_count_across_processes(two: tuple[TestClient, TestClient]) -> None:
    a, b = two
    user = f"ann_{secrets.token_hex(4)}"
    assert a.post("/api/register", json={"username": user, "password": PASSWORD}).status_code == 201
    codes = [login((a, b)[k % 2], user, "wrong password") for k in range(LOGIN_FAILS_PER_NAME + 1)]
    assert codes == [401] * LOGIN_FAILS_PER_NAME + [429]  # in memory per process: 16 tries before the first 429
    for c in (a, b):  # both refuse now, the right password too
        r = c.post("/api/login", json={"username": user.upper(), "password": PASSWORD})
        assert r.status_code == 429 and 0 < int(r.headers["Retry-After"]) <= 300


def test_a_good_login_is_not_counted_as_a_failure(two: tuple[TestClient, TestClient]) -> None:
    a, b = two
    user = f"bob_{secrets.token_hex(4)}"
    assert a.post("/api/register", json={"username": user, "password": PASSWORD}).status_code == 201
    for _ in range(LOGIN_FAILS_PER_NAME - 1):
        assert login(a, user, "wrong password") == 401
    for _ in range(3):  # counted before the check and given back after it
        assert login(b, user, PASSWORD) == 200
    assert login(b, user, "wrong password") == 401  # the 8th failure
    assert login(a, user, PASSWORD) == 429


def test_attempts_of_one_address_count_across_processes(two: tuple[TestClient, TestClient]) -> None:
    a, b = two
    codes = [login((a, b)[k % 2], f"n{k}_{secrets.token_hex(3)}", "wrong password")
             for k in range(LOGIN_PER_ADDRESS + 1)]
    assert codes == [401] * LOGIN_PER_ADDRESS + [429]
    # registrations count as attempts of the address too (hashing costs the server)
    r = b.post("/api/register", json={"username": f"new_{secrets.token_hex(3)}", "password": PASSWORD})
    assert r.status_code == 429


def test_windows_end_rows_are_pruned_and_hold_no_names(engine: sa.Engine) -> None:
    now = [1_000_000.0]
    limiter = LoginLimiter(lambda: engine, window=300, per_address=3, fails_per_name=2, clock=lambda: now[0],
                           prune_every=1e9)
    user, where = f"Cleo_{secrets.token_hex(4)}", label()
    limiter.check(where, user)
    limiter.check(where, user)
    with pytest.raises(HTTPException) as refused:
        limiter.check(where, user)
    assert refused.value.status_code == 429 and refused.value.headers == {"Retry-After": "300"}
    now[0] += 120
    with pytest.raises(HTTPException) as refused:
        limiter.check_address(where)  # the 4th attempt of the address
    assert refused.value.headers == {"Retry-After": "180"}
    with engine.connect() as conn:
        stored = [tuple(map(str, r)) for r in conn.execute(sa.select(login_limits)).all()]
    assert not any(user in v or user.lower() in v or where in v for row in stored for v in row)
    now[0] += 181  # both windows are over: counting starts afresh
    limiter.check(where, user)
    assert limiter.prune(now[0] + 301) >= 2  # the two rows, once their new window is over too
    keys = {limiter.key("addr", where), limiter.key("name", user)}
    with engine.connect() as conn:
        assert not conn.execute(sa.select(login_limits).where(login_limits.c.key.in_(keys))).all()


def test_racing_processes_get_no_more_than_the_limit(engine: sa.Engine, url: str) -> None:
    """Threads with engines of their own (no lock in common but the database's) count on one username."""
    user = f"dan_{secrets.token_hex(4)}"
    engines = [make_engine(url) for _ in range(4)]
    limiters = [LoginLimiter(lambda e=e: e, per_address=1000) for e in engines]
    passed: list[int] = []
    start = threading.Barrier(len(limiters))

    def attempts(k: int) -> None:
        start.wait()
        for _ in range(6):
            try:
                limiters[k].check(label(), user)
                passed.append(k)
            except HTTPException:
                pass

    threads = [threading.Thread(target=attempts, args=(k,)) for k in range(len(limiters))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(waits.scaled(60))
    for e in engines:
        e.dispose()
    assert len(passed) == LOGIN_FAILS_PER_NAME  # 24 attempts, 8 let through


@pg
def test_two_server_processes_share_the_login_limits(tmp_path: Path) -> None:
    url = os.environ[PG_ENV]
    servers = [Server(url, tmp_path / f"{n}.log") for n in ("a", "b")]
    try:
        for s in servers:
            s.start()
        # the servers trust X-Forwarded-For from 127.0.0.1 (uvicorn's default): an address of this test's own
        headers = {"X-Forwarded-For": f"2001:db8::{secrets.token_hex(2)}:{secrets.token_hex(2)}"}  # a label only
        user = f"eve_{secrets.token_hex(4)}"
        r = httpx.post(servers[0].base + "/api/register", json={"username": user, "password": PASSWORD},
                       headers=headers, timeout=waits.scaled(30))
        assert r.status_code == 201, r.text
        codes = [httpx.post(servers[k % 2].base + "/api/login", json={"username": user, "password": "wrong one"},
                            headers=headers, timeout=waits.scaled(30)).status_code
                 for k in range(LOGIN_FAILS_PER_NAME + 1)]
        assert codes == [401] * LOGIN_FAILS_PER_NAME + [429]
        for s in servers:
            r = httpx.post(s.base + "/api/login", json={"username": user, "password": PASSWORD}, headers=headers,
                           timeout=waits.scaled(30))
            assert r.status_code == 429
    finally:
        for s in servers:
            s.stop()
