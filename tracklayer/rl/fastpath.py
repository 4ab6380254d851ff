"""The loop of an environment step that needs no Python-level decision: the moves of ``random`` opponents,
and ``BatchEnv``'s loop over its rows.

A single-learner environment plays its opponents' moves between two learner steps. For a ``random``
opponent (:class:`~tracklayer.bots.random_bot.RandomBot`: ``legal[rng.randrange(len(legal))]``, no
view) that loop is only engine calls, so it runs here, compiled: the same legal actions, the same draws
from each bot's own ``random.Random`` and the same ``game.apply`` as the general loop in
``TracklayerGymEnv._play_opponents`` (``tests/rl`` plays both and compares the games), without making
the bot's arguments or walking the opponent objects per move. Any game family: it uses only the public
game API.
"""

from __future__ import annotations

import random
from typing import Any

import cython


@cython.cfunc
@cython.locals(n=cython.Py_ssize_t, m=cython.Py_ssize_t, k=cython.int)
def randbelow(rng: Any, n: int) -> Any:
    """``rng.randrange(n)`` for ``n >= 1``: the same draws from the same generator (CPython's
    ``Random._randbelow_with_getrandbits``: as many random bits as ``n`` has, drawn again while they reach
    ``n``), without the frames of ``random.py``. Another kind of generator is asked itself."""
    if type(rng) is not random.Random:
        return rng.randrange(n)
    k = 0  # n.bit_length()
    m = n
    while m:
        k += 1
        m >>= 1
    r = rng.getrandbits(k)
    while r >= n:
        r = rng.getrandbits(k)
    return r


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
        game.apply(legal[randbelow(rngs[q], n)])
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


@cython.ccall
@cython.locals(index=cython.Py_ssize_t)
def step_random(env: Any, index: int, obs_row: Any, mask_row: Any) -> Any:
    """``TracklayerGymEnv``'s step of ``index`` through :func:`advance_random` where that applies: a flat
    Ticket to Ride episode going on against ``random`` opponents only, and an index within the action
    space. None when it does not apply (nothing was done: take ``TracklayerGymEnv.advance``); otherwise what
    ``advance_random`` returns (True: the episode goes on, its observation and mask written; False: it
    ended, read ``TracklayerGymEnv.outcome``). The Gymnasium step and ``BatchEnv``'s rows go through it."""
    ep = env.episode
    if env._shown is None or env._random_rngs is None or env._abandoned or ep.done \
            or not 0 <= index < ep.n_actions:
        return None
    return advance_random(env, index, env.codec.arrays(ep.game), obs_row, mask_row, env._shown)


@cython.ccall
@cython.locals(k=cython.Py_ssize_t, rows=cython.Py_ssize_t, lo=cython.Py_ssize_t,
               rew=cython.float[::1], term=cython.uchar[::1], trunc=cython.uchar[::1])
def step_rows(envs: list[Any], actions: list[int], obs_rows: list[Any], mask_rows: list[Any], rewards: Any,
              terminated: Any, truncated: Any, lo: int) -> list[tuple[int, bool]]:
    """``BatchEnv``'s step of its rows ``envs`` (rows ``lo ..`` of the batch) where each goes through
    :func:`step_random` (a flat Ticket to Ride environment against ``random`` opponents): row ``k``
    plays ``actions[k]``, writes its observation and mask into ``obs_rows[k]`` and ``mask_rows[k]``, and
    0 / False / False into ``rewards``, ``terminated`` and ``truncated`` (float32 and bool arrays).

    Returns ``(k, ended)`` of the rows this did not finish, in order: ``ended`` when the episode ended in
    the step (the learner and its opponents moved: read ``env.outcome()``), else the step needs the
    general path (``TracklayerGymEnv.advance``: an index outside the mask, another kind of opponent) and
    the row is unchanged. An error names the batch's row it came from."""
    rew = rewards
    term = terminated.view("uint8")
    trunc = truncated.view("uint8")
    rows = len(envs)
    left: list[tuple[int, bool]] = []
    k = 0
    try:
        for k in range(rows):
            moved = step_random(envs[k], actions[k], obs_rows[k], mask_rows[k])
            if moved is True:
                rew[k] = 0.0
                term[k] = 0
                trunc[k] = 0
            else:
                left.append((k, moved is False))
    except Exception as exc:
        note_row(exc, lo + k)
        raise
    return left


def note_row(exc: Exception, row: int) -> None:
    """Notes on ``exc`` the ``BatchEnv`` row it came from (its type and message stay those of the game's error)."""
    exc.add_note(f"in BatchEnv row {row}")
