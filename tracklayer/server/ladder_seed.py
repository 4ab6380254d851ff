"""A fresh site's ladder: bot-only games played through the engine (the simulation lab) and rated as
games on the server, so people find the bots already placed on it (``tracklayer ladder seed``).

It joins the lab and the accounts, which otherwise know nothing of each other.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence

from sqlalchemy.engine import Engine

from tracklayer.lab.runner import run_one, schedule
from tracklayer.server.accounts import AccountStore


def seed_ladder(engine: Engine, game: str, bots: Sequence[str], n_games: int, seed: int = 0,
                players: int = 2, progress: Callable[[int], None] | None = None) -> int:
    """Play ``n_games`` bot-only games through the engine (tracklayer.lab) and rate them like games
    on the server, so a fresh site has a ladder. Game ids are derived from the arguments: running
    the same seeding twice rates nothing twice. Returns how many games were rated."""
    store = AccountStore(engine)
    rated = 0
    lineup = list(bots)
    for k in range(n_games):
        table = [lineup[(k + j) % len(lineup)] for j in range(players)]  # rotate who meets whom
        spec = schedule(game, table, 1, seed, start=k)[0]
        out = run_one(spec)
        seats = [{"kind": "bot", "bot": s["bot"]} for s in out["seats"]]
        gid = "seed-" + hashlib.sha256(f"{game}/{seed}/{k}/{','.join(table)}".encode()).hexdigest()[:24]
        if store.finish_game(gid, game, seats, [s["rank"] for s in out["seats"]]):
            rated += 1
        if progress is not None:
            progress(k + 1)
    return rated
