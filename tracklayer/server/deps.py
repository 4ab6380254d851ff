"""The shared services a request handler receives as typed dependencies.

The application's lifespan (``tracklayer.server.app``) builds each service once and keeps it on
``app.state``; a handler names the one it needs by its type alias (``rooms: RoomsDep``) and FastAPI
hands it over, for HTTP requests and websockets alike. Tests may build an application and replace
any service with ``app.dependency_overrides[get_rooms] = ...``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from fastapi import Depends, HTTPException
from starlette.requests import HTTPConnection

from tracklayer.server.accounts import Accounts
from tracklayer.server.chat import ChatHub
from tracklayer.server.db import Store
from tracklayer.server.guard import valid_game_id
from tracklayer.server.limits import CreationLimits
from tracklayer.server.lobby import Matchmaker, bearer, same_secret
from tracklayer.server.mail import Mail
from tracklayer.server.replay import Replays
from tracklayer.server.room import Room
from tracklayer.server.rooms import Rooms
from tracklayer.server.settings import Settings


def _state(conn: HTTPConnection, name: str) -> Any:
    return getattr(conn.app.state, name)


def get_settings(conn: HTTPConnection) -> Settings:
    return _state(conn, "settings")


def get_store(conn: HTTPConnection) -> Store:
    return _state(conn, "store")


def get_rooms(conn: HTTPConnection) -> Rooms:
    return _state(conn, "rooms")


def get_accounts(conn: HTTPConnection) -> Accounts:
    return _state(conn, "accounts")


def get_chat(conn: HTTPConnection) -> ChatHub:
    return _state(conn, "chat")


def get_limits(conn: HTTPConnection) -> CreationLimits:
    return _state(conn, "limits")


def get_matchmaker(conn: HTTPConnection) -> Matchmaker:
    return _state(conn, "matchmaker")


def get_replays(conn: HTTPConnection) -> Replays:
    return _state(conn, "replays")


def get_mail(conn: HTTPConnection) -> Mail:
    return _state(conn, "mail")


def get_static(conn: HTTPConnection) -> Path:
    return _state(conn, "static")


SettingsDep = Annotated[Settings, Depends(get_settings)]
StoreDep = Annotated[Store, Depends(get_store)]
RoomsDep = Annotated[Rooms, Depends(get_rooms)]
AccountsDep = Annotated[Accounts, Depends(get_accounts)]
ChatDep = Annotated[ChatHub, Depends(get_chat)]
LimitsDep = Annotated[CreationLimits, Depends(get_limits)]
MatchmakerDep = Annotated[Matchmaker, Depends(get_matchmaker)]
ReplaysDep = Annotated[Replays, Depends(get_replays)]
MailDep = Annotated[Mail, Depends(get_mail)]
StaticDep = Annotated[Path, Depends(get_static)]


async def get_room(game_id: str, rooms: RoomsDep) -> Room:
    """The game a path's ``{game_id}`` names (loaded if it is not in memory); 404 if there is none."""
    room = await rooms.get(game_id) if valid_game_id(game_id) else None
    if room is None:
        raise HTTPException(404, "no such game")
    return room


RoomDep = Annotated[Room, Depends(get_room)]


def is_creator(room: Room, authorization: str | None) -> bool:
    """Whether the ``Authorization`` header carries the game's creator token (compared in constant time)."""
    return same_secret(room.record.creator_token, bearer(authorization))


def require_creator(room: Room, authorization: str | None, refusal: str) -> None:
    """403 unless the ``Authorization`` header carries the game's creator token; ``refusal`` says what only
    the creator may do, and the message how to send the token."""
    if not is_creator(room, authorization):
        raise HTTPException(403, f"{refusal}: send the creator token as 'Authorization: Bearer TOKEN'")
