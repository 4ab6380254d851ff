"""What one seat may know, as a JSON-ready dict; and the public breakdown of finished rounds.

This is the only place that decides visibility. A seat sees its own cities, the cities that special
cards turn face up (10-12: two colours, 19: all), the card movements it took part in (what it
passed, returned or received), and everything on the table: rails, start markers, the supply, the
colours (card backs) of every hand, the prestige track and the finished rounds (all cities are
revealed at the end of a round). Another player's choices of a city to return or pass are never
shown before the game is over, so a simultaneous choice made one seat after the other stays blind.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from tracklayer.trans.actions import PassCity, ReturnCity
from tracklayer.trans.cards import load_cards
from tracklayer.trans.scoring import missing_rails
from tracklayer.trans.state import CHOOSE, FREE, M_PASS, M_RETURN, M_TAKE, OVER, RAILS, T_DRAFT, T_PASS, TASK_NAMES

if TYPE_CHECKING:
    from tracklayer.trans.game import TransGame


def public_move(game: TransGame, seat: int | None, mover: int, action: object) -> str:
    """The move as ``seat`` may read it: others' city choices show only that a card moved."""
    if mover != seat and not game.is_over:
        if isinstance(action, ReturnCity):
            return "return a city"
        if isinstance(action, PassCity):
            return "pass a city"
    return str(action)


def round_summary(game: TransGame, record: dict[str, Any]) -> dict[str, Any]:
    """A finished round, as everyone saw it after all cities were revealed."""
    b = game.board
    players = []
    for q, name in enumerate(game.players):
        players.append({
            "name": name,
            "start": b.point_text(record["markers"][q]),
            "cities": b.city_names(record["hands"][q]),
            "connected": record["connected"][q],
            "missing_rails": record["missing"][q],
            "missing_lines": [b.edge_text(e) for e in record["missing_lines"][q]],
            "prestige": record["prestige"][q],
            "total": record["scores"][q],
        })
    return {
        "round": record["round"],
        "start_player": record["start_player"],
        "special_cards": list(record["cards"]),
        "ended_by": record["ended_by"],
        "rails": [{"line": b.edge_text(e), "player": o} for e, o in enumerate(record["owner"]) if o != FREE],
        "players": players,
    }


def _round_summaries(game: TransGame) -> list[dict[str, Any]]:
    """Summaries of the finished rounds, built once per round record.

    A finished round's record is never modified and clones share the record objects, so the
    summary is cached by the record's identity (the record itself is kept in the cache, so its id
    cannot be reused). Without this a view after 26 rounds cost milliseconds.
    """
    cache: dict[int, tuple[dict[str, Any], dict[str, Any]]] = game.__dict__.setdefault("_round_views", {})
    out = []
    for record in game.state.history:
        hit = cache.get(id(record))
        if hit is None or hit[0] is not record:
            hit = cache[id(record)] = (record, round_summary(game, record))
        out.append(hit[1])
    return out


def _missing_rails(game: TransGame, seat: int) -> tuple[int, list[int]]:
    """The seat's hint (``scoring.missing_rails``), remembered per seat with everything it depends on.

    The same position is viewed several times (each connection of the seat, the bot that moves next
    on a clone, a move that places no rail): an exact Steiner computation each time cost milliseconds.
    The key is the whole input (the cards in play, which set the line costs, the owner of every line,
    the seat's start marker and cities), so a hit is the answer the computation would give; clones
    share the memo, which is harmless for the same reason.
    """
    s = game.state
    rules = game.rules
    points = rules.city_points(s, seat)
    key = (tuple(s.cards), tuple(s.owner), s.markers[seat], tuple(points))
    memo = game._hints
    hit = memo.get(seat)
    if hit is not None and hit[0] == key:
        return hit[1]
    b = game.board
    answer = missing_rails(b.n_points, b.adjacency, rules.effects(s).line_cost, [o != FREE for o in s.owner],
                           s.markers[seat], points)
    memo[seat] = (key, answer)
    return answer


