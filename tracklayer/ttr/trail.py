"""Longest continuous path (European Express / Globetrotter bonus) for Ticket to Ride.

The rules' "continuous path" is a *trail*: it may pass through a city several times but may use
each route at most once. A set of routes can be walked as one trail exactly when it is connected and
has at most two odd-degree cities (Euler), so the question is the heaviest such route set. That is
NP-hard in general, but player networks are small (45 wagons, rarely more than ~30 routes), and a few
facts keep the exact answer cheap:

* Components are independent; the best one wins, and a component that cannot beat the best so far
  (even taken whole) is skipped.
* A trail can only end inside a dead-end branch, so at each fork only the two longest dead-end
  branches can matter; the others are dropped up front (hubs with many spurs stay cheap).
* A component with 0 or 2 odd cities is its own answer (Hierholzer builds the trail, no search).
* Otherwise some optimal trail runs between two distinct odd cities ``s`` and ``t`` (a maximal trail
  ending at an even city, or closed, could still be extended since lengths are non-negative). The
  routes it leaves out then have odd set ``O \\ {s, t}``, so they weigh at least a minimum-weight
  T-join: a perfect matching of those cities under shortest-path distances. That gives an upper
  bound, and deleting the matched shortest paths gives pieces that each have an Euler trail, a lower
  bound. On typical networks both meet and we are done in well under a millisecond.
* When they do not (the cheapest deletion disconnects the network) an exact dynamic programme
  settles it: routes are added city by city along an order that keeps the "frontier" (cities with
  routes both decided and undecided) small, and a state records for each frontier city its parity
  and which partial piece it belongs to (the classic connectivity/frontier DP). A state is dropped
  unless it could beat a target even by taking every remaining route the parity constraint allows.
  The DP is run with targets just below the upper bound first (ceiling-2, -6, -14, ...), where that
  pruning is brutal, so typically only a few dozen states stay alive. What a decision does to a
  state's key is remembered per key, so a later pass with a lower target relabels no key twice.

Everything is done with integer bitmasks (one bit per route, one per city) and local variables
because this runs for every player at every game end and inside bot rollouts. On random loop-rich
networks of up to 32 routes it takes 0.16-0.40 ms of CPU on average, p99 1.2-2.5 ms, and 4.6-5.2 ms
at worst; the 45-wagon Europe network the DP finds hardest takes 2.7 ms
(``benchmarks/scoring_algorithms.py``, at a load average of 7 on 2 cores).
"""

from __future__ import annotations

from collections.abc import Sequence
from heapq import heappop, heappush

__all__ = ["longest_trail"]

# Adjacency entry: (neighbour vertex, edge bit, edge length, edge index).
_Adj = list[list[tuple[int, int, int, int]]]

# Above this many odd cities the exact matching (exponential in that number) is replaced by a greedy
# matching for the lower bound and a nearest-neighbour estimate for the upper bound; the DP keeps the
# answer exact either way, it just has less help.
_EXACT_MATCHING_LIMIT = 14

# How many starting cities (of least degree) the DP tries when choosing its city order.
_ORDER_TRIES = 4

# How far below the ceiling the DP's first floor lies. The matching bound is often one above the
# answer; a first floor of ceiling-1 then finds nothing and the DP runs again, while ceiling-2 finds
# the answer in one pass that is only a little wider (on loop-rich networks half the work of the two).
_FIRST_STEP = 2


