"""Slow clients against a real server (``tracklayer serve``, uvicorn): a request whose headers or body
never finish arriving is cut off once its deadline passes (``TRACKLAYER_HEADER_TIMEOUT``,
``TRACKLAYER_BODY_TIMEOUT``; ``tracklayer/server/deadlines.py``), while normal requests and an open
websocket go on working.

Raw loopback sockets play the slow clients: some send nothing, some send their headers a byte at a
time, some send a body a byte at a time. The limits are short here (1 s); the test only waits, with a
generous overall deadline, for the server to close each socket: nothing is asserted about when.
"""

from __future__ import annotations

import contextlib
import selectors
import socket
import time
from collections.abc import Iterator

import httpx
import pytest

from tests import waits
from tests.server.helpers import Server, database_url, running

LIMIT = "1"  # seconds, both deadlines
PATIENCE = 60.0  # seconds the test waits for every slow socket to be closed: far beyond the limits
TICK = 0.1  # seconds between two bytes of a slow client
SLOW = 40  # sockets of each kind


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    tmp = tmp_path_factory.mktemp("slow-clients")
    env = {"TRACKLAYER_HEADER_TIMEOUT": LIMIT, "TRACKLAYER_BODY_TIMEOUT": LIMIT}
    with running(database_url(tmp), tmp / "server.log", env=env) as s:
        yield s


@contextlib.contextmanager
def slow_sockets(server: Server, n: int, start: bytes) -> Iterator[list[socket.socket]]:
    """``n`` connections to the server that have each sent ``start`` (a request's first bytes)."""
    socks: list[socket.socket] = []
    try:
        for _ in range(n):
            s = socket.create_connection(("127.0.0.1", server.port), timeout=10)
            if start:
                s.sendall(start)
            s.setblocking(False)
            socks.append(s)
        yield socks
    finally:
        for s in socks:
            s.close()


def drip_until_closed(dripping: list[socket.socket], drip: bytes, quiet: list[socket.socket] = ()
                      ) -> list[bytes]:
    """Send ``drip`` (one byte) to each ``dripping`` socket every ``TICK`` seconds until the server has
    closed them all and the ``quiet`` ones; what each received, in that order. Fails after
    ``PATIENCE`` seconds."""
    socks = [*dripping, *quiet]
    received = {s: b"" for s in socks}
    open_ = set(socks)
    with selectors.DefaultSelector() as sel:
        for s in socks:
            sel.register(s, selectors.EVENT_READ)
        deadline = waits.deadline(PATIENCE)
        while open_:
            assert time.monotonic() < deadline, f"{len(open_)} of {len(socks)} slow sockets still open"
            for key, _ in sel.select(timeout=TICK):
                s = key.fileobj
                assert isinstance(s, socket.socket)
                try:
                    data = s.recv(4096)
                except ConnectionError:
                    data = b""
                received[s] += data
                if not data:  # the server closed it
                    open_.discard(s)
                    sel.unregister(s)
            for s in open_.intersection(dripping):
                with contextlib.suppress(BlockingIOError, ConnectionError):  # closed: recv says so next
                        s.send(drip)
    return [received[s] for s in socks]


def still_serving(server: Server) -> None:
    assert httpx.get(server.base + "/healthz", timeout=10).status_code == 200


def test_unfinished_headers_are_cut_off(server: Server) -> None:
    out = server.create("ttr-new-york", [{"name": "Ann"}, {"name": "Bob"}])
    ws = server.client(out["id"], out["seats"][0]["token"])  # older than every slow socket below
    try:
        ws.wait_state()
        head = b"GET /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "
        with slow_sockets(server, SLOW, b"") as silent, slow_sockets(server, SLOW, head) as dripping:
            still_serving(server)  # meanwhile
            ws.send({"type": "ping"})
            ws.wait(lambda m: m.get("type") == "pong")
            answers = drip_until_closed(dripping, b"x", quiet=silent)
        assert all(a.startswith(b"HTTP/1.1 408 ") for a in answers[:SLOW]), answers[0]
        assert answers[SLOW:] == [b""] * SLOW  # sent nothing: closed without a word
        # the websocket outlived every deadline the slow sockets met, and the server still serves
        ws.send({"type": "ping"})
        ws.wait(lambda m: m.get("type") == "pong")
        still_serving(server)
    finally:
        ws.close()


@pytest.mark.parametrize(("path", "content_type"), [("/api/games", "application/json"),
                                                     ("/api/score", "text/plain")])
def test_unfinished_bodies_are_cut_off(server: Server, path: str, content_type: str) -> None:
    head = (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: {content_type}\r\n"
            "Content-Length: 100000\r\n\r\n{").encode()
    with slow_sockets(server, SLOW, head) as socks:
        still_serving(server)
        answers = drip_until_closed(socks, b" ")
    assert all(a.startswith(b"HTTP/1.1 408 ") for a in answers), answers[0]
    still_serving(server)
    assert "Exception in ASGI application" not in server.log()


def test_requests_in_pieces_and_kept_alive_connections_are_answered(server: Server) -> None:
    """A request whose headers and body arrive in pieces within the limits is answered, and so is each
    request on a kept-alive connection."""
    body = b'{"game": "ttr-new-york", "players": [{"name": "A"}]}'
    request = (b"POST /api/score HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s"
               % (len(body), body))
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as s:
        for piece in (request[:20], request[20:60], request[60:]):
            s.sendall(piece)
        answer = b""
        while chunk := s.recv(65536):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 200 "), answer[:200]
    with httpx.Client(base_url=server.base, timeout=10) as client:
        for _ in range(3):
            assert client.post("/api/score", content=body).status_code == 200
