"""Scoring a Trans Europa / Trans America round played on a real table.

Input (``tracklayer score FILE``)::

    {"game": "trans-europa",
     "rails": [[[12, 5], [13, 6]], [[13, 6], [14, 5]]],
     "players": [{"name": "Ann", "start": [12, 5], "cities": ["Madrid", "Oslo", ...]},
                 {"name": "Bob", "start": [20, 3], "cities": [...], "score": 6}],
     "special_cards": [4]}

``rails`` lists the lines with a rail (whoever placed them): at most 85, a double line being one
rail piece; ``start`` is the start marker's
point; ``cities`` the player's city cards (one per colour at most, unless card 16; fewer than 5 when
special cards took some away). Optional: ``score`` (prestige before this round, default 0) and
``special_cards`` (cards in effect: 1 and 2 change the prestige table, 4 and 5 the cost of double
lines; with card 16 a player may hold several cities of one colour: their own and one per pass, so
at most 4, and never more of a colour over all hands than there are players). The file's shape is checked first
by :data:`SCHEMA` (``core/schema.py``); every problem raises :class:`ScoreInputError` with the path
of the entry (``players[1].cities[2]``).
"""

from __future__ import annotations

from typing import Any

from tracklayer.core.errors import IllegalAction, ScoreFileError, TracklayerError
from tracklayer.core.schema import Choice, ListOf, Obj, Row, Text, Whole, check
from tracklayer.trans.board import Board, load_board
from tracklayer.trans.cards import card_plan, effects_of
from tracklayer.trans.scoring import score_players

GAMES = ("trans-europa", "trans-america")
_COORD = Whole("a coordinate", -1000, 1000)
POINT = Row("a point [x, row] with two integers", (_COORD, _COORD))
SCHEMA = Obj("the file", {
    "game": Choice("'game'", GAMES),
    "rails": ListOf("'rails'", Row("a line [[x, row], [x, row]]", (POINT, POINT)), 2000),
    "players": ListOf("'players'", Obj("a player", {
        "name": Text("a player's name", 64),
        "start": POINT,
        "cities": ListOf("'cities'", Text("a city", 64), 20, min_len=1),
        "score": Whole("'score' (prestige before this round)", 0, 1000),
    }, required=("name",)), 50, min_len=1),
    "special_cards": ListOf("'special_cards'", Whole("a special card", 1, 1000), 50),
}, required=("game", "players"))


class ScoreInputError(ScoreFileError):
    """The position file is wrong; ``where`` is the path of the entry, ``what`` the problem."""


def _point(board: Board, value: list[int], where: str) -> int:
    p = board.point_from_pair(value)
    if p is None:
        raise ScoreInputError(where, f"{value[0]},{value[1]} is not a point of the {board.name} board")
    return p