def longest_trail(edges: Sequence[tuple[int, int, int]]) -> tuple[int, list[int]]:
    """Return the maximum total length of a trail and its edge indices in walking order.

    ``edges[i] = (u, v, length)`` describes an undirected multigraph: cities may be arbitrary
    (sparse) ints, parallel edges are fine and so are self-loops. Lengths must be non-negative,
    since the "an optimal trail ends at odd cities" argument relies on extensions never hurting.

    The answer is exact. It is also deterministic: every choice depends only on the input order
    (cities are numbered by first appearance, ties go to the earlier component, pair, piece or
    edge), so the same input always yields the same list. Empty input gives ``(0, [])``.
    """
    m = len(edges)
    if m == 0:
        return 0, []
    adj, ends = _build(edges)
    spare = _spare_branches(adj, ends)
    usable = ((1 << m) - 1) & ~spare

    odd_all = 0  # cities of odd degree (a self-loop adds 2, so it cancels out)
    for i, (a, b) in enumerate(ends):
        if usable >> i & 1:
            odd_all ^= (1 << a) ^ (1 << b)

    best_value = -1
    best_trail: list[int] = []
    assigned = spare  # edges already placed in some component, or never useful
    for first in range(m):
        if assigned >> first & 1:
            continue
        anchor = ends[first][0]
        comp, verts, weight = _component(adj, anchor, usable)
        assigned |= comp
        if weight <= best_value:
            # Even the whole component cannot beat what we have: skip the search entirely.
            continue
        value, trail = _solve_component(adj, comp, odd_all & verts, weight, anchor)
        if value > best_value:
            best_value, best_trail = value, trail
    return best_value, best_trail


def _build(edges: Sequence[tuple[int, int, int]]) -> tuple[_Adj, list[tuple[int, int]]]:
    """Adjacency lists over cities renumbered 0..n-1 by first appearance, plus each edge's ends.

    Renumbering keeps the city bitmasks small whatever the ids, and first-appearance order makes
    every later tie-break depend on the input order only.
    """
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
    return adj, ends


def _spare_branches(adj: _Adj, ends: list[tuple[int, int]]) -> int:
    """Edges of dead-end branches that no longest trail needs: all but the two longest per city.

    A dead-end branch is a chain of routes from a degree-1 city through degree-2 cities to a city
    where the network forks. A trail can only enter such a branch to end there, and it has just two
    ends, so at each fork swapping a used branch for a longer unused one never hurts. Dropping the
    rest matters for hubs with many spurs: every spur adds an odd city, and the matching bound is
    exponential in the number of odd cities.
    """
    degree = [0] * len(adj)
    for a, b in ends:
        degree[a] += 1
        degree[b] += 1
    branches: dict[int, list[tuple[int, int, int]]] = {}
    for leaf, row in enumerate(adj):
        if degree[leaf] != 1:
            continue
        cur, bit, total, first = row[0]
        mask = bit
        while degree[cur] == 2:  # walk inwards; a degree-2 city has exactly one other route
            cur, bit, length, i = next(entry for entry in adj[cur] if entry[1] != bit)
            total += length
            first = min(first, i)
            mask |= bit
        if degree[cur] >= 3:  # (== 1: the whole component is one path, nothing to drop)
            branches.setdefault(cur, []).append((-total, first, mask))
    spare = 0
    for found in branches.values():
        if len(found) > 2:
            found.sort()
            for _, _, mask in found[2:]:
                spare |= mask
    return spare


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


def _dijkstra(adj: _Adj, source: int, usable: int) -> tuple[list[int], list[tuple[int, int]]]:
    """Shortest distances from ``source`` over ``usable`` edges, with (previous vertex, edge bit)."""
    n = len(adj)
    inf = 1 << 62
    dist = [inf] * n
    pred = [(-1, 0)] * n
    dist[source] = 0
    heap = [(0, source)]
    while heap:
        d, x = heappop(heap)
        if d > dist[x]:
            continue
        for y, bit, length, _ in adj[x]:
            if usable & bit:
                nd = d + length
                if nd < dist[y]:
                    dist[y] = nd
                    pred[y] = (x, bit)
                    heappush(heap, (nd, y))
    return dist, pred


