"""Station assignment: hand-checked situations and property tests against exhaustive search."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from tracklayer.ttr.stations import StationChoice, best_station_assignment, completed_tickets

Route = tuple[int, int]
Candidate = tuple[int, int, int]
Ticket = tuple[int, int, int]

PROPS = settings(max_examples=200, deadline=None)


# ---------------------------------------------------------------------------------------- helpers


def connected(routes: Sequence[Route], a: int, b: int) -> bool:
    """Plain graph search, deliberately independent of the module's union-find."""
    if a == b:
        return True
    seen = {a}
    stack = [a]
    while stack:
        x = stack.pop()
        for u, v in routes:
            for p, q in ((u, v), (v, u)):
                if p == x and q not in seen:
                    if q == b:
                        return True
                    seen.add(q)
                    stack.append(q)
    return False


def brute_force(
    own: Sequence[Route], stations: Sequence[Sequence[Candidate]], tickets: Sequence[Ticket]
) -> StationChoice:
    """Every combination; best (points, completed), then the documented tie rule: the borrowed
    tuple smallest station by station, None before any route id, lower ids first."""
    best: tuple[tuple[int, int], tuple[tuple[int, int], ...], StationChoice] | None = None
    for combo in itertools.product(*[[None, *cands] for cands in stations]):
        routes = list(own) + [(c[0], c[1]) for c in combo if c is not None]
        done = tuple(connected(routes, a, b) for a, b, _ in tickets)
        points = sum(p if d else -p for d, (_, _, p) in zip(done, tickets, strict=True))
        quality = (points, sum(done))
        order = tuple((0, 0) if c is None else (1, c[2]) for c in combo)
        choice = StationChoice(points, done, tuple(None if c is None else c[2] for c in combo))
        if best is None or quality > best[0] or (quality == best[0] and order < best[1]):
            best = (quality, order, choice)
    assert best is not None
    return best[2]


def check(own: Sequence[Route], stations: Sequence[Sequence[Candidate]], tickets: Sequence[Ticket]) -> StationChoice:
    """Run the search and check it against brute force and against a recomputation."""
    got = best_station_assignment(own, stations, tickets)
    assert got == brute_force(own, stations, tickets)
    assert len(got.borrowed) == len(stations)
    assert len(got.completed) == len(tickets)
    borrowed_routes = []
    for cands, rid in zip(stations, got.borrowed, strict=True):
        if rid is not None:
            match = [c for c in cands if c[2] == rid]
            assert match, "borrowed a route that is not a candidate of that station"
            borrowed_routes.append(match[0][:2])
    assert got.completed == completed_tickets(own, borrowed_routes, tickets)
    assert got.ticket_points == sum(p if d else -p for d, (_, _, p) in zip(got.completed, tickets, strict=True))
    return got


# --------------------------------------------------------------------------------- hand examples


def test_nothing_at_all() -> None:
    assert best_station_assignment([], [], []) == StationChoice(0, (), ())


def test_no_stations() -> None:
    got = check([(1, 2), (2, 3)], [], [(1, 3, 8), (1, 4, 5)])
    assert got == StationChoice(3, (True, False), ())


def test_station_completes_a_ticket() -> None:
    # Own: 1-2 and 3-4; the station at 2 may borrow 2-3 (id 7) or 2-9 (id 5).
    got = check([(1, 2), (3, 4)], [[(2, 9, 5), (2, 3, 7)]], [(1, 4, 10)])
    assert got == StationChoice(10, (True,), (7,))


def test_useless_station_borrows_nothing() -> None:
    got = check([(1, 2), (2, 3)], [[(2, 3, 4), (3, 1, 2), (3, 8, 1)]], [(1, 3, 6)])
    assert got == StationChoice(6, (True,), (None,))


def test_equivalent_candidates_prefer_the_lowest_id() -> None:
    # Both 2-3 routes (a double route) join the same two pieces.
    got = check([(1, 2), (3, 4)], [[(2, 3, 12), (3, 2, 11)]], [(1, 4, 9)])
    assert got.borrowed == (11,)


def test_one_station_two_tickets_takes_the_more_valuable() -> None:
    # The station at 0 can reach the 10-ticket's piece or the 4-ticket's piece, not both.
    own = [(0, 1), (2, 3), (4, 5)]
    got = check(own, [[(0, 2, 1), (0, 4, 2)]], [(1, 3, 4), (1, 5, 10)])
    assert got == StationChoice(6, (False, True), (2,))


