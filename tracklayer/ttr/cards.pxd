# C declarations of cards.py for the compiled build (Cython reads them with the .py; Python ignores them):
# the rules call these functions as C functions.

from tracklayer.ttr.state cimport State


cpdef draw_from_deck(State state)
cpdef can_draw_from_deck(State state)
cpdef refill_market(State state, board)
cpdef discard(State state, board, cards)
cpdef check_locomotive_rule(State state, board)
cpdef take_face_up(State state, board, card)
