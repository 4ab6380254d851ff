"""Who sits in the other seats of a single-learner environment: bots, callables, saved policies, self-play.

``opponent(spec)`` turns what a user passes as ``opponents=`` into an :class:`Opponent`:

* a bot name (``"random"``, ``"greedy"``, ... ``tracklayer.bots.bot_names()``): the bot is given the
  seat's ``game.view(seat)`` and the legal actions, as everywhere else;
* a callable ``(observation, mask) -> action index``: ``observation`` is the seat's observation in the
  environment's observation mode (the flat float32 vector, or the ``{"observation", "action_mask"}``
  dict), ``mask`` the boolean mask of its legal actions;
* an object with ``predict(obs, action_masks=..., deterministic=...)`` (a stable-baselines3 /
  sb3-contrib model such as ``MaskablePPO``), or the path of a saved one (``"model.zip"``, loaded with
  ``MaskablePPO`` unless ``PolicyOpponent(path, algo=...)`` says otherwise);
* a :class:`SelfPlayPool`: frozen snapshots of the learner, one drawn per episode.

Everything here pickles (no local closures; a bot is rebuilt from its name and seed, a model is
carried as the bytes of its ``save()``), so environments with any opponents cross process
boundaries: gymnasium's ``AsyncVectorEnv`` and stable-baselines3's ``SubprocVecEnv``.
"""

from __future__ import annotations

import copy
import io
import pickle
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from tracklayer.bots import check_bot, make_bot
from tracklayer.bots.base import Bot, bot_view

if TYPE_CHECKING:
    from tracklayer.core.action import Action
    from tracklayer.rl.gym_env import TracklayerGymEnv


class Opponent:
    """One seat's player. ``reset(seed)`` at every episode, then ``act(env, seat)`` for each of its moves:
    an engine action (bots) or an action index (policies)."""

    def reset(self, seed: int) -> None:  # pragma: no cover - interface
        pass

    def act(self, env: TracklayerGymEnv, seat: int) -> Action | int:  # pragma: no cover - interface
        raise NotImplementedError


class BotOpponent(Opponent):
    """A tracklayer bot by name; a new bot per episode, seeded from the episode (so games replay)."""

    def __init__(self, name: str, log_tail: int | None = None, isolate: bool | None = None) -> None:
        check_bot(name)  # fail early on an unknown name
        self.name = name
        self.isolate = isolate  # a process of its own (bots/isolated.py); None: only a bot from outside
        self.log_tail = log_tail
        self.seed = 0
        self.bot: Bot | None = None

    def reset(self, seed: int) -> None:
        self.seed = seed
        self.bot = make_bot(self.name, seed, isolate=self.isolate)

    def act(self, env: TracklayerGymEnv, seat: int) -> Action:
        if self.bot is None:
            self.bot = make_bot(self.name, self.seed, isolate=self.isolate)
        game = env.episode.game
        return self.bot.choose(bot_view(self.bot, game, seat, log_tail=self.log_tail), game.legal_actions())

    def __getstate__(self) -> dict[str, Any]:
        """The bot itself only if it pickles (the registry's family bots hold local factories): otherwise
        it is rebuilt from (name, seed) on first use; bots choose from (seed, view), so it plays on the same."""
        state = self.__dict__.copy()
        try:
            pickle.dumps(self.bot)
        except Exception:
            state["bot"] = None
        return state

    def __repr__(self) -> str:
        return f"BotOpponent({self.name!r})"


class CallableOpponent(Opponent):
    """``fn(observation, mask) -> index``; ``fn`` must pickle for subprocess vector envs (a module-level
    function or an object with ``__call__``, not a lambda)."""

    def __init__(self, fn: Callable[[Any, np.ndarray], Any]) -> None:
        self.fn = fn

    def act(self, env: TracklayerGymEnv, seat: int) -> int:
        obs, mask = env.seat_observation(seat)
        return int(self.fn(obs, mask))

    def __repr__(self) -> str:
        return f"CallableOpponent({self.fn!r})"


