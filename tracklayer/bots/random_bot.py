"""The uniformly random bot: the baseline every other bot must beat, and a cheap opponent for tests."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from tracklayer.bots.base import Budget

_A = TypeVar("_A")


class RandomBot:
    """Picks one legal action uniformly at random with its own RNG (so games replay from their seeds).

    It plays every game family (it needs nothing but the legal actions).
    """

    name = "random"
    needs_view = False  # it reads only the legal actions: callers may skip building its view (an empty dict)

    def __init__(self, seed: int | str | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: dict[str, Any], legal: Sequence[_A], budget: Budget | None = None) -> _A:
        """Pick from ``legal`` only; ``view`` is ignored but is all a bot is ever given to look at."""
        if not len(legal):
            raise ValueError("RandomBot.choose: no legal action to choose from")
        return legal[self.rng.randrange(len(legal))]
