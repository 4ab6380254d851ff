"""Random-play throughput of the Ticket to Ride engine, per game and variant, on one core.

Every move goes through the public API (``legal_actions()`` then ``apply()``), with a uniformly
random choice among all legal actions, card payments included; each game ends with full final
scoring (``result()``: longest trail and station assignment). Prints games/s, actions/s and CPU
microseconds per action, plus the time of final scoring alone.

By default each row runs in the compiled and in the interpreted build side by side (see
``benchmarks/builds.py``) and the table gives CPU microseconds per action in each and the speed-up;
``--builds this`` measures only the build this process runs, with the full table.

    python benchmarks/random_play.py                 # both builds, a few seconds per row
    python benchmarks/random_play.py --builds this --seconds 10
    python benchmarks/random_play.py --against ../base   # and another revision's engine, both builds
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import builds

import tracklayer

ROWS = [("ttr-europe", v, n) for v in ("classic", "1912", "mega", "big-cities") for n in (2, 4, 5)] + [
    ("ttr-new-york", None, n) for n in (2, 4)
]


def play_out(g: Any, rnd: random.Random) -> int:
    """Play uniformly random legal moves (drawn from ``rnd``) through the public API to the end of ``g``;
    returns the number of moves."""
    steps = 0
    while not g.is_over:
        legal = g.legal_actions()
        g.apply(legal[rnd.randrange(len(legal))])
        steps += 1
    return steps


def play(game: str, variant: str | None, n: int, seed: int) -> tuple[int, float]:
    """Play one random game to the end and score it; return (actions, ms spent in final scoring)."""
    g = tracklayer.new_game(game, n, seed=seed, variant=variant)
    steps = play_out(g, random.Random(seed))
    t0 = time.perf_counter()
    g.result()
    return steps, (time.perf_counter() - t0) * 1000


def _label(game: str, variant: str | None, n: int) -> str:
    return f"{game} {variant or '-'} {n}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    builds.add_arguments(parser, seconds_help="time budget per row")
    args = parser.parse_args()
    labels = [_label(*row) for row in ROWS if args.only in _label(*row)]
    if args.builds == "both":
        builds.side_by_side(__file__, labels, ["--seconds", str(args.seconds)], "us_per_action", "CPU µs per action",
                            higher_is_better=False, against=args.against)
        return
    info = getattr(tracklayer, "engine_info", None)  # absent before the compiled core (a --against checkout)
    print(f"engine: {info()['build'] if info else 'interpreted (before the compiled core)'}")
    print(f"{'game':<14}{'variant':<12}{'players':>7}{'games/s':>10}{'actions/s':>11}{'actions/game':>14}"
          f"{'µs/action (CPU)':>17}{'scoring ms p50/p99':>21}")
    for game, variant, n in ROWS:
        label = _label(game, variant, n)
        if label not in labels:
            continue
        games = steps = 0
        score_ms = []  # finished games are not kept: a growing heap would slow the garbage collector
        start, cpu = time.perf_counter(), time.process_time()
        while time.perf_counter() - start < args.seconds:
            k, ms = play(game, variant, n, seed=games)
            steps += k
            games += 1
            score_ms.append(ms)
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
        score_ms.sort()
        p99 = score_ms[min(len(score_ms) - 1, int(len(score_ms) * 0.99))]
        print(f"{game:<14}{variant or '-':<12}{n:>7}{games / elapsed:>10.1f}{steps / elapsed:>11.0f}"
              f"{steps / games:>14.0f}{cpu / steps * 1e6:>17.2f}{statistics.median(score_ms):>12.3f} / {p99:.3f}")
        builds.report(label, us_per_action=cpu / steps * 1e6, scoring_ms_p99=p99)


if __name__ == "__main__":
    main()
