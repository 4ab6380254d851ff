"""Games: the catalog and boards, the lobby's list, creating a game, a game's summary and a seat's view.

Tokens never travel in a URL that reaches the server: invite links carry them after ``#`` (the
browser keeps the fragment to itself) and the view endpoint reads them from the ``Authorization``
header. So access logs hold no secrets.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from fastapi import APIRouter, Header, HTTPException, Request
from fastapi.responses import JSONResponse, Response

import tracklayer
from tracklayer.server import responses
from tracklayer.server.catalog import board_data, catalog, game_entry
from tracklayer.server.clocks import annotate_clocks, new_control, parse_clock, store_new
from tracklayer.server.creation import bad, new_record
from tracklayer.server.deps import AccountsDep, LimitsDep, RoomDep, RoomsDep, StoreDep
from tracklayer.server.limits import Refused
from tracklayer.server.lobby import creator_out
from tracklayer.server.models import CreateGame, CreateTutorial, JSONBodyRoute
from tracklayer.server.tutorial import tutorial_record

log = logging.getLogger("tracklayer.server")
router = APIRouter(tags=["games"], route_class=JSONBodyRoute)

STATUSES = ("waiting", "open", "running", "over")  # waiting: a seat is still open (lobby.py)


def client_address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def refused(exc: Refused) -> HTTPException:
    return HTTPException(429, exc.message, headers={"Retry-After": str(exc.retry_after)})


def board_known(game: str) -> None:
    if game not in tracklayer.games() or game_entry(game) is None:
        raise HTTPException(404, f"no board {game!r}")


def cached_json(data: Any) -> Response:
    """Public map data: compact, and cached by browsers for an hour."""
    return Response(json.dumps(data, separators=(",", ":")), media_type="application/json",
                    headers={"Cache-Control": "public, max-age=3600"})


@router.get("/api/catalog", response_model=responses.Catalog)
async def api_catalog() -> dict[str, Any]:
    return catalog()


@router.get("/api/boards/{game}", response_model=responses.BoardData)
async def api_board(game: str) -> Response:
    board_known(game)
    return cached_json(board_data(game))


@router.get("/api/games", response_model=responses.GameList, response_model_exclude_unset=True)
async def api_games(store: StoreDep, status: str | None = None) -> dict[str, Any]:
    statuses = tuple(s for s in (status or "").split(",") if s) or None
    if statuses is not None and not set(statuses) <= set(STATUSES):
        raise bad(f"'status' is a comma-separated list of {', '.join(STATUSES)}")
    listed = await asyncio.to_thread(store.list_games, 200, statuses)
    return {"games": await asyncio.to_thread(annotate_clocks, store, listed)}


@router.post("/api/games", status_code=201, response_model=responses.CreatedGame, response_model_exclude_unset=True)
async def api_create(create: CreateGame, request: Request, store: StoreDep, rooms: RoomsDep, limits: LimitsDep,
                     acct: AccountsDep) -> JSONResponse:
    body = create.model_dump()
    bot = await acct.api_bot(request)  # a bot account's API token: its account takes the first human seat
    if bot is not None:
        mine = next((s for s in body["seats"] if s["kind"] == "human"), None)
        if mine is None or body.get("hotseat"):
            raise bad("a bot account plays a human seat of its own: give one, and no hot-seat table")
        mine["name"] = bot["username"]
    address = client_address(request)
    try:
        limits.check_rate(address)
        rec, game = new_record(body)
        try:
            control = new_control(parse_clock(body, rec.game), len(rec.seats))
            control.creator = rec.creator_token or control.creator
            control.observe(game, [s["kind"] == "human" for s in rec.seats])  # the first deadline, stored now
        except ValueError as exc:
            raise bad(str(exc)) from None
        my_seat = await acct.on_create(request, rec.seats, rec.table_token is not None, bot)
        bot_only = all(s["kind"] == "bot" for s in rec.seats)
        if bot_only:
            limits.check_bot_games(address)
    except Refused as exc:
        raise refused(exc) from None
    await asyncio.to_thread(store.create_game, rec)
    await asyncio.to_thread(store_new, store, rec.id, control)
    await acct.after_create(rec.id, rec.seats, my_seat)
    limits.created(address, rec.id, bot_only)
    room = rooms.add(rec, game, control)
    rooms.kick_bots(room)
    log.info("game %s created (%s, %d seats)", rec.id, rec.game, len(rec.seats))
    links = [{"seat": i, "name": s["name"], "kind": s["kind"],
              **({"token": s["token"], "link": f"/game/{rec.id}#{s['token']}"} if s.get("token") else {})}
             for i, s in enumerate(rec.seats)]
    out: dict[str, Any] = {"id": rec.id, "game": rec.game, "variant": rec.variant, "seats": links,
                           "spectator": {"token": rec.spectator_token,
                                         "link": f"/game/{rec.id}#{rec.spectator_token}"}}
    if rec.table_token:
        out["hotseat"] = {"token": rec.table_token, "link": f"/game/{rec.id}#{rec.table_token}"}
    out.update(creator_out(rec))  # one creator token: links (lobby.py) and seat hand-over (clocks.py)
    out["clock"] = control.spec
    return JSONResponse(out, status_code=201)


@router.post("/api/tutorial", status_code=201, response_model=responses.CreatedTutorial)
async def api_tutorial(create: CreateTutorial, request: Request, store: StoreDep, rooms: RoomsDep,
                       limits: LimitsDep) -> JSONResponse:
    """A tutorial game (tracklayer/server/tutorial.py): private, unrated, no clock; the player's link."""
    address = client_address(request)
    try:
        limits.check_rate(address)
        rec, game = tutorial_record(create.game, create.name, create.bot_name)
    except Refused as exc:
        raise refused(exc) from None
    control = new_control(parse_clock({}, rec.game), len(rec.seats))
    control.creator = rec.creator_token or control.creator
    control.observe(game, [s["kind"] == "human" for s in rec.seats])
    await asyncio.to_thread(store.create_game, rec)
    await asyncio.to_thread(store_new, store, rec.id, control)
    limits.created(address, rec.id, False)
    room = rooms.add(rec, game, control)
    rooms.kick_bots(room)
    log.info("tutorial %s created (%s)", rec.id, rec.game)
    token = rec.seats[0]["token"]
    return JSONResponse({"id": rec.id, "game": rec.game, "token": token, "link": f"/game/{rec.id}#{token}"},
                        status_code=201)


@router.get("/api/games/{game_id}", response_model=responses.GameSummary, response_model_exclude_unset=True)
async def api_game(room: RoomDep) -> dict[str, Any]:
    g = room.game
    return {"id": room.id, "game": room.record.game, "variant": room.record.variant,
            "status": room.record.status, "moves": len(g.moves), "seats": room.seat_info(),
            "current_player": g.current_player}


@router.get("/api/games/{game_id}/view", response_model=responses.StateMessage, response_model_exclude_unset=True)
async def api_view(room: RoomDep, authorization: str | None = Header(default=None)) -> dict[str, Any]:
    token = (authorization or "").removeprefix("Bearer ").strip()
    access = room.access(token)
    if access is None:
        raise HTTPException(403, "send your seat or spectator token as 'Authorization: Bearer TOKEN'")
    return room.state_message(access)
