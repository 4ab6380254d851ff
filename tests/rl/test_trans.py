"""Trans Europa / Trans America environments: conformance, encoding, hidden information, endings."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test, seed_test

import tracklayer
from tests.trans.helpers import play
from tracklayer.core.errors import IllegalAction
from tracklayer.rl import Episode, get_spec, make_env, make_gym
from tracklayer.rl.trans_codec import trans_codec

CONFIGS = [("trans-europa", 2, None), ("trans-america", 4, "each-round"), ("trans-europa", 6, "each-round")]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*(should be gymnasium.spaces.box|not a NumPy array).*")
        yield


def positions(game: str, n: int, cards, seeds: range, moves: int = 400):
    """Positions of uniformly random games (live objects: use them before the next one)."""
    for seed in seeds:
        g = tracklayer.new_game(game, n, seed=seed, special_cards=cards)
        rnd = random.Random(seed)
        for _ in range(moves):
            if g.is_over:
                break
            yield g
            legal = g.legal_actions()
            g.apply(legal[rnd.randrange(len(legal))])


class Guided:
    """Test driver (it reads the state): rails towards the mover's nearest unconnected city."""

    def __init__(self, board) -> None:
        self.board = board
        self.dist = board.city_distances()

    def choose(self, g, legal: list[int], acts, rnd: random.Random) -> int:
        s, b = g.state, self.board
        p = s.current
        if s.phase == "start":
            own = {b.cities[c].point for c in s.hands[p]} - set(s.markers)
            picks = [i for i, a in zip(legal, acts, strict=True) if a.kind == "start" and a.point in own]
            return (picks or legal)[0]
        rails = [(i, a) for i, a in zip(legal, acts, strict=True) if a.kind == "rail"]
        targets = [c for c in s.hands[p] if not s.networks.joined(b.cities[c].point, s.markers[p])]
        if s.phase != "rails" or not rails or not targets:
            return legal[rnd.randrange(len(legal))]
        return min(rails, key=lambda ia: (min(self.dist[c][x] for c in targets
                                              for x in (b.edge_a[ia[1].line], b.edge_b[ia[1].line])),
                                          rnd.random()))[0]


@pytest.mark.parametrize(("name", "options"), [("trans_europa_v1", {}),
                                               ("trans_america_v1", {"players": 3, "special_cards": "each-round",
                                                                     "history": 4})])
def test_pettingzoo_api_and_seed_tests(name: str, options: dict) -> None:
    api_test(make_env(name, **options), num_cycles=150)
    seed_test(lambda: make_env(name, **options), num_cycles=100)


@pytest.mark.parametrize(("game", "n", "cards"), CONFIGS)
def test_mask_is_the_legal_actions_and_round_trips(game: str, n: int, cards) -> None:
    kinds: set[str] = set()
    for g in positions(game, n, cards, range(2), moves=300):
        codec = trans_codec(g)
        legal = list(g.legal_actions())
        idx, acts = codec.legal(g)
        assert acts == legal and len(set(idx)) == len(idx)
        assert np.flatnonzero(codec.mask(g)).tolist() == sorted(idx)  # read from the engine's parts
        assert [codec.decode(g, i) for i in idx] == legal
        for i, a in zip(idx, legal, strict=True):
            assert codec.encode(g, a) == i == codec.encode(g, g.parse(str(a)))
            assert codec.action_label(i) == str(a)
            kinds.add(codec.block_of(i)[0])
    assert {"start", "rail", "end"} <= kinds
    if cards:
        assert kinds & {"return", "give"}


