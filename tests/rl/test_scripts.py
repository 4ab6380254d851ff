"""The example training script and the environment benchmark run (tiny modes, a few seconds)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests import waits

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str) -> str:
    proc = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=waits.scaled(120))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def test_training_example_smoke() -> None:
    out = run("examples/train_reinforce.py", "--smoke", "--env", "ttr_new_york_v1")
    assert "win rate against random before training" in out and "after training" in out


def test_self_play_example_smoke() -> None:
    """The self-play loop in subprocesses: generation 1 against the start bot, then against the pool."""
    pytest.importorskip("sb3_contrib")
    out = run("examples/train_self_play.py", "--smoke")
    rows = [line for line in out.splitlines() if line.startswith("| 1 |") or line.startswith("| 2 |")]
    assert rows[0].startswith("| 1 | random |") and rows[1].startswith("| 2 | SelfPlayPool(1 snapshot) |"), out
    assert "vs greedy (95% CI)" in out


def test_env_steps_benchmark_smoke() -> None:
    out = run("benchmarks/env_steps.py", "--seconds", "0.05", "--only", "new_york")
    assert "ttr_new_york_v1" in out and "steps/s (CPU)" in out


def test_learned_bot_recipe_smoke(tmp_path: Path) -> None:
    """The learned bot's recipe end to end on a few games: imitation, a DAgger round, saved weights that play."""
    pytest.importorskip("torch")
    out = run("examples/train_learned.py", "--game", "ttr-new-york", "--games", "6", "--dagger", "1", "--epochs", "1",
              "--hidden", "16", "--out", str(tmp_path), "--eval", "2", "--eval-against", "random")
    assert "imitation:" in out and "DAgger round 1:" in out and "held-out agreement" in out
    curve = [line for line in out.splitlines() if line.startswith("curve: ")]  # the learning curve, per stage
    assert [line.split(":")[1].strip() for line in curve] == ["imitation", "DAgger round 1"]
    assert all("of 2 games against random" in line for line in curve)
    from tracklayer.rl.learned import LearnedPolicy

    policy = LearnedPolicy.load(tmp_path / "learned-ttr-new-york.npz")
    assert policy.meta["game"] == "ttr-new-york" and policy.meta["dagger"] == 1
    assert policy.layers[0][0].shape == (policy.meta["obs_size"], 16)
    assert policy.layers[-1][0].shape == (16, policy.meta["n_actions"])
    # the results stage, from those weights: a few batches of games against a bot, then saved again
    again = tmp_path / "reinforced"
    first = tmp_path / "learned-ttr-new-york.npz"
    out = run("examples/train_learned.py", "--game", "ttr-new-york", "--start", str(first), "--reinforce", "2",
              "--batch-games", "2", "--against", "random", "--eval", "2", "--eval-every", "1",
              "--eval-against", "random", "--out", str(again))
    assert "imitation:" not in out and "batch 0: learner's results" in out
    assert [line.split(":")[1].strip() for line in out.splitlines() if line.startswith("curve: ")] == [
        "reinforce 1", "reinforce 2"]
    reinforced = LearnedPolicy.load(again / "learned-ttr-new-york.npz")
    assert [r["batches"] for r in reinforced.meta["reinforce"]] == [2]
    assert reinforced.meta["dagger"] == 1  # what it started from is kept
    assert [w.shape for w, _ in reinforced.layers] == [w.shape for w, _ in policy.layers]
    assert any(not np.array_equal(a, b) for (a, _), (b, _) in zip(reinforced.layers, policy.layers, strict=True))
    # with a value network as the baseline: other weights, the choice kept in the meta
    valued = tmp_path / "valued"
    run("examples/train_learned.py", "--game", "ttr-new-york", "--start", str(first), "--reinforce", "2",
        "--batch-games", "2", "--against", "random", "--baseline", "value", "--out", str(valued))
    other = LearnedPolicy.load(valued / "learned-ttr-new-york.npz")
    assert [r.get("baseline", "mean") for r in other.meta["reinforce"]] == ["value"]
    assert any(not np.array_equal(a, b) for (a, _), (b, _) in zip(other.layers, reinforced.layers, strict=True))
