"""Matchmaking and links (tracklayer.server.lobby): a game's links for its creator, joining an open
seat, quick play and the "My games" status batch."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from fastapi import APIRouter, Header, HTTPException, Request

import tracklayer
from tracklayer.server import responses
from tracklayer.server.catalog import game_entry
from tracklayer.server.creation import new_record
from tracklayer.server.deps import (
    AccountsDep,
    LimitsDep,
    MatchmakerDep,
    RoomDep,
    RoomsDep,
    StoreDep,
    require_creator,
)
from tracklayer.server.guard import clean_name, shown, valid_game_id
from tracklayer.server.limits import Refused
from tracklayer.server.lobby import OPEN, WAITS, seat_link, status_of
from tracklayer.server.models import JoinGame, JSONBodyRoute, QuickPlay, StatusRequest
from tracklayer.server.routers.games import client_address, refused

log = logging.getLogger("tracklayer.server")
router = APIRouter(tags=["lobby"], route_class=JSONBodyRoute)


@router.get("/api/games/{game_id}/links", response_model=responses.GameLinks, response_model_exclude_unset=True)
async def api_links(room: RoomDep, authorization: str | None = Header(default=None)) -> dict[str, Any]:
    rec = room.record
    require_creator(room, authorization, "the links of a game are shown to its creator")
    out: dict[str, Any] = {
        "id": rec.id, "game": rec.game, "status": rec.status,
        "seats": [{"seat": i, "name": s["name"], "kind": s["kind"],
                   **({"token": s["token"], "link": seat_link(rec.id, s["token"]),
                       "held": s.get("account") is not None} if s.get("token") else {})}
                  for i, s in enumerate(rec.seats)],
        "spectator": {"token": rec.spectator_token, "link": seat_link(rec.id, rec.spectator_token)}}
    if rec.table_token:
        out["hotseat"] = {"token": rec.table_token, "link": seat_link(rec.id, rec.table_token)}
    return out


@router.post("/api/games/{game_id}/join", response_model=responses.Joined)
async def api_join(game_id: str, body: JoinGame, request: Request, mm: MatchmakerDep,
                   acct: AccountsDep) -> dict[str, Any]:
    if not valid_game_id(game_id):
        raise HTTPException(404, "no such game")
    bot = await acct.api_bot(request)  # a bot account's API token: the seat is its own, under its name
    if bot is not None and game_id in await asyncio.to_thread(acct.store.seated, bot["account_id"], [game_id]):
        raise HTTPException(409, "this bot account has a seat in that game already")
    seat, token = await asyncio.to_thread(mm.claim, game_id, bot["username"] if bot else body.name)
    if bot is not None:
        await asyncio.to_thread(acct.store.link_seat, bot["account_id"], game_id, seat)
    await mm.sync(game_id)
    return {"id": game_id, "seat": seat, "token": token, "link": seat_link(game_id, token)}

@router.post("/api/quickplay", response_model=responses.QuickPlayed)
async def api_quickplay(body: QuickPlay, request: Request, store: StoreDep, rooms: RoomsDep, limits: LimitsDep,
                        mm: MatchmakerDep, acct: AccountsDep) -> dict[str, Any]:
    name = body.game
    entry = game_entry(name) if name in tracklayer.games() else None
    if entry is None:
        raise HTTPException(400, f"unknown game {shown(name)}")
    players = body.players
    if not entry["min_players"] <= players <= entry["max_players"]:
        raise HTTPException(400, f"'players' is a number from {entry['min_players']} to {entry['max_players']}")
    wait = body.wait
    if wait not in WAITS:
        raise HTTPException(400, f"'wait' is one of {', '.join(map(str, WAITS))} (seconds before bots fill in)")
    bot = await acct.api_bot(request)  # a bot account's API token: the seat is its own, under its name
    person = bot["username"] if bot else clean_name(body.name, "Player", "name")
    # the games this browser already has a seat in: quick play must not seat one person twice
    avoid = body.avoid
    key = f"{name}/{players}"
    pool = await asyncio.to_thread(mm.waiting_pool, key, set(avoid))
    if bot is not None:  # one seat a game for an account: never the games it sits in already
        seated = await asyncio.to_thread(acct.store.seated, bot["account_id"], pool)
        pool = [g for g in pool if g not in seated]
    for game_id in pool:
        try:
            seat, token = await asyncio.to_thread(mm.claim, game_id, person)
        except HTTPException:
            continue  # taken meanwhile
        if bot is not None:
            await asyncio.to_thread(acct.store.link_seat, bot["account_id"], game_id, seat)
        await mm.sync(game_id)
        return {"id": game_id, "seat": seat, "token": token, "link": seat_link(game_id, token), "new": False}
    address = client_address(request)
    try:
        limits.check_rate(address)
    except Refused as exc:
        raise refused(exc) from None
    rec, game = new_record({"game": name, "seats": [{"kind": "human", "name": person}]
                            + [{"kind": OPEN}] * (players - 1), "first_player": None})
    rec.quick, rec.fill_at = key, time.time() + wait
    if bot is not None:
        rec.seats[0]["account"] = bot["account_id"]
    await asyncio.to_thread(store.create_game, rec)
    if bot is not None:
        await asyncio.to_thread(acct.store.link_seat, bot["account_id"], rec.id, 0)
    limits.created(address, rec.id, False)
    rooms.add(rec, game)
    token = rec.seats[0]["token"]
    log.info("game %s created by quick play (%s)", rec.id, key)
    return {"id": rec.id, "seat": 0, "token": token, "link": seat_link(rec.id, token), "new": True}

@router.post("/api/games/status", response_model=responses.StatusBatch, response_model_exclude_unset=True)
async def api_status(body: StatusRequest, rooms: RoomsDep) -> dict[str, Any]:
    """Per (game, token): what that token grants there and whose turn it is. Nothing a token does
    not grant: no other token, no hidden card."""
    out = []
    for item in body.items:
        game_id = item.get("game") if isinstance(item, dict) else None
        token = item.get("token") if isinstance(item, dict) else None
        if not isinstance(game_id, str) or not isinstance(token, str):
            out.append({"error": "bad-item"})
            continue
        room = await rooms.get(game_id) if valid_game_id(game_id) else None
        if room is None:
            out.append({"game": game_id, "error": "no-game"})
            continue
        out.append(status_of(room, token))
    return {"items": out}
