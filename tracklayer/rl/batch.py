"""Many games stepped in one call, numpy arrays in and out (the pgx / EnvPool style of API).

``BatchEnv("ttr_europe_v2", n=256, opponents="random")`` holds ``n`` single-learner games (each one a
:class:`~tracklayer.rl.gym_env.TracklayerGymEnv` in ``observation="flat"`` mode, so opponents, seats,
rewards and options are exactly those of the Gymnasium environment)::

    obs, masks = env.reset(seed=0)            # float32[n, D], bool[n, N]
    obs, masks, rewards, terminated, truncated, info = env.step(actions)   # actions: int[n]

Auto-reset happens in the same call (as SB3's VecEnv and EnvPool do): a game that ended is replaced by
a new one, its row of ``obs`` / ``masks`` is already the new game's, and what the old game ended with
is in ``info["final_observation"]`` (float32[n, D], rows of games that did not end are stale) and
``info["final_info"]`` (``{row: info}``). So every mask returned has a legal action: a learner never
acts on a finished game. The engines are Python, so the batch is a loop; it saves the per-step
overhead of the one-game API (dicts, wrappers, one array per step) and writes into arrays it owns:
the returned arrays are reused by the next call (copy what you keep).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tracklayer.rl.envs import get_spec
from tracklayer.rl.gym_env import TracklayerGymEnv


class BatchEnv:
    """``n`` games of environment ``name`` against ``opponents`` (see :class:`TracklayerGymEnv`)."""

    def __init__(self, name: str, n: int = 64, **options: Any) -> None:
        if n <= 0:
            raise ValueError("n must be positive")
        options.setdefault("seat", "random")
        options["observation"] = "flat"
        spec = get_spec(name)
        self.envs = [TracklayerGymEnv(spec, **options) for _ in range(n)]
        self.n = n
        first = self.envs[0]
        self.single_observation_space = first.observation_space
        self.single_action_space = first.action_space
        self.obs_size = first.episode.obs_size
        self.n_actions = first.episode.n_actions
        self.obs = np.zeros((n, self.obs_size), dtype=np.float32)
        self.masks = np.zeros((n, self.n_actions), dtype=bool)
        self.final_obs = np.zeros((n, self.obs_size), dtype=np.float32)
        self.rewards = np.zeros(n, dtype=np.float32)
        self.terminated = np.zeros(n, dtype=bool)
        self.truncated = np.zeros(n, dtype=bool)
        self.episodes = np.zeros(n, dtype=np.int64)  # finished episodes per row

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """New games in every row (row ``i`` seeded ``seed + i``; its later games continue that stream)."""
        for i, env in enumerate(self.envs):
            env.reset(seed=None if seed is None else seed + i)
            self._write(i, env)
        self.episodes[:] = 0
        return self.obs, self.masks

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One learner move in every game; returns (obs, masks, rewards, terminated, truncated, info)."""
        actions = np.asarray(actions)
        if actions.shape != (self.n,):
            raise ValueError(f"actions must have shape ({self.n},), not {actions.shape}")
        final: dict[int, dict[str, Any]] = {}
        rewards, terminated, truncated = self.rewards, self.terminated, self.truncated
        for i, env in enumerate(self.envs):
            reward, term, trunc, info = env.advance(actions[i])
            rewards[i] = reward
            terminated[i] = term
            truncated[i] = trunc
            if term or trunc:
                self.final_obs[i] = env.episode.observation(env.seat)
                final[i] = info
                self.episodes[i] += 1
                env.reset()
            self._write(i, env)
        return self.obs, self.masks, rewards, terminated, truncated, {"final_observation": self.final_obs,
                                                                     "final_info": final}

    def action_masks(self) -> np.ndarray:
        """bool[n, N]: the legal actions of every row (the array ``step`` returned)."""
        return self.masks

    def _write(self, i: int, env: TracklayerGymEnv) -> None:
        ep = env.episode
        self.obs[i] = ep.observation(env.seat)
        ep._position()
        self.masks[i] = np.frombuffer(ep._position_mask(), dtype=bool)

    def close(self) -> None:
        for env in self.envs:
            env.close()
