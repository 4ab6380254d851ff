"""The Ticket to Ride codec's observation and action mask, written from the engine's state into numpy rows.

:class:`~tracklayer.rl.ttr_codec.TTRCodec` defines the encoding and keeps the literal version,
``observe(game.view(seat))``: the seat's JSON view, encoded field by field. An environment step needs
the same vector thousands of times a second, so :class:`TTRArrays` writes it straight from the typed
state, compiled to C loops (``cython.float[::1]`` rows): nothing but the numbers a seat may know, in the
codec's layout, with no view, dict or list built on the way. The hidden-information rule is the view's:
the observer's own hand, tickets and offer, and only counts of everybody else's (``tests/rl`` holds this
writer to ``observe(view)`` on positions of every map and variant, and checks that changing another
seat's hidden cards or tickets changes nothing).

The mask is written the same way from the legal-move generator's parts of a main-phase turn
(``MoveGenerator.main_parts``), of a second draw and of a ticket choice; a tunnel's few payments take the
codec's list of legal indices.
"""

from __future__ import annotations

from array import array
from typing import TYPE_CHECKING, Any

import cython

from tracklayer.ttr import actions as _actions
from tracklayer.ttr import state as _state
from tracklayer.ttr.actions import DrawCard
from tracklayer.ttr.rules import TUNNEL_REVEAL
from tracklayer.ttr.state import INITIAL, KEEP, MAIN, OVER, SECOND_DRAW

if cython.compiled:  # the C types (state.pxd, legal.pxd)
    from cython.cimports.tracklayer.ttr.legal import MoveGenerator
    from cython.cimports.tracklayer.ttr.state import State
else:
    from tracklayer.ttr.legal import MoveGenerator
    from tracklayer.ttr.state import State

if TYPE_CHECKING:
    import numpy as np

    from tracklayer.rl.ttr_codec import TTRCodec
    from tracklayer.ttr.game import TTRGame

FREE = cython.declare(cython.int, _state.FREE)  # a route or city nobody owns
NONE = cython.declare(cython.int, _actions.NONE)  # a payment of locomotives only
EMPTY = cython.declare(cython.int, -1)  # an empty face-up slot
TURN_SCALE = cython.declare(cython.double, 400.0)  # as ttr_codec.TURN_SCALE
REVEAL = cython.declare(cython.double, TUNNEL_REVEAL)