def _solve_component(adj: _Adj, comp: int, odd: int, weight: int, anchor: int) -> tuple[int, list[int]]:
    """Longest trail inside one connected component (given its edge/odd masks and total length)."""
    if odd.bit_count() <= 2:
        start = (odd & -odd).bit_length() - 1 if odd else anchor
        return weight, _euler(adj, start, comp)

    n = len(adj)
    dist: list[list[int]] = [[]] * n
    pred: list[list[tuple[int, int]]] = [[]] * n
    odd_list = _bits(odd)
    for x in odd_list:
        dist[x], pred[x] = _dijkstra(adj, x, comp)

    if len(odd_list) <= _EXACT_MATCHING_LIMIT:
        cost, removed = _cheapest_join(dist, pred, odd)
        ceiling = weight - cost
    else:
        # Each city left out of the two ends is paired at least as far as its nearest odd city, and
        # each pair is counted from both sides; the two ends are the cities farthest from others.
        nearest = sorted(min(dist[x][y] for y in odd_list if y != x) for x in odd_list)
        ceiling = weight - (sum(nearest[:-2]) + 1) // 2
        removed = _greedy_join(dist, pred, odd_list)

    # Lower bound: delete that join; every piece left has an Euler trail.
    best = -1
    best_trail: list[int] = []
    left = comp & ~removed
    while left:
        piece_start = _lowest_endpoint(adj, left)
        piece, verts, piece_weight = _component(adj, piece_start, left)
        left &= ~piece
        if piece_weight > best:
            best, best_trail = piece_weight, _euler_from_odd(adj, piece, verts, piece_start)
    if best >= ceiling:
        return best, best_trail

    # The DP prunes against its floor, so it is far cheaper with a floor just under the answer.
    # Ask "is anything above ceiling-2, ceiling-6, ceiling-14, ... ?" until the answer is yes (the DP
    # then returns the exact optimum) or the floor reaches the known lower bound.
    steps = _dp_plan(adj, comp, _component(adj, anchor, comp)[1], weight)
    step = _FIRST_STEP
    while True:
        floor = max(ceiling - step, best)
        value, chosen = _frontier_dp(steps, floor, ceiling)
        if chosen:
            chosen_verts = _component(adj, _lowest_endpoint(adj, chosen), chosen)[1]
            return value, _euler_from_odd(adj, chosen, chosen_verts, -1)
        if floor <= best:
            return best, best_trail
        ceiling = floor  # nothing above floor exists
        step *= 2


def _cheapest_join(dist: list[list[int]], pred: list[list[tuple[int, int]]], odd: int) -> tuple[int, int]:
    """Minimum weight and edge mask of a join pairing all odd cities but two (the trail's ends).

    ``cost(group, k)`` is the cheapest way to pair up the cities of ``group`` leaving exactly ``k``
    of them unpaired; recursing on the lowest city (unpaired, or paired with each other one) keeps
    the memo small. One search over all choices of the two ends is much cheaper than a perfect
    matching per pair of ends. The join is the XOR of the matched shortest paths.
    """
    memo: dict[int, int] = {}
    inf = 1 << 62

    def cost(group: int, k: int) -> int:
        if group.bit_count() == k:
            return 0
        key = group << 2 | k
        hit = memo.get(key)
        if hit is not None:
            return hit
        low = group & -group
        rest = group ^ low
        row = dist[low.bit_length() - 1]
        top = cost(rest, k - 1) if k else inf
        r = rest
        while r:
            yb = r & -r
            r ^= yb
            c = row[yb.bit_length() - 1] + cost(rest ^ yb, k)
            if c < top:
                top = c
        memo[key] = top
        return top

    total = cost(odd, 2)
    removed = 0
    group, k = odd, 2
    while group.bit_count() > k:
        low = group & -group
        rest = group ^ low
        x = low.bit_length() - 1
        target = cost(group, k)
        if k and cost(rest, k - 1) == target:
            group, k = rest, k - 1
            continue
        r = rest
        while r:
            yb = r & -r
            r ^= yb
            y = yb.bit_length() - 1
            if dist[x][y] + cost(rest ^ yb, k) == target:
                removed ^= _path(pred[x], x, y)
                group = rest ^ yb
                break
    return total, removed


def _greedy_join(dist: list[list[int]], pred: list[list[tuple[int, int]]], odd_list: list[int]) -> int:
    """A cheap (not minimum) join leaving two odd cities as trail ends, for many odd cities.

    Pairs closest cities first; the most expensive pair is left unjoined to serve as the two ends.
    """
    pairs = sorted((dist[a][b], a, b) for a_pos, a in enumerate(odd_list) for b in odd_list[a_pos + 1 :])
    matched = 0
    chosen: list[tuple[int, int]] = []
    for _, a, b in pairs:
        if not (matched >> a & 1 or matched >> b & 1):
            matched |= (1 << a) | (1 << b)
            chosen.append((a, b))
    removed = 0
    for a, b in chosen[:-1]:
        removed ^= _path(pred[a], a, b)
    return removed