def hide(game, seat: int, rnd: random.Random):
    """A clone in which the other players hold other cities of the same colours (colours are public,
    cities are not), with the rest piles and the special deck reshuffled and their pending choices
    changed; colours that special cards turn face up are left alone."""
    g = game.clone()
    s, b = g.state, g.board
    shown = g.rules.effects(s).reveal
    for pile in s.decks:
        rnd.shuffle(pile)
    rnd.shuffle(s.special_deck)
    for q in range(s.n_players):
        if q == seat:
            continue
        for k, c in enumerate(s.hands[q]):
            color = b.cities[c].color
            pile = s.decks[color] if color < len(s.decks) else []
            if pile and color not in shown:
                j = rnd.randrange(len(pile))
                s.hands[q][k], pile[j] = pile[j], c
        if s.pending[q] >= 0 and s.hands[q]:
            s.pending[q] = rnd.choice(s.hands[q])
    g._legal = None
    return g


@pytest.mark.parametrize(("game", "n", "cards"), CONFIGS)
def test_hidden_information_never_changes_an_observation(game: str, n: int, cards) -> None:
    rnd = random.Random(3)
    changed = 0
    for k, g in enumerate(positions(game, n, cards, range(2), moves=240)):
        if k % 4:
            continue
        codec = trans_codec(g, history=4)
        for seat in range(n):
            obs = codec.observe(g.view(seat, **codec.view_options))
            other = hide(g, seat, rnd)
            changed += other.state.hands != g.state.hands
            assert np.array_equal(obs, codec.observe(other.view(seat, **codec.view_options))), codec.describe(obs)
            assert obs.min() >= 0.0 and obs.max() <= 1.0
            # the path the environments use (the engine's compact view) hides the same things
            compact = codec.observe_game(g, seat)
            assert np.array_equal(compact, obs)
            assert np.array_equal(codec.observe_game(other, seat), compact), codec.describe(compact)
    assert changed


COMPACT_CONFIGS = [*CONFIGS, ("trans-america", 3, None), ("trans-europa", 4, [10, 13, 16]),
                   ("trans-america", 5, [8, 17, 19]), ("trans-europa", 3, [6, 14, 3, 9])]


def assert_compact_equals_json(g, codec, seats) -> None:
    for seat in seats:
        ref = codec.observe(g.view(seat, **codec.view_options))
        got = codec.observe_game(g, seat)
        assert np.array_equal(got, ref), (f"seat {seat} after {len(g.moves)} moves\n" + codec.describe(ref)
                                          + "\n---\n" + codec.describe(got))


@settings(max_examples=40, deadline=None)
@given(config=st.sampled_from(COMPACT_CONFIGS), seed=st.integers(0, 2**32), moves=st.integers(0, 700),
       eps=st.sampled_from([0.2, 1.0]), history=st.sampled_from([0, 1, 4]), data=st.data())
def test_compact_observation_equals_the_json_view_observation(config, seed, moves, eps, history, data) -> None:
    """The fast path (engine ``observation_view`` -> ``observe_compact``) gives exactly the vector of the
    reference path (engine ``view`` -> ``observe``) on random positions (guided or uniformly random
    play, every phase and special card), for every seat, and again after one more move."""
    game, n, cards = config
    g = tracklayer.new_game(game, n, seed=seed, special_cards=cards)
    rnd = random.Random(seed)
    play(g, rnd, moves=moves, eps=eps)
    codec = trans_codec(g, history=history)
    seats = data.draw(st.permutations(range(n)))
    assert_compact_equals_json(g, codec, seats)
    if not g.is_over:
        legal = g.legal_actions()
        g.apply(legal[rnd.randrange(len(legal))])
        assert_compact_equals_json(g, codec, seats)


@pytest.mark.parametrize(("game", "n", "cards"), [("trans-europa", 3, [8, 13, 10]), ("trans-america", 2, [16, 19])])
def test_compact_observation_follows_whole_games(game: str, n: int, cards) -> None:
    """Every third position of guided games to the end, and the final one: the compact observation is
    the reference one, the mask (read from the engine's parts) is the legal actions."""
    g = tracklayer.new_game(game, n, seed=11, special_cards=cards)
    codec = trans_codec(g, history=3)
    kinds = set()

    def check(g) -> None:
        kinds.add(g.phase)
        if len(g.moves) % 3 == 0:
            assert_compact_equals_json(g, codec, range(n))
            assert np.flatnonzero(codec.mask(g)).tolist() == sorted(codec.legal(g)[0])

    play(g, random.Random(5), check=check)
    assert g.is_over and kinds >= {"start", "rails", "choose"}
    assert_compact_equals_json(g, codec, range(n))
    assert not codec.mask(g).any()


