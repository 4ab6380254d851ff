"""Input at the door: one safe JSON decoder, one request body limit, one name check, one game id
check, and the sanitising of strings read back from the database.

Every way in (HTTP bodies, websocket messages, stored rows) goes through one of these, so a hostile
or broken input gets a 4xx answer or a protocol error code instead of an exception somewhere deep in
the server. The failures they guard against were real: a lone surrogate (``"\\ud800"`` in JSON) is a
valid JSON string but not encodable as UTF-8, so it broke every response it reached (and, once
stored, the lobby list for everybody); ``"[" * 3000`` raised ``RecursionError``, which no
``except ValueError`` catches; a body of 100 MB was read whole.
"""

from __future__ import annotations

import json
import logging
import math
import unicodedata
from collections.abc import Awaitable, Callable, Collection, MutableMapping
from typing import Any, NoReturn, TypeVar

from fastapi import HTTPException
from fastapi.responses import JSONResponse
from starlette.requests import ClientDisconnect, Request

log = logging.getLogger("tracklayer.server")

MAX_JSON_DEPTH = 20  # the server's own messages nest 3 deep; legitimate bodies stay far below this
MAX_INT_DIGITS = 18  # move indices, seat numbers: nothing the server reads needs more
MAX_BODY = 1 << 20  # bytes of one HTTP request body (a score file is a few KB)
MAX_NAME = 24  # characters of a player's name (the lobby's input says so too)
MAX_GAME_ID = 32  # ids are secrets.token_urlsafe(8): 11 characters
JSON_STASH = "tracklayer.json"  # where the body middleware leaves the decoded JSON body in the ASGI scope

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def valid_game_id(game_id: str) -> bool:
    """Whether ``game_id`` can name a game at all; every route checks a path's id with this before it
    looks the game up. PostgreSQL text cannot hold NUL, so an id with one names no game: a 404, not
    a 500 from the database."""
    return 0 < len(game_id) <= MAX_GAME_ID and game_id.isascii() and "\x00" not in game_id


class BadJSON(ValueError):
    """A JSON text the server refuses; the message says why in words a client author understands."""


def _parse_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise BadJSON(f"a number has more than {MAX_INT_DIGITS} digits")
    return int(text)


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise BadJSON("a number is too large")
    return value


def _parse_constant(text: str) -> NoReturn:
    raise BadJSON(f"{text} is not JSON")


