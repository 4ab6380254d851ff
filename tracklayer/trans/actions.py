"""Trans Europa / Trans America actions and their text notation.

Actions are interned per board (one object per distinct move, ``str(action)`` precomputed), and
equality goes by ``key`` so a parsed action equals the generated one. One rail is one action: a
turn continues while its rail budget lasts, which keeps ``legal_actions`` small (the lines touching
the mover's network) and suits search and RL. ``rail A-B C-D`` parses to a compound action that
places both rails of a turn at once, all or nothing. The notation is in ``docs/trans.md``:

=====================  ===================================================================
``start 12,5``         place the start marker on point x=12, row=5 (``start Madrid`` too)
``rail 12,5-13,6``     one rail on that line (single or double)
``rail 12,5-13,6 13,6-14,5``  several rails of one turn, atomically (``;`` also separates)
``end``                end the turn early, after at least one rail
``pass``               no rail can be placed: the turn passes
``return Madrid``      special cards 8 and 13-15: return a city card to the rest pile
``pass Madrid``        special cards 13-16: pass a city card to the left neighbour
=====================  ===================================================================
"""

from __future__ import annotations

import re
from itertools import pairwise
from typing import TYPE_CHECKING

from tracklayer.core.action import Action as Action  # re-exported: the family's action base
from tracklayer.core.errors import NotationError, TracklayerError, UnknownName

if TYPE_CHECKING:
    from tracklayer.trans.board import Board


class PlaceStart(Action):
    __slots__ = ()
    key: tuple[str, int]
    kind = "start"

    @property
    def point(self) -> int:
        return self.key[1]


class PlaceRail(Action):
    __slots__ = ()
    key: tuple[str, int]
    kind = "rail"

    @property
    def line(self) -> int:
        return self.key[1]


class PlaceRails(Action):
    """Several rails of one turn, placed in order; applied all or nothing."""

    __slots__ = ()
    key: tuple[str, tuple[int, ...]]
    kind = "rails"

    @property
    def lines(self) -> tuple[int, ...]:
        return self.key[1]


class EndTurn(Action):
    __slots__ = ()
    kind = "end"


class Pass(Action):
    """Only legal at the start of a turn in which no rail can be placed."""

    __slots__ = ()
    kind = "pass"


class ReturnCity(Action):
    """Return a city card to the rest pile (special card 8; the last player of a draft, 13-15)."""

    __slots__ = ()
    key: tuple[str, int]
    kind = "return"

    @property
    def city(self) -> int:
        return self.key[1]


class PassCity(Action):
    """Pass a city card face down to the left neighbour (drafts 13-15, card 16)."""

    __slots__ = ()
    key: tuple[str, int]
    kind = "give"

    @property
    def city(self) -> int:
        return self.key[1]


# Multi-rail moves (a turn's rails as one action), interned per board for the life of the process
# and keyed by line sets that differ from game to game: cleared when full, so the long-lived heap that
# every full garbage collection walks stays small (it was 50,000 actions).
MULTI_MEMO = 2_048

_BRACKETED = re.compile(r"[(\[]\s*(\d+)\s*,\s*(\d+)\s*[)\]]")
_COMMA = re.compile(r"(\d)\s*,\s*(\d)")
_HYPHEN = re.compile(r"\s*-\s*")
_NOT_POINTS = re.compile(r"[^\d,\-\s]")
_WORDS = "start, rail, end, pass, return"


