"""Bots and their registry.

A bot is anything with ``choose(view, legal) -> action``: it sees the seat's view (a dict) and the
legal actions, never the game object, so it cannot peek at hidden cards. Seats in the CLI name
bots by their registry key ("random") or by "bot" (the default bot).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from tracklayer.bots.random_bot import RandomBot
from tracklayer.core.errors import TracklayerError


class Bot(Protocol):
    def choose(self, view: dict[str, Any], legal: Sequence[Any]) -> Any: ...


BOTS: dict[str, Callable[[Any], Bot]] = {
    "random": RandomBot,
}
ALIASES: dict[str, str] = {
    "bot": "random",  # the default bot; points at a stronger one once it exists
}


def bot_names() -> list[str]:
    """Every name ``make_bot`` accepts (registry keys and aliases)."""
    return sorted({*BOTS, *ALIASES})


def resolve_bot(name: str) -> str | None:
    """Registry key for ``name`` (case-insensitive, aliases followed), or None if it is not a bot."""
    key = name.strip().casefold()
    key = ALIASES.get(key, key)
    return key if key in BOTS else None


def make_bot(name: str, seed: int | str | None = None) -> Bot:
    """A fresh bot of kind ``name`` ("random", "bot", ...) with its own seed."""
    key = resolve_bot(name)
    if key is None:
        raise TracklayerError(f"unknown bot {name!r}; bots: {', '.join(bot_names())}")
    return BOTS[key](seed)


__all__ = ["ALIASES", "BOTS", "Bot", "RandomBot", "bot_names", "make_bot", "resolve_bot"]
