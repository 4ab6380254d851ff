"""Longest continuous path (European Express / Globetrotter bonus) for Ticket to Ride.

The rules' "continuous path" is a *trail*: it may pass through a city several times but may use
each route at most once. Finding the longest trail is NP-hard in general, but player networks are
small (at most 45 wagons, so rarely more than ~30 routes) and the structure of the problem lets an
exact search stay tiny:

* Each connected component is solved on its own; the best component wins.
* A component with 0 or 2 odd-degree cities has an Euler circuit/trail, so the answer is simply the
  whole component (built with Hierholzer's algorithm, no search at all).
* Otherwise an optimal trail can be taken to start and end at (distinct) odd-degree cities: a
  maximal trail whose end is an even city could still be extended (lengths are non-negative), and a
  closed maximal trail is impossible in a connected component that it does not cover. So the
  search only starts from odd cities.
* The best extension from city ``v`` depends only on ``v`` and the unused routes still *reachable*
  from ``v``; routes cut off by the trail so far can never be used again. Memoising on
  ``(v, reachable unused routes)`` instead of ``(v, all unused routes)`` merges many states.
* Whenever the reachable unused routes admit an Euler trail starting at ``v`` the extension is
  simply all of them, which cuts the search off near the leaves.

Everything is done with integer bitmasks (one bit per route, one per city) and local variables
because this runs for every player at every game end and inside bot rollouts.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["longest_trail"]

# Adjacency entry: (neighbour vertex, edge bit, edge length, edge index).
_Adj = list[list[tuple[int, int, int, int]]]


def longest_trail(edges: Sequence[tuple[int, int, int]]) -> tuple[int, list[int]]:
    """Return the maximum total length of a trail and its edge indices in walking order.

    ``edges[i] = (u, v, length)`` describes an undirected multigraph: cities may be arbitrary
    (sparse) ints, parallel edges are fine and so are self-loops. Lengths must be non-negative,
    since the "an optimal trail ends at odd cities" argument relies on extensions never hurting.

    The answer is exact. It is also deterministic: the same input always yields the same list, with
    ties resolved in favour of the earliest component, the earliest-seen start city and the
    lowest-index edge at each step. Empty input gives ``(0, [])``.
    """
    m = len(edges)
    if m == 0:
        return 0, []

    # Compress cities to 0..n-1 in order of first appearance so masks stay small and output stable.
    index: dict[int, int] = {}
    adj: _Adj = []
    ends: list[tuple[int, int]] = []
    for i, (a, b, length) in enumerate(edges):
        if length < 0:
            raise ValueError(f"edge {i} has negative length {length}")
        ia = index.get(a)
        if ia is None:
            ia = index[a] = len(adj)
            adj.append([])
        ib = index.get(b)
        if ib is None:
            ib = index[b] = len(adj)
            adj.append([])
        bit = 1 << i
        adj[ia].append((ib, bit, length, i))
        if ib != ia:
            adj[ib].append((ia, bit, length, i))
        ends.append((ia, ib))

    odd_all = 0  # cities of odd degree (a self-loop adds 2, so it cancels out)
    for a, b in ends:
        odd_all ^= (1 << a) ^ (1 << b)

    best_value = -1
    best_trail: list[int] = []
    assigned = 0  # edges already placed in some component
    for first in range(m):
        if assigned >> first & 1:
            continue
        anchor = ends[first][0]
        comp, verts, weight = _component(adj, anchor, (1 << m) - 1)
        assigned |= comp
        if weight <= best_value:
            # Even the whole component cannot beat what we have: skip the search entirely.
            continue
        value, trail = _solve_component(adj, comp, odd_all & verts, weight, anchor)
        if value > best_value:
            best_value, best_trail = value, trail
    return best_value, best_trail


def _component(adj: _Adj, start: int, usable: int) -> tuple[int, int, int]:
    """Edge mask, vertex mask and total length of ``start``'s component within ``usable`` edges."""
    seen = 1 << start
    stack = [start]
    comp = 0
    weight = 0
    while stack:
        x = stack.pop()
        for y, bit, length, _ in adj[x]:
            if usable & bit and not comp & bit:
                comp |= bit
                weight += length
                if not seen >> y & 1:
                    seen |= 1 << y
                    stack.append(y)
    return comp, seen, weight


def _euler(adj: _Adj, start: int, usable: int) -> list[int]:
    """Hierholzer's algorithm: all ``usable`` edges as one trail from ``start`` (must be valid)."""
    remaining = usable
    pos = [0] * len(adj)
    stack: list[tuple[int, int]] = [(start, -1)]
    out: list[int] = []
    while stack:
        x, via = stack[-1]
        row = adj[x]
        p = pos[x]
        while p < len(row) and not remaining & row[p][1]:
            p += 1
        pos[x] = p
        if p < len(row):
            y, bit, _, i = row[p]
            remaining &= ~bit
            stack.append((y, i))
        else:
            stack.pop()
            if via >= 0:
                out.append(via)
    out.reverse()
    return out


def _solve_component(adj: _Adj, comp: int, odd: int, weight: int, anchor: int) -> tuple[int, list[int]]:
    """Longest trail inside one connected component (given its edge/vertex/odd masks)."""
    if odd.bit_count() <= 2:
        start = (odd & -odd).bit_length() - 1 if odd else anchor
        return weight, _euler(adj, start, comp)

    vbits = len(adj).bit_length()
    memo: dict[int, tuple[int, int]] = {}

    def step(w: int, unused: int, odd_mask: int) -> tuple[int, int, int, int]:
        """Classify the position after arriving at ``w``: (kind, reach, odd, extension value).

        kind 0: nothing reachable; 1: Euler shortcut (take all of ``reach``); 2: needs search.
        """
        reach, rverts, rweight = _component(adj, w, unused)
        if not reach:
            return 0, 0, 0, 0
        rodd = odd_mask & rverts
        if not rodd or (rodd >> w & 1 and rodd.bit_count() == 2):
            return 1, reach, rodd, rweight
        return 2, reach, rodd, best(w, reach, rodd)

    def best(v: int, unused: int, odd_mask: int) -> int:
        """Best extension length from ``v`` using edges of ``unused`` (its reachable component)."""
        key = unused << vbits | v
        hit = memo.get(key)
        if hit is not None:
            return hit[0]
        top = -1
        choice = -1
        for pos, (w, bit, length, _) in enumerate(adj[v]):
            if not unused & bit:
                continue
            _, _, _, ext = step(w, unused & ~bit, odd_mask ^ (1 << v) ^ (1 << w))
            value = length + ext
            if value > top:
                top, choice = value, pos
        memo[key] = (top, choice)
        return top

    best_value = -1
    best_start = -1
    vm = odd
    while vm:
        s = (vm & -vm).bit_length() - 1
        vm &= vm - 1
        value = best(s, comp, odd)
        if value > best_value:
            best_value, best_start = value, s

    # Replay the memoised choices to recover the trail.
    trail: list[int] = []
    v, unused, odd_mask = best_start, comp, odd
    while True:
        w, bit, _, i = adj[v][memo[unused << vbits | v][1]]
        trail.append(i)
        kind, reach, rodd, _ = step(w, unused & ~bit, odd_mask ^ (1 << v) ^ (1 << w))
        if kind == 0:
            break
        if kind == 1:
            trail.extend(_euler(adj, w, reach))
            break
        v, unused, odd_mask = w, reach, rodd
    return best_value, trail

