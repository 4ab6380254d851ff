"""Final scoring of a Ticket to Ride position, with the full per-player breakdown.

Works on a *position* (who owns which route, who built which station, who holds which ticket)
rather than on a game, so the same code scores engine games and games played on a real table.
The optimisations the rules ask for are exact: the longest trail (``trail.py``) and the station
assignment that maximises each player's ticket points (``stations.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tracklayer.ttr.board import Board
from tracklayer.ttr.stations import best_station_assignment
from tracklayer.ttr.trail import longest_trail

TIEBREAKS = ("classic", "anniversary-de")


@dataclass(frozen=True, slots=True)
class HeldTicket:
    """A ticket in a player's hand: ``id`` may be empty for tickets typed in by points only."""

    a: int
    b: int
    points: int
    id: str = ""


def joined_pairs(board: Board, routes: Sequence[int], pairs: Sequence[tuple[int, int]]) -> list[bool]:
    """Per ``(city, city)`` pair: do ``routes`` join them?

    The components of the cities the routes touch only (a player owns a few dozen routes at most), as
    views ask for it after every claim: each city maps to its component's set, a route joining two
    components moves the smaller one into the larger (no per-city function calls).
    """
    if not pairs:
        return []
    comp: dict[int, set[int]] = {}
    get = comp.get
    all_routes = board.routes
    for r in routes:
        route = all_routes[r]
        a, b = route.a, route.b
        ca, cb = get(a), get(b)
        if ca is None:
            if cb is None:
                comp[a] = comp[b] = {a, b}
            else:
                cb.add(a)
                comp[a] = cb
        elif cb is None:
            ca.add(b)
            comp[b] = ca
        elif ca is not cb:
            if len(ca) < len(cb):
                ca, cb = cb, ca
            ca |= cb
            for city in cb:
                comp[city] = ca
    return [a == b or _same_component(comp, a, b) for a, b in pairs]


def _same_component(comp: dict[int, set[int]], a: int, b: int) -> bool:
    # a helper, not an inline ``a in comp and comp.get(b) is comp[a]``: Cython 3.1-3.3 miscompiles that
    # expression inside ``x or (...)`` (a C int passed on as an object pointer; a crash)
    ca = comp.get(a)
    return ca is not None and comp.get(b) is ca


def score_position(
    board: Board,
    names: Sequence[str],
    route_owner: Sequence[int],
    station_owner: Sequence[int],
    tickets: Sequence[Sequence[HeldTicket]],
    tiebreak: str = "classic",
) -> dict[str, Any]:
    """JSON-ready final scores: per-player breakdown, ranks, winners and the tie-break that decided."""
    if tiebreak not in TIEBREAKS:
        raise ValueError(f"unknown tiebreak {tiebreak!r}; choose one of {', '.join(TIEBREAKS)}")
    n = len(names)
    feats = board.features
    owned: list[list[int]] = [[] for _ in range(n)]
    for ri, p in enumerate(route_owner):
        if p >= 0:
            owned[p].append(ri)
    built: list[list[int]] = [[] for _ in range(n)]
    for city, p in enumerate(station_owner):
        if p >= 0:
            built[p].append(city)

    players: list[dict[str, Any]] = []
    for p in range(n):
        routes = owned[p]
        own_edges = [(board.routes[r].a, board.routes[r].b) for r in routes]
        held = tickets[p]
        tix = [(t.a, t.b, t.points) for t in held]
        options = [
            [(board.routes[r].a, board.routes[r].b, r) for r in board.city_routes[city]
             if route_owner[r] >= 0 and route_owner[r] != p]
            for city in built[p]
        ]
        choice = best_station_assignment(own_edges, options, tix)
        entry: dict[str, Any] = {
            "name": names[p],
            "seat": p,
            "route_points": sum(board.route_score[r] for r in routes),
            "routes": [board.route_label(r) for r in routes],
            "wagons_used": sum(board.routes[r].length for r in routes),
            "ticket_points": choice.ticket_points,
            "completed_tickets": sum(choice.completed),
            "failed_tickets": len(held) - sum(choice.completed),
            "tickets": [
                {"id": t.id, "from": board.cities[t.a], "to": board.cities[t.b], "points": t.points,
                 "completed": done}
                for t, done in zip(held, choice.completed, strict=True)
            ],
        }
        if feats.stations:
            entry["stations_built"] = len(built[p])
            entry["station_points"] = board.unused_station_points * (board.stations - len(built[p]))
            entry["stations"] = [
                {"city": board.cities[c], "borrows": None if r is None else board.route_label(r)}
                for c, r in zip(built[p], choice.borrowed, strict=True)
            ]
        if feats.longest_path:
            length, path = longest_trail([(board.routes[r].a, board.routes[r].b, board.routes[r].length)
                                          for r in routes])
            entry["longest_path"] = length
            entry["longest_path_routes"] = [board.route_label(routes[i]) for i in path]
        if feats.attractions:
            touched = sorted({c for r in routes for c in (board.routes[r].a, board.routes[r].b)} & board.attractions)
            entry["attractions"] = [board.cities[c] for c in touched]
            entry["attraction_points"] = board.attraction_points * len(touched)
        players.append(entry)

    if feats.longest_path:
        best = max(e["longest_path"] for e in players)
        for e in players:
            e["longest_path_bonus"] = board.longest_path_bonus if best > 0 and e["longest_path"] == best else 0
    for e in players:
        e["total"] = (e["route_points"] + e["ticket_points"] + e.get("station_points", 0)
                      + e.get("longest_path_bonus", 0) + e.get("attraction_points", 0))

    criteria = _criteria(board, tiebreak)
    keys = [tuple(fn(e) for _, fn in criteria) for e in players]
    for e, k in zip(players, keys, strict=True):
        e["rank"] = 1 + sum(1 for other in keys if other > k)
    winners = [e for e in players if e["rank"] == 1]
    return {
        "game": board.key,
        "players": players,
        "winners": [e["name"] for e in winners],
        "tiebreak": _decided_by(criteria, keys),
    }


def _criteria(board: Board, tiebreak: str) -> list[tuple[str, Any]]:
    """Ranking keys in order, larger is better (the rules' tie-break chain)."""
    chain: list[tuple[str, Any]] = [("points", lambda e: e["total"]),
                                    ("completed tickets", lambda e: e["completed_tickets"])]
    if board.features.stations and tiebreak == "classic":
        chain.append(("fewest stations built", lambda e: -e["stations_built"]))
    if board.features.longest_path:
        if tiebreak == "classic":
            chain.append(("European Express", lambda e: e["longest_path_bonus"] > 0))
        else:
            chain.append(("longest path", lambda e: e["longest_path"]))
    return chain


def _decided_by(criteria: list[tuple[str, Any]], keys: list[tuple[Any, ...]]) -> str:
    """Name of the first criterion that separated the winners from everybody else, or 'shared'."""
    alive = list(range(len(keys)))
    for level, (name, _) in enumerate(criteria):
        best = max(keys[i][level] for i in alive)
        alive = [i for i in alive if keys[i][level] == best]
        if len(alive) == 1:
            return name
    return "shared"
