"""Observations come from the seat's view only: hidden information of others never changes them."""

from __future__ import annotations

import itertools
import json
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tracklayer
from tracklayer.rl import make_raw_env
from tracklayer.rl.ttr_codec import ttr_codec

from .test_actions import random_positions

HISTORY = 6


def hide_and_reshuffle(game, seat: int, rnd: random.Random):
    """A clone where everything ``seat`` cannot see is different: deck order, other hands (same
    sizes), other players' tickets and ticket offers (same counts), ticket deck order."""
    g = game.clone()
    s = g.state
    rnd.shuffle(s.deck)
    rnd.shuffle(s.ticket_deck)
    n_kinds = len(s.hands[0])
    n_tickets = len(g.board.tickets)
    for q in range(s.n_players):
        if q == seat:
            continue
        hand = [0] * n_kinds
        for _ in range(sum(s.hands[q])):
            hand[rnd.randrange(n_kinds)] += 1
        s.hands[q] = hand
        s.tickets[q] = rnd.sample(range(n_tickets), len(s.tickets[q]))
        s.offers[q] = rnd.sample(range(n_tickets), len(s.offers[q]))
    g._legal = None
    return g


@pytest.mark.parametrize(("game", "variant", "n"), [("ttr-europe", "classic", 3), ("ttr-europe", "mega", 2),
                                                     ("ttr-new-york", None, 3)])
def test_hidden_information_of_others_never_changes_an_observation(game, variant, n) -> None:
    rnd = random.Random(7)
    changed_own = changed_hidden = 0
    for g in random_positions(game, variant, n, range(2), every=3):
        codec = ttr_codec(g, history=HISTORY)
        for seat in range(n):
            obs = codec.observe(g.view(seat, **codec.view_options))
            other = hide_and_reshuffle(g, seat, rnd)
            changed_hidden += other.state.hands != g.state.hands
            obs2 = codec.observe(other.view(seat, **codec.view_options))
            assert np.array_equal(obs, obs2), codec.describe(obs) + "\n---\n" + codec.describe(obs2)
            # ... while the seat's own hand does show
            mine = g.clone()
            mine.state.hands[seat][0] += 1
            obs3 = codec.observe(mine.view(seat, **codec.view_options))
            changed_own += not np.array_equal(obs, obs3)
    assert changed_own > 0 and changed_hidden > 0


@pytest.mark.parametrize(("game", "variant", "n"), [("ttr-europe", "classic", 3), ("ttr-europe", "mega", 2),
                                                     ("ttr-new-york", None, 3)])
def test_hidden_information_of_others_never_changes_the_written_observation(game, variant, n) -> None:
    """The same check on the path the environments use: ``observe_game`` written from the engine's state
    by ``rl.ttr_arrays.TTRArrays``."""
    rnd = random.Random(8)
    changed_own = 0
    for g in random_positions(game, variant, n, range(2), every=3):
        codec = ttr_codec(g, history=HISTORY)
        for seat in range(n):
            obs = codec.observe_game(g, seat)
            other = hide_and_reshuffle(g, seat, rnd)
            obs2 = codec.observe_game(other, seat)
            assert np.array_equal(obs, obs2), codec.describe(obs) + "\n---\n" + codec.describe(obs2)
            mine = g.clone()
            mine.state.hands[seat][0] += 1
            changed_own += not np.array_equal(obs, codec.observe_game(mine, seat))
    assert changed_own > 0


CONFIGS = [("ttr-europe", "classic", 2), ("ttr-europe", "classic", 5), ("ttr-europe", "1912", 3),
           ("ttr-europe", "mega", 4), ("ttr-europe", "big-cities", 2), ("ttr-new-york", None, 2),
           ("ttr-new-york", None, 4)]


@settings(max_examples=40, deadline=None)
@given(config=st.sampled_from(CONFIGS), seed=st.integers(0, 2**32), moves=st.integers(0, 400),
       history=st.sampled_from([0, 1, HISTORY]), data=st.data())
def test_written_observation_equals_the_json_view_observation(config, seed, moves, history, data) -> None:
    """The fast path (``observe_game``: written from the engine's state by ``TTRArrays``, the history rows
    by the codec) gives exactly the vector of the reference path (engine ``view`` -> ``observe``) on
    random positions, for every seat, and again after one more move."""
    game, variant, n = config
    g = tracklayer.new_game(game, n, seed=seed, variant=variant)
    codec = ttr_codec(g, history=history)
    rnd = random.Random(seed)
    for _ in range(moves):
        if g.is_over:
            break
        legal = g.legal_actions()
        g.apply(legal[rnd.randrange(len(legal))])
    seats = data.draw(st.permutations(range(n)))
    for seat in seats:
        ref = codec.observe(g.view(seat, **codec.view_options))
        assert np.array_equal(codec.observe_game(g, seat), ref), f"seat {seat} after {len(g.moves)} moves"
    if not g.is_over:  # one more move
        legal = g.legal_actions()
        g.apply(legal[rnd.randrange(len(legal))])
        for seat in seats:
            assert np.array_equal(codec.observe_game(g, seat), codec.observe(g.view(seat, **codec.view_options)))


