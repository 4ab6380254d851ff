"""PettingZoo environment: Ticket to Ride Europe (``variant=`` classic, 1912, mega, big-cities).

``env(players=2, variant="classic", reward="margin", ...)`` — options in ``docs/rl.md``.
"""

from __future__ import annotations

from typing import Any

from tracklayer.rl.envs import make_env, make_parallel, make_raw_env

NAME = "ttr_europe_v2"


def env(**options: Any) -> Any:
    return make_env(NAME, **options)


def raw_env(**options: Any) -> Any:
    return make_raw_env(NAME, **options)


def parallel_env(**options: Any) -> Any:
    """PettingZoo ParallelEnv (the turn-based conversion: only the agent to move acts each step)."""
    return make_parallel(NAME, **options)
