"""Statistics for bot comparisons: Wilson intervals, score summaries and Elo ratings.

Everything is plain Python (no numpy needed) so that it runs inside worker processes and tests.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

Z95 = 1.959963984540054


def win_share(ranks: Sequence[int], seat: int) -> float:
    """The part of a win that ``seat`` takes from a game's ranks (1 = first): a shared first place of
    ``k`` players counts ``1 / k`` each, so the shares of one game add up to one."""
    return 1.0 / ranks.count(1) if ranks[seat] == 1 else 0.0


def wilson(wins: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion (``wins`` may be fractional: shared wins count in part)."""
    if n <= 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo, hi = max(0.0, centre - half), min(1.0, centre + half)
    return min(lo, p), max(hi, p)  # guard against rounding at p = 0 or 1


def mean_std(values: Sequence[float]) -> tuple[float, float]:
    """Mean and sample standard deviation (0 for fewer than two values)."""
    n = len(values)
    if n == 0:
        return 0.0, 0.0
    m = sum(values) / n
    if n < 2:
        return m, 0.0
    return m, math.sqrt(sum((v - m) ** 2 for v in values) / (n - 1))


def percentile(values: Sequence[float], q: float) -> float:
    if not values:
        return 0.0
    s = sorted(values)
    k = (len(s) - 1) * q
    lo, hi = math.floor(k), math.ceil(k)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def pairwise_outcomes(ranks_by_game: Sequence[Sequence[tuple[str, int]]]) -> list[tuple[str, str, float]]:
    """Split multiplayer results into pairwise ones: (a, b, score of a) with 1 win, 0.5 tie, 0 loss."""
    out = []
    for seats in ranks_by_game:
        for i in range(len(seats)):
            for j in range(i + 1, len(seats)):
                (a, ra), (b, rb) = seats[i], seats[j]
                if a == b:
                    continue
                out.append((a, b, 1.0 if ra < rb else 0.5 if ra == rb else 0.0))
    return out


def elo_ratings(outcomes: Sequence[tuple[str, str, float]], players: Sequence[str] | None = None,
                iterations: int = 200) -> dict[str, float]:
    """Maximum-likelihood Bradley–Terry strengths on the Elo scale (mean 1500).

    Uses the MM algorithm of Hunter (2004) with a weak prior (one draw against a virtual average
    player) so that a bot that won or lost every game still gets a finite rating.
    """
    names = sorted({x for a, b, _ in outcomes for x in (a, b)} | set(players or ()))
    if not names:
        return {}
    wins = {p: 0.5 for p in names}  # prior: half a win ...
    games: dict[tuple[str, str], float] = {}
    for a, b, s in outcomes:
        wins[a] += s
        wins[b] += 1 - s
        key = (a, b) if a < b else (b, a)
        games[key] = games.get(key, 0.0) + 1
    gamma = {p: 1.0 for p in names}
    for _ in range(iterations):
        new = {}
        for p in names:
            denom = 1.0 / (gamma[p] + 1.0)  # ... out of one game against a virtual player of strength 1
            for (a, b), n in games.items():
                if p in (a, b):
                    denom += n / (gamma[a] + gamma[b])
            new[p] = wins[p] / denom
        geo = math.exp(sum(math.log(v) for v in new.values()) / len(new))
        gamma = {p: v / geo for p, v in new.items()}
    return {p: 1500 + 400 * math.log10(gamma[p]) for p in names}


def elo_intervals(outcomes: Sequence[tuple[str, str, float]], players: Sequence[str] | None = None,
                  resamples: int = 100, seed: int = 0) -> dict[str, tuple[float, float]]:
    """95% bootstrap intervals of :func:`elo_ratings` (resampling the pairwise outcomes)."""
    if not outcomes:
        return {}
    rng = random.Random(seed)
    samples: dict[str, list[float]] = {}
    outs = list(outcomes)
    for _ in range(resamples):
        boot = [outs[rng.randrange(len(outs))] for _ in outs]
        for p, r in elo_ratings(boot, players, iterations=60).items():
            samples.setdefault(p, []).append(r)
    return {p: (percentile(v, 0.025), percentile(v, 0.975)) for p, v in samples.items()}
