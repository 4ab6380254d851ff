"""The compact observation view says what the JSON view says, and ticket completion stays exact."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

import tracklayer
from tracklayer.core.errors import IllegalAction
from tracklayer.ttr.scoring import joined_pairs
from tracklayer.ttr.view import tickets_completed

from .test_properties import FAST, SETUPS, random_game


def joined(board, routes, a: int, b: int) -> bool:
    """Reference: breadth-first search over the given routes."""
    seen, todo = {a}, [a]
    while todo:
        x = todo.pop()
        for r in routes:
            ra, rb = board.routes[r].a, board.routes[r].b
            for u, v in ((ra, rb), (rb, ra)):
                if u == x and v not in seen:
                    seen.add(v)
                    todo.append(v)
    return b in seen


@FAST
@given(setup=st.sampled_from(SETUPS), seed=st.integers(0, 2**32), moves=st.integers(0, 500))
def test_observation_view_agrees_with_the_json_view(setup, seed, moves) -> None:
    game, variant, n = setup
    g, _ = random_game(game, variant, n, seed, moves)
    b = g.board
    for seat in range(n):
        view = g.view(seat, log_tail=4)
        ov = g.observation_view(seat, log_tail=4)
        assert ov.seat == seat and ov.phase == view["phase"] and ov.current_player == view["current_player"]
        assert ov.first_player == view["first_player"] and ov.turn == view["turn"]
        assert (ov.final_turns_left >= 0) == view["final_round"]
        assert (view["final_turns_left"] if view["final_round"] else -1) == ov.final_turns_left
        assert {b.card_name(c): k for c, k in enumerate(ov.hand)} == view["hand"]
        assert [None if c < 0 else b.card_name(c) for c in ov.market] == view["market"]
        assert (ov.deck, ov.discard, ov.ticket_deck) == (view["deck"], view["discard"], view["ticket_deck"])
        for entry in view["players"]:
            q = entry["seat"]
            assert (ov.wagons[q], ov.route_points[q], ov.cards[q], ov.tickets_held[q]) == (
                entry["wagons"], entry["route_points"], entry["cards"], entry["tickets"])
            assert ov.choosing_tickets[q] == entry.get("choosing_tickets", 0)
            if b.features.stations:
                assert ov.stations_left[q] == entry["stations_left"]
                assert [b.cities[c] for c, o in enumerate(ov.station_owner) if o == q] == entry["stations"]
            assert [b.route_label(r) for r, o in enumerate(ov.route_owner) if o == q] == entry["routes"]
        assert [None if o < 0 else o for o in ov.route_owner] == view["route_owner"]
        assert [(g.tickets[t].id, done) for t, done in zip(ov.tickets, ov.completed, strict=True)] == [
            (t["id"], t["completed"]) for t in view["tickets"]]
        assert [g.tickets[t].id for t in ov.offer] == [t["id"] for t in view["offer"]]
        if ov.tunnel is None:
            assert "tunnel" not in view
        else:
            route, color, n_color, n_loco, revealed, extra = ov.tunnel
            assert view["tunnel"] == {"route": b.route_label(route), "played": g.table.payment_text(color, n_color,
                                                                                                     n_loco),
                                      "revealed": [b.card_name(c) for c in revealed], "extra": extra}
        assert [(m, kind) for m, kind, _card in ov.log] == [
            (e["player"], e["move"].partition(" ")[0].rstrip(":")) for e in view["log"]]
        card_ix = {b.card_name(c): c for c in range(b.loco + 1)}
        assert [card for _m, kind, card in ov.log if kind == "draw"] == [
            None if e["move"] == "draw deck" else card_ix[e["move"][len("draw "):]]
            for e in view["log"] if e["move"].startswith("draw ")]


def test_observation_view_rejects_spectators_and_unknown_seats() -> None:
    g = tracklayer.new_game("ttr-europe", 2, seed=1)
    for bad in (None, 2, -1):
        with pytest.raises(IllegalAction, match="seat"):
            g.observation_view(bad)


@FAST
@given(setup=st.sampled_from(SETUPS), seed=st.integers(0, 2**32), moves=st.integers(0, 600))
def test_memoised_ticket_completion_is_exact(setup, seed, moves) -> None:
    """``tickets_completed`` (memoised per game, shared by clones) equals a search over the seat's routes,
    also after a clone's state is edited by hand (and resynced)."""
    game, variant, n = setup
    g, rnd = random_game(game, variant, n, seed, moves)
    clone = g.clone()  # shares the memo
    s = clone.state
    free = [r for r, o in enumerate(s.route_owner) if o < 0]
    for r in rnd.sample(free, min(5, len(free))):
        s.route_owner[r] = rnd.randrange(n)
    for q in range(n):
        s.tickets[q] = s.tickets[q] + rnd.sample(range(len(g.tickets)), 2)
    clone.rules.resync(s)  # a state edited by hand: its bitmasks recomputed, as the engine asks
    for game_ in (g, clone):
        st_ = game_.state
        for seat in range(n):
            routes = [r for r, o in enumerate(st_.route_owner) if o == seat]
            expected = tuple(joined(game_.board, routes, game_.tickets[t].a, game_.tickets[t].b)
                             for t in st_.tickets[seat])
            assert tickets_completed(game_, seat) == expected
            assert [t["completed"] for t in game_.view(seat)["tickets"]] == list(expected)


@FAST
@given(seed=st.integers(0, 2**32), k=st.integers(0, 60))
def test_joined_pairs_is_connectivity(seed, k) -> None:
    board = tracklayer.new_game("ttr-europe", 2, seed=0).board
    rnd = random.Random(seed)
    routes = rnd.sample(range(len(board.routes)), k)
    pairs = [tuple(rnd.sample(range(len(board.cities)), 2)) for _ in range(8)]
    got = joined_pairs(board, routes, pairs)
    assert got == [joined(board, routes, a, b) for a, b in pairs]
