"""Prestige at the end of a round: connected players score the table's top value, the others by
the fewest rails they still miss.

"The fewest rails a player would still need" is the weight of a minimum Steiner tree over the
grid whose terminals are the player's start marker and their cities, where built lines cost 0 and
free lines their rail cost (1 single, 2 double; special cards 4 and 5 make some doubles cost 1).
``tracklayer.trans.steiner.min_steiner`` computes it exactly. Each player counts independently of
the others, and nothing is built.

The prestige tables are data (the board's table, cards 1 and 2), read by
:func:`parse_prestige_table`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from tracklayer.trans.steiner import min_steiner_many


@dataclass(frozen=True, slots=True)
class PrestigeTable:
    """``connected`` points for 0 missing rails; ``steps`` = ((from missing, points), ...) ascending."""

    connected: int
    steps: tuple[tuple[int, int], ...]

    def points(self, missing: int) -> int:
        if missing <= 0:
            return self.connected
        out = 0
        for lo, pts in self.steps:
            if missing >= lo:
                out = pts
            else:
                break
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"connected": self.connected, "missing": [list(s) for s in self.steps]}


def parse_prestige_table(raw: Any, where: str, error: type[Exception], connected: int | None = None
                         ) -> PrestigeTable:
    """Read ``{"connected": 4, "missing": [[1, 3], [2, 2], [3, 1], [5, 0]]}`` (``connected`` may be
    given by the caller instead: a special card keeps the board's value)."""
    if not isinstance(raw, dict):
        raise error(f"{where}: a prestige table is an object with 'missing'")
    conn = raw.get("connected", connected)
    if not isinstance(conn, int) or isinstance(conn, bool) or conn < 0:
        raise error(f"{where}: 'connected' must be a non-negative integer, got {conn!r}")
    steps = raw.get("missing")
    if not (isinstance(steps, list) and steps and all(
            isinstance(s, list) and len(s) == 2 and all(isinstance(v, int) and not isinstance(v, bool) for v in s)
            for s in steps)):
        raise error(f"{where}: 'missing' must be a non-empty list of [from missing rails, prestige] pairs")
    pairs = tuple((s[0], s[1]) for s in steps)
    if pairs[0][0] != 1 or any(b[0] <= a[0] for a, b in pairwise(pairs)):
        raise error(f"{where}: 'missing' must start at 1 missing rail and rise strictly, got {steps}")
    if any(p < 0 for _, p in pairs) or any(b[1] > a[1] for a, b in pairwise(pairs)):
        raise error(f"{where}: prestige may not be negative or grow with more missing rails, got {steps}")
    return PrestigeTable(conn, pairs)


def missing_rails(n_points: int, adjacency: Sequence[Sequence[tuple[int, int]]], line_cost: Sequence[int],
                  built: Sequence[bool], marker: int, city_points: Sequence[int]) -> tuple[int, list[int]]:
    """(fewest missing rails, line ids of one optimal set of missing lines) for one player.

    ``line_cost`` is the round's rail cost per line (after special cards), ``built`` marks the lines
    with a rail (any player's: every built rail may be used).
    """
    return missing_rails_many(n_points, adjacency, line_cost, built, [marker], [city_points])[0]


def missing_rails_many(n_points: int, adjacency: Sequence[Sequence[tuple[int, int]]], line_cost: Sequence[int],
                       built: Sequence[bool], markers: Sequence[int],
                       city_points: Sequence[Sequence[int]]) -> list[tuple[int, list[int]]]:
    """:func:`missing_rails` of several players (a marker and its cities each) in one
    :func:`min_steiner_many`: the built lines are contracted once, not once per player."""
    cost = [0 if b else c for b, c in zip(built, line_cost, strict=True)]
    sets = [[marker, *points] for marker, points in zip(markers, city_points, strict=True)]
    return min_steiner_many(n_points, adjacency, cost, sets)


@dataclass(frozen=True, slots=True)
class PlayerScore:
    connected: bool
    missing: int
    lines: tuple[int, ...]  # one optimal set of missing lines (empty when connected)
    prestige: int


def score_players(n_points: int, adjacency: Sequence[Sequence[tuple[int, int]]], line_cost: Sequence[int],
                  built: Sequence[bool], markers: Sequence[int], city_points: Sequence[Sequence[int]],
                  table: PrestigeTable) -> list[PlayerScore]:
    """Every player's round score; each counts on their own (nothing is built for anybody)."""
    return [PlayerScore(missing == 0, missing, tuple(lines), table.points(missing))
            for missing, lines in missing_rails_many(n_points, adjacency, line_cost, built, markers, city_points)]