class PolicyOpponent(Opponent):
    """A model with ``predict(obs, action_masks=mask, deterministic=...)`` (sb3-contrib's MaskablePPO, or
    a plain SB3 model whose ``predict`` takes no mask: then its action is replaced by a uniformly random
    legal one when it is illegal), or the path of one saved with ``model.save(path)``.

    Pickles as the bytes of ``model.save()`` and its class, loaded again on first use in the new process."""

    def __init__(self, model: Any, *, deterministic: bool = False, algo: Any = None) -> None:
        self.deterministic = deterministic
        self.algo = algo
        self._model = None if isinstance(model, str) else model
        self._path = model if isinstance(model, str) else None
        self._bytes: bytes | None = None
        self._rng = np.random.default_rng(0)

    def reset(self, seed: int) -> None:
        self._rng = np.random.default_rng(seed)

    @property
    def model(self) -> Any:
        if self._model is None:
            algo = _resolve_algo(self.algo)
            self._model = algo.load(io.BytesIO(self._bytes) if self._bytes is not None else self._path, device="cpu")
        return self._model

    def act(self, env: TracklayerGymEnv, seat: int) -> int:
        obs, mask = env.seat_observation(seat)
        model = self.model
        try:
            action, _ = model.predict(obs, action_masks=mask, deterministic=self.deterministic)
        except TypeError:  # a model whose predict() takes no mask
            action, _ = model.predict(obs, deterministic=self.deterministic)
        index = int(np.asarray(action).reshape(-1)[0])
        if not (0 <= index < len(mask) and mask[index]):
            legal = np.flatnonzero(mask)
            index = int(legal[self._rng.integers(len(legal))])
        return index

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        if self._model is not None and hasattr(self._model, "save") and hasattr(self._model, "policy"):
            buffer = io.BytesIO()
            self._model.save(buffer)
            state["_bytes"] = buffer.getvalue()
            state["algo"] = self.algo or type(self._model)
            state["_model"] = None
        return state

    def __repr__(self) -> str:
        return f"PolicyOpponent({self._path or type(self._model).__name__})"


class SelfPlayPool(Opponent):
    """Frozen snapshots of a learner; each episode plays one of them: the latest with probability
    ``latest_prob``, otherwise one drawn uniformly from the pool (the last ``size`` snapshots).

    ``add(policy)`` freezes a copy: an SB3 model is saved to bytes (so later training does not change
    the snapshot), anything else is deep-copied; a policy is anything :func:`opponent` accepts. Give the
    pool to the environment (``opponents=pool``) and, after ``add()``, send the new pool to running
    environments (``vec_env.env_method("set_opponents", pool)``): subprocesses hold their own copy."""

    def __init__(self, policies: list[Any] | None = None, *, size: int = 8, latest_prob: float = 0.5) -> None:
        self.size = size
        self.latest_prob = latest_prob
        self.snapshots: list[Opponent] = []
        self.current: Opponent | None = None
        self._rng = np.random.default_rng(0)
        for policy in policies or []:
            self.add(policy)

    def add(self, policy: Any) -> None:
        if isinstance(policy, Opponent):
            frozen = copy.deepcopy(policy)
        elif hasattr(policy, "predict") and hasattr(policy, "save"):
            buffer = io.BytesIO()
            policy.save(buffer)
            frozen = PolicyOpponent(None, algo=type(policy))
            frozen._bytes = buffer.getvalue()
        elif isinstance(policy, str) or hasattr(policy, "predict"):
            frozen = opponent(policy)
        else:
            frozen = CallableOpponent(copy.deepcopy(policy))
        self.snapshots.append(frozen)
        del self.snapshots[:-self.size]

    def reset(self, seed: int) -> None:
        if not self.snapshots:
            raise ValueError("SelfPlayPool is empty: add() a policy first")
        self._rng = np.random.default_rng(seed)
        n = len(self.snapshots)
        k = n - 1 if self._rng.random() < self.latest_prob else int(self._rng.integers(n))
        self.current = self.snapshots[k]
        self.current.reset(seed)

    def act(self, env: TracklayerGymEnv, seat: int) -> Action | int:
        if self.current is None:
            self.reset(0)
        assert self.current is not None
        return self.current.act(env, seat)

    def __repr__(self) -> str:
        n = len(self.snapshots)
        return f"SelfPlayPool({n} snapshot{'' if n == 1 else 's'})"


def opponent(spec: object, *, log_tail: int | None = None) -> Opponent:
    """An :class:`Opponent` from what a user passes (see the module docstring)."""
    if isinstance(spec, Opponent):
        return copy.deepcopy(spec)  # one per seat: each keeps its own per-episode state
    if isinstance(spec, str):
        if spec.endswith(".zip"):
            return PolicyOpponent(spec)
        return BotOpponent(spec, log_tail)
    if hasattr(spec, "predict"):
        return PolicyOpponent(spec)
    if callable(spec):
        return CallableOpponent(spec)
    raise TypeError(f"an opponent is a bot name, a callable (obs, mask) -> action, a model with predict() or a "
                    f"SelfPlayPool, not {type(spec).__name__}")


def _resolve_algo(algo: Any) -> Any:
    if algo is None or algo == "MaskablePPO":
        from sb3_contrib import MaskablePPO

        return MaskablePPO
    if isinstance(algo, str):
        import stable_baselines3

        return getattr(stable_baselines3, algo)
    return algo
