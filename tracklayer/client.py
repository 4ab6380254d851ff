"""Play on a tracklayer server from an outside program, as a bot account (docs/protocol.md, "Bots over
the network").

The server's owner of a bot account makes an API token for it (``POST /api/bots/{name}/tokens``);
with that token a program finds a game over HTTP and plays its seat over the game websocket, the
protocol the web client speaks::

    from tracklayer.client import BotClient

    def policy(view, legal):           # the seat's view and the legal moves, as the server sends them
        return legal[0]                # a move in the notation (docs/notation.md)

    with BotClient("https://tracklayer.example", "tlb_…") as client:
        client.quick_play("ttr-new-york", players=2)
        result = client.play(policy)
        print(result.rank, result.result)

Only ``httpx`` and ``websockets`` are needed: this module imports nothing else of tracklayer (no
engine), so a program may vendor it alone. Rated games: the seat is the bot account's, and the
ladder lists it as a bot (with its owner).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import httpx
from websockets.exceptions import ConnectionClosed, InvalidHandshake
from websockets.sync.client import ClientConnection, connect

log = logging.getLogger("tracklayer.client")

Policy = Callable[[dict[str, Any], list[str]], str]
"""``policy(view, legal) -> move``: the seat's view (``view.log`` whole) and the legal move texts."""

REFUSED = ("illegal", "bad-move")  # the move itself was refused: the policy's fault
RESYNC = ("stale", "turn", "conflict")  # the position moved on: the server sends a fresh state


class ClientError(Exception):
    """The server refused something, or could not be reached."""


class ApiError(ClientError):
    """An HTTP request was refused: ``status``, the server's ``detail``, and ``retry_after`` on a 429."""

    def __init__(self, status: int, detail: str, retry_after: float | None = None) -> None:
        super().__init__(f"{status}: {detail}")
        self.status, self.detail, self.retry_after = status, detail, retry_after


class MoveRefused(ClientError):
    """The server refused the policy's move (``code`` ``illegal`` or ``bad-move``; ``message`` says why)."""

    def __init__(self, code: str, message: str, move: str) -> None:
        super().__init__(f"{code}: {message} (move {move!r})")
        self.code, self.message, self.move = code, message, move


class ConnectionLost(ClientError):
    """The game's websocket could not be opened again after ``reconnects`` tries."""


@dataclass(frozen=True)
class Seat:
    """A seat of a game and the token that plays it (the websocket's hello)."""

    game_id: str
    seat: int
    token: str


@dataclass
class Result:
    """The end of a game as the seat saw it: the final state message, its view with the whole log,
    and the engine's ``result`` (every player's score and ``rank``; 1 is first)."""

    seat: Seat
    state: dict[str, Any]
    view: dict[str, Any]
    moves_played: int = 0  # moves this client sent that the server acknowledged

    @property
    def result(self) -> dict[str, Any]:
        return dict(self.view.get("result") or {})

    @property
    def rank(self) -> int | None:
        for p in self.result.get("players", []):
            if p.get("seat") == self.seat.seat:
                return int(p["rank"])
        return None


@dataclass
class _Play:
    """One seat's game in progress: what survives a reconnection."""

    log: list[Any] = field(default_factory=list)
    state: dict[str, Any] | None = None
    view: dict[str, Any] = field(default_factory=dict)
    sent_for: int | None = None  # the move index this client sent a move for and awaits the answer of
    last_move: str = ""
    refusals: int = 0
    acked: int = 0


