"""A simple Trans Europa / Trans America opponent for terminal play, used until ``tracklayer.bots`` has one.

It reads only its seat's view (its own cities, the rails, the hint of one optimal set of missing
lines) and the static board, like every bot:

* start marker: on the own city from which the fewest rails join all the others (exact Steiner);
* rails: a legal rail on the view's optimal missing lines, else ``end`` (rather than waste a rail),
  else any legal rail (a rail must be placed when one can be);
* returning or passing a city card: the card whose loss leaves the cheapest set of cities to join.

Uniformly random rails almost never connect anybody, so against the random bot a Trans game may
go on for a long time; this bot joins its cities in a dozen turns and makes a game of it.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from tracklayer.trans.board import Board, load_board
from tracklayer.trans.steiner import SteinerInfeasibleError, min_steiner


class TransSimpleBot:
    name = "simple"

    def __init__(self, seed: int | str | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: dict[str, Any], legal: Sequence[Any], budget: Any = None) -> Any:
        if not len(legal):
            raise ValueError("TransSimpleBot.choose: no legal action to choose from")
        try:
            board = load_board(view["game"])
        except Exception:  # a custom map file the bot cannot load by name: play at random
            return legal[self.rng.randrange(len(legal))]
        kinds = {a.kind for a in legal}
        if "start" in kinds:
            return self._start(board, view, legal)
        if "rail" in kinds or "end" in kinds:
            return self._rail(view, legal)
        if kinds & {"return", "give"}:
            return self._city(board, view, legal)
        return legal[self.rng.randrange(len(legal))]

    # ------------------------------------------------------------------ helpers
    def _costs(self, board: Board, view: dict[str, Any]) -> list[int]:
        cost = list(board.edge_cost)
        for r in view["rails"]:
            a, b = r["line"].split("-")
            e = board.edge(board.parse_point(a), board.parse_point(b))
            if e is not None:
                cost[e] = 0
        return cost

    def _tree(self, board: Board, cost: list[int], points: list[int]) -> int:
        try:
            return min_steiner(board.n_points, board.adjacency, cost, points)[0]
        except SteinerInfeasibleError:
            return 1 << 20

    def _start(self, board: Board, view: dict[str, Any], legal: Sequence[Any]) -> Any:
        free = {a.point: a for a in legal if a.kind == "start"}
        mine = [board.parse_point(c["point"]) for c in view.get("cities", [])]
        options = [p for p in mine if p in free]
        if not options:
            return legal[self.rng.randrange(len(legal))]
        cost = self._costs(board, view)
        scored = [(self._tree(board, cost, [p, *mine]), self.rng.random(), p) for p in options]
        return free[min(scored)[2]]

    def _rail(self, view: dict[str, Any], legal: Sequence[Any]) -> Any:
        wanted = set(view.get("missing_lines") or ())
        good = [a for a in legal if a.kind == "rail" and str(a).split(" ", 1)[1] in wanted]
        if good:
            return good[self.rng.randrange(len(good))]
        for a in legal:
            if a.kind in ("end", "pass"):
                return a
        return legal[self.rng.randrange(len(legal))]

    def _city(self, board: Board, view: dict[str, Any], legal: Sequence[Any]) -> Any:
        cost = self._costs(board, view)
        points = {c["name"]: board.parse_point(c["point"]) for c in view.get("cities", [])}
        scored = []
        for a in legal:
            name = str(a).split(" ", 1)[1]
            rest = [p for n, p in points.items() if n != name]
            scored.append((self._tree(board, cost, rest) if len(rest) > 1 else 0, self.rng.random(), a))
        return min(scored, key=lambda t: (t[0], t[1]))[2]
