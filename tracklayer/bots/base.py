"""What every bot shares: the budget it is given, and the one way it is asked for a move.

A bot is asked ``bot.choose(view, legal, budget)``: ``view`` is ``game.view(seat)`` (a JSON-ready
dict, exactly what that seat may know), ``legal`` the legal actions, ``budget`` how long it may
think. It never receives the game object, so it cannot read the deck, another hand or another
player's tickets. Search bots that want to simulate build a private game of their own from a world
they sample from the view (see ``ttr_mcts``).

``play_game`` (used by the simulation lab and the tests) is the one runner that does the asking.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from tracklayer.core.action import Action
from tracklayer.core.rng import seed_state

if TYPE_CHECKING:
    from tracklayer import Game

_G = TypeVar("_G", bound="Game")


@dataclass(frozen=True, slots=True)
class Budget:
    """How much a bot may think for one move: seconds, iterations (search steps), or both (first hit)."""

    seconds: float | None = None
    iterations: int | None = None

    def deadline(self) -> float | None:
        return None if self.seconds is None else time.perf_counter() + self.seconds

    @staticmethod
    def parse(text: str | float | int | None) -> Budget | None:
        """``"0.5s"``/``0.5`` -> seconds, ``"200i"``/``"200it"`` -> iterations, None/"" -> None."""
        if text is None or text == "":
            return None
        if isinstance(text, (int, float)):
            return Budget(seconds=float(text))
        t = str(text).strip().lower()
        if t.endswith(("it", "i")):
            return Budget(iterations=int(t.rstrip("it")))
        return Budget(seconds=float(t.rstrip("s")))


class Bot(Protocol):
    """``choose`` gets the seat's ``game.view(seat)`` and the legal actions. A bot whose class sets
    ``needs_view = False`` reads only the legal actions and may be given an empty view instead (building
    a view costs more than a random choice)."""

    def choose(self, view: dict[str, Any], legal: Sequence[Action], budget: Budget | None = None) -> Action: ...


def bot_view(bot: object, game: Game, seat: int, **view_options: Any) -> dict[str, Any]:
    """What ``bot`` is shown at ``seat``: ``game.view(seat, **view_options)``, or ``{}`` for a bot that
    reads none."""
    if not getattr(bot, "needs_view", True):
        return {}
    return game.view(seat, **view_options)


def move_seed(seed: int | str | None, view: dict[str, Any], salt: str = "") -> int:
    """A per-move random seed derived from the bot's seed and the public position only.

    Deriving it from (seed, turn, move count, phase) instead of drawing from one stream makes a
    bot's choice a function of (seed, view): the same view always gets the same move, whatever
    happened in other games the same bot object played or what is hidden.
    """
    return seed_state(f"{seed}/{salt}/{view.get('turn')}/{len(view.get('log', ()))}/{view.get('phase')}"
                      f"/{view.get('round', '')}")


class FamilyBot:
    """A registry entry that plays any game family: it builds the family's bot on the first view.

    ``factories`` maps a family prefix ("ttr", "trans") to a constructor ``(seed) -> bot``.
    """

    def __init__(self, name: str, seed: int | str | None,
                 factories: dict[str, Callable[[int | str | None], Bot]]) -> None:
        self.name = name
        self.seed = seed
        self.factories = factories
        self._impl: Bot | None = None
        self._family: str | None = None

    def choose(self, view: dict[str, Any], legal: Sequence[Action], budget: Budget | None = None) -> Action:
        family = str(view.get("game", "")).split("-", 1)[0]
        if self._impl is None or family != self._family:
            factory = self.factories.get(family)
            if factory is None:
                from tracklayer.core.errors import TracklayerError

                raise TracklayerError(f"bot {self.name!r} cannot play {view.get('game')!r}")
            self._impl, self._family = factory(self.seed), family
        return self._impl.choose(view, legal, budget)

    def __repr__(self) -> str:
        return f"<{self.name} bot seed={self.seed!r}>"


def play_game(game: _G, bots: Sequence[Bot], budget: Budget | None = None,
              on_move: Callable[[int, Action, float], None] | None = None, max_moves: int = 20_000) -> _G:
    """Play ``game`` to the end, asking ``bots[seat]`` for each move with only that seat's view.

    ``on_move(seat, action, seconds)`` is called after every move (move timing for the lab). Returns
    the game. A bot that returns an action outside ``legal`` raises :class:`IllegalAction`.
    """
    from tracklayer.core.errors import IllegalAction

    moves = 0
    while (seat := game.current_player) is not None:  # None: the game is over
        view = bot_view(bots[seat], game, seat)
        legal = game.legal_actions()
        t0 = time.perf_counter()
        action = bots[seat].choose(view, legal, budget)
        dt = time.perf_counter() - t0
        if action not in legal:
            raise IllegalAction(f"bot {bots[seat]!r} at seat {seat} chose {action!r}, which is not legal")
        game.apply(action)
        if on_move is not None:
            on_move(seat, action, dt)
        moves += 1
        if moves > max_moves:
            raise RuntimeError(f"game did not end after {max_moves} moves")
    return game
