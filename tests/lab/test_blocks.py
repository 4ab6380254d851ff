"""The lab's block watcher: an opponent's claim on the cheapest way to a seat's ticket blocks it when that
way gets longer or impossible; claims elsewhere, and the seat's own, do not."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from tests.ttr.helpers import hand, set_turn, start
from tracklayer.lab.blocks import BlockWatch
from tracklayer.lab.runner import GameSpec, run_one


def claim(g: Any, p: int, r: int) -> None:
    """Seat ``p`` claims route ``r`` through the engine, with locomotives enough to pay for it."""
    set_turn(g, p)
    hand(g, p, locomotive=g.board.routes[r].length)
    label = g.board.route_label(r)
    g.apply(next(a for a in g.legal_actions() if str(a).startswith(f"claim {label}: ")))
    while g.phase == "tunnel":  # a tunnel's extra cards: pay if possible
        g.apply(g.legal_actions()[0])


def cost_without(watch: BlockWatch, p: int, ticket: int, r: int, by: int) -> float:
    """The cheapest way's cost for ``p`` if ``by`` owned ``r`` (the state is put back)."""
    owner = watch.game.state.route_owner
    before = owner[r]
    owner[r] = by
    try:
        return watch._cost(watch.way(p, ticket))
    finally:
        owner[r] = before


@dataclass
class Start:
    g: Any
    watch: BlockWatch
    ticket: int  # seat 0's first ticket
    way: list[int]  # its cheapest way at the start


@pytest.fixture
def begun() -> Start:
    """A two-seat Europe game at its start, watched: seat 0's first ticket and its cheapest way."""
    g = start("ttr-europe", 2, seed=3)
    watch = BlockWatch(g)
    watch.after_move()
    ticket = g.state.tickets[0][0]
    way = watch.ways[0, ticket]
    assert way, "the ticket is not joined at the start"
    return Start(g, watch, ticket, way)


def test_a_claim_that_lengthens_the_cheapest_way_blocks_and_one_elsewhere_does_not(begun: Start) -> None:
    g, watch, ticket, way = begun.g, begun.watch, begun.ticket, begun.way
    cut = next(r for r in way if cost_without(watch, 0, ticket, r, 1) > watch._cost(way))
    far = next(r for r in range(len(g.board.routes))
               if r not in way and not g.board.routes[r].twins and g.state.route_owner[r] == -1
               and cost_without(watch, 0, ticket, r, 1) == watch._cost(way)
               and all(r not in w for (p, _), w in watch.ways.items() if p == 0 and w))
    claim(g, 1, far)
    watch.after_move()
    assert watch.blocked == [False, False]
    claim(g, 1, cut)
    watch.after_move()
    assert watch.blocked == [True, False]


def test_a_seats_own_claim_shortens_its_way_and_blocks_nobody(begun: Start) -> None:
    g, watch, ticket, way = begun.g, begun.watch, begun.ticket, begun.way
    claim(g, 0, way[0])
    watch.after_move()
    assert watch.blocked == [False, False]
    assert watch._cost(watch.ways[0, ticket]) < watch._cost(way)


def test_the_lab_reports_blocks_per_seat() -> None:
    rec = run_one(GameSpec(index=0, game="ttr-europe", seats=("greedy", "greedy"), seed=11))
    for seat in rec["seats"]:
        play = seat["play"]
        assert play["blocked"] in (0.0, 1.0)
        assert play["won_after_blocked"] == float(play["blocked"] == 1.0 and seat["rank"] == 1)
