"""The legal moves of a Ticket to Ride position, in the engine's order.

Kept apart from the rule checks of ``rules.py``: the rules say whether one move is allowed and what it
does; this module lists every allowed move of the player to move, which is what random play, search
bots and learning agents ask for thousands of times a second. Both read the same board facts, and the
tests hold them together (every listed move is accepted by ``apply``, and the slow, literal oracle of
``tests/ttr/helpers.py`` lists the same moves).

A turn often has several hundred legal moves, most of them card-payment variants of claims and stations
(every free city times every way to pay). They are produced in blocks (routes of one kind with a range of
payments, free cities times payments) and :class:`ActionList` makes actions of a block only when asked:
``len``, indexing (``random.choice``) and membership are cheap, and iterating yields exactly the actions a
plain list would, in the same order.

The engine's order: the face-up card kinds (sorted), the deck, the tickets; then claims, route kind by
route kind (a kind is colour, length and ferry locomotives, in the order of its lowest route), each kind's
routes by id and each route's payments by colour, then by locomotives; then stations, by city and payment.

Compiled, the loops run over C ints (see ``@cython.locals``); interpreted, the same code runs as written.
"""

from __future__ import annotations

import itertools
from array import array
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, overload

import cython

from tracklayer.ttr import actions as _actions
from tracklayer.ttr import board as _board
from tracklayer.ttr import state as _state
from tracklayer.ttr.actions import Action
from tracklayer.ttr.state import INITIAL, KEEP, MAIN, SECOND_DRAW, TUNNEL, State

if TYPE_CHECKING:
    from tracklayer.ttr.actions import ActionTable
    from tracklayer.ttr.board import Board, Variant


def _table(kind: str, values: Iterable[int]) -> Any:
    """A board table of small ints: compiled, an ``array`` (its ``legal.pxd`` field is a C array over it);
    interpreted, a list, which Python indexes faster."""
    return array(kind, values) if cython.compiled else list(values)


# the markers the loops compare with, as C ints when compiled
FREE = cython.declare(cython.int, _state.FREE)  # a route or city nobody owns
NONE = cython.declare(cython.int, _actions.NONE)  # a payment of locomotives only
GRAY = cython.declare(cython.int, _board.GRAY)  # a route of any one colour
EMPTY = cython.declare(cython.int, -1)  # an empty face-up slot (as in cards.py)


