"""Scoring a Ticket to Ride game played on a real table, from a JSON description of the end position.

People type these files by hand, so every check names the player and the entry at fault and says
what is wrong, and nothing is guessed silently (a colourless double route takes a lane nobody else
named; an ambiguous ticket must be given its points).
"""

from __future__ import annotations

from typing import Any

from tracklayer.core.errors import TracklayerError
from tracklayer.core.names import fold
from tracklayer.ttr.board import Board, load_board
from tracklayer.ttr.scoring import TIEBREAKS, HeldTicket, score_position


class ScoreInputError(TracklayerError):
    """The position file is wrong; the message names the player and the entry."""


def _fail(where: str, problem: str) -> ScoreInputError:
    return ScoreInputError(f"{where}: {problem}")


def _city(board: Board, value: Any, where: str) -> int:
    if not isinstance(value, str):
        raise _fail(where, f"a city must be a name, got {value!r}")
    try:
        return board.cities.index(board.city_index.resolve(value))
    except TracklayerError as exc:
        raise _fail(where, str(exc)) from None


def score_table(data: Any) -> dict[str, Any]:
    """Validate a table position and return the same breakdown as ``Game.result()``."""
    if not isinstance(data, dict):
        raise ScoreInputError("the file must hold a JSON object with 'game' and 'players'")
    game = data.get("game")
    if game not in ("ttr-europe", "ttr-new-york"):
        raise ScoreInputError(f"'game' must be 'ttr-europe' or 'ttr-new-york', got {game!r}")
    board = load_board(game)
    tiebreak = data.get("tiebreak", "classic")
    if tiebreak not in TIEBREAKS:
        raise ScoreInputError(f"'tiebreak' must be one of {', '.join(TIEBREAKS)}, got {tiebreak!r}")
    variant = data.get("variant")
    if variant is not None and variant not in board.variants:
        raise ScoreInputError(f"'variant' must be one of {', '.join(board.variants)}, got {variant!r}")
    players = data.get("players")
    if not isinstance(players, list) or not players:
        raise ScoreInputError("'players' must be a non-empty list")
    if len(players) > board.max_players:
        raise ScoreInputError(f"{board.name} has at most {board.max_players} players, the file has {len(players)}")
    n = len(players)
    names: list[str] = []
    for i, p in enumerate(players):
        if not isinstance(p, dict) or not isinstance(p.get("name"), str) or not p["name"].strip():
            raise ScoreInputError(f"players[{i}]: each player needs a 'name'")
        if p["name"] in names:
            raise ScoreInputError(f"players[{i}]: the name {p['name']!r} is used twice")
        names.append(p["name"])

    route_owner = [-1] * len(board.routes)
    pending: list[tuple[int, int, str, list[int]]] = []  # colourless double routes, decided last
    for i, p in enumerate(players):
        routes = p.get("routes", [])
        if not isinstance(routes, list):
            raise _fail(f"player {names[i]}", "'routes' must be a list")
        for j, entry in enumerate(routes):
            where = f"player {names[i]}, routes[{j}] {entry!r}"
            if not isinstance(entry, list) or len(entry) not in (2, 3):
                raise _fail(where, "a route is [city, city] or [city, city, colour]")
            a, b = _city(board, entry[0], where), _city(board, entry[1], where)
            lanes = list(board.routes_between.get((min(a, b), max(a, b)), ()))
            if not lanes:
                raise _fail(where, f"no route joins {board.cities[a]} and {board.cities[b]} on this map")
            if len(entry) == 3:
                want = "gray" if fold(str(entry[2])) == "grey" else fold(str(entry[2]))
                lanes = [r for r in lanes if fold(board.color_name(board.routes[r].color)) == want]
                if not lanes:
                    colors = ", ".join(board.color_name(board.routes[r].color)
                                       for r in board.routes_between[(min(a, b), max(a, b))])
                    raise _fail(where, f"no {entry[2]} lane there (lanes: {colors})")
            if len(lanes) == 1:  # the lane is named: it is decided now
                if route_owner[lanes[0]] != -1:
                    raise _fail(where, f"that route is already claimed by {names[route_owner[lanes[0]]]}")
                route_owner[lanes[0]] = i
            else:  # any free lane: decided after every named lane is placed
                pending.append((i, j, where, lanes))
    for i, _j, where, lanes in pending:
        free = [r for r in lanes if route_owner[r] == -1]
        if not free:
            raise _fail(where, "every lane of that route is already claimed")
        route_owner[free[0]] = i

    closed = n in board.closed_with_players
    for r in board.routes:
        owner = route_owner[r.index]
        if owner < 0:
            continue
        for t in r.twins:
            if t < r.index or route_owner[t] < 0:
                continue
            label = f"{board.cities[r.a]}-{board.cities[r.b]}"
            if route_owner[t] == owner:
                raise _fail(f"player {names[owner]}", f"owns both lanes of the double route {label}; "
                            "nobody may own both")
            if closed:
                raise _fail(f"players {names[owner]} and {names[route_owner[t]]}",
                            f"both lanes of {label} are claimed, but with {n} players only one lane may be used")
    for i in range(n):
        used = sum(board.routes[r].length for r, o in enumerate(route_owner) if o == i)
        if used > board.wagons:
            raise _fail(f"player {names[i]}",
                        f"routes use {used} {board.piece_name}s, more than the {board.wagons} a player has")

    station_owner = [-1] * len(board.cities)
    for i, p in enumerate(players):
        stations = p.get("stations", [])
        if not isinstance(stations, list):
            raise _fail(f"player {names[i]}", "'stations' must be a list of cities")
        if stations and not board.features.stations:
            raise _fail(f"player {names[i]}", f"{board.name} has no stations")
        if len(stations) > board.stations:
            raise _fail(f"player {names[i]}", f"{len(stations)} stations, but a player has only {board.stations}")
        for j, city_name in enumerate(stations):
            where = f"player {names[i]}, stations[{j}] {city_name!r}"
            c = _city(board, city_name, where)
            if station_owner[c] != -1:
                raise _fail(where, f"{board.cities[c]} already has a station (of {names[station_owner[c]]}); "
                            "a city holds one station")
            station_owner[c] = i

    logos = set(board.variants[variant].logos) if variant else None
    held: list[list[HeldTicket]] = []
    for i, p in enumerate(players):
        tickets = p.get("tickets", [])
        if not isinstance(tickets, list):
            raise _fail(f"player {names[i]}", "'tickets' must be a list")
        mine: list[HeldTicket] = []
        for j, entry in enumerate(tickets):
            where = f"player {names[i]}, tickets[{j}] {entry!r}"
            if not isinstance(entry, list) or len(entry) not in (2, 3):
                raise _fail(where, "a ticket is [city, city] or [city, city, points]")
            a, b = _city(board, entry[0], where), _city(board, entry[1], where)
            if a == b:
                raise _fail(where, "a ticket joins two different cities")
            if len(entry) == 3:
                pts = entry[2]
                if not isinstance(pts, int) or isinstance(pts, bool) or pts <= 0:
                    raise _fail(where, f"points must be a positive whole number, got {pts!r}")
                known = [t for t in board.tickets if {t.a, t.b} == {a, b} and t.points == pts]
                mine.append(HeldTicket(a, b, pts, known[0].id if len(known) == 1 else ""))
                continue
            found = [t for t in board.tickets if {t.a, t.b} == {a, b} and (logos is None or set(t.logos) & logos)]
            if not found:
                raise _fail(where, f"no ticket {board.cities[a]}-{board.cities[b]} on this map: "
                            "add its points as a third entry")
            if len({t.points for t in found}) > 1:
                options = ", ".join(f"{t.id} ({t.points})" for t in found)
                raise _fail(where, f"several tickets join these cities ({options}): add the points")
            mine.append(HeldTicket(a, b, found[0].points, found[0].id if len(found) == 1 else ""))
        held.append(mine)
    return score_position(board, names, route_owner, station_owner, held, tiebreak)


