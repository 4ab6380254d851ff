"""Finished games, move by move (tracklayer.server.replay): the record, any position's view, the page."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException
from fastapi.responses import FileResponse, HTMLResponse

from tracklayer.server import responses
from tracklayer.server.deps import ReplaysDep, RoomDep, StaticDep
from tracklayer.server.room import Room

router = APIRouter(tags=["replays"])


def finished(room: Room) -> Room:
    """The game if it is over; 409 while it runs (its record would reveal the seed) or if it is broken."""
    if room.broken:
        raise HTTPException(409, room.broken)
    if not room.game.is_over:
        raise HTTPException(409, "the game is still running: its record and replay open once it is over")
    return room


@router.get("/replay/{game_id}", response_class=HTMLResponse)
async def replay_page(game_id: str, static: StaticDep) -> FileResponse:
    return FileResponse(static / "replay.html", media_type="text/html")


@router.get("/api/games/{game_id}/record", response_model=responses.GameRecordDoc)
async def api_record(room: RoomDep) -> dict[str, Any]:
    return finished(room).game.to_json()


@router.get("/api/games/{game_id}/replay", response_model=responses.ReplayPosition)
async def api_replay(room: RoomDep, replays: ReplaysDep, move: int | None = None,
                     seat: int | None = None) -> dict[str, Any]:
    g = finished(room).game
    total = len(g.moves)
    n = total if move is None else move
    if not 0 <= n <= total:
        raise HTTPException(400, f"'move' is a number of moves from 0 to {total}")
    if seat is not None and not 0 <= seat < g.n_players:
        raise HTTPException(400, f"'seat' is a seat number from 0 to {g.n_players - 1} (none: the spectator)")
    game = await replays.position(room, n)
    return {"game_id": room.id, "game": room.record.game, "variant": room.record.variant, "move": n,
            "moves": total, "seat": seat, "seats": [{"seat": i, "name": s["name"], "kind": s["kind"]}
                                                  for i, s in enumerate(room.record.seats)],
            "last": str(g.moves[n - 1]) if n else None, "over": game.is_over, "view": game.view(seat)}
