"""Seeded randomness carried inside a game state.

The engine never touches the global ``random`` module: every shuffle and draw goes through an
:class:`Rng` stored in the state, so ``(setup, seed, moves)`` reproduces a game exactly and the
generator's whole state is one integer that serialises to JSON. SplitMix64 is used because its
output is fixed by a short published algorithm (stable across Python versions, unlike
``random.Random``'s internals) and its state is a single 64-bit word.
"""

from __future__ import annotations

from collections.abc import MutableSequence
from typing import TypeVar

T = TypeVar("T")

_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15


def seed_state(seed: int | str) -> int:
    """Turn any int or string seed into a 64-bit state (strings hash stably, unlike ``hash``)."""
    if isinstance(seed, str):
        value = 0xCBF29CE484222325
        for byte in seed.encode("utf-8"):
            value = ((value ^ byte) * 0x100000001B3) & _MASK
        return value
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise TypeError(f"seed must be an int or a str, not {type(seed).__name__}")
    return seed & _MASK


class Rng:
    """SplitMix64 generator; ``state`` is the whole of it."""

    __slots__ = ("state",)

    def __init__(self, state: int = 0) -> None:
        self.state = state & _MASK

    def next64(self) -> int:
        self.state = (self.state + _GOLDEN) & _MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """Uniform integer in ``[0, n)``, unbiased (rejection on the top of the range)."""
        if n <= 0:
            raise ValueError("below() needs n > 0")
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            x = self.next64()
            if x < limit:
                return x % n

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Fisher–Yates in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def fork(self) -> Rng:
        """An independent generator derived from this one (advances this one by one step)."""
        return Rng(self.next64())
