"""Train-card flow: deck, discard pile and the face-up market.

Kept apart from the turn rules because three different moves (drawing, tunnels, the market reset)
pull cards, and the reshuffle and 3-locomotive rules must behave the same for all of them.
"""

from __future__ import annotations

from tracklayer.ttr.board import Board
from tracklayer.ttr.state import State

EMPTY = -1
MAX_RESETS = 3  # resets in a row before the market is left as it is (rules decision)


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


def can_draw_from_deck(state: State) -> bool:
    return bool(state.deck) or bool(state.discard)


def refill_market(state: State, board: Board) -> None:
    """Fill empty face-up slots, then apply the locomotive reset rule.

    Reset: with ``loco_reset`` or more locomotives face up, all face-up cards are discarded and new
    ones turned up. After three resets in a row the market stays as it is (``market_stuck``) until a
    card is taken: otherwise a deck of mostly locomotives would cycle forever.
    """
    market = state.market
    for slot, card in enumerate(market):
        if card == EMPTY:
            market[slot] = draw_from_deck(state)
    loco, limit = board.loco, board.loco_reset
    resets = 0
    while not state.market_stuck and market.count(loco) >= limit:
        if resets == MAX_RESETS:
            state.market_stuck = True
            break
        resets += 1
        state.discard.extend(c for c in market if c != EMPTY)
        for slot in range(len(market)):
            market[slot] = EMPTY
        for slot in range(len(market)):
            market[slot] = draw_from_deck(state)


def take_face_up(state: State, board: Board, card: int) -> int:
    """Take the leftmost face-up card of this kind, refill its slot; return the slot."""
    slot = state.market.index(card)
    state.market[slot] = EMPTY
    state.market_stuck = False
    state.hands[state.current][card] += 1
    refill_market(state, board)
    return slot
