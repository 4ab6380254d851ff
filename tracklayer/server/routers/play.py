"""The game websocket, ``/ws/{game_id}``: the protocol of docs/protocol.md.

The token arrives in the first message (``hello``), never in the URL, so access logs hold no secrets.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from tracklayer.server import guard
from tracklayer.server.chat import ChatError, ChatHub
from tracklayer.server.deps import AccountsDep, ChatDep, RoomsDep, SettingsDep
from tracklayer.server.guard import BadJSON, valid_game_id
from tracklayer.server.room import Connection, ProtocolError, Room
from tracklayer.server.rooms import Rooms

log = logging.getLogger("tracklayer.server")
router = APIRouter(tags=["play"])

# a websocket refused this many messages past its rate limit is closed with 1008 (policy violation);
# the reason starts with the protocol's error code, which the page translates (game.js)
FLOOD_REFUSALS = 200
FLOOD_CLOSE_CODE = 1008
FLOOD_CLOSE_REASON = "rate: too many messages past the rate limit"


def decode(message: Mapping[str, Any], max_message: int) -> dict[str, Any]:
    """One client websocket message as a JSON object, or the ProtocolError to answer it with. Text
    and binary frames alike (a binary one must hold UTF-8 JSON); the size is checked before any
    decoding, the JSON by the same safe decoder as HTTP bodies."""
    raw: str | bytes | None = message.get("text")
    if raw is None:
        raw = message.get("bytes") or b""
    size = len(raw) if isinstance(raw, bytes) else len(raw.encode("utf-8", "surrogatepass"))
    if size > max_message:
        raise ProtocolError("size", f"a message is at most {max_message} bytes")
    try:
        msg = guard.loads(raw)
    except BadJSON as exc:
        raise ProtocolError("bad-json", f"messages are JSON objects: {exc}") from None
    if not isinstance(msg, dict):
        raise ProtocolError("bad-json", "messages are JSON objects")
    return msg

@router.websocket("/ws/{game_id}")
async def ws_game(ws: WebSocket, game_id: str, settings: SettingsDep, rooms: RoomsDep, chat: ChatDep,
                  acct: AccountsDep) -> None:
    """The game protocol (docs/protocol.md): a hello with a token, then moves, chat, sync and ping."""
    await ws.accept()
    room = await rooms.get(game_id) if valid_game_id(game_id) else None
    if room is None:
        await ws.send_text(json.dumps({"type": "error", "code": "no-game", "message": "no such game"}))
        await ws.close(code=4404)
        return
    try:
        async with asyncio.timeout(settings.hello_timeout):  # never wait_for: tracklayer/server/lease.py
            first = await ws.receive()
    except (TimeoutError, WebSocketDisconnect, RuntimeError):
        with contextlib.suppress(Exception):
            await ws.close(code=4408)
        return
    if first.get("type") == "websocket.disconnect":
        return
    access = None
    with contextlib.suppress(ProtocolError):  # any hello that is not one: the documented 'auth' refusal
        hello = decode(first, settings.max_message)
        if hello.get("type") == "hello":
            access = room.access(hello.get("token"))
    if access is None:
        await ws.send_text(json.dumps({"type": "error", "code": "auth",
                                       "message": "first send {\"type\": \"hello\", \"token\": ...} with the "
                                                  "token of your invite link"}))
        await ws.close(code=4401)
        return
    # the room may have been unloaded while we waited for the hello: take the one in memory now
    # (no await between this and joining it, so it cannot be unloaded under the new connection)
    room = await rooms.get(game_id) or room
    await acct.on_join(ws, room, access.role, access.seats)
    account = await acct.arrive(ws, room.id, access.role)  # friends see the account online, in this game
    conn = Connection(ws, access, settings.rate, settings.burst)
    room.connections.add(conn)
    rooms.connections_changed(room)  # other server processes show the seat online (presence.py)
    writer = asyncio.create_task(conn.writer())
    try:
        room.broadcast()  # the newcomer gets its state (its log_sent is 0: the whole log); the others see it online
        rooms.kick_bots(room)
        await chat.welcome(room, conn)
        await _serve(Session(room, conn, ws, rooms, chat, settings.max_message))
    finally:
        room.connections.discard(conn)
        rooms.connections_changed(room)
        acct.leave(account, room.id, access.role)
        conn.close()
        room.broadcast()
        with contextlib.suppress(Exception):
            async with asyncio.timeout(5):
                await writer
        writer.cancel()
        if conn.close_code is not None:  # the server ends it: say why (else the client sees 1006)
            with contextlib.suppress(Exception):
                await ws.close(code=conn.close_code, reason=conn.close_reason)

@dataclass
class Session:
    """One websocket's connection to its game, with the services its messages reach."""

    room: Room
    conn: Connection
    ws: WebSocket
    rooms: Rooms
    chat: ChatHub
    max_message: int


async def _serve(s: Session) -> None:
    room, conn, ws = s.room, s.conn, s.ws
    while not conn.closed:
        try:
            message = await ws.receive()
        except (WebSocketDisconnect, RuntimeError):
            return
        if message.get("type") == "websocket.disconnect":
            return
        if not conn.allow():
            conn.refused += 1
            conn.send(ProtocolError("rate", "too many messages: slow down").payload())
            if conn.refused > FLOOD_REFUSALS:  # a policy violation, said so in the close frame
                conn.close(FLOOD_CLOSE_CODE, FLOOD_CLOSE_REASON)
            continue
        try:
            await _handle(s, decode(message, s.max_message))
        except ProtocolError as exc:
            conn.send(exc.payload())
        except Exception:  # one message must never take the connection (or the server) down
            log.exception("game %s: a websocket message could not be handled", room.id)
            conn.send(ProtocolError("internal", "the server could not handle that message").payload())

async def _handle(s: Session, msg: dict[str, Any]) -> None:
    room, conn, rooms, chat = s.room, s.conn, s.rooms, s.chat
    kind = msg.get("type")
    if kind == "move":
        try:
            await rooms.play(room, conn.access.seats, msg.get("move"), msg.get("expect"), conn)
        except ProtocolError as exc:
            conn.send(exc.payload())
            if exc.code in ("stale", "turn", "conflict"):
                room.send_state(conn)
    elif kind == "undo":  # take back the last move (docs/protocol.md#undo)
        if conn.access.role == "spectator":
            raise ProtocolError("undo", "spectators have no moves to take back")
        await rooms.undo(room, conn.access.seats, conn)
    elif kind == "done":  # the last move stands: bots waiting for a possible undo go on
        rooms.done(room, conn.access.seats)
    elif kind == "chat":
        try:
            await chat.post(room, conn, msg.get("text"))
        except ChatError as exc:
            conn.send(ProtocolError(exc.code, exc.message).payload())
    elif kind in ("takeback", "resign"):  # the seat's own player (tracklayer.server.clocks)
        if conn.access.role != "seat" or room.control is None:
            raise ProtocolError("bad-type", "only a seat's own player can take it back or resign")
        try:
            await rooms.clocks.change(room, next(iter(conn.access.seats)), kind)
        except ValueError as exc:
            raise ProtocolError("seat", str(exc)) from None
    elif kind == "ping":
        conn.send({"type": "pong"})
    elif kind == "sync":
        room.send_state(conn)
    elif kind == "hello":
        conn.send(ProtocolError("bad-type", "already connected").payload())
    else:
        types = "move, undo, done, chat, sync, ping, takeback, resign"
        conn.send(ProtocolError("bad-type", f"message types: {types}").payload())
