"""The simulation lab: many bot games in parallel, win rates with confidence intervals, ratings.

``simulate`` plays one lineup many times (seats rotated over each deal); ``tournament`` plays every
pairing (round robin) or climbs a ladder, and rates the bots (Elo via Bradley–Terry). Both write
JSON, CSV and PNG plots when given an output directory, and are reproducible from their seed (the
measured move times aside). The CLI commands ``tracklayer simulate`` and ``tracklayer tournament``
are thin wrappers around these two functions.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tracklayer.core.errors import TracklayerError
from tracklayer.lab.report import ratings, summarize, write_outputs
from tracklayer.lab.runner import BACKENDS, GameSpec, run_one, run_specs, schedule
from tracklayer.lab.stats import wilson

FORMATS = ("round-robin", "ladder")
Progress = Callable[[int, int], None]


def simulate(game: str, players: Sequence[str], n_games: int, *, seed: int | str = 0, jobs: int = 1,
             variant: str | None = None, budget: str | None = None, backend: str = "process",
             address: str | None = None, out: str | Path | None = None, plots: bool = True,
             progress: Progress | None = None, isolate_bots: bool | None = None) -> dict[str, Any]:
    """Play ``n_games`` of ``game`` with ``players`` (bot names, one per seat) and summarise per bot.
    ``isolate_bots``: each bot in a process of its own (None: only bots from outside the project)."""
    players = [p.strip() for p in players if p.strip()]
    if len(players) < 2:
        raise TracklayerError("a simulation needs at least two seats, e.g. --players planner,random")
    if n_games < 1:
        raise TracklayerError("--games must be at least 1")
    specs = schedule(game, players, n_games, seed, variant, budget, isolate=isolate_bots)
    records = run_specs(specs, jobs, backend, address, progress)
    summary = summarize(records)
    rating = ratings(records) if len(set(players)) > 1 else None
    meta = {"kind": "simulate", "game": game, "variant": variant, "players": players, "games": n_games,
            "seed": seed, "budget": budget, "backend": backend, "jobs": jobs, "players_per_game": len(players),
            "isolate_bots": isolate_bots}
    result: dict[str, Any] = {"meta": meta, "summary": summary, "ratings": rating, "games": records}
    if out is not None:
        result["files"] = [str(p) for p in write_outputs(out, "simulate", meta, records, summary, rating, plots)]
    return result


def tournament(game: str, bots: Sequence[str], games_per_match: int, *, players_per_game: int = 2,
               fmt: str = "round-robin", seed: int | str = 0, jobs: int = 1, variant: str | None = None,
               budget: str | None = None, backend: str = "process", address: str | None = None,
               passes: int = 2, out: str | Path | None = None, plots: bool = True,
               progress: Progress | None = None, isolate_bots: bool | None = None) -> dict[str, Any]:
    """Round robin: every ``players_per_game``-subset of ``bots`` plays ``games_per_match`` games.

    Ladder: bots start in the given order (best first); each pass, every adjacent pair from the
    bottom up plays a match and swaps places when the lower one wins more than half; ``passes``
    passes. Both rate all bots from all games.
    """
    bots = list(dict.fromkeys(b.strip() for b in bots if b.strip()))
    if len(bots) < 2:
        raise TracklayerError("a tournament needs at least two different bots")
    if fmt not in FORMATS:
        raise TracklayerError(f"unknown format {fmt!r}; formats: {', '.join(FORMATS)}")
    if not 2 <= players_per_game <= len(bots) and fmt == "round-robin":
        raise TracklayerError(f"--players-per-game must be between 2 and the number of bots ({len(bots)})")
    records: list[dict[str, Any]] = []
    matches: list[dict[str, Any]] = []
    next_index = 0

    def play(lineup: Sequence[str], match_no: int, done_before: int, total: int) -> list[dict[str, Any]]:
        nonlocal next_index
        specs = schedule(game, list(lineup), games_per_match, f"{seed}/match{match_no}", variant, budget,
                         isolate=isolate_bots)
        specs = [dataclasses.replace(s, index=next_index + i) for i, s in enumerate(specs)]
        next_index += len(specs)
        step = None if progress is None else (lambda k, _n: progress(done_before + k, total))
        recs = run_specs(specs, jobs, backend, address, step)
        sm = summarize(recs)
        matches.append({"match": match_no, "lineup": list(lineup),
                        "result": {b: {"win_rate": v["win_rate"], "win_ci95": v["win_ci95"],
                                       "score_mean": v["score_mean"]} for b, v in sm.items()}})
        return recs

    if fmt == "round-robin":
        lineups = list(itertools.combinations(bots, players_per_game))
        total = len(lineups) * games_per_match
        for k, lineup in enumerate(lineups):
            records.extend(play(lineup, k, k * games_per_match, total))
        standing = None
    else:
        order = list(bots)
        total = passes * (len(order) - 1) * games_per_match
        k = 0
        for _ in range(passes):
            for i in range(len(order) - 2, -1, -1):
                upper, lower = order[i], order[i + 1]
                recs = play([upper, lower], k, k * games_per_match, total)
                records.extend(recs)
                k += 1
                sm = summarize(recs)
                if sm[lower]["win_rate"] > 0.5:
                    order[i], order[i + 1] = lower, upper
        standing = order
    summary = summarize(records)
    rating = ratings(records)
    meta = {"kind": "tournament", "game": game, "variant": variant, "bots": bots, "format": fmt,
            "games_per_match": games_per_match, "players_per_game": players_per_game, "seed": seed,
            "budget": budget, "backend": backend, "jobs": jobs, "isolate_bots": isolate_bots}
    result: dict[str, Any] = {"meta": meta, "summary": summary, "ratings": rating, "matches": matches,
                              "ladder": standing, "games": records}
    if out is not None:
        files = write_outputs(out, "tournament", meta, records, summary, rating, plots)
        result["files"] = [str(p) for p in files]
    return result


__all__ = ["BACKENDS", "FORMATS", "GameSpec", "run_one", "run_specs", "schedule", "simulate", "tournament",
           "wilson"]
