"""A lazy, exact list of legal actions.

A Ticket to Ride turn often has several hundred legal actions, most of them card-payment variants
of claims and stations (every free city times every way to pay). Materialising them all on every
turn dominated random play and search. ``ActionList`` stores them as arithmetic blocks (a route
with a range of locomotive counts, a set of cities times a set of payments): ``len``, indexing
(``random.choice``) and membership are cheap, and iteration yields exactly the same actions, in
the same order, as a plain list would.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, overload

from tracklayer.ttr.actions import NONE, Action

if TYPE_CHECKING:
    from tracklayer.ttr.actions import ActionTable

COLORED, GRAYED, STATIONS = 0, 1, 2


class ActionList(Sequence[Action]):
    __slots__ = ("_blocks", "_head", "_items", "_len", "_starts", "_table")

    def __init__(self, table: ActionTable, head: list[Action]) -> None:
        self._table = table
        self._head = head
        self._blocks: list[tuple[Any, ...]] = []
        self._starts: list[int] = []
        self._len = len(head)
        self._items: list[Action] | None = None

    # builders ---------------------------------------------------------------
    def add_colored(self, routes: Sequence[int], length: int, color: int, lo: int, hi: int) -> None:
        """Claims of each of ``routes`` paying ``lo..hi`` locomotives, the rest in ``color``."""
        self._starts.append(self._len)
        self._blocks.append((COLORED, routes, length, color, lo, hi - lo + 1))
        self._len += len(routes) * (hi - lo + 1)

    def add_gray(self, routes: Sequence[int], options: Sequence[tuple[int, int]]) -> None:
        """Claims of each of ``routes`` with each ``(colour, n_loco)`` payment."""
        self._starts.append(self._len)
        self._blocks.append((GRAYED, routes, options))
        self._len += len(routes) * len(options)

    def add_stations(self, cities: Sequence[int], cost: int, options: Sequence[tuple[int, int]]) -> None:
        self._starts.append(self._len)
        self._blocks.append((STATIONS, cities, cost, options))
        self._len += len(cities) * len(options)

    # sequence protocol --------------------------------------------------------
    def __len__(self) -> int:
        return self._len

    def _at(self, i: int) -> Action:
        head = self._head
        if i < len(head):
            return head[i]
        k = bisect_right(self._starts, i) - 1
        block = self._blocks[k]
        j = i - self._starts[k]
        kind = block[0]
        if kind == COLORED:
            _, routes, length, color, lo, width = block
            nl = lo + j % width
            return self._table.claim(routes[j // width], NONE if nl == length else color, nl)
        if kind == GRAYED:
            options = block[2]
            c, nl = options[j % len(options)]
            return self._table.claim(block[1][j // len(options)], c, nl)
        _, cities, cost, options = block
        c, nl = options[j % len(options)]
        return self._table.station(cities[j // len(options)], c, cost - nl, nl)

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
        """All actions, in order: walks the blocks once (no per-item search)."""
        if self._items is not None:
            return self._items
        out = list(self._head)
        table = self._table
        claims = table._claims
        claim, station = table.claim, table.station
        for block in self._blocks:
            kind = block[0]
            if kind == COLORED:
                _, routes, length, color, lo, width = block
                for route in routes:
                    slots = claims[route]
                    for nl in range(lo, lo + width):
                        c = NONE if nl == length else color
                        a = slots[c + 1][nl]
                        out.append(a if a is not None else claim(route, c, nl))
            elif kind == GRAYED:
                options = block[2]
                for route in block[1]:
                    slots = claims[route]
                    for c, nl in options:
                        a = slots[c + 1][nl]
                        out.append(a if a is not None else claim(route, c, nl))
            else:
                _, cities, cost, options = block
                for city in cities:
                    for c, nl in options:
                        out.append(station(city, c, cost - nl, nl))
        self._items = out
        return out

    def __iter__(self) -> Iterator[Action]:
        return iter(self.materialize())

    def __contains__(self, item: object) -> bool:
        return item in self.materialize()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, str):
            return self.materialize() == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"ActionList({self._len} actions)"