def _path(back: list[tuple[int, int]], source: int, target: int) -> int:
    """Edge mask of the shortest path source→target from a Dijkstra predecessor table."""
    mask = 0
    y = target
    while y != source:
        y, bit = back[y]
        mask ^= bit
    return mask


def _euler_from_odd(adj: _Adj, edges: int, verts: int, fallback: int) -> list[int]:
    """Euler trail of a connected route set with at most two odd cities, from the lower odd one."""
    piece_odd = _odd_of(adj, edges, verts)
    if piece_odd:
        start = (piece_odd & -piece_odd).bit_length() - 1
    else:
        start = fallback if fallback >= 0 else _lowest_endpoint(adj, edges)
    return _euler(adj, start, edges)


def _elimination_order(adj: _Adj, comp: int, vlist: list[int], degree: list[int], first: int) -> list[int]:
    """City order for the frontier DP starting at ``first``: next, the city most tied to the placed.

    This (maximum-cardinality search) keeps the frontier narrow on planar-ish maps; ties go to the
    city with fewer routes still to come, then the lowest index, for determinism.
    """
    conn = dict.fromkeys(vlist, 0)
    remaining = set(vlist)
    nxt = first
    order = []
    while True:
        order.append(nxt)
        remaining.discard(nxt)
        if not remaining:
            return order
        for y, bit, _, _ in adj[nxt]:
            if comp & bit and y in remaining:
                conn[y] += 1
        nxt = min(remaining, key=lambda x: (-conn[x], degree[x] - conn[x], x))


# One route decision of a DP step: (frontier position of the other end, edge bit, length, length still
# undecided afterwards, memo of the keys the route joins states into).
_Route = tuple[int, int, int, int, dict[tuple[int, ...], tuple[int, ...]]]

# One DP step: (frontier position of the new city, its routes to decide, frontier positions to forget
# in turn with a memo each of what forgetting does to a key, per remaining frontier city (parity,
# shortest length) of its undecided non-loop routes, sorted shortest lengths of the not-yet-placed odd
# cities, length still undecided after the step, memo of the parity slack of each key).
_Step = tuple[
    int,
    list[_Route],
    list[tuple[int, dict[tuple[int, ...], tuple[int, ...]]]],
    list[tuple[int, int]],
    list[int],
    int,
    dict[tuple[int, ...], int],
]

# What forgetting a frontier city does to a state, besides giving a new key: the state is dropped
# (its chosen routes could no longer become one trail) or its piece is finished (a candidate answer).
_DROP: tuple[int, ...] = ()
_FINAL: tuple[int, ...] = (-1,)


