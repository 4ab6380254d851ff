"""Ticket to Ride turn rules: setup, legal actions, and applying an action.

One module holds the whole turn structure so each rule lives in exactly one place. ``apply``
checks everything before it changes anything, so an :class:`IllegalAction` leaves the state as it
was. Legal-action generation is the hot path of random play, search bots and RL: payment choices
are computed once per distinct (colour, length, ferry) signature and turned into interned actions by
list lookups.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tracklayer.core.errors import IllegalAction
from tracklayer.core.rng import Rng
from tracklayer.ttr.actions import (
    NONE,
    Action,
    BuildStation,
    ClaimRoute,
    DeclineTunnel,
    DrawCard,
    DrawTickets,
    KeepTickets,
    Pass,
    PayTunnel,
)
from tracklayer.ttr.board import GRAY, Board, Variant
from tracklayer.ttr.cards import EMPTY, can_draw_from_deck, discard, draw_from_deck, refill_market, take_face_up
from tracklayer.ttr.legal import ActionList
from tracklayer.ttr.state import FREE, INITIAL, KEEP, MAIN, OVER, SECOND_DRAW, TUNNEL, State, Tunnel

TUNNEL_REVEAL = 3

# Bounds of the memos below. A Rules object is shared by every game on its board for the life of the
# process (a server runs for weeks), so a memo keyed by positions must not grow without end: it is
# cleared when full (one rebuild), which keeps the long-lived heap, and with it the time of every full
# garbage collection, bounded. Sizes: comfortably above what one game's positions repeat.
PAY_MEMO_HANDS = 8_192  # hands -> payment options (was 20,000)
DRAWS_MEMO = 4_096  # markets -> the card kinds on them
FREE_CITIES_MEMO = 4_096  # station owners -> the free cities (was 10,000)
BIT_LISTS_MEMO = 8_192  # route bitmasks -> their route indices (was unbounded)
CLAIMABLE_MEMO = 32  # the key changes only on claims: recent positions are all that repeat
COLOR_MEMO = 512  # per colour: its available routes -> its claimable groups


class Rules:
    """The rules of one board + variant; stateless apart from those (states are passed in)."""

    def __init__(self, board: Board, variant: Variant) -> None:
        self.board = board
        self.variant = variant
        self.table = board.actions
        self.loco = board.loco
        self._city_ids = range(len(board.cities))
        # per-route tuples: attribute lookups on the hot path cost more than the work itself
        # payment options by hand, then by (length << 4 | ferry locomotives): a pure function, memoised
        self._pay_memo: dict[tuple[int, ...], dict[int, tuple[tuple[int, int], ...]]] = {}
        self._bit_lists: dict[int, tuple[int, ...]] = {}
        self._claimable_memo: dict[tuple[int, int, int], tuple[Any, Any]] = {}
        routes = board.routes
        self._wagon_masks = [sum(1 << r.index for r in routes if r.length <= w)
                             for w in range(max(r.length for r in routes) + 1)]
        sigs: dict[tuple[int, int, int], int] = {}
        for r in routes:
            sig = (r.color, r.length, r.locomotives)
            sigs[sig] = sigs.get(sig, 0) | 1 << r.index
        sig_masks = sorted(sigs.items(), key=lambda kv: (kv[1] & -kv[1]).bit_length())  # the engine's order
        # the signatures per colour, shortest first, with their place in that order (see _claimable) ...
        per_color: dict[int, list[tuple[int, int, int, int]]] = {}
        for order, ((color, length, ferry), mask) in enumerate(sig_masks):
            per_color.setdefault(color, []).append((length, ferry, order, mask))
        colors = sorted(per_color, key=lambda c: (c == GRAY, c))  # GRAY last
        # ... and the union of each colour's signature masks: a claim changes the groups of one colour (and
        # GRAY), so each colour's groups are memoised on its own available routes (see _claimable)
        color_sigs = [(c, tuple(sorted(per_color[c]))) for c in colors]
        # (colour, its signatures, their union, memo: the colour's available routes -> (colour, its groups))
        self._color_unions: tuple[tuple[int, Any, int, dict[int, Any]], ...] = tuple(
            (c, groups, sum(m for *_, m in groups), {}) for c, groups in color_sigs)
        self._identical = [(r.identical_to, r.index) for r in routes if r.identical_to != r.index]
        self._twin_masks = [sum(1 << t for t in r.twins) for r in routes]
        self._free_cities: dict[tuple[int, ...], tuple[int, ...]] = {}
        self._draws: dict[tuple[int, ...], tuple[int, ...]] = {}  # market -> the card kinds on it, sorted
        self._longest = max(r.length for r in board.routes)
        top = max(self._longest, *board.station_costs) + 1 if board.station_costs else self._longest + 1
        # _pay_pairs[colour][lo][stop]: the payments (colour, lo) .. (colour, stop - 1) as one shared tuple
        self._pay_pairs = [[[tuple((c, nl) for nl in range(lo, stop)) for stop in range(top + 1)]
                            for lo in range(top + 1)] for c in range(self.loco)]
        self._rows = [(r.index, r.length, r.color, r.locomotives, r.twins, r.identical_to) for r in board.routes]

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

    def resync(self, s: State) -> None:
        """Recompute the route bitmasks from ``route_owner`` (after editing a state by hand)."""
        closed = s.n_players in self.board.closed_with_players
        s.open_routes = 0
        s.barred = [0] * s.n_players
        s.owned = [0] * s.n_players
        for r in self.board.routes:
            owner = s.route_owner[r.index]
            if owner != FREE:
                s.barred[owner] |= self._twin_masks[r.index]
                s.owned[owner] |= 1 << r.index
            elif not (closed and any(s.route_owner[t] != FREE for t in r.twins)):
                s.open_routes |= 1 << r.index

    # ------------------------------------------------------------------ legal actions
    def legal_actions(self, s: State) -> Sequence[Action]:
        phase = s.phase
        if phase == MAIN:
            actions = self._main_actions(s)
            return actions if len(actions) else [self.table.pass_]
        if phase == SECOND_DRAW:
            return self._second_draws(s)
        if phase == KEEP:
            return self.table.keep_choices(s.offers[s.current], self.variant.draw_min_keep, len(s.offers[s.current]))
        if phase == INITIAL:
            return self.table.keep_choices(s.offers[s.current], *self.keep_rule(s))
        if phase == TUNNEL:
            return [*self._tunnel_payments(s), self.table.decline]
        return []

    def _second_draws(self, s: State) -> list[Action]:
        loco = self.board.loco
        draw = self.table._draw
        out: list[Action] = [draw[c] for c in sorted(set(s.market)) if c != EMPTY and c != loco]
        if s.deck or s.discard:
            out.append(self.table.draw_deck)
        return out

    def _main_actions(self, s: State) -> ActionList:
        draws, deck, tickets, found, stations = self.main_parts(s)
        table = self.table
        draw = table._draw
        head: list[Action] = [draw[c] for c in draws]
        if deck:
            head.append(table.draw_deck)
        if tickets:
            head.append(table.draw_tickets)
        out = ActionList(table, head)
        if len(found) > 1:
            found.sort()  # the engine's order of groups
        for block in found:
            if len(block) == 3:
                out.add_gray(block[1], block[2])
            else:
                out.add_colored(*block[1:])
        if stations is not None:
            out.add_stations(*stations)
        return out

    def main_parts(self, s: State) -> tuple[tuple[int, ...], bool, bool, list[tuple[Any, ...]], Any]:
        """The legal moves of a main-phase turn as parts, before any action object is made (``legal_actions``
        builds its list from them, encoders their masks): ``(draws, deck, tickets, claims, stations)``.

        * ``draws``: the card kinds on the market, sorted; ``deck``, ``tickets``: whether those piles may
          be drawn from;
        * ``claims``: groups of routes of one payment signature, unordered: ``(order, routes, length,
          colour, lo, hi)`` for a coloured group (pay ``lo .. hi`` locomotives and the rest in the colour),
          ``(order, routes, options)`` for a grey one (each ``(colour, n_loco)`` of ``options``), where
          ``order`` is the group's place in the engine's order;
        * ``stations``: ``(free cities, cost, options)`` or None.

        No part at all: the player can only pass.
        """
        b = self.board
        p = s.current
        hand = s.hands[p]
        n_loco_cards = hand[self.loco]
        market = s.market
        draws = self._draws.get(tuple(market))
        if draws is None:
            if len(self._draws) >= DRAWS_MEMO:
                self._draws.clear()
            draws = self._draws[tuple(market)] = tuple(sorted({c for c in market if c != EMPTY}))
        memo = self._pay_memo
        if len(memo) >= PAY_MEMO_HANDS:
            memo.clear()
        hkey = tuple(hand)  # hashed once here; the inner memo is keyed by small ints
        hmemo = memo.get(hkey)
        if hmemo is None:
            hmemo = memo[hkey] = {}
        # claimable groups per colour, shortest first: a colour's groups stop being payable at the first
        # one longer than its cards plus the locomotives, so most groups are never looked at
        by_color, gray = self._claimable(s, p)
        found: list[tuple[Any, ...]] = []
        for color, groups in by_color:
            have = hand[color]
            bound = have + n_loco_cards
            for length, ferry, order, routes in groups:
                if length > bound:
                    break
                if ferry <= n_loco_cards:
                    lo = length - have
                    found.append((order, routes, length, color, lo if lo > ferry else ferry,
                                  length if n_loco_cards > length else n_loco_cards))
        if gray:
            bound = max(hand[:self.loco]) + n_loco_cards
            for length, ferry, order, routes in gray:
                if length > bound:
                    break
                sig = length << 4 | ferry
                opts = hmemo.get(sig)
                if opts is None:
                    opts = hmemo[sig] = self._gray_payments(hand, length, ferry)
                if opts:
                    found.append((order, routes, opts))
        stations = None
        if s.stations_left[p]:
            cost = b.station_costs[b.stations - s.stations_left[p]]
            sig = cost << 4
            opts = hmemo.get(sig)
            if opts is None:
                opts = hmemo[sig] = self._gray_payments(hand, cost, 0)
            if opts:
                owners = s.station_owner
                okey = tuple(owners)
                free = self._free_cities.get(okey)
                if free is None:
                    if len(self._free_cities) >= FREE_CITIES_MEMO:
                        self._free_cities.clear()
                    free = self._free_cities[okey] = tuple(c for c in self._city_ids if owners[c] == FREE)
                if free:
                    stations = (free, cost, opts)
        return draws, bool(s.deck or s.discard), bool(s.ticket_deck), found, stations

    def _claimable(self, s: State, p: int) -> tuple[Any, Any]:
        """Routes ``p`` may claim (ignoring cards), grouped by payment signature (colour, length, ferry):
        ``(by_colour, gray)``, where ``by_colour`` lists ``(colour, groups)`` and every group list holds
        ``(length, ferry, order, routes)`` sorted by length (``order``: the group's place in the engine's
        order of signatures, by lowest route).

        Works on bitmasks kept up to date by ``_take_route``: one AND per signature instead of a
        check per route, and the route lists of a masked group are memoised by their bits. The whole
        answer is a pure function of (open routes, the player's barred lanes, wagons up to the longest
        route), which change only on claims: memoised on those.
        """
        wagons = s.wagons[p]
        key = (s.open_routes, s.barred[p], wagons if wagons < self._longest else self._longest)
        memo = self._claimable_memo
        out = memo.get(key)
        if out is not None:
            return out
        if len(memo) >= CLAIMABLE_MEMO:
            memo.clear()
        open_routes = s.open_routes
        avail = open_routes & ~key[1] & self._wagon_masks[key[2]]
        for low, high in self._identical:
            if open_routes >> low & 1:
                avail &= ~(1 << high)  # an identical lane with a lower id is offered instead
        lists = self._bit_lists
        by_color = []
        gray: tuple[tuple[int, int, int, tuple[int, ...]], ...] = ()
        for color, sigs, union, cmemo in self._color_unions:  # the colours, then GRAY
            bits = avail & union
            entry = cmemo.get(bits)
            if entry is None:
                found = []
                for length, ferry, order, mask in sigs:
                    sub = bits & mask
                    if sub:
                        routes = lists.get(sub)
                        if routes is None:
                            if len(lists) >= BIT_LISTS_MEMO:
                                lists.clear()
                            routes = lists[sub] = tuple(i for i in range(sub.bit_length()) if sub >> i & 1)
                        found.append((length, ferry, order, routes))
                if len(cmemo) >= COLOR_MEMO:
                    cmemo.clear()
                entry = cmemo[bits] = (color, tuple(found))
            if color == GRAY:
                gray = entry[1]
            elif entry[1]:
                by_color.append(entry)
        out = memo[key] = (tuple(by_color), gray)  # shared by every caller: immutable
        return out

    def _gray_payments(self, hand: list[int], length: int, ferry: int) -> tuple[tuple[int, int], ...]:
        """(colour, n_loco) pairs that pay ``length`` cards of one colour with at least ``ferry`` wilds.

        A tuple, not a list: these are memoised in bulk, and tuples of ints are untracked by the
        cyclic garbage collector, so a large memo costs the collector nothing.
        """
        n_loco = hand[self.loco]
        stop = n_loco + 1 if n_loco < length else length  # at least one coloured card: <= length - 1 wilds
        pairs = self._pay_pairs
        out: tuple[tuple[int, int], ...] = ()
        for c, have in enumerate(hand[:self.loco]):
            if have:
                lo = length - have  # wilds needed besides this colour's cards
                if lo < ferry:
                    lo = ferry
                if lo < stop:
                    out += pairs[c][lo][stop]  # (c, lo) .. (c, stop - 1), made once per board
        if n_loco >= length:
            out += ((NONE, length),)
        return out

    def _tunnel_payments(self, s: State) -> list[Action]:
        t = s.tunnel
        assert t is not None
        hand = s.hands[s.current]
        n_loco = hand[self.board.loco]
        x = t.extra
        pay = self.table.pay
        if t.color == NONE:
            return [pay(NONE, 0, x)] if n_loco >= x else []
        lo = max(0, x - hand[t.color])
        return [pay(t.color, x - nl, nl) for nl in range(lo, min(x, n_loco) + 1)]

    # ------------------------------------------------------------------ apply
    def apply(self, s: State, action: Action) -> Action:
        """Check ``action`` and play it; returns the action as recorded (canonical lane)."""
        if s.phase == OVER:
            raise IllegalAction("the game is over")
        if isinstance(action, DrawCard):
            self._draw_card(s, action)
        elif isinstance(action, ClaimRoute):
            action = self._claim(s, action)
        elif isinstance(action, KeepTickets):
            self._keep(s, action)
        elif isinstance(action, DrawTickets):
            self._need_main(s, "draw tickets")
            if not s.ticket_deck:
                raise IllegalAction("the ticket deck is empty")
            n = min(self.variant.draw_count, len(s.ticket_deck))
            s.offers[s.current] = [s.ticket_deck.pop() for _ in range(n)]
            s.phase = KEEP
        elif isinstance(action, BuildStation):
            self._station(s, action)
        elif isinstance(action, PayTunnel):
            self._pay_tunnel(s, action)
        elif isinstance(action, DeclineTunnel):
            t = self._need_tunnel(s, "decline")
            hand = s.hands[s.current]
            if t.n_color:
                hand[t.color] += t.n_color
            hand[self.board.loco] += t.n_loco
            s.tunnel = None
            discard(s, self.board, t.revealed)
            self._end_turn(s)
        elif isinstance(action, Pass):
            if s.phase != MAIN or len(self._main_actions(s)):
                raise IllegalAction("you may only pass when no other move is possible")
            s.passes += 1
            self._end_turn(s, passed=True)
        else:
            raise IllegalAction(f"not a Ticket to Ride action: {action!r}")
        return action

    def _phase_error(self, s: State, doing: str) -> IllegalAction:
        what = {
            INITIAL: "choose your starting tickets first (keep ...)",
            KEEP: "choose which of the drawn tickets to keep first (keep ...)",
            SECOND_DRAW: "take your second card (draw ...) first",
            TUNNEL: "pay for the tunnel or decline first",
            MAIN: "it is the start of a turn",
        }[s.phase]
        return IllegalAction(f"cannot {doing} now: {what}")

    def _need_main(self, s: State, doing: str) -> None:
        if s.phase != MAIN:
            raise self._phase_error(s, doing)

    def _need_tunnel(self, s: State, doing: str) -> Tunnel:
        if s.phase != TUNNEL or s.tunnel is None:
            raise IllegalAction(f"cannot {doing}: no tunnel claim is waiting for payment")
        return s.tunnel

    def _check_hand(self, s: State, color: int, n_color: int, n_loco: int) -> None:
        b = self.board
        hand = s.hands[s.current]
        if n_color < 0 or n_loco < 0:
            raise IllegalAction("card counts cannot be negative")
        if n_color and not 0 <= color < len(b.colors):
            raise IllegalAction("the payment names no card colour")
        if n_color and hand[color] < n_color:
            raise IllegalAction(f"you have {hand[color]} {b.colors[color]} card(s), not {n_color}")
        if hand[b.loco] < n_loco:
            raise IllegalAction(f"you have {hand[b.loco]} {b.locomotive_name}(s), not {n_loco}")

    def _pay(self, s: State, color: int, n_color: int, n_loco: int) -> None:
        discard(s, self.board, self._take_cards(s, color, n_color, n_loco))

    def _take_cards(self, s: State, color: int, n_color: int, n_loco: int) -> list[int]:
        """Take a payment out of the current player's hand; the caller puts it on the discard pile."""
        hand = s.hands[s.current]
        if n_color:  # no colour cards: ``color`` may be NONE
            hand[color] -= n_color
        hand[self.board.loco] -= n_loco
        return [color] * n_color + [self.board.loco] * n_loco

    def _draw_card(self, s: State, action: DrawCard) -> None:
        b = self.board
        if s.phase not in (MAIN, SECOND_DRAW):
            raise self._phase_error(s, "draw a card")
        card = action.card
        second = s.phase == SECOND_DRAW
        if card is None:
            if not can_draw_from_deck(s):
                raise IllegalAction("the deck and the discard pile are empty")
            s.hands[s.current][draw_from_deck(s)] += 1
        else:
            if not 0 <= card <= b.loco or card not in s.market:
                raise IllegalAction(f"no {b.card_name(card) if 0 <= card <= b.loco else card} card is face up")
            if second and card == b.loco:
                raise IllegalAction(f"a face-up {b.locomotive_name} cannot be taken as the second card")
            take_face_up(s, b, card)
        if second or card == b.loco:
            self._end_turn(s)
            return
        s.phase = SECOND_DRAW
        if not self._second_draws(s):  # rules decision: no legal second card ends the turn
            self._end_turn(s)

    def _claim_problem(self, s: State, ri: int) -> str | None:
        b = self.board
        r = b.routes[ri]
        owner = s.route_owner
        p = s.current
        if owner[ri] != FREE:
            return f"{b.route_label(ri)} is already claimed by player {owner[ri] + 1}"
        for t in r.twins:
            if owner[t] == p:
                return (f"you already own the other lane of {b.route_label(ri)}; nobody may own both lanes of a "
                        "double route")
            if owner[t] != FREE and s.n_players in b.closed_with_players:
                return (f"{b.route_label(ri)} is closed: with {s.n_players} players only one lane of a double "
                        "route may be used")
        if s.wagons[p] < r.length:
            return f"{b.route_label(ri)} needs {r.length} {b.piece_name}s and you have {s.wagons[p]}"
        return None

    def _claim(self, s: State, action: ClaimRoute) -> ClaimRoute:
        b = self.board
        self._need_main(s, "claim a route")
        ri = action.route
        if not 0 <= ri < len(b.routes):
            raise IllegalAction(f"no route {ri}")
        r = b.routes[ri]
        if r.identical_to != ri and s.route_owner[r.identical_to] == FREE:
            ri = r.identical_to  # identical lanes are interchangeable: record the first free one
            r = b.routes[ri]
            action = self.table.claim(ri, action.color, action.n_loco)
        problem = self._claim_problem(s, ri)
        if problem:
            raise IllegalAction(problem)
        color, n_color, n_loco = action.color, action.n_color, action.n_loco
        if n_color + n_loco != r.length:
            raise IllegalAction(f"{b.route_label(ri)} needs {r.length} cards, the payment has {n_color + n_loco}")
        if n_color and r.color != GRAY and color != r.color:
            raise IllegalAction(f"{b.route_label(ri)} is {b.colors[r.color]}: pay with {b.colors[r.color]} cards "
                                f"or {b.locomotive_name}s, not {b.colors[color]}")
        if n_loco < r.locomotives:
            raise IllegalAction(f"{b.route_label(ri)} is a ferry: it needs at least {r.locomotives} "
                                f"{b.locomotive_name}(s)")
        self._check_hand(s, color, n_color, n_loco)
        if not r.tunnel:
            self._pay(s, color, n_color, n_loco)
            self._take_route(s, ri)
            self._end_turn(s)
            return action
        # tunnel: cards go on the table, then the top cards of the deck are revealed
        hand = s.hands[s.current]
        if n_color:
            hand[color] -= n_color
        hand[b.loco] -= n_loco
        revealed = []
        for _ in range(TUNNEL_REVEAL):
            card = draw_from_deck(s)
            if card == EMPTY:
                break
            revealed.append(card)
        s.last_reveal = revealed[:]
        counted = color if n_color else NONE
        extra = sum(1 for c in revealed if c == b.loco or c == counted)
        tunnel = Tunnel(ri, counted, n_color, n_loco, revealed, extra)
        if extra == 0:
            self._finish_tunnel(s, tunnel)
        else:
            s.tunnel = tunnel
            s.phase = TUNNEL
        return action

    def _finish_tunnel(self, s: State, t: Tunnel, extra: list[int] | None = None) -> None:
        """Build the tunnel: the extra payment, the cards played and the revealed ones are discarded
        together, as one move, so the locomotive rule sees them all at once."""
        s.tunnel = None
        discard(s, self.board, [*(extra or ()), *[t.color] * t.n_color, *[self.board.loco] * t.n_loco, *t.revealed])
        self._take_route(s, t.route)
        self._end_turn(s)

    def _pay_tunnel(self, s: State, action: PayTunnel) -> None:
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

    def _take_route(self, s: State, ri: int) -> None:
        p = s.current
        r = self.board.routes[ri]
        s.route_owner[ri] = p
        s.open_routes &= ~(1 << ri)
        s.owned[p] |= 1 << ri
        twins = self._twin_masks[ri]
        if twins:
            s.barred[p] |= twins
            if s.n_players in self.board.closed_with_players:
                s.open_routes &= ~twins
        s.wagons[p] -= r.length
        s.route_points[p] += self.board.route_score[ri]

    def _station(self, s: State, action: BuildStation) -> None:
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
        self._pay(s, action.color, action.n_color, action.n_loco)
        s.station_owner[city] = p
        s.stations_left[p] -= 1
        self._end_turn(s)

    def keep_rule(self, s: State) -> tuple[int, int]:
        """``(at least, at most long)``: how many of the offered tickets the player to move must keep, and
        how many long ones they may keep. A starting offer's minimum can depend on the steps before
        (Mega: 2 of the 5 regular tickets after keeping a long one, else 3)."""
        offer = s.offers[s.current]
        if s.phase == INITIAL:
            step = self.variant.initial.steps[s.deal_step]
            return step.least(len(s.tickets[s.current]), len(offer)), step.max_keep_long
        return min(self.variant.draw_min_keep, len(offer)), len(offer)

    def _keep(self, s: State, action: KeepTickets) -> None:
        if s.phase not in (INITIAL, KEEP):
            raise IllegalAction("no tickets are waiting to be chosen: draw tickets first")
        p = s.current
        offer = s.offers[p]
        kept = action.tickets
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

    def _end_turn(self, s: State, passed: bool = False) -> None:
        b = self.board
        p = s.current
        s.phase = MAIN
        s.turn += 1
        if not passed:
            s.passes = 0
        if EMPTY in s.market:
            refill_market(s, b)
        if s.final_turns >= 0:
            s.final_turns -= 1
            if s.final_turns == 0:
                s.phase = OVER
                return
        elif s.wagons[p] <= b.end_trigger:
            s.final_turns = s.n_players
        if s.passes >= s.n_players:  # nobody could move for a whole round: nothing can change any more
            s.phase = OVER
            return
        s.current = (p + 1) % s.n_players
