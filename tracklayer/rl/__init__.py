"""Reinforcement-learning environments for tracklayer games (needs ``pip install 'tracklayer[rl]'``).

* PettingZoo AEC: ``tracklayer.rl.ttr_europe_v2.env(players=2, variant="classic")``,
  ``ttr_new_york_v1.env()``, ``trans_europa_v1.env()``, ``trans_america_v1.env()``, or
  ``make_env(name, ...)``.
* Gymnasium, one learner against bots: ``make_gym("ttr_europe_v2", opponents="random")`` or
  ``gymnasium.make("tracklayer.rl:tracklayer/TTREurope-v2")``.

Observations are built from ``game.view(seat)`` only; the action encoding and the observation
slices are documented in ``docs/rl.md``.
"""

from __future__ import annotations

try:
    import gymnasium as _gymnasium  # noqa: F401
    import numpy as _numpy  # noqa: F401
    import pettingzoo as _pettingzoo  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the installation
    raise ImportError("tracklayer.rl needs numpy, gymnasium and pettingzoo: pip install 'tracklayer[rl]'") from exc

from tracklayer.rl.core import REWARDS, EnvSpec, Episode
from tracklayer.rl.envs import SPECS, env_names, get_spec, make_env, make_gym, make_raw_env, register_gymnasium
from tracklayer.rl.gym_env import TracklayerGymEnv

register_gymnasium()

__all__ = [
    "REWARDS",
    "SPECS",
    "EnvSpec",
    "Episode",
    "TracklayerGymEnv",
    "env_names",
    "get_spec",
    "make_env",
    "make_gym",
    "make_raw_env",
]
