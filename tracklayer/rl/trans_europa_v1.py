"""PettingZoo environment: Trans Europa (``special_cards=``: None, "each-round", card numbers).

``env(players=2, reward="margin", ...)`` — options in ``docs/rl.md``.
"""

from __future__ import annotations

from typing import Any

from tracklayer.rl.envs import make_env, make_parallel, make_raw_env

NAME = "trans_europa_v1"


def env(**options: Any) -> Any:
    return make_env(NAME, **options)


def raw_env(**options: Any) -> Any:
    return make_raw_env(NAME, **options)


def parallel_env(**options: Any) -> Any:
    """PettingZoo ParallelEnv (the turn-based conversion: only the agent to move acts each step)."""
    return make_parallel(NAME, **options)
