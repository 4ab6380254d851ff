"""The PettingZoo ParallelEnv of a tracklayer game: PettingZoo's turn-based conversion, with one change
to the masks of the agents that wait.

In a parallel environment every live agent sends an action each step, and libraries built for
parallel games sample one for each: TorchRL's ``PettingZooWrapper`` draws every agent's masked
random action, so an all-zero mask (what the AEC environment gives a waiting agent, as PettingZoo's
turn-based games do) is an invalid distribution there. Here a waiting agent's mask allows one index,
``WAIT`` (0); the conversion plays only the agent to move, so what a waiting agent sends is ignored.
The agent to move gets its real mask, unchanged.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo.utils.conversions import turn_based_aec_to_parallel_wrapper

WAIT = 0  # the one index a waiting agent's mask allows (its action is ignored)


class TurnBasedParallel(turn_based_aec_to_parallel_wrapper):
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict, dict]:
        observations, infos = super().reset(seed=seed, options=options)
        return self._waiting(observations, infos)

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        observations, rewards, terminations, truncations, infos = super().step(actions)
        observations, infos = self._waiting(observations, infos)
        return observations, rewards, terminations, truncations, infos

    def _waiting(self, observations: dict[str, Any], infos: dict[str, Any]) -> tuple[dict, dict]:
        mover = self.aec_env.agent_selection if self.aec_env.agents else None
        for agent in list(observations):
            if agent == mover:
                continue
            obs, info = observations[agent], infos.get(agent, {})
            if isinstance(info, dict) and "action_mask" in info:
                infos[agent] = {**info, "action_mask": _wait_mask(info["action_mask"])}
            if isinstance(obs, dict) and "action_mask" in obs:
                observations[agent] = {**obs, "action_mask": _wait_mask(obs["action_mask"])}
        return observations, infos


def _wait_mask(mask: np.ndarray) -> np.ndarray:
    if mask.any():  # not a waiting agent's (a game with simultaneous choices would have one)
        return mask
    out = np.zeros_like(mask)
    out[WAIT] = 1
    return out
