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


@cython.ccall
@cython.locals(index=cython.Py_ssize_t, seat=cython.int, shown=cython.uchar[::1], out=cython.uchar[::1])
def advance_random(env: Any, index: int, arrays: Any, obs_row: Any, mask_row: Any, shown_row: Any) -> Any:
    """One ``BatchEnv`` row's step when every opponent is ``random`` and the codec writes rows
    (``TTRArrays``): what ``TracklayerGymEnv.advance`` and the row's write do, without the
    environment's Python frames in between (the same calls on the game, in the same order).

    Returns None when nothing was done: ``index`` is not in the mask last shown (``shown_row``, the
    row's own copy of it), and the general path raises or ends the episode as the environment is
    configured to. Otherwise the learner and its opponents have moved: True when the episode goes on
    (the observation and mask are written into ``obs_row`` and ``mask_row``, and the mask copied into
    ``shown_row``), False when it ended (the caller reads ``env.outcome()`` and resets)."""
    shown = shown_row
    if index < 0 or index >= shown.shape[0] or not shown[index]:
        return None
    ep = env.episode
    game = ep.game
    seat = env.seat
    game.apply(ep.codec.decode(game, index))
    ep.steps += 1
    if not game.is_over and ep.steps < ep.max_steps:
        ep.steps += random_moves(game, seat, env._random_rngs, ep.max_steps - ep.steps)
    if game.is_over or ep.steps >= ep.max_steps:
        return False
    arrays.observe(game, seat, obs_row)
    arrays.mask(game, mask_row)
    out = mask_row
    shown[:] = out
    return True
