"""Short garbage-collector pauses for long-running processes (the server, the lab's workers).

A full (generation-2) collection of CPython's cyclic collector walks every tracked object that is
not frozen: modules, functions, the maps, the rules' tables, the engine's memos, every game in
memory. In a server that had been up for a while this cost 45-105 ms per full collection, seen as
100+ ms spikes in move and scoring latencies. Two things keep it short:

- the engine's caches are bounded (see ``tracklayer/core/memo.py``), so the long-lived heap stops
  growing with the number of positions seen;
- :func:`freeze_heap` warms the process up (imports, boards, rules, action tables, one short game
  per family so that lazily built tables and lazily imported modules exist), collects once, then
  moves everything alive into the permanent generation with :func:`gc.freeze`, which later
  collections never walk; and raises the thresholds so that collections run far less often (the
  engine frees almost everything by reference counting; cycles are rare). At CPython's default
  thresholds (700, 10, 10) the collector walked the young objects hundreds of times a second in the
  server, ~8-14% of its CPU under load.

``benchmarks/gc_pauses.py`` measures the effect.
"""

from __future__ import annotations

import gc
import logging
import sys
from collections.abc import Iterable

log = logging.getLogger(__name__)

# Young collections after 1,000 net allocations of tracked objects (CPython: 700), the middle one after
# 10 of them, a full one only after 100 middle ones (CPython: 10; and CPython still skips it until the
# objects that survived since the last one reach 25% of the long-lived heap). Measured with
# benchmarks/gc_pauses.py (CPU time per collection, 5,000 games in one process): the server's former
# (20,000, 50, 100) made each young collection walk ~20,000 objects, 25-50 ms, as bad as the full
# collections it avoided; with (1,000, 10, 100) young collections take 0.2-3 ms, middle ones 2-9 ms,
# and the collector's total CPU stays within ~2% of the former setting.
GC_THRESHOLDS = (1_000, 10, 100)


def warm_up(games: Iterable[str] | None = None) -> None:
    """Build what a process builds once, so that it is frozen with the rest of the start-up heap.

    Loads each game's board and, for Ticket to Ride, every variant's rules and the action table,
    plays the first moves of a seeded random game per game and asks a bot for one move, so that
    the modules and tables built lazily on first use exist too; in the server, also the lobby's
    catalog. Never raises: a failure only means less is frozen.
    """
    import tracklayer

    for name in games if games is not None else tracklayer.games():
        try:
            _warm_game(name)
        except Exception:  # warming up is an optimisation; the game will report its own errors later
            log.warning("warm-up of %s failed", name, exc_info=True)
    if "tracklayer.server.catalog" in sys.modules:  # in the server: the lobby's catalog and board data
        from tracklayer.server.catalog import board_data, catalog

        for entry in catalog()["games"]:
            board_data(entry["name"])


def _warm_game(name: str) -> None:
    import random

    import tracklayer

    if name.startswith("ttr-"):
        from tracklayer.ttr.board import load_board

        board = load_board(name)
        for variant in board.variants.values():
            board.rules(variant)
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
        from tracklayer.bots import make_bot
        from tracklayer.bots.base import bot_view

        seat = game.current_player
        bot = make_bot("greedy", seed=0)
        bot.choose(bot_view(bot, game, seat), game.legal_actions())


def freeze_heap(*, warm: bool | Iterable[str] = True, thresholds: tuple[int, int, int] | None = GC_THRESHOLDS) -> int:
    """Warm up (all games, the games listed, or not at all), collect, freeze; returns the objects frozen.

    Call it once a process has started and before it serves (server start-up, a lab worker's
    initialiser). Safe to call again: objects created since are frozen too.
    """
    if warm is not False:
        warm_up(None if warm is True else warm)
    gc.collect()
    gc.freeze()
    if thresholds is not None:
        gc.set_threshold(*thresholds)
    return gc.get_freeze_count()
