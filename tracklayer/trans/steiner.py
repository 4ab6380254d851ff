"""Exact minimum Steiner trees for Trans Europa / Trans America scoring.

At the end of a round every player who did not connect all their cities scores by "the fewest rails
they would still need". That number is the weight of a minimum Steiner tree whose terminals are the
player's start-marker point and their city points, where built segments are free. The rules demand
the exact value (a heuristic could cost a player prestige points), so this module implements the
Erickson–Monma–Veinott formulation of the Dreyfus–Wagner dynamic programme, which is exact and
polynomial for a fixed number of terminals (at most 6 in the game, up to about 8 supported well).

The function works on plain integer graph data so that it does not depend on how the game engine
represents the board; the engine converts its board to point ids and edge ids.

Work is O(3^(k-1)·n + 2^(k-1)·m) for k distinct terminals, n points and m lines. Compiled, for up to 6
terminals: 1.5-2.2 ms of CPU on average, p99 2.3-4.6 ms, at worst 3.4 ms on Trans America and 5.5 ms on
Trans Europa (``benchmarks/steiner_worst_case.py``, 1,050 cases a board, load average 0.6 on 2 cores).
Speed matters because scoring runs for every unfinished player every round and bots may call it
inside search:

* Built (zero-cost) segments are contracted first: a whole built network becomes one node, so
  terminals already joined collapse into one and the remaining graph only has positive costs. The
  contraction reads each line once (a board's scan of its lines is remembered) and is shared by all
  the terminal sets of one call (``min_steiner_many``: every player at the end of a round).
* Labels that cannot be part of an optimal tree are not grown (A*-like pruning: half the round trip
  through two of the terminals still to join as lower bound, ``_TriangleBounds``, and the cost of a
  shortest-path-heuristic tree as upper bound, ``_path_heuristic_bound``); the answer and the tree
  are exactly those of the full DP (the argument is in ``_steiner_on_positive_graph``). Subsets are
  merged only at the nodes where both parts may be of use (``_merge_useful``).
* Fixing one terminal as the root means the subset DP runs over the other k-1 terminals only; the
  root's own shortest-path distances finish the last subset without a full relaxation.
* Shortest-path relaxation uses Dial's buckets, since board costs are 1 or 2 (a heap is kept for
  callers with large costs).
* Without the pruning (large costs) the subset merge step is done column-wise with ``map`` over
  whole label lists, which keeps the inner loop in C instead of a Python loop over nodes.
* Compiled, the shortest-path and merge loops of the pruned DP run on C integers (``@cython.locals``);
  the labels there never exceed ``_INF``, which fits a C ``long long`` with room for a bound added.
* No back-pointers are stored during the DP. One optimal tree is recovered afterwards by checking
  which choice attains each stored label; that touches only the nodes of the final tree.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Sequence
from itertools import repeat
from operator import add, rshift

import cython

__all__ = ["SteinerInfeasibleError", "min_steiner", "min_steiner_many"]

# Larger than any reachable label: labels are sums of at most (points x terminals) edge costs, and
# Python ints never overflow, so sums of two INF values simply stay >= INF.
_INF = 1 << 62
INF = cython.declare(cython.longlong, _INF)  # the same, as a C constant for the typed loops


class SteinerInfeasibleError(ValueError):
    """Raised when unusable lines leave some terminals in different parts of the board.

    Raising is safer than returning a sentinel number: a silently huge "missing rails" count would
    quietly score 0 prestige, while a disconnected board is a bug in the caller's special-card
    handling and should be noticed.
    """


def min_steiner(
    n_points: int,
    adjacency: Sequence[Sequence[tuple[int, int]]],
    edge_cost: Sequence[int | None],
    terminals: Sequence[int],
) -> tuple[int, list[int]]:
    """Return (minimum total cost, edge ids of one optimal tree, only edges with cost > 0).

    ``adjacency[p]`` lists ``(neighbour point, edge id)`` for point ``p``; every undirected edge is
    expected in both endpoints' lists (an edge listed only once still works in both directions).
    ``edge_cost[e]`` is 0 for a built segment, 1 or 2 for a free single or double line; any other
    non-negative integer works too. ``None`` marks an unusable line (for special rules that forbid
    lines): such edges are ignored entirely. Use ``None`` rather than a large sentinel cost, which
    would be treated as a real (expensive) line. ``terminals`` may contain duplicates and any
    number of points, but the work grows as 3^k, so keep it to about 8.

    Only positive-cost edges are returned because those are the rails still missing, which is what a
    UI draws; the zero-cost edges that the tree uses are the already-built network. The edge ids are
    sorted so the result is deterministic for tests and replays.

    Raises ``SteinerInfeasibleError`` if the usable lines do not connect all terminals, and
    ``ValueError`` for malformed input (negative cost, point id out of range).
    """
    return min_steiner_many(n_points, adjacency, edge_cost, [terminals])[0]


def min_steiner_many(
    n_points: int,
    adjacency: Sequence[Sequence[tuple[int, int]]],
    edge_cost: Sequence[int | None],
    terminal_sets: Sequence[Sequence[int]],
) -> list[tuple[int, list[int]]]:
    """:func:`min_steiner` of each terminal set on the same graph and costs, in order.

    The built lines are contracted once for all of them (the end of a round scores every player on
    the same board); each answer is exactly the one :func:`min_steiner` gives for that set alone.
    """
    if len(adjacency) != n_points:
        raise ValueError(f"adjacency has {len(adjacency)} entries for {n_points} points")
    for terminals in terminal_sets:
        for t in terminals:
            if not 0 <= t < n_points:
                raise ValueError(f"terminal {t} is not a point id in 0..{n_points - 1}")

    scan = _edge_scan(adjacency)
    comp, n_nodes = _contract_zero_edges(n_points, scan, edge_cost)
    graph: tuple[list[list[tuple[int, int]]], dict[int, int]] | None = None
    max_cost = 0
    out: list[tuple[int, list[int]]] = []
    for terminals in terminal_sets:
        term_nodes = list(dict.fromkeys(comp[t] for t in terminals))
        if len(term_nodes) <= 1:
            out.append((0, []))
            continue
        if graph is None:
            graph = _contracted_graph(scan, edge_cost, comp, n_nodes)
            max_cost = _max_cost(graph[0])
        adj, edge_of = graph
        cost, arcs = _steiner_on_positive_graph(n_nodes, adj, term_nodes, max_cost=max_cost)
        out.append((cost, sorted(edge_of[_pair_key(u, v, n_nodes)] for u, v in arcs)))
    return out


# Scans of immutable adjacency tables (a board's), by identity; the table is kept so its id stays its own.
_SCANS: dict[int, tuple[Sequence[Sequence[tuple[int, int]]], list[tuple[int, int, int]]]] = {}


def _edge_scan(adjacency: Sequence[Sequence[tuple[int, int]]]) -> list[tuple[int, int, int]]:
    """``(p, q, e)`` for each line in the order the points' lists are read, once per line and its two
    ends (a line listed at both ends is met first at its lower point, and the second listing adds
    nothing). Half the entries of the full table, in the order that decides which of several equal
    choices the solver reports.

    Remembered for a tuple of tuples (a board's table, which cannot change); worked out again for
    anything else (a caller may edit lists between calls).
    """
    frozen = isinstance(adjacency, tuple) and all(isinstance(arcs, tuple) for arcs in adjacency)
    if frozen:
        hit = _SCANS.get(id(adjacency))
        if hit is not None and hit[0] is adjacency:
            return hit[1]
    seen: set[tuple[int, int, int]] = set()
    scan = []
    for p, arcs in enumerate(adjacency):
        for q, e in arcs:
            key = (e, p, q) if p <= q else (e, q, p)
            if key not in seen:
                seen.add(key)
                scan.append((p, q, e))
    if frozen:
        if len(_SCANS) >= 16:
            _SCANS.clear()
        _SCANS[id(adjacency)] = (adjacency, scan)
    return scan


@cython.locals(r=cython.Py_ssize_t, n_nodes=cython.Py_ssize_t, parent=list, comp=list)
def _contract_zero_edges(
    n_points: int,
    scan: list[tuple[int, int, int]],
    edge_cost: Sequence[int | None],
) -> tuple[list[int], int]:
    """Map each point to a node id where points joined by built segments share one node.

    Built rails are free and any player may use them, so a built network behaves exactly like a
    single point for the missing-rail count; collapsing it shrinks the DP and removes zero-weight
    edges, which the reconstruction relies on (every step along a path strictly lowers the label).
    Nodes are numbered in the order of their lowest point.
    """
    parent = list(range(n_points))
    for p, q, e in scan:
        c = edge_cost[e]
        if c is None:
            continue
        if c < 0:
            raise ValueError(f"edge {e} has negative cost {c}")
        if not 0 <= q < n_points:
            raise ValueError(f"edge {e} leads to point {q}, not in 0..{n_points - 1}")
        if c == 0:
            while parent[p] != p:
                p = parent[p]
            while parent[q] != q:
                q = parent[q]
            if p != q:
                parent[max(p, q)] = min(p, q)  # the root of a set is its lowest point
    comp = [0] * n_points
    n_nodes = 0
    for p in range(n_points):
        r = p
        while parent[r] != r:
            r = parent[r]
        if r == p:
            comp[p] = n_nodes
            n_nodes += 1
        else:
            comp[p] = comp[r]  # r < p: numbered already
    return comp, n_nodes


@cython.locals(n_nodes=cython.Py_ssize_t, cp=cython.Py_ssize_t, cq=cython.Py_ssize_t, u=cython.Py_ssize_t,
               v=cython.Py_ssize_t, key=cython.longlong, comp=list, adj=list)
def _contracted_graph(
    scan: list[tuple[int, int, int]],
    edge_cost: Sequence[int | None],
    comp: list[int],
    n_nodes: int,
) -> tuple[list[list[tuple[int, int]]], dict[int, int]]:
    """Build the positive-cost graph between contracted nodes, keeping the cheapest parallel line.

    After contraction two nodes may be joined by several lines (e.g. two built networks that run
    side by side); only the cheapest can be in an optimal tree, and keeping one keeps the Dijkstra
    loops short. The returned map gives the original edge id to report per node pair, keyed by
    ``_pair_key`` (an int key hashes faster than a tuple, and this loop touches every line).
    """
    best: dict[int, tuple[int, int]] = {}
    for p, q, e in scan:
        c = edge_cost[e]
        if not c:
            continue  # unusable (None) or built (0, already contracted)
        cp = comp[p]
        cq = comp[q]
        if cp == cq:
            continue
        key = cp * n_nodes + cq if cp < cq else cq * n_nodes + cp
        old = best.get(key)
        if old is None or (c, e) < old:
            best[key] = (c, e)
    adj: list[list[tuple[int, int]]] = [[] for _ in range(n_nodes)]
    edge_of: dict[int, int] = {}
    for key, (c, e) in best.items():
        u = key // n_nodes
        v = key % n_nodes
        adj[u].append((v, c))
        adj[v].append((u, c))
        edge_of[key] = e
    return adj, edge_of


def _max_cost(adj: list[list[tuple[int, int]]]) -> int:
    top = 0
    for arcs in adj:
        for _, w in arcs:
            if w > top:
                top = w
    return top


def _pair_key(u: int, v: int, n_nodes: int) -> int:
    """Order-independent int key of a node pair, matching ``_contracted_graph``'s map."""
    return u * n_nodes + v if u < v else v * n_nodes + u


# Above this edge cost Dial's buckets would mostly be empty, so the heap is faster and safer.
_MAX_BUCKET_COST = 16


def _relax_buckets(labels: list[int], adj: list[list[tuple[int, int]]]) -> list[int]:
    """Multi-source Dijkstra: lower every label to min over u of (labels[u] + dist(u, v)).

    This is the "grow a path from the best merge point" half of the EMV recurrence, and the hot
    loop of the whole solver. Board costs are tiny integers (1 or 2), so Dial's buckets replace the
    heap: labels span only a few dozen values, and list appends are about twice as fast as heap
    pushes and pops in CPython.
    """
    dist = labels[:]
    finite = [d for d in dist if d < _INF]
    if not finite:
        return dist  # a merge of terminals in different parts of a disconnected board
    base = min(finite)
    buckets: list[list[int]] = [[] for _ in range(max(finite) - base + 1)]
    for v, d in enumerate(dist):
        if d < _INF:
            buckets[d - base].append(v)
    i = 0
    while i < len(buckets):
        d = i + base
        for v in buckets[i]:
            if dist[v] != d:
                continue  # stale entry: v was lowered after it was put here
            for u, w in adj[v]:
                nd = d + w
                if nd < dist[u]:
                    dist[u] = nd
                    j = nd - base
                    while j >= len(buckets):
                        buckets.append([])
                    buckets[j].append(u)
        i += 1
    return dist


@cython.locals(src=cython.int, n=cython.int, max_cost=cython.int, dist=list, buckets=list, bucket=list,
               i=cython.Py_ssize_t, v=cython.int, u=cython.int, w=cython.int, nd=cython.Py_ssize_t, dv=cython.longlong)
def _distances(src: int, adj: list[list[tuple[int, int]]], n: int, max_cost: int) -> list[int]:
    """``_relax_buckets`` of a single source (``src`` at 0, every other label infinite): shortest
    distances from ``src``, the labels of one terminal and of the root.

    With one source the buckets start at 0 and need no scan of the labels, and keeping ``max_cost``
    buckets beyond the one being read makes room for every push without a length check per push.
    """
    dist = [_INF] * n
    dist[src] = 0
    buckets: list[list[int]] = [[src]]
    i = 0
    while i < len(buckets):
        bucket = buckets[i]
        if bucket:
            while len(buckets) <= i + max_cost:
                buckets.append([])
            for v in bucket:
                dv = dist[v]
                if dv != i:
                    continue  # stale entry: v was lowered after it was put here
                for u, w in adj[v]:
                    nd = i + w
                    dv = dist[u]
                    if nd < dv:
                        dist[u] = nd
                        buckets[nd].append(u)
        i += 1
    return dist


@cython.locals(bound=cython.longlong, dist=list, lb=list, buckets=list, bucket=list, grown=list, start=list,
               i=cython.Py_ssize_t, v=cython.int, u=cython.int, w=cython.longlong, d=cython.longlong,
               nd=cython.longlong, base=cython.longlong, dv=cython.longlong, lv=cython.longlong)
def _relax_buckets_pruned(
    labels: list[int], adj: list[list[tuple[int, int]]], lb: list[int], bound: int, nodes: Iterable[int]
) -> tuple[list[int], set[int]]:
    """``_relax_buckets`` that grows no label ``d`` at a node ``v`` with ``d + lb[v] > bound``.

    ``lb[v]`` is a lower bound on what joining the rest of the terminals to ``v`` costs, consistent
    along lines (``lb[u] <= lb[v] + cost``), so every label on a shortest path to a label that is
    grown is grown as well: those come out exact, the others are left at a value no lower than
    their true one (see ``_steiner_on_positive_graph`` for why that gives the same tree).

    ``nodes`` holds every node whose label is finite (the growth starts from them). Also returns
    the nodes whose label was grown or kept under the bound: every label of use is among them.
    """
    dist = labels[:]
    start = []
    base = INF
    for v in nodes:
        dv = dist[v]
        lv = lb[v]
        if dv + lv <= bound:  # both below INF: no overflow
            start.append(v)
            if dv < base:
                base = dv
    if not start:
        return dist, set()
    buckets: list[list[int]] = [[] for _ in range(bound - base + 1)]
    for v in start:
        dv = dist[v]
        buckets[dv - base].append(v)
    grown = []
    for i in range(len(buckets)):
        bucket = buckets[i]
        d = i + base
        for v in bucket:
            dv = dist[v]
            if dv != d:
                continue  # stale entry: v was lowered after it was put here
            grown.append(v)
            for u, w in adj[v]:
                nd = d + w
                dv = dist[u]
                if nd < dv:
                    dist[u] = nd
                    lv = lb[u]
                    if nd + lv <= bound:
                        buckets[nd - base].append(u)
    return dist, set(grown)


def _spanning_bound(root_dist: list[int], single: list[list[int]], others: list[int]) -> int:
    """Cost of some tree joining all terminals: a minimum spanning tree of their shortest distances.

    The shortest paths of its pairs together join every terminal, so a tree inside their union costs
    at most their sum. ``single[i]`` are the distances from ``others[i]``; ``root_dist`` from the root.
    """
    near = [root_dist[t] for t in others]  # Prim: each terminal's distance to the tree so far
    todo = list(range(len(others)))
    total = 0
    while todo:
        i = min(todo, key=near.__getitem__)
        total += near[i]
        todo.remove(i)
        dist = single[i]
        for j in todo:
            near[j] = min(near[j], dist[others[j]])
    return total


class _TriangleBounds:
    """Lower bounds on joining a node to the root and a set of the other terminals, for the pruning.

    For two of those terminals p and q, any tree joining v, p and q is walked round in twice its
    cost, and that closed walk is at least d(v, p) + d(p, q) + d(q, v): half of it (rounded up) is a
    lower bound, consistent along lines. Taking p and q as the first two of the set in a fixed order
    keeps what ``_steiner_on_positive_graph`` needs when a set grows by the terminals of a subtree b
    at v: the new first two are the old ones (same bound), or both in b (at most b's label), or one
    in b and the old first f (at most b's label plus d(v, f), which the old bound covers since
    d(v, f) <= d(f, q) + d(q, v)). The larger of two such bounds keeps all of that too.

    It is stronger than the farther of the two distances (one branch of the tree), and on the
    boards it leaves about half the labels to grow with six spread-out terminals, at the price of
    one column per pair of terminals met (a ``map`` in C, shared by every set with that pair).
    The two orders: the root first, then the others farthest from the root first (the pair then
    spans the tree's far side); and all terminals by their total distance to the others, largest
    first (the pair lies far apart).
    """

    def __init__(self, dist: list[list[int]], term_nodes: list[int]) -> None:
        self.dist = dist  # dist[i]: distances from term_nodes[i] (0: the root)
        self.between = [[row[t] for t in term_nodes] for row in dist]
        k = len(dist)
        self.orders = [
            [0, *sorted(range(1, k), key=lambda i: -dist[0][term_nodes[i]])],
            sorted(range(k), key=lambda i: -sum(self.between[i])),
        ]
        self.pairs: dict[tuple[int, int], list[int]] = {}
        self.columns: dict[tuple[tuple[int, int], ...], list[int]] = {}

    def outside(self, rest: int) -> list[int]:
        """Bound per node for the root and the terminals whose bits (after the root's) are in ``rest``."""
        members = [0] + [i + 1 for i in range(len(self.dist) - 1) if rest >> i & 1]
        chosen = tuple(_first_two(order, members) for order in self.orders)
        hit = self.columns.get(chosen)
        if hit is None:
            cols = [self._triangle(*pair) for pair in dict.fromkeys(chosen)]
            hit = self.columns[chosen] = list(map(max, *cols)) if len(cols) > 1 else cols[0]
        return hit

    def _triangle(self, p: int, q: int) -> list[int]:
        """Half the round trip v, p, q, v (rounded up) for every node v."""
        hit = self.pairs.get((p, q))
        if hit is None:
            twice = map(add, map(add, self.dist[p], self.dist[q]), repeat(self.between[p][q] + 1))
            hit = self.pairs[(p, q)] = list(map(rshift, twice, repeat(1)))
        return hit


def _first_two(order: list[int], members: list[int]) -> tuple[int, int]:
    """The first two of ``members`` in ``order``, lower index first (the pair's cache key)."""
    p, q = [i for i in order if i in members][:2]
    return (p, q) if p < q else (q, p)


def _path_heuristic_bound(dist: list[list[int]], term_nodes: list[int], adj: list[list[tuple[int, int]]]) -> int:
    """Cost of a good tree joining all terminals: the best shortest-path heuristic over every start.

    The pruning keeps only labels that could fit under the cost of a known tree, so a tree close to
    the optimum cuts the labels grown several-fold; the spanning tree of ``_spanning_bound`` counts
    paths that overlap in full and is often 4-6 rails too high with spread-out terminals. This one
    (Takahashi and Matsuyama) grows a tree from one terminal, each time adding the terminal nearest
    to the tree by its shortest path; it is usually optimal or one rail off on the boards. The
    terminals' own distances (``dist[i]`` from ``term_nodes[i]``) give both the nearest tree node
    and the path back, so no further shortest-path search is needed.
    """
    k = len(term_nodes)
    best = _INF
    for start in range(k):
        # near[i]: (distance from terminal i to the tree, the tree node at that distance)
        near = [(dist[i][term_nodes[start]], term_nodes[start]) for i in range(k)]
        todo = [i for i in range(k) if i != start]
        total = 0
        while todo and total < best:
            i = min(todo, key=near.__getitem__)
            todo.remove(i)
            d_i = dist[i]
            v = near[i][1]
            total += d_i[v]
            while d_i[v]:  # walk the shortest path from the tree down to terminal i, adding its nodes
                for u, w in adj[v]:
                    if d_i[u] + w == d_i[v]:
                        v = u
                        break
                for j in todo:
                    if dist[j][v] < near[j][0]:
                        near[j] = (dist[j][v], v)
        if total < best:
            best = total
    return best


def _relax_heap(labels: list[int], adj: list[list[tuple[int, int]]]) -> list[int]:
    """Same as ``_relax_buckets`` for callers with large costs, where buckets would waste memory."""
    dist = labels[:]
    heap = [(d, v) for v, d in enumerate(dist) if d < _INF]
    heapq.heapify(heap)
    pop = heapq.heappop
    push = heapq.heappush
    while heap:
        d, v = pop(heap)
        if d > dist[v]:
            continue
        for u, w in adj[v]:
            nd = d + w
            if nd < dist[u]:
                dist[u] = nd
                push(heap, (nd, u))
    return dist


def _steiner_on_positive_graph(
    n: int,
    adj: list[list[tuple[int, int]]],
    term_nodes: list[int],
    prune: bool = True,
    max_cost: int | None = None,
) -> tuple[int, list[tuple[int, int]]]:
    """Run the EMV subset DP on a graph with positive costs; return (cost, tree arcs).

    ``prune=False`` computes every label in full (the reference the tests compare the pruned DP with).
    ``max_cost`` is the largest cost in ``adj`` (worked out when not given).

    ``dp[S][v]`` is the cheapest tree spanning the non-root terminals in bitmask ``S`` plus node
    ``v``; ``seed[S][v]`` is its value restricted to trees in which ``v`` joins two subtrees (or,
    for a single terminal, the tree that is just that terminal). ``dp[S]`` is ``seed[S]`` relaxed
    along shortest paths. Both are kept so the tree can be rebuilt without back-pointers.
    """
    if max_cost is None:
        max_cost = _max_cost(adj)
    relax = _relax_buckets if max_cost <= _MAX_BUCKET_COST else _relax_heap
    root = term_nodes[0]
    others = term_nodes[1:]
    k = len(others)
    full = (1 << k) - 1

    dp: list[list[int]] = [[] for _ in range(full + 1)]
    seed: list[list[int]] = [[] for _ in range(full + 1)]
    for i, t in enumerate(others):
        s = [_INF] * n
        s[t] = 0
        seed[1 << i] = s
        # With one non-root terminal the root's distances alone give the answer.
        if k == 1:
            dp[1 << i] = s
        elif relax is _relax_buckets:
            dp[1 << i] = _distances(t, adj, n, max_cost)
        else:
            dp[1 << i] = relax(s, adj)

    root_seed = [_INF] * n
    root_seed[root] = 0
    root_dist = _distances(root, adj, n, max_cost) if relax is _relax_buckets else relax(root_seed, adj)

    # Pruning (A*-like, the "future costs" of Hougardy, Silvanus and Vygen's Dijkstra-Steiner): a
    # label dp[S][v] can only matter if dp[S][v] + lb_S(v) <= U, where U is the cost of some tree and
    # lb_S(v) is a lower bound on joining v to R_S, the root and the terminals outside S
    # (``_TriangleBounds``: half the round trip from v through the first two members of R_S in a
    # fixed order, the larger of two orders). What the argument below needs of lb_S:
    # (i) lb_S(v) is at most the cost of any tree joining v to R_S;
    # (ii) it is consistent, lb_S(u) <= lb_S(v) + cost(u, v);
    # (iii) for a split S = a + b, lb_a(v) <= dp[b][v] + lb_S(v) (R_a is R_S plus the terminals of b).
    # Labels of no use are not grown: they stay at a value no lower than their true one. The answer
    # and the tree are exactly those of the full DP, because every label that choosing best_v and
    # rebuilding the tree read is of use, and a label left too high can never make a comparison there
    # true (true labels are minima, so the true side is never smaller):
    # * a merge point v of an optimal tree (seed_full[v] + root_dist[v] = opt) splits into parts a, b
    #   with dp[a][v] + lb_a(v) <= dp[a][v] + dp[b][v] + root_dist[v] = opt <= U, by (i): part b and
    #   the path to the root join v to R_a;
    # * along a shortest path to a label of use, lb grows by at most the lines walked (ii), so the
    #   labels on the path are of use too, and so are the parts a, b of the merge it starts from (iii);
    # * the labels the rebuilding reads lie on the optimal tree: the rest of the tree joins every
    #   terminal outside the part to its node, so the part's label plus its lb is at most opt (i);
    # * a neighbour u that the walk back from a label of use may step to (dp[S][u] + w = dp[S][v])
    #   has dp[S][u] + lb_S(u) <= dp[S][v] + lb_S(v) (ii).
    # Not done without Dial's buckets (large costs): exact labels everywhere are a valid answer too.
    pruned = prune and k > 2 and relax is _relax_buckets
    if pruned:
        single = [dp[1 << i] for i in range(k)]
        bound = _spanning_bound(root_dist, single, others)
        pruned = bound < _INF
        if pruned:
            bound = min(bound, _path_heuristic_bound([root_dist, *single], term_nodes, adj))
        bounds = _TriangleBounds([root_dist, *single], term_nodes)

    # Masks in increasing numeric order visit every proper subset before its superset.
    if pruned:
        # useful[S]: nodes whose dp[S] label may be of use (a superset of those that are). A merge
        # of use at v has both parts of use at v, so seeds are only needed where two useful sets meet.
        useful: list[set[int]] = [set() for _ in range(full + 1)]
        for i in range(k):
            lb = bounds.outside(full ^ 1 << i)
            useful[1 << i] = {v for v, x in enumerate(map(add, single[i], lb)) if x <= bound}
    for mask in range(1, full + 1):
        if mask & (mask - 1) == 0:
            continue
        if not pruned:
            seed[mask] = _merge(mask, dp)
            if mask != full:
                dp[mask] = relax(seed[mask], adj)
            continue
        seed[mask], nodes = _merge_useful(mask, dp, useful, n)
        if mask != full:
            dp[mask], useful[mask] = _relax_buckets_pruned(seed[mask], adj, bounds.outside(full ^ mask), bound, nodes)

    # The full subset only needs its value at the root, and dp[full][root] = min over v of
    # seed[full][v] + dist(v, root); the root's own distances give that without another Dijkstra.
    seed_full = seed[full]
    best_v = min(range(n), key=lambda v: seed_full[v] + root_dist[v])
    cost = seed_full[best_v] + root_dist[best_v]
    if cost >= _INF:
        raise SteinerInfeasibleError("the usable lines do not connect all terminals")

    arcs: list[tuple[int, int]] = []
    _walk_down(root_dist, root_seed, best_v, adj, arcs)
    # best_v was chosen as a merge point (or is the lone terminal), so the full subset's labels
    # are its seeds: rebuilding starts with the split at best_v and no path walk.
    dp[full] = seed_full
    _rebuild(full, best_v, dp, seed, adj, arcs)
    return cost, arcs


def _merge(mask: int, dp: list[list[int]]) -> list[int]:
    """Cheapest way to join the terminals of ``mask`` at each node from two disjoint subtrees.

    Only splits whose first part holds the lowest terminal are tried, since the other half of the
    splits are the same pairs swapped. Working on whole columns keeps the per-node loop in C.
    """
    low = mask & -mask
    rest = mask ^ low
    sums = []
    sub = rest
    while True:
        part = sub | low
        if part != mask:
            sums.append(map(add, dp[part], dp[mask ^ part]))
        if sub == 0:
            break
        sub = (sub - 1) & rest
    return list(map(min, *sums)) if len(sums) > 1 else list(sums[0])


@cython.locals(n=cython.int, seed=list, a=list, b=list, v=cython.int, av=cython.longlong, bv=cython.longlong,
               x=cython.longlong, sv=cython.longlong)
def _merge_useful(mask: int, dp: list[list[int]], useful: list[set[int]], n: int) -> tuple[list[int], set[int]]:
    """``_merge`` for the pruned DP: each split only at the nodes where both its parts may be of use.

    A seed of use comes from a split whose parts are of use at that node, so it comes out exact;
    every other seed is the least of fewer sums, or infinite, and so no lower than its true value,
    which is all the pruning argument asks of labels of no use. Returns the seeds and the nodes
    where they are finite (where the growth of ``dp[mask]`` starts).

    The pruning leaves each split a part of the nodes, and a loop over those is cheaper than
    ``_merge``'s columns over all of them (whose ``map(min, ...)`` over many columns is not cheap).
    """
    low = mask & -mask
    rest = mask ^ low
    seed = [_INF] * n
    nodes: set[int] = set()
    sub = rest
    while True:
        part = sub | low
        if part != mask:
            meet = useful[part] & useful[mask ^ part]
            nodes |= meet
            a = dp[part]
            b = dp[mask ^ part]
            for v in meet:
                av = a[v]
                bv = b[v]
                if av >= INF or bv >= INF:
                    continue  # an infinite sum is never below a seed (which starts infinite)
                x = av + bv
                sv = seed[v]
                if x < sv:
                    seed[v] = x
        if sub == 0:
            return seed, nodes
        sub = (sub - 1) & rest


def _walk_down(
    dist: list[int],
    seed: list[int],
    v: int,
    adj: list[list[tuple[int, int]]],
    arcs: list[tuple[int, int]],
) -> int:
    """Follow a shortest path from ``v`` back to where its label was seeded; return that node.

    Any neighbour whose label plus the edge cost equals ``v``'s label lies on an optimal path.
    Costs are positive after contraction, so labels strictly drop and the walk ends.
    """
    while dist[v] != seed[v]:
        dv = dist[v]
        for u, w in adj[v]:
            if dist[u] + w == dv:
                arcs.append((v, u))
                v = u
                break
        else:  # pragma: no cover - impossible if dist came from relaxing seed
            raise AssertionError("inconsistent Steiner labels")
    return v


def _rebuild(
    mask: int,
    v: int,
    dp: list[list[int]],
    seed: list[list[int]],
    adj: list[list[tuple[int, int]]],
    arcs: list[tuple[int, int]],
) -> None:
    """Recover the tree behind ``dp[mask][v]`` by re-finding which choice attained each label.

    Storing a back-pointer per (subset, node) would cost a Python-level loop in the merge step;
    re-deriving it here only costs work proportional to the size of the final tree.
    """
    stack = [(mask, v)]
    while stack:
        mask, v = stack.pop()
        v = _walk_down(dp[mask], seed[mask], v, adj, arcs)
        if mask & (mask - 1) == 0:
            continue  # reached the terminal itself
        target = seed[mask][v]
        low = mask & -mask
        rest = mask ^ low
        sub = rest
        while True:
            part = sub | low
            if part != mask and dp[part][v] + dp[mask ^ part][v] == target:
                stack.append((part, v))
                stack.append((mask ^ part, v))
                break
            if sub == 0:  # pragma: no cover - impossible if seed came from _merge
                raise AssertionError("inconsistent Steiner labels")
            sub = (sub - 1) & rest