def _dp_plan(adj: _Adj, comp: int, verts: int, weight: int) -> list[_Step]:
    """Precompute the city order and per-step bookkeeping shared by every DP pass.

    Several greedy orders (one per starting city) are tried and the one with the smallest estimated
    state count kept: the DP cost is exponential in the frontier width, the ordering is not.
    """
    vlist = _bits(verts)
    degree = [0] * len(adj)
    parity = [0] * len(adj)
    shortest = [1 << 40] * len(adj)
    for x in vlist:
        for y, bit, length, _ in adj[x]:
            if comp & bit:
                degree[x] += 1
                if y != x:
                    parity[x] ^= 1
                    shortest[x] = min(shortest[x], length)

    best_order: list[int] = []
    best_cost = -1
    low = min(degree[x] for x in vlist)
    for first in [x for x in vlist if degree[x] == low][:_ORDER_TRIES]:
        order = _elimination_order(adj, comp, vlist, degree, first)
        cost = 0
        placed = 0
        width = 0  # frontier size
        left = degree[:]
        for x in order:
            placed |= 1 << x
            width += 1
            for y, bit, _, _ in adj[x]:
                if comp & bit and placed >> y & 1:
                    left[y] -= 1
                    if not left[y]:
                        width -= 1
                    if y != x:
                        left[x] -= 1
                        if not left[x]:
                            width -= 1
                    cost += 4**width  # every route decision touches every state of the frontier
        if best_cost < 0 or cost < best_cost:
            best_order, best_cost = order, cost

    steps: list[_Step] = []
    frontier: list[int] = []
    deg_left = degree[:]
    placed = 0
    rem = weight
    for x in best_order:
        placed |= 1 << x
        px = len(frontier)
        frontier.append(x)
        edges: list[tuple[int, int, int, int, dict[tuple[int, ...], tuple[int, ...]]]] = []
        for y, bit, length, _ in adj[x]:
            if comp & bit and placed >> y & 1:
                rem -= length
                edges.append((frontier.index(y), bit, length, rem, {}))
                deg_left[y] -= 1
                if y != x:
                    deg_left[x] -= 1
        forgets: list[tuple[int, dict[tuple[int, ...], tuple[int, ...]]]] = []
        for z in [z for z in frontier if not deg_left[z]]:
            p = frontier.index(z)
            frontier.pop(p)
            forgets.append((p, {}))
        info = []
        for z in frontier:
            par = 0
            m = 1 << 40
            for y, bit, length, _ in adj[z]:
                if comp & bit and y != z and not placed >> y & 1:
                    par ^= 1
                    m = min(m, length)
            info.append((par, m))
        static = sorted(shortest[z] for z in vlist if not placed >> z & 1 and parity[z])
        steps.append((px, edges, forgets, info, static, rem, {}))
    return steps


def _frontier_dp(steps: list[_Step], floor: int, ceiling: int) -> tuple[int, int]:
    """Heaviest connected route set with at most two odd cities, if heavier than ``floor``.

    Returns ``(value, edge mask)``, or ``(floor, 0)`` when nothing beats ``floor``; ``ceiling`` is a
    known upper bound that allows stopping early.

    A state is a tuple with one code per frontier city (0: no chosen route yet, otherwise
    ``piece_label << 1 | parity`` with labels numbered by first appearance so equal situations
    share a key) followed by the number of odd cities already forgotten. A piece whose last city is
    forgotten is finished: it is a candidate answer if nothing else was chosen, else the state is
    invalid (the chosen routes would be disconnected). A state survives only if its value plus the
    routes not yet decided, minus what parity forces to be skipped, could beat the best answer.

    What a decision or a forgotten city does to a key, and a key's parity slack, depend on the key
    alone, so they are worked out once per key and step (``_joined``, ``_forgotten``,
    ``_parity_slack``) and kept in the plan: the passes with lower floors meet mostly the same keys,
    and a dictionary look-up is several times cheaper than relabelling a key.
    """
    best, best_mask = floor, 0
    states: dict[tuple[int, ...], tuple[int, int]] = {(0,): (0, 0)}
    for px, edges, forgets, info, static, rem_after, slack_memo in steps:
        states = {(*key[:-1], 0, key[-1]): item for key, item in states.items()}
        for py, bit, length, rem, join_memo in edges:
            new: dict[tuple[int, ...], tuple[int, int]] = {}
            for key, item in states.items():
                val = item[0]
                if val + rem > best:  # leave the route out
                    old = new.get(key)
                    if old is None or old[0] < val:
                        new[key] = item
                if val + length + rem <= best:
                    continue
                nk = join_memo.get(key)
                if nk is None:
                    nk = join_memo[key] = _joined(key, px, py)
                nv = val + length
                old = new.get(nk)
                if old is None or old[0] < nv:
                    new[nk] = (nv, item[1] | bit)
            states = new

        for p, forget_memo in forgets:
            new = {}
            for key, item in states.items():
                nk = forget_memo.get(key)
                if nk is None:
                    nk = forget_memo[key] = _forgotten(key, p)
                if nk is _DROP:
                    continue
                val = item[0]
                if nk is _FINAL:
                    if val > best:
                        best, best_mask = val, item[1]
                        if best >= ceiling:
                            return best, best_mask
                    continue
                old = new.get(nk)
                if old is None or old[0] < val:
                    new[nk] = item
            states = new

        new = {}
        for key, item in states.items():
            slack = slack_memo.get(key)
            if slack is None:
                slack = slack_memo[key] = rem_after - _parity_need(key, info, static)
            if item[0] + slack > best:
                new[key] = item
        states = new
    return best, best_mask


