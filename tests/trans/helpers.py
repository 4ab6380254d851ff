"""Shared helpers for the Trans tests: a guided random player and quick ways to build situations.

Uniformly random rails rarely join anybody's cities, so random games would hardly ever reach 13
prestige; the :class:`Guide` plays rails that head for the mover's unconnected cities (with some
uniform randomness mixed in), which ends games in a few rounds while still visiting odd states.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

import tracklayer
from tracklayer.core.errors import IllegalAction
from tracklayer.trans.board import Board
from tracklayer.trans.game import TransGame


class Guide:
    """Picks legal actions: rails towards the mover's unconnected cities, start markers on own cities."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self.dist = board.city_distances()

    def pick(self, g: TransGame, rnd: random.Random, eps: float = 0.15) -> Any:
        legal = g.legal_actions()
        s = g.state
        if rnd.random() < eps or s.phase not in ("rails", "start"):
            return legal[rnd.randrange(len(legal))]
        b = self.board
        p = s.current
        if s.phase == "start":
            free = [b.cities[c].point for c in s.hands[p] if b.cities[c].point not in s.markers]
            if free:
                return g.table.start[rnd.choice(free)]
            return legal[rnd.randrange(len(legal))]
        net = s.networks
        marker = s.markers[p]
        targets = [c for c in s.hands[p] if not net.joined(b.cities[c].point, marker)]
        rails = [a for a in legal if a.kind == "rail"]
        mine = [a for a in rails if net.joined(b.edge_a[a.line], marker) or net.joined(b.edge_b[a.line], marker)]
        rails = mine or rails  # criss-cross (card 18): still build from one's own network
        if not targets or not rails:
            return legal[rnd.randrange(len(legal))]
        best: list[Any] = []
        best_score = 1 << 30
        for a in rails:
            e = a.line
            score = min(self.dist[c][x] for c in targets for x in (b.edge_a[e], b.edge_b[e]))
            if score < best_score:
                best, best_score = [a], score
            elif score == best_score:
                best.append(a)
        return rnd.choice(best)


_GUIDES: dict[str, Guide] = {}


def guide(g: TransGame) -> Guide:
    found = _GUIDES.get(g.board.key)
    if found is None:
        found = _GUIDES[g.board.key] = Guide(g.board)
    return found


def play(g: TransGame, rnd: random.Random, moves: int | None = None, eps: float = 0.15,
         check: Any = None) -> TransGame:
    """Play guided random moves until the game is over (or ``moves`` moves were made)."""
    gd = guide(g)
    while not g.is_over and (moves is None or len(g.moves) < moves):
        if check is not None:
            check(g)
        g.apply(gd.pick(g, rnd, eps))
        assert len(g.moves) < 20_000, "game does not end"
    return g


def new(game: str = "trans-europa", n: int = 3, *, seed: int = 1, **kw: Any) -> TransGame:
    g = tracklayer.new_game(game, n, seed=seed, **kw)
    assert isinstance(g, TransGame)
    return g


def point(g: TransGame, text: str) -> int:
    return g.board.parse_point(text)


def line(g: TransGame, text: str) -> int:
    a, b = text.split("-")
    e = g.board.edge(point(g, a), point(g, b))
    assert e is not None, f"{text} is not a line"
    return e


def city(g: TransGame, name: str) -> int:
    return g.board.city(name)


def set_hands(g: TransGame, hands: list[list[str]]) -> None:
    """Give every player exactly these cities (the rest piles are left as they are)."""
    g.state.hands = [[city(g, n) for n in h] for h in hands]
    g._legal = None


def place_markers(g: TransGame, points: list[str]) -> None:
    """Place the start markers (in seat order of the placing turn) through the API."""
    assert g.phase == "start"
    order = [(g.state.start_player + i) % g.n_players for i in range(g.n_players)]
    by_seat = dict(zip(order, [None] * len(order), strict=True))
    for seat, text in zip(range(g.n_players), points, strict=True):
        by_seat[seat] = text
    for seat in order:
        assert g.current_player == seat
        g.apply(f"start {by_seat[seat]}")
    assert g.phase == "rails"


def build(g: TransGame, p: int, *lines: str) -> None:
    """Put rails of player ``p`` on the board directly (no turn, no supply, no checks): situations only."""
    s = g.state
    for text in lines:
        e = line(g, text)
        s.owner[e] = p
        s.supply -= 1  # one piece per line, a double line too
        s.networks.union(g.board.edge_a[e], g.board.edge_b[e])
    g._legal = None


def snapshot(g: TransGame) -> dict[str, Any]:
    return copy.deepcopy(g.state.to_dict())


def assert_illegal(g: TransGame, move: Any, match: str) -> IllegalAction:
    before = snapshot(g)
    n_moves = len(g.moves)
    with pytest.raises(IllegalAction, match=match) as info:
        g.apply(move)
    assert snapshot(g) == before
    assert len(g.moves) == n_moves
    return info.value


def can(g: TransGame, text: str) -> bool:
    """Whether the move written ``text`` is among the legal actions."""
    return g.parse(text) in set(g.legal_actions())


def legal_texts(g: TransGame) -> list[str]:
    return [str(a) for a in g.legal_actions()]
