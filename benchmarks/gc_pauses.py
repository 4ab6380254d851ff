"""Garbage-collector pauses of a long-running process that plays many games, like the server.

One process plays bot games of all four games back to back (every move: the mover's view, the
legal moves, the bot's choice; every game: the final result and a table score file through
``score_document``), keeping the last ``--keep`` games in memory as the server keeps its rooms.
Every collection is timed through ``gc.callbacks``. Prints the number of collections per
generation, the max and p99 pause of full (gen-2) collections and of all collections, and the heap:
objects the collector tracks (outside the permanent generation), frozen objects, and max RSS.

``--fix`` (the default when ``tracklayer.core.gcpause`` exists) warms the process up and freezes
its heap with :func:`tracklayer.core.gcpause.freeze_heap`, as the server and the lab workers do;
``--no-fix`` leaves the collector at CPython's defaults. The bounded engine caches are code, not a
flag: compare with the code before them by running this file against an older checkout
(``PYTHONPATH=/path/to/old python benchmarks/gc_pauses.py --no-fix``).

    python benchmarks/gc_pauses.py                 # a few minutes
    python benchmarks/gc_pauses.py --games 2000    # closer to an hour of a busy server
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import resource
import statistics
import time
from collections import deque
from typing import Any

import tracklayer
from tracklayer.bots import make_bot
from tracklayer.bots.base import bot_view

GAMES = [("ttr-europe", 4), ("ttr-new-york", 3), ("ttr-europe", 2), ("trans-america", 3), ("ttr-europe", 5),
         ("ttr-new-york", 2), ("ttr-europe", 3), ("trans-europa", 4)]
TABLE_FILES = [
    b'{"game": "ttr-europe", "players": [{"name": "Ann", "routes": [["Paris", "Frankfurt", "white"], '
    b'["Frankfurt", "Munchen"]], "stations": ["Wien"], "tickets": [["Paris", "Wien"]]}, {"name": "Bob"}]}',
    b'{"game": "trans-europa", "rails": [[[9, 6], [10, 5]]], "players": [{"name": "Ann", "start": [9, 6], '
    b'"cities": ["Amsterdam", "Madrid", "Oslo"]}, {"name": "Bob", "start": [13, 6], "cities": ["Zurich"]}]}',
]


class PauseClock:
    """Times every collection through ``gc.callbacks``, per generation, in seconds: wall-clock pauses
    (what a request waits) and the CPU time of the collecting thread (what the collection itself
    costs, without the time this process was preempted on a busy machine)."""

    def __init__(self) -> None:
        self.pauses: dict[int, list[float]] = {0: [], 1: [], 2: []}
        self.cpu: dict[int, list[float]] = {0: [], 1: [], 2: []}
        self._t0 = self._c0 = 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._t0, self._c0 = time.perf_counter(), time.thread_time()
        else:
            self.pauses[info["generation"]].append(time.perf_counter() - self._t0)
            self.cpu[info["generation"]].append(time.thread_time() - self._c0)


def p99(values: list[float]) -> float:
    if len(values) < 2:
        return max(values, default=0.0)
    return statistics.quantiles(values, n=100, method="inclusive")[98]


def play(index: int, ttr_bots: list[str], trans_bots: list[str], games: list[tuple[str, int]] = GAMES
         ) -> tuple[Any, int]:
    """One bot game played like the server's bot seats: each move from the mover's view."""
    game_name, n = games[index % len(games)]
    game = tracklayer.new_game(game_name, n, seed=index)
    bots = ttr_bots if game_name.startswith("ttr-") else trans_bots
    players = [make_bot(bots[(index + s) % len(bots)], seed=f"{index}/{s}") for s in range(n)]
    moves = 0
    while not game.is_over:
        seat = game.current_player
        view = bot_view(players[seat], game, seat)
        legal = game.legal_actions()
        game.apply(players[seat].choose(view, legal))
        moves += 1
    game.view(0)  # the final screen
    game.result()
    return game, moves


def main() -> None:
    has_fix = importlib.util.find_spec("tracklayer.core.gcpause") is not None
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--keep", type=int, default=200, help="games kept in memory (the server's open rooms)")
    ap.add_argument("--ttr-bots", default="random,greedy,planner")
    ap.add_argument("--trans-bots", default="steiner", help="(the random bot's Trans games are very long)")
    ap.add_argument("--families", default="ttr,trans", help="ttr: Ticket to Ride only (fast: many more games)")
    ap.add_argument("--thresholds", default=None, help="with --fix: gc thresholds a,b,c (default: GC_THRESHOLDS)")
    ap.add_argument("--fix", action=argparse.BooleanOptionalAction, default=has_fix,
                    help="warm up and freeze the heap (tracklayer.core.gcpause)")
    args = ap.parse_args()

    if args.fix:
        from tracklayer.core.gcpause import freeze_heap

        t0 = time.perf_counter()
        if args.thresholds:
            freeze_heap(thresholds=tuple(int(x) for x in args.thresholds.split(",")))  # type: ignore[arg-type]
        else:
            freeze_heap()
        print(f"warm-up and freeze: {time.perf_counter() - t0:.2f} s, {gc.get_freeze_count():,} objects frozen")
    mix = [g for g in GAMES if g[0].split("-")[0] in args.families.split(",")]
    clock = PauseClock()
    gc.callbacks.append(clock)
    kept: deque[Any] = deque(maxlen=args.keep)
    moves = 0
    start = time.perf_counter()
    score_document = None
    if importlib.util.find_spec("tracklayer.score_file") is not None:
        from tracklayer.score_file import score_document
    for i in range(args.games):
        game, m = play(i, args.ttr_bots.split(","), args.trans_bots.split(","), mix)
        moves += m
        kept.append(game)
        if score_document is not None:
            score_document(TABLE_FILES[i % len(TABLE_FILES)])
    wall = time.perf_counter() - start
    gc.callbacks.remove(clock)

    full, full_cpu = clock.pauses[2], clock.cpu[2]
    every = [p for ps in clock.pauses.values() for p in ps]
    every_cpu = [p for ps in clock.cpu.values() for p in ps]
    print(f"{args.games} games, {moves:,} moves in {wall:.1f} s; fix={'on' if args.fix else 'off'}; "
          f"thresholds {gc.get_threshold()}")
    print("collections per generation: " + ", ".join(f"gen{g} {len(ps):,}" for g, ps in clock.pauses.items()))
    print(f"full (gen-2) collections: {len(full)}, max {max(full, default=0) * 1000:.1f} ms "
          f"(CPU {max(full_cpu, default=0) * 1000:.1f}), p99 {p99(full) * 1000:.1f} ms, "
          f"total {sum(full) * 1000:.0f} ms")
    print(f"all collections: max {max(every, default=0) * 1000:.1f} ms (CPU {max(every_cpu, default=0) * 1000:.1f}), "
          f"p99 {p99(every) * 1000:.2f} ms, total {sum(every) * 1000:.0f} ms")
    # what the next full collection will cost with this heap (it comes, however rarely): best of 3
    forced = []
    for _ in range(3):
        t0, c0 = time.perf_counter(), time.thread_time()
        gc.collect()
        forced.append((time.perf_counter() - t0, time.thread_time() - c0))
    wall_ms, cpu_ms = (min(x) * 1000 for x in zip(*forced, strict=True))
    print(f"a full collection of the heap as it is now: {wall_ms:.1f} ms (CPU {cpu_ms:.1f} ms), best of 3")
    tracked = len(gc.get_objects())
    print(f"heap: {tracked:,} tracked objects outside the permanent generation, {gc.get_freeze_count():,} frozen, "
          f"max RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
