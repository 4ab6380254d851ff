"""Bots and their registry.

A bot is anything with ``choose(view, legal, budget=None) -> action``: it sees the seat's view (a
dict) and the legal actions, never the game object; ``budget`` (a :class:`Budget`) bounds its
thinking time. A bot from outside the project is named ``package.module:factory`` and plays in a
process of its own, where it cannot reach the game object either (``bots/isolated.py``). Seats in
the CLI name bots by their registry key ("random", "planner", "mcts", ...) or by "bot" (the default
bot). Every name but ``learned`` (a network trained for Ticket to Ride) plays every game family (see
``docs/bots.md`` for which bot plays under each name).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from tracklayer.bots.base import Bot as BaseBot
from tracklayer.bots.base import Budget, FamilyBot, play_game
from tracklayer.bots.random_bot import RandomBot
from tracklayer.core.action import Action
from tracklayer.core.errors import TracklayerError


class Bot(Protocol):
    def choose(self, view: dict[str, Any], legal: Sequence[Action], budget: Budget | None = None) -> Action: ...


def _family(name: str, ttr: str, trans: str) -> Callable[[int | str | None], Bot]:
    """A registry constructor whose bot picks its implementation by the game family of the view."""

    def factory(seed: int | str | None = None) -> Bot:
        from tracklayer.bots.trans_bots import TRANS_BOTS
        from tracklayer.bots.ttr_heuristic import make_style
        from tracklayer.bots.ttr_mcts import MCTSBot

        factories: dict[str, Callable[[int | str | None], BaseBot]] = {
            "ttr": MCTSBot if ttr == "mcts" else make_style(ttr),
            "trans": TRANS_BOTS[trans],
        }
        return FamilyBot(name, seed, factories)

    factory.__name__ = f"make_{name}"
    return factory


def _learned_limits(game: str, variant: str | None, players: int) -> str | None:
    try:
        module: Any = importlib.import_module("tracklayer.rl.learned")  # by name, as _learned (layers)
    except ImportError as exc:  # a base install: the learned bot needs the environments' libraries
        return f"the learned bot cannot load here: {exc}"
    return module.cannot_play(game, variant, players)


def _learned(seed: int | str | None = None) -> Bot:
    """The policy network that ``examples/train_learned.py`` trains (``tracklayer.rl.learned``), Ticket to Ride
    only. It reads the environments' encoding, a layer above the bots, so it is imported by name when one is
    made, as an outside bot is (but it plays in this process: it is the project's own)."""
    return FamilyBot("learned", seed, {"ttr": _outside_factory("tracklayer.rl.learned:LearnedBot")})


# name -> (Ticket to Ride style, Trans bot). Every name but "learned" plays every family: a name made for
# one family plays the other with the closest bot there (the table in docs/bots.md).
BOTS: dict[str, Callable[[int | str | None], Bot]] = {
    "random": RandomBot,
    "greedy": _family("greedy", "greedy", "steiner"),
    "routes": _family("routes", "routes", "steiner"),
    "hungry": _family("hungry", "hungry", "steiner"),
    "longroute": _family("longroute", "longroute", "steiner"),
    "planner": _family("planner", "planner", "steiner"),
    "mcts": _family("mcts", "mcts", "lookahead"),
    "steiner": _family("steiner", "planner", "steiner"),
    "lookahead": _family("lookahead", "mcts", "lookahead"),
    "learned": _learned,
}
# the bots that play only some games: name -> why it cannot play (game, variant, players), or None
LIMITS: dict[str, Callable[[str, str | None, int], str | None]] = {"learned": _learned_limits}
ALIASES: dict[str, str] = {
    "bot": "random",  # the default bot of the terminal UI (its tests replay seeded random games)
    "one-step": "greedy",
    "route-focused": "routes",
    "destination-hungry": "hungry",
    "long-route": "longroute",
    "ismcts": "mcts",
}


def bot_names() -> list[str]:
    """Every name ``make_bot`` accepts (registry keys and aliases)."""
    return sorted({*BOTS, *ALIASES})


def resolve_bot(name: str) -> str | None:
    """Registry key for ``name`` (case-insensitive, aliases followed), or None if it is not a bot."""
    key = name.strip().casefold()
    key = ALIASES.get(key, key)
    return key if key in BOTS else None


def is_outside(name: str) -> bool:
    """Whether ``name`` names a bot from outside the project: ``package.module:factory``."""
    module, colon, attr = name.partition(":")
    return bool(colon) and all(part.isidentifier() for part in (*module.split("."), *attr.split(".")))


def check_bot(name: str) -> None:
    """Refuse a name ``make_bot`` cannot build, naming the bots there are (an outside bot is only
    imported when it is made, in its own process by default)."""
    if resolve_bot(name) is None and not is_outside(name):
        raise TracklayerError(f"unknown bot {name!r}; bots: {', '.join(bot_names())}, or package.module:factory")


def _outside_factory(name: str) -> Callable[[int | str | None], Bot]:
    module_name, _, attr = name.partition(":")
    try:
        found: Any = importlib.import_module(module_name)
        for part in attr.split("."):
            found = getattr(found, part)
    except (ImportError, AttributeError) as exc:
        raise TracklayerError(f"bot {name!r}: cannot load {attr!r} from {module_name!r}: {exc}") from None
    if not callable(found):
        raise TracklayerError(f"bot {name!r}: {attr!r} is not a factory (a class or function taking a seed)")
    return found


def cannot_play(name: str, game: str, variant: str | None, players: int) -> str | None:
    """Why the registry bot ``name`` cannot play ``players``-player ``game`` (in ``variant``), or None if it can:
    what a server checks before it seats a bot, so that no game starts with a seat that would stop it."""
    key = resolve_bot(name)
    limits = LIMITS.get(key) if key is not None else None
    return None if limits is None else limits(game, variant, players)


def make_bot(name: str, seed: int | str | None = None, isolate: bool | None = None) -> Bot:
    """A fresh bot of kind ``name`` with its own seed: a registry name ("random", "bot", ...) or an
    outside bot ``package.module:factory`` (called with the seed). ``isolate`` plays it in a process of
    its own, where it cannot reach the game (``bots/isolated.py``); None isolates outside bots only."""
    check_bot(name)
    key = resolve_bot(name)
    if isolate is None:
        isolate = key is None
    if isolate:
        from tracklayer.bots.isolated import IsolatedBot

        return IsolatedBot(name, seed)
    return BOTS[key](seed) if key is not None else _outside_factory(name)(seed)


__all__ = ["ALIASES", "BOTS", "LIMITS", "Bot", "Budget", "RandomBot", "bot_names", "cannot_play", "check_bot",
           "is_outside", "make_bot", "play_game", "resolve_bot"]
