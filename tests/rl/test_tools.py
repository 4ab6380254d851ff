"""The standard RL tools work with default arguments: checkers, vector envs, SB3, opponents.

Gymnasium's and SB3's ``check_env``; PettingZoo's ``api_test``, ``seed_test``, ``render_test`` and,
through the turn-based conversion, ``parallel_api_test`` / ``parallel_seed_test``; next-step
autoreset with masked samplers; subprocess vector envs with heuristic bots, callables, SB3 models and a
self-play pool as opponents; the final info; ``rgb_array``; ``BatchEnv``. The SB3 checks skip when
stable-baselines3 / sb3-contrib are not installed (the ``test`` extra installs them on Python 3.11).
"""

from __future__ import annotations

import importlib
import pickle
import warnings
from functools import partial
from itertools import pairwise
from types import SimpleNamespace

import gymnasium
import numpy as np
import pytest
from pettingzoo.test import (
    api_test,
    max_cycles_test,
    parallel_api_test,
    parallel_seed_test,
    render_test,
    seed_test,
)

from tests import waits
from tracklayer.rl import BatchEnv, SelfPlayPool, env_names, make_gym, make_raw_env

GYM_IDS = ["tracklayer/TTREurope-v2", "tracklayer/TTRNewYork-v1", "tracklayer/TransEuropa-v1",
           "tracklayer/TransAmerica-v1"]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        # some checkers step fixed indices (0, 1, ...), mostly illegal: the warning of each illegal move is expected
        warnings.filterwarnings("ignore", message=".*(illegal action|played illegal).*")
        warnings.filterwarnings("ignore", message=".*(should be gymnasium.spaces.box|not a NumPy array).*")
        warnings.filterwarnings("ignore", message=".*(observation_spaces|action_spaces).*deprecated.*")
        yield


def first_legal(observation, mask) -> int:
    """A module-level policy (picklable): the first legal action."""
    return int(np.flatnonzero(mask)[0])


def last_legal(observation, mask) -> int:
    return int(np.flatnonzero(mask)[-1])


def same(env):
    """``partial(same, env)``: a vector env's constructor that ships an environment built here."""
    return env


# ---------------------------------------------------------------- checkers, default arguments
@pytest.mark.parametrize("gym_id", GYM_IDS)
def test_gymnasium_check_env_with_defaults(gym_id: str) -> None:
    from gymnasium.utils.env_checker import check_env

    check_env(gymnasium.make(gym_id).unwrapped)
    check_env(gymnasium.make(gym_id, observation="flat").unwrapped)
    check_env(gymnasium.make(gym_id, render_mode="rgb_array").unwrapped)


@pytest.mark.parametrize("gym_id", GYM_IDS)
def test_sb3_check_env_with_defaults(gym_id: str) -> None:
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.env_checker import check_env

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SB3 advises on Dict spaces and Box bounds; errors still raise
        check_env(gymnasium.make(gym_id))
        check_env(gymnasium.make(gym_id, observation="flat"))


@pytest.mark.parametrize("name", ["ttr_europe_v2", "ttr_new_york_v1", "trans_europa_v1", "trans_america_v1"])
def test_pettingzoo_tests_with_defaults(name: str) -> None:
    assert name in env_names()
    mod = importlib.import_module(f"tracklayer.rl.{name}")
    cycles = 300 if name.startswith("ttr") else 150
    api_test(mod.env(), num_cycles=cycles)
    seed_test(mod.env, num_cycles=cycles)
    render_test(mod.env)
    parallel_api_test(mod.parallel_env(), num_cycles=cycles)
    parallel_seed_test(mod.parallel_env, num_cycles=cycles)


@pytest.mark.parametrize("name", ["ttr_europe_v2", "ttr_new_york_v1", "trans_europa_v1", "trans_america_v1"])
def test_pettingzoo_max_cycles_test(name: str) -> None:
    """PettingZoo's own check: unmasked random samples, each agent asked exactly ``max_cycles`` times in
    the AEC environment, ``max_cycles`` parallel steps. It is unseeded: run it a few times."""
    mod = importlib.import_module(f"tracklayer.rl.{name}")
    for _ in range(5):
        max_cycles_test(mod)


@pytest.mark.parametrize(("name", "options"), [("ttr_europe_v2", {"players": 4, "variant": "mega"}),
                                               ("ttr_new_york_v1", {"players": 3}),
                                               ("trans_america_v1", {"players": 5, "special_cards": "each-round"})])
def test_max_cycles_test_with_more_players(name: str, options: dict) -> None:
    mod = importlib.import_module(f"tracklayer.rl.{name}")
    for _ in range(3):
        max_cycles_test(SimpleNamespace(env=partial(mod.env, **options),
                                        parallel_env=partial(mod.parallel_env, **options)))


