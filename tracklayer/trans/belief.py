"""Belief sampling for Trans Europa / Trans America: a complete game that agrees with all one seat knows.

What a seat cannot see is the current round's city cards in the other hands (their colours are public:
the card backs) and in the rest piles, the other seats' hidden choices of a city to return or pass, the
order of the special-card deck and the engine's future random draws. Finished rounds are public (every
city is revealed at a round's end), and each round deals from freshly shuffled piles, so only the
current round is re-dealt.

:func:`sample_state` pools, colour by colour, the cities the seat cannot place and deals them back into
the same places (each hand keeps its colours, each rest pile its size), keeping fixed what the seat
knows: its own hand, the cities special cards turn face up, and the cities it passed on or returned
itself, for as long as it can follow them (a city it passed stays known in the receiver's hand until
that seat gives a card away unseen; a city it returned stays known in its rest pile until a draft takes
from that pile). A hidden choice already made moves with its card. The special-card deck is shuffled
and the engine's generator replaced by one drawn from ``rng``: randomness comes only from ``rng``.

The card-movement records of moves the seat did not take part in keep the real cities (they show in
the other seats' views only, never in this seat's).
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from tracklayer.core.belief import fresh_copy
from tracklayer.trans.state import CHOOSE, M_PASS, M_RETURN, M_TAKE, OVER, RAILS, START, T_PASS, T_PASS_HAND

if TYPE_CHECKING:
    from tracklayer.trans.game import TransGame

SAMPLED_PHASES = (CHOOSE, START, RAILS, OVER)


def known_places(game: TransGame, seat: int) -> dict[int, int]:
    """Cities of the current round whose place ``seat`` knows besides its own hand: city -> seat holding it,
    or ``-1 - colour`` for a rest pile (see the module doc for how far a city is followed)."""
    s = game.state
    color = [c.color for c in game.board.cities]
    known: dict[int, int] = {}
    moves = s.moves
    i = 0
    while i < len(moves):
        task = moves[i][4]
        if task in (T_PASS, T_PASS_HAND):
            # a simultaneous pass: every seat chose before any card moved, so a card received in the step
            # is not passed on in it (one move per seat; a whole-hand pass moves every card of every hand)
            end = i + s.n_players
            if task == T_PASS_HAND:
                end = i
                while end < len(moves) and moves[end][4] == T_PASS_HAND:
                    end += 1
            before = dict(known)
            for _kind, src, dst, city, _task in moves[i:end]:
                if src == seat:
                    known[city] = dst
                elif dst == seat:
                    known.pop(city, None)
                for c, w in before.items():
                    if w == src and known.get(c) == src:
                        if task == T_PASS_HAND:
                            known[c] = dst  # the whole hand went on: so did every city known in it
                        else:
                            del known[c]  # one unseen card of that hand went on
            i = end
            continue
        kind, src, dst, city, _task = moves[i]
        i += 1
        if seat in (src, dst):
            if kind == M_PASS and src == seat:
                known[city] = dst
            elif kind == M_RETURN:
                known[city] = -1 - color[city]
            else:
                known.pop(city, None)  # now in the seat's own hand
            continue
        if kind == M_TAKE:  # a draft takes the top card of a rest pile: it may be one the seat returned
            pile = -1 - color[city]
            known = {c: w for c, w in known.items() if w != pile}
        elif src >= 0:  # a seat gave a card away unseen: what it held is no longer certain
            known = {c: w for c, w in known.items() if w != src}
    reveal = game.rules.effects(s).reveal
    if reveal and s.phase != OVER:
        for q, hand in enumerate(s.hands):
            if q != seat:
                for c in hand:
                    if color[c] in reveal:
                        known[c] = q
    # only what is true stays (a guard: the tracking above follows the rules' own records)
    return {c: w for c, w in known.items()
            if (w >= 0 and c in s.hands[w]) or (w < 0 and c in s.decks[-1 - w])}


def sample_state(game: TransGame, seat: int, rng: random.Random) -> TransGame:
    """A copy of ``game`` with everything ``seat`` cannot see dealt afresh (see the module doc).

    ``sample.view(seat)`` equals ``game.view(seat)``; every city card is still in exactly one place.
    """
    out = fresh_copy(game, seat, rng, SAMPLED_PHASES, "Trans")
    s, t = game.state, out.state
    if s.phase == OVER:
        return out
    t.special_deck = list(s.special_deck)
    rng.shuffle(t.special_deck)
    color = [c.color for c in game.board.cities]
    fixed = known_places(game, seat)
    pools: dict[int, list[int]] = {}
    places = [s.hands[q] for q in range(s.n_players) if q != seat] + list(s.decks)
    for place in places:
        for c in place:
            if c not in fixed:
                pools.setdefault(color[c], []).append(c)
    for pool in pools.values():
        rng.shuffle(pool)

    def redeal(place: list[int]) -> list[int]:
        return [c if c in fixed else pools[color[c]].pop() for c in place]

    for q in range(s.n_players):
        if q == seat:
            continue
        hand = redeal(s.hands[q])
        if s.pending[q] >= 0:
            t.pending[q] = hand[s.hands[q].index(s.pending[q])]
        t.hands[q] = hand
    t.decks = [redeal(d) for d in s.decks]
    return out