def test_two_stations_bridge_through_a_foreign_city() -> None:
    # City 50 is not in the player's network; both borrowed routes are needed together.
    own = [(1, 2), (3, 4)]
    stations = [[(2, 50, 20)], [(4, 50, 21)]]
    got = check(own, stations, [(1, 3, 7)])
    assert got == StationChoice(7, (True,), (20, 21))


def test_same_route_offered_to_two_stations() -> None:
    own = [(1, 2), (3, 4)]
    stations = [[(2, 3, 8)], [(3, 2, 8)]]
    got = check(own, stations, [(1, 4, 5)])
    assert got.borrowed == (None, 8)  # the first station stays None: None sorts first


def test_completion_count_breaks_point_ties() -> None:
    # Zero-point tickets do not change the points but still count as completed tickets.
    got = check([(1, 2)], [[(2, 3, 1)]], [(1, 3, 0)])
    assert got == StationChoice(0, (True,), (1,))


def test_tickets_between_cities_outside_the_network() -> None:
    got = check([(1, 2)], [[(2, 3, 4)]], [(7, 8, 5), (1, 3, 2)])
    assert got == StationChoice(-3, (False, True), (4,))


def test_completed_tickets_helper() -> None:
    assert completed_tickets([(1, 2)], [(2, 3)], [(1, 3, 5), (3, 4, 2), (6, 6, 1)]) == (True, False, True)


def test_many_stations_and_sparse_ids() -> None:
    big = 10**12
    own = [(big, big + 1), (big + 2, big + 3), (-5, -6), (-6, -7)]
    stations = [
        [(big + 1, big + 2, 900), (big + 1, -5, 901), (big + 1, 77, 902)],
        [(-7, big + 3, 903), (-7, 77, 904)],
        [(77, big, 905), (77, -6, 906)],
    ]
    tickets = [(big, big + 3, 11), (big, -7, 8), (-5, 77, 3), (big + 2, 77, 6)]
    check(own, stations, tickets)


# ------------------------------------------------------------------------------ property tests


@st.composite
def positions(draw: st.DrawFn) -> tuple[list[Route], list[list[Candidate]], list[Ticket]]:
    """A few cities; the player's routes, other players' routes touching station cities, tickets."""
    n = draw(st.integers(2, 8))
    ids = draw(st.lists(st.integers(-(10**6), 10**6), min_size=n, max_size=n, unique=True))
    city = st.sampled_from(ids)
    own = draw(st.lists(st.tuples(city, city).filter(lambda r: r[0] != r[1]), max_size=8))
    foreign = draw(st.lists(st.tuples(city, city).filter(lambda r: r[0] != r[1]), max_size=10))
    route_ids = draw(st.permutations(range(100, 100 + len(foreign))))
    pool = [(u, v, rid) for (u, v), rid in zip(foreign, route_ids, strict=True)]
    station_cities = draw(st.lists(city, max_size=3, unique=True))
    stations = [[c for c in pool if s in c[:2]] for s in station_cities]
    tickets = draw(st.lists(st.tuples(city, city, st.integers(0, 12)), max_size=7))
    return own, stations, tickets


@PROPS
@given(positions())
def test_matches_brute_force(case: tuple[list[Route], list[list[Candidate]], list[Ticket]]) -> None:
    check(*case)


def _route(u: int, v: int, lane: int) -> Candidate:
    """A route id that is a function of its cities and lane, as on a real map (ids stay consistent)."""
    return (u, v, (min(u, v) * 7 + max(u, v)) * 2 + lane)


ARBITRARY_CANDIDATE = st.builds(_route, st.integers(0, 6), st.integers(0, 6), st.integers(0, 1))


@PROPS
@given(
    st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6)), max_size=6),
    st.lists(st.lists(ARBITRARY_CANDIDATE, max_size=4), max_size=3),
    st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6), st.integers(0, 9)), max_size=6),
)
def test_matches_brute_force_on_arbitrary_input(
    own: list[Route], stations: list[list[Candidate]], tickets: list[Ticket]
) -> None:
    """No game-shaped structure: repeated candidates, self-loops, candidates away from any station."""
    check(own, stations, tickets)
