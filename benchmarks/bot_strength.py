"""Bot strength: win rates with 95% Wilson intervals for bot pairings, and move time per bot.

Every pairing plays ``--games`` games of Ticket to Ride Europe (or, with ``--game trans-europa``, of
Trans Europa) through the simulation lab (seats rotated over each deal, so each bot plays every deal
from every seat). Two-player rows pit bot A against bot B; four-player rows seat bot A against three
copies of bot B. Prints a Markdown table (the one in docs/bots.md) and writes the lab's JSON/CSV/PNG
per pairing under ``--out``.

    python benchmarks/bot_strength.py                         # the docs table: 400 games a pairing
    python benchmarks/bot_strength.py --games 40 --jobs 2     # a quick look
    python benchmarks/bot_strength.py --only mcts --budget 1s # mcts rows, one second a move
    python benchmarks/bot_strength.py --game trans-europa     # the Trans Europa rows
    python benchmarks/bot_strength.py --ladder --games 400 --mcts-games 100   # the lobby's levels, every map

``--ladder`` plays the lobby's bot levels (``tracklayer.server.catalog.BOT_LEVELS``) against the level
below, 2-player, on every map and Ticket to Ride variant, and prints one table: each level should win
at least 60% against the one below it.
"""

from __future__ import annotations

import argparse
import itertools
import time
from pathlib import Path

from tracklayer.lab import simulate
from tracklayer.server.catalog import BOT_LEVELS

BASELINES = ("random", "greedy", "routes", "hungry", "longroute")
PAIRINGS_2P = [("planner", b) for b in BASELINES] + [("mcts", "planner"), ("mcts", "routes")]
PAIRINGS_4P = [("planner", b) for b in BASELINES[1:]] + [("mcts", "planner")]
# the ladder's maps: every Ticket to Ride variant of Europe, New York, and both Trans maps
LADDER_MAPS = [("ttr-europe", "classic"), ("ttr-europe", "1912"), ("ttr-europe", "mega"), ("ttr-europe", "big-cities"),
               ("ttr-new-york", None), ("trans-europa", None), ("trans-america", None)]
SEARCH_BOTS = ("mcts", "lookahead")  # bots that search: their rows play --mcts-games
# Trans Europa: the cheapest-Steiner builder and the lookahead bot against random and each other
PAIRINGS = {
    "ttr-europe": (PAIRINGS_2P, PAIRINGS_4P),
    "trans-europa": ([("steiner", "random"), ("lookahead", "random"), ("lookahead", "steiner")],
                     [("steiner", "random"), ("lookahead", "steiner")]),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="ttr-europe", choices=sorted(PAIRINGS))
    parser.add_argument("--games", type=int, default=400, help="games per pairing (mcts rows: see --mcts-games)")
    parser.add_argument("--mcts-games", type=int, default=None, help="games per pairing with mcts (default --games)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--budget", default=None, help="per-move budget for the bots, e.g. 1s or 240i")
    parser.add_argument("--only", default="", help="only pairings whose text contains this")
    parser.add_argument("--players", default="2,4", help="player counts to run, e.g. 2 or 2,4")
    parser.add_argument("--out", default="bench-out/bot_strength", help="directory for the lab outputs")
    parser.add_argument("--ladder", action="store_true", help="the lobby's levels against the level below, every map")
    args = parser.parse_args()
    if args.ladder:
        ladder(args)
        return

    rows = []
    counts = [int(x) for x in args.players.split(",") if x.strip()]
    two, four = PAIRINGS[args.game]
    plan = [(2, p) for p in two if 2 in counts] + [(4, p) for p in four if 4 in counts]
    for n, (a, b) in plan:
        label = f"{n}p {a} vs {b}"
        if args.only and args.only not in label:
            continue
        games = args.mcts_games if "mcts" in (a, b) and args.mcts_games else args.games
        lineup = [a] + [b] * (n - 1)
        games = max(n, games - games % n)  # whole seat rotations
        t0 = time.perf_counter()
        res = simulate(args.game, lineup, games, seed=args.seed, jobs=args.jobs, budget=args.budget,
                       out=Path(args.out) / args.game / f"{n}p-{a}-vs-{b}")
        s = res["summary"]
        row = (n, a, b, games, s[a], s[b], time.perf_counter() - t0)
        rows.append(row)
        print(f"{label}: {s[a]['win_rate']:.1%} [{s[a]['win_ci95'][0]:.1%}, {s[a]['win_ci95'][1]:.1%}] "
              f"in {games} games ({row[-1]:.0f}s)", flush=True)

    print()
    print("| players | bot A | bot B | games | A wins (95% CI) | A score | B score | A s/move (max) | B s/move (max) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for n, a, b, games, sa, sb, _ in rows:
        print(f"| {n} | {a} | {b}{' ×3' if n == 4 else ''} | {games} | {sa['win_rate']:.1%} "
              f"({sa['win_ci95'][0]:.1%}–{sa['win_ci95'][1]:.1%}) | {sa['score_mean']:.1f} ± {sa['score_sd']:.1f} "
              f"| {sb['score_mean']:.1f} ± {sb['score_sd']:.1f} | {sa['move_seconds_mean']:.4f} "
              f"({sa['move_seconds_max']:.2f}) | {sb['move_seconds_mean']:.4f} ({sb['move_seconds_max']:.2f}) |")


def ladder(args: argparse.Namespace) -> None:
    """Each lobby level against the level below it, 2-player, on every map (seats rotated)."""
    print("| map | level (bot) | against (bot) | games | wins (95% CI) | its s/move mean (max) |")
    print("|---|---|---|---|---|---|")
    for game, variant in LADDER_MAPS:
        levels = BOT_LEVELS["ttr" if game.startswith("ttr-") else "trans"]
        where = f"{game} {variant}" if variant else game
        for (low, low_bot), (high, high_bot) in itertools.pairwise(levels):
            if args.only and args.only not in f"{where} {high} {low}":
                continue
            games = args.mcts_games if high_bot in SEARCH_BOTS and args.mcts_games else args.games
            games = max(2, games - games % 2)
            res = simulate(game, [high_bot, low_bot], games, seed=args.seed, jobs=args.jobs, variant=variant,
                           budget=args.budget, plots=False,
                           out=Path(args.out) / "ladder" / f"{where.replace(' ', '-')}-{high}-vs-{low}")
            a = res["summary"][high_bot]
            print(f"| {where} | {high} ({high_bot}) | {low} ({low_bot}) | {games} | {a['win_rate']:.1%} "
                  f"({a['win_ci95'][0]:.1%}–{a['win_ci95'][1]:.1%}) | {a['move_seconds_mean']:.4f} "
                  f"({a['move_seconds_max']:.2f}) |", flush=True)


if __name__ == "__main__":
    main()
