"""Seeded randomness carried inside a game state.

The engine never touches the global ``random`` module: every shuffle and draw goes through an
:class:`Rng` stored in the state, so ``(setup, seed, moves)`` reproduces a game exactly and the
generator's whole state is one integer that serialises to JSON. SplitMix64 is used because its
output is fixed by a short published algorithm (stable across Python versions, unlike
``random.Random``'s internals) and its state is a single 64-bit word.

Compiled, the arithmetic is unsigned 64-bit C arithmetic, which wraps where the interpreted build
masks with ``& _MASK``: the two give the same numbers (``tests/test_native.py``).
"""

from __future__ import annotations

from collections.abc import MutableSequence
from typing import TypeVar

import cython

T = TypeVar("T")

_MASK = cython.declare(cython.ulonglong, 0xFFFFFFFFFFFFFFFF)
_GOLDEN = cython.declare(cython.ulonglong, 0x9E3779B97F4A7C15)
_MIX1 = cython.declare(cython.ulonglong, 0xBF58476D1CE4E5B9)
_MIX2 = cython.declare(cython.ulonglong, 0x94D049BB133111EB)


def seed_state(seed: int | str) -> int:
    """Turn any int or string seed into a 64-bit state (strings hash stably, unlike ``hash``)."""
    if isinstance(seed, str):
        value = 0xCBF29CE484222325
        for byte in seed.encode("utf-8"):
            value = ((value ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
        return value
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise TypeError(f"seed must be an int or a str, not {type(seed).__name__}")
    return seed & 0xFFFFFFFFFFFFFFFF


@cython.cclass
class Rng:
    """SplitMix64 generator; ``state`` is the whole of it."""


    def __init__(self, state: int = 0) -> None:
        self.state = state & 0xFFFFFFFFFFFFFFFF

    @cython.ccall
    @cython.returns(cython.ulonglong)
    @cython.locals(z=cython.ulonglong)
    def next64(self) -> int:
        self.state = (self.state + _GOLDEN) & _MASK
        z = self.state
        z = ((z ^ (z >> 30)) * _MIX1) & _MASK
        z = ((z ^ (z >> 27)) * _MIX2) & _MASK
        return z ^ (z >> 31)

    @cython.ccall
    @cython.returns(cython.ulonglong)
    @cython.locals(n=cython.longlong, m=cython.ulonglong, x=cython.ulonglong, top=cython.ulonglong)
    def below(self, n: int) -> int:
        """Uniform integer in ``[0, n)``, unbiased: draws above the last whole multiple of ``n`` below
        2**64 are rejected."""
        if n <= 0:
            raise ValueError("below() needs n > 0")
        m = n
        top = _MASK - ((_MASK - m + 1) % m)  # (2**64 - m) % m == 2**64 % m: the accepted draws are 0 .. top
        while True:
            x = self.next64()
            if x <= top:
                return x % m

    @cython.ccall
    @cython.locals(items=list, i=cython.Py_ssize_t, j=cython.Py_ssize_t)
    def shuffle(self, items: MutableSequence[T]) -> None:
        """Fisher–Yates in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def fork(self) -> Rng:
        """An independent generator derived from this one (advances this one by one step)."""
        return Rng(self.next64())

    def __reduce__(self) -> tuple[object, ...]:
        return (Rng, (self.state,))
