"""Ticket to Ride actions and their text notation.

Actions are immutable and *interned per board*: the same move is the same object in every game on
that board, so legal-action generation is list lookups rather than allocations, and ``str(action)``
is a precomputed string. Equality and hashing go by ``key`` so that an action parsed from text
equals the one produced by ``legal_actions``. The notation is documented in ``docs/notation.md``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tracklayer.core.action import Action as Action  # re-exported: the family's action base
from tracklayer.core.errors import NotationError, UnknownName
from tracklayer.core.names import fold

if TYPE_CHECKING:
    from tracklayer.ttr.board import Board

NONE = -1  # "no colour" in a payment: only locomotives were played
# The action table lives as long as its board (the whole process); these memos are keyed by ticket
# offers, which differ from game to game, so they are cleared when full: unbounded, they grew the
# long-lived heap (tens of thousands of lists and actions) that every full garbage collection walks.
KEEP_MEMO = 4_096  # ticket subsets -> their KeepTickets action


class DrawCard(Action):
    """Take a face-up card of a colour (``card`` = card index) or the top of the deck (``card`` None)."""

    __slots__ = ()
    key: tuple[str, int | None]
    kind = "draw"

    @property
    def card(self) -> int | None:
        return self.key[1]


class _Payment(Action):
    __slots__ = ()
    key: tuple[str, int | None, int, int, int]  # ("pay", None, ...) for a tunnel payment

    @property
    def color(self) -> int:
        """Colour of the non-locomotive cards, or ``NONE`` when only locomotives are played."""
        return self.key[2]

    @property
    def n_color(self) -> int:
        return self.key[3]

    @property
    def n_loco(self) -> int:
        return self.key[4]


class ClaimRoute(_Payment):
    __slots__ = ()
    key: tuple[str, int, int, int, int]
    kind = "claim"

    @property
    def route(self) -> int:
        return self.key[1]


class BuildStation(_Payment):
    __slots__ = ()
    key: tuple[str, int, int, int, int]
    kind = "station"

    @property
    def city(self) -> int:
        return self.key[1]


class PayTunnel(_Payment):
    __slots__ = ()
    kind = "pay"


class DeclineTunnel(Action):
    __slots__ = ()
    kind = "decline"


class DrawTickets(Action):
    __slots__ = ()
    kind = "tickets"


class KeepTickets(Action):
    """Keep these tickets (sorted ticket indices) of the ones offered; the others are returned."""

    __slots__ = ()
    key: tuple[str, tuple[int, ...]]
    kind = "keep"

    @property
    def tickets(self) -> tuple[int, ...]:
        return self.key[1]


class Pass(Action):
    """Only legal when nothing else is: a player with no possible move passes."""

    __slots__ = ()
    kind = "pass"


_PAYMENT_TERM = re.compile(r"^\s*(\d+)\s*[x×*]?\s*([^\d\s][^+]*?)\s*$")


class ActionTable:
    """Interned actions of one board plus the notation (formatting and parsing)."""

    def __init__(self, board: Board) -> None:
        self.board = board
        n_cards = len(board.colors) + 1
        self._loco_names = {fold(board.locomotive_name), fold(board.locomotive_name) + "s", "loco", "locos",
                            "locomotive", "locomotives", "wild"}
        self._draw = [DrawCard(("draw", c), f"draw {board.card_name(c)}") for c in range(n_cards)]
        self.draw_deck = DrawCard(("draw", None), "draw deck")
        self.decline = DeclineTunnel(("decline",), "decline")
        self.draw_tickets = DrawTickets(("tickets",), "tickets")
        self.pass_ = Pass(("pass",), "pass")
        # payment-indexed caches: [target][color + 1][n_loco] for claims/pay, dict for stations/keeps
        self._claims: list[list[list[ClaimRoute | None]]] = [
            [[None] * (r.length + 1) for _ in range(n_cards)] for r in board.routes]
        # bounded by the board (cities x colours x payments): interned for the life of the board
        self._stations: dict[tuple[int, int, int, int], BuildStation] = {}
        self._pays: dict[tuple[int, int, int], PayTunnel] = {}
        # keyed by the tickets offered, which differ from game to game: cleared when full (see KEEP_MEMO)
        self._keeps: dict[tuple[int, ...], KeepTickets] = {}
        self._ticket_ids = [t.id for t in board.tickets]

    # ----------------------------------------------------------------- constructors (interned)
    def draw(self, card: int) -> DrawCard:
        return self._draw[card]

    def payment_text(self, color: int, n_color: int, n_loco: int) -> str:
        b = self.board
        parts = []
        if n_color:
            parts.append(f"{n_color} {b.colors[color]}")
        if n_loco or not parts:
            parts.append(f"{n_loco} {b.locomotive_name}")
        return " + ".join(parts)

    def claim(self, route: int, color: int, n_loco: int) -> ClaimRoute:
        """Claim ``route`` paying ``length - n_loco`` cards of ``color`` and ``n_loco`` locomotives."""
        slot = self._claims[route][color + 1]
        action = slot[n_loco]
        if action is None:
            length = self.board.routes[route].length
            n_color = length - n_loco
            if n_color == 0:
                color = NONE
            key = ("claim", route, color, n_color, n_loco)
            text = f"claim {self.board.route_label(route)}: {self.payment_text(color, n_color, n_loco)}"
            action = slot[n_loco] = ClaimRoute(key, text)
        return action

    def station(self, city: int, color: int, n_color: int, n_loco: int) -> BuildStation:
        if n_color == 0:
            color = NONE
        k = (city, color, n_color, n_loco)
        action = self._stations.get(k)
        if action is None:
            text = f"station {self.board.cities[city]}: {self.payment_text(color, n_color, n_loco)}"
            action = self._stations[k] = BuildStation(("station", *k), text)
        return action

    def pay(self, color: int, n_color: int, n_loco: int) -> PayTunnel:
        if n_color == 0:
            color = NONE
        k = (color, n_color, n_loco)
        action = self._pays.get(k)
        if action is None:
            action = self._pays[k] = PayTunnel(("pay", None, *k), f"pay: {self.payment_text(color, n_color, n_loco)}")
        return action

    def keep(self, tickets: tuple[int, ...]) -> KeepTickets:
        action = self._keeps.get(tickets)
        if action is None:
            if len(self._keeps) >= KEEP_MEMO:
                self._keeps.clear()  # actions compare by key: a new object equals the old one
            ids = " ".join([self._ticket_ids[t] for t in tickets]) or "none"  # Mega: no long ticket
            action = self._keeps[tickets] = KeepTickets(("keep", tickets), f"keep {ids}")
        return action

    def keep_choices(self, offer: list[int], subsets: list[int]) -> list[KeepTickets]:
        """The actions keeping each subset of ``offer`` (bitmasks over its positions, as
        ``MoveGenerator.keep_subsets`` gives them)."""
        return [self.keep(tuple(sorted([t for k, t in enumerate(offer) if bits >> k & 1]))) for bits in subsets]

    # ----------------------------------------------------------------- parsing
    def parse_cards(self, text: str) -> tuple[int, int, int]:
        """``"3 red + 1 loco"`` -> (colour, n_colour, n_loco); one colour at most besides wilds."""
        b = self.board
        color, n_color, n_loco = NONE, 0, 0
        body = text.strip()
        if not body:
            raise NotationError("missing payment: write the cards, e.g. '3 red + 1 " + b.locomotive_name + "'")
        for term in body.split("+"):
            m = _PAYMENT_TERM.match(term)
            if not m:
                raise NotationError(f"cannot read payment term {term.strip()!r}: write e.g. '2 red'")
            count, name = int(m.group(1)), fold(m.group(2))
            if name in self._loco_names:
                n_loco += count
                continue
            card = next((i for i, c in enumerate(b.colors) if fold(c) == name or fold(c) + "s" == name), None)
            if card is None:
                raise NotationError(f"unknown card colour {m.group(2)!r}; colours: "
                                    f"{', '.join(b.colors)}, {b.locomotive_name}")
            if color not in (NONE, card):
                raise NotationError("a payment uses cards of one colour only (plus "
                                    f"{b.locomotive_name}s), got {b.colors[color]} and {b.colors[card]}")
            color, n_color = card, n_color + count
        if n_color == 0:
            color = NONE
        return color, n_color, n_loco

    def city(self, text: str) -> int:
        name = self.board.city_index.resolve(text.strip())
        return self.board.cities.index(name)

    def routes_named(self, text: str) -> list[int]:
        """Route lanes named by ``A-B`` or ``A-B/colour`` (lowest ids first)."""
        b = self.board
        spec, _, lane = text.partition("/")
        if "-" not in spec:
            raise NotationError(f"a route is written 'City-City', got {spec.strip()!r}")
        left, right = self._split_cities(spec)
        key = (min(left, right), max(left, right))
        lanes = list(b.routes_between.get(key, ()))
        if not lanes:
            raise NotationError(f"no route joins {b.cities[left]} and {b.cities[right]}")
        if lane.strip():
            want = fold(lane)
            picked = [r for r in lanes if fold(b.color_name(b.routes[r].color)) == want]
            if not picked:
                colors = ", ".join(b.color_name(b.routes[r].color) for r in lanes)
                raise NotationError(f"no {lane.strip()} lane between {b.cities[left]} and {b.cities[right]} "
                                    f"(lanes: {colors})")
            lanes = picked
        return lanes

    def _split_cities(self, spec: str) -> tuple[int, int]:
        """Split ``A-B`` at the hyphen that yields two known cities (names may hold spaces)."""
        parts = spec.split("-")
        errors: list[UnknownName] = []
        for i in range(1, len(parts)):
            left, right = "-".join(parts[:i]), "-".join(parts[i:])
            try:
                return self.city(left), self.city(right)
            except UnknownName as exc:
                errors.append(exc)
        raise errors[0]

    def ticket(self, text: str, offer: list[int] | None = None) -> int:
        """A ticket by id (``EU03``) or by cities (``Paris-Wien``), preferring those on offer."""
        b = self.board
        t = b.ticket_by_id.get(text.strip().casefold())
        if t is not None:
            return t
        if "-" in text:
            x, y = self._split_cities(text)
            pool = offer if offer is not None else range(len(b.tickets))
            found = [i for i in pool if i < len(b.tickets) and {b.tickets[i].a, b.tickets[i].b} == {x, y}]
            if len(found) == 1:
                return found[0]
            if len(found) > 1:
                raise NotationError(f"{text.strip()!r} names several tickets ("
                                    f"{', '.join(b.tickets[i].id for i in found)}): use the id")
        raise NotationError(f"unknown ticket {text.strip()!r}: use its id (e.g. {b.tickets[0].id}) or 'City-City'")
