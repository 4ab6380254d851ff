"""PettingZoo environments with ``observation="flat"``: a Box observation and the mask in the infos, so
wrappers that need a Box (SuperSuit's) apply; PettingZoo's own tests and the real SuperSuit wrappers run."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo.test import api_test, parallel_api_test

from tracklayer.rl import make_env, make_parallel, make_raw_env

supersuit = pytest.importorskip("supersuit")


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*(is not a NumPy array|should be gymnasium.spaces.box).*")
        yield


@pytest.mark.parametrize("name", ["ttr_europe_v2", "trans_europa_v1"])
def test_pettingzoo_api_tests_pass_on_flat_observations(name: str) -> None:
    env = make_env(name, observation="flat", max_steps=200)
    assert isinstance(env.observation_space("player_0"), spaces.Box)
    api_test(env, num_cycles=60)
    parallel_api_test(make_parallel(name, observation="flat", max_cycles=60), num_cycles=60)


@pytest.mark.parametrize(("name", "options"), [("ttr_europe_v2", {"players": 3}), ("trans_europa_v1", {})])
def test_flat_observations_and_info_masks_equal_the_dict_mode(name: str, options: dict) -> None:
    """Move for move, every agent's flat observation is the dict mode's ``observation`` and its
    ``infos[agent]["action_mask"]`` the dict mode's ``action_mask``."""
    flat = make_raw_env(name, observation="flat", max_steps=300, **options)
    ref = make_raw_env(name, max_steps=300, **options)
    flat.reset(seed=4)
    ref.reset(seed=4)
    rng = np.random.default_rng(4)
    steps = 0
    for agent in ref.agent_iter():
        assert flat.agent_selection == agent
        for a in ref.agents:
            want = ref.observe(a)
            assert np.array_equal(flat.observe(a), want["observation"])
            assert np.array_equal(flat.infos[a]["action_mask"], want["action_mask"])
            assert np.array_equal(flat.action_mask(a), want["action_mask"])
        _obs, _r, term, trunc, _info = ref.last()
        mask = flat.infos[agent]["action_mask"]
        action = None if term or trunc else int(rng.choice(np.flatnonzero(mask)))
        ref.step(action)
        flat.step(action)
        steps += 1
    assert steps > 100 and flat.rewards == ref.rewards


def test_supersuit_wrappers_apply() -> None:
    """SuperSuit's dtype and frame-stack wrappers on the AEC environment, black death on the parallel one:
    whole episodes played from the masks in the infos."""
    env = supersuit.frame_stack_v1(supersuit.dtype_v0(make_env("ttr_new_york_v1", observation="flat"), np.float16), 3)
    space = env.observation_space("player_0")
    assert space.dtype == np.float16 and space.shape[-1] == 3 * make_raw_env("ttr_new_york_v1").episode.obs_size
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    moves = 0
    for _agent in env.agent_iter():
        obs, _reward, term, trunc, info = env.last()
        assert obs.dtype == np.float16 and obs.shape == space.shape
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(info["action_mask"]))))
        moves += 1
    assert moves > 50

    inner = make_parallel("ttr_new_york_v1", observation="flat", players=3)
    par = supersuit.black_death_v3(inner)
    observations, infos = par.reset(seed=2)
    assert set(observations) == {"player_0", "player_1", "player_2"}
    steps = 0
    # SuperSuit 3.11's black death calls an episode done only when every agent is terminated *and*
    # truncated, so the loop watches the environment underneath, whose agents leave when the game ends
    while inner.agents:
        actions = {}
        for agent in par.agents:
            mask = infos[agent].get("action_mask")
            legal = np.flatnonzero(mask) if mask is not None else []
            actions[agent] = int(rng.choice(legal)) if len(legal) else 0
        observations, _rewards, _terms, _truncs, infos = par.step(actions)
        steps += 1
    assert steps > 50
    assert all(obs.shape == (make_raw_env("ttr_new_york_v1", players=3).episode.obs_size,)
               for obs in observations.values())
