"""Per-player statistics of finished games (what a profile shows, the numbers Board Game Arena keeps).

Each account seat of a finished game stores the numbers of its final breakdown in its ``account_games``
row (migration 0009, column ``stats``): a small flat dict read from the engine's ``game.result()``, so a
profile adds them up without replaying any game. :func:`aggregate` turns the rows of one family into the
profile's summary.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tracklayer import Game


def seat_stats(result: dict[str, Any], seat: int) -> dict[str, Any]:
    """The stored numbers of one seat: Ticket to Ride's points by source, tickets, longest path and
    stations (the keys of the map's features only), or Trans's rounds and missing rails."""
    players = result["players"]
    p = next((e for e in players if e.get("seat") == seat), None) or players[seat]
    if "prestige_per_round" in p:  # Trans: one entry per finished round
        return {"total": int(p["total"]), "rounds": len(p["prestige_per_round"]),
                "rounds_won": sum(1 for c in p["connected"] if c),
                "missing_rails": int(sum(p["missing_rails"]))}
    out: dict[str, Any] = {"total": int(p["total"]), "route_points": int(p["route_points"]),
                           "ticket_points": int(p["ticket_points"]),
                           "tickets_completed": int(p["completed_tickets"]),
                           "tickets_failed": int(p["failed_tickets"])}
    if "longest_path" in p:
        out["longest_path"] = int(p["longest_path"])
        out["longest_bonus"] = int(p["longest_path_bonus"]) > 0
        out["bonus_points"] = int(p["longest_path_bonus"])
    if "stations_built" in p:
        out["stations_built"] = int(p["stations_built"])
        out["station_points"] = int(p["station_points"])
    if "attractions" in p:
        out["attractions"] = len(p["attractions"])
        out["attraction_points"] = int(p["attraction_points"])
    return out


def final_stats(game: Game) -> list[dict[str, Any]]:
    """:func:`seat_stats` of every seat of a finished game."""
    result = game.result()
    return [seat_stats(result, seat) for seat in range(len(result["players"]))]


def load(text: str | None) -> dict[str, Any] | None:
    """A stored ``stats`` column (None: a game that ended before statistics were kept, or still running)."""
    if not text:
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 2) if values else None


def aggregate(rows: Iterable[tuple[int | None, dict[str, Any]]]) -> dict[str, Any]:
    """The summary of one family's finished games: ``rows`` are (final rank, stored stats) pairs.

    Averages are per game that has the number (a map without stations does not lower the stations
    built per game of the maps with them); a key whose number no game has is left out."""
    rows = list(rows)
    out: dict[str, Any] = {"games": len(rows), "wins": sum(1 for rank, _ in rows if rank == 1)}

    def mean_of(key: str) -> None:
        values = [float(s[key]) for _, s in rows if key in s]
        m = _mean(values)
        if m is not None:
            out[key] = m

    for key in ("total", "route_points", "ticket_points", "station_points", "bonus_points", "attraction_points",
                "longest_path", "stations_built", "attractions"):
        mean_of(key)
    for key in ("tickets_completed", "tickets_failed", "rounds", "rounds_won", "missing_rails"):
        if any(key in s for _, s in rows):
            out[key] = sum(int(s.get(key, 0)) for _, s in rows)
    if "tickets_completed" in out:
        held = out["tickets_completed"] + out["tickets_failed"]
        out["ticket_rate"] = round(out["tickets_completed"] / held, 4) if held else None
    bonus = [bool(s["longest_bonus"]) for _, s in rows if "longest_bonus" in s]
    if bonus:
        out["longest_bonus_share"] = round(sum(bonus) / len(bonus), 4)
    return out