def _card_moves(game: TransGame, seat: int) -> list[dict[str, Any]]:
    b = game.board
    out: list[dict[str, Any]] = []
    for kind, src, dst, city, _task in game.state.moves:
        if seat not in (src, dst):
            continue
        name = b.cities[city].name
        if kind == M_RETURN:
            out.append({"returned": name})
        elif kind == M_TAKE:
            out.append({"took": name})
        elif kind == M_PASS and src == seat:
            out.append({"passed": name, "to": dst})
        elif kind == M_PASS:
            out.append({"received": name, "from": src})
    return out


class ObservationView(NamedTuple):
    """What one seat may know, as integer ids: the information of ``build_view(game, seat, log_tail,
    hints=False)`` that learning agents encode, without names, labels or texts (which cost more to build
    than to read).

    Built from the same visibility decisions as :func:`build_view`: the seat's own cities and the card
    movements it took part in, the cities that special cards turn face up, and public facts for
    everybody (colours of the cards held, rails, markers, prestige). Seats are absolute, cities are
    indices into ``board.cities``, colours into ``board.colors``, lines and points the board's ids.
    """

    seat: int
    phase: str
    current_player: int | None  # None when the game is over
    start_player: int
    round: int
    supply: int
    cards: tuple[int, ...]  # special cards in effect (ids), in the order laid out
    special_deck: int  # face-down special cards left
    turn: tuple[int, int, int, bool] | None  # (budget, used, game round from 1, finishing) in the rail phase
    scores: tuple[int, ...]  # per seat
    hand_sizes: tuple[int, ...]  # cities held per seat
    colors: tuple[tuple[int, ...], ...]  # per seat: cities held per colour (the card backs)
    markers: tuple[int, ...]  # start-marker point per seat, -1 = not placed
    shares: tuple[tuple[int, ...], ...]  # per seat, the other seats on its network (rail phase), else ()
    open_cities: tuple[tuple[int, ...], ...]  # per seat, its face-up cities (special cards 10-12, 19), else ()
    rails: tuple[int, ...]  # the lines with a rail (in the order placed)
    rail_owners: tuple[int, ...]  # the seat that built each of them
    hand: tuple[int, ...]  # own cities, in the order held
    card_moves: tuple[tuple[int, int], ...]  # own card movements: (0 returned / 1 took / 2 passed / 3 received, city)
    choice: tuple[int, int, int, int, int, tuple[int, ...]] | None  # (task kind, waiting seat, draft colour or
    #   -1, pass round or 0, own pending choice or -1, seats still to choose) while city choices are made
    log: tuple[tuple[int, str], ...]  # latest moves: (mover, action kind; "rails" counts as "rail")


_new_view = tuple.__new__


