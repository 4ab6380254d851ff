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
from typing import TYPE_CHECKING, Any

import tracklayer

if TYPE_CHECKING:
    from tracklayer.server.room import Room

STRIDE = 16  # positions kept per finished game: every STRIDE-th
CACHED_GAMES = 32  # finished games whose positions are kept


class Positions:
    """The positions of one finished game, every STRIDE-th kept, any other one replayed from them."""

    def __init__(self, setup: dict[str, Any], moves: list[str]) -> None:
        self.moves = moves
        game: tracklayer.Game = tracklayer.load_game({**setup, "moves": []})
        self.kept = [game.clone()]
        for i, text in enumerate(moves, 1):
            game.apply(text)
            if i % STRIDE == 0:
                self.kept.append(game.clone())

    def at(self, n: int) -> tracklayer.Game:
        game = self.kept[n // STRIDE].clone()
        for text in self.moves[n // STRIDE * STRIDE:n]:
            game.apply(text)
        return game


class Replays:
    """The positions of the finished games replayed lately (at most :data:`CACHED_GAMES`)."""

    def __init__(self, games: int = CACHED_GAMES) -> None:
        self.games = games
        self.cache: OrderedDict[str, Positions] = OrderedDict()

    async def position(self, room: Room, n: int) -> tracklayer.Game:
        """The game ``room`` after its first ``n`` moves (the game is over: its moves stay as they are)."""
        total = len(room.game.moves)
        positions = self.cache.get(room.id)
        if positions is None or len(positions.moves) != total:
            texts = [str(a) for a in room.game.moves]
            positions = await asyncio.to_thread(Positions, room.record.setup, texts)
            self.cache[room.id] = positions
            while len(self.cache) > self.games:
                self.cache.popitem(last=False)
        self.cache.move_to_end(room.id)
        return await asyncio.to_thread(positions.at, n)
