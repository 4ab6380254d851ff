"""A real server in a subprocess (uvicorn via ``python -m tracklayer.cli serve``) and clients for it."""

from __future__ import annotations

import contextlib
import json
import os
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

ROOT = Path(__file__).resolve().parents[2]
PG_ENV = "TRACKLAYER_TEST_DATABASE_URL"
# the tests create games faster than a person would: no per-address creation limits unless a test sets them
NO_LIMITS = ("--games-per-minute", "0", "--bot-games", "0", "--bot-workers", "1")
STOP_SECONDS = 30  # a server's graceful shutdown takes a second or two; far more means it hangs


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

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_base(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self) -> Server:
        env = {k: v for k, v in os.environ.items() if not k.startswith("TRACKLAYER_")} | self.env
        log = self.log_path.open("ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tracklayer.cli", "serve", "--port", str(self.port), "--database-url",
             self.db_url, "--bot-delay", str(self.bot_delay), "--rate-limit", str(self.rate),
             *(["--idle-timeout", str(self.idle_timeout)] if self.idle_timeout is not None else []), *self.extra],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        log.close()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {self.log_path.read_text(errors='replace')[-3000:]}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(self.base + "/healthz", timeout=1).status_code == 200:
                    return self
            time.sleep(0.1)
        self.proc.terminate()  # no caller will stop a server it never got (SIGTERM: uvicorn stops its workers too)
        try:
            self.proc.wait(STOP_SECONDS)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)
        raise RuntimeError(f"server did not start in 30 s: {self.log()[-3000:]}")

    def kill9(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        """SIGTERM, and a failure (after SIGKILL) if the server does not exit: a shutdown that hangs is a
        bug (the game lease's task once ignored its cancellation), not something to kill quietly."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(STOP_SECONDS)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
                raise AssertionError(f"the server did not exit within {STOP_SECONDS} s of SIGTERM (killed); "
                                     f"its log ends: {self.log()[-3000:]}") from None

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def create(self, game: str, seats: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
        r = httpx.post(self.base + "/api/games", json={"game": game, "seats": seats, **extra}, timeout=10)
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
        self._connect = connect(url, max_size=2**22, open_timeout=10)
        self.ws: ClientConnection = self._connect.__enter__()
        self.messages: list[dict[str, Any]] = []
        self.raw: list[str] = []
        self.state: dict[str, Any] | None = None
        if hello:
            self.send({"type": "hello", "token": token})

    def send(self, msg: Any) -> None:
        self.ws.send(msg if isinstance(msg, str) else json.dumps(msg))

    def recv(self, timeout: float = 10) -> dict[str, Any]:
        try:
            text = self.ws.recv(timeout=timeout)
        except TimeoutError:
            raise TimeoutError(f"no message within {timeout:.1f} s; the last ones: {self.messages[-3:]}") from None
        assert isinstance(text, str)
        self.raw.append(text)
        msg = json.loads(text)
        self.messages.append(msg)
        if msg.get("type") == "state":
            self.state = msg
        return msg

    def wait(self, pred: Callable[[dict[str, Any]], bool], timeout: float = 20) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no such message within {timeout:.0f} s; the last ones: {self.messages[-3:]}")
            try:
                msg = self.recv(left)
            except TimeoutError:
                raise TimeoutError(f"no such message within {timeout:.0f} s; the last ones: "
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