@cython.cclass
class MoveGenerator:
    """The legal moves on one board in one variant: the board's facts as flat tables per route and per
    kind of route (their C types are in ``legal.pxd``: compiled, the numbers are C arrays, read without
    making Python ints)."""

    def __init__(self, board: Board, variant: Variant) -> None:
        self.board = board
        self.variant = variant
        self.table = board.actions
        self.loco = board.loco
        self.draw_actions = [self.table.draw(c) for c in range(self.loco + 1)]
        self.n_cities = len(board.cities)
        self.stations = board.stations
        self.station_costs = tuple(board.station_costs)
        self.closed = _table("b", [n in board.closed_with_players for n in range(board.max_players + 1)])
        routes = board.routes
        # per route: its twins (the other lanes of its double route) at twin_at[r] .. twin_at[r + 1] - 1 of twin
        self.twin_at = _table("i", itertools.accumulate((len(r.twins) for r in routes), initial=0))
        self.twin = _table("i", [t for r in routes for t in r.twins])
        self.identical_to = _table("i", [r.identical_to for r in routes])
        self.is_long = [t.long for t in board.tickets]
        by_kind: dict[tuple[int, int, int], list[int]] = {}
        for r in routes:
            by_kind.setdefault((r.color, r.length, r.locomotives), []).append(r.index)
        kinds = sorted(((c, n, f, tuple(rs)) for (c, n, f), rs in by_kind.items()), key=lambda k: k[3][0])
        self.kind_color = _table("i", [k[0] for k in kinds])
        self.kind_length = _table("i", [k[1] for k in kinds])
        self.kind_ferry = _table("i", [k[2] for k in kinds])
        self.kind_routes = [k[3] for k in kinds]
        self.n_kinds = len(kinds)
        top = max(max(r.length for r in routes), max(board.station_costs, default=0)) + 1
        self.pay_runs = [[[tuple((c, nl) for nl in range(lo, stop)) for stop in range(top + 1)]
                          for lo in range(top + 1)] for c in range(self.loco)]
        # per set of card kinds face up (bit c: kind c): the kinds, sorted
        kinds_n = self.loco + 1
        self.kinds_of = [tuple(c for c in range(kinds_n) if seen >> c & 1) for seen in range(1 << kinds_n)]

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled and copied field by field, without reading the board (a deep copy may reach this
        generator while the board is half made); compiled, the C arrays travel as ``array`` objects."""
        return _restore, (self.board, self.variant, self.table, self.loco, self.draw_actions, self.n_cities,
                          self.stations, self.station_costs, _table("b", self.closed), _table("i", self.twin_at),
                          _table("i", self.twin), _table("i", self.identical_to), self.is_long,
                          _table("i", self.kind_color), _table("i", self.kind_length), _table("i", self.kind_ferry),
                          self.kind_routes, self.n_kinds, self.pay_runs, self.kinds_of)

    def _set(self, fields: tuple[Any, ...]) -> None:
        (self.board, self.variant, self.table, self.loco, self.draw_actions, self.n_cities, self.stations,
         self.station_costs, self.closed, self.twin_at, self.twin, self.identical_to, self.is_long, self.kind_color,
         self.kind_length, self.kind_ferry, self.kind_routes, self.n_kinds, self.pay_runs, self.kinds_of) = fields

    # ------------------------------------------------------------------ the whole list
    @cython.ccall
    @cython.locals(s=State)
    def legal_actions(self, s: State) -> Sequence[Action]:
        phase = s.phase
        if phase == MAIN:
            draws, deck, tickets, claims, stations = self.main_parts(s)
            table = self.table
            head: list[Action] = [self.draw_actions[c] for c in draws]
            if deck:
                head.append(table.draw_deck)
            if tickets:
                head.append(table.draw_tickets)
            if not head and not claims and stations is None:
                return [table.pass_]  # nothing else is possible
            # ActionList is a Sequence by Sequence.register (an extension type cannot subclass the ABC),
            # which mypy does not follow
            return ActionList(table, head, claims, stations)  # type: ignore[return-value]
        if phase == SECOND_DRAW:
            return self.second_draws(s)
        if phase in (KEEP, INITIAL):
            return self.table.keep_choices(s.offers[s.current], self.keep_subsets(s))
        if phase == TUNNEL:
            return [*self.tunnel_payments(s), self.table.decline]
        return []

    @cython.ccall
    @cython.locals(s=State)
    def keep_rule(self, s: State) -> tuple[int, int]:
        """``(at least, at most long)``: how many of the offered tickets the player to move must keep, and
        how many long ones they may keep. A starting offer's minimum can depend on the steps before
        (Mega: 2 of the 5 regular tickets after keeping a long one, else 3)."""
        offer = s.offers[s.current]
        if s.phase == INITIAL:
            step = self.variant.initial.steps[s.deal_step]
            return step.least(len(s.tickets[s.current]), len(offer)), step.max_keep_long
        return min(self.variant.draw_min_keep, len(offer)), len(offer)

    @cython.ccall
    @cython.locals(s=State, least=cython.int, max_long=cython.int, n=cython.int, size=cython.int, k=cython.int,
                   bits=cython.int, longs=cython.int)
    def keep_subsets(self, s: State) -> list[int]:
        """Every set of offered tickets the player to move may keep, as bitmasks over the offer's positions:
        at least the minimum, at most the allowed number of long tickets (``keep_rule``); smaller sets
        first, and sets of one size in the order of their ticket indices."""
        least, max_long = self.keep_rule(s)
        offer = s.offers[s.current]
        n = len(offer)
        by_ticket = sorted(range(n), key=offer.__getitem__)
        out: list[int] = []
        for size in range(min(least, n), n + 1):  # size 0: keep none (Mega's long step)
            for combo in itertools.combinations(by_ticket, size):
                bits = longs = 0
                for k in combo:
                    bits |= 1 << k
                    if self.is_long[offer[k]]:
                        longs += 1
                if longs <= max_long:
                    out.append(bits)
        return out

    @cython.ccall
    @cython.locals(s=State, c=cython.int)
    def can_draw_second(self, s: State) -> bool:
        """Whether a second card can be taken at all."""
        for c in s.market:
            if c != EMPTY and c != self.loco:
                return True
        return bool(s.deck or s.discard)

    @cython.ccall
    @cython.locals(s=State, loco=cython.int, c=cython.int)
    def second_draws(self, s: State) -> list[Action]:
        """A second card: any face-up card but a locomotive, or the deck."""
        loco = self.loco
        out: list[Action] = [self.draw_actions[c] for c in self.market_kinds(s) if c != loco]
        if s.deck or s.discard:
            out.append(self.table.draw_deck)
        return out

    @cython.ccall
    @cython.locals(s=State, hand=list, n_loco=cython.int, x=cython.int, lo=cython.int, nl=cython.int, color=cython.int)
    def tunnel_payments(self, s: State) -> list[Action]:
        """The extra cards a tunnel asks for: its colour or locomotives (only locomotives if only they were
        played)."""
        t = s.tunnel
        assert t is not None, "tunnel payments outside the tunnel phase"
        hand = s.hands[s.current]
        n_loco = hand[self.loco]
        x = t.extra
        color = t.color
        pay = self.table.pay
        if color == NONE:
            return [pay(NONE, 0, x)] if n_loco >= x else []
        lo = x - hand[color]
        if lo < 0:
            lo = 0
        return [pay(color, x - nl, nl) for nl in range(lo, min(x, n_loco) + 1)]

    # ------------------------------------------------------------------ a main-phase turn, in parts
    @cython.ccall
    @cython.locals(s=State, c=cython.int, seen=cython.uint)
    def market_kinds(self, s: State) -> tuple[int, ...]:
        """The card kinds face up, each once, sorted."""
        seen = 0
        for c in s.market:
            if c != EMPTY:
                seen |= 1 << c
        return self.kinds_of[seen]

    @cython.ccall
    @cython.locals(s=State, p=cython.int, hand=list, n_loco=cython.int, wagons=cython.int, have=cython.int,
                   most=cython.int, color=cython.int, length=cython.int, ferry=cython.int, lo=cython.int,
                   hi=cython.int, k=cython.int, cost=cython.int, c=cython.int, left=cython.int)
    def main_parts(self, s: State) -> tuple[tuple[int, ...], bool, bool, list[tuple[Any, ...]], Any]:
        """The legal moves of a main-phase turn as parts, before any action object is made
        (``legal_actions`` builds its list from them, encoders their masks):
        ``(draws, deck, tickets, claims, stations)``.

        * ``draws``: the card kinds on the market, sorted; ``deck``, ``tickets``: whether those piles may
          be drawn from;
        * ``claims``: blocks of routes of one kind, in the engine's order: ``(order, routes, length, colour,
          lo, hi)`` for a coloured kind (pay ``lo .. hi`` locomotives and the rest in the colour),
          ``(order, routes, options)`` for a grey one (each ``(colour, n_loco)`` of ``options``), where
          ``order`` is the kind's place in the engine's order;
        * ``stations``: ``(free cities, cost, options)`` or None.

        No part at all: the player can only pass.
        """
        p = s.current
        hand = s.hands[p]
        n_loco = hand[self.loco]
        wagons = s.wagons[p]
        most = 0  # the most cards of one colour: what a grey route can be paid with, besides locomotives
        for c in range(self.loco):
            if hand[c] > most:
                most = hand[c]
        claims: list[tuple[Any, ...]] = []
        for k in range(self.n_kinds):
            length = self.kind_length[k]
            ferry = self.kind_ferry[k]
            if length > wagons or ferry > n_loco:
                continue
            color = self.kind_color[k]
            routes = self.kind_routes[k]
            if color == GRAY:
                if length > most + n_loco:
                    continue
                options = self.payments(hand, length, ferry)
                if not options:
                    continue
                free = self.claimable(s, p, routes)
                if free:
                    claims.append((k, free, options))
            else:
                have = hand[color]
                if length > have + n_loco:
                    continue
                free = self.claimable(s, p, routes)
                if free:
                    lo = length - have
                    hi = length if n_loco > length else n_loco
                    claims.append((k, free, length, color, lo if lo > ferry else ferry, hi))
        stations = None
        left = s.stations_left[p]
        if left:
            cost = self.station_costs[self.stations - left]
            options = self.payments(hand, cost, 0)
            if options:
                free_cities = self.free_cities(s)
                if free_cities:
                    stations = (free_cities, cost, options)
        return self.market_kinds(s), bool(s.deck or s.discard), bool(s.ticket_deck), claims, stations

    @cython.ccall
    @cython.locals(s=State, c=cython.int, owner=cython.int)
    def free_cities(self, s: State) -> tuple[int, ...]:
        """The cities without a station."""
        free = []
        for c in range(self.n_cities):
            owner = s.station_owner[c]
            if owner == FREE:
                free.append(c)
        return tuple(free)

    @cython.ccall
    @cython.locals(s=State, p=cython.int, routes=tuple, owners=list, r=cython.int, i=cython.int, low=cython.int,
                   owner=cython.int, closed=cython.bint, ok=cython.bint, n=cython.Py_ssize_t, k=cython.Py_ssize_t)
    def claimable(self, s: State, p: int, routes: tuple[int, ...]) -> tuple[int, ...]:
        """Those of ``routes`` (all of one kind, which the caller found ``p`` can pay and has the pieces for)
        that ``p`` may claim: nobody owns them, ``p`` owns no other lane of the double route, the double route
        is not closed (with few players, one built lane closes the others), and no identical lane with a
        lower id is free (identical lanes are one choice: the lowest free one stands for them)."""
        owners = s.route_owner
        closed = self.closed[s.n_players]
        out = None  # the claimable routes, made only once one of ``routes`` is not (else ``routes`` itself)
        n = len(routes)
        for k in range(n):
            r = routes[k]
            owner = owners[r]
            ok = owner == FREE
            if ok:
                for i in range(self.twin_at[r], self.twin_at[r + 1]):
                    owner = owners[self.twin[i]]
                    if owner == p or (closed and owner != FREE):
                        ok = False
                        break
            if ok:
                low = self.identical_to[r]
                if low != r:
                    owner = owners[low]
                    ok = owner != FREE
            if ok:
                if out is not None:
                    out.append(r)
            elif out is None:
                out = list(routes[:k])
        return routes if out is None else tuple(out)

    @cython.ccall
    @cython.locals(hand=list, length=cython.int, ferry=cython.int, n_loco=cython.int, stop=cython.int,
                   c=cython.int, have=cython.int, lo=cython.int)
    def payments(self, hand: list[int], length: int, ferry: int) -> tuple[tuple[int, int], ...]:
        """Every ``(colour, n_loco)`` that pays ``length`` cards of one colour with at least ``ferry``
        locomotives, from ``hand``: some cards of one colour plus locomotives, or locomotives only
        (``(NONE, length)``, last)."""
        n_loco = hand[self.loco]
        stop = n_loco + 1 if n_loco < length else length  # at least one coloured card: at most length - 1 wilds
        out: tuple[tuple[int, int], ...] = ()
        for c in range(self.loco):
            have = hand[c]
            if have:
                lo = length - have  # locomotives needed besides this colour's cards
                if lo < ferry:
                    lo = ferry
                if lo < stop:
                    out += self.pay_runs[c][lo][stop]
        if n_loco >= length:
            out += ((NONE, length),)
        return out


def _restore(*fields: Any) -> MoveGenerator:
    """A generator from the fields ``MoveGenerator.__reduce__`` gives."""
    moves: MoveGenerator = MoveGenerator.__new__(MoveGenerator)
    moves._set(fields)
    return moves


@cython.cclass
class ActionList:
    """The legal moves of a main-phase turn: the head (draws) as actions, claims and stations as blocks."""

    # the C declarations are in legal.pxd; these name what the fields hold
    _table: ActionTable
    _items: list[Action] | None  # every action, once something asked for all of them
    _head: list[Action]
    _blocks: list[tuple[Any, ...]]  # the blocks of main_parts, then the stations block
    _starts: list[int]  # per block: the index of its first action
    _len: int
    _n_claims: int

    @cython.locals(width=cython.Py_ssize_t)
    def __init__(self, table: ActionTable, head: list[Action], claims: Sequence[tuple[Any, ...]] = (),
                 stations: Any = None) -> None:
        self._table = table
        self._head = head
        self._blocks = []
        self._starts = []
        self._len = len(head)
        self._items = None
        for block in claims:  # the blocks of main_parts, told apart by their length
            self._starts.append(self._len)
            self._blocks.append(block)
            if len(block) == 3:  # grey (order, routes, options): each route with each payment
                self._len += len(block[1]) * len(block[2])
            else:  # coloured (order, routes, length, colour, lo, hi): each route paying lo .. hi locomotives
                width = block[5] - block[4] + 1
                self._len += len(block[1]) * width
        if stations is not None:  # (cities, cost, options)
            self._starts.append(self._len)
            self._blocks.append(stations)
            self._len += len(stations[0]) * len(stations[2])
        self._n_claims = len(claims)

    def __len__(self) -> int:
        return self._len

    @cython.ccall
    @cython.locals(i=cython.Py_ssize_t, k=cython.Py_ssize_t, j=cython.Py_ssize_t, width=cython.Py_ssize_t,
                   nl=cython.int, n=cython.Py_ssize_t)
    def _at(self, i: int) -> Action:
        head = self._head
        if i < len(head):
            return head[i]
        k = len(self._starts) - 1
        while self._starts[k] > i:
            k -= 1
        block = self._blocks[k]
        j = i - self._starts[k]
        if k >= self._n_claims:  # stations (cities, cost, options)
            options = block[2]
            n = len(options)
            c, nl = options[j % n]
            return self._table.station(block[0][j // n], c, block[1] - nl, nl)
        if len(block) == 6:  # coloured (order, routes, length, colour, lo, hi)
            _, routes, length, color, lo, hi = block
            width = hi - lo + 1
            nl = lo + j % width
            return self._table.claim(routes[j // width], NONE if nl == length else color, nl)
        options = block[2]  # grey (order, routes, options)
        n = len(options)
        c, nl = options[j % n]
        return self._table.claim(block[1][j // n], c, nl)

    @overload
    def __getitem__(self, index: int) -> Action: ...
    @overload
    def __getitem__(self, index: slice) -> list[Action]: ...
    def __getitem__(self, index: int | slice) -> Action | list[Action]:
        if isinstance(index, slice):
            return self.materialize()[index]
        if index < 0:
            index += self._len
        if not 0 <= index < self._len:
            raise IndexError("legal action index out of range")
        if self._items is not None:
            return self._items[index]
        return self._at(index)

    def materialize(self) -> list[Action]:
        """All actions, in order, walking the blocks once."""
        if self._items is not None:
            return self._items
        out = list(self._head)
        claim, station = self._table.claim, self._table.station
        for k, block in enumerate(self._blocks):
            if k >= self._n_claims:  # stations (cities, cost, options)
                cities, cost, options = block
                for city in cities:
                    for c, nl in options:
                        out.append(station(city, c, cost - nl, nl))
            elif len(block) == 6:  # coloured (order, routes, length, colour, lo, hi)
                _, routes, length, color, lo, hi = block
                for route in routes:
                    for nl in range(lo, hi + 1):
                        out.append(claim(route, NONE if nl == length else color, nl))
            else:  # grey (order, routes, options)
                options = block[2]
                for route in block[1]:
                    for c, nl in options:
                        out.append(claim(route, c, nl))
        self._items = out
        return out

    def __iter__(self) -> Iterator[Action]:
        return iter(self.materialize())

    def __reversed__(self) -> Iterator[Action]:
        return reversed(self.materialize())

    def index(self, item: object, *args: int) -> int:
        items: Sequence[object] = self.materialize()  # any object may be looked for, as in a list
        return items.index(item, *args)

    def count(self, item: object) -> int:
        items: Sequence[object] = self.materialize()
        return items.count(item)

    def __contains__(self, item: object) -> bool:
        return item in self.materialize()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, str):
            return self.materialize() == list(other)
        return NotImplemented

    def __repr__(self) -> str:
        return f"ActionList({self._len} actions)"


Sequence.register(ActionList)
