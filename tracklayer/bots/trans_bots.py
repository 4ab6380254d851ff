"""Trans Europa / Trans America bots: a cheapest-Steiner builder and a one-move lookahead.

Both see only ``(view, legal)``. The board (public data) comes from the game name in the view.

* ``steiner``: puts its start marker on a city of its own cheapest Steiner tree (so no rail is
  wasted reaching the start), then each rail goes on a line of an optimal tree for its remaining
  cities (the view's ``missing_lines`` hint, an exact ``min_steiner`` tree where every built rail is
  free); special-card choices give away the city that costs most to reach.
* ``lookahead``: the same plan, but among the rails that keep its own missing count minimal it
  picks the one that helps the opponents least. Opponents' cities are hidden: it samples them
  (one city of each colour, from the cities it cannot see) a few times and averages how much each
  candidate rail shortens their trees. The start marker is chosen the same way.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, ClassVar

from tracklayer.bots.base import Budget, move_seed
from tracklayer.bots.random_bot import RandomBot
from tracklayer.trans.board import Board, load_board
from tracklayer.trans.steiner import SteinerInfeasibleError, min_steiner

_BIG = 10_000


class TransInfo:
    """Lookups of one Trans board: point and line texts to ids."""

    _cache: ClassVar[dict[str, TransInfo]] = {}

    def __init__(self, board: Board) -> None:
        self.board = board
        self.point_id = {board.point_text(p): p for p in range(board.n_points)}
        self.edge_id = {board.edge_text(e): e for e in range(board.n_edges)}
        self.cost = list(board.edge_cost)

    @classmethod
    def get(cls, game: str) -> TransInfo:
        info = cls._cache.get(game)
        if info is None:
            info = cls._cache[game] = TransInfo(load_board(game))
        return info

    def steiner(self, built: set[int], terminals: list[int], extra: int = -1) -> tuple[int, list[int]]:
        """Fewest rails still needed to join ``terminals`` when ``built`` (and ``extra``) lines exist."""
        b = self.board
        cost: list[int | None] = [0 if (e in built or e == extra) else c for e, c in enumerate(self.cost)]
        try:
            return min_steiner(b.n_points, b.adjacency, cost, sorted(set(terminals)))
        except SteinerInfeasibleError:
            return _BIG, []


class SteinerBot:
    """Builds an optimal Steiner tree for its own cities (see the module doc)."""

    name = "steiner"
    lookahead = False

    def __init__(self, seed: int | str | None = None, samples: int = 3) -> None:
        self.seed = seed
        self.samples = samples

    def choose(self, view: dict[str, Any], legal: Sequence[Any], budget: Budget | None = None) -> Any:
        if len(legal) == 1:
            return legal[0]
        info = TransInfo.get(view["game"])
        kinds = {a.kind for a in legal}
        if "start" in kinds:
            return self._start(view, legal, info)
        if kinds & {"return", "give"}:
            return self._give(view, legal, info)
        return self._rail(view, legal, info)

    # ------------------------------------------------------------------ helpers
    def _my_points(self, view: dict[str, Any], info: TransInfo) -> list[int]:
        return [info.point_id[c["point"]] for c in view.get("cities", [])]

    def _built(self, view: dict[str, Any], info: TransInfo) -> set[int]:
        return {info.edge_id[r["line"]] for r in view.get("rails", [])}

    def _marker(self, view: dict[str, Any], info: TransInfo, seat: int) -> int:
        start = view["players"][seat].get("start")
        return -1 if start is None else info.point_id[start]

    def _opponent_samples(self, view: dict[str, Any], info: TransInfo, rng: random.Random) -> list[list[list[int]]]:
        """Sampled city points of each opponent: one per colour they hold, from the unseen cities."""
        b = info.board
        mine = {b.city_by_name[c["name"]] for c in view.get("cities", [])}
        n = len(view["players"])
        pools: dict[str, list[int]] = {}
        for col_idx, cities in enumerate(b.cities_for(n)):
            pools[b.colors[col_idx]] = [c for c in cities if c not in mine]
        out = []
        for _ in range(self.samples):
            taken: set[int] = set()
            sample: list[list[int]] = []
            for q, p in enumerate(view["players"]):
                if q == view["seat"]:
                    sample.append([])
                    continue
                pts = []
                open_cities = set(p.get("open_cities", []))
                for name in open_cities:
                    c = b.city_by_name.get(name)
                    if c is not None:
                        taken.add(c)
                        pts.append(b.cities[c].point)
                for color in p.get("card_colors", []):
                    choices = [c for c in pools.get(color, []) if c not in taken
                               and b.cities[c].name not in open_cities]
                    if choices and len(pts) < len(p.get("card_colors", [])):
                        c = rng.choice(choices)
                        taken.add(c)
                        pts.append(b.cities[c].point)
                marker = self._marker(view, info, q)
                if marker >= 0:
                    pts.append(marker)
                sample.append(pts)
            out.append(sample)
        return out

    # ------------------------------------------------------------------ decisions
    def _start(self, view: dict[str, Any], legal: Sequence[Any], info: TransInfo) -> Any:
        b = info.board
        points = self._my_points(view, info)
        by_point = {a.point: a for a in legal}
        built = self._built(view, info)
        _, tree = info.steiner(built, points)
        on_tree = {b.edge_a[e] for e in tree} | {b.edge_b[e] for e in tree} | set(points)
        options = [p for p in on_tree if p in by_point] or [p for p in points if p in by_point]
        if not options:
            return legal[0]
        if self.lookahead and len(options) > 1:
            rng = random.Random(move_seed(self.seed, view, "start"))
            samples = self._opponent_samples(view, info, rng)

            def help_others(p: int) -> float:
                # a start far from where opponents will build shares less of our rails
                total = 0.0
                for sample in samples:
                    for pts in sample:
                        if pts:
                            total += min(abs(b.xy[p][0] - b.xy[q][0]) + abs(b.xy[p][1] - b.xy[q][1]) for q in pts)
                return -total

            options.sort(key=lambda p: (help_others(p), p))
            return by_point[options[0]]
        # the city of the tree nearest its middle: the network grows from the centre
        cx = sum(b.xy[p][0] for p in points) / len(points)
        cy = sum(b.xy[p][1] for p in points) / len(points)
        cities = [p for p in options if p in points] or options
        return by_point[min(cities, key=lambda p: ((b.xy[p][0] - cx) ** 2 + (b.xy[p][1] - cy) ** 2, p))]

    def _give(self, view: dict[str, Any], legal: Sequence[Any], info: TransInfo) -> Any:
        """Return or pass the city whose removal shortens our own tree most."""
        b = info.board
        built = self._built(view, info)
        me = view["seat"]
        marker = self._marker(view, info, me)
        points = {b.city_by_name[c["name"]]: info.point_id[c["point"]] for c in view.get("cities", [])}

        def after(action: Any) -> int:
            rest = [p for c, p in points.items() if c != action.city]
            if marker >= 0:
                rest.append(marker)
            return info.steiner(built, rest)[0] if len(rest) > 1 else 0

        return min(legal, key=lambda a: (after(a), a.city))

    def _rail(self, view: dict[str, Any], legal: Sequence[Any], info: TransInfo) -> Any:
        rails = {a.line: a for a in legal if a.kind == "rail"}
        end = next((a for a in legal if a.kind == "end"), None)
        if not rails:
            return end or legal[0]
        me = view["seat"]
        built = self._built(view, info)
        terminals = self._my_points(view, info)
        marker = self._marker(view, info, me)
        if marker >= 0:
            terminals.append(marker)
        if "missing_lines" in view:
            base = view["missing_rails"]
            tree = {info.edge_id[t] for t in view["missing_lines"]}
        else:
            base, tree_list = info.steiner(built, terminals)
            tree = set(tree_list)
        good = [e for e in rails if e in tree]
        if not good:
            # no tree line is reachable this turn: take the rail that lowers our count most, or stop
            scored = sorted((info.steiner(built, terminals, e)[0], e) for e in rails)
            if scored and scored[0][0] < base:
                good = [e for s, e in scored if s == scored[0][0]]
            elif end is not None:
                return end
            else:
                good = [scored[0][1]]
        if self.lookahead and len(good) > 1:
            rng = random.Random(move_seed(self.seed, view, "rail"))
            samples = self._opponent_samples(view, info, rng)
            best_gain = {e: 0.0 for e in good}
            for sample in samples:
                for pts in sample:
                    if len(pts) < 2:
                        continue
                    before = info.steiner(built, pts)[0]
                    for e in good:
                        best_gain[e] += before - info.steiner(built, pts, e)[0]
            good.sort(key=lambda e: (best_gain[e], e))
            return rails[good[0]]
        # otherwise: the tree line nearest our network's cheapest end first (lowest id for determinism)
        return rails[min(good, key=lambda e: (-info.cost[e], e))]


class LookaheadBot(SteinerBot):
    name = "lookahead"
    lookahead = True


TRANS_BOTS = {
    "random": RandomBot,
    "steiner": SteinerBot,
    "lookahead": LookaheadBot,
}
