"""The complete, mutable state of one Ticket to Ride game.

Everything is flat lists of small ints (card counts per colour, owner per route, ticket indices),
because legal-action generation reads it thousands of times per second and ``clone`` must be
cheap for search bots. Hidden information lives here too (deck order, hands, tickets); only
``view.py`` decides what a seat may see.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cython

from tracklayer.core.rng import Rng

# phases
INITIAL = "initial"  # players choose their starting tickets
MAIN = "main"  # start of a turn: any of the four actions
SECOND_DRAW = "second_draw"  # took one card, may take another
KEEP = "keep"  # drew tickets, chooses which to keep
TUNNEL = "tunnel"  # tunnel cards revealed: pay or decline
OVER = "over"

FREE = -1  # route owner: nobody


@dataclass(slots=True)
class Tunnel:
    """A tunnel claim in progress: the cards laid down wait on the table until pay or decline."""

    route: int
    color: int  # colour of the non-locomotive cards laid down, or -1
    n_color: int
    n_loco: int
    revealed: list[int]
    extra: int  # cards still to add

    def to_dict(self) -> dict[str, Any]:
        return {"route": self.route, "color": self.color, "n_color": self.n_color, "n_loco": self.n_loco,
                "revealed": list(self.revealed), "extra": self.extra}


# what a saved state holds, in the order it is written (``owned`` is derived from ``route_owner``)
SAVED = ("current", "deal_step", "deck", "discard", "final_turns", "first", "hands", "initial_pending",
         "last_reveal", "market", "n_players", "offers", "passes", "phase", "rng", "route_owner", "route_points",
         "set_aside", "station_owner", "stations_left", "ticket_deck", "tickets", "tunnel", "turn", "wagons")


@cython.cclass
class State:
    """Compiled, the fields are typed (C ints, exact lists), so the rules read them without lookups."""

    # the C declarations are in state.pxd; these name what the fields hold
    n_players: int
    current: int
    first: int
    turn: int
    final_turns: int
    passes: int
    deal_step: int
    phase: str
    rng: Rng
    deck: list[int]
    discard: list[int]
    market: list[int]
    hands: list[list[int]]
    wagons: list[int]
    stations_left: list[int]
    station_owner: list[int]
    route_owner: list[int]
    route_points: list[int]
    owned: list[int]
    tickets: list[list[int]]
    ticket_deck: list[int]
    offers: list[list[int]]
    initial_pending: list[int]
    set_aside: list[int]
    last_reveal: list[int]
    tunnel: Tunnel | None

    def __init__(self, n_players: int, n_routes: int, n_cities: int, n_cards: int, wagons: int,
                 stations: int, rng: Rng) -> None:
        self.n_players = n_players
        self.rng = rng
        self.deck = []  # top of the deck is the END of the list
        self.discard = []
        self.market = []  # card index per slot, -1 = empty slot
        self.hands = [[0] * n_cards for _ in range(n_players)]
        self.wagons = [wagons] * n_players
        self.stations_left = [stations] * n_players
        self.station_owner = [FREE] * n_cities
        self.route_owner = [FREE] * n_routes
        self.route_points = [0] * n_players
        # per player, the lanes it owns as a bitmask (bit i = route i), derived from route_owner: the views'
        # and encoders' caches are keyed by it
        self.owned = [0] * n_players
        self.tickets = [[] for _ in range(n_players)]
        self.ticket_deck = []  # top is the END of the list
        self.offers = [[] for _ in range(n_players)]  # tickets on offer per player
        self.initial_pending = []  # players still to choose starting tickets, in order
        self.deal_step = 0  # which offer of the starting deal the player to choose is at (Mega: 0 long, 1 regular)
        # starting tickets returned to go under the deck: set aside, face down and out of play, until every
        # player has chosen, then shuffled together (so nobody knows where their own returns lie)
        self.set_aside = []
        self.phase = INITIAL
        self.current = 0
        self.first = 0  # seat that takes the first turn
        self.turn = 0  # completed turns
        self.final_turns = -1  # -1: end not triggered; else turns left in the final round
        self.passes = 0  # consecutive passes (a full round of them ends a stuck game)
        self.tunnel = None
        self.last_reveal = []  # cards the latest tunnel claim revealed (public)

    @cython.ccall
    def clone(self) -> State:
        new = cython.declare(State, State.__new__(State))
        new.n_players = self.n_players
        new.rng = Rng(self.rng.state)
        new.deck = self.deck[:]
        new.discard = self.discard[:]
        new.market = self.market[:]
        new.hands = [h[:] for h in self.hands]
        new.wagons = self.wagons[:]
        new.stations_left = self.stations_left[:]
        new.station_owner = self.station_owner[:]
        new.route_owner = self.route_owner[:]
        new.route_points = self.route_points[:]
        new.owned = self.owned[:]
        new.tickets = [t[:] for t in self.tickets]
        new.ticket_deck = self.ticket_deck[:]
        new.offers = [o[:] for o in self.offers]
        new.initial_pending = self.initial_pending[:]
        new.deal_step = self.deal_step
        new.set_aside = self.set_aside[:]
        new.phase = self.phase
        new.current = self.current
        new.first = self.first
        new.turn = self.turn
        new.final_turns = self.final_turns
        new.passes = self.passes
        new.last_reveal = self.last_reveal[:]
        t = self.tunnel
        new.tunnel = None if t is None else Tunnel(t.route, t.color, t.n_color, t.n_loco, t.revealed[:], t.extra)
        return new

    def to_dict(self) -> dict[str, Any]:
        """Complete snapshot (secrets included, derived caches left out): for saving and checking replays."""
        out: dict[str, Any] = {}
        for name in SAVED:
            value = getattr(self, name)
            if name == "rng":
                value = value.state
            elif name == "tunnel":
                value = None if value is None else value.to_dict()
            elif isinstance(value, list):  # a snapshot: never hand out the live lists
                value = [x[:] if isinstance(x, list) else x for x in value]
            out[name] = value
        return out

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self.to_dict() == other.to_dict()

    # defining __eq__ leaves the class unhashable, as a mutable state should be
