"""``SB3BatchVecEnv`` / ``BatchEnv.sb3()``: a BatchEnv as Stable-Baselines3's ``VecEnv``.

The reference is SB3's own ``make_vec_env`` (a ``DummyVecEnv`` of Monitor-wrapped TracklayerGymEnv) over
the same options and seed: observations, rewards, dones, infos (``terminal_observation``,
``TimeLimit.truncated``, the final info) and masks must be equal step for step through terminations,
truncations and auto-resets, in-process and with workers; then MaskablePPO trains on it.
"""

from __future__ import annotations

import re
import runpy
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import VecEnv, VecMonitor

from tests import waits
from tests.rl.trajectories import assert_same
from tracklayer.rl import BatchEnv, make_gym
from tracklayer.rl.sb3 import SB3BatchVecEnv

NAME = "ttr_new_york_v1"
# about half of these New York games end before max_steps: both terminations and truncations occur
OPTIONS: dict[str, Any] = {"opponents": "random", "max_steps": 56}


class Factory:
    """The single environment a BatchEnv row is (flat observations, random seat)."""

    def __call__(self) -> Any:
        return make_gym(NAME, observation="flat", seat="random", **OPTIONS)


def run(venv: VecEnv, steps: int, seed: int) -> list[tuple[Any, ...]]:
    """Copies of what ``reset`` and ``step`` return, actions drawn from ``get_action_masks`` by a fixed
    generator; checks SB3's VecEnv contract on every step."""
    n = venv.num_envs
    venv.seed(seed)
    obs = venv.reset()
    assert isinstance(obs, np.ndarray) and obs.shape == (n, *venv.observation_space.shape)
    assert obs.dtype == venv.observation_space.dtype
    rng = np.random.default_rng(1)
    out: list[tuple[Any, ...]] = [(obs.copy(),)]
    for _ in range(steps):
        masks = get_action_masks(venv)
        assert masks.shape == (n, venv.action_space.n) and masks.dtype == bool and masks.any(axis=1).all()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rewards, dones, infos = venv.step(actions)
        assert obs.shape == (n, *venv.observation_space.shape) and obs.dtype == np.float32
        assert rewards.shape == (n,) and dones.shape == (n,) and dones.dtype == bool
        assert isinstance(infos, list) and len(infos) == n and all(isinstance(i, dict) for i in infos)
        for i, info in enumerate(infos):
            assert ("terminal_observation" in info) == bool(dones[i])
            assert isinstance(info["TimeLimit.truncated"], bool)
            if dones[i]:
                assert venv.observation_space.contains(info["terminal_observation"])
                assert "episode" in info  # Monitor / VecMonitor
        rows = [{k: v for k, v in info.items() if k != "episode"} for info in infos]
        episodes = [(info["episode"]["r"], info["episode"]["l"]) for info in infos if "episode" in info]
        out.append((masks, obs.copy(), rewards.copy(), dones.copy(), rows, episodes))
    return out


@pytest.fixture(scope="module")
def reference() -> list[tuple[Any, ...]]:
    venv = make_vec_env(Factory(), n_envs=3, seed=7)
    try:
        return run(venv, 200, seed=7)
    finally:
        venv.close()


@pytest.mark.parametrize("workers", [0, 2])
def test_same_as_dummy_vec_env(reference: list[tuple[Any, ...]], workers: int) -> None:
    with BatchEnv(NAME, n=3, workers=workers, **OPTIONS) as batch:
        venv = batch.sb3()
        assert isinstance(venv, VecMonitor) and isinstance(venv.venv, SB3BatchVecEnv)
        ours = run(venv, 200, seed=7)
    assert_same(ours, reference)
    dones = np.array([step[3] for step in reference[1:]])
    truncated = [info["TimeLimit.truncated"] for step in reference[1:] for info in step[4]
                 if "terminal_observation" in info]
    assert dones.sum() >= 4 and any(truncated) and not all(truncated)  # both ends and the auto-resets were covered


def test_terminal_observation_is_the_games_last() -> None:
    """The terminal observation is the ended game's (not the new game's; its equality with the single
    environment's last observation is in test_same_as_dummy_vec_env), and what SB3 keeps is a copy."""
    with BatchEnv(NAME, n=2, **OPTIONS) as batch:
        venv = SB3BatchVecEnv(batch)
        venv.seed(3)
        venv.reset()
        rng = np.random.default_rng(0)
        for _ in range(300):
            masks = get_action_masks(venv)
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
            obs, _rewards, dones, infos = venv.step(actions)
            if dones.any():
                i = int(np.flatnonzero(dones)[0])
                assert not np.array_equal(infos[i]["terminal_observation"], obs[i])
                assert np.array_equal(infos[i]["terminal_observation"], batch.final_obs[i])
                assert infos[i]["terminal_observation"] is not batch.final_obs[i]
                break
        else:
            pytest.fail("no game ended")
        assert not np.shares_memory(obs, batch.obs) and not np.shares_memory(masks, batch.masks)
        assert not any(np.shares_memory(m, batch.masks) for m in venv.env_method("action_masks"))


