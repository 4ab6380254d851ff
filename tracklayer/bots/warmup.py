"""What a long-running process builds once, before it freezes its heap (``core/gcpause.freeze_heap``).

Each game's board, every variant's rules and the action table, the first moves of a seeded random game
per game and one bot move, so that the modules and tables built lazily on first use exist before the
heap is frozen. It lives with the bots because it asks one for a move; the server adds its lobby's
catalog (``server/app.py``).
"""

from __future__ import annotations

import logging
import random
from collections.abc import Iterable

import tracklayer
from tracklayer.bots import make_bot
from tracklayer.bots.base import bot_view
from tracklayer.ttr.board import load_board
from tracklayer.ttr.rules import rules_for

log = logging.getLogger(__name__)


def warm_up(games: Iterable[str] | None = None) -> None:
    """Build what a process builds once, so that it is frozen with the rest of the start-up heap.

    Loads each game's board and, for Ticket to Ride, every variant's rules and the action table,
    plays the first moves of a seeded random game per game and asks a bot for one move, so that
    the modules and tables built lazily on first use exist too. Never raises: a failure only means
    less is frozen.
    """
    for name in games if games is not None else tracklayer.games():
        try:
            _warm_game(name)
        except Exception:  # warming up is an optimisation; the game will report its own errors later
            log.warning("warm-up of %s failed", name, exc_info=True)


def _warm_game(name: str) -> None:
    if name.startswith("ttr-"):
        board = load_board(name)
        for variant in board.variants.values():
            rules_for(board, variant)
        _ = board.actions
    game = tracklayer.new_game(name, 2, seed=0)
    rnd = random.Random(0)
    for _ in range(60):  # enough for every kind of move's code and tables to be built once
        if game.is_over:
            break
        legal = game.legal_actions()
        game.apply(legal[rnd.randrange(len(legal))])
    game.view(0)
    game.result()
    if not game.is_over:  # the bots' per-board tables (greedy is the cheap one that builds them)
        seat = game.current_player
        bot = make_bot("greedy", seed=0)
        bot.choose(bot_view(bot, game, seat), game.legal_actions())
