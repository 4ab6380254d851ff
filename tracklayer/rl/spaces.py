"""The action space: ``Discrete(n)`` whose mask-less ``sample()`` draws a legal move.

Why: almost every index of the flat action space is illegal in a given position (a few dozen of
2,326 in Europe), and the tools a researcher meets first (Gymnasium's and SB3's ``check_env``,
PettingZoo's ``max_cycles_test``, a first ``env.action_space.sample()`` loop) sample without a mask.
With a plain ``Discrete`` those random moves are illegal, so the episode ends on its first step
(PettingZoo classic's convention) and the checkers never see a game being played. This space asks
its environment for the mask of the agent it belongs to when ``sample()`` is called without one, so
a random sample is a random *legal* move.

Everything else is ``Discrete(n)``: ``contains`` accepts every index (legality is the environment's
business: an illegal index is still handled by ``illegal_action``), equality and batching are
``Discrete``'s, and ``sample(mask=...)`` / ``sample(probability=...)`` use what they are given. An agent
with no legal move (not its turn, the episode over) samples uniformly, as ``Discrete`` does. A pickled
or copied space is a plain ``Discrete`` until its environment binds it again (environments do so
when they are unpickled): a copy must not sample from a game it no longer belongs to.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces

MaskSource = Callable[[], np.ndarray]


class LegalDiscrete(spaces.Discrete):
    """``Discrete(n)``; ``sample()`` without a mask samples the moves ``legal_mask()`` allows."""

    def __init__(self, n: int, legal_mask: MaskSource | None = None, seed: int | None = None) -> None:
        super().__init__(n, seed=seed)
        self.legal_mask = legal_mask

    def sample(self, mask: Any = None, probability: Any = None) -> np.int64:
        if mask is None and probability is None and self.legal_mask is not None:
            legal = np.asarray(self.legal_mask()).astype(np.int8, copy=False)
            if legal.any():
                return super().sample(mask=legal)
        return super().sample(mask=mask, probability=probability)

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["legal_mask"] = None  # bound to one environment's game: rebound by the environment
        return state

    def __setstate__(self, state: Any) -> None:
        super().__setstate__(state)
        self.legal_mask = dict(state).get("legal_mask")