class ActionTable:
    """Interned actions of one board plus the notation (formatting and parsing)."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self.start = [PlaceStart(("start", p), f"start {board.point_text(p)}") for p in range(board.n_points)]
        self.rail = [PlaceRail(("rail", e), f"rail {board.edge_text(e)}") for e in range(board.n_edges)]
        self.end = EndTurn(("end",), "end")
        self.pass_ = Pass(("pass",), "pass")
        self.give_back = [ReturnCity(("return", c.index), f"return {c.name}") for c in board.cities]
        self.give = [PassCity(("give", c.index), f"pass {c.name}") for c in board.cities]
        self._multi: dict[tuple[int, ...], PlaceRails] = {}

    def rails(self, lines: tuple[int, ...]) -> PlaceRail | PlaceRails:
        if len(lines) == 1:
            return self.rail[lines[0]]
        action = self._multi.get(lines)
        if action is None:
            if len(self._multi) >= MULTI_MEMO:
                self._multi.clear()
            text = "rail " + " ".join(self.board.edge_text(e) for e in lines)
            action = self._multi[lines] = PlaceRails(("rails", lines), text)
        return action

    # ------------------------------------------------------------------ parsing
    def parse(self, text: str) -> Action:
        if not isinstance(text, str):
            raise NotationError(f"a move must be text, got {text!r}")
        body = text.strip()
        word, _, rest = body.partition(" ")
        word = word.casefold().rstrip(":")
        rest = rest.strip()
        if word == "start":
            if not rest:
                raise NotationError("start where? e.g. 'start 12,5' or 'start Madrid'")
            return self.start[self.endpoint(rest)]
        if word in ("rail", "rails"):
            return self.rails(tuple(self.lines(rest)))
        if word == "end" and not rest:
            return self.end
        if word == "pass":
            return self.give[self.board.city(rest)] if rest else self.pass_
        if word == "return" and rest:
            return self.give_back[self.board.city(rest)]
        raise NotationError(f"unknown move {body!r}: moves are {_WORDS} (see docs/trans.md)")

    def endpoint(self, text: str) -> int:
        """A point (``12,5``) or the point of a city (``Madrid``)."""
        b = self.board
        t = text.strip()
        if not _NOT_POINTS.search(_BRACKETED.sub(r"\1,\2", t).replace(" ", "")):
            return b.parse_point(t)
        if t[:1] in "([" and t[-1:] in ")]":
            return b.parse_point(t)
        return b.cities[b.city(t)].point

    def lines(self, rest: str) -> list[int]:
        """Line ids named by ``A-B`` segments (whitespace or ``;`` between them, or chains ``A-B-C``)."""
        pieces = [p for p in rest.split(";") if p.strip()]
        if not pieces:
            raise NotationError("rail where? e.g. 'rail 12,5-13,6'")
        out: list[int] = []
        for piece in pieces:
            norm = _HYPHEN.sub("-", piece.strip())
            norm = _COMMA.sub(r"\1,\2", _BRACKETED.sub(r"\1,\2", norm))
            chains = [norm] if _NOT_POINTS.search(norm) else norm.split()
            for chain in chains:
                try:
                    points = self._chain(chain)
                except (NotationError, UnknownName) as exc:
                    if " " in chain and _NOT_POINTS.search(chain) and chain.count("-") > 1:
                        raise NotationError(f"{exc}; put ';' between segments that name cities "
                                            "(e.g. 'rail Madrid-3,10; 3,10-5,10')") from None
                    raise
                for a, c in pairwise(points):
                    e = self.board.edge(a, c)
                    if e is None:
                        b = self.board
                        raise NotationError(f"no line joins {b.point_text(a)} and {b.point_text(c)}: "
                                            "a line joins neighbouring points")
                    out.append(e)
        return out

    def _chain(self, chain: str) -> list[int]:
        """Split ``A-B`` (or ``A-B-C``) into endpoints; names may hold hyphens (aliases), so every
        grouping of the hyphen-separated parts is tried, fewest endpoints first."""
        parts = chain.split("-")
        if len(parts) < 2 or not all(p.strip() for p in parts):
            raise NotationError(f"a line is written x,row-x,row (e.g. 12,5-13,6), got {chain!r}")
        if not _NOT_POINTS.search(chain):
            return [self.board.parse_point(p) for p in parts]
        if len(parts) > 8:
            raise NotationError(f"too many hyphens in {chain!r}: write one line per segment")
        first_error: TracklayerError | None = None
        for cuts in _groupings(len(parts)):
            try:
                return [self.endpoint("-".join(parts[i:j])) for i, j in cuts]
            except (NotationError, UnknownName) as exc:
                first_error = first_error or exc
        assert first_error is not None
        raise first_error


def _groupings(n: int) -> list[list[tuple[int, int]]]:
    """Ways to cut ``n`` parts into at least 2 consecutive groups, coarsest first (n is small)."""
    out: list[list[tuple[int, int]]] = []
    for mask in range(1 << (n - 1)):
        cuts = [i + 1 for i in range(n - 1) if mask >> i & 1]
        if not cuts:
            continue
        bounds = [0, *cuts, n]
        out.append(list(pairwise(bounds)))
    out.sort(key=len)
    return out
