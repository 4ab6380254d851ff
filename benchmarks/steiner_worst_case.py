"""Worst-case timing of the exact Steiner scorer on the real Trans Europa / Trans America boards.

End-of-round scoring calls ``min_steiner`` once per unfinished player, and bots may call it inside
search, so its worst case (6 spread-out terminals) must stay far below interactive latency. This
script times it on the cases that matter: no rails built (largest contracted graph), random partial
networks (what scoring really sees), and adversarial spread-out terminal sets.

Run: ``/work/venv/bin/python benchmarks/steiner_worst_case.py [--samples N] [--seed S]``
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
import statistics
import time
from collections.abc import Callable

from tracklayer.trans.board import load_board
from tracklayer.trans.steiner import min_steiner

BOARDS = ("trans-europa", "trans-america")


class Board:
    """The engine's board as the integer arrays ``min_steiner`` takes, with its cities grouped by colour."""

    def __init__(self, name: str) -> None:
        board = load_board(name)
        self.name = board.name
        self.n_points = board.n_points
        self.adjacency = board.adjacency
        self.cost: list[int] = list(board.edge_cost)
        self.colors = board.colors
        self.cities: dict[str, list[int]] = {c: [] for c in self.colors}
        for city in board.cities:
            self.cities[self.colors[city.color]].append(city.point)
        self.distances = board.distances_from  # plain Dijkstra on the empty board: picks spread-out terminals


def random_terminals(board: Board, rng: random.Random) -> list[int]:
    """A start marker anywhere plus one city per colour, as dealt in a real round."""
    return [rng.randrange(board.n_points)] + [rng.choice(board.cities[c]) for c in board.colors]


def random_network(board: Board, rng: random.Random) -> list[int]:
    """Edge costs after growing 1-6 random player networks, as found at the end of a round.

    Networks grow from random start points by random adjacent free lines until a random share of
    the 85-rail supply is used, so the contracted graph ranges from nearly full to much smaller.
    """
    cost = list(board.cost)
    built = [False] * len(cost)
    budget = rng.randint(10, 85)
    starts = [rng.randrange(board.n_points) for _ in range(rng.randint(1, 6))]
    nodes = [{s} for s in starts]
    while budget > 0:
        net = rng.choice(nodes)
        frontier = [(u, e) for v in net for u, e in board.adjacency[v] if not built[e] and cost[e] <= budget]
        if not frontier:
            break
        u, e = rng.choice(frontier)
        budget -= cost[e]
        built[e] = True
        net.add(u)
    return [0 if b else c for b, c in zip(built, cost, strict=True)]


def spread_terminal_sets(board: Board, count: int) -> list[list[int]]:
    """The ``count`` 6-city sets with the largest sum of pairwise shortest distances.

    Far-apart terminals give the largest trees and the most expensive reconstruction, and on an
    empty board nothing gets contracted, so these are the adversarial inputs for the DP.
    """
    cities = sorted({p for pts in board.cities.values() for p in pts})
    dist = {c: board.distances(c) for c in cities}
    # Exhaustive over all 6-subsets of the 35 cities is ~1.6 M sets: too slow for a benchmark, so
    # keep the 14 cities that are farthest from the others in total and search those exhaustively.
    total = {c: sum(dist[c][o] for o in cities) for c in cities}
    pool = sorted(cities, key=lambda c: -total[c])[:14]
    scored = []
    for combo in itertools.combinations(pool, 6):
        s = sum(dist[a][b] for a, b in itertools.combinations(combo, 2))
        scored.append((s, list(combo)))
    scored.sort(reverse=True)
    return [combo for _, combo in scored[:count]]


# CPU time of this process by default: on a shared, loaded machine the wall time of a call also
# counts the time spent waiting for a core, which says more about the load than about the algorithm.
CLOCK: Callable[[], float] = time.process_time


def time_case(board: Board, costs: list[int], terminals: list[int], repeats: int) -> float:
    """Best of a few runs in ms, so that one GC pause does not dominate a single sample."""
    best = float("inf")
    for _ in range(repeats):
        t0 = CLOCK()
        min_steiner(board.n_points, board.adjacency, costs, terminals)
        best = min(best, CLOCK() - t0)
    return best * 1000.0


def summary(label: str, times: list[float]) -> str:
    """Mean, p50, p99 and max in ms: p99 and max are what a bot's time budget has to absorb."""
    ordered = sorted(times)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return (
        f"  {label:<28} n={len(times):<5} mean={statistics.fmean(times):6.2f}  "
        f"p50={statistics.median(times):6.2f}  p99={p99:6.2f}  max={ordered[-1]:6.2f}  (ms)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu", help="process CPU time or wall time")
    args = parser.parse_args()
    global CLOCK
    CLOCK = time.process_time if args.clock == "cpu" else time.perf_counter
    rng = random.Random(args.seed)
    print(
        f"{args.clock} time; load average {os.getloadavg()[0]:.2f}"
        " (timings grow with it: compare figures taken at a similar load)"
    )

    for name in BOARDS:
        board = Board(name)
        print(f"{board.name}: {board.n_points} points, {len(board.cost)} lines")
        groups: dict[str, list[float]] = {"empty board, random": [], "partial networks, random": []}
        for _ in range(args.samples):
            terms = random_terminals(board, rng)
            groups["empty board, random"].append(time_case(board, board.cost, terms, args.repeats))
            costs = random_network(board, rng)
            terms = random_terminals(board, rng)
            groups["partial networks, random"].append(time_case(board, costs, terms, args.repeats))
        spread = spread_terminal_sets(board, 50)
        groups["empty board, spread 6"] = [time_case(board, board.cost, t, args.repeats) for t in spread]
        worst_cost, worst_edges = min_steiner(board.n_points, board.adjacency, board.cost, spread[0])
        for label, times in groups.items():
            print(summary(label, times))
        all_times = [t for ts in groups.values() for t in ts]
        print(summary("all cases", all_times))
        print(f"  most spread set needs {worst_cost} rails ({len(worst_edges)} lines)")
    print(f"load average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