def test_env_observations_follow_every_move_of_a_game() -> None:
    """Through the environment (the mask cached per position): every observation of every agent equals the
    reference path, move after move, across episodes."""
    env = make_raw_env("ttr_europe_v2", players=3, history=2)
    codec = env.codec
    rng = np.random.default_rng(1)
    for episode in range(2):
        env.reset(seed=episode)
        for _agent in env.agent_iter(max_iter=300):
            for other in env.agents:
                seat = env.possible_agents.index(other)
                ref = codec.observe(env.game.view(seat, **codec.view_options))
                assert np.array_equal(env.observe(other)["observation"], ref)
            obs, _r, term, trunc, _i = env.last()
            if term or trunc:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def test_observation_uses_only_the_json_view_and_stays_in_bounds() -> None:
    for g in random_positions("ttr-europe", "classic", 2, range(2), every=5):
        codec = ttr_codec(g, history=HISTORY)
        for seat in range(2):
            view = g.view(seat, log_tail=HISTORY)
            obs = codec.observe(view)
            assert obs.dtype == np.float32 and obs.shape == (codec.obs_size,)
            assert obs.min() >= 0.0 and obs.max() <= 1.0
            assert np.array_equal(obs, codec.observe(json.loads(json.dumps(view))))


def test_slices_tile_the_vector_and_describe_renders_the_same_information() -> None:
    g = tracklayer.new_game("ttr-europe", 3, seed=4)
    codec = ttr_codec(g, history=HISTORY)
    covered = sorted((s.start, s.stop) for s in codec.slices.values())
    assert covered[0][0] == 0 and covered[-1][1] == codec.obs_size
    assert all(a[1] == b[0] for a, b in itertools.pairwise(covered))
    rnd = random.Random(2)
    for _ in range(150):
        legal = g.legal_actions()
        g.apply(legal[rnd.randrange(len(legal))])
    seat = g.current_player
    view = g.view(seat, log_tail=HISTORY)
    text = codec.describe(codec.observe(view))
    hand = ", ".join(f"{k} {name}" for name, k in view["hand"].items() if k)
    assert f"hand: {hand or 'nothing'}" in text
    assert f"piles: deck {view['deck']}, discard {view['discard']}, tickets {view['ticket_deck']}" in text
    me = view["players"][seat]
    assert f"routes ({len(me['routes'])}): {', '.join(me['routes']) or '-'}" in text
    for t in view["tickets"]:
        assert t["id"] in text
    moves = [m["move"] for m in view["log"]]
    assert text.count(";") >= 1 and ("recent moves:" in text) and moves


def test_tunnel_is_observed() -> None:
    for g in random_positions("ttr-europe", "classic", 2, range(12)):
        if g.phase == "tunnel":
            codec = ttr_codec(g)
            seat = g.current_player
            view = g.view(seat, log_tail=0)
            text = codec.describe(codec.observe(view))
            assert f"tunnel: {view['tunnel']['route']} played" in text
            assert f"{view['tunnel']['extra']} more card(s)" in text
            return
    pytest.fail("no tunnel in 12 random games")


def test_env_observation_text_and_render() -> None:
    env = make_raw_env("ttr_new_york_v1", render_mode="ansi", history=4)
    env.reset(seed=1)
    text = env.render()
    assert text.startswith("[player_0]") and "phase: initial" in text and "offer: 1:" in text
    assert env.observation_text("player_1").startswith("phase: initial")


def test_written_observation_of_counts_beyond_the_game_equals_the_json_view() -> None:
    """A state edited by hand beyond the game's counts (more cards of a kind than exist, a turn past the
    scale, a deck larger than the game's) still gives the reference vector."""
    g = tracklayer.new_game("ttr-europe", 2, seed=5)
    codec = ttr_codec(g)
    rnd = random.Random(5)
    for _ in range(30):
        legal = g.legal_actions()
        g.apply(legal[rnd.randrange(len(legal))])
    for edit in ("hand", "turn", "deck"):
        h = g.clone()
        s = h.state
        if edit == "hand":
            s.hands[0][0] = g.board.per_color + 4
        elif edit == "turn":
            s.turn = 1_000
        else:
            s.deck = s.deck + s.deck  # more cards in the deck than the game has
        for seat in range(2):
            ref = codec.observe(h.view(seat, **codec.view_options))
            assert np.array_equal(codec.observe_game(h, seat), ref), edit