def test_seed_reset_and_attrs() -> None:
    with BatchEnv(NAME, n=3, **OPTIONS) as batch:
        venv = SB3BatchVecEnv(batch)
        assert venv.seed(5) == [5, 6, 7]
        first = venv.reset()
        assert np.array_equal(first, BatchEnv(NAME, n=3, **OPTIONS).reset(seed=5)[0])
        venv._seeds = [1, 5, 2]
        with pytest.raises(ValueError, match="consecutive"):
            venv.reset()
        venv._seeds = [None] * 3
        venv.reset()  # unseeded: each row continues its own stream
        assert is_masking_supported(venv)
        assert venv.get_attr("seat_option") == ["random"] * 3
        assert venv.get_attr("action_masks", indices=[1])[0].__self__ is batch.envs[1]  # the method, not its value
        venv.set_attr("illegal_reward", -2.0, indices=[2])
        assert venv.get_attr("illegal_reward") == [-1.0, -1.0, -2.0]
        assert venv.env_method("action_text", 0, indices=[0]) == [batch.envs[0].action_text(0)]
        assert venv.env_is_wrapped(Monitor) == [False] * 3
        assert [m.tolist() for m in venv.env_method("action_masks")] == [e.action_masks().tolist() for e in batch.envs]
        with pytest.raises(TypeError, match="BatchEnv"):
            SB3BatchVecEnv(make_gym(NAME))  # type: ignore[arg-type]
        venv.close()


def test_subsets_with_workers_are_refused_but_all_rows_work() -> None:
    with BatchEnv(NAME, n=2, workers=2, **OPTIONS) as batch:
        venv = SB3BatchVecEnv(batch)
        venv.reset()
        assert venv.get_attr("illegal_reward", indices=1) == [-1.0]
        with pytest.raises(NotImplementedError, match="every row"):
            venv.env_method("action_text", 0, indices=[0])
        with pytest.raises(NotImplementedError, match="every row"):
            venv.set_attr("illegal_reward", -2.0, indices=[0])
        venv.set_attr("illegal_reward", -3.0)
        assert venv.get_attr("illegal_reward") == [-3.0, -3.0]
        assert len(venv.env_method("action_masks", indices=[1])) == 1


def test_maskable_ppo_learns_with_workers() -> None:
    with BatchEnv(NAME, n=4, workers=2, **OPTIONS) as batch:
        model = MaskablePPO("MlpPolicy", batch.sb3(), n_steps=32, batch_size=64, n_epochs=1, seed=0, device="cpu")
        model.learn(256)
        assert model.num_timesteps == 256
        assert len(model.ep_info_buffer) > 0  # VecMonitor's episodes reached SB3's logger
    assert batch.closed


def test_importing_tracklayer_rl_needs_no_sb3() -> None:
    code = ("import sys; import tracklayer.rl; "
            "assert 'stable_baselines3' not in sys.modules and 'sb3_contrib' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=waits.scaled(120))


def test_example_trains_the_same_model_with_batch_workers(monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """examples/train_maskable_ppo.py --batch-workers 2 sees the same steps, so it trains the same model
    (run in this process: torch is imported once)."""
    script = str(Path(__file__).resolve().parents[2] / "examples" / "train_maskable_ppo.py")
    results = []
    for extra in ([], ["--batch-workers", "2"]):
        monkeypatch.setattr(sys, "argv", [script, "--smoke", "--envs", NAME, "--opponents", "random", *extra])
        runpy.run_path(script, run_name="__main__")
        out = capsys.readouterr().out
        results.append([re.sub(r"in \d+ s", "", line) for line in out.splitlines() if " vs random:" in line])
    assert len(results[0]) == 1 and results[0] == results[1]


def test_render_tiles_the_rows() -> None:
    with BatchEnv(NAME, n=2, render_mode="rgb_array", **OPTIONS) as batch:
        venv = batch.sb3(monitor=False)
        assert isinstance(venv, SB3BatchVecEnv) and venv.render_mode == "rgb_array"
        venv.reset()
        frame = batch.envs[0].render()
        image = venv.render()
        assert image is not None and image.shape == (2 * frame.shape[0], frame.shape[1], 3)
        assert np.array_equal(image[:frame.shape[0]], frame)
    with BatchEnv(NAME, n=1, **OPTIONS) as batch, pytest.raises(ValueError, match="rgb_array"):
        SB3BatchVecEnv(batch).get_images()
