"""Scoring a Ticket to Ride game played on a real table, from a JSON description of the end position.

People type these files by hand, so every check names the entry at fault by its path
(``players[1].routes[3]``) and says what is wrong, and nothing is guessed silently (a colourless
double route takes a lane nobody else named; an ambiguous ticket must be given its points). The
shape of the file is checked first by :data:`SCHEMA` (types, lengths: see ``core/schema.py``), so
the rest only meets well-typed, short values.
"""

from __future__ import annotations

from typing import Any

from tracklayer.core.errors import ScoreFileError, TracklayerError
from tracklayer.core.names import fold
from tracklayer.core.schema import Choice, ListOf, Obj, Row, Text, Whole, check
from tracklayer.ttr.board import Board, load_board
from tracklayer.ttr.scoring import TIEBREAKS, HeldTicket, score_position

GAMES = ("ttr-europe", "ttr-new-york")
CITY = Text("a city", 64)  # the longest city name on a map is ~25 characters; longer is never matched
NAME = Text("a player's name", 64)
SCHEMA = Obj("the file", {
    "game": Choice("'game'", GAMES),
    "tiebreak": Choice("'tiebreak'", TIEBREAKS),
    "variant": Text("'variant'", 40),
    "players": ListOf("'players'", Obj("a player", {
        "name": NAME,
        "routes": ListOf("'routes'", Row("[city, city] or [city, city, colour]",
                                          (CITY, CITY, Text("a colour", 32)), optional=1), 500),
        "stations": ListOf("'stations'", CITY, 50),
        "tickets": ListOf("'tickets'", Row("[city, city] or [city, city, points]",
                                            (CITY, CITY, Whole("points", 1, 1000)), optional=1), 500),
    }, required=("name",)), 50, min_len=1),
}, required=("game", "players"))


class ScoreInputError(ScoreFileError):
    """The position file is wrong; ``where`` is the path of the entry, ``what`` the problem."""


def _city(board: Board, value: str, where: str) -> int:
    try:
        return board.cities.index(board.city_index.resolve(value))
    except TracklayerError as exc:
        raise ScoreInputError(where, str(exc)) from None


def score_table(data: Any) -> dict[str, Any]:
    """Validate a table position and return the same breakdown as ``Game.result()``."""
    try:
        data = check(SCHEMA, data)
    except ScoreFileError as exc:
        raise ScoreInputError(exc.where, exc.what) from None
    game = data["game"]
    board = load_board(game)
    tiebreak = data.get("tiebreak", "classic")
    variant = data.get("variant")
    if variant is not None and variant not in board.variants:
        raise ScoreInputError("variant", f"'variant' must be one of {', '.join(board.variants)}, got {variant!r}")
    players = data["players"]
    if len(players) > board.max_players:
        raise ScoreInputError("players", f"{board.name} has at most {board.max_players} players, "
                                         f"the file has {len(players)}")
    n = len(players)
    names: list[str] = []
    for i, p in enumerate(players):
        if p["name"] in names:
            raise ScoreInputError(f"players[{i}].name", f"the name {p['name']!r} is used twice")
        names.append(p["name"])

    route_owner = [-1] * len(board.routes)
    pending: list[tuple[int, int, str, list[int]]] = []  # colourless double routes, decided last
    for i, p in enumerate(players):
        for j, entry in enumerate(p.get("routes", [])):
            where = f"players[{i}].routes[{j}]"
            a, b = _city(board, entry[0], where), _city(board, entry[1], where)
            lanes = list(board.routes_between.get((min(a, b), max(a, b)), ()))
            if not lanes:
                raise ScoreInputError(where, f"no route joins {board.cities[a]} and {board.cities[b]} on this map")
            if len(entry) == 3:
                want = "gray" if fold(entry[2]) == "grey" else fold(entry[2])
                lanes = [r for r in lanes if fold(board.color_name(board.routes[r].color)) == want]
                if not lanes:
                    colors = ", ".join(board.color_name(board.routes[r].color)
                                       for r in board.routes_between[(min(a, b), max(a, b))])
                    raise ScoreInputError(where, f"no {entry[2]} lane there (lanes: {colors})")
            if len(lanes) == 1:  # the lane is named: it is decided now
                if route_owner[lanes[0]] != -1:
                    raise ScoreInputError(where, f"that route is already claimed by {names[route_owner[lanes[0]]]}")
                route_owner[lanes[0]] = i
            else:  # any free lane: decided after every named lane is placed
                pending.append((i, j, where, lanes))
    for i, _j, where, lanes in pending:
        free = [r for r in lanes if route_owner[r] == -1]
        if not free:
            raise ScoreInputError(where, "every lane of that route is already claimed")
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
                raise ScoreInputError(f"players[{owner}]", f"{names[owner]} owns both lanes of the double route "
                                      f"{label}; nobody may own both")
            if closed:
                raise ScoreInputError("players", f"{names[owner]} and {names[route_owner[t]]} both claim a lane "
                                      f"of {label}, but with {n} players only one lane may be used")
    for i in range(n):
        used = sum(board.routes[r].length for r, o in enumerate(route_owner) if o == i)
        if used > board.wagons:
            raise ScoreInputError(f"players[{i}].routes", f"{names[i]}'s routes use {used} {board.piece_name}s, "
                                  f"more than the {board.wagons} a player has")

    station_owner = [-1] * len(board.cities)
    for i, p in enumerate(players):
        stations = p.get("stations", [])
        if stations and not board.features.stations:
            raise ScoreInputError(f"players[{i}].stations", f"{board.name} has no stations")
        if len(stations) > board.stations:
            raise ScoreInputError(f"players[{i}].stations",
                                  f"{len(stations)} stations, but a player has only {board.stations}")
        for j, city_name in enumerate(stations):
            where = f"players[{i}].stations[{j}]"
            c = _city(board, city_name, where)
            if station_owner[c] != -1:
                raise ScoreInputError(where, f"{board.cities[c]} already has a station "
                                      f"(of {names[station_owner[c]]}); a city holds one station")
            station_owner[c] = i

    logos = set(board.variants[variant].logos) if variant else None
    held: list[list[HeldTicket]] = []
    for i, p in enumerate(players):
        mine: list[HeldTicket] = []
        for j, entry in enumerate(p.get("tickets", [])):
            where = f"players[{i}].tickets[{j}]"
            a, b = _city(board, entry[0], where), _city(board, entry[1], where)
            if a == b:
                raise ScoreInputError(where, "a ticket joins two different cities")
            if len(entry) == 3:
                pts = entry[2]
                known = [t for t in board.tickets if {t.a, t.b} == {a, b} and t.points == pts]
                mine.append(HeldTicket(a, b, pts, known[0].id if len(known) == 1 else ""))
                continue
            found = [t for t in board.tickets if {t.a, t.b} == {a, b} and (logos is None or set(t.logos) & logos)]
            if not found:
                raise ScoreInputError(where, f"no ticket {board.cities[a]}-{board.cities[b]} on this map: "
                                      "add its points as a third entry")
            if len({t.points for t in found}) > 1:
                options = ", ".join(f"{t.id} ({t.points})" for t in found)
                raise ScoreInputError(where, f"several tickets join these cities ({options}): add the points")
            mine.append(HeldTicket(a, b, found[0].points, found[0].id if len(found) == 1 else ""))
        held.append(mine)
    return score_position(board, names, route_owner, station_owner, held, tiebreak)