def score_trans_table(data: Any) -> dict[str, Any]:
    """Validate a table position and return each player's missing rails and prestige for the round."""
    try:
        data = check(SCHEMA, data)
    except ScoreFileError as exc:
        raise ScoreInputError(exc.where, exc.what) from None
    game = data["game"]
    board = load_board(game)
    try:
        plan = card_plan(data.get("special_cards", []), board)
    except IllegalAction as exc:
        raise ScoreInputError("special_cards", str(exc).removeprefix("special_cards: ")) from None
    fx = effects_of(board, plan.fixed)

    rails = data.get("rails", [])
    built = [False] * board.n_edges
    for i, entry in enumerate(rails):
        where = f"rails[{i}]"
        a, b = _point(board, entry[0], f"{where}[0]"), _point(board, entry[1], f"{where}[1]")
        e = board.edge(a, b)
        if e is None:
            raise ScoreInputError(where, f"no line joins {board.point_text(a)} and {board.point_text(b)} "
                                  "(a line joins neighbouring points)")
        if built[e]:
            raise ScoreInputError(where, f"the line {board.edge_text(e)} is listed twice")
        built[e] = True
    # a line is one rail piece, a double line too (it uses a whole turn, but one piece of the supply)
    if len(rails) > board.rails:
        raise ScoreInputError("rails", f"{len(rails)} lines have a rail; the game has only {board.rails} rail "
                                       "pieces (one per line, a double line too)")

    players = data["players"]
    if len(players) > board.max_players:
        raise ScoreInputError("players", f"{board.name} has at most {board.max_players} players, "
                                         f"the file has {len(players)}")
    names: list[str] = []
    markers: list[int] = []
    city_points: list[list[int]] = []
    before: list[int] = []
    holder: dict[int, str] = {}
    for i, p in enumerate(players):
        name = p["name"]
        if name in names:
            raise ScoreInputError(f"players[{i}].name", f"the name {name!r} is used twice")
        names.append(name)
        who = f"players[{i}]"
        if "start" not in p:
            raise ScoreInputError(who, f"{name}'s 'start' (the start marker's point [x, row]) is missing")
        m = _point(board, p["start"], f"{who}.start")
        if m in markers:
            raise ScoreInputError(f"{who}.start", f"{board.point_text(m)} already holds the start marker of "
                                  f"{names[markers.index(m)]}")
        markers.append(m)
        cities = p.get("cities")
        if cities is None:
            raise ScoreInputError(who, f"{name}'s 'cities' (a non-empty list of city names) is missing")
        if len(cities) > len(board.colors):
            raise ScoreInputError(f"{who}.cities",
                                  f"at most {len(board.colors)} cities (one of each colour is dealt), "
                                  f"got {len(cities)}")
        colours: dict[int, str] = {}
        count: dict[int, int] = {}
        pts = []
        for j, raw in enumerate(cities):
            where = f"{who}.cities[{j}]"
            try:
                c = board.city(raw)
            except TracklayerError as exc:
                raise ScoreInputError(where, str(exc)) from None
            city = board.cities[c]
            col = city.color
            if col in colours and not fx.pass_times:
                raise ScoreInputError(where, f"{city.name} and {colours[col]} are both "
                                      f"{board.colors[col]}; a player holds one city of each colour")
            if c in holder:
                raise ScoreInputError(where, f"{city.name} is also held by {holder[c]}")
            colours[col] = city.name
            holder[c] = name
            pts.append(city.point)
            count[col] = count.get(col, 0) + 1
            # card 16: a hand keeps its own city of a colour and receives at most one more per pass
            if count[col] > 1 + fx.pass_times:
                raise ScoreInputError(where, f"{name} holds {count[col]} {board.colors[col]} cities; with "
                                      f"{fx.pass_times} passes a hand holds at most {1 + fx.pass_times} of one colour")
        city_points.append(pts)
        before.append(p.get("score", 0))
    # one city of each colour is dealt to each player: passing cards moves them, never adds any
    dealt: dict[int, list[str]] = {}
    for c in holder:
        dealt.setdefault(board.cities[c].color, []).append(board.cities[c].name)
    for col, held in sorted(dealt.items()):
        if len(held) > len(players):
            raise ScoreInputError("players", f"{len(held)} {board.colors[col]} cities are held "
                                  f"({', '.join(held)}), but with {len(players)} players only "
                                  f"{len(players)} are dealt")

    scores = score_players(board.n_points, board.adjacency, fx.line_cost, built, markers, city_points, fx.table)
    totals = [b + sc.prestige for b, sc in zip(before, scores, strict=True)]
    out_players = []
    for q, sc in enumerate(scores):
        out_players.append({
            "name": names[q],
            "connected": sc.connected,
            "missing_rails": sc.missing,
            "missing_lines": [board.edge_text(e) for e in sc.lines],
            "prestige": sc.prestige,
            "total": totals[q],
            "rank": 1 + sum(1 for t in totals if t > totals[q]),
        })
    best = max(totals)
    return {
        "game": game,
        "players": out_players,
        "winners": [names[q] for q, t in enumerate(totals) if t == best],
        "game_over": best >= board.goal,
        "tiebreak": "prestige, ties share",
    }
