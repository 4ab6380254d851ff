"""Scoring a Trans Europa / Trans America round played on a real table.

Input (``tracklayer score FILE``)::

    {"game": "trans-europa",
     "rails": [[[12, 5], [13, 6]], [[13, 6], [14, 5]]],
     "players": [{"name": "Ann", "start": [12, 5], "cities": ["Madrid", "Oslo", ...]},
                 {"name": "Bob", "start": [20, 3], "cities": [...], "score": 6}],
     "special_cards": [4]}

``rails`` lists the lines with a rail (whoever placed them): at most 85, a double line being one
rail piece; ``start`` is the start marker's
point; ``cities`` the player's city cards (one per colour at most; fewer than 5 when special cards
took some away). Optional: ``score`` (prestige before this round, default 0) and
``special_cards`` (cards in effect: 1 and 2 change the prestige table, 4 and 5 the cost of double
lines; with card 16 a player may hold two cities of one colour). Every problem raises
:class:`ScoreInputError` naming the player and the entry.
"""

from __future__ import annotations

from typing import Any

from tracklayer.core.errors import IllegalAction, TracklayerError
from tracklayer.trans.board import Board, load_board
from tracklayer.trans.cards import card_plan, effects_of
from tracklayer.trans.scoring import score_players

GAMES = ("trans-europa", "trans-america")


class ScoreInputError(TracklayerError):
    """The position file is wrong; the message names the player and the entry."""


def _point(board: Board, value: Any, where: str) -> int:
    p = board.point_from_pair(value)
    if p is None:
        if (isinstance(value, (list, tuple)) and len(value) == 2
                and all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
            raise ScoreInputError(f"{where}: {value[0]},{value[1]} is not a point of the {board.name} board")
        raise ScoreInputError(f"{where}: a point is [x, row] with two integers, got {value!r}")
    return p


def score_trans_table(data: Any) -> dict[str, Any]:
    """Validate a table position and return each player's missing rails and prestige for the round."""
    if not isinstance(data, dict):
        raise ScoreInputError("the file must hold a JSON object with 'game', 'rails' and 'players'")
    game = data.get("game")
    if game not in GAMES:
        raise ScoreInputError(f"'game' must be one of {', '.join(GAMES)}, got {game!r}")
    board = load_board(game)
    specials = data.get("special_cards", [])
    try:
        plan = card_plan(list(specials) if isinstance(specials, (list, tuple)) else specials, board)
    except IllegalAction as exc:
        raise ScoreInputError(str(exc)) from None
    fx = effects_of(board, plan.fixed)

    rails = data.get("rails", [])
    if not isinstance(rails, list):
        raise ScoreInputError("'rails' must be a list of lines [[x, row], [x, row]]")
    built = [False] * board.n_edges
    for i, entry in enumerate(rails):
        where = f"rails[{i}] {entry!r}"
        if not isinstance(entry, list) or len(entry) != 2:
            raise ScoreInputError(f"{where}: a line is [[x, row], [x, row]]")
        a, b = _point(board, entry[0], where), _point(board, entry[1], where)
        e = board.edge(a, b)
        if e is None:
            raise ScoreInputError(f"{where}: no line joins {board.point_text(a)} and {board.point_text(b)} "
                                  "(a line joins neighbouring points)")
        if built[e]:
            raise ScoreInputError(f"{where}: the line {board.edge_text(e)} is listed twice")
        built[e] = True
    # a line is one rail piece, a double line too (it uses a whole turn, but one piece of the supply)
    if len(rails) > board.rails:
        raise ScoreInputError(f"{len(rails)} lines have a rail; the game has only {board.rails} rail pieces "
                              "(one per line, a double line too)")

    players = data.get("players")
    if not isinstance(players, list) or not players:
        raise ScoreInputError("'players' must be a non-empty list")
    if len(players) > board.max_players:
        raise ScoreInputError(f"{board.name} has at most {board.max_players} players, the file has {len(players)}")
    names: list[str] = []
    markers: list[int] = []
    city_points: list[list[int]] = []
    before: list[int] = []
    holder: dict[int, str] = {}
    for i, p in enumerate(players):
        if not isinstance(p, dict) or not isinstance(p.get("name"), str) or not p["name"].strip():
            raise ScoreInputError(f"players[{i}]: each player needs a 'name'")
        name = p["name"]
        if name in names:
            raise ScoreInputError(f"players[{i}]: the name {name!r} is used twice")
        names.append(name)
        who = f"player {name}"
        if "start" not in p:
            raise ScoreInputError(f"{who}: 'start' (the start marker's point [x, row]) is missing")
        m = _point(board, p["start"], f"{who}, start")
        if m in markers:
            raise ScoreInputError(f"{who}, start: {board.point_text(m)} already holds the start marker of "
                                  f"{names[markers.index(m)]}")
        markers.append(m)
        cities = p.get("cities")
        if not isinstance(cities, list) or not cities:
            raise ScoreInputError(f"{who}: 'cities' must be a non-empty list of city names")
        if len(cities) > len(board.colors):
            raise ScoreInputError(f"{who}: at most {len(board.colors)} cities (one per colour), got {len(cities)}")
        colours: dict[int, str] = {}
        pts = []
        for j, raw in enumerate(cities):
            where = f"{who}, cities[{j}]"
            if not isinstance(raw, str):
                raise ScoreInputError(f"{where}: a city is a name, got {raw!r}")
            try:
                c = board.city(raw)
            except TracklayerError as exc:
                raise ScoreInputError(f"{where}: {exc}") from None
            city = board.cities[c]
            col = city.color
            if col in colours and not fx.pass_times:
                raise ScoreInputError(f"{where}: {city.name} and {colours[col]} are both "
                                      f"{board.colors[col]}; a player holds one city of each colour")
            if c in holder:
                raise ScoreInputError(f"{where}: {city.name} is also held by {holder[c]}")
            colours[col] = city.name
            holder[c] = name
            pts.append(city.point)
        city_points.append(pts)
        score = p.get("score", 0)
        if not isinstance(score, int) or isinstance(score, bool) or score < 0:
            raise ScoreInputError(f"{who}: 'score' (prestige before this round) must be a non-negative integer")
        before.append(score)

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
