"""The four games as OpenSpiel Python games, with the real pyspiel: loading, OpenSpiel's random simulation
test, tensors of the declared shapes, resampling that keeps the information state, and a short IS-MCTS game."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import tracklayer.rl.openspiel  # noqa: E402,F401  (registers the games)

NAMES = ["python_tracklayer_ttr_europe", "python_tracklayer_ttr_new_york", "python_tracklayer_trans_europa",
         "python_tracklayer_trans_america"]
SHORT = {"max_game_length": 40}  # OpenSpiel's Python-side copies cost a replay each: keep the games short


@pytest.mark.parametrize("name", NAMES)
def test_random_simulation_test_passes(name: str) -> None:
    # OpenSpiel's test looks at every one of the codec's indices in each state: Europe has 2,326
    game = pyspiel.load_game(name, {"max_game_length": 15 if name.endswith("europe") else 40})
    assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)


@pytest.mark.parametrize("name", NAMES)
def test_tensors_strings_and_resampling(name: str) -> None:
    game = pyspiel.load_game(name, SHORT)
    rng = np.random.RandomState(0)
    state = game.new_initial_state()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    while not state.is_terminal():
        for p in range(game.num_players()):
            assert len(state.information_state_tensor(p)) == game.information_state_tensor_size()
            assert len(state.observation_tensor(p)) == game.observation_tensor_size()
            world = state.resample_from_infostate(p, sampler)
            assert world.information_state_string(p) == state.information_state_string(p)
            assert world.observation_string(p) == state.observation_string(p)
            assert world.history() == state.history()
        legal = state.legal_actions()
        assert legal and all(0 <= a < game.num_distinct_actions() for a in legal)
        state.apply_action(int(rng.choice(legal)))
    returns = state.returns()
    assert sum(returns) == 0 and all(r in (-1.0, 0.0, 1.0) for r in returns)


def test_is_mcts_plays_a_short_game_to_valid_returns() -> None:
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game("python_tracklayer_ttr_new_york", {"max_game_length": 12})
    rng = np.random.RandomState(1)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=4, random_state=rng)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.current_player() == 0:
            state.apply_action(bot.step(state))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    returns = state.returns()
    assert sum(returns) == 0 and all(r in (-1.0, 0.0, 1.0) for r in returns)
