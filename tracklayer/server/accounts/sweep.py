"""Games a crash left unrated: found by a query and rated from their stored moves."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import tracklayer
from tracklayer.server.accounts.ratings import final_ranks
from tracklayer.server.accounts.stats import final_stats
from tracklayer.server.accounts.store import AccountStore

if TYPE_CHECKING:
    from tracklayer.server.clocks import Control
    from tracklayer.server.db import Store

log = logging.getLogger("tracklayer.server")


SWEEP_EVERY = 120.0  # seconds between two looks for finished games nobody rated
SWEEP_GRACE = 60.0  # a game that ended less long ago may still be being rated by the process that ended it
SWEEP_BATCH = 20  # games one look rates at most (a full batch: the next look comes at once)
SWEEP_SKIP_MAX = 1000  # games that cannot be rated that one process remembers (and stops retrying)


def rate_unrated(store: Store, grace: float = SWEEP_GRACE, limit: int = SWEEP_BATCH,
                 skip: set[str] | None = None) -> tuple[list[str], int]:
    """Rate the finished games that a crash left unrated: the process that stored a game's last
    move rates it just after (:meth:`Accounts.on_over`), and a crash in between used to lose the
    rating for good. Games that cannot be rebuilt are logged and added to ``skip``.

    Returns ``(ids of the games this call rated, how many games it looked at)``.
    """
    skip = set() if skip is None else skip
    found = AccountStore(store.engine).unrated_games(time.time() - grace, limit, skip)
    done: list[str] = []
    for game_id in found:
        try:
            if rate_stored(store, game_id):
                log.info("game %s rated (it had ended without its rating: a crash)", game_id)
                done.append(game_id)
        except Exception:
            log.exception("game %s: rating it after a crash failed; this process leaves it", game_id)
            if len(skip) < SWEEP_SKIP_MAX:
                skip.add(game_id)
    return done, len(found)


def rate_stored(store: Store, game_id: str) -> bool:
    """Finish and rate one stored game as :meth:`Accounts.on_over` would have: rebuilt from its stored
    moves (the engine's final ranks) and its stored seat control (a resigned seat is ranked last).
    :meth:`AccountStore.finish_game`'s ``rated_games`` row makes it exactly once, whoever else tries
    at the same time. True if this call rated it; ValueError if the stored game has not ended."""
    from tracklayer.server.clocks import load_control

    rec = store.load_game(game_id)
    if rec is None:
        return False
    game = tracklayer.load_game({**rec.setup, "moves": rec.moves})
    if not game.is_over:
        raise ValueError(f"the stored moves of game {game_id} do not end it")
    seats = with_seat_flags(rec.seats, load_control(store, game_id, len(rec.seats), rec.game))
    return AccountStore(store.engine).finish_game(game_id, rec.game, seats, final_ranks(game), final_stats(game))


def with_seat_flags(seats: Sequence[dict[str, Any]], control: Control | None) -> list[dict[str, Any]]:
    """The seats with the clocks' flags of each (tracklayer.server.clocks ``Control.seat_flags``, e.g.
    ``resigned``, which :meth:`AccountStore.finish_game` ranks last); ``control`` None: as they are."""
    return [{**s, **(control.seat_flags(i) if control is not None else {})} for i, s in enumerate(seats)]
