# C declarations of legal.py for the compiled build (Cython reads them with the .py; Python ignores them).

from tracklayer.ttr.state cimport State


cdef class MoveGenerator:
    cdef public object board, variant, table
    cdef public int loco
    cdef list draw_actions  # per card kind: the action that takes it face up
    cdef int n_cities, stations, n_kinds
    cdef tuple station_costs
    cdef signed char[::1] closed  # per number of players: whether one built lane closes a double route
    cdef int[::1] twin_at, twin  # route r's twins: twin[twin_at[r] .. twin_at[r + 1] - 1]
    cdef int[::1] identical_to  # per route: the lowest-id identical lane, else itself
    cdef list is_long  # per ticket: whether it is a long one
    # the kinds of route (colour, length, ferry locomotives) and their routes, in the engine's order
    cdef int[::1] kind_color, kind_length, kind_ferry
    cdef list kind_routes
    cdef list pay_runs  # [colour][lo][stop]: the payments (colour, lo) .. (colour, stop - 1)
    cdef list kinds_of  # per bitmask of card kinds: those kinds as a sorted tuple

    cpdef legal_actions(self, State s)
    cpdef keep_rule(self, State s)
    cpdef keep_subsets(self, State s)
    cpdef can_draw_second(self, State s)
    cpdef second_draws(self, State s)
    cpdef tunnel_payments(self, State s)
    cpdef market_kinds(self, State s)
    cpdef main_parts(self, State s)
    cpdef free_cities(self, State s)
    cpdef claimable(self, State s, int p, tuple routes)
    cpdef payments(self, list hand, int length, int ferry)


cdef class ActionList:
    cdef object _table, _items
    cdef list _head, _blocks, _starts
    cdef Py_ssize_t _len, _n_claims

    cpdef _at(self, Py_ssize_t i)
