"""The README's reinforcement-learning example runs as written, with the real Stable-Baselines3."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"


def rl_example() -> str:
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## Reinforcement learning"):]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)  # type: ignore[union-attr]


def test_the_readme_rl_example_runs_as_written() -> None:
    pytest.importorskip("sb3_contrib")
    code = rl_example()
    assert "MaskablePPO" in code and "make_gym" in code
    scope: dict[str, object] = {}
    exec(compile(code, str(README), "exec"), scope)
    model, aec = scope["model"], scope["aec"]
    assert model.num_timesteps >= 1_024  # type: ignore[attr-defined]
    aec.reset(seed=0)  # type: ignore[attr-defined]
    obs, _reward, _term, _trunc, info = aec.last()  # type: ignore[attr-defined]
    assert obs.shape == aec.observation_space("player_0").shape and info["action_mask"].any()  # type: ignore[attr-defined]
