"""Bots from outside the project (``tests.bots.peeking:PeekingBot``) for tests/bots/test_isolated.py."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any


class PeekingBot:
    """Cheats if it can: walks up the call stack to the frame that holds the game and reads the deck.
    Found, it raises (so a test sees the leak); not found, it plays the first legal move."""

    def __init__(self, seed: Any = None) -> None:
        self.seed = seed

    def choose(self, view: dict[str, Any], legal: Sequence[Any], budget: Any = None) -> Any:
        frame = sys._getframe(1)
        while frame is not None:
            for value in list(frame.f_locals.values()):
                deck = getattr(getattr(value, "state", None), "deck", None)
                if deck is not None:
                    raise RuntimeError(f"peeked at the deck: {len(deck)} cards, the top one {deck[-1]}")
            frame = frame.f_back
        return legal[0]


class MadeUpMoveBot:
    """Answers with a move that is not among the legal ones."""

    def __init__(self, seed: Any = None) -> None:
        pass

    def choose(self, view: dict[str, Any], legal: Sequence[Any], budget: Any = None) -> Any:
        return "teleport to Wien"


NOT_A_FACTORY = 42
