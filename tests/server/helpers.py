"""A real server in a subprocess (uvicorn via ``python -m tracklayer.cli serve``) and clients for it."""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
from websockets.sync.client import ClientConnection, connect

from tests import waits

ROOT = Path(__file__).resolve().parents[2]
PG_ENV = "TRACKLAYER_TEST_DATABASE_URL"
# the tests create games faster than a person would: no per-address creation limits unless a test sets them
NO_LIMITS = ("--games-per-minute", "0", "--bot-games", "0", "--bot-workers", "1")
STOP_SECONDS = 30  # a server's graceful shutdown takes a second or two; far more means it hangs
START_SECONDS = 120  # it is up in a few seconds; the bound (scaled by tests.waits) only ends a hang


def database_url(tmp: Path) -> str:
    """PostgreSQL when CI sets TRACKLAYER_TEST_DATABASE_URL, else a fresh SQLite file."""
    return os.environ.get(PG_ENV) or f"sqlite:///{tmp / 'tracklayer.sqlite3'}"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, db_url: str, log_path: Path, *, bot_delay: float = 0.0, rate: float = 10.0,
                 idle_timeout: float | None = None, extra: tuple[str, ...] = NO_LIMITS,
                 env: dict[str, str] | None = None) -> None:
        self.db_url = db_url
        self.log_path = log_path
        self.bot_delay = bot_delay
        self.rate = rate
        self.idle_timeout = idle_timeout
        self.extra = extra  # more ``serve`` options
        self.env = env or {}  # TRACKLAYER_* settings without a ``serve`` option
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self._procs: list[subprocess.Popen[bytes]] = []  # every start's process, each its group's leader

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_base(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def argv(self) -> list[str]:
        return [sys.executable, "-m", "tracklayer.cli", "serve", "--port", str(self.port), "--database-url",
                self.db_url, "--bot-delay", str(self.bot_delay), "--rate-limit", str(self.rate),
                *(["--idle-timeout", str(self.idle_timeout)] if self.idle_timeout is not None else []), *self.extra]

    def start(self, start_seconds: float = START_SECONDS) -> Server:
        """Start the server and wait for its health check while it lives. It leads its own process group
        (its bot workers are in it): if it dies, the error carries its log; if it is not up within
        ``start_seconds`` (scaled to the machine's load), or anything interrupts the wait, the whole
        group is killed before the error goes up, so no server outlives a failed start."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("TRACKLAYER_")}
        # bots do not wait for a possible undo unless a test asks (tests/server/test_undo.py)
        # every test server's clients come from 127.0.0.1, and on PostgreSQL the servers share one database and
        # so one count of login attempts per address: a person's limit would refuse the suite's registrations
        env |= {"TRACKLAYER_UNDO_GRACE_SECONDS": "0", "TRACKLAYER_LOGIN_ATTEMPTS": "100000"} | self.env
        with self.log_path.open("ab") as log:
            self.proc = waits.track(subprocess.Popen(self.argv(), cwd=ROOT, env=env, stdout=log,
                                                     stderr=subprocess.STDOUT, **waits.NEW_SESSION))
        self._procs.append(self.proc)
        bound = waits.scaled(start_seconds)
        end = time.monotonic() + bound
        try:
            while True:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"the server exited with code {self.proc.returncode} before it was up; "
                                       f"its log ends: {self.log()[-3000:]}")
                with contextlib.suppress(httpx.HTTPError):
                    if httpx.get(self.base + "/healthz", timeout=min(5.0, bound)).status_code == 200:
                        return self
                if time.monotonic() >= end:
                    raise RuntimeError(f"the server did not answer /healthz within {bound:.0f} s (killed); "
                                       f"its log ends: {self.log()[-3000:]}")
                time.sleep(0.1)
        except BaseException:
            waits.kill_group(self.proc)
            raise

    def kill9(self) -> None:
        """SIGKILL the server process only, as a crash would: its bot workers must notice and exit
        themselves (:func:`stop` kills whatever of its group is left)."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(waits.scaled(10))

    def stop(self) -> None:
        """SIGTERM, and a failure (after SIGKILL) if the server does not exit: a shutdown that hangs is a
        bug (the game lease's task once ignored its cancellation), not something to kill quietly. Every
        process group this server started (it, its bot workers, and those of a server killed by
        :meth:`kill9`) is killed at the end, whatever happened."""
        try:
            if self.proc is not None and self.proc.poll() is None:
                self.proc.terminate()
                bound = waits.scaled(STOP_SECONDS)
                try:
                    self.proc.wait(bound)
                except subprocess.TimeoutExpired:
                    raise AssertionError(f"the server did not exit within {bound:.0f} s of SIGTERM (killed); "
                                         f"its log ends: {self.log()[-3000:]}") from None
        finally:
            for proc in self._procs:
                waits.kill_group(proc)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def create(self, game: str, seats: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
        r = httpx.post(self.base + "/api/games", json={"game": game, "seats": seats, **extra},
                       timeout=waits.scaled(10))
        assert r.status_code == 201, r.text
        return r.json()

    def client(self, game_id: str, token: str) -> Client:
        return Client(self.ws_base + f"/ws/{game_id}", token)


@contextlib.contextmanager
def running(db_url: str, log_path: Path, **kw: Any) -> Iterator[Server]:
    server = Server(db_url, log_path, **kw).start()
    try:
        yield server
    finally:
        server.stop()


class Client:
    """A websocket client that records every message it receives (the leak tests read them all)."""

    def __init__(self, url: str, token: str | None, hello: bool = True) -> None:
        self._connect = connect(url, max_size=2**22, open_timeout=waits.scaled(10))
        self.ws: ClientConnection = self._connect.__enter__()
        self.messages: list[dict[str, Any]] = []
        self.raw: list[str] = []
        self.state: dict[str, Any] | None = None
        if hello:
            self.send({"type": "hello", "token": token})

    def send(self, msg: Any) -> None:
        self.ws.send(msg if isinstance(msg, str) else json.dumps(msg))

    def recv(self, timeout: float = 10) -> dict[str, Any]:
        """The next message; ``timeout`` is scaled to the machine's load (tests.waits), as in every wait here."""
        return self._recv(waits.scaled(timeout))

    def _recv(self, seconds: float) -> dict[str, Any]:
        try:
            text = self.ws.recv(timeout=seconds)
        except TimeoutError:
            raise TimeoutError(f"no message within {seconds:.1f} s; the last ones: {self.messages[-3:]}") from None
        assert isinstance(text, str)
        self.raw.append(text)
        msg = json.loads(text)
        self.messages.append(msg)
        if msg.get("type") == "state":
            self.state = msg
        return msg

    def wait(self, pred: Callable[[dict[str, Any]], bool], timeout: float = 20) -> dict[str, Any]:
        bound = waits.scaled(timeout)
        deadline = time.monotonic() + bound
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no such message within {bound:.0f} s; the last ones: {self.messages[-3:]}")
            try:
                msg = self._recv(left)
            except TimeoutError:
                raise TimeoutError(f"no such message within {bound:.0f} s; the last ones: "
                                   f"{self.messages[-3:]}") from None
            if pred(msg):
                return msg

    def wait_state(self, pred: Callable[[dict[str, Any]], bool] = lambda s: True, timeout: float = 20) -> dict:
        if self.state is not None and pred(self.state):
            return self.state
        return self.wait(lambda m: m.get("type") == "state" and pred(m), timeout)

    def my_turn(self, timeout: float = 20) -> dict[str, Any]:
        return self.wait_state(lambda s: bool(s.get("legal")) or s["over"], timeout)

    def move(self, text: str, expect: int | None = None, timeout: float = 10) -> dict[str, Any]:
        """Send a move; returns the ack or the error."""
        if expect is None:
            assert self.state is not None
            expect = self.state["moves"]
        self.send({"type": "move", "move": text, "expect": expect})
        return self.wait(lambda m: m.get("type") in ("ack", "error"), timeout)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.ws.close()


def play_out(server: Server, game_id: str, token: str, seed: int = 5,
             choose: Callable[[list[str], random.Random], str] | None = None) -> dict[str, Any]:
    """Play a seat over the websocket until the game ends, at random but a claim whenever there is one (the
    game ends sooner, and drawing alone could go on for ever), or as ``choose(legal, rng)`` says; returns the
    final state."""
    client = server.client(game_id, token)
    rng = random.Random(seed)
    deadline = waits.deadline(240)
    try:
        while True:
            assert time.monotonic() < deadline, "the game did not end"
            s = client.my_turn(60)
            if s["over"]:
                return s
            claims = [m for m in s["legal"] if m.startswith("claim")]
            move = choose(s["legal"], rng) if choose else rng.choice(claims or s["legal"])
            ack = client.move(move)
            while ack.get("code") == "rate":  # faster than the server's rate limit lets a connection go
                time.sleep(0.2)
                ack = client.move(move)
            assert ack["type"] == "ack", ack
            client.wait_state(lambda st, n=ack["index"]: st["moves"] > n)  # not the state the move was made in
    finally:
        client.close()


def finished_account_game(server: Server, username: str, password: str = "a long enough password") -> dict[str, Any]:
    """Register ``username`` and play its New York game against a greedy bot ("Robo") to the end; returns
    the game as created (its id, its seats' links and tokens). The account's profile then lists the game."""
    with httpx.Client(base_url=server.base, timeout=waits.scaled(20)) as http:
        r = http.post("/api/register", json={"username": username, "password": password})
        assert r.status_code == 201, r.text
        r = http.post("/api/games", headers={"X-CSRF-Token": r.json()["csrf"]},
                      json={"game": "ttr-new-york", "first_player": 0,
                            "seats": [{"name": username}, {"kind": "bot", "bot": "greedy", "name": "Robo"}]})
        assert r.status_code == 201, r.text
        created: dict[str, Any] = r.json()
    play_out(server, created["id"], created["seats"][0]["token"])
    return created