def test_max_cycles_is_a_move_budget_per_agent() -> None:
    """Every agent is asked exactly ``max_cycles`` times though turns have several moves; a stand-in plays
    the moves of an agent whose budget is spent, from the game's seed (same seed, same episode)."""
    from tracklayer.rl import ttr_europe_v2

    def run(seed: int) -> tuple[dict[str, int], list[str], list[str]]:
        env = ttr_europe_v2.env(max_cycles=7)
        env.reset(seed=seed)
        for i, a in enumerate(env.possible_agents):
            env.action_space(a).seed(seed + i)
        asked = dict.fromkeys(env.possible_agents, 0)
        order: list[str] = []
        for agent in env.agent_iter():
            obs, _r, term, trunc, _info = env.last()
            if term or trunc:
                assert trunc and not term and env.infos[agent]["truncated_after"] >= 14
                env.step(None)
                continue
            asked[agent] += 1
            order.append(agent)
            env.step(int(env.action_space(agent).sample(mask=obs["action_mask"])))
        return asked, order, [str(m) for m in env.unwrapped.game.moves]

    asked, order, moves = run(5)
    assert asked == {"player_0": 7, "player_1": 7}
    assert any(a == b for a, b in pairwise(order))  # turns of several moves: budgets diverge
    assert run(5)[2] == moves
    assert len(moves) > 14  # the stand-in played some of them


def test_parallel_max_cycles_counts_moves() -> None:
    """In the parallel environment a cycle is a parallel step, one move: ``max_cycles`` is ``max_steps``."""
    from tracklayer.rl import ttr_new_york_v1

    env = ttr_new_york_v1.parallel_env(max_cycles=6)
    obs, _ = env.reset(seed=1)
    steps = 0
    while env.agents:
        actions = {a: env.action_space(a).sample(mask=obs[a]["action_mask"]) for a in env.agents}
        obs, _rew, term, trunc, _info = env.step(actions)
        steps += 1
        assert steps <= 6
    assert steps == 6 and all(trunc.values()) and not any(term.values())
    with pytest.raises(TypeError, match="max_cycles or max_steps"):
        ttr_new_york_v1.parallel_env(max_cycles=6, max_steps=10)
    with pytest.raises(ValueError, match="max_cycles"):
        ttr_new_york_v1.env(max_cycles=0)


# ---------------------------------------------------------------- the action space samples legal moves
def test_unmasked_sample_is_a_legal_move() -> None:
    """``action_space(agent).sample()`` without a mask plays real games (the checkers' random agents)."""
    env = make_raw_env("ttr_europe_v2")
    env.reset(seed=11)
    env.action_space("player_0").seed(0)
    env.action_space("player_1").seed(1)
    moves = 0
    for agent in env.agent_iter():
        obs, _r, term, trunc, _info = env.last()
        if term or trunc:
            env.step(None)
            continue
        waiting = next(a for a in env.agents if a != agent)
        assert 0 <= env.action_space(waiting).sample() < env.action_space(waiting).n  # not its turn: uniform
        action = env.action_space(agent).sample()
        assert obs["action_mask"][action] == 1
        env.step(action)
        moves += 1
    assert env.unwrapped.game.is_over and moves == len(env.unwrapped.game.moves)
    # an explicit mask is used as given; the space is still Discrete(n) to everything else
    space = env.action_space("player_0")
    only = np.zeros(space.n, dtype=np.int8)
    only[17] = 1
    assert space.sample(mask=only) == 17
    assert space == gymnasium.spaces.Discrete(space.n) and space.contains(space.n - 1)

    gym_env = make_gym("ttr_new_york_v1", observation="flat")
    gym_env.reset(seed=3)
    gym_env.action_space.seed(3)
    done = False
    while not done:
        action = gym_env.action_space.sample()
        assert gym_env.action_masks()[action]
        _obs, _r, term, trunc, _info = gym_env.step(action)
        done = term or trunc
    assert term


def test_a_copied_space_does_not_sample_from_another_game() -> None:
    """A pickled space is a plain Discrete; an unpickled environment binds its spaces to its own game."""
    env = make_gym("ttr_europe_v2")
    env.reset(seed=4)
    space = pickle.loads(pickle.dumps(env.action_space))
    assert space.legal_mask is None and space == env.action_space
    clone = pickle.loads(pickle.dumps(env))
    clone.action_space.seed(0)
    for _ in range(20):
        assert clone.action_masks()[clone.action_space.sample()]
    aec = pickle.loads(pickle.dumps(make_raw_env("trans_europa_v1")))
    aec.reset(seed=2)
    agent = aec.agent_selection
    assert aec.observe(agent)["action_mask"][aec.action_space(agent).sample()] == 1


