"""A :class:`~tracklayer.rl.batch.BatchEnv` as a Stable-Baselines3 ``VecEnv`` (needs stable-baselines3).

``SB3BatchVecEnv(BatchEnv(name, n, workers=K, ...))`` (or ``BatchEnv(...).sb3()``) is what SB3's
algorithms and sb3-contrib's ``MaskablePPO`` take in place of ``make_vec_env(...)``: the same rows, seeds
and results as ``DummyVecEnv`` over ``n`` :class:`~tracklayer.rl.gym_env.TracklayerGymEnv` in
``observation="flat"`` mode (tests/rl/test_sb3_batch.py compares them step for step), but stepped by the
batch, in its worker processes when it has some.

SB3's conventions, as ``DummyVecEnv`` follows them:

* ``reset()`` returns the observations only; it uses the seeds of ``seed(s)`` once (row ``i`` gets
  ``s + i``, which is also how ``BatchEnv.reset(s)`` seeds its rows).
* ``step_wait()`` returns ``(obs, rewards, dones, infos)``; a row that ended was already reset, its
  ``infos[i]`` holds ``terminal_observation`` (the ended game's last observation), the game's final info
  (``winner``, ``scores``, ...) and ``TimeLimit.truncated`` (truncated and not terminated); every row's
  info has its ``action_mask`` as the single environment's ``step`` gives it (all ones for a row
  that ended).
* ``env_method("action_masks")`` (what sb3-contrib's ``get_action_masks`` calls) answers from the mask
  array the batch already returned: no call reaches the games or the workers.

Everything returned is a copy: the batch reuses its arrays, SB3's rollout buffer keeps what it gets.
The batch calls a method on every row at once, so with workers ``env_method`` / ``set_attr`` on a
subset of rows (``indices``) is refused (``get_attr`` reads every row and keeps those asked for);
in-process batches (``workers=0``) reach the rows themselves.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices, VecEnvObs, VecEnvStepReturn

if TYPE_CHECKING:
    from tracklayer.rl.batch import BatchEnv

ACTION_MASKS = "action_masks"


class SB3BatchVecEnv(VecEnv):
    """SB3's ``VecEnv`` over ``batch``'s rows (row ``i`` is environment ``i``); closing it closes the batch."""

    def __init__(self, batch: BatchEnv) -> None:
        if not all(hasattr(batch, a) for a in ("single_observation_space", "single_action_space", "env_method")):
            raise TypeError(f"SB3BatchVecEnv wraps a tracklayer.rl.BatchEnv, not {type(batch).__name__}")
        self.batch = batch
        self._actions: np.ndarray | None = None
        super().__init__(batch.n, batch.single_observation_space, batch.single_action_space)

    # ------------------------------------------------------------------ stepping
    def reset(self) -> VecEnvObs:
        seed = self._batch_seed()
        if any(self._options):
            raise NotImplementedError("reset options are not supported: TracklayerGymEnv.reset takes none")
        obs, masks = self.batch.reset(seed=seed)
        self.reset_infos = [{"action_mask": m} for m in masks.copy()]
        self._reset_seeds()
        self._reset_options()
        return obs.copy()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs)  # SB3 may pass (n, 1) for Discrete

    def step_wait(self) -> VecEnvStepReturn:
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async()")
        actions, self._actions = self._actions, None
        obs, masks, rewards, terminated, truncated, info = self.batch.step(actions)
        dones = terminated | truncated
        shown = masks.copy()
        shown[dones] = True  # the ended game's mask, as TracklayerGymEnv.step reports it
        infos: list[dict[str, Any]] = [
            {"action_mask": m, "TimeLimit.truncated": False} for m in shown]
        final_obs, final_info = info["final_observation"], info["final_info"]
        new_masks = masks.copy() if dones.any() else masks
        for i in np.flatnonzero(dones).tolist():
            row = infos[i]
            row.update(final_info.get(i, {}))
            row["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
            row["terminal_observation"] = final_obs[i].copy()
            self.reset_infos[i] = {"action_mask": new_masks[i]}
        return obs.copy(), rewards.copy(), dones, infos

    def close(self) -> None:
        self.batch.close()

    def get_images(self) -> Sequence[np.ndarray | None]:
        """Every row's ``render()`` (SB3's ``render`` tiles them); needs ``render_mode="rgb_array"``."""
        if self.render_mode != "rgb_array":
            raise ValueError(f"get_images() needs BatchEnv(..., render_mode='rgb_array'), not {self.render_mode!r}")
        return self.batch.env_method("render")

    # ------------------------------------------------------------------ the rows
    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        # get_wrapper_attr returns the attribute itself (BatchEnv.get_attr would call a method)
        values = self.batch.env_method("get_wrapper_attr", attr_name)
        return [values[i] for i in self._rows(indices)]

    def has_attr(self, attr_name: str) -> bool:
        if attr_name == ACTION_MASKS:
            return True
        return super().has_attr(attr_name)

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        rows = self._rows(indices)
        if self.batch.workers == 0:
            for i in rows:
                setattr(self.batch.envs[i], attr_name, value)
            return
        self._all_rows(rows, "set_attr")
        self.batch.env_method("__setattr__", attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: VecEnvIndices = None,
                   **method_kwargs: Any) -> list[Any]:
        rows = self._rows(indices)
        if method_name == ACTION_MASKS and not method_args and not method_kwargs:
            masks = self.batch.masks.copy()
            return [masks[i] for i in rows]
        if self.batch.workers == 0:
            envs = self.batch.envs
            return [getattr(envs[i], method_name)(*method_args, **method_kwargs) for i in rows]
        self._all_rows(rows, "env_method")
        return self.batch.env_method(method_name, *method_args, **method_kwargs)

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        """False for every row: the rows are bare TracklayerGymEnv (no Monitor; wrap this in ``VecMonitor``)."""
        return [False for _ in self._rows(indices)]

    def __repr__(self) -> str:
        return f"SB3BatchVecEnv({self.batch!r})"

    # ------------------------------------------------------------------ internals
    def _rows(self, indices: VecEnvIndices) -> list[int]:
        rows = [int(i) for i in self._get_indices(indices)]
        for i in rows:
            if not -self.num_envs <= i < self.num_envs:
                raise IndexError(f"row {i} out of range for {self.num_envs} environments")
        return [i % self.num_envs for i in rows]

    def _all_rows(self, rows: list[int], what: str) -> None:
        if sorted(rows) != list(range(self.num_envs)):
            raise NotImplementedError(f"{what} on some rows only: BatchEnv(workers={self.batch.workers}) calls "
                                      "every row at once (use indices=None, or workers=0)")

    def _batch_seed(self) -> int | None:
        """The one seed ``BatchEnv.reset`` takes for the per-row seeds of ``seed()``: ``s`` for ``s + i``."""
        seeds = self._seeds
        if all(s is None for s in seeds):
            return None
        first = seeds[0]
        if first is None or any(s != first + i for i, s in enumerate(seeds)):
            raise ValueError("BatchEnv seeds row i with seed + i: per-row seeds must be consecutive "
                             f"(seed(s) sets them so), got {seeds[:4]}...")
        return int(first)
