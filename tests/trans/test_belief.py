"""Belief sampling for Trans (tracklayer.trans.belief): samples never contradict the seat's view, keep every
city card in one place, re-deal only what the seat cannot place, and over many samples every city the seat
cannot place turns up in an opponent's hand."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from tests.trans.helpers import new, play
from tests.trans.test_properties import COMBOS, FAST, SETUPS, check_conservation, game_at
from tracklayer.trans import belief
from tracklayer.trans.state import CHOOSE, M_PASS


def check_sample(g, seat: int, rng: random.Random):
    sample = belief.sample_state(g, seat, rng)
    assert sample.view(seat) == g.view(seat)
    assert sample.observation_view(seat, log_tail=8) == g.observation_view(seat, log_tail=8)
    check_conservation(sample)
    s, t = g.state, sample.state
    for q in range(s.n_players):
        if t.pending[q] >= 0:
            assert t.pending[q] in t.hands[q]
    for city, where in belief.known_places(g, seat).items():
        assert city in (t.hands[where] if where >= 0 else t.decks[-1 - where])
    assert sorted(t.special_deck) == sorted(s.special_deck)
    return sample


@FAST
@given(setup=st.sampled_from(SETUPS), seed=st.integers(0, 10**6), moves=st.integers(0, 200), seat=st.integers(0, 5))
def test_samples_agree_with_the_view_and_conserve_the_cards(setup, seed, moves, seat) -> None:
    g = game_at(setup, seed, moves)
    seat %= g.n_players
    sample = check_sample(g, seat, random.Random(seed))
    if not sample.is_over:
        legal = sample.legal_actions()
        sample.apply(legal[random.Random(seed).randrange(len(legal))])


@FAST
@given(combo=st.sampled_from(COMBOS), seed=st.integers(0, 10**6), moves=st.integers(0, 12), seat=st.integers(0, 5))
def test_special_card_choices_are_sampled_consistently(combo, seed, moves, seat) -> None:
    """Special cards add returns, drafts and passes with hidden choices: samples in the middle of them."""
    game, n, cards = combo
    g = play(new(game, n, seed=seed, special_cards=cards), random.Random(seed), moves=moves)
    check_sample(g, seat % n, random.Random(seed))


def test_a_passed_city_stays_known_and_every_unplaced_city_turns_up() -> None:
    g = new("trans-europa", 3, seed=4, special_cards=[16])  # everyone passes a city to the left
    rnd = random.Random(4)
    while not any(m[0] == M_PASS for m in g.state.moves):
        assert g.phase == CHOOSE
        g.apply(g.legal_actions()[rnd.randrange(len(g.legal_actions()))])
    passed = next(m[3] for m in g.state.moves if m[0] == M_PASS and m[1] == 0)
    assert belief.known_places(g, 0)[passed] == 1
    s = g.state
    unplaced = {c for q in (1, 2) for c in s.hands[q]} - set(belief.known_places(g, 0))
    found: set[int] = set()
    rng = random.Random(0)
    for _ in range(300):
        t = belief.sample_state(g, 0, rng).state
        assert passed in t.hands[1]
        found |= {c for q in (1, 2) for c in t.hands[q]}
    assert unplaced <= found