@cython.cclass
class TTRArrays:
    """One codec's layout as C numbers, and the loops that fill a row with it."""

    codec: TTRCodec = cython.declare(object)
    moves: MoveGenerator = cython.declare(MoveGenerator)
    phases: tuple[str, ...] = cython.declare(tuple)
    n = cython.declare(cython.int)
    nk = cython.declare(cython.int)
    nc = cython.declare(cython.int)
    nt = cython.declare(cython.int)
    offer_size = cython.declare(cython.int)
    width = cython.declare(cython.int)
    stations = cython.declare(cython.bint)
    tunnels = cython.declare(cython.bint)
    o_phase = cython.declare(cython.int)
    o_to_move = cython.declare(cython.int)
    o_first = cython.declare(cython.int)
    o_progress = cython.declare(cython.int)
    o_hand = cython.declare(cython.int)
    o_market = cython.declare(cython.int)
    o_piles = cython.declare(cython.int)
    o_players = cython.declare(cython.int)
    o_routes = cython.declare(cython.int)
    o_stations = cython.declare(cython.int)
    o_tickets = cython.declare(cython.int)
    o_offer = cython.declare(cython.int)
    o_tunnel_route = cython.declare(cython.int)
    o_tunnel_color = cython.declare(cython.int)
    o_tunnel_cards = cython.declare(cython.int)
    o_tunnel_revealed = cython.declare(cython.int)
    o_tunnel_extra = cython.declare(cython.int)
    total_cards = cython.declare(cython.double)
    all_wagons = cython.declare(cython.double)
    all_stations = cython.declare(cython.double)
    max_points = cython.declare(cython.double)
    max_length = cython.declare(cython.double)
    card_scale: list[float] = cython.declare(list)  # per card kind: its count in the whole deck
    # per route: the lanes of its label (a tunnel is shown on the first free one)
    lanes: list[tuple[int, ...]] = cython.declare(list)
    draw0 = cython.declare(cython.int)
    tickets_i = cython.declare(cython.int)
    pass_i = cython.declare(cython.int)
    station0 = cython.declare(cython.int)
    slots = cython.declare(cython.int)
    max_cost = cython.declare(cython.int)
    claim_first: list[int] = cython.declare(list)  # per route: the index of a coloured payment of 0 locomotives
    keep_first = cython.declare(cython.int)  # the index of keeping the offer positions of bitmask b: keep_first + b
    route_a = cython.declare(cython.int[::1])  # per route: its cities
    route_b = cython.declare(cython.int[::1])
    ticket_a = cython.declare(cython.int[::1])  # per ticket: its cities
    ticket_b = cython.declare(cython.int[::1])
    comp = cython.declare(cython.int[::1])  # per city: a city of its component (union-find), scratch
    history = cython.declare(cython.int)
    o_history = cython.declare(cython.int)
    hist_width = cython.declare(cython.int)
    kind_ix: dict[str, int] = cython.declare(dict)  # move kind -> its place in the history row
    # per route: (payments per colour, offset of the all-wild payment)
    gray_span: list[tuple[int, int]] = cython.declare(list)

    def __init__(self, codec: TTRCodec, moves: MoveGenerator) -> None:
        c = codec
        b = c.board
        sl = c.slices
        self.codec = c
        self.moves = moves
        self.phases = c.phases
        self.n = c.n_players
        self.nk = c.n_kinds
        self.nc = c.n_colors
        self.nt = c.n_tickets
        self.offer_size = c.offer_size
        self.width = len(c.player_fields)
        self.stations = c.has_stations
        self.tunnels = c.has_tunnels
        self.o_phase = sl["phase"].start
        self.o_to_move = sl["to_move"].start
        self.o_first = sl["first_player"].start
        self.o_progress = sl["progress"].start
        self.o_hand = sl["hand"].start
        self.o_market = sl["market"].start
        self.o_piles = sl["piles"].start
        self.o_players = sl["players"].start
        self.o_routes = sl["routes"].start
        self.o_stations = sl["stations"].start if self.stations else -1
        self.o_tickets = sl["tickets"].start
        self.o_offer = sl["offer"].start
        if self.tunnels:
            self.o_tunnel_route = sl["tunnel_route"].start
            self.o_tunnel_color = sl["tunnel_color"].start
            self.o_tunnel_cards = sl["tunnel_cards"].start
            self.o_tunnel_revealed = sl["tunnel_revealed"].start
            self.o_tunnel_extra = sl["tunnel_extra"].start
        self.total_cards = c.total_cards
        self.all_wagons = b.wagons
        self.all_stations = b.stations or 1
        self.max_points = c.max_route_points
        self.max_length = c.max_route_length
        self.card_scale = list(c._card_scale)
        self.lanes = [tuple(c._lanes[b.route_label(r)]) for r in range(c.n_routes)]
        self.draw0 = c._draw0
        self.tickets_i = c._tickets_i
        self.pass_i = c._pass_i
        self.station0 = c._station0
        self.slots = c.station_slots
        self.max_cost = c.max_cost
        self.claim_first = list(c._claim_first)
        self.keep_first = c._keep_first
        self.route_a = array("i", [r.a for r in b.routes])
        self.route_b = array("i", [r.b for r in b.routes])
        self.ticket_a = array("i", [t.a for t in b.tickets])
        self.ticket_b = array("i", [t.b for t in b.tickets])
        self.comp = array("i", range(len(b.cities)))
        self.history = c.history
        self.o_history = c._o_history
        self.hist_width = c._hist_width
        self.kind_ix = {k: i for i, k in enumerate(c.move_kinds)}
        self.gray_span = list(c._gray_span)

    # ------------------------------------------------------------------ the observation
    @cython.ccall
    @cython.locals(seat=cython.int, out=cython.float[::1], s=State, n=cython.int, k=cython.int, c=cython.int,
                   q=cython.int, o=cython.int, t=cython.int, base=cython.int, total=cython.int, held=cython.int,
                   slots=cython.int, count=cython.int, r=cython.int, hand=list, owners=list, a=cython.int, b=cython.int,
                   comp=cython.int[::1])
    def observe(self, game: TTRGame, seat: int, out: np.ndarray) -> None:
        """Write ``seat``'s observation into ``out``, a float32 row of the codec's size.

        Each value is the quotient the codec's ``observe`` computes in double precision, stored as
        float32, so the two vectors are equal bit for bit."""
        s = game.state
        n = self.n
        out[:] = 0.0
        out[self.o_phase + self.phases.index(s.phase)] = 1.0
        if s.phase != OVER:
            out[self.o_to_move + (s.current - seat) % n] = 1.0
        out[self.o_first + (s.first - seat) % n] = 1.0
        k = self.o_progress
        out[k] = s.turn / TURN_SCALE if s.turn < TURN_SCALE else 1.0
        if s.final_turns >= 0:
            out[k + 1] = 1.0
            out[k + 2] = s.final_turns / cython.cast(cython.double, n)
        hand = s.hands[seat]
        for c in range(self.nk):
            count = hand[c]
            if count:
                out[self.o_hand + c] = count / cython.cast(cython.double, self.card_scale[c])
        slots = len(s.market)
        for c in range(self.nk + 1):  # each card kind, then the empty slots (EMPTY)
            count = 0
            for k in s.market:
                if k == c or (k == EMPTY and c == self.nk):
                    count += 1
            if count:
                out[self.o_market + c] = count / cython.cast(cython.double, slots)
        k = self.o_piles
        out[k] = len(s.deck) / self.total_cards
        out[k + 1] = len(s.discard) / self.total_cards
        out[k + 2] = len(s.ticket_deck) / cython.cast(cython.double, self.nt)
        for o in range(n):  # o: the seat relative to the observer
            q = (seat + o) % n
            base = self.o_players + o * self.width
            out[base] = s.wagons[q] / self.all_wagons
            out[base + 1] = s.route_points[q] / self.max_points
            total = 0
            hand = s.hands[q]
            for c in range(self.nk):
                count = hand[c]
                total += count
            out[base + 2] = total / self.total_cards
            held = len(s.tickets[q])
            out[base + 3] = held / cython.cast(cython.double, self.nt)
            held = len(s.offers[q])
            out[base + 4] = held / cython.cast(cython.double, self.offer_size)
            if self.stations:
                out[base + 5] = s.stations_left[q] / self.all_stations
        owners = s.route_owner
        comp = self.comp
        for c in range(len(comp)):
            comp[c] = c
        for r in range(len(owners)):
            o = owners[r]
            if o != FREE:
                out[self.o_routes + r * n + (o - seat) % n] = 1.0
                if o == seat:  # join the components of its cities (for the tickets below)
                    a = self._root(self.route_a[r])
                    b = self._root(self.route_b[r])
                    if a != b:
                        comp[a] = b
        if self.stations:
            owners = s.station_owner
            for c in range(len(owners)):
                o = owners[c]
                if o != FREE:
                    out[self.o_stations + c * n + (o - seat) % n] = 1.0
        for t in s.tickets[seat]:  # held, and whether own routes join its cities (stations not counted)
            out[self.o_tickets + 2 * t] = 1.0
            if self._root(self.ticket_a[t]) == self._root(self.ticket_b[t]):
                out[self.o_tickets + 2 * t + 1] = 1.0
        for k in range(len(s.offers[seat])):
            t = s.offers[seat][k]
            out[self.o_offer + k * self.nt + t] = 1.0
        if s.tunnel is not None:
            self._tunnel(s, out)
        if self.history:
            self._history(game, seat, out)

    @cython.cfunc
    @cython.locals(city=cython.int, comp=cython.int[::1])
    @cython.returns(cython.int)
    def _root(self, city: int) -> int:
        """The city that stands for ``city``'s component (halving the path on the way)."""
        comp = self.comp
        while comp[city] != city:
            comp[city] = comp[comp[city]]
            city = comp[city]
        return city

    @cython.cfunc
    @cython.locals(seat=cython.int, out=cython.float[::1], n=cython.int, at=cython.int, w=cython.int,
                   mover=cython.int, k=cython.int)
    def _history(self, game: TTRGame, seat: int, out: np.ndarray) -> None:
        """The latest moves, newest last, padded at the front: per move the mover (relative seat), its
        kind, and the card of a face-up draw."""
        n = self.n
        w = self.hist_width
        log = game.move_log
        k = len(log) - self.history
        if k < 0:
            k = 0
        at = self.o_history + (self.history - (len(log) - k)) * w
        while k < len(log):
            mover, action, _note = log[k]
            out[at + (mover - seat) % n] = 1.0
            kind = action.kind
            if isinstance(action, DrawCard):  # kind "draw"
                card = action.key[1]
                if card is None:
                    out[at + n + 1] = 1.0
                else:
                    out[at + n] = 1.0
                    out[at + n + len(self.kind_ix) + card] = 1.0
            else:
                out[at + n + self.kind_ix[kind]] = 1.0
            at += w
            k += 1

    @cython.cfunc
    @cython.locals(s=State, out=cython.float[::1], r=cython.int, lane=cython.int, c=cython.int, k=cython.int,
                   count=cython.int)
    def _tunnel(self, s: State, out: np.ndarray) -> None:
        """The pending tunnel: its route (the first free lane of its label), the cards laid down, the
        revealed cards and what is still to pay."""
        t = s.tunnel
        assert t is not None, "a tunnel's fields outside the tunnel phase"
        lanes = self.lanes[t.route]
        r = lanes[0]
        for lane in lanes:
            if s.route_owner[lane] == FREE:
                r = lane
                break
        out[self.o_tunnel_route + r] = 1.0
        c = t.color
        out[self.o_tunnel_color + (self.nc if c == NONE else c)] = 1.0
        out[self.o_tunnel_cards] = t.n_color / self.max_length
        out[self.o_tunnel_cards + 1] = t.n_loco / self.max_length
        out[self.o_tunnel_extra] = t.extra / REVEAL
        for c in range(self.nk):
            count = 0
            for k in t.revealed:
                if k == c:
                    count += 1
            if count:
                out[self.o_tunnel_revealed + c] = count / REVEAL

    # ------------------------------------------------------------------ the mask
    @cython.ccall
    @cython.locals(out=cython.uchar[::1], s=State, c=cython.int, i=cython.int, j=cython.int, r=cython.int,
                   lo=cython.int, width=cython.int, first=cython.int, span=cython.int, wild=cython.int,
                   nl=cython.int, city=cython.int, slot=cython.int, any_move=cython.bint, block=tuple)
    def mask(self, game: TTRGame, out: np.ndarray) -> None:
        """Write the 0/1 mask of the legal actions of the player to move into ``out``, a uint8 row of the
        codec's size (all zero when the game is over)."""
        s = game.state
        out[:] = 0
        if s.phase == MAIN:
            draws, deck, tickets, claims, stations = self.moves.main_parts(s)
            any_move = False
            for c in draws:
                out[self.draw0 + c] = 1
                any_move = True
            if deck:
                out[self.draw0 + self.nk] = 1
                any_move = True
            if tickets:
                out[self.tickets_i] = 1
                any_move = True
            for block in claims:
                any_move = True
                if len(block) == 6:  # (order, routes, length, colour, lo, hi): lo .. hi wilds, consecutive indices
                    lo = block[4]
                    width = block[5] - lo + 1
                    for r in block[1]:
                        first = self.claim_first[r]
                        for j in range(width):
                            out[first + lo + j] = 1
                else:  # (order, routes, options): a grey route's payment is an offset from its first index
                    routes = block[1]
                    span, wild = self.gray_span[routes[0]]
                    for r in routes:
                        first = self.claim_first[r]
                        for c, nl in block[2]:
                            out[first + (wild if c == NONE else c * span + nl)] = 1
            if stations is not None:  # (free cities, cost, payments)
                any_move = True
                for city in stations[0]:
                    for c, nl in stations[2]:
                        slot = self.slots - 1 if c == NONE else c * self.max_cost + nl
                        out[self.station0 + city * self.slots + slot] = 1
            if not any_move:
                out[self.pass_i] = 1  # nothing else is possible
        elif s.phase == SECOND_DRAW:
            for c in self.moves.market_kinds(s):
                if c != self.nc:  # not a face-up locomotive
                    out[self.draw0 + c] = 1
            if s.deck or s.discard:
                out[self.draw0 + self.nk] = 1
        elif s.phase == KEEP or s.phase == INITIAL:
            self._keep_mask(s, out)
        elif s.phase != OVER:  # a tunnel's payments
            for i in self.codec.legal(game)[0]:
                out[i] = 1

    @cython.cfunc
    @cython.locals(s=State, out=cython.uchar[::1], bits=cython.int)
    def _keep_mask(self, s: State, out: np.ndarray) -> None:
        """The ticket choices: each subset of the offer the rules allow (``MoveGenerator.keep_subsets``, a
        bitmask over the offer's positions) is the index ``keep_first + bitmask``."""
        for bits in self.moves.keep_subsets(s):
            out[self.keep_first + bits] = 1


def new_arrays(codec: Any, game: TTRGame) -> TTRArrays:
    """The writer of ``codec``'s layout for games on ``game``'s board and variant."""
    return TTRArrays(codec, game.rules.moves)
