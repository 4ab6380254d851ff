"""Invariants of the Ticket to Ride engine over random games of every variant and player count."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tracklayer
from tracklayer.core.errors import IllegalAction
from tracklayer.ttr.cards import EMPTY
from tracklayer.ttr.state import OVER

SETUPS = [("ttr-europe", v, n) for v in ("classic", "1912", "mega", "big-cities") for n in (2, 3, 4, 5)] + [
    ("ttr-new-york", None, n) for n in (2, 3, 4)
]
FAST = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def random_game(game: str, variant: str | None, n: int, seed: int, moves: int | None = None):
    g = tracklayer.new_game(game, n, seed=seed, variant=variant)
    rnd = random.Random(seed)
    while not g.is_over and (moves is None or len(g.moves) < moves):
        legal = g.legal_actions()
        g.apply(legal[rnd.randrange(len(legal))])
    return g, rnd


def card_totals(g) -> list[int]:
    s, b = g.state, g.board
    totals = [0] * (len(b.colors) + 1)
    for hand in s.hands:
        for c, k in enumerate(hand):
            totals[c] += k
    for c in [*s.deck, *s.discard, *(x for x in s.market if x >= 0)]:
        totals[c] += 1
    if s.tunnel is not None:
        t = s.tunnel
        if t.n_color:
            totals[t.color] += t.n_color
        totals[b.loco] += t.n_loco
        for c in t.revealed:
            totals[c] += 1
    return totals


def check_conservation(g) -> None:
    s, b = g.state, g.board
    assert card_totals(g) == [b.per_color] * len(b.colors) + [b.locomotives]
    assert all(k >= 0 for hand in s.hands for k in hand)
    for p in range(s.n_players):
        used = sum(b.routes[r].length for r, o in enumerate(s.route_owner) if o == p)
        assert s.wagons[p] + used == b.wagons
        built = sum(1 for o in s.station_owner if o == p)
        assert s.stations_left[p] + built == b.stations
    placed = [*s.ticket_deck, *s.set_aside, *(t for ts in s.tickets for t in ts), *(t for o in s.offers for t in o)]
    assert len(placed) == len(set(placed)), "a ticket is in two places"
    long_pool, regular_pool = b.tickets_for(g.variant)
    assert set(placed) <= set(long_pool) | set(regular_pool)
    if g.variant.initial.returned != "box":  # regular tickets never go to the box: none is lost
        assert set(regular_pool) <= set(placed)
    if s.phase != "initial":  # returned starting tickets wait only until everybody has chosen
        assert s.set_aside == []


@pytest.mark.parametrize(("game", "variant", "n"), SETUPS)
def test_random_games_conserve_everything_and_end_with_valid_scores(game, variant, n):
    for seed in range(3):
        g = tracklayer.new_game(game, n, seed=seed, variant=variant)
        rnd = random.Random(seed)
        steps = 0
        while not g.is_over:
            check_conservation(g)
            legal = g.legal_actions()
            assert len(legal) > 0
            g.apply(legal[rnd.randrange(len(legal))])
            steps += 1
            assert steps < 3000, "game does not end"
        check_conservation(g)
        assert g.legal_actions() == []
        res = g.result()
        assert res["final"] is True
        for p in res["players"]:
            parts = p["route_points"] + p["ticket_points"] + p.get("station_points", 0)
            parts += p.get("longest_path_bonus", 0) + p.get("attraction_points", 0)
            assert p["total"] == parts
            done = [t for t in p["tickets"] if t["completed"]]
            assert p["completed_tickets"] == len(done)
            assert p["ticket_points"] == sum(t["points"] if t["completed"] else -t["points"] for t in p["tickets"])
        best = max(p["total"] for p in res["players"])
        assert res["winners"] and all(p["total"] == best for p in res["players"] if p["name"] in res["winners"])
        assert sorted(p["rank"] for p in res["players"])[0] == 1


@FAST
@given(setup=st.sampled_from(SETUPS), seed=st.integers(0, 10**6), moves=st.integers(0, 400))
def test_json_round_trip_and_replay_reproduce_the_state(setup, seed, moves):
    game, variant, n = setup
    g, _ = random_game(game, variant, n, seed, moves)
    data = json.loads(json.dumps(g.to_json()))
    loaded = tracklayer.load_game(data)
    assert loaded.state == g.state
    assert loaded.state.rng.state == g.state.rng.state
    assert [str(a) for a in loaded.legal_actions()] == [str(a) for a in g.legal_actions()]
    replay = tracklayer.new_game(game, n, seed=seed, variant=variant)
    for text in data["moves"]:
        replay.apply(text)
    assert replay.state == g.state


@FAST
@given(setup=st.sampled_from(SETUPS), seed=st.integers(0, 10**6), moves=st.integers(0, 400))
def test_notation_round_trips_for_every_legal_action(setup, seed, moves):
    game, variant, n = setup
    g, _ = random_game(game, variant, n, seed, moves)
    for action in g.legal_actions():
        assert g.parse(str(action)) == action


def _hide_secrets_of_others(g, seat: int, rnd: random.Random):
    """A different hidden world that ``seat`` cannot tell apart from the real one."""
    other = g.clone()
    s = other.state
    rnd.shuffle(s.deck)
    rnd.shuffle(s.ticket_deck)
    rnd.shuffle(s.set_aside)
    n_cards = len(g.board.colors) + 1
    for q in range(s.n_players):
        if q == seat:
            continue
        size = sum(s.hands[q])
        hand = [0] * n_cards
        for _ in range(size):
            hand[rnd.randrange(n_cards)] += 1
        s.hands[q] = hand
        pool = [t.index for t in g.board.tickets if t.index not in s.tickets[seat] and t.index not in s.offers[seat]]

        def pick(k: int, pool: list[int] = pool) -> list[int]:
            # a seat that hoarded tickets can leave fewer unseen ones than another player holds; the
            # view shows only counts of those, so drawing with repeats is still a world it cannot tell apart
            return rnd.sample(pool, k) if k <= len(pool) else rnd.choices(pool, k=k)

        s.tickets[q] = pick(len(s.tickets[q]))
        s.offers[q] = pick(len(s.offers[q]))
    return other


@FAST
@given(setup=st.sampled_from(SETUPS), seed=st.integers(0, 10**6), moves=st.integers(0, 300))
def test_a_view_does_not_depend_on_what_the_seat_cannot_know(setup, seed, moves):
    game, variant, n = setup
    g, rnd = random_game(game, variant, n, seed, moves)
    if g.is_over:
        return
    for seat in [*range(n), None]:
        other = _hide_secrets_of_others(g, -1 if seat is None else seat, rnd)
        assert other.view(seat) == g.view(seat)


@FAST
@given(setup=st.sampled_from(SETUPS), seed=st.integers(0, 10**6), moves=st.integers(0, 300))
def test_a_view_never_names_another_players_tickets_or_hand(setup, seed, moves):
    game, variant, n = setup
    g, _ = random_game(game, variant, n, seed, moves)
    if g.is_over:
        return
    for seat in range(n):
        view = g.view(seat)
        text = json.dumps(view)
        mine = {g.board.tickets[t].id for t in g.state.tickets[seat] + g.state.offers[seat]}
        for q in range(n):
            if q != seat:
                for t in g.state.tickets[q] + g.state.offers[q]:
                    tid = g.board.tickets[t].id
                    if tid not in mine:
                        assert f'"{tid}"' not in text and f" {tid}" not in text
        for t in g.state.set_aside + g.state.ticket_deck:  # returned or not yet dealt (Mega's 2nd offer)
            tid = g.board.tickets[t].id
            assert f'"{tid}"' not in text and f" {tid}" not in text
        assert "hand" in view and all("hand" not in p for p in view["players"])
    spectator = json.dumps(g.view(None))
    assert '"hand"' not in spectator and '"offer"' not in spectator


@FAST
@given(setup=st.sampled_from(SETUPS), seed=st.integers(0, 10**6), moves=st.integers(0, 300),
       donor_moves=st.integers(0, 300))
def test_apply_succeeds_exactly_for_legal_actions_and_illegal_ones_change_nothing(setup, seed, moves, donor_moves):
    game, variant, n = setup
    g, _ = random_game(game, variant, n, seed, moves)
    donor, _ = random_game(game, variant, n, seed + 1, donor_moves)
    legal = set(g.legal_actions())
    candidates = list(donor.legal_actions())[:60] + list(g.legal_actions())[:10]
    for action in candidates:
        trial = g.clone()
        before = trial.state.to_dict()
        try:
            recorded = trial.apply(action)
        except IllegalAction as exc:
            assert str(exc)
            assert trial.state.to_dict() == before
            assert action not in legal
        else:
            assert recorded in legal


def market_reset_possible_but_not_made(g) -> bool:
    """The 3-locomotive rule, written from the rulebooks: at any time, 3 or more locomotives face up are
    replaced, unless no market of fewer than 3 can be made: fewer than 3 non-locomotive cards lie in
    deck, discard pile and market together."""
    s, loco = g.state, g.board.loco
    outside_hands = [c for c in [*s.deck, *s.discard, *s.market] if c != EMPTY]
    return s.market.count(loco) >= 3 and sum(1 for c in outside_hands if c != loco) >= 3


@FAST
@given(game=st.sampled_from(["ttr-europe", "ttr-new-york"]), n=st.integers(2, 4), seed=st.integers(0, 10**6),
       hoarding=st.sampled_from([0.0, 0.8, 0.9]))
def test_the_market_never_keeps_three_locomotives_when_a_reset_is_possible(game, n, seed, hoarding):
    # players who mostly draw cards hold nearly all of them, so the piles run low and a claim's payment
    # can be what makes a better market possible
    g = tracklayer.new_game(game, n, seed=seed)
    rnd = random.Random(seed)
    while not g.is_over:
        legal = g.legal_actions()
        draws = [a for a in legal if a.kind == "draw"]
        g.apply(rnd.choice(draws) if draws and rnd.random() < hoarding else legal[rnd.randrange(len(legal))])
        assert not market_reset_possible_but_not_made(g), f"after move {len(g.moves)}: {g.moves[-1]}"


def test_same_seed_same_game_and_different_seed_different_deal():
    a = tracklayer.new_game("ttr-europe", 3, seed=42)
    b = tracklayer.new_game("ttr-europe", 3, seed=42)
    c = tracklayer.new_game("ttr-europe", 3, seed=43)
    assert a.state == b.state
    assert a.state.deck != c.state.deck


def test_game_over_refuses_moves():
    g, _ = random_game("ttr-new-york", None, 2, 5)
    assert g.state.phase == OVER
    with pytest.raises(IllegalAction, match="over"):
        g.apply("draw deck")
