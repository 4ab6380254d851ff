"""Seats changing hands (tracklayer.server.clocks): resigning, taking a seat back, handing it to a bot."""

from __future__ import annotations

import math
import secrets
from typing import Any

from fastapi import APIRouter, Header, HTTPException

from tracklayer.server import responses
from tracklayer.server.clocks import Control
from tracklayer.server.deps import RoomsDep, get_room

router = APIRouter(tags=["seats"])


@router.post("/api/games/{game_id}/seats/{seat}/{what}",
             response_model=responses.SeatChanged, response_model_exclude_unset=True)
async def seat_change(game_id: str, seat: int, what: str, rooms: RoomsDep,
                      authorization: str | None = Header(default=None)) -> dict[str, Any]:
    """The seat's own token resigns or takes back; a handover takes the creator's token (any seat
    whose player is not connected) or another seat's token (a seat that ran out its time or stayed
    away, ``Room.handover_in``)."""
    if what not in ("resign", "takeback", "handover"):
        raise HTTPException(404, "seat actions: resign, takeback, handover")
    room = await get_room(game_id, rooms)
    c: Control | None = getattr(room, "control", None)
    if c is None:
        raise HTTPException(409, "this game was created before seats could change hands")
    if not 0 <= seat < len(room.record.seats) or room.record.seats[seat]["kind"] != "human":
        raise HTTPException(400, "'seat' must be the number of a human seat")
    token = (authorization or "").removeprefix("Bearer ").strip()
    if what == "handover" and token.isascii() and secrets.compare_digest(c.creator, token):
        if any(seat in conn.access.seats and conn.access.role == "seat" for conn in room.connections):
            raise HTTPException(409, "that player is connected: only an empty or absent seat can be handed over")
    elif what == "handover":  # another seated player, once the seat has timed out or stayed away
        access = room.access(token)
        if access is None or access.role != "seat":
            raise HTTPException(403, "hand a seat to a bot with the game's creator token or another seat's token")
        if seat in access.seats:
            raise HTTPException(409, "a player does not hand their own seat to a bot: resign instead")
        room.note_presence()  # away since when, as of now
        wait = room.handover_in(seat)
        name = room.record.seats[seat]["name"]
        if wait is None:
            raise HTTPException(409, f"{name}'s seat cannot be handed over: its player is here, a bot plays "
                                     "it, or (on a turn-based clock) it has not run out of time")
        if wait > 0:
            raise HTTPException(409, f"{name} has been away for less than {room.away_limit:g} s: "
                                     f"{math.ceil(wait)} s to go")
    else:
        access = room.access(token)
        if access is None or seat not in access.seats:
            raise HTTPException(403, "send the seat's own token as 'Authorization: Bearer TOKEN'")
    try:
        await rooms.clocks.change(room, seat, what)
    except ValueError as exc:
        raise HTTPException(409, str(exc)) from None
    return {"ok": True, "seat": seat, **c.seat_flags(seat)}