class BotClient:
    """A bot account's client: ``base_url`` of the server (``http(s)://host:port``) and its API token.

    ``rate_waits``: how many times a request answered 429 is tried again after its ``Retry-After``
    (0: raise :class:`ApiError` at once)."""

    def __init__(self, base_url: str, token: str, *, timeout: float = 10.0, rate_waits: int = 2,
                 http: httpx.Client | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.timeout = timeout
        self.rate_waits = rate_waits
        self.http = http or httpx.Client(base_url=self.base_url, timeout=timeout)
        self.seat: Seat | None = None  # the seat the last quick_play / join / create gave
        self.connection: ClientConnection | None = None  # the game websocket while play() runs

    def __enter__(self) -> BotClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.http.close()

    # HTTP -------------------------------------------------------------------------------
    def request(self, method: str, path: str, body: Any = None) -> Any:
        """One authenticated JSON request; its JSON answer, or :class:`ApiError`."""
        headers = {"Authorization": f"Bearer {self.token}"}
        for attempt in range(self.rate_waits + 1):
            r = self.http.request(method, path, json=body, headers=headers)
            if r.status_code == 429 and attempt < self.rate_waits:
                time.sleep(_retry_after(r) or 1.0)
                continue
            if r.is_success:
                return r.json()
            try:
                detail = str(r.json().get("detail", r.text))
            except (ValueError, AttributeError):
                detail = r.text
            raise ApiError(r.status_code, detail, _retry_after(r))
        raise AssertionError("unreachable")  # the loop returns or raises

    def me(self) -> dict[str, Any]:
        """The bot account the token acts for: ``{"username", "owner", "ratings"}``."""
        return dict(self.request("GET", "/api/bot"))

    def quick_play(self, game: str, players: int = 2, wait: int = 30) -> Seat:
        """A seat in a waiting quick-play game of ``game`` and ``players`` (or a new one, whose open
        seats go to the server's bots after ``wait`` seconds: 30, 120 or 600)."""
        return self._seat(self.request("POST", "/api/quickplay", {"game": game, "players": players, "wait": wait}))

    def join(self, game_id: str) -> Seat:
        """The first open seat of a waiting public game."""
        return self._seat(self.request("POST", f"/api/games/{game_id}/join", {}))

    def create(self, game: str, opponents: list[str], *, variant: str | None = None,
               options: dict[str, Any] | None = None, clock: dict[str, Any] | None = None,
               private: bool = False) -> Seat:
        """A new game with this bot in seat 0 and the server's bots ``opponents`` (names or levels,
        ``GET /api/catalog``) in the others; the first player is drawn."""
        body: dict[str, Any] = {"game": game, "private": private,
                                "seats": [{"kind": "human"}] + [{"kind": "bot", "bot": b} for b in opponents]}
        for key, value in (("variant", variant), ("options", options), ("clock", clock)):
            if value is not None:
                body[key] = value
        answer = self.request("POST", "/api/games", body)
        mine = answer["seats"][0]
        return self._seat({"id": answer["id"], "seat": mine["seat"], "token": mine["token"]})

    def _seat(self, answer: dict[str, Any]) -> Seat:
        self.seat = Seat(str(answer["id"]), int(answer["seat"]), str(answer["token"]))
        return self.seat

    # the game websocket -----------------------------------------------------------------
    def ws_url(self, game_id: str) -> str:
        scheme, rest = self.base_url.split("://", 1)
        return f"{'wss' if scheme == 'https' else 'ws'}://{rest}/ws/{game_id}"

    def play(self, policy: Policy, seat: Seat | None = None, *, on_illegal: Literal["raise", "retry"] = "raise",
             max_refusals: int = 3, reconnects: int = 5) -> Result:
        """Play ``seat`` (default: the last one found) to the end of the game: ``policy(view, legal)``
        is asked for a move whenever the seat may move, and the move is sent with the move index it
        answers (``expect``). A refused move raises :class:`MoveRefused` (``on_illegal="retry"``: the
        policy is asked again, ``max_refusals`` times in a row at most). A dropped connection is
        opened again (``reconnects`` tries in a row, waiting 0.5, 1, 2 … s) and the game resumes from
        the server's fresh state. Returns the final :class:`Result`."""
        seat = seat or self.seat
        if seat is None:
            raise ClientError("no seat: call quick_play, join or create first")
        game = _Play()
        failures = 0
        while True:
            try:
                with connect(self.ws_url(seat.game_id), open_timeout=self.timeout, max_size=2**22) as ws:
                    self.connection = ws
                    ws.send(json.dumps({"type": "hello", "token": seat.token}))
                    game.sent_for = None  # a new connection: whatever was in flight is answered by its state
                    while True:
                        msg = json.loads(ws.recv())
                        failures = 0
                        done = self._handle(ws, game, msg, policy, on_illegal, max_refusals)
                        if done:
                            assert game.state is not None
                            return Result(seat, game.state, game.view, game.acked)
            except (ConnectionClosed, InvalidHandshake, OSError, TimeoutError) as exc:
                failures += 1
                if failures > reconnects:
                    raise ConnectionLost(f"game {seat.game_id}: {exc}") from exc
                wait = min(0.5 * 2 ** (failures - 1), 10.0)
                log.info("game %s: connection lost (%s); again in %.1f s", seat.game_id, exc, wait)
                time.sleep(wait)
            finally:
                self.connection = None

    def _handle(self, ws: ClientConnection, game: _Play, msg: dict[str, Any], policy: Policy,
                on_illegal: str, max_refusals: int) -> bool:
        """One server message; True when the game is over."""
        kind = msg.get("type")
        if kind == "state":
            view = dict(msg.get("view") or {})
            game.log = game.log[:int(msg.get("log_from", 0))] + list(view.get("log") or [])
            view["log"] = game.log  # the protocol sends only the new entries: the whole log for the policy
            game.state, game.view = msg, view
            if msg.get("over"):
                return True
            if msg.get("legal") and game.sent_for != msg.get("moves"):
                self._move(ws, game, policy)
        elif kind == "ack":
            game.refusals = 0
            game.acked += 1
        elif kind == "error":
            code, text = str(msg.get("code")), str(msg.get("message", ""))
            if code in REFUSED:
                game.refusals += 1
                if on_illegal == "raise" or game.refusals > max_refusals:
                    raise MoveRefused(code, text, game.last_move)
                self._move(ws, game, policy)
            elif code in RESYNC:
                game.sent_for = None  # a fresh state follows
            elif code in ("auth", "no-game", "over"):
                raise ClientError(f"{code}: {text}")
            elif code == "rate":  # the message was dropped: ask again for the state once the rate allows
                game.sent_for = None
                time.sleep(1.0)
                ws.send(json.dumps({"type": "sync"}))
            else:
                log.warning("game %s: the server said %s: %s", msg.get("game_id"), code, text)
        return False

    def _move(self, ws: ClientConnection, game: _Play, policy: Policy) -> None:
        assert game.state is not None
        legal = [str(m) for m in game.state.get("legal") or []]
        move = policy(game.view, legal)
        game.sent_for = int(game.state["moves"])
        game.last_move = move
        ws.send(json.dumps({"type": "move", "move": move, "expect": game.sent_for}))


def _retry_after(r: httpx.Response) -> float | None:
    try:
        return float(r.headers["Retry-After"])
    except (KeyError, ValueError):
        return None