def test_observation_view_is_for_seats_only() -> None:
    g = tracklayer.new_game("trans-europa", 3, seed=1)
    for bad in (None, -1, 3, "0", 1.0):
        with pytest.raises(IllegalAction, match="seat"):
            g.observation_view(bad)


def test_guided_episodes_end_with_the_engine_result() -> None:
    ep = Episode(get_spec("trans_america_v1"), players=3, reward="win")
    rnd = random.Random(0)
    for seed in range(3):
        ep.reset(seed=seed)
        driver = Guided(ep.game.board)
        while not ep.done:
            idx, acts = ep.legal()
            assert idx
            ep.play(driver.choose(ep.game, idx, acts, rnd))
        assert ep.over, "guided games reach 13 prestige"
        result = ep.game.result()
        winners = [ep.game.players.index(w) for w in result["winners"]]
        assert ep.rewards() == [(1.0 if len(winners) == 1 else 0.0) if q in winners else -1.0 for q in range(3)]
        assert max(ep.final_scores()) >= ep.game.board.goal


def test_masked_random_episodes_are_truncated_cleanly() -> None:
    """Uniformly random Trans games rarely reach 13 (rounds end when the supply runs out): max_steps."""
    ep = Episode(get_spec("trans_europa_v1"), players=2, max_steps=300, special_cards="each-round")
    rng = np.random.default_rng(1)
    for seed in range(6):
        ep.reset(seed=seed)
        while not ep.done:
            legal = np.flatnonzero(ep.action_mask(ep.current))
            ep.play(int(legal[rng.integers(len(legal))]))
        assert ep.truncated and ep.steps == 300 and ep.rewards() == [0.0, 0.0]
        assert ep.game.state.round >= 2


def test_gym_against_random_bots() -> None:
    env = make_gym("trans_europa_v1", players=3, opponents="random", max_steps=150)
    env.reset(seed=5)
    rng = np.random.default_rng(0)
    done = False
    while not done:
        _obs, reward, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        done = term or trunc
    assert trunc and info["truncated_after"] == 150
    # the standings pay: reward = own prestige minus the best opponent's (all zero if nobody connected)
    scores = info["scores"]
    assert reward == scores[env.seat] - max(s for q, s in enumerate(scores) if q != env.seat)
    assert {"missing_rails", "prestige_per_round", "connected", "total"} <= set(info["result"])


def test_a_learner_that_builds_towards_its_cities_is_paid_against_random() -> None:
    """Random Trans play never ends (rounds that empty the rail supply score nobody), so a 2-player game
    against ``random`` is cut at ``max_steps``; the standings still tell a builder from a random player."""
    from tracklayer.bots import make_bot
    from tracklayer.bots.base import bot_view

    env = make_gym("trans_europa_v1", opponents="random", max_steps=400)
    builder = make_bot("steiner", 1)
    env.reset(seed=3)
    done = False
    while not done:
        game = env.game
        action = builder.choose(bot_view(builder, game, env.seat), game.legal_actions())
        _obs, reward, term, trunc, info = env.step(env.codec.encode(game, action))
        done = term or trunc
    assert reward > 0 and info["winner"]


def test_the_supply_feature_counts_rail_pieces_a_double_line_being_one():
    g = tracklayer.new_game("trans-europa", 3, seed=3)
    for p in ("12,5", "10,1", "21,10"):
        g.apply(f"start {p}")
    g.apply("rail 12,5-13,4")  # a double line: the whole turn, one piece of the 85
    codec = trans_codec(g)
    for seat in range(3):
        obs = codec.observe_game(g, seat)
        assert obs[codec._o_supply] == pytest.approx(84 / 85)
        assert "supply: 84" in codec.describe(obs)
