"""PNG plots of a lab run (matplotlib with the Agg backend: no display needed)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any


def plot_all(out: Path, kind: str, meta: dict[str, Any], records: Sequence[dict[str, Any]],
             summary: dict[str, Any], rating: dict[str, Any] | None) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    files = []
    bots = list(summary)
    title = " ".join(x for x in (meta.get("game", ""), meta.get("variant") or "") if x) + f" — {len(records)} games"

    scores = [[s["total"] for rec in records for s in rec["seats"] if s["bot"] == b] for b in bots]
    fig, ax = plt.subplots(figsize=(max(5, 1.3 * len(bots) + 2), 4))
    ax.boxplot(scores, showmeans=True)
    ax.set_xticks(range(1, len(bots) + 1), bots)
    ax.set_ylabel("final score")
    ax.set_title(f"Score distribution: {title}")
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    p = out / f"{kind}_scores.png"
    fig.savefig(p, dpi=100)
    plt.close(fig)
    files.append(p)

    fig, ax = plt.subplots(figsize=(max(5, 1.3 * len(bots) + 2), 4))
    rates = [summary[b]["win_rate"] for b in bots]
    lo = [max(0.0, summary[b]["win_rate"] - summary[b]["win_ci95"][0]) for b in bots]
    hi = [max(0.0, summary[b]["win_ci95"][1] - summary[b]["win_rate"]) for b in bots]
    ax.bar(bots, rates, yerr=[lo, hi], capsize=6, color="#4c78a8")
    ax.axhline(1 / max(1, meta.get("players_per_game", len(bots))), color="gray", ls="--", lw=1)
    ax.set_ylim(0, 1)
    ax.set_ylabel("win rate (95% Wilson CI)")
    ax.set_title(f"Win rates: {title}")
    fig.tight_layout()
    p = out / f"{kind}_winrates.png"
    fig.savefig(p, dpi=100)
    plt.close(fig)
    files.append(p)

    if rating:
        names = sorted(rating, key=lambda b: -rating[b]["elo"])
        elo = [rating[b]["elo"] for b in names]
        lo = [rating[b]["elo"] - rating[b]["elo_ci95"][0] for b in names]
        hi = [rating[b]["elo_ci95"][1] - rating[b]["elo"] for b in names]
        fig, ax = plt.subplots(figsize=(max(5, 1.3 * len(names) + 2), 4))
        ax.errorbar(names, elo, yerr=[[max(0, x) for x in lo], [max(0, x) for x in hi]], fmt="o", capsize=6)
        ax.axhline(1500, color="gray", ls="--", lw=1)
        ax.set_ylabel("Elo (95% bootstrap CI)")
        ax.set_title(f"Ratings: {title}")
        ax.grid(axis="y", alpha=0.3)
        fig.tight_layout()
        p = out / f"{kind}_ratings.png"
        fig.savefig(p, dpi=100)
        plt.close(fig)
        files.append(p)
    return files
