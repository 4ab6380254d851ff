"""Timing of the end-game scoring algorithms on random, loop-rich Ticket to Ride–like networks.

Run with ``python benchmarks/scoring_algorithms.py [--runs N] [--seed S]``. Everything is seeded, so
figures are comparable between changes. The base map is a random planar graph on 47 cities (like
Europe) built greedily from short non-crossing segments; player networks are connected subgraphs
grown from a random city with a strong preference for routes that close a loop, which is what makes
the longest-trail search expensive.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from collections.abc import Callable, Sequence

from tracklayer.ttr.stations import best_station_assignment
from tracklayer.ttr.trail import longest_trail

Edge = tuple[int, int, int]


def _crosses(p: tuple[float, float], q: tuple[float, float], r: tuple[float, float], s: tuple[float, float]) -> bool:
    """Proper intersection of segments pq and rs (shared endpoints do not count)."""

    def orient(a: tuple[float, float], b: tuple[float, float], c: tuple[float, float]) -> float:
        return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])

    if p in (r, s) or q in (r, s):
        return False
    d1, d2 = orient(p, q, r), orient(p, q, s)
    d3, d4 = orient(r, s, p), orient(r, s, q)
    return d1 * d2 < 0 and d3 * d4 < 0


def planar_map(rng: random.Random, cities: int = 47, routes: int = 95) -> list[Edge]:
    """A random planar-ish map: the shortest non-crossing segments, lengths 1–8 by distance."""
    pts = [(rng.random(), rng.random()) for _ in range(cities)]
    pairs = sorted(
        ((pts[a][0] - pts[b][0]) ** 2 + (pts[a][1] - pts[b][1]) ** 2, a, b)
        for a in range(cities)
        for b in range(a + 1, cities)
    )
    chosen: list[tuple[int, int]] = []
    for _, a, b in pairs:
        if len(chosen) == routes:
            break
        if all(not _crosses(pts[a], pts[b], pts[c], pts[d]) for c, d in chosen):
            chosen.append((a, b))
    # Sparse, large city ids on purpose: the algorithms must not assume 0..n-1.
    return [(1000 + 7 * a, 1000 + 7 * b, rng.randint(1, 8)) for a, b in chosen]


def grow_network(rng: random.Random, world: Sequence[Edge], size: int, loopiness: float) -> list[Edge]:
    """A connected subgraph of ``size`` routes (in random order), closing loops when it can."""
    return [world[i] for i in grow_network_ids(rng, world, size, loopiness)]


def grow_network_ids(rng: random.Random, world: Sequence[Edge], size: int, loopiness: float) -> list[int]:
    """Route indices of a connected subgraph, closing a loop with probability ``loopiness``."""
    start = rng.choice(world)[0]
    cities = {start}
    taken: set[int] = set()
    while len(taken) < size:
        frontier = [i for i, (a, b, _) in enumerate(world) if i not in taken and (a in cities or b in cities)]
        if not frontier:
            break
        closing = [i for i in frontier if world[i][0] in cities and world[i][1] in cities]
        pick = rng.choice(closing) if closing and rng.random() < loopiness else rng.choice(frontier)
        taken.add(pick)
        cities.update(world[pick][:2])
    order = sorted(taken)
    rng.shuffle(order)
    return order


def _stats(samples: Sequence[float]) -> str:
    ms = sorted(s * 1000.0 for s in samples)
    p99 = ms[min(len(ms) - 1, round(0.99 * (len(ms) - 1)))]
    return (
        f"mean {statistics.fmean(ms):8.4f}  p50 {statistics.median(ms):8.4f}  "
        f"p99 {p99:8.4f}  max {ms[-1]:8.4f}  (ms, n={len(ms)})"
    )


# CPU time of this process by default: on a shared, loaded machine the wall time of a call also
# counts the time spent waiting for a core, which says more about the load than about the algorithm.
CLOCK: Callable[[], float] = time.process_time


def _time(fn: Callable[[], object], repeat: int) -> float:
    """Best-of-``repeat`` time of one call, to strip scheduler noise from per-case figures."""
    best = float("inf")
    for _ in range(repeat):
        t0 = CLOCK()
        fn()
        best = min(best, CLOCK() - t0)
    return best


def bench_trail(
    rng: random.Random, world: Sequence[Edge], runs: int, sizes: tuple[int, int], loopiness: float, label: str = ""
) -> None:
    samples = []
    worst: tuple[float, int] = (0.0, 0)
    for _ in range(runs):
        net = grow_network(rng, world, rng.randint(*sizes), loopiness)
        t = _time(lambda net=net: longest_trail(net), 3)
        samples.append(t)
        worst = max(worst, (t, len(net)))
    print(f"longest_trail {sizes[0]}-{sizes[1]} routes, loopiness {loopiness:.1f}{label}: {_stats(samples)}")
    print(f"    slowest case had {worst[1]} routes")


# A 45-wagon Europe network (ttr-europe city indices, one lane per route) found by a hill climb on the
# time of ``longest_trail``: 22 short routes, many odd cities, where the cheapest deletion of a
# minimum join disconnects the network, and the matching bound (34) is one above the answer, so the
# frontier DP has to run (one pass, floor 32).
EUROPE_ADVERSARIAL: list[Edge] = [
    (4, 17, 3), (17, 26, 2), (16, 17, 2), (4, 16, 2), (26, 46, 2), (24, 46, 2), (26, 41, 2), (41, 46, 2),
    (41, 45, 2), (9, 45, 2), (7, 29, 2), (13, 29, 1), (32, 41, 2), (7, 13, 2), (29, 46, 3), (0, 17, 2),
    (0, 16, 3), (5, 13, 2), (9, 43, 1), (0, 7, 1), (7, 17, 2), (43, 45, 2),
]  # fmt: skip


def bench_adversarial() -> None:
    value = longest_trail(EUROPE_ADVERSARIAL)[0]
    t = _time(lambda: longest_trail(EUROPE_ADVERSARIAL), 20)
    print(f"longest_trail Europe adversarial, 22 routes / 44 wagons (longest {value}): best of 20 {t * 1000:8.4f} ms")


def bench_stations(rng: random.Random, world: Sequence[Edge], runs: int) -> None:
    samples = []
    all_cities = sorted({c for a, b, _ in world for c in (a, b)})
    for _ in range(runs):
        net = set(grow_network_ids(rng, world, rng.randint(15, 22), 0.5))
        own = [world[i][:2] for i in sorted(net)]
        own_cities = sorted({c for a, b in own for c in (a, b)})
        # Roughly half of the other routes belong to opponents and may be borrowed.
        others = {i for i in range(len(world)) if i not in net and rng.random() < 0.6}
        stations = []
        for city in rng.sample(all_cities, 3):
            cands = [(a, b, rid) for rid, (a, b, _) in enumerate(world) if rid in others and city in (a, b)]
            stations.append(cands[:6])
        tickets = []
        for _t in range(10):
            pool = own_cities if rng.random() < 0.6 else all_cities
            a, b = rng.sample(pool, 2)
            tickets.append((a, b, rng.randint(5, 21)))
        samples.append(_time(lambda own=own, st=stations, tk=tickets: best_station_assignment(own, st, tk), 3))
    print(f"best_station_assignment 3 stations, <=6 candidates, 10 tickets: {_stats(samples)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=500)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu", help="process CPU time or wall time")
    args = parser.parse_args()
    global CLOCK
    CLOCK = time.process_time if args.clock == "cpu" else time.perf_counter
    rng = random.Random(args.seed)
    world = planar_map(rng)
    print(
        f"map: 47 cities, {len(world)} routes, seed {args.seed}; {args.clock} time; load average"
        f" {os.getloadavg()[0]:.2f} (timings grow with it: the figures are only comparable at a similar load)"
    )
    bench_trail(rng, world, args.runs, (8, 20), 0.3)
    bench_trail(rng, world, args.runs, (20, 30), 0.5)
    bench_trail(rng, world, args.runs, (25, 30), 0.9)
    # What 45 wagons allow at most: ~30 short routes, every one closing a loop where possible.
    short = [(a, b, rng.randint(1, 2)) for a, b, _ in world]
    bench_trail(rng, short, args.runs, (28, 32), 1.0, ", lengths 1-2 (~45 wagons)")
    bench_adversarial()
    bench_stations(rng, world, args.runs)
    print(f"load average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