# ---------------------------------------------------------------- illegal actions
def test_illegal_action_ends_the_game_for_the_offender() -> None:
    env = make_raw_env("ttr_europe_v2")
    env.reset(seed=2)
    agent = env.agent_selection
    bad = int(np.flatnonzero(env.observe(agent)["action_mask"] == 0)[0])
    with pytest.warns(UserWarning, match="illegal action"):
        env.step(bad)
    assert all(env.terminations.values())
    assert env._cumulative_rewards == {a: (-1.0 if a == agent else 0.0) for a in env.possible_agents}
    assert env.infos[agent]["illegal_action"] == bad and not env.observe(agent)["action_mask"].any()


# ---------------------------------------------------------------- autoreset and masks
def test_next_step_autoreset_never_hands_a_masked_sampler_an_empty_mask() -> None:
    """Gymnasium 1.x's default autoreset returns the final observation, then ignores the next action and
    resets: the sampler is asked for an action on that final observation, whose mask must not be empty."""
    vec = gymnasium.vector.SyncVectorEnv([partial(make_gym, "ttr_new_york_v1", seat=q) for q in (0, 1)])
    obs, _ = vec.reset(seed=0)
    space = vec.single_action_space
    ended = 0
    for _ in range(400):
        masks = obs["action_mask"]
        assert masks.any(axis=1).all()
        actions = np.array([space.sample(mask=m) for m in masks])
        obs, _r, term, trunc, _info = vec.step(actions)
        ended += int((term | trunc).sum())
    assert ended >= 2


def test_flat_observation_and_action_masks() -> None:
    env = make_gym("ttr_europe_v2", observation="flat")
    obs, info = env.reset(seed=3)
    assert env.observation_space.contains(obs) and obs.shape == (env.episode.obs_size,)
    assert info["action_mask"].dtype == bool and np.array_equal(info["action_mask"], env.action_masks())
    done = False
    while not done:
        obs, _r, term, trunc, info = env.step(int(np.flatnonzero(env.action_masks())[-1]))
        done = term or trunc
    assert env.action_masks().all() and info["action_mask"].all()  # nobody acts on a final observation


# ---------------------------------------------------------------- final info
def test_final_info_has_the_result_breakdown() -> None:
    env = make_gym("ttr_europe_v2", opponents="random")
    env.reset(seed=5)
    done = False
    while not done:
        _o, reward, term, trunc, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
        done = term or trunc
    result = env.game.result()["players"][env.seat]
    assert info["final_score"] == result["total"] and info["scores"][env.seat] == result["total"]
    for key in ("route_points", "ticket_points", "completed_tickets", "failed_tickets", "longest_path",
                "longest_path_bonus", "stations_built", "station_points", "total", "rank"):
        assert info["result"][key] == result[key]
    assert reward == info["scores"][env.seat] - info["scores"][1 - env.seat]


# ---------------------------------------------------------------- opponents and pickling
def test_opponents_of_every_kind_and_pickling_keeps_the_game() -> None:
    """Heuristic bots (their registry factories are local functions) pickle: the bot is rebuilt from
    its name and seed, and plays on exactly as the original (bots choose from seed and view)."""
    env = make_gym("ttr_new_york_v1", players=4, opponents=["greedy", first_legal, "random"])
    env.reset(seed=11)
    for _ in range(5):
        env.step(int(np.flatnonzero(env.action_masks())[0]))
    twin = pickle.loads(pickle.dumps(env))
    while True:
        a = int(np.flatnonzero(env.action_masks())[-1])
        r1 = env.step(a)
        r2 = twin.step(a)
        assert [str(m) for m in env.game.moves] == [str(m) for m in twin.game.moves]
        assert r1[1:4] == r2[1:4]
        if r1[2] or r1[3]:
            break


def test_subprocess_vector_env_with_bots_callables_and_a_self_play_pool() -> None:
    pool = SelfPlayPool([first_legal], latest_prob=0.5)
    pool.add(last_legal)
    built = make_gym("ttr_new_york_v1", opponents="greedy")  # pickled (cloudpickle) into its subprocess
    built.reset(seed=1)
    fns = [partial(same, built), partial(make_gym, "ttr_new_york_v1", opponents=pool, seat="random")]
    vec = gymnasium.vector.AsyncVectorEnv(fns)
    try:
        obs, _ = vec.reset(seed=0)
        for _ in range(30):
            obs, *_ = vec.step(np.array([vec.single_action_space.sample(mask=m) for m in obs["action_mask"]]))
        vec.call("set_opponents", "random")
        assert list(vec.get_attr("opponent_names")) == [["random"], ["random"]]
    finally:
        vec.close()


