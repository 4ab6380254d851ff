"""What one seat may know, as a JSON-ready dict.

This is the only place that decides visibility: servers, terminal UI, bots and RL environments all
get their picture of the game from here, so a secret (another hand, another player's tickets or
ticket offers, the deck order) cannot leak through a client that forgot to trim it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

import cython

from tracklayer.ttr.actions import DrawCard, KeepTickets
from tracklayer.ttr.cards import EMPTY
from tracklayer.ttr.scoring import joined_pairs
from tracklayer.ttr.state import FREE, INITIAL, KEEP, OVER

if cython.compiled:  # the state's C type (state.pxd): its fields are read without lookups
    from cython.cimports.tracklayer.ttr.state import State
else:
    from tracklayer.ttr.state import State

if TYPE_CHECKING:
    from tracklayer.ttr.game import TTRGame


def ticket_info(game: TTRGame, tickets: list[int], done: list[bool] | None = None) -> list[dict[str, Any]]:
    table = game.tickets
    cities = game.board.cities
    out = []
    for i, t in enumerate(tickets):
        tk = table[t]
        entry: dict[str, Any] = {"id": tk.id, "from": cities[tk.a], "to": cities[tk.b], "points": tk.points,
                                 "long": tk.long}
        if done is not None:
            entry["completed"] = done[i]
        out.append(entry)
    return out


def positions(values: tuple[int, ...], value: int) -> list[int]:
    """Where ``value`` stands in ``values`` (a seat's lanes among the route owners, say), in order.

    Found by ``tuple.index`` from the last hit: one C-level scan in all, where a Python loop over
    every entry (or counting first, a second scan) costs more on the per-step paths that use it.
    """
    out: list[int] = []
    find = values.index
    i = -1
    try:
        while True:
            i = find(value, i + 1)
            out.append(i)
    except ValueError:
        return out


@cython.locals(s=State)
def tickets_completed(game: TTRGame, seat: int) -> tuple[bool, ...]:
    """Which of ``seat``'s tickets its own routes complete (stations not counted), per held ticket.

    Memoised on the game by (the seat's lanes as the state's bitmask, its tickets): the components are
    rebuilt only after the seat claims a route or keeps tickets, not on every view, and claims by others
    cost one lookup. The key is the whole input, so clones may share the memo (a state edited by hand
    needs ``Rules.resync``, as for its legal actions).
    """
    s = game.state
    held = s.tickets[seat]
    if not held:
        return ()
    memo = game._completion_memo
    key = (s.owned[seat], *held)
    done = memo.get(key)
    if done is None:
        if len(memo) > 64:  # entries change after claims: only recent positions repeat
            memo.clear()
        tickets = game.tickets
        owned = positions(tuple(s.route_owner), seat)
        done = memo[key] = tuple(joined_pairs(game.board, owned, [(tickets[t].a, tickets[t].b) for t in held]))
    return done


class ObservationView(NamedTuple):
    """What one seat may know, as integer ids: the information of ``build_view(game, seat, log_tail)``
    that learning agents encode, without names, labels or texts (which cost more to build than to read).

    Built from the same visibility decisions as :func:`build_view`: the seat's own hand, tickets and
    offer, and public counts for everybody else. Cards are card indices (colours, then the wild card),
    ``-1`` an empty market slot or a free route/city; tickets are indices into ``game.tickets``.
    """

    seat: int
    phase: str
    current_player: int | None  # None when the game is over
    first_player: int
    turn: int
    final_turns_left: int  # -1 while the final round has not started
    hand: tuple[int, ...]  # own cards per card kind
    market: tuple[int, ...]  # card per face-up slot, -1 = empty
    deck: int
    discard: int
    ticket_deck: int
    wagons: tuple[int, ...]  # per seat (absolute seats, like the lists below)
    route_points: tuple[int, ...]
    cards: tuple[int, ...]  # cards in hand per seat
    tickets_held: tuple[int, ...]  # tickets held per seat
    choosing_tickets: tuple[int, ...]  # tickets on offer per seat (the count only)
    stations_left: tuple[int, ...]  # per seat ((): a board without stations)
    route_owner: tuple[int, ...]  # seat per route lane, -1 = free
    route_masks: tuple[int, ...]  # per seat, its lanes as a bitmask (bit r = lane r): the same information
    station_owner: tuple[int, ...]  # seat per city, -1 = none ((): a board without stations)
    tickets: tuple[int, ...]  # own tickets, in the order held
    completed: tuple[bool, ...]  # per own ticket: joined by own routes (stations not counted)
    offer: tuple[int, ...]  # tickets offered to the seat, in offer order
    tunnel: tuple[int, int, int, int, tuple[int, ...], int] | None  # (route, colour or -1, n_color, n_loco,
    #                                                                   revealed cards, extra) of a pending tunnel
    log: tuple[tuple[int, str, int | None], ...]  # latest moves: (mover, action kind, card of a draw else None)


_new_view = tuple.__new__


@cython.locals(s=State)
def build_observation_view(game: TTRGame, seat: int, log_tail: int = 0) -> ObservationView:
    """The compact view of ``seat`` (see :class:`ObservationView`); ``log_tail`` latest moves in ``log``."""
    b = game.board
    s = game.state
    stations = b.features.stations
    t = s.tunnel
    log: tuple[tuple[int, str, int | None], ...] = ()
    owners = tuple(s.route_owner)
    if log_tail:
        log = tuple((m, a.kind, a.key[1] if isinstance(a, DrawCard) else None)
                    for m, a, _note in game.move_log[-log_tail:])
    return _new_view(ObservationView, (  # tuple.__new__: no Python-level frame
        seat,
        s.phase,
        None if s.phase == OVER else s.current,
        s.first,
        s.turn,
        s.final_turns,
        tuple(s.hands[seat]),
        tuple(s.market),
        len(s.deck),
        len(s.discard),
        len(s.ticket_deck),
        tuple(s.wagons),
        tuple(s.route_points),
        tuple(map(sum, s.hands)),
        tuple(map(len, s.tickets)),
        tuple(map(len, s.offers)),
        tuple(s.stations_left) if stations else (),
        owners,
        tuple(s.owned),
        tuple(s.station_owner) if stations else (),
        tuple(s.tickets[seat]),
        tickets_completed(game, seat),
        tuple(s.offers[seat]),
        None if t is None else (t.route, t.color, t.n_color, t.n_loco, tuple(t.revealed), t.extra),
        log,
    ))


def public_move(game: TTRGame, seat: int | None, mover: int, action: object) -> str:
    """The move as ``seat`` may read it: ticket choices of others show only how many were kept."""
    if isinstance(action, KeepTickets) and mover != seat and not game.is_over:
        n = len(action.tickets)
        return f"keep {n} ticket{'s' if n != 1 else ''}"
    return str(action)


@cython.locals(s=State)
def build_view(game: TTRGame, seat: int | None, log_tail: int | None = None) -> dict[str, Any]:
    b = game.board
    s = game.state
    over = s.phase == OVER
    labels = b.route_labels
    n = s.n_players
    owned: list[list[int]] = [[] for _ in range(n)]
    for r, o in enumerate(s.route_owner):
        if o != FREE:
            owned[o].append(r)
    stations: list[list[str]] = [[] for _ in range(n)]
    for c, o in enumerate(s.station_owner):
        if o != FREE:
            stations[o].append(b.cities[c])
    players = []
    for p in range(n):
        entry: dict[str, Any] = {
            "seat": p,
            "name": game.players[p],
            "wagons": s.wagons[p],
            "route_points": s.route_points[p],
            "cards": sum(s.hands[p]),
            "tickets": len(s.tickets[p]),
            "routes": [labels[r] for r in owned[p]],
        }
        if b.features.stations:
            entry["stations_left"] = s.stations_left[p]
            entry["stations"] = stations[p]
        if s.offers[p]:
            entry["choosing_tickets"] = len(s.offers[p])
        players.append(entry)
    view: dict[str, Any] = {
        "game": game.game,
        "variant": game.variant.name,
        "seat": seat,
        "players": players,
        "phase": s.phase,
        "current_player": None if over else s.current,
        "first_player": s.first,
        "turn": s.turn,
        "final_round": s.final_turns >= 0,
        "final_turns_left": s.final_turns if s.final_turns >= 0 else None,
        "market": [None if c == EMPTY else b.card_name(c) for c in s.market],
        "deck": len(s.deck),
        "discard": len(s.discard),
        "ticket_deck": len(s.ticket_deck),
        "route_owner": [None if o == FREE else o for o in s.route_owner],
        "stations": {city: p for p in range(n) for city in stations[p]},
    }
    if s.tunnel is not None:
        t = s.tunnel
        view["tunnel"] = {
            "route": b.route_label(t.route),
            "played": game.table.payment_text(t.color, t.n_color, t.n_loco),
            "revealed": [b.card_name(c) for c in t.revealed],
            "extra": t.extra,
        }
    if seat is not None:
        held = s.tickets[seat]
        done = list(tickets_completed(game, seat))
        view["hand"] = {b.card_name(c): n for c, n in enumerate(s.hands[seat])}
        view["tickets"] = ticket_info(game, held, done)
        view["offer"] = ticket_info(game, s.offers[seat])
        if s.offers[seat] and seat == s.current and s.phase in (INITIAL, KEEP):
            # the rule of this choice, so clients state and enforce it without knowing the variant
            least, max_long = game.rules.keep_rule(s)
            view["keep_rule"] = {"at_least": least, "at_most_long": max_long}
    moves = game.move_log
    if log_tail is not None:
        moves = moves[-log_tail:] if log_tail else []
    view["log"] = [{"player": m, "move": public_move(game, seat, m, a), **({"note": note} if note else {})}
                   for m, a, note in moves]
    if s.last_reveal:
        view["last_tunnel_reveal"] = [b.card_name(c) for c in s.last_reveal]
    if over:
        view["result"] = game.result()
    return view
