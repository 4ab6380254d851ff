"""Best use of train stations at the end of a Ticket to Ride Europe game.

Each station lets its owner borrow exactly one route of another player touching the station's city
(or none), the same route for all of that player's tickets. The engine has to pick the assignment
that scores best, and must be exact: a wrong choice changes the final ranking. Brute force over all
combinations is ``(candidates + 1) ** stations`` connectivity checks, too slow to run for every
player in every bot rollout, so the search is shrunk first without changing its result:

* Only connectivity *between components of the player's own network* matters, so the own network is
  collapsed with union-find and every candidate becomes an edge between two components.
* A candidate inside a single component changes nothing (it is as good as no route), and candidates
  of one station joining the same two components are interchangeable (keep the lowest route id).
* Tickets already completed (or impossible whatever is borrowed) are constants.
* A component that is no ticket endpoint and touches only one other component through candidates is
  a dead end: borrowing a route into it never connects two ticket endpoints. Such components are
  peeled off repeatedly, like leaves of a tree.

What is left is usually a handful of combinations over a few components, checked with bitmask
groups (a tiny union-find) and cut short as soon as every remaining ticket is completed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import product

__all__ = ["StationChoice", "best_station_assignment", "completed_tickets"]


@dataclass(frozen=True, slots=True)
class StationChoice:
    """Outcome of the station assignment for one player.

    ``ticket_points`` is the signed ticket total (+points completed, −points failed), ``completed``
    has one flag per ticket in input order and ``borrowed`` one route id (or ``None``) per station
    in input order.
    """

    ticket_points: int
    completed: tuple[bool, ...]
    borrowed: tuple[int | None, ...]


class _Components:
    """Union-find over sparse city ids; unknown cities are their own singleton component."""

    __slots__ = ("parent",)

    def __init__(self, routes: Sequence[tuple[int, int]]) -> None:
        self.parent: dict[int, int] = {}
        for a, b in routes:
            ra, rb = self.find(a), self.find(b)
            if ra != rb:
                self.parent[ra] = rb

    def find(self, x: int) -> int:
        parent = self.parent
        p = parent.get(x, x)
        while p != x:
            gp = parent.get(p, p)
            parent[x] = gp  # path halving keeps later lookups short
            x, p = p, gp
        return x


def completed_tickets(
    own_routes: Sequence[tuple[int, int]],
    borrowed_routes: Sequence[tuple[int, int]],
    tickets: Sequence[tuple[int, int, int]],
) -> tuple[bool, ...]:
    """Which tickets ``(a, b, points)`` are connected by the own plus the borrowed routes.

    Kept separate from the search so that callers (and tests) can score a fixed assignment with the
    exact same connectivity notion the search optimises.
    """
    comps = _Components([*own_routes, *borrowed_routes])
    find = comps.find
    return tuple(find(a) == find(b) for a, b, _ in tickets)


def best_station_assignment(
    own_routes: Sequence[tuple[int, int]],
    stations: Sequence[Sequence[tuple[int, int, int]]],
    tickets: Sequence[tuple[int, int, int]],
) -> StationChoice:
    """Choose one borrowed route (or none) per station maximising the player's ticket score.

    ``own_routes`` are ``(city_u, city_v)``, each station lists its candidate routes as
    ``(city_u, city_v, route_id)`` and tickets are ``(city_a, city_b, points)``.

    The result equals an exhaustive search over every combination (each station taking one of its
    candidates or nothing), maximising first the ticket points, then the number of completed
    tickets. Ties are broken so the answer is reproducible and the bot never "borrows" a route it
    does not need: among equally good assignments the ``borrowed`` tuple that is smallest station by
    station in input order wins, where ``None`` sorts before any route id and lower ids before
    higher ones. Consequently a station whose route would not change the outcome reports ``None``.
    """
    comps = _Components(own_routes)
    find = comps.find
    n_st = len(stations)

    # Tickets: constant outcome, or a pair of distinct components that borrowing might connect.
    pair_of: list[int] = []  # per ticket: -1 if already completed, else its index into the pairs
    pair_index: dict[tuple[int, int], int] = {}
    pair_ends: list[tuple[int, int]] = []
    pair_gain: list[tuple[int, int]] = []  # (2 * points, tickets) gained when connected
    base_points = 0
    for a, b, points in tickets:
        ra, rb = find(a), find(b)
        if ra == rb:
            pair_of.append(-1)
            base_points += points
            continue
        base_points -= points
        key = (ra, rb) if ra < rb else (rb, ra)
        k = pair_index.get(key)
        if k is None:
            k = pair_index[key] = len(pair_ends)
            pair_ends.append(key)
            pair_gain.append((0, 0))
        g, c = pair_gain[k]
        pair_gain[k] = (g + 2 * points, c + 1)
        pair_of.append(k)

    none_choice = (None,) * n_st
    if not pair_ends:
        return StationChoice(base_points, tuple(p == -1 for p in pair_of), none_choice)

    # Candidates as component edges; per station keep the lowest route id of each component pair.
    station_edges: list[dict[tuple[int, int], int]] = []
    for cands in stations:
        best_id: dict[tuple[int, int], int] = {}
        for u, v, rid in cands:
            ru, rv = find(u), find(v)
            if ru == rv:
                continue
            key = (ru, rv) if ru < rv else (rv, ru)
            old = best_id.get(key)
            if old is None or rid < old:
                best_id[key] = rid
        station_edges.append(best_id)

    # Peel dead-end components (not a ticket endpoint, at most one distinct neighbour).
    terminals = {c for pair in pair_ends for c in pair}
    neighbours: dict[int, set[int]] = {}
    for best_id in station_edges:
        for ru, rv in best_id:
            neighbours.setdefault(ru, set()).add(rv)
            neighbours.setdefault(rv, set()).add(ru)
    queue = [c for c, ns in neighbours.items() if c not in terminals and len(ns) <= 1]
    dead: set[int] = set()
    while queue:
        c = queue.pop()
        if c in dead:
            continue
        dead.add(c)
        for other in neighbours[c]:
            ns = neighbours[other]
            ns.discard(c)
            if other not in terminals and other not in dead and len(ns) <= 1:
                queue.append(other)
        neighbours[c] = set()

    # Bit per surviving component; options per station sorted by route id after the leading None.
    bit_of: dict[int, int] = {}
    options: list[list[tuple[int | None, int]]] = []
    for best_id in station_edges:
        opts: list[tuple[int | None, int]] = [(None, 0)]
        live = [(rid, key) for key, rid in best_id.items() if key[0] not in dead and key[1] not in dead]
        live.sort()
        for rid, (ru, rv) in live:
            for c in (ru, rv):
                if c not in bit_of:
                    bit_of[c] = 1 << len(bit_of)
            opts.append((rid, bit_of[ru] | bit_of[rv]))
        options.append(opts)

    # Pairs that no surviving candidate touches on both sides stay failed; drop them from the loop.
    live_pairs: list[tuple[int, int, int]] = []  # (mask of both ends, point gain, ticket gain)
    live_pair_ids: list[int] = []
    for k, (ra, rb) in enumerate(pair_ends):
        if ra in bit_of and rb in bit_of:
            g, c = pair_gain[k]
            live_pairs.append((bit_of[ra] | bit_of[rb], g, c))
            live_pair_ids.append(k)

    best_key = (0, 0)
    best_combo: tuple[tuple[int | None, int], ...] = tuple((None, 0) for _ in range(n_st))
    best_groups: list[int] = []
    if live_pairs:
        # Upper bound on both criteria at once: reaching it means nothing can be strictly better.
        ceiling = (sum(max(g, 0) for _, g, _ in live_pairs), sum(c for _, _, c in live_pairs))
        best_key = (-1 << 62, 0)
        for combo in product(*options):
            groups: list[int] = []
            for _, em in combo:
                if not em:
                    continue
                merged = em
                rest = []
                for grp in groups:
                    if grp & merged:
                        merged |= grp
                    else:
                        rest.append(grp)
                rest.append(merged)
                groups = rest
            gain = 0
            done = 0
            for pm, g, c in live_pairs:
                for grp in groups:
                    if grp & pm == pm:
                        gain += g
                        done += c
                        break
            if gain > best_key[0] or (gain == best_key[0] and done > best_key[1]):
                best_key, best_combo, best_groups = (gain, done), combo, groups
                if best_key == ceiling:
                    break

    connected = [False] * len(pair_ends)
    for k, (pm, _, _) in zip(live_pair_ids, live_pairs, strict=True):
        connected[k] = any(grp & pm == pm for grp in best_groups)
    completed = tuple(p == -1 or (p >= 0 and connected[p]) for p in pair_of)
    return StationChoice(
        base_points + best_key[0],
        completed,
        tuple(rid for rid, _ in best_combo),
    )
