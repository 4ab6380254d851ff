"""Train-card flow: deck, discard pile and the face-up market.

Kept apart from the turn rules because three different moves (drawing, tunnels, the market reset)
pull cards, and the reshuffle and 3-locomotive rules must behave the same for all of them.
"""

from __future__ import annotations

import cython

from tracklayer.ttr.board import Board
from tracklayer.ttr.state import State  # compiled: the C type of state.pxd (cimported by cards.pxd)

EMPTY = -1
# A safety net, not a rule: resets repeat while a market with too few locomotives can be made (rules
# decision), and with that condition each reset after a reshuffle succeeds with a probability of more
# than 1 %, so no game comes near this; it only turns a broken random generator into a stop, not a hang.
RESET_LIMIT = 100_000


@cython.ccall
@cython.locals(state=State, deck=list)
def draw_from_deck(state: State) -> int:
    """Top card of the deck, reshuffling the discard pile in when the deck is empty; -1 if none."""
    deck = state.deck
    if not deck:
        if not state.discard:
            return EMPTY
        deck.extend(state.discard)
        state.discard.clear()
        state.rng.shuffle(deck)
    return deck.pop()


@cython.ccall
@cython.locals(state=State)
def can_draw_from_deck(state: State) -> bool:
    return bool(state.deck) or bool(state.discard)


@cython.ccall
@cython.locals(state=State, market=list, slot=cython.Py_ssize_t)
def refill_market(state: State, board: Board) -> None:
    """Fill empty face-up slots from the deck; the new cards fall under the locomotive rule at once."""
    market = state.market
    for slot in range(len(market)):
        if market[slot] == EMPTY:
            market[slot] = draw_from_deck(state)
    check_locomotive_rule(state, board)


@cython.ccall
@cython.locals(state=State)
def discard(state: State, board: Board, cards: list[int]) -> None:
    """Put cards on the discard pile (a payment, a tunnel's revealed cards) as one move.

    The locomotive rule is checked right away: the new cards may make a better market possible
    where there was none, and the rulebooks reset the market as soon as that is so.
    """
    state.discard.extend(cards)
    check_locomotive_rule(state, board)


@cython.ccall
@cython.locals(state=State, market=list, loco=cython.int, limit=cython.int, need=cython.int, slot=cython.Py_ssize_t)
def check_locomotive_rule(state: State, board: Board) -> None:
    """The 3-locomotive rule, checked at once whenever the market or the piles gain cards.

    The rulebooks: "Sollten einmal mindestens 3 der 5 offen ausliegenden Karten Lokomotiven sein"
    (Europe DE), "in un qualsiasi momento" (Europe IT), "Sobald zu einem beliebigen Zeitpunkt drei
    Taxikarten offen ausliegen ... sofort" (New York). With ``loco_reset`` or more locomotives face up,
    all face-up cards are discarded and new ones turned up, again and again (rules decision) for as long
    as a market with fewer locomotives can be made at all, i.e. while deck, discard and market together
    still hold ``face_up - loco_reset + 1`` (Europe, New York: 3) cards that are not locomotives.
    Otherwise no reset can help and the market stays as it is, until cards reach the piles or the
    market again.

    Callers: :func:`refill_market` (a face-up card taken, the end of a turn, setup) and :func:`discard`
    (every card paid or revealed goes through it). Nothing else can make a reset possible: a blind draw
    or a tunnel's reveal only takes cards out of the piles, and a reshuffle moves the discard pile into
    the deck, which leaves the count of cards that are not locomotives as it is.

    Why the loop ends: while it runs, at least 3 non-locomotives are in deck + discard + market. Every
    reset draws from the deck, which is used up within a few resets; then the discard (holding every
    card not face up) is shuffled into a new deck, and the next market is a uniform draw from it, good
    with a positive probability (the worst pile, 3 non-locomotives among 17 cards, still over 1 %).
    """
    market = state.market
    loco, limit = board.loco, board.loco_reset
    if market.count(loco) < limit:
        return
    need = len(market) - limit + 1  # non-locomotives a market needs to hold fewer than `limit` locomotives
    if _non_locos(state, loco) < need:
        return
    for _ in range(RESET_LIMIT):
        state.discard.extend([c for c in market if c != EMPTY])
        for slot in range(len(market)):
            market[slot] = EMPTY
        for slot in range(len(market)):
            market[slot] = draw_from_deck(state)
        if market.count(loco) < limit:
            return


@cython.cfunc
@cython.locals(state=State, loco=cython.int)
def _non_locos(state: State, loco: int) -> int:
    """Cards in deck, discard and market that are not locomotives (hands and tunnels do not count)."""
    n = len(state.deck) - state.deck.count(loco) + len(state.discard) - state.discard.count(loco)
    return n + len([c for c in state.market if c != EMPTY and c != loco])


@cython.ccall
@cython.locals(state=State)
def take_face_up(state: State, board: Board, card: int) -> int:
    """Take the leftmost face-up card of this kind, refill its slot; return the slot."""
    slot = state.market.index(card)
    state.market[slot] = EMPTY
    state.hands[state.current][card] += 1
    refill_market(state, board)
    return slot
