"""Reinforcement-learning environments for tracklayer games (needs ``pip install 'tracklayer[rl]'``).

* PettingZoo AEC: ``tracklayer.rl.ttr_europe_v2.env(players=2, variant="classic")``,
  ``ttr_new_york_v1.env()``, ``trans_europa_v1.env()``, ``trans_america_v1.env()``, or
  ``make_env(name, ...)``.
* PettingZoo Parallel (the turn-based conversion): ``ttr_europe_v2.parallel_env()``.
* Gymnasium, one learner against opponents (bots, callables, saved policies, a self-play pool):
  ``make_gym("ttr_europe_v2", opponents="random")`` or
  ``gymnasium.make("tracklayer.rl:tracklayer/TTREurope-v2")``; ``observation="flat"`` for SB3's ``MlpPolicy``.
* Batched, numpy in and out: ``BatchEnv("ttr_europe_v2", n=256, opponents="random")``; ``.sb3()`` makes it
  an SB3 ``VecEnv`` (``tracklayer.rl.sb3``, imported only then).

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

from tracklayer.rl.batch import BatchEnv
from tracklayer.rl.core import REWARDS, EnvSpec, Episode
from tracklayer.rl.envs import (
    SPECS,
    env_names,
    get_spec,
    make_env,
    make_gym,
    make_parallel,
    make_raw_env,
    register_gymnasium,
)
from tracklayer.rl.gym_env import TracklayerGymEnv
from tracklayer.rl.opponents import (
    BotOpponent,
    CallableOpponent,
    Opponent,
    PolicyOpponent,
    SelfPlayPool,
    opponent,
)

register_gymnasium()

__all__ = [
    "REWARDS",
    "SPECS",
    "BatchEnv",
    "BotOpponent",
    "CallableOpponent",
    "EnvSpec",
    "Episode",
    "Opponent",
    "PolicyOpponent",
    "SelfPlayPool",
    "TracklayerGymEnv",
    "env_names",
    "get_spec",
    "make_env",
    "make_gym",
    "make_parallel",
    "make_raw_env",
    "opponent",
]
