"""Final scoring of a Ticket to Ride position, with the full per-player breakdown.

Works on a *position* (who owns which route, who built which station, who holds which ticket)
rather than on a game, so the same code scores engine games and games played on a real table.
The optimisations the rules ask for are exact: the longest trail (``trail.py``) and the station
assignment that maximises each player's ticket points (``stations.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from tracklayer.ttr.board import Board
from tracklayer.ttr.stations import StationChoice, best_station_assignment
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


@dataclass(slots=True)
class Tally:
    """One player's scoring facts, before any of them is written out for people: what both the full
    breakdown (:func:`score_position`) and the bare totals (:func:`final_totals`) are made from."""

    routes: list[int]  # the routes the player owns, by id
    built: list[int]  # the cities of the player's stations
    choice: StationChoice  # the best use of those stations for the player's tickets
    longest: int  # the length of the player's longest continuous trail (0 without the feature)
    path: list[int]  # that trail, as positions in ``routes``
    attractions: list[int]  # the tourist attractions the player's routes touch (New York)


def tally(board: Board, route_owner: Sequence[int], station_owner: Sequence[int],
          tickets: Sequence[Sequence[HeldTicket]], trail_length: Callable[[list[int]], int] | None = None,
          ) -> list[Tally]:
    """Every player's scoring facts. With ``trail_length`` (a search's memo of trail lengths, given the
    routes of a network) the longest trail is asked of it and its path left empty."""
    n = len(tickets)
    feats = board.features
    owned: list[list[int]] = [[] for _ in range(n)]
    for ri, p in enumerate(route_owner):
        if p >= 0:
            owned[p].append(ri)
    built: list[list[int]] = [[] for _ in range(n)]
    for city, p in enumerate(station_owner):
        if p >= 0:
            built[p].append(city)
    out = []
    for p in range(n):
        routes = owned[p]
        own_edges = [(board.routes[r].a, board.routes[r].b) for r in routes]
        options = [
            [(board.routes[r].a, board.routes[r].b, r) for r in board.city_routes[city]
             if route_owner[r] >= 0 and route_owner[r] != p]
            for city in built[p]
        ]
        choice = best_station_assignment(own_edges, options, [(t.a, t.b, t.points) for t in tickets[p]])
        length = 0
        path: list[int] = []
        if feats.longest_path:
            if trail_length is not None:
                length = trail_length(routes)
            else:
                length, path = network_trail(board, routes)
        touched: list[int] = []
        if feats.attractions:
            touched = sorted({c for r in routes for c in (board.routes[r].a, board.routes[r].b)} & board.attractions)
        out.append(Tally(routes, built[p], choice, length, path, touched))
    return out


def network_trail(board: Board, routes: Sequence[int]) -> tuple[int, list[int]]:
    """The longest continuous trail of a network (routes by id): its length and its routes, as positions
    in ``routes``."""
    return longest_trail([(board.routes[r].a, board.routes[r].b, board.routes[r].length) for r in routes])


class TrailLengths:
    """Longest-trail lengths of networks, each computed once: a search's playouts end with the same
    networks again and again. Pass it as ``trail_length``; keep one per search (it grows with the
    networks it is asked about)."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self.known: dict[tuple[int, ...], int] = {}

    def __call__(self, routes: list[int]) -> int:
        key = tuple(routes)
        length = self.known.get(key)
        if length is None:
            length = self.known[key] = network_trail(self.board, routes)[0]
        return length


def express_bonus(board: Board, tallies: Sequence[Tally]) -> list[int]:
    """The European Express: its points to every player whose trail is the longest (none if no one built)."""
    if not board.features.longest_path:
        return [0] * len(tallies)
    best = max(t.longest for t in tallies)
    return [board.longest_path_bonus if best > 0 and t.longest == best else 0 for t in tallies]


def total(board: Board, t: Tally, bonus: int) -> int:
    """A player's final score: routes, tickets, unused stations, the European Express, attractions."""
    points = sum(board.route_score[r] for r in t.routes) + t.choice.ticket_points + bonus
    if board.features.stations:
        points += board.unused_station_points * (board.stations - len(t.built))
    if board.features.attractions:
        points += board.attraction_points * len(t.attractions)
    return points


def final_totals(board: Board, route_owner: Sequence[int], station_owner: Sequence[int],
                 tickets: Sequence[Sequence[HeldTicket]], trail_length: Callable[[list[int]], int] | None = None,
                 ) -> list[int]:
    """Each player's final score alone: what a search scores its playouts with, without the breakdown's
    names and lists (the same facts and sums as :func:`score_position`)."""
    tallies = tally(board, route_owner, station_owner, tickets, trail_length)
    bonus = express_bonus(board, tallies)
    return [total(board, t, b) for t, b in zip(tallies, bonus, strict=True)]


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
    feats = board.features
    tallies = tally(board, route_owner, station_owner, tickets)
    bonus = express_bonus(board, tallies)
    players: list[dict[str, Any]] = []
    for p, t in enumerate(tallies):
        held = tickets[p]
        routes, choice = t.routes, t.choice
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
                {"id": h.id, "from": board.cities[h.a], "to": board.cities[h.b], "points": h.points,
                 "completed": done}
                for h, done in zip(held, choice.completed, strict=True)
            ],
        }
        if feats.stations:
            entry["stations_built"] = len(t.built)
            entry["station_points"] = board.unused_station_points * (board.stations - len(t.built))
            entry["stations"] = [
                {"city": board.cities[c], "borrows": None if r is None else board.route_label(r)}
                for c, r in zip(t.built, choice.borrowed, strict=True)
            ]
        if feats.longest_path:
            entry["longest_path"] = t.longest
            entry["longest_path_routes"] = [board.route_label(routes[i]) for i in t.path]
        if feats.attractions:
            entry["attractions"] = [board.cities[c] for c in t.attractions]
            entry["attraction_points"] = board.attraction_points * len(t.attractions)
        players.append(entry)
    for p, (entry, t) in enumerate(zip(players, tallies, strict=True)):  # after every entry: the keys' order
        if feats.longest_path:
            entry["longest_path_bonus"] = bonus[p]
        entry["total"] = total(board, t, bonus[p])

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
