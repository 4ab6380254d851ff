"""The loop of an environment step that needs no Python-level decision: the moves of ``random`` opponents.

A single-learner environment plays its opponents' moves between two learner steps. For a ``random``
opponent (:class:`~tracklayer.bots.random_bot.RandomBot`: ``legal[rng.randrange(len(legal))]``, no
view) that loop is only engine calls, so it runs here, compiled: the same legal actions, the same draws
from each bot's own ``random.Random`` and the same ``game.apply`` as the general loop in
``TracklayerGymEnv._play_opponents`` (``tests/rl`` plays both and compares the games), without making
the bot's arguments or walking the opponent objects per move. Any game family: it uses only the public
game API.
"""

from __future__ import annotations

from typing import Any

import cython


@cython.ccall
@cython.locals(seat=cython.int, limit=cython.int, played=cython.int, q=cython.int, n=cython.Py_ssize_t)
def random_moves(game: Any, seat: int, rngs: dict[int, Any], limit: int) -> int:
    """Play the moves of the seats in ``rngs`` (each a ``random.Random``: its seat's ``random`` bot's) until
    ``seat`` is to move, the game is over or ``limit`` moves are made; returns the number of moves made."""
    played = 0
    while played < limit and not game.is_over:
        q = game.current_player
        if q == seat:
            break
        legal = game.legal_actions()
        n = len(legal)
        if not n:
            raise ValueError("RandomBot.choose: no legal action to choose from")
        game.apply(legal[rngs[q].randrange(n)])
        played += 1
    return played