def _joined(key: tuple[int, ...], px: int, py: int) -> tuple[int, ...]:
    """The key after choosing a route between frontier positions ``px`` and ``py``.

    The route's ends flip parity and their pieces merge (a self-loop keeps parity and only starts a
    piece at a city that had none).
    """
    codes = list(key)
    cx = codes[px]
    if py == px:  # self-loop: joins nothing, keeps parity
        if not cx:
            codes[px] = (max(codes[:-1]) >> 1) + 1 << 1
    else:
        cy = codes[py]
        lx, ly = cx >> 1, cy >> 1
        if lx:
            lab = lx
            if ly and ly != lx:
                for q in range(len(codes) - 1):
                    if codes[q] >> 1 == ly:
                        codes[q] = lx << 1 | (codes[q] & 1)
        else:
            lab = ly or (max(codes[:-1]) >> 1) + 1
        codes[px] = lab << 1 | (~cx & 1)
        codes[py] = lab << 1 | (~codes[py] & 1)
    return _canonical(codes)


def _forgotten(key: tuple[int, ...], p: int) -> tuple[int, ...]:
    """The key after frontier position ``p`` is forgotten, or ``_DROP`` / ``_FINAL``.

    A forgotten odd city is a trail end, and a trail has two. A forgotten city that was the last of
    its piece finishes the piece: an answer when nothing else was chosen (``_FINAL``), else the
    chosen routes can never be one trail (``_DROP``).
    """
    c = key[p]
    rest = key[:p] + key[p + 1 :]
    if not c:
        return rest  # dropping an untouched city keeps the labels in first-seen order
    odd_gone = key[-1] + (c & 1)
    if odd_gone > 2:
        return _DROP
    lab = c >> 1
    if any(q >> 1 == lab for q in rest[:-1]):
        return _canonical([*rest[:-1], odd_gone])
    return _DROP if any(rest[:-1]) else _FINAL


def _parity_need(key: tuple[int, ...], info: list[tuple[int, int]], static: list[int]) -> int:
    """Least length that parity forces a state to leave out of the routes still undecided.

    A city that would end odd if every remaining route were taken needs one of its remaining routes
    skipped, unless it is one of the (at most two) trail ends; a skipped route serves at most two
    such cities, so half the shortest such routes is a lower bound.
    """
    ms = [m for (par, m), c in zip(info, key, strict=False) if (c ^ par) & 1]
    k = len(ms) + len(static) - 2 + key[-1]
    if k <= 0:
        return 0
    return (sum(sorted(ms + static)[:k]) + 1) // 2


def _canonical(codes: list[int]) -> tuple[int, ...]:
    """Renumber piece labels by first appearance so equivalent states get the same key."""
    relabel: dict[int, int] = {}
    out = []
    for c in codes[:-1]:
        if c:
            lab = relabel.get(c >> 1)
            if lab is None:
                lab = relabel[c >> 1] = len(relabel) + 1
            out.append(lab << 1 | (c & 1))
        else:
            out.append(0)
    out.append(codes[-1])
    return tuple(out)


def _bits(mask: int) -> list[int]:
    """Indices of the set bits of ``mask``, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _odd_of(adj: _Adj, edges: int, verts: int) -> int:
    """Odd-degree cities of the subgraph ``edges`` (whose cities are ``verts``)."""
    odd = 0
    vm = verts
    while vm:
        x = (vm & -vm).bit_length() - 1
        vm &= vm - 1
        for y, bit, _, _ in adj[x]:
            if edges & bit and y != x:
                odd ^= 1 << x
    return odd


def _lowest_endpoint(adj: _Adj, edges: int) -> int:
    """An endpoint of the lowest-index edge in ``edges`` (a deterministic piece anchor)."""
    low = edges & -edges
    for x, row in enumerate(adj):
        for _, bit, _, _ in row:
            if bit == low:
                return x
    raise AssertionError("edge mask not in graph")  # pragma: no cover
