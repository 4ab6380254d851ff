"""PettingZoo and Gymnasium conformance, determinism, rewards, truncation, masked random episodes."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import tracklayer
from tracklayer import IllegalAction
from tracklayer.rl import Episode, env_names, get_spec, make_env, make_gym, make_raw_env, ttr_europe_v2, ttr_new_york_v1

ENVS = [
    (ttr_europe_v2.env, {}),
    (ttr_europe_v2.env, {"players": 3, "variant": "mega", "history": 4, "reward": "win"}),
    (ttr_new_york_v1.env, {"players": 4}),
]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        # PettingZoo's checks suggest Box observations; a dict with "action_mask" is the documented pattern
        warnings.filterwarnings("ignore", message=".*(should be gymnasium.spaces.box|not a NumPy array).*")
        yield


def test_every_engine_game_with_a_codec_is_listed() -> None:
    assert env_names() == ["ttr_europe_v2", "ttr_new_york_v1", "trans_europa_v1", "trans_america_v1"]
    assert get_spec("ttr_europe_v2").game in tracklayer.games()
    with pytest.raises(KeyError):
        get_spec("chess_v6")


@pytest.mark.parametrize(("factory", "options"), ENVS)
def test_pettingzoo_api_test(factory, options) -> None:
    api_test(factory(**options), num_cycles=1000)


@pytest.mark.parametrize(("factory", "options"), ENVS)
def test_pettingzoo_seed_test(factory, options) -> None:
    seed_test(lambda: factory(**options), num_cycles=300)


def play_masked_random(env, seed: int, action_seed: int) -> tuple[list[int], dict[str, float], list[str]]:
    env.reset(seed=seed)
    rng = np.random.default_rng(action_seed)
    actions: list[int] = []
    total = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, term, trunc, _info = env.last()
        total[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        assert len(legal), "a live agent to move always has a legal action"
        a = int(legal[rng.integers(len(legal))])
        actions.append(a)
        env.step(a)
    return actions, total, [str(m) for m in env.unwrapped.game.moves]


def test_same_seed_same_episode_and_the_engine_replays_it() -> None:
    env1, env2 = make_env("ttr_europe_v2"), make_env("ttr_europe_v2")
    a1, r1, m1 = play_masked_random(env1, seed=123, action_seed=5)
    a2, r2, m2 = play_masked_random(env2, seed=123, action_seed=5)
    assert (a1, r1, m1) == (a2, r2, m2)
    game = tracklayer.new_game("ttr-europe", 2, seed=123)  # env seed = engine seed
    for text in m1:
        game.apply(text)
    assert game.is_over
    scores = [p["total"] for p in game.result()["players"]]
    assert r1 == {"player_0": scores[0] - scores[1], "player_1": scores[1] - scores[0]}
    _, _, m3 = play_masked_random(env1, seed=124, action_seed=5)
    assert m3 != m1


def test_resets_without_seed_continue_a_seeded_stream() -> None:
    env1, env2 = make_raw_env("ttr_new_york_v1"), make_raw_env("ttr_new_york_v1")
    env1.reset(seed=3)
    env2.reset(seed=3)
    for _ in range(3):
        env1.reset()
        env2.reset()
        assert env1.game.seed == env2.game.seed
        assert env1.game.to_json() == env2.game.to_json()


@pytest.mark.parametrize("reward", ["margin", "win", "score"])
def test_rewards(reward: str) -> None:
    env = make_env("ttr_new_york_v1", players=3, reward=reward)
    _, total, _ = play_masked_random(env, seed=8, action_seed=1)
    ep = env.unwrapped.episode
    scores = ep.final_scores()
    won = ep.winners()
    expect = {
        "score": scores,
        "margin": [scores[q] - max(scores[j] for j in range(3) if j != q) for q in range(3)],
        "win": [(1.0 if len(won) == 1 else 0.0) if q in won else -1.0 for q in range(3)],
    }[reward]
    assert [total[f"player_{q}"] for q in range(3)] == expect


def test_truncation_at_max_steps() -> None:
    env = make_env("ttr_europe_v2", max_steps=25)
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    steps = 0
    for _agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            assert trunc and not term and reward == 0.0 and info["truncated_after"] == 25
            assert set(info) == {"truncated_after", "final_score", "winner", "scores", "result"}
            assert not obs["action_mask"].any()
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
    assert steps == 25 and not env.unwrapped.game.is_over


def test_illegal_actions_are_refused_with_their_meaning() -> None:
    env = make_env("ttr_europe_v2", illegal_action="raise")
    env.reset(seed=2)
    claim = env.unwrapped.codec.action_blocks["claim"].start
    with pytest.raises(IllegalAction, match=r"action \d+ \(claim .*\) is not legal now"):
        env.step(claim)
    with pytest.raises(ValueError):
        make_env("ttr_europe_v2", reward="points")
    with pytest.raises(TypeError, match="unknown option"):
        make_env("ttr_new_york_v1", variant="mega")
    with pytest.raises(tracklayer.TracklayerError):
        make_env("ttr_europe_v2", variant="nope")


def test_wrapped_env_keeps_pettingzoos_order_and_bounds_checks() -> None:
    """The wrappers pass ``last()`` and the loop's attributes straight through, with PettingZoo's checks:
    nothing before ``reset()``, no action outside ``Discrete(n)``, no step of a dead agent."""
    from pettingzoo.utils import wrappers

    env = make_env("ttr_europe_v2")
    assert isinstance(env, wrappers.OrderEnforcingWrapper)
    for name in ("agent_selection", "agents", "terminations"):
        with pytest.raises(AttributeError, match="before reset"):
            getattr(env, name)
    with pytest.raises(AttributeError, match="before reset"):
        env.last()
    env.reset(seed=4)
    n = env.action_space(env.agent_selection).n
    assert env.last()[1:] == (0.0, False, False, {})
    for bad in (n, -1, np.int64(n), 1.5, "3"):
        with pytest.raises(AssertionError, match="not in action space"):
            env.step(bad)
    with pytest.raises(AssertionError, match="not in action space"):
        env.step(None)  # the agent to move is alive
    legal = int(np.flatnonzero(env.last()[0]["action_mask"])[0])
    env.step(np.int64(legal))  # numpy integers are actions too
    assert len(env.unwrapped.game.moves) == 1


def test_first_player_random_is_seeded() -> None:
    firsts = set()
    for seed in range(12):
        env = make_raw_env("ttr_new_york_v1", players=3, first_player="random")
        env.reset(seed=seed)
        firsts.add(env.agent_selection)
        again = make_raw_env("ttr_new_york_v1", players=3, first_player="random")
        again.reset(seed=seed)
        assert again.agent_selection == env.agent_selection
    assert len(firsts) == 3


@pytest.mark.parametrize(("name", "options", "episodes"), [
    ("ttr_new_york_v1", {"players": 2}, 900),
    ("ttr_new_york_v1", {"players": 4}, 300),
    ("ttr_europe_v2", {"players": 2}, 200),
    ("ttr_europe_v2", {"players": 5, "variant": "big-cities"}, 40),
    ("ttr_europe_v2", {"players": 3, "variant": "mega", "max_steps": 120}, 120),
])
def test_masked_random_episodes_end_properly(name: str, options: dict, episodes: int) -> None:
    """Thousands of episodes (1,560) driven through the mask: each ends (or is truncated) cleanly."""
    ep = Episode(get_spec(name), **options)
    rng = np.random.default_rng(0)
    ended = truncated = 0
    for k in range(episodes):
        ep.reset(seed=k)
        while not ep.done:
            seat = ep.current
            mask = ep.action_mask(seat)
            legal = np.flatnonzero(mask)
            assert len(legal)
            ep.play(int(legal[rng.integers(len(legal))]))
        assert ep.steps <= ep.max_steps
        if ep.over:
            ended += 1
            if ep.n_players == 2:
                assert sum(ep.rewards()) == pytest.approx(0.0)
            assert not ep.action_mask(0).any()
        else:
            truncated += 1
            assert ep.rewards() == [0.0] * ep.n_players
    assert ended + truncated == episodes
    if "max_steps" not in options:
        assert truncated == 0


def test_gymnasium_wrapper_against_random_bots() -> None:
    env = make_gym("ttr_europe_v2", opponents="random", seat="random")
    wins = []
    for seed in range(3):
        obs, info = env.reset(seed=seed)
        assert env.observation_space.contains(obs) and info == {}
        done = False
        rng = np.random.default_rng(seed)
        while not done:
            mask = env.action_masks()
            assert mask.dtype == bool and np.array_equal(mask, obs["action_mask"].astype(bool)) and mask.any()
            obs, _reward, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(mask))))
            done = term or trunc
        assert term and set(info) == {"final_score", "winner", "scores", "result"}
        wins.append(info["winner"])
        assert env.game.current_player is None
    with pytest.raises(IllegalAction):
        env.step(0)


@pytest.mark.parametrize(("name", "options"), [("ttr_europe_v2", {"players": 3, "seat": "random"}),
                                             ("ttr_new_york_v1", {"players": 2, "max_steps": 30})])
def test_gymnasium_flat_steps_against_random_in_compiled_code_equal_the_general_path(name, options,
                                                                                     monkeypatch) -> None:
    """A flat Ticket to Ride step against `random` opponents runs in compiled code (``rl.fastpath``):
    the same observations, masks, rewards, flags and infos as the general path, across episodes,
    truncation, an index outside the mask (the episode ends with the illegal reward) and a step after
    the end (refused)."""
    import tracklayer.rl.gym_env as gym_env
    from tracklayer.rl.gym_env import TracklayerGymEnv

    compiled = []
    real = gym_env.step_random  # None where the compiled step does not apply

    def counted(*args):
        moved = real(*args)
        if moved is not None:
            compiled.append(1)
        return moved

    monkeypatch.setattr(gym_env, "step_random", counted)

    def run() -> list[tuple[object, ...]]:
        env = make_gym(name, opponents="random", observation="flat", illegal_action="terminate", **options)
        out: list[tuple[object, ...]] = []
        rng = np.random.default_rng(3)
        for episode in range(3):
            obs, info = env.reset(seed=episode)
            out.append((obs.copy(), info["action_mask"].copy()))
            for t in range(400):
                mask = info["action_mask"]
                action = int(rng.choice(np.flatnonzero(mask)))
                if episode == 1 and t == 7:
                    action = int(np.flatnonzero(~mask)[0])  # not legal: the episode ends
                obs, reward, term, trunc, info = env.step(action)
                out.append((obs.copy(), reward, term, trunc, {k: (v.tolist() if isinstance(v, np.ndarray) else v)
                                                               for k, v in info.items()}))
                if term or trunc:
                    break
            with pytest.raises(IllegalAction):
                env.step(0)
        return out

    with pytest.warns(UserWarning, match="illegal action"):
        fast = run()
    assert len(compiled) > 30
    monkeypatch.setattr(TracklayerGymEnv, "compiled_opponents", False)
    compiled.clear()
    with pytest.warns(UserWarning, match="illegal action"):
        slow = run()
    assert not compiled
    assert len(fast) == len(slow) > 30
    for a, b in zip(fast, slow, strict=True):
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            assert np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y


def test_gymnasium_same_seed_same_episode() -> None:
    def run(seed: int) -> list[str]:
        env = make_gym("ttr_new_york_v1", players=3, seat="random", opponents=["random", "bot"])
        obs, _ = env.reset(seed=seed)
        rng = np.random.default_rng(1)
        done = False
        while not done:
            obs, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            done = term or trunc
        return [str(m) for m in env.game.moves]

    assert run(4) == run(4)
    assert run(4) != run(5)


def test_gymnasium_make_and_check_env() -> None:
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make("tracklayer/TTRNewYork-v1", illegal_action="terminate", illegal_reward=-5.0)
    check_env(env.unwrapped, skip_render_check=True)
    obs, _ = env.reset(seed=0)
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    obs, reward, term, trunc, info = env.step(bad)
    assert (reward, term, trunc, info) == (-5.0, True, False, {"illegal_action": bad})
    assert obs["action_mask"].all()  # nobody acts on it: all ones, so a masked sampler never sees an empty mask
    with pytest.raises(ValueError):
        make_gym("ttr_europe_v2", players=3, opponents=["random"])
    with pytest.raises(tracklayer.TracklayerError):
        make_gym("ttr_europe_v2", opponents="nobody")