def test_sb3_models_as_opponents_in_subprocesses(tmp_path) -> None:
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import SubprocVecEnv

    env = make_gym("ttr_new_york_v1", observation="flat")
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=32, seed=0, device="cpu")
    model.save(tmp_path / "model.zip")
    pool = SelfPlayPool()
    pool.add(model)
    from_path = make_gym("ttr_new_york_v1", observation="flat", opponents=str(tmp_path / "model.zip"))
    from_path.reset(seed=0)
    for _ in range(10):
        _o, _r, term, trunc, _i = from_path.step(int(np.flatnonzero(from_path.action_masks())[0]))
        if term or trunc:
            from_path.reset()
    # two subprocesses (each imports torch): the model itself travels as its saved bytes, and the pool
    vec = SubprocVecEnv([partial(make_gym, "ttr_new_york_v1", observation="flat", opponents=op)
                         for op in (model, pool)])
    try:
        vec.reset()
        for _ in range(20):
            masks = np.stack(vec.env_method("action_masks"))
            vec.step(np.array([int(np.flatnonzero(m)[0]) for m in masks]))
    finally:
        vec.close()


def test_sb3_make_vec_env_asks_for_rgb_array() -> None:
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.env_util import make_vec_env

    vec = make_vec_env("tracklayer/TTRNewYork-v1", n_envs=2, env_kwargs={"observation": "flat"})
    vec.reset()
    frame = vec.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3


# ---------------------------------------------------------------- rendering
@pytest.mark.parametrize("name", ["ttr_europe_v2", "trans_america_v1"])
def test_rgb_array_shows_the_board(name: str) -> None:
    env = make_raw_env(name, render_mode="rgb_array")
    env.reset(seed=1)
    first = env.render()
    assert first.dtype == np.uint8 and first.ndim == 3 and first.shape[2] == 3
    rng = np.random.default_rng(0)
    for _ in range(60):
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
    later = env.render()
    assert later.shape == first.shape and (later != first).any()
    assert pickle.loads(pickle.dumps(env)).render().shape == first.shape


# ---------------------------------------------------------------- batched API
def test_batch_env_steps_many_games_with_autoreset() -> None:
    env = BatchEnv("ttr_new_york_v1", n=6, opponents="random")
    obs, masks = env.reset(seed=4)
    assert obs.shape == (6, env.obs_size) and obs.dtype == np.float32
    assert masks.shape == (6, env.n_actions) and masks.dtype == bool
    rng = np.random.default_rng(0)
    finals = 0
    for _ in range(300):
        assert masks.any(axis=1).all()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, masks, rewards, term, trunc, info = env.step(actions)
        for i, final in info["final_info"].items():
            assert term[i] or trunc[i]
            assert "result" in final
            finals += 1
        assert not (rewards[~(term | trunc)]).any()
    assert finals == env.episodes.sum() > 0
    again = BatchEnv("ttr_new_york_v1", n=6, opponents="random")
    o2, _ = again.reset(seed=4)
    first, _ = BatchEnv("ttr_new_york_v1", n=6, opponents="random").reset(seed=4)
    assert np.array_equal(o2, first)
    assert [e.game.seed for e in again.envs] == [4 + i for i in range(6)]


# ---------------------------------------------------------------- the SB3 example
def test_maskable_ppo_example_smoke() -> None:
    pytest.importorskip("sb3_contrib")
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    proc = subprocess.run([sys.executable, "examples/train_maskable_ppo.py", "--smoke", "--envs", "ttr_new_york_v1"],
                          cwd=root, capture_output=True, text=True, timeout=waits.scaled(300))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "ttr_new_york_v1 vs random: win rate" in proc.stdout and "95% CI" in proc.stdout


def test_self_play_recipe_of_the_docs() -> None:
    """docs/rl.md's loop: learn, freeze a snapshot into the pool, send the pool to the environments."""
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_util import make_vec_env

    pool = SelfPlayPool(size=8, latest_prob=0.5)
    vec = make_vec_env("tracklayer.rl:tracklayer/TTRNewYork-v1", n_envs=2,
                       env_kwargs={"observation": "flat", "seat": "random", "opponents": "random"})
    model = MaskablePPO("MlpPolicy", vec, n_steps=64, batch_size=64, device="cpu", seed=0)
    for _generation in range(2):
        model.learn(128, reset_num_timesteps=False)
        pool.add(model)
        vec.env_method("set_opponents", pool)
    assert vec.get_attr("opponent_names") == [["SelfPlayPool(2 snapshots)"]] * 2
    model.learn(128, reset_num_timesteps=False)  # games against the snapshots
