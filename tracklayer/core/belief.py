"""What every family's belief sampler shares: its error, and the copy a sample starts from.

A sample is a copy of the game in which everything one seat cannot see is dealt afresh
(``tracklayer.ttr.belief``, ``tracklayer.trans.belief``). The copy gets its own RNG, drawn from the
caller's: the real game's future draws are hidden information too.
"""

from __future__ import annotations

import random
from collections.abc import Collection
from typing import Any, TypeVar, cast

from tracklayer.core.errors import TracklayerError
from tracklayer.core.rng import Rng

_G = TypeVar("_G")


class BeliefError(TracklayerError):
    """A position the belief sampler cannot re-deal (the message says why)."""


def fresh_copy(game: _G, seat: int, rng: random.Random, phases: Collection[str], family: str) -> _G:
    """A copy of ``game`` to re-deal for ``seat``, with an RNG of its own from ``rng``; refuses a seat the
    game does not have and a phase outside ``phases`` (``family`` names the game in the message)."""
    g: Any = game
    if not 0 <= seat < g.n_players:
        raise BeliefError(f"no seat {seat}: seats are 0 to {g.n_players - 1}")
    if g.state.phase not in phases:
        raise BeliefError(f"cannot sample a {family} position in phase {g.state.phase!r}")
    out: Any = g.clone()
    out.state.rng = Rng(rng.getrandbits(64))
    out._legal = None
    return cast(_G, out)