def encodable(text: str) -> bool:
    """True if ``text`` can be encoded as UTF-8 (it holds no lone surrogate)."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def check_tree(value: object, max_depth: int = MAX_JSON_DEPTH) -> None:
    """Refuse nesting deeper than ``max_depth`` and strings that are not valid Unicode.

    Iterative (an explicit stack): the decoded value may be as deep as the recursion limit allowed.
    """
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, str):
            if not encodable(node):
                raise BadJSON("a string holds an unpaired surrogate (\\ud800-\\udfff): not valid Unicode")
        elif isinstance(node, (dict, list)):
            if depth > max_depth:
                raise BadJSON(f"JSON nested more than {max_depth} levels deep")
            if isinstance(node, dict):
                stack.extend((k, depth) for k in node)
                stack.extend((v, depth + 1) for v in node.values())
            else:
                stack.extend((v, depth + 1) for v in node)


def loads(data: str | bytes, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """``json.loads`` for anything a client sends: :class:`BadJSON` (a ValueError) for text that is not
    JSON, not UTF-8, nested deeper than ``max_depth``, with numbers of more than ``MAX_INT_DIGITS``
    digits or not finite (NaN, 1e999), or with strings that are not valid Unicode."""
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError:
            raise BadJSON("not UTF-8 text") from None
    try:
        value = json.loads(data, parse_int=_parse_int, parse_float=_parse_float, parse_constant=_parse_constant)
    except BadJSON:
        raise
    except RecursionError:  # the C decoder refuses deep nesting this way, not with a ValueError
        raise BadJSON(f"JSON nested more than {max_depth} levels deep") from None
    except ValueError as exc:
        raise BadJSON(f"not valid JSON: {exc}") from None
    check_tree(value, max_depth)
    return value


# ---------------------------------------------------------------------------- names
def _name_char_ok(ch: str) -> bool:
    cat = unicodedata.category(ch)
    if cat in ("Cc", "Cs", "Co", "Cn", "Zl", "Zp"):  # controls, surrogates, private use, unassigned, breaks
        return False
    # format characters can reorder or hide text (U+202E); joiners are part of emoji and some scripts
    return cat != "Cf" or ch in "\u200c\u200d"


def clean_name(raw: object, default: str, where: str) -> str:
    """A player's name as stored and shown: NFC, whitespace runs made one space and stripped, at most
    ``MAX_NAME`` characters, only printable characters. ``default`` for a missing or blank name;
    HTTPException 400 (naming ``where``) for anything else that is not such a name."""
    return clean_text(raw, MAX_NAME, where, "name") or default


def clean_text(raw: object, limit: int, where: str, what: str = "text") -> str | None:
    """A short text a person writes (a name, a bot's description): NFC, whitespace runs made one space
    and stripped, at most ``limit`` characters, only printable characters. None for a missing or blank
    one; HTTPException 400 (naming ``where`` and ``what`` it is) for anything else."""
    if raw is None:
        return None
    if not isinstance(raw, str):
        raise HTTPException(400, f"{where}: a {what} is a text")
    if not encodable(raw):
        raise HTTPException(400, f"{where}: the {what} is not valid Unicode")
    text = " ".join(unicodedata.normalize("NFC", raw).split())
    if len(text) > limit:
        raise HTTPException(400, f"{where}: a {what} has at most {limit} characters")
    if not all(map(_name_char_ok, text)):
        raise HTTPException(400, f"{where}: the {what} holds control or invisible characters")
    return text or None


def shown(value: object, limit: int = 40) -> str:
    """``repr(value)`` cut to ``limit`` characters, for echoing client input in an error message
    (repr escapes what is not printable, so the message stays encodable)."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 1] + "…"


# ---------------------------------------------------------------------------- stored data
_T = TypeVar("_T")


def sanitise(value: _T) -> tuple[_T, bool]:
    """``value`` (decoded stored JSON) with every string made valid Unicode (an unpaired surrogate
    becomes U+FFFD); the flag tells whether anything changed. Rows written before names were
    checked may hold such strings, and one of them must not break a page for everybody."""
    changed = False

    def fix(node: Any) -> Any:
        nonlocal changed
        if isinstance(node, str):
            if encodable(node):
                return node
            changed = True
            return "".join("\ufffd" if 0xD800 <= ord(ch) <= 0xDFFF else ch for ch in node)
        if isinstance(node, list):
            return [fix(v) for v in node]
        if isinstance(node, dict):
            return {fix(k): fix(v) for k, v in node.items()}
        return node

    return fix(value), changed


# ---------------------------------------------------------------------------- responses
class SafeJSONResponse(JSONResponse):
    """JSON answers that can always be encoded: a string that is not valid Unicode is escaped
    (``\\udXXX``, still valid JSON) instead of raising inside the response and turning any answer
    into a 500."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode(
            "utf-8", "backslashreplace")


# ---------------------------------------------------------------------------- the body middleware
def _is_json(scope: Scope) -> bool:
    for key, value in scope.get("headers", ()):
        if key == b"content-type":
            mime = value.split(b";", 1)[0].strip().lower()
            return mime == b"application/json" or mime.endswith(b"+json")
    return False


UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
# headers no cross-site form or "simple" request can carry: a browser asks the server first (CORS
# preflight), which this server never grants; the routes that read them check their values
CROSS_SITE_PROOF = (b"authorization", b"x-csrf-token")


class JSONOnly:
    """ASGI middleware: a state-changing request (POST, PUT, PATCH, DELETE) is sent as JSON
    (``Content-Type: application/json``), or carries ``Authorization`` or ``X-CSRF-Token``; anything
    else is answered **415** before the body is read.

    Why: a form on another site can post to this server with the visitor's browser, but only as
    ``text/plain``, ``application/x-www-form-urlencoded`` or ``multipart/form-data`` (or with no type),
    and the server's JSON decoder would read a JSON text sent as ``text/plain`` all the same. A
    request declared as JSON, or carrying one of those headers, is one a browser sends cross-site only
    after a CORS preflight, which this server does not answer: so such a request comes from the
    server's own pages or from a program, never from another site's form.

    ``exempt``: paths that change nothing (``POST /api/score`` computes an answer from its body, which
    may be any text: its errors are the CLI's), open to any type.
    """

    def __init__(self, app: ASGIApp, exempt: frozenset[str] = frozenset()) -> None:
        self.app = app
        self.exempt = exempt

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in UNSAFE_METHODS or _is_json(scope) or any(
                key in CROSS_SITE_PROOF for key, _ in scope.get("headers", ())) or scope["path"] in self.exempt:
            await self.app(scope, receive, send)
            return
        await BodyLimit._refuse(send, 415, "send the request body as JSON (Content-Type: application/json): "
                                           "other types are what a form on another site can send")


class BodyLimit:
    """ASGI middleware: every HTTP request body is at most ``max_body`` bytes, and a JSON body is
    decoded once, safely, before any endpoint sees it.

    A declared ``Content-Length`` over the limit is answered 413 before anything is read; a body
    without one (chunked) is counted as it arrives and answered 413 as soon as it passes the limit, so
    no request makes the server hold more than ``max_body`` bytes. A body sent as JSON
    (``Content-Type: application/json``) is read whole (it is at most ``max_body`` bytes), decoded by
    :func:`loads` (400 with the reason if it is not acceptable JSON) and left in the scope under
    ``JSON_STASH`` for :func:`json_body`; the endpoint still receives the bytes as usual. A client
    that leaves before its body has arrived gets no answer and leaves no error in the log.

    The bodies of ``own_decoder`` paths are only counted, whatever their Content-Type: their endpoint
    has a decoder of its own that must be the only one (``POST /api/score`` reads a score file with
    ``tracklayer score``'s decoder, which takes UTF-16 with a BOM and names errors the CLI's way).
    """

    def __init__(self, app: ASGIApp, max_body: int = MAX_BODY, own_decoder: Collection[str] = ()) -> None:
        self.app = app
        self.max_body = max_body
        self.own_decoder = frozenset(own_decoder)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for key, value in scope.get("headers", ()):
            if key == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    await self._refuse(send, 400, "Content-Length is not a number")
                    return
                if declared > self.max_body:
                    await self._refuse(send, 413, f"a request body is at most {self.max_body} bytes")
                    return
        if _is_json(scope) and scope["path"] not in self.own_decoder:
            await self._json(scope, receive, send)
            return
        received = 0

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_body:
                    raise TooLarge(self.max_body)
            return message

        started = False

        async def watched(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, watched)
        except TooLarge as exc:
            if started:
                raise
            await self._refuse(send, 413, exc.detail)
        except ClientDisconnect:  # it went away, or was cut off (server/deadlines.py), while sending the body
            log.debug("%s %s: the client left before its body had arrived", scope.get("method"), scope.get("path"))

    async def _json(self, scope: Scope, receive: Receive, send: Send) -> None:
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                await self._refuse(send, 413, f"a request body is at most {self.max_body} bytes")
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        if body:
            try:
                scope[JSON_STASH] = loads(body)
            except BadJSON as exc:
                await self._refuse(send, 400, f"the request body must be JSON: {exc}")
                return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    @staticmethod
    async def _refuse(send: Send, status: int, detail: str) -> None:
        body = json.dumps({"detail": detail}).encode()
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})


class TooLarge(HTTPException):
    """A body that passed the limit while being read (an HTTPException, so FastAPI's own body reading
    lets it through instead of calling it a parse error)."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"a request body is at most {limit} bytes")


async def json_body(request: Request) -> Any:
    """The request's JSON body, decoded by :func:`loads`: the middleware's copy when the client said
    it sends JSON, else the body decoded here (400 with the reason if it is not acceptable)."""
    if JSON_STASH in request.scope:
        return request.scope[JSON_STASH]
    try:
        return loads(await request.body())
    except BadJSON as exc:
        raise HTTPException(400, f"the request body must be JSON: {exc}") from None
