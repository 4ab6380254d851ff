"""Ticket to Ride turn rules: setup, applying an action, and the end of a turn.

One module holds the whole turn structure so each rule lives in exactly one place, one method per move
(``_draw_card``, ``_claim`` with the tunnel payment in ``_pay_tunnel``, ``_station``, ``_keep``). ``apply``
checks everything before it changes anything, so an :class:`IllegalAction` leaves the state as it was.
The list of legal moves is made apart from these checks, in ``legal.py``.

Compiled, :class:`Rules` is an extension type whose hot methods are C calls with typed locals; the code
is the same that runs interpreted.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import cython

from tracklayer.core.errors import IllegalAction
from tracklayer.ttr.actions import (
    NONE,
    Action,
    ActionTable,
    BuildStation,
    ClaimRoute,
    DeclineTunnel,
    DrawCard,
    DrawTickets,
    KeepTickets,
    Pass,
    PayTunnel,
)
from tracklayer.ttr.board import GRAY, Board, Route, Variant
from tracklayer.ttr.cards import EMPTY
from tracklayer.ttr.state import FREE, INITIAL, KEEP, MAIN, OVER, SECOND_DRAW, TUNNEL, Tunnel

if cython.compiled:  # the C types and functions (rng.pxd, state.pxd, legal.pxd, cards.pxd)
    from cython.cimports.tracklayer.core.rng import Rng
    from cython.cimports.tracklayer.ttr.cards import (
        can_draw_from_deck,
        discard,
        draw_from_deck,
        refill_market,
        take_face_up,
    )
    from cython.cimports.tracklayer.ttr.legal import MoveGenerator
    from cython.cimports.tracklayer.ttr.state import State
else:
    from tracklayer.core.rng import Rng
    from tracklayer.ttr.cards import can_draw_from_deck, discard, draw_from_deck, refill_market, take_face_up
    from tracklayer.ttr.legal import MoveGenerator
    from tracklayer.ttr.state import State

TUNNEL_REVEAL = 3


@cython.cclass
class Rules:
    """The rules of one board + variant; stateless apart from those (states are passed in)."""

    board: Board = cython.declare(object, visibility="public")
    variant: Variant = cython.declare(object, visibility="public")
    table: ActionTable = cython.declare(object, visibility="public")
    moves: MoveGenerator = cython.declare(MoveGenerator, visibility="public")
    loco = cython.declare(cython.int, visibility="public")
    routes: tuple[Route, ...] = cython.declare(tuple)
    route_score: tuple[int, ...] = cython.declare(tuple)
    closed_with: tuple[int, ...] = cython.declare(tuple)
    end_trigger = cython.declare(cython.int)

    def __init__(self, board: Board, variant: Variant) -> None:
        self.board = board
        self.variant = variant
        self.table = board.actions
        self.moves = MoveGenerator(board, variant)
        self.loco = board.loco
        self.routes = tuple(board.routes)
        self.route_score = tuple(board.route_score)
        self.closed_with = tuple(board.closed_with_players)
        self.end_trigger = board.end_trigger

    # ------------------------------------------------------------------ setup
    def setup(self, n_players: int, rng: Rng, first_player: int, long_pool: list[int],
              regular_pool: list[int]) -> State:
        b = self.board
        if not b.min_players <= n_players <= b.max_players:
            raise IllegalAction(f"{b.name} is for {b.min_players}-{b.max_players} players, not {n_players}")
        if not 0 <= first_player < n_players:
            raise IllegalAction(f"first_player must be a seat from 0 to {n_players - 1}, not {first_player}")
        state = State(n_players, len(b.routes), len(b.cities), len(b.colors) + 1, b.wagons, b.stations, rng)
        deck = [c for c in range(len(b.colors)) for _ in range(b.per_color)] + [b.loco] * b.locomotives
        rng.shuffle(deck)
        state.deck = deck
        for _ in range(b.starting_hand):
            for p in range(n_players):
                state.hands[p][deck.pop()] += 1
        state.market = [EMPTY] * b.face_up
        refill_market(state, b)
        ini = self.variant.initial
        first = ini.steps[0]
        longs, regular = list(long_pool), list(regular_pool)
        rng.shuffle(longs)
        rng.shuffle(regular)
        if len(longs) < ini.long * n_players or len(regular) < ini.regular * n_players:
            raise IllegalAction(f"not enough tickets in variant {self.variant.name} for {n_players} players")
        # the first offer is dealt now; a later one (Mega's 5 regular tickets) when its player reaches it
        for p in range(n_players):
            state.offers[p] = [longs.pop() for _ in range(first.long)] + [regular.pop() for _ in range(first.regular)]
        state.ticket_deck = regular  # the unused long tickets go back to the box
        state.initial_pending = [(first_player + i) % n_players for i in range(n_players)]
        state.current = first_player
        state.first = first_player
        state.phase = INITIAL
        return state

    @cython.locals(s=State)
    def resync(self, s: State) -> None:
        """Recompute the owned-route bitmasks from ``route_owner`` (after editing a state by hand)."""
        s.owned = [0] * s.n_players
        for r in self.board.routes:
            owner = s.route_owner[r.index]
            if owner != FREE:
                s.owned[owner] |= 1 << r.index

    # ------------------------------------------------------------------ legal actions (legal.py)
    @cython.locals(s=State)
    def legal_actions(self, s: State) -> Sequence[Action]:
        return self.moves.legal_actions(s)

    @cython.locals(s=State)
    def main_parts(self, s: State) -> tuple[tuple[int, ...], bool, bool, list[tuple[Any, ...]], Any]:
        """The legal moves of a main-phase turn in parts: see :meth:`MoveGenerator.main_parts`."""
        return self.moves.main_parts(s)

    # ------------------------------------------------------------------ playouts (search)
    @cython.ccall
    @cython.locals(s=State, rng=Rng, limit=cython.int, played=cython.int)
    def playout(self, s: State, rng: Rng, limit: int) -> int:
        """Play uniformly random legal moves on ``s`` until the game is over or ``limit`` moves are made;
        returns the number of moves. The moves are those ``legal_actions`` lists, chosen by ``rng``, and
        applied by ``apply``: a public-API loop of ``legal[rng.below(len(legal))]`` plays the same game, but
        here no game object records a move log or notes (what a search's playout does not need)."""
        played = 0
        while s.phase != OVER and played < limit:
            legal = self.moves.legal_actions(s)
            self.apply(s, legal[rng.below(len(legal))])
            played += 1
        return played

    # ------------------------------------------------------------------ apply
    @cython.locals(s=State)
    def apply(self, s: State, action: Action) -> Action:
        """Check ``action`` and play it; returns the action as recorded (canonical lane)."""
        if s.phase == OVER:
            raise IllegalAction("the game is over")
        if isinstance(action, DrawCard):
            self._draw_card(s, action.key[1])
        elif isinstance(action, ClaimRoute):
            action = self._claim(s, action)
        elif isinstance(action, KeepTickets):
            self._keep(s, action.key[1])
        elif isinstance(action, DrawTickets):
            self._draw_tickets(s)
        elif isinstance(action, BuildStation):
            self._station(s, action)
        elif isinstance(action, PayTunnel):
            self._pay_tunnel(s, action)
        elif isinstance(action, DeclineTunnel):
            self._decline_tunnel(s)
        elif isinstance(action, Pass):
            self._pass(s)
        else:
            raise IllegalAction(f"not a Ticket to Ride action: {action!r}")
        return action

    @cython.locals(s=State)
    def _phase_error(self, s: State, doing: str) -> IllegalAction:
        what = {
            INITIAL: "choose your starting tickets first (keep ...)",
            KEEP: "choose which of the drawn tickets to keep first (keep ...)",
            SECOND_DRAW: "take your second card (draw ...) first",
            TUNNEL: "pay for the tunnel or decline first",
            MAIN: "it is the start of a turn",
        }[s.phase]
        return IllegalAction(f"cannot {doing} now: {what}")

    @cython.locals(s=State)
    def _need_main(self, s: State, doing: str) -> None:
        if s.phase != MAIN:
            raise self._phase_error(s, doing)

    @cython.locals(s=State)
    def _need_tunnel(self, s: State, doing: str) -> Tunnel:
        if s.phase != TUNNEL or s.tunnel is None:
            raise IllegalAction(f"cannot {doing}: no tunnel claim is waiting for payment")
        return s.tunnel

    @cython.ccall
    @cython.locals(s=State, hand=list, color=cython.int, n_color=cython.int, n_loco=cython.int)
    def _check_hand(self, s: State, color: int, n_color: int, n_loco: int) -> None:
        """The player to move holds the cards of a payment."""
        b = self.board
        hand = s.hands[s.current]
        if n_color < 0 or n_loco < 0:
            raise IllegalAction("card counts cannot be negative")
        if n_color and not 0 <= color < len(b.colors):
            raise IllegalAction("the payment names no card colour")
        if n_color and hand[color] < n_color:
            raise IllegalAction(f"you have {hand[color]} {b.colors[color]} card(s), not {n_color}")
        if hand[self.loco] < n_loco:
            raise IllegalAction(f"you have {hand[self.loco]} {b.locomotive_name}(s), not {n_loco}")

    @cython.ccall
    @cython.locals(s=State, hand=list, color=cython.int, n_color=cython.int, n_loco=cython.int)
    def _take_cards(self, s: State, color: int, n_color: int, n_loco: int) -> list[int]:
        """Take a payment out of the current player's hand; the caller puts it on the discard pile."""
        hand = s.hands[s.current]
        if n_color:  # no colour cards: ``color`` may be NONE
            hand[color] -= n_color
        hand[self.loco] -= n_loco
        return [color] * n_color + [self.loco] * n_loco

    # --- drawing train cards
    @cython.ccall
    @cython.locals(s=State, second=cython.bint)
    def _draw_card(self, s: State, card: int | None) -> None:
        """Take a face-up card or the top of the deck. A face-up locomotive is the whole turn, and may not be
        the second card; otherwise the player takes a second card."""
        b = self.board
        if s.phase != MAIN and s.phase != SECOND_DRAW:
            raise self._phase_error(s, "draw a card")
        second = s.phase == SECOND_DRAW
        if card is None:
            if not can_draw_from_deck(s):
                raise IllegalAction("the deck and the discard pile are empty")
            s.hands[s.current][draw_from_deck(s)] += 1
        else:
            if not 0 <= card <= self.loco or card not in s.market:
                raise IllegalAction(f"no {b.card_name(card) if 0 <= card <= self.loco else card} card is face up")
            if second and card == self.loco:
                raise IllegalAction(f"a face-up {b.locomotive_name} cannot be taken as the second card")
            take_face_up(s, b, card)
        if second or card == self.loco:
            self._end_turn(s)
            return
        s.phase = SECOND_DRAW
        if not self.moves.can_draw_second(s):  # rules decision: no legal second card ends the turn
            self._end_turn(s)

    # --- claiming a route
    @cython.ccall
    @cython.locals(s=State, ri=cython.int, p=cython.int, owner=list, t=cython.int)
    def _claim_problem(self, s: State, ri: int) -> str | None:
        """Why the player to move may not claim route ``ri`` whatever they pay, or None."""
        b = self.board
        r = self.routes[ri]
        owner = s.route_owner
        p = s.current
        if owner[ri] != FREE:
            return f"{b.route_label(ri)} is already claimed by player {owner[ri] + 1}"
        for t in r.twins:
            if owner[t] == p:
                return (f"you already own the other lane of {b.route_label(ri)}; nobody may own both lanes of a "
                        "double route")
            if owner[t] != FREE and s.n_players in self.closed_with:
                return (f"{b.route_label(ri)} is closed: with {s.n_players} players only one lane of a double "
                        "route may be used")
        if s.wagons[p] < r.length:
            return f"{b.route_label(ri)} needs {r.length} {b.piece_name}s and you have {s.wagons[p]}"
        return None

    @cython.ccall
    @cython.locals(s=State, key=tuple, color=cython.int, n_color=cython.int, n_loco=cython.int)
    def _claim(self, s: State, action: ClaimRoute) -> ClaimRoute:
        """Claim a route: pay its length in cards of its colour (a grey route: any one colour), locomotives
        standing in for any card; a ferry needs at least its locomotive symbols in locomotives. A tunnel
        reveals cards first (``_reveal_tunnel``)."""
        b = self.board
        self._need_main(s, "claim a route")
        key = action.key  # ("claim", route, colour, n_colour, n_loco)
        ri = key[1]
        if not 0 <= ri < len(self.routes):
            raise IllegalAction(f"no route {ri}")
        r = self.routes[ri]
        if r.identical_to != ri and s.route_owner[r.identical_to] == FREE:
            ri = r.identical_to  # identical lanes are interchangeable: record the first free one
            r = self.routes[ri]
            action = self.table.claim(ri, key[2], key[4])
        problem = self._claim_problem(s, ri)
        if problem:
            raise IllegalAction(problem)
        color, n_color, n_loco = key[2], key[3], key[4]
        if n_color + n_loco != r.length:
            raise IllegalAction(f"{b.route_label(ri)} needs {r.length} cards, the payment has {n_color + n_loco}")
        if n_color and r.color != GRAY and color != r.color:
            raise IllegalAction(f"{b.route_label(ri)} is {b.colors[r.color]}: pay with {b.colors[r.color]} cards "
                                f"or {b.locomotive_name}s, not {b.colors[color]}")
        if n_loco < r.locomotives:
            raise IllegalAction(f"{b.route_label(ri)} is a ferry: it needs at least {r.locomotives} "
                                f"{b.locomotive_name}(s)")
        self._check_hand(s, color, n_color, n_loco)
        if r.tunnel:
            self._reveal_tunnel(s, ri, color, n_color, n_loco)
            return action
        discard(s, b, self._take_cards(s, color, n_color, n_loco))
        self._take_route(s, ri)
        self._end_turn(s)
        return action

    @cython.ccall
    @cython.locals(s=State, ri=cython.int, color=cython.int, n_color=cython.int, n_loco=cython.int,
                   counted=cython.int, extra=cython.int, hand=list)
    def _reveal_tunnel(self, s: State, ri: int, color: int, n_color: int, n_loco: int) -> None:
        """A tunnel: the cards played go on the table and the top 3 cards of the deck are turned up; each that
        is a locomotive or of the colour played asks for one more card (locomotives only, if only
        locomotives were played). Nothing more to pay: the tunnel is built at once."""
        hand = s.hands[s.current]
        if n_color:
            hand[color] -= n_color
        hand[self.loco] -= n_loco
        revealed = []
        for _ in range(TUNNEL_REVEAL):
            card = draw_from_deck(s)
            if card == EMPTY:
                break
            revealed.append(card)
        s.last_reveal = revealed[:]
        counted = color if n_color else NONE
        extra = 0
        for card in revealed:
            if card == self.loco or card == counted:
                extra += 1
        tunnel = Tunnel(ri, counted, n_color, n_loco, revealed, extra)
        if extra == 0:
            self._finish_tunnel(s, tunnel, [])
        else:
            s.tunnel = tunnel
            s.phase = TUNNEL

    @cython.locals(s=State)
    def _pay_tunnel(self, s: State, action: PayTunnel) -> None:
        """Pay the extra cards a tunnel asked for: its colour or locomotives."""
        t = self._need_tunnel(s, "pay for a tunnel")
        b = self.board
        color, n_color, n_loco = action.color, action.n_color, action.n_loco
        if n_color + n_loco != t.extra:
            raise IllegalAction(f"the tunnel needs {t.extra} more card(s), the payment has {n_color + n_loco}")
        if n_color and color != t.color:
            if t.color == NONE:
                raise IllegalAction(f"you played only {b.locomotive_name}s: the extra cards must be "
                                    f"{b.locomotive_name}s too")
            raise IllegalAction(f"extra cards must be {b.colors[t.color]} or {b.locomotive_name}s")
        self._check_hand(s, color, n_color, n_loco)
        self._finish_tunnel(s, t, self._take_cards(s, color, n_color, n_loco))

    @cython.locals(s=State)
    def _decline_tunnel(self, s: State) -> None:
        """Decline a tunnel: the cards played go back to the hand, the revealed ones to the discard pile,
        and the turn is over."""
        t = self._need_tunnel(s, "decline")
        hand = s.hands[s.current]
        if t.n_color:
            hand[t.color] += t.n_color
        hand[self.loco] += t.n_loco
        s.tunnel = None
        discard(s, self.board, t.revealed)
        self._end_turn(s)

    @cython.ccall
    @cython.locals(s=State)
    def _finish_tunnel(self, s: State, t: Tunnel, extra: list[int]) -> None:
        """Build the tunnel: the extra payment, the cards played and the revealed ones are discarded
        together, as one move, so the locomotive rule sees them all at once."""
        s.tunnel = None
        discard(s, self.board, [*extra, *[t.color] * t.n_color, *[self.loco] * t.n_loco, *t.revealed])
        self._take_route(s, t.route)
        self._end_turn(s)

    @cython.ccall
    @cython.locals(s=State, p=cython.int)
    def _take_route(self, s: State, ri: int) -> None:
        """The route is the player's: its pieces leave their supply and its points are scored at once.
        (``ri`` stays a Python int: ``1 << ri`` is a bitmask wider than any C int.)"""
        p = s.current
        s.route_owner[ri] = p
        s.owned[p] |= 1 << ri
        s.wagons[p] -= self.routes[ri].length
        s.route_points[p] += self.route_score[ri]

    # --- building a station
    @cython.locals(s=State)
    def _station(self, s: State, action: BuildStation) -> None:
        """Build a station in a city nobody has one in, paying 1, 2, then 3 cards of one colour (locomotives
        standing in)."""
        b = self.board
        self._need_main(s, "build a station")
        if not b.features.stations:
            raise IllegalAction(f"{b.name} has no stations")
        p = s.current
        city = action.city
        if not 0 <= city < len(b.cities):
            raise IllegalAction(f"no city {city}")
        if not s.stations_left[p]:
            raise IllegalAction(f"you have built all {b.stations} of your stations")
        if s.station_owner[city] != FREE:
            raise IllegalAction(f"{b.cities[city]} already has a station (player {s.station_owner[city] + 1})")
        cost = b.station_costs[b.stations - s.stations_left[p]]
        if action.n_color + action.n_loco != cost:
            raise IllegalAction(f"this station costs {cost} card(s) of one colour, the payment has "
                                f"{action.n_color + action.n_loco}")
        self._check_hand(s, action.color, action.n_color, action.n_loco)
        discard(s, b, self._take_cards(s, action.color, action.n_color, action.n_loco))
        s.station_owner[city] = p
        s.stations_left[p] -= 1
        self._end_turn(s)

    # --- destination tickets
    @cython.locals(s=State)
    def _draw_tickets(self, s: State) -> None:
        """Draw the top tickets of the ticket deck (3, or 4 in some variants) and choose which to keep."""
        self._need_main(s, "draw tickets")
        if not s.ticket_deck:
            raise IllegalAction("the ticket deck is empty")
        n = min(self.variant.draw_count, len(s.ticket_deck))
        s.offers[s.current] = [s.ticket_deck.pop() for _ in range(n)]
        s.phase = KEEP

    @cython.locals(s=State)
    def keep_rule(self, s: State) -> tuple[int, int]:
        """``(at least, at most long)`` of the ticket choice waiting (``MoveGenerator.keep_rule``)."""
        return self.moves.keep_rule(s)

    @cython.locals(s=State)
    def _keep(self, s: State, kept: tuple[int, ...]) -> None:
        """Keep some of the offered tickets, the others go back under the ticket deck. At the start of the
        game, the returned tickets wait until everybody has chosen (or go to the box, by variant)."""
        if s.phase not in (INITIAL, KEEP):
            raise IllegalAction("no tickets are waiting to be chosen: draw tickets first")
        p = s.current
        offer = s.offers[p]
        if len(set(kept)) != len(kept) or any(t not in offer for t in kept):
            raise IllegalAction("keep only tickets you were offered: "
                                + " ".join(self._ticket_id(t) for t in sorted(offer)))
        min_keep, max_long = self.keep_rule(s)
        if len(kept) < min_keep:
            raise IllegalAction(f"keep at least {min_keep} of the {len(offer)} tickets")
        longs = sum(1 for t in kept if self._is_long(t))
        if longs > max_long:
            raise IllegalAction(f"keep at most {max_long} long ticket{'s' if max_long != 1 else ''}")
        s.tickets[p].extend(kept)
        returned = [t for t in offer if t not in kept]
        s.offers[p] = []
        if s.phase == KEEP:
            s.ticket_deck[0:0] = returned[::-1]  # under the deck, first returned lowest
            self._end_turn(s)
            return
        ini = self.variant.initial
        if ini.returned != "box":  # long tickets always go to the box; regular ones wait until all have chosen
            s.set_aside.extend(t for t in returned if not self._is_long(t))
        if s.deal_step + 1 < len(ini.steps):  # the same player's next offer: only now are its tickets seen
            s.deal_step += 1
            s.offers[p] = [s.ticket_deck.pop() for _ in range(ini.steps[s.deal_step].regular)]
            return
        s.deal_step = 0
        s.initial_pending.remove(p)
        if s.initial_pending:
            s.current = s.initial_pending[0]
            return
        # everybody has chosen: all the returned tickets go under the deck together, shuffled as one pile
        # (rules decision), so no player knows where their own returns lie
        back = s.set_aside
        if ini.returned == "under_shuffled":
            s.rng.shuffle(back)
        s.ticket_deck[0:0] = back[::-1]
        s.set_aside = []
        s.phase = MAIN
        s.current = s.first

    def _ticket_id(self, t: int) -> str:
        return self.board.tickets[t].id

    def _is_long(self, t: int) -> bool:
        return self.board.tickets[t].long

    # --- passing, and the end of a turn
    @cython.locals(s=State)
    def _pass(self, s: State) -> None:
        """Pass: only when no other move is possible (rules decision); a whole round of passes ends the game."""
        if s.phase != MAIN:
            raise IllegalAction("you may only pass when no other move is possible")
        draws, deck, tickets, claims, stations = self.moves.main_parts(s)
        if draws or deck or tickets or claims or stations is not None:
            raise IllegalAction("you may only pass when no other move is possible")
        s.passes += 1
        self._end_turn(s, True)

    @cython.ccall
    @cython.locals(s=State, p=cython.int, passed=cython.bint)
    def _end_turn(self, s: State, passed: bool = False) -> None:
        """Refill the market; a player left with ``end_trigger`` pieces or fewer starts the final round, in
        which everybody, that player included, has one more turn."""
        p = s.current
        s.phase = MAIN
        s.turn += 1
        if not passed:
            s.passes = 0
        if EMPTY in s.market:
            refill_market(s, self.board)
        if s.final_turns >= 0:
            s.final_turns -= 1
            if s.final_turns == 0:
                s.phase = OVER
                return
        elif s.wagons[p] <= self.end_trigger:
            s.final_turns = s.n_players
        if s.passes >= s.n_players:  # nobody could move for a whole round: nothing can change any more
            s.phase = OVER
            return
        s.current = (p + 1) % s.n_players


def rules_for(board: Board, variant: Variant) -> Rules:
    """The rules object of ``variant`` on ``board``: stateless, so one is made per board and variant and
    shared by every game on it (kept on the board)."""
    found = board._rules.get(variant.name)
    if found is None:
        found = board._rules[variant.name] = Rules(board, variant)
    return found
