# C declarations of state.py for the compiled build (Cython reads them with the .py; Python ignores them).

from tracklayer.core.rng cimport Rng


cdef class State:
    cdef public int n_players, current, first, turn, final_turns, passes, deal_step
    cdef public str phase
    cdef public Rng rng
    cdef public list deck, discard, market, hands, wagons, stations_left, station_owner, route_owner
    cdef public list route_points, owned, tickets, ticket_deck, offers, initial_pending, set_aside, last_reveal
    cdef public object tunnel

    cpdef clone(self)