def build_observation_view(game: TransGame, seat: int, log_tail: int = 0) -> ObservationView:
    """The compact view of ``seat`` (see :class:`ObservationView`); ``log_tail`` latest moves in ``log``."""
    b = game.board
    s = game.state
    n = s.n_players
    over = s.phase == OVER
    rails = s.phase == RAILS
    city_color = b.city_color
    n_colors = len(b.colors)
    colors = []
    for hand in s.hands:
        counts = [0] * n_colors
        for c in hand:
            counts[city_color[c]] += 1
        colors.append(tuple(counts))
    shares: tuple[tuple[int, ...], ...] = ()
    markers = s.markers
    if rails:
        find = s.networks.find
        root = [find(m) if m >= 0 else -1 - q for q, m in enumerate(markers)]  # no marker: on no network
        shares = tuple(tuple(r for r in range(n) if r != q and root[r] == root[q]) for q in range(n))
    reveal = game.rules.effects(s).reveal
    open_cities: tuple[tuple[int, ...], ...] = ()
    if reveal and not over:
        open_cities = tuple(tuple(c for c in hand if city_color[c] in reveal) for hand in s.hands)
    turn = None
    if rails:
        turn = (game.rules.budget(s), s.used, s.turn // n + 1, s.ending)
    choice = None
    if s.phase == CHOOSE:
        kind, arg = s.task
        choice = (kind, s.current, arg if kind == T_DRAFT else -1, arg if kind == T_PASS else 0, s.pending[seat],
                  tuple(s.queue))
    moves = []
    for kind, src, dst, city, _task in s.moves:
        if seat in (src, dst):
            moves.append((0 if kind == M_RETURN else 1 if kind == M_TAKE else 2 if src == seat else 3, city))
    log: tuple[tuple[int, str], ...] = ()
    if log_tail:
        log = tuple((m, "rail" if a.kind == "rails" else a.kind) for m, a, _note in game.move_log[-log_tail:])
    built = tuple(s.built)
    return _new_view(ObservationView, (  # tuple.__new__: no Python-level frame
        seat, s.phase, None if over else s.current, s.start_player, s.round, s.supply, tuple(s.cards),
        len(s.special_deck), turn, tuple(s.scores), tuple(map(len, s.hands)), tuple(colors), tuple(markers), shares,
        open_cities, built, tuple(map(s.owner.__getitem__, built)), tuple(s.hands[seat]), tuple(moves), choice, log))


def build_view(game: TransGame, seat: int | None, log_tail: int | None = None, hints: bool = True) -> dict[str, Any]:
    b = game.board
    s = game.state
    rules = game.rules
    fx = rules.effects(s)
    over = s.phase == OVER
    cards = load_cards()
    players = []
    for q in range(s.n_players):
        hand = s.hands[q]
        entry: dict[str, Any] = {
            "seat": q,
            "name": game.players[q],
            "score": s.scores[q],
            "start": None if s.markers[q] < 0 else b.point_text(s.markers[q]),
            "cities": len(hand),
            "card_colors": sorted(b.colors[b.cities[c].color] for c in hand),
        }
        if s.phase == RAILS:
            entry["shares_network_with"] = [r for r in s.networks.players_on(s.markers[q], s.markers) if r != q]
        if fx.reveal and not over:
            entry["open_cities"] = sorted(b.cities[c].name for c in hand if b.cities[c].color in fx.reveal)
        players.append(entry)
    view: dict[str, Any] = {
        "game": game.game,
        "board": b.name,
        "seat": seat,
        "round": s.round,
        "phase": s.phase,
        "current_player": None if over else s.current,
        "start_player": s.start_player,
        "goal": b.goal,
        "special_cards": [cards[c].to_dict() for c in s.cards],
        "special_deck": len(s.special_deck),
        "supply": s.supply,
        "rails": [{"line": b.edge_text(e), "player": o} for e, o in enumerate(s.owner) if o != FREE],
        "players": players,
    }
    if s.phase == RAILS:
        budget = rules.budget(s)
        view["turn"] = {"budget": budget, "used": s.used, "left": budget - s.used,
                        "game_round": s.turn // s.n_players + 1, "finishing": s.ending}
    if s.phase == CHOOSE:
        kind, arg = s.task
        choice: dict[str, Any] = {"step": TASK_NAMES[kind], "waiting_for": s.current,
                                  "still_to_choose": list(s.queue)}
        if kind == T_DRAFT:
            choice["color"] = b.colors[arg]
        if kind == T_PASS:
            choice["pass_round"] = arg
        view["choice"] = choice
    if seat is not None:
        hand = s.hands[seat]
        view["cities"] = [{"name": b.cities[c].name, "color": b.colors[b.cities[c].color],
                           "point": b.point_text(b.cities[c].point)} for c in hand]
        view["card_moves"] = _card_moves(game, seat)
        if s.phase == CHOOSE and s.pending[seat] >= 0:
            view["choice"]["my_choice"] = b.cities[s.pending[seat]].name
        if hints and s.phase == RAILS and hand:
            n, lines = _missing_rails(game, seat)
            view["missing_rails"] = n
            view["missing_lines"] = [b.edge_text(e) for e in lines]
    view["rounds"] = _round_summaries(game)
    moves = game.move_log
    if log_tail is not None:
        moves = moves[-log_tail:] if log_tail else []
    log = []
    for logged in moves:  # (mover, action[, public note])
        item = {"player": logged[0], "move": public_move(game, seat, logged[0], logged[1])}
        if len(logged) > 2 and logged[2]:
            item["note"] = logged[2]
        log.append(item)
    view["log"] = log
    if over:
        view["result"] = game.result()
    return view
