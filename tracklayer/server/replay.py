"""Finished games, move by move: the game record and the views of any position (``/replay/{id}``).

``GET /api/games/{id}/record`` answers a finished game's whole record in the ``Game.to_json()``
format (``tracklayer.load_game(record)`` rebuilds it, seed included). A game still running answers
409: its record would reveal the seed, and with it every hidden card and ticket, and a record
without the hidden parts would not be a record any more (a running game's public side is its
spectator view, ``/api/games/{id}/view`` with the spectator token, or the websocket).

``GET /api/games/{id}/replay?move=N&seat=S`` answers the view of seat ``S`` (omitted: the
spectator's) after the first ``N`` moves of a finished game: the engine's ``view(S)``, as the game
page gets it in play. Once a game is over nothing in it is secret, so any seat's eyes may be
borrowed, and these answers need no token: a replay is shared by its link.

Positions come from a small cache per game: every :data:`STRIDE`-th position is kept (a clone),
so a request replays at most ``STRIDE - 1`` moves however long the game, and stepping forward or
back costs a few engine moves.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, HTTPException

import tracklayer
from tracklayer.server.guard import valid_game_id

if TYPE_CHECKING:
    from tracklayer.server.rooms import Room, Rooms

STRIDE = 16  # positions kept per finished game: every STRIDE-th
CACHED_GAMES = 32  # finished games whose positions are kept


class Positions:
    """The positions of one finished game, every STRIDE-th kept, any other one replayed from them."""

    def __init__(self, setup: dict[str, Any], moves: list[str]) -> None:
        self.moves = moves
        game = tracklayer.load_game({**setup, "moves": []})
        self.kept = [game.clone()]
        for i, text in enumerate(moves, 1):
            game.apply(text)
            if i % STRIDE == 0:
                self.kept.append(game.clone())

    def at(self, n: int) -> Any:
        game = self.kept[n // STRIDE].clone()
        for text in self.moves[n // STRIDE * STRIDE:n]:
            game.apply(text)
        return game


def router(get_rooms: Callable[[], Rooms]) -> APIRouter:
    api = APIRouter()
    cache: OrderedDict[str, Positions] = OrderedDict()

    async def finished(game_id: str) -> Room:
        room = await get_rooms().get(game_id) if valid_game_id(game_id) else None
        if room is None:
            raise HTTPException(404, "no such game")
        if room.broken:
            raise HTTPException(409, room.broken)
        if not room.game.is_over:
            raise HTTPException(409, "the game is still running: its record and replay open once it is over")
        return room

    @api.get("/api/games/{game_id}/record")
    async def api_record(game_id: str) -> dict[str, Any]:
        room = await finished(game_id)
        return room.game.to_json()

    @api.get("/api/games/{game_id}/replay")
    async def api_replay(game_id: str, move: int | None = None, seat: int | None = None) -> dict[str, Any]:
        room = await finished(game_id)
        g = room.game
        total = len(g.moves)
        n = total if move is None else move
        if not 0 <= n <= total:
            raise HTTPException(400, f"'move' is a number of moves from 0 to {total}")
        if seat is not None and not 0 <= seat < g.n_players:
            raise HTTPException(400, f"'seat' is a seat number from 0 to {g.n_players - 1} (none: the spectator)")
        positions = cache.get(game_id)
        if positions is None or len(positions.moves) != total:
            texts = [str(a) for a in g.moves]
            positions = await asyncio.to_thread(Positions, room.record.setup, texts)
            cache[game_id] = positions
            while len(cache) > CACHED_GAMES:
                cache.popitem(last=False)
        cache.move_to_end(game_id)
        game = await asyncio.to_thread(positions.at, n)
        return {"game_id": room.id, "game": room.record.game, "variant": room.record.variant, "move": n,
                "moves": total, "seat": seat, "seats": [{"seat": i, "name": s["name"], "kind": s["kind"]}
                                                      for i, s in enumerate(room.record.seats)],
                "last": positions.moves[n - 1] if n else None, "over": game.is_over, "view": game.view(seat)}

    return api
