"""Trans Europa / Trans America boards: the triangular grid validated into integer-indexed tables.

A board is a set of grid points ``[x, row]`` (point ids = their order in the data file), the lines
between neighbouring points (edge ids = their order in the file) with their rail cost (1 single,
2 double) and terrain, and 35 cities on points, each with a card colour and the flag that removes it
with 2 or 3 players. Names are resolved once here; the engine works on ints. Every problem in a map
file raises :class:`MapError` naming the file, the entry and the problem.

Points are written ``x,row`` (``12,5``) in the notation; :meth:`Board.parse_point` also accepts
``(12, 5)`` and ``[12,5]``.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tracklayer.core.errors import MapError, NotationError
from tracklayer.core.names import NameIndex
from tracklayer.maps.loader import get_field, load_cached, need, read_header
from tracklayer.trans.scoring import PrestigeTable, parse_prestige_table

if TYPE_CHECKING:
    from tracklayer.trans.actions import ActionTable

TERRAINS = ("water", "mountain", "ferry", "tunnel")
_POINT = re.compile(r"^\s*[(\[]?\s*(-?\d+)\s*,\s*(-?\d+)\s*[)\]]?\s*$")


@dataclass(frozen=True, slots=True)
class City:
    index: int
    name: str
    color: int
    point: int
    small_game: bool  # still used with 2-3 players (not flagged removed_with_2_3_players)


@dataclass(eq=False)
class Board:
    key: str
    name: str
    source: str
    min_players: int
    max_players: int
    xy: tuple[tuple[int, int], ...]  # point id -> (x, row)
    edge_a: tuple[int, ...]  # edge id -> lower point id
    edge_b: tuple[int, ...]  # edge id -> higher point id
    edge_cost: tuple[int, ...]  # 1 single, 2 double
    edge_terrain: tuple[str | None, ...]
    colors: tuple[str, ...]
    cities: tuple[City, ...]
    city_index: NameIndex
    rails: int
    rails_per_turn: int
    prestige: PrestigeTable
    goal: int
    point_of: Mapping[tuple[int, int], int] = field(init=False)
    adjacency: tuple[tuple[tuple[int, int], ...], ...] = field(init=False)  # point -> ((neighbour, edge), ...)
    lines_at: tuple[tuple[int, ...], ...] = field(init=False)  # point -> its lines (the edges of ``adjacency``)
    edge_between: Mapping[tuple[int, int], int] = field(init=False)  # (low point, high point) -> edge
    city_at: tuple[int, ...] = field(init=False)  # point -> city index or -1
    city_by_name: Mapping[str, int] = field(init=False)
    city_color: tuple[int, ...] = field(init=False)  # city index -> colour index
    terrains: frozenset[str] = field(init=False)  # terrains of the double lines
    _actions: ActionTable | None = field(default=None, init=False, repr=False)
    _city_dist: list[list[int]] | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        self.point_of = {xy: i for i, xy in enumerate(self.xy)}
        adj: list[list[tuple[int, int]]] = [[] for _ in self.xy]
        between: dict[tuple[int, int], int] = {}
        for e, (a, b) in enumerate(zip(self.edge_a, self.edge_b, strict=True)):
            adj[a].append((b, e))
            adj[b].append((a, e))
            between[(a, b)] = e
        self.adjacency = tuple(tuple(x) for x in adj)
        self.lines_at = tuple(tuple(e for _, e in x) for x in adj)
        self.edge_between = between
        at = [-1] * len(self.xy)
        for c in self.cities:
            at[c.point] = c.index
        self.city_at = tuple(at)
        self.city_by_name = {c.name: c.index for c in self.cities}
        self.city_color = tuple(c.color for c in self.cities)
        self.terrains = frozenset(t for t, c in zip(self.edge_terrain, self.edge_cost, strict=True)
                                  if t is not None and c == 2)

    @property
    def n_points(self) -> int:
        return len(self.xy)

    @property
    def n_edges(self) -> int:
        return len(self.edge_a)

    @property
    def actions(self) -> ActionTable:
        """The board's interned action table (see ``trans.actions``), built on first use."""
        if self._actions is None:
            from tracklayer.trans.actions import ActionTable

            self._actions = ActionTable(self)
        return self._actions

    # ------------------------------------------------------------------ points and lines as text
    def distances_from(self, src: int) -> list[int]:
        """Fewest rails from point ``src`` to every point on an empty board (a double line counts 2)."""
        dist = [1 << 30] * len(self.xy)
        dist[src] = 0
        heap = [(0, src)]
        while heap:
            d, p = heapq.heappop(heap)
            if d > dist[p]:
                continue
            for q, e in self.adjacency[p]:
                nd = d + self.edge_cost[e]
                if nd < dist[q]:
                    dist[q] = nd
                    heapq.heappush(heap, (nd, q))
        return dist

    def city_distances(self) -> list[list[int]]:
        """``distances_from`` each city's point, by city index (computed once per board)."""
        if self._city_dist is None:
            self._city_dist = [self.distances_from(c.point) for c in self.cities]
        return self._city_dist

    def point_text(self, p: int) -> str:
        x, row = self.xy[p]
        return f"{x},{row}"

    def edge_text(self, e: int) -> str:
        return f"{self.point_text(self.edge_a[e])}-{self.point_text(self.edge_b[e])}"

    def parse_point(self, text: str) -> int:
        """``12,5`` (or ``(12, 5)``) -> point id; NotationError when malformed or not on the board."""
        m = _POINT.match(text)
        if not m:
            raise NotationError(f"a grid point is written x,row (e.g. 12,5), got {text.strip()!r}")
        xy = (int(m.group(1)), int(m.group(2)))
        p = self.point_of.get(xy)
        if p is None:
            raise NotationError(f"{xy[0]},{xy[1]} is not a point of the {self.name} board")
        return p

    def point_from_pair(self, value: Any) -> int | None:
        """``[x, row]`` -> point id, or None when it is not a point of this board."""
        if (isinstance(value, (list, tuple)) and len(value) == 2
                and all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
            return self.point_of.get((value[0], value[1]))
        return None

    def edge(self, a: int, b: int) -> int | None:
        """The line between two points, or None when they are not neighbours."""
        return self.edge_between.get((a, b) if a < b else (b, a))

    def city(self, text: str) -> int:
        """City index by name or alias (case and accents ignored); UnknownName with suggestions."""
        return self.city_by_name[self.city_index.resolve(text.strip())]

    def city_names(self, cities: Sequence[int]) -> list[str]:
        return [self.cities[c].name for c in cities]

    def cities_for(self, n_players: int) -> list[list[int]]:
        """City indices per colour used with ``n_players`` (2-3 players: the flagged ones are out)."""
        small = n_players <= 3
        return [[c.index for c in self.cities if c.color == col and (c.small_game or not small)]
                for col in range(len(self.colors))]


_BOARDS: dict[str, Board] = {}


def load_board(name_or_path: str | Path) -> Board:
    """Load and validate a Trans map (built-in name or JSON path); parsed once per process."""
    return load_cached(name_or_path, board_from_data, _BOARDS)


def _pair(value: Any, where: str) -> tuple[int, int]:
    need(isinstance(value, list) and len(value) == 2
         and all(isinstance(v, int) and not isinstance(v, bool) for v in value),
         where, f"a point is [x, row] with two integers, got {value!r}")
    return value[0], value[1]


def board_from_data(data: Mapping[str, Any], source: str, key: str) -> Board:
    """Validate raw map data; every error names the file, the entry and the problem."""
    top = source
    name, min_p, max_p = read_header(data, top, "trans", "Trans Europa / Trans America")

    raw_points = get_field(data, "points", top, list)
    xy: list[tuple[int, int]] = []
    seen: dict[tuple[int, int], int] = {}
    for i, raw in enumerate(raw_points):
        p = _pair(raw, f"{top}: points[{i}]")
        need(p not in seen, f"{top}: points[{i}] {list(p)}", f"duplicate of points[{seen.get(p)}]")
        seen[p] = i
        xy.append(p)
    need(len(xy) >= 2, top, "a board needs at least 2 points")

    raw_edges = get_field(data, "edges", top, list)
    ea: list[int] = []
    eb: list[int] = []
    costs: list[int] = []
    terrain: list[str | None] = []
    lines: dict[tuple[int, int], int] = {}
    for i, raw in enumerate(raw_edges):
        where = f"{top}: edges[{i}]"
        need(isinstance(raw, dict), where, "must be an object")
        a, b = _pair(raw.get("a"), f"{where}.a"), _pair(raw.get("b"), f"{where}.b")
        where = f"{top}: edges[{i}] ({a[0]},{a[1]}-{b[0]},{b[1]})"
        need(a in seen, where, f"point {a[0]},{a[1]} is not in 'points'")
        need(b in seen, where, f"point {b[0]},{b[1]} is not in 'points'")
        dx, dy = abs(a[0] - b[0]), abs(a[1] - b[1])
        need((dx, dy) in ((2, 0), (1, 1)), where, "a line must join neighbouring grid points "
             "((x+-2,row) or (x+-1,row+-1))")
        pa, pb = sorted((seen[a], seen[b]))
        need((pa, pb) not in lines, where, f"duplicate of edges[{lines.get((pa, pb))}]")
        lines[(pa, pb)] = i
        cost = get_field(raw, "cost", where, int)
        need(cost in (1, 2), where, f"cost must be 1 (single) or 2 (double), got {cost}")
        ter = raw.get("terrain")
        need(ter is None or ter in TERRAINS, where, f"terrain must be null or one of {', '.join(TERRAINS)}, "
             f"got {ter!r}")
        ea.append(pa)
        eb.append(pb)
        costs.append(cost)
        terrain.append(ter)
    # the whole grid must hang together: missing-rail counts need a path between any two points
    parent = list(range(len(xy)))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for pa, pb in zip(ea, eb, strict=True):
        parent[find(pa)] = find(pb)
    loose = [i for i in range(len(xy)) if find(i) != find(0)]
    need(not loose, f"{top}: edges", f"the grid is not connected: point {xy[loose[0]][0]},{xy[loose[0]][1]} "
         "cannot be reached from the others" if loose else "")

    colors = tuple(get_field(data, "colors", top, list))
    need(len(colors) >= 1 and all(isinstance(c, str) and c for c in colors) and len(set(colors)) == len(colors),
         f"{top}: colors", "must be a list of distinct colour names")
    color_ix = {c: i for i, c in enumerate(colors)}

    raw_cities = get_field(data, "cities", top, list)
    cities: list[City] = []
    alias_entries: list[tuple[str, list[str]]] = []
    on_point: dict[int, str] = {}
    for i, c in enumerate(raw_cities):
        where = f"{top}: cities[{i}]"
        need(isinstance(c, dict), where, "must be an object")
        cname = get_field(c, "name", where, str)
        where = f"{top}: cities[{i}] ({cname})"
        need(bool(cname) and cname.strip() == cname and not any(ch in cname for ch in "-;:,")
             and not cname[0].isdigit(), where,
             "a city name may not be empty, start with a digit or contain '-', ';', ':' or ',' "
             "(they separate names and points in the notation)")
        col = get_field(c, "color", where, str)
        need(col in color_ix, where, f"colour {col!r} is not one of {', '.join(colors)}")
        p = _pair(c.get("point"), f"{where}.point")
        need(p in seen, where, f"point {p[0]},{p[1]} is not on the board")
        need(seen[p] not in on_point, where, f"point {p[0]},{p[1]} already holds {on_point.get(seen[p])}")
        on_point[seen[p]] = cname
        removed = c.get("removed_with_2_3_players", False)
        need(isinstance(removed, bool), where, f"removed_with_2_3_players must be true or false, got {removed!r}")
        aliases = c.get("aliases", [])
        need(isinstance(aliases, list) and all(isinstance(a, str) for a in aliases), where,
             "aliases must be a list of strings")
        cities.append(City(i, cname, color_ix[col], seen[p], not removed))
        alias_entries.append((cname, aliases))
    try:
        index = NameIndex("city", alias_entries)
    except ValueError as exc:
        raise MapError(f"{top}: cities: {exc}") from exc
    for col, cname in enumerate(colors):
        full = sum(1 for c in cities if c.color == col)
        small = sum(1 for c in cities if c.color == col and c.small_game)
        need(full >= max_p, f"{top}: cities", f"colour {cname} has {full} cities, fewer than {max_p} players")
        need(min_p > 3 or small >= min(3, max_p), f"{top}: cities",
             f"colour {cname} keeps {small} cities with 2-3 players, fewer than 3")

    rails = get_field(data, "rails", top, int)
    need(rails > 0, top, f"rails must be positive, got {rails}")
    per_turn = data.get("rails_per_turn", 2)
    need(isinstance(per_turn, int) and not isinstance(per_turn, bool) and per_turn >= 1, top,
         f"rails_per_turn must be a positive integer, got {per_turn!r}")
    need(per_turn >= max(costs, default=1), top,
         f"rails_per_turn ({per_turn}) must reach the dearest line's cost ({max(costs, default=1)}): a double line "
         "uses a whole turn, and with fewer rails per turn it could never be built")
    prestige_raw = get_field(data, "prestige", top, dict)
    table = parse_prestige_table(prestige_raw, f"{top}: prestige", MapError)
    goal = get_field(prestige_raw, "goal", f"{top}: prestige", int)
    need(goal > 0, f"{top}: prestige", f"goal must be positive, got {goal}")
    return Board(
        key=key, name=name, source=source, min_players=min_p, max_players=max_p, xy=tuple(xy),
        edge_a=tuple(ea), edge_b=tuple(eb), edge_cost=tuple(costs), edge_terrain=tuple(terrain),
        colors=colors, cities=tuple(cities), city_index=index, rails=rails, rails_per_turn=per_turn,
        prestige=table, goal=goal,
    )
