"""Belief sampling (tracklayer.ttr.belief): samples never contradict the seat's view, conserve every card and
ticket, reach every phase, and over many samples put every possible hidden card in an opponent's hand."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

import tracklayer
from tests.ttr.test_properties import FAST, SETUPS, check_conservation, random_game
from tracklayer.ttr import belief
from tracklayer.ttr.state import INITIAL, KEEP, MAIN, OVER, SECOND_DRAW, TUNNEL


def ticket_multiset(g) -> list[int]:
    s = g.state
    held = [t for ts in s.tickets for t in ts] + [t for o in s.offers for t in o]
    return sorted([*s.ticket_deck, *s.set_aside, *held])


def check_sample(g, seat: int, rng: random.Random) -> object:
    sample = belief.sample_state(g, seat, rng)
    assert sample.view(seat) == g.view(seat)
    check_conservation(sample)
    assert sample.legal_actions() == g.legal_actions() or g.current_player != seat
    s, t = g.state, sample.state
    assert len(t.ticket_deck) == len(s.ticket_deck)
    assert all(not sample.tickets[x].long for x in t.ticket_deck), "a long ticket in the ticket deck"
    for p in range(g.n_players):  # every offer keeps its shape: as many long tickets as before
        assert [sample.tickets[x].long for x in t.offers[p]] == [g.tickets[x].long for x in s.offers[p]]
    assert set(ticket_multiset(sample)) <= {x for pool in g.board.tickets_for(g.variant) for x in pool}
    assert len(ticket_multiset(sample)) == len(ticket_multiset(g))
    return sample


@FAST
@given(setup=st.sampled_from(SETUPS), seed=st.integers(0, 10**6), moves=st.integers(0, 300), seat=st.integers(0, 4))
def test_samples_agree_with_the_view_and_conserve_everything(setup, seed, moves, seat) -> None:
    game, variant, n = setup
    g, rnd = random_game(game, variant, n, seed, moves)
    seat %= n
    sample = check_sample(g, seat, random.Random(seed))
    if not sample.is_over:  # the sample plays on like a real game
        legal = sample.legal_actions()
        sample.apply(legal[rnd.randrange(len(legal))])
        check_conservation(sample)


def test_every_phase_is_sampled() -> None:
    """Random games pass through every phase; a sample is taken in each, for the seat to move and another."""
    seen: set[str] = set()
    rng = random.Random(0)
    for seed in range(40):
        g = tracklayer.new_game("ttr-europe", 2, seed=seed)
        rnd = random.Random(seed)
        while True:
            if g.phase not in seen or rnd.random() < 0.02:
                seen.add(g.phase)
                for seat in range(2):
                    check_sample(g, seat, rng)
            if g.is_over:
                break
            legal = g.legal_actions()
            g.apply(legal[rnd.randrange(len(legal))])
        if seen >= {INITIAL, MAIN, SECOND_DRAW, TUNNEL, KEEP, OVER}:
            break
    assert seen >= {INITIAL, MAIN, SECOND_DRAW, TUNNEL, KEEP, OVER}


def test_every_possible_hidden_card_turns_up_in_an_opponent_hand() -> None:
    g, _ = random_game("ttr-europe", None, 2, 11, 40)
    known = belief.known_cards(g.board, g.view(0)["log"], [sum(h) for h in g.state.hands])[1]
    assert sum(g.state.hands[1]) > sum(known)  # seat 1 holds cards seat 0 cannot name
    s = g.state
    unseen = {c for c in [*s.deck, *s.discard]} | {c for c, k in enumerate(s.hands[1]) if k > known[c]}
    found: set[int] = set()
    rng = random.Random(1)
    for _ in range(200):
        hand = belief.sample_state(g, 0, rng).state.hands[1]
        assert all(hand[c] >= k for c, k in enumerate(known))
        found |= {c for c, k in enumerate(hand) if k > known[c]}
    assert found == unseen


def test_the_same_generator_gives_the_same_sample() -> None:
    g, _ = random_game("ttr-new-york", None, 3, 5, 60)
    a = belief.sample_state(g, 1, random.Random(9))
    b = belief.sample_state(g, 1, random.Random(9))
    assert a.state == b.state


def test_sample_from_view_rebuilds_a_turn_start_and_refuses_other_phases() -> None:
    g, _ = random_game("ttr-europe", None, 2, 3, 0)
    assert g.phase == INITIAL
    with pytest.raises(belief.BeliefError, match="phase 'main'"):
        belief.sample_from_view(g.view(0), random.Random(0))
    rnd = random.Random(3)
    while not (g.phase == MAIN and len(g.moves) > 30):
        legal = g.legal_actions()
        g.apply(legal[rnd.randrange(len(legal))])
    seat = g.current_player
    world = belief.sample_from_view(g.view(seat), random.Random(1))
    check_conservation(world)
    mine, real = world.view(seat), g.view(seat)
    for key in ("hand", "market", "deck", "discard", "ticket_deck", "route_owner", "stations", "tickets", "turn"):
        assert mine[key] == real[key], key
    assert sorted(map(str, world.legal_actions())) == sorted(map(str, g.legal_actions()))


def test_a_view_sampler_draws_the_worlds_of_sample_from_view_whatever_was_played_in_the_last() -> None:
    """The sampler reads the view once and copies one game per world: a world played on changes nothing
    of the next, and each equals what sample_from_view deals from the same generator."""
    g, _ = random_game("ttr-europe", None, 3, 8, 0)
    rnd = random.Random(8)
    while not (g.phase == MAIN and len(g.moves) > 40):
        legal = g.legal_actions()
        g.apply(legal[rnd.randrange(len(legal))])
    view = g.view(g.current_player)
    sampler = belief.ViewSampler(view)
    for k in range(5):
        world = sampler.sample(random.Random(k))
        fresh = belief.sample_from_view(view, random.Random(k))
        assert world.state == fresh.state and world.seed == fresh.seed and world.setup() == fresh.setup()
        assert world.moves == [] and world.state is not fresh.state
        for _ in range(30):  # play the world on: the sampler's game and lists must not notice
            if world.is_over:
                break
            legal = world.legal_actions()
            world.apply(legal[rnd.randrange(len(legal))])
