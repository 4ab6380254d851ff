"""Summaries of simulated games per bot, and their JSON / CSV / PNG outputs.

A bot that fills several seats of a lineup is counted once per seat. A shared first place counts as
``1 / k`` of a win for each of the ``k`` winners, so win rates over all bots add up to one game
per game.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tracklayer.lab.stats import elo_intervals, elo_ratings, mean_std, pairwise_outcomes, percentile, wilson, win_share


def summarize(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Per bot: games, wins (95% Wilson CI), score mean/spread, points by source, how it played (Ticket to
    Ride: cards held at the end, ticket draws, face-up locomotives, stations built and used, failed
    tickets, games blocked and won after a block), game length, move time."""
    bots: dict[str, dict[str, Any]] = {}
    for rec in records:
        ranks = [s["rank"] for s in sorted(rec["seats"], key=lambda s: s["seat"])]
        for s in rec["seats"]:
            b = bots.setdefault(s["bot"], {"games": 0, "wins": 0.0, "scores": [], "sources": {}, "play": {},
                                            "lengths": [], "think": 0.0, "moves": 0, "max_move": 0.0, "by_seat": {}})
            b["games"] += 1
            won = win_share(ranks, s["seat"])
            b["wins"] += won
            b["scores"].append(s["total"])
            for k, v in s["sources"].items():
                b["sources"].setdefault(k, []).append(v)
            for k, v in s.get("play", {}).items():
                b["play"].setdefault(k, []).append(v)
            b["lengths"].append(rec["length"].get("turns", rec["length"].get("rounds", rec["length"]["moves"])))
            b["think"] += s["think_seconds"]
            b["moves"] += s["moves"]
            b["max_move"] = max(b["max_move"], s["max_move_seconds"])
            seat = b["by_seat"].setdefault(str(s["seat"]), [0, 0.0])
            seat[0] += 1
            seat[1] += won
    out: dict[str, Any] = {}
    for name, b in sorted(bots.items()):
        n = b["games"]
        lo, hi = wilson(b["wins"], n)
        m, sd = mean_std(b["scores"])
        out[name] = {
            "games": n,
            "wins": b["wins"],
            "win_rate": b["wins"] / n if n else 0.0,
            "win_ci95": [lo, hi],
            "score_mean": m,
            "score_sd": sd,
            "score_median": percentile(b["scores"], 0.5),
            "score_min": min(b["scores"]),
            "score_max": max(b["scores"]),
            "sources_mean": {k: mean_std(v)[0] for k, v in b["sources"].items()},
            "play_mean": {k: mean_std(v)[0] for k, v in b["play"].items()},
            "length_mean": mean_std(b["lengths"])[0],
            "move_seconds_mean": b["think"] / b["moves"] if b["moves"] else 0.0,
            "move_seconds_max": b["max_move"],
            "win_rate_by_seat": {k: v[1] / v[0] for k, v in sorted(b["by_seat"].items())},
        }
    return out


def ratings(records: Sequence[dict[str, Any]], seed: int = 0) -> dict[str, Any]:
    """Elo (Bradley–Terry) ratings from every pair of seats of every game, with bootstrap 95% intervals."""
    games = [[(s["bot"], s["rank"]) for s in rec["seats"]] for rec in records]
    outcomes = pairwise_outcomes(games)
    players = sorted({s["bot"] for rec in records for s in rec["seats"]})
    elo = elo_ratings(outcomes, players)
    ci = elo_intervals(outcomes, players, seed=seed)
    return {p: {"elo": elo[p], "elo_ci95": list(ci.get(p, (elo[p], elo[p])))} for p in players}


def write_outputs(out_dir: str | Path, kind: str, meta: dict[str, Any], records: Sequence[dict[str, Any]],
                  summary: dict[str, Any], rating: dict[str, Any] | None = None, plots: bool = True) -> list[Path]:
    """``{kind}.json`` (meta, summary, ratings, every game), ``{kind}_games.csv`` (one row per seat),
    ``{kind}_bots.csv`` and PNG plots. Returns the files written."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    files = []
    doc = {"meta": meta, "summary": summary, "ratings": rating, "games": list(records)}
    p = out / f"{kind}.json"
    p.write_text(json.dumps(doc, indent=1, ensure_ascii=False), encoding="utf-8")
    files.append(p)
    source_keys = sorted({k for rec in records for s in rec["seats"] for k in s["sources"]})
    play_keys = sorted({k for rec in records for s in rec["seats"] for k in s.get("play", {})} - set(source_keys))
    p = out / f"{kind}_games.csv"
    with p.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["game", "seed", "seat", "bot", "total", "rank", "won", *source_keys, *play_keys, "moves",
                    "think_seconds", "game_moves"])
        for rec in records:
            for s in rec["seats"]:
                w.writerow([rec["index"], rec["seed"], s["seat"], s["bot"], s["total"], s["rank"],
                            int(s["seat"] in rec["winners"]), *(s["sources"].get(k, "") for k in source_keys),
                            *(s.get("play", {}).get(k, "") for k in play_keys),
                            s["moves"], f"{s['think_seconds']:.4f}", rec["length"]["moves"]])
    files.append(p)
    p = out / f"{kind}_bots.csv"
    with p.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["bot", "games", "wins", "win_rate", "ci_low", "ci_high", "score_mean", "score_sd",
                    "move_seconds_mean", "move_seconds_max", "elo", "elo_low", "elo_high"])
        for name, s in summary.items():
            r = (rating or {}).get(name, {})
            ci = r.get("elo_ci95", ["", ""])
            w.writerow([name, s["games"], f"{s['wins']:g}", f"{s['win_rate']:.4f}", f"{s['win_ci95'][0]:.4f}",
                        f"{s['win_ci95'][1]:.4f}", f"{s['score_mean']:.2f}", f"{s['score_sd']:.2f}",
                        f"{s['move_seconds_mean']:.4f}", f"{s['move_seconds_max']:.4f}",
                        f"{r['elo']:.1f}" if r else "", f"{ci[0]:.1f}" if r else "", f"{ci[1]:.1f}" if r else ""])
    files.append(p)
    if plots:
        from tracklayer.lab.plots import plot_all

        files.extend(plot_all(out, kind, meta, records, summary, rating))
    return files
