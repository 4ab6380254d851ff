"""Skill ratings: openskill's Plackett-Luce update of a game's entrants, and the ladder's number."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from sqlalchemy import (
    insert,
    select,
    update,
)
from sqlalchemy.engine import Connection

from tracklayer.server.accounts.tables import rating_history, ratings

if TYPE_CHECKING:
    from tracklayer import Game


def ordinal(mu: float, sigma: float) -> float:
    """The ladder's number: openskill's ordinal (mu - 3 sigma), a conservative estimate of skill."""
    return mu - 3.0 * sigma


def _model() -> Any:
    from openskill.models import PlackettLuce

    return PlackettLuce()


def _apply(conn: Connection, game_id: str, family: str,
           entrants: Sequence[tuple[str, str, str, int | None, int]]) -> None:
    """One openskill update (Plackett-Luce) of the entrants' ratings from their ranks (lock held,
    inside the transaction that inserted the game's ``rated_games`` row)."""
    model = _model()
    idents = [e[0] for e in entrants]
    query = select(ratings).where(ratings.c.family == family, ratings.c.identity.in_(idents))
    if conn.dialect.name == "postgresql":
        query = query.with_for_update()  # two processes rating games of the same bot take turns
    current = {r.identity: r for r in conn.execute(query).all()}
    teams = []
    for ident, *_ in entrants:
        r = current.get(ident)
        teams.append([model.rating(mu=r.mu, sigma=r.sigma) if r is not None else model.rating()])
    new = model.rate(teams, ranks=[e[4] for e in entrants])
    now = time.time()
    ranked = sorted({e[4] for e in entrants})
    merged: dict[str, dict[str, Any]] = {}
    for (ident, kind, name, account_id, rank), [rating] in zip(entrants, new, strict=True):
        m = merged.setdefault(ident, {"kind": kind, "name": name, "account_id": account_id, "rank": rank,
                                      "mu": [], "sigma": []})
        m["rank"] = min(m["rank"], rank)
        m["mu"].append(rating.mu)
        m["sigma"].append(rating.sigma)
    for ident, m in merged.items():
        mu, sigma = sum(m["mu"]) / len(m["mu"]), sum(m["sigma"]) / len(m["sigma"])
        if ident in current:
            conn.execute(update(ratings).where(ratings.c.family == family, ratings.c.identity == ident)
                         .values(mu=mu, sigma=sigma, games=ratings.c.games + 1, name=m["name"], updated_at=now))
        else:
            conn.execute(insert(ratings).values(family=family, identity=ident, kind=m["kind"], name=m["name"],
                                                account_id=m["account_id"], mu=mu, sigma=sigma, games=1,
                                                updated_at=now))
        conn.execute(insert(rating_history).values(game_id=game_id, family=family, identity=ident,
                                                   rank=1 + ranked.index(m["rank"]), players=len(entrants), mu=mu,
                                                   sigma=sigma, ordinal=ordinal(mu, sigma), at=now))


def final_ranks(game: Game) -> list[int]:
    """The engine's final rank of each seat (1 is first; ties share a rank)."""
    players = game.result()["players"]
    return [int(p["rank"]) for p in players]
