"""Tests for the exact Steiner scorer: brute-force agreement on small graphs, real-board cases.

Scoring must be exact, so the main check is equality with an exhaustive oracle: the optimal Steiner
tree spans some node set containing the terminals, and is then a minimum spanning tree of the
subgraph induced by that set, so minimising the MST over all such node sets gives the optimum.
A second, independent oracle (all edge subsets) cross-checks the first on tiny graphs.
"""

from __future__ import annotations

import heapq
import itertools
import json
import random
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tracklayer
from tracklayer.trans import steiner
from tracklayer.trans.board import load_board
from tracklayer.trans.steiner import SteinerInfeasibleError, min_steiner, min_steiner_many

DATA_DIR = Path(__file__).resolve().parents[2] / "tracklayer" / "maps" / "data"

Edge = tuple[int, int, int | None]  # (point a, point b, cost or None for unusable)


# --------------------------------------------------------------------------- helpers


def build_adjacency(n: int, edges: Sequence[Edge]) -> tuple[list[list[tuple[int, int]]], list[int | None]]:
    adjacency: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    costs: list[int | None] = []
    for e, (a, b, c) in enumerate(edges):
        adjacency[a].append((b, e))
        if a != b:
            adjacency[b].append((a, e))
        costs.append(c)
    return adjacency, costs


def find(parent: list[int], x: int) -> int:
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


def connects(n: int, edges: Sequence[Edge], chosen: set[int], terminals: Sequence[int]) -> bool:
    parent = list(range(n))
    for e in chosen:
        a, b, _ = edges[e]
        parent[find(parent, a)] = find(parent, b)
    return len({find(parent, t) for t in terminals}) <= 1


def brute_force_mst(n: int, edges: Sequence[Edge], terminals: Sequence[int]) -> int | None:
    """min over node sets containing the terminals of the MST weight of the induced subgraph."""
    usable = sorted((c, a, b) for a, b, c in edges if c is not None and a != b)
    required = set(terminals)
    optional = [p for p in range(n) if p not in required]
    best: int | None = None
    for r in range(len(optional) + 1):
        for extra in itertools.combinations(optional, r):
            nodes = required | set(extra)
            parent = list(range(n))
            weight = 0
            merged = 0
            for c, a, b in usable:
                if a in nodes and b in nodes:
                    ra, rb = find(parent, a), find(parent, b)
                    if ra != rb:
                        parent[ra] = rb
                        weight += c
                        merged += 1
            if merged == len(nodes) - 1 and (best is None or weight < best):
                best = weight
    return best


def brute_force_edges(n: int, edges: Sequence[Edge], terminals: Sequence[int]) -> int | None:
    """min over all sets of usable edges that connect the terminals; independent of MST logic."""
    usable = [e for e, (_, _, c) in enumerate(edges) if c is not None]
    best: int | None = None
    for r in range(len(usable) + 1):
        for chosen in itertools.combinations(usable, r):
            weight = sum(edges[e][2] or 0 for e in chosen)
            if (best is None or weight < best) and connects(n, edges, set(chosen), terminals):
                best = weight
    return best


def check_tree(n: int, edges: Sequence[Edge], terminals: Sequence[int], value: int, tree: list[int]) -> None:
    """The returned rails plus the built network must connect everything at exactly ``value``."""
    assert tree == sorted(set(tree))
    assert all(edges[e][2] is not None and edges[e][2] > 0 for e in tree)
    assert sum(edges[e][2] or 0 for e in tree) == value
    zero = {e for e, (_, _, c) in enumerate(edges) if c == 0}
    assert connects(n, edges, zero | set(tree), terminals)


# --------------------------------------------------------------------------- strategies


@st.composite
def random_graphs(draw: st.DrawFn, max_points: int = 12, max_edges: int = 24) -> tuple[int, list[Edge]]:
    """Arbitrary multigraphs, including parallel lines, self-loops and unusable lines."""
    n = draw(st.integers(1, max_points))
    cost = st.one_of(st.sampled_from([0, 1, 1, 2, 2]), st.none())
    edge = st.tuples(st.integers(0, n - 1), st.integers(0, n - 1), cost)
    return n, draw(st.lists(edge, max_size=max_edges))


@st.composite
def grid_pieces(draw: st.DrawFn, max_points: int = 12) -> tuple[int, list[Edge]]:
    """Connected pieces of a triangular grid, like a window onto the real board."""
    cols, rows = 6, 5
    coords = [(x, r) for r in range(rows) for x in range(r % 2, 2 * cols, 2)]
    start = draw(st.sampled_from(coords))
    size = draw(st.integers(1, max_points))
    chosen = [start]
    seen = {start}
    while len(chosen) < size:
        frontier = sorted(
            {
                (x + dx, r + dr)
                for x, r in chosen
                for dx, dr in ((2, 0), (-2, 0), (1, 1), (-1, 1), (1, -1), (-1, -1))
                if (x + dx, r + dr) in set(coords) and (x + dx, r + dr) not in seen
            }
        )
        if not frontier:
            break
        nxt = draw(st.sampled_from(frontier))
        chosen.append(nxt)
        seen.add(nxt)
    index = {p: i for i, p in enumerate(chosen)}
    pairs = [
        (index[(x, r)], index[q]) for x, r in chosen for q in ((x + 2, r), (x + 1, r + 1), (x - 1, r + 1)) if q in index
    ]
    costs = draw(st.lists(st.sampled_from([0, 1, 1, 1, 2, 2]), min_size=len(pairs), max_size=len(pairs)))
    return len(chosen), [(a, b, c) for (a, b), c in zip(pairs, costs, strict=True)]


def terminals_for(n: int) -> st.SearchStrategy[list[int]]:
    return st.lists(st.integers(0, n - 1), min_size=2, max_size=5)


# --------------------------------------------------------------------------- brute-force agreement


def assert_matches_oracle(n: int, edges: list[Edge], terminals: list[int]) -> None:
    adjacency, costs = build_adjacency(n, edges)
    expected = brute_force_mst(n, edges, terminals)
    if expected is None:
        with pytest.raises(SteinerInfeasibleError):
            min_steiner(n, adjacency, costs, terminals)
        return
    value, tree = min_steiner(n, adjacency, costs, terminals)
    assert value == expected
    check_tree(n, edges, terminals, value, tree)


@settings(deadline=None, max_examples=300)
@given(st.data())
def test_matches_brute_force_on_grid_pieces(data: st.DataObject) -> None:
    n, edges = data.draw(grid_pieces())
    assert_matches_oracle(n, edges, data.draw(terminals_for(n)))


@settings(deadline=None, max_examples=300)
@given(st.data())
def test_matches_brute_force_on_random_graphs(data: st.DataObject) -> None:
    n, edges = data.draw(random_graphs())
    assert_matches_oracle(n, edges, data.draw(terminals_for(n)))


@settings(deadline=None, max_examples=150)
@given(st.data())
def test_oracles_agree(data: st.DataObject) -> None:
    """Guard the MST oracle itself with the plain edge-subset enumeration on tiny graphs."""
    n, edges = data.draw(random_graphs(max_points=7, max_edges=11))
    terminals = data.draw(terminals_for(n))
    assert brute_force_mst(n, edges, terminals) == brute_force_edges(n, edges, terminals)


@settings(deadline=None, max_examples=100)
@given(st.data())
def test_many_terminals_match_brute_force(data: st.DataObject) -> None:
    """Up to 8 terminals, beyond what a round deals, since special cards can add cities."""
    n, edges = data.draw(grid_pieces(max_points=11))
    terminals = data.draw(st.lists(st.integers(0, n - 1), min_size=6, max_size=8))
    assert_matches_oracle(n, edges, terminals)


@settings(deadline=None, max_examples=100)
@given(st.data())
def test_large_costs_match_brute_force(data: st.DataObject) -> None:
    """Costs far above 1-2 take the heap-based relaxation instead of Dial's buckets."""
    n, edges = data.draw(grid_pieces())
    scale = data.draw(st.sampled_from([17, 1000]))
    scaled = [(a, b, None if c is None else c * scale + (c > 0) * data.draw(st.integers(0, 3))) for a, b, c in edges]
    assert_matches_oracle(n, scaled, data.draw(terminals_for(n)))


# --------------------------------------------------------------------------- simple cases


def test_single_edge_and_duplicates() -> None:
    adjacency, costs = build_adjacency(2, [(0, 1, 2)])
    assert min_steiner(2, adjacency, costs, [0, 1, 1, 0]) == (2, [0])
    assert min_steiner(2, adjacency, costs, [1, 1]) == (0, [])
    assert min_steiner(2, adjacency, costs, []) == (0, [])


def test_cheapest_parallel_line_is_reported() -> None:
    edges: list[Edge] = [(0, 1, 2), (1, 0, 1), (0, 1, None)]
    adjacency, costs = build_adjacency(2, edges)
    assert min_steiner(2, adjacency, costs, [0, 1]) == (1, [1])


def test_unusable_lines_can_disconnect() -> None:
    adjacency, costs = build_adjacency(3, [(0, 1, 1), (1, 2, None)])
    with pytest.raises(SteinerInfeasibleError):
        min_steiner(3, adjacency, costs, [0, 2])
    assert min_steiner(3, adjacency, costs, [0, 1]) == (1, [0])


def test_bad_input_is_rejected() -> None:
    adjacency, costs = build_adjacency(2, [(0, 1, -1)])
    with pytest.raises(ValueError, match="negative"):
        min_steiner(2, adjacency, costs, [0, 1])
    adjacency, costs = build_adjacency(2, [(0, 1, 1)])
    with pytest.raises(ValueError, match="terminal"):
        min_steiner(2, adjacency, costs, [0, 2])
    with pytest.raises(ValueError, match="adjacency"):
        min_steiner(3, adjacency, costs, [0, 1])


def test_steiner_point_beats_pairwise_paths() -> None:
    """A star: the centre is not a terminal, and the tree must use it rather than a path."""
    edges: list[Edge] = [(0, 3, 1), (1, 3, 1), (2, 3, 1), (0, 1, 2), (1, 2, 2), (0, 2, 2)]
    adjacency, costs = build_adjacency(4, edges)
    assert min_steiner(4, adjacency, costs, [0, 1, 2]) == (3, [0, 1, 2])


# --------------------------------------------------------------------------- real board


class Board:
    def __init__(self, name: str) -> None:
        raw = json.loads((DATA_DIR / f"{name}.json").read_text(encoding="utf-8"))
        self.point = {tuple(p): i for i, p in enumerate(raw["points"])}
        self.n = len(self.point)
        self.edges: list[Edge] = [
            (self.point[tuple(e["a"])], self.point[tuple(e["b"])], e["cost"]) for e in raw["edges"]
        ]
        self.adjacency, self.costs = build_adjacency(self.n, self.edges)
        self.cities = {c["name"]: self.point[tuple(c["point"])] for c in raw["cities"]}
        self.colors: list[str] = raw["colors"]
        self.by_color = {
            col: [self.point[tuple(c["point"])] for c in raw["cities"] if c["color"] == col] for col in self.colors
        }

    def edge_id(self, a: tuple[int, int], b: tuple[int, int]) -> int:
        pa, pb = self.point[a], self.point[b]
        return next(e for e, (x, y, _) in enumerate(self.edges) if {x, y} == {pa, pb})

    def solve(self, terminals: Sequence[int], costs: Sequence[int | None] | None = None) -> tuple[int, list[int]]:
        return min_steiner(self.n, self.adjacency, self.costs if costs is None else costs, terminals)


@pytest.fixture(scope="module", params=["trans-europa", "trans-america"])
def board(request: pytest.FixtureRequest) -> Board:
    return Board(request.param)


@pytest.fixture(scope="module")
def europa() -> Board:
    return Board("trans-europa")


def test_europa_one_point(europa: Board) -> None:
    paris = europa.cities["Paris"]
    assert europa.solve([paris] * 6) == (0, [])


def test_europa_adjacent_points(europa: Board) -> None:
    single = europa.edge_id((5, 0), (7, 0))
    double = europa.edge_id((9, 0), (11, 0))
    assert europa.solve([europa.point[5, 0], europa.point[7, 0]]) == (1, [single])
    # Glasgow to its double-line neighbour: the detour via (10,1) costs 2 + something, so 2.
    assert europa.solve([europa.cities["Glasgow"], europa.point[11, 0]]) == (2, [double])


def test_europa_known_path(europa: Board) -> None:
    """(5,0) and Glasgow (9,0) share only the neighbour (7,0), joined by two single lines."""
    expected = sorted([europa.edge_id((5, 0), (7, 0)), europa.edge_id((7, 0), (9, 0))])
    assert europa.solve([europa.point[5, 0], europa.cities["Glasgow"]]) == (2, expected)


def test_europa_channel_ferry_is_single(europa: Board) -> None:
    ferry = europa.edge_id((9, 4), (8, 5))
    assert europa.solve([europa.point[9, 4], europa.point[8, 5]]) == (1, [ferry])


def test_all_built_costs_nothing(board: Board) -> None:
    zero = [0] * len(board.costs)
    terminals = [board.by_color[c][0] for c in board.colors] + [0]
    assert board.solve(terminals, zero) == (0, [])


def test_building_the_tree_completes_the_network(board: Board) -> None:
    """After building the returned rails, nothing is missing and the built rails are reused."""
    rng = random.Random(7)
    for _ in range(10):
        terminals = [rng.randrange(board.n)] + [rng.choice(board.by_color[c]) for c in board.colors]
        value, tree = board.solve(terminals)
        check_tree(board.n, board.edges, terminals, value, tree)
        costs = list(board.costs)
        for e in tree:
            costs[e] = 0
        assert board.solve(terminals, costs) == (0, [])


def dijkstra(n: int, edges: Sequence[Edge], src: int) -> list[float]:
    """Textbook shortest paths, independent of the solver's bucket queue."""
    adjacency, costs = build_adjacency(n, edges)
    dist = [float("inf")] * n
    dist[src] = 0
    heap = [(0.0, src)]
    while heap:
        d, v = heapq.heappop(heap)
        if d > dist[v]:
            continue
        for u, e in adjacency[v]:
            c = costs[e]
            if c is not None and d + c < dist[u]:
                dist[u] = d + c
                heapq.heappush(heap, (d + c, u))
    return dist


@settings(deadline=None, max_examples=40)
@given(data=st.data())
def test_two_terminals_is_shortest_path(board: Board, data: st.DataObject) -> None:
    """With two terminals the Steiner tree is a shortest path, even across the whole board."""
    src = data.draw(st.integers(0, board.n - 1))
    built = data.draw(st.sets(st.integers(0, len(board.costs) - 1), max_size=60))
    costs: list[int | None] = [0 if e in built else c for e, c in enumerate(board.costs)]
    edges = [(a, b, costs[e]) for e, (a, b, _) in enumerate(board.edges)]
    dist = dijkstra(board.n, edges, src)
    # The farthest point stresses long paths; a random one covers the rest.
    for dst in (max(range(board.n), key=dist.__getitem__), data.draw(st.integers(0, board.n - 1))):
        value, tree = board.solve([src, dst], costs)
        assert value == dist[dst]
        check_tree(board.n, edges, [src, dst], value, tree)


@settings(deadline=None, max_examples=40)
@given(data=st.data())
def test_board_invariants(board: Board, data: st.DataObject) -> None:
    """Properties that hold for the exact optimum on the full board, where brute force is too slow.

    The value must not depend on which terminal the DP roots at (terminal order), must not grow
    when a terminal is dropped, must not exceed the usual 2-approximation (it is a lower bound on
    it) and must reuse built rails: building some lines first never raises the value.
    """
    points = st.integers(0, board.n - 1)
    terminals = data.draw(st.lists(points, min_size=2, max_size=6))
    built = data.draw(st.sets(st.integers(0, len(board.costs) - 1), max_size=40))
    costs: list[int | None] = [0 if e in built else c for e, c in enumerate(board.costs)]
    edges = [(a, b, costs[e]) for e, (a, b, _) in enumerate(board.edges)]

    value, tree = board.solve(terminals, costs)
    check_tree(board.n, edges, terminals, value, tree)
    shuffled = data.draw(st.permutations(terminals))
    assert board.solve(shuffled, costs)[0] == value
    assert board.solve(terminals[1:], costs)[0] <= value
    assert value <= board.solve(terminals)[0]
    # Shortest-path tree from the first terminal: a feasible tree, so an upper bound.
    assert value <= sum(board.solve([terminals[0], t], costs)[0] for t in terminals[1:])
    assert value >= max(board.solve([terminals[0], t], costs)[0] for t in terminals[1:])


def test_window_of_real_board_matches_brute_force(europa: Board) -> None:
    """Small connected windows of the real Trans Europa grid, with real costs and some rails built."""
    rng = random.Random(3)
    for _ in range(25):
        start = rng.randrange(europa.n)
        window = [start]
        while len(window) < 11:
            frontier = sorted({q for p in window for q, _ in europa.adjacency[p]} - set(window))
            window.append(rng.choice(frontier))
        index = {p: i for i, p in enumerate(window)}
        edges: list[Edge] = [
            (index[a], index[b], 0 if rng.random() < 0.2 else c)
            for a, b, c in europa.edges
            if a in index and b in index
        ]
        terminals = rng.sample(range(len(window)), rng.randint(2, 6))
        assert_matches_oracle(len(window), edges, terminals)


@settings(deadline=None, max_examples=25)
@given(data=st.data())
def test_many_sets_give_each_sets_own_answer(board: Board, data: st.DataObject) -> None:
    """``min_steiner_many`` (one contraction for every player of a round) answers each terminal set
    exactly as ``min_steiner`` alone does, tree included, whatever the order of the sets."""
    points = st.integers(0, board.n - 1)
    sets = data.draw(st.lists(st.lists(points, max_size=6), min_size=1, max_size=5))
    built = data.draw(st.sets(st.integers(0, len(board.costs) - 1), max_size=90))
    costs: list[int | None] = [0 if e in built else c for e, c in enumerate(board.costs)]
    assert min_steiner_many(board.n, board.adjacency, costs, sets) == [board.solve(t, costs) for t in sets]


def solve_both_ways(n: int, adjacency, terminals: Sequence[int], costs: Sequence[int | None]) -> None:
    """The pruned DP (what ``min_steiner`` runs) and the DP with every label in full give the same cost
    and the same tree, arc for arc."""
    scan = steiner._edge_scan(adjacency)
    comp, n_nodes = steiner._contract_zero_edges(n, scan, costs)
    term_nodes = list(dict.fromkeys(comp[t] for t in terminals))
    if len(term_nodes) <= 1:
        return
    adj, _ = steiner._contracted_graph(scan, costs, comp, n_nodes)
    pruned = steiner._steiner_on_positive_graph(n_nodes, adj, term_nodes, prune=True)
    assert pruned == steiner._steiner_on_positive_graph(n_nodes, adj, term_nodes, prune=False)


@settings(deadline=None, max_examples=40)
@given(data=st.data())
def test_pruned_labels_give_the_same_tree(board: Board, data: st.DataObject) -> None:
    points = st.integers(0, board.n - 1)
    terminals = data.draw(st.lists(points, min_size=4, max_size=8, unique=True))
    built = data.draw(st.sets(st.integers(0, len(board.costs) - 1), max_size=120))
    costs: list[int | None] = [0 if e in built else c for e, c in enumerate(board.costs)]
    solve_both_ways(board.n, board.adjacency, terminals, costs)


@pytest.mark.parametrize("game", ["trans-europa", "trans-america"])
def test_pruned_labels_give_the_same_tree_at_the_ends_of_random_rounds(game: str) -> None:
    """Where the engine scores: every player at the end of the first rounds of uniformly random games."""
    solved = 0
    for seed in range(3):
        g = tracklayer.new_game(game, 4, seed=seed)
        b = g.board
        rnd = random.Random(seed)
        while len(g.state.history) < 2:
            legal = g.legal_actions()
            g.apply(legal[rnd.randrange(len(legal))])
        for rec in g.state.history:
            costs: list[int | None] = [0 if o >= 0 else c for o, c in zip(rec["owner"], b.edge_cost, strict=True)]
            for q in range(4):
                terminals = [rec["markers"][q], *(b.cities[c].point for c in rec["hands"][q])]
                solve_both_ways(b.n_points, b.adjacency, terminals, costs)
                solved += 1
    assert solved >= 24


def test_a_frozen_table_gives_what_lists_give(board: Board) -> None:
    """A tuple-of-tuples table (a board's) has its scan remembered; lists are read afresh each time.
    Both, and the remembered scan on a second call, answer alike."""
    frozen = tuple(tuple(arcs) for arcs in board.adjacency)
    rng = random.Random(5)
    for _ in range(6):
        terminals = [rng.randrange(board.n) for _ in range(rng.randint(2, 6))]
        built = set(rng.sample(range(len(board.costs)), 60))
        costs: list[int | None] = [0 if e in built else c for e, c in enumerate(board.costs)]
        expected = board.solve(terminals, costs)
        assert min_steiner(board.n, frozen, costs, terminals) == expected
        assert min_steiner(board.n, frozen, costs, terminals) == expected


# --------------------------------------------------------------------------- pruning bounds


def contracted(
    n: int, edges: list[Edge], terminals: Sequence[int]
) -> tuple[int, list[list[tuple[int, int]]], list[int]]:
    """The positive-cost graph the DP runs on, and the terminals' nodes in it (root first)."""
    adjacency, costs = build_adjacency(n, edges)
    scan = steiner._edge_scan(adjacency)
    comp, n_nodes = steiner._contract_zero_edges(n, scan, costs)
    adj, _ = steiner._contracted_graph(scan, costs, comp, n_nodes)
    return n_nodes, adj, list(dict.fromkeys(comp[t] for t in terminals))


def exact_tree(n_nodes: int, adj: list[list[tuple[int, int]]], nodes: Sequence[int]) -> int:
    """Cheapest tree joining ``nodes`` in the contracted graph (the full DP, checked above)."""
    nodes = list(dict.fromkeys(nodes))
    if len(nodes) <= 1:
        return 0
    return steiner._steiner_on_positive_graph(n_nodes, adj, nodes, prune=False)[0]


@settings(deadline=None, max_examples=60)
@given(st.data())
def test_triangle_bounds_keep_what_the_pruning_argument_needs(data: st.DataObject) -> None:
    """For every set S of non-root terminals and node v, lb_S(v) (the bound for the root and the
    terminals outside S): (i) is at most the cheapest tree joining v to them, (ii) grows by at most
    a line's cost along it, (iii) for a split S = a + b, lb_a(v) <= (tree joining v to b) + lb_S(v)."""
    n, edges = data.draw(grid_pieces(max_points=9))
    terminals = data.draw(st.lists(st.integers(0, n - 1), min_size=min(n, 4), max_size=5, unique=True))
    n_nodes, adj, term_nodes = contracted(n, edges, terminals)
    dist = [steiner._distances(t, adj, n_nodes, steiner._max_cost(adj)) for t in term_nodes]
    if len(term_nodes) < 3 or any(d >= steiner._INF for d in dist[0]):
        return  # the pruning runs only with three or more nodes to join, on a connected graph
    bounds = steiner._TriangleBounds(dist, term_nodes)
    others = term_nodes[1:]
    full = (1 << len(others)) - 1
    for s in range(1, full):
        lb = bounds.outside(full ^ s)
        outside = [term_nodes[0]] + [t for i, t in enumerate(others) if not s >> i & 1]
        for v in range(n_nodes):
            assert lb[v] <= exact_tree(n_nodes, adj, [v, *outside])
            assert all(lb[u] <= lb[v] + w for u, w in adj[v])
        a = s & (s - 1)
        while a:
            lb_a = bounds.outside(full ^ a)
            b_nodes = [t for i, t in enumerate(others) if (s ^ a) >> i & 1]
            for v in range(n_nodes):
                assert lb_a[v] <= exact_tree(n_nodes, adj, [v, *b_nodes]) + lb[v]
            a = (a - 1) & s


@settings(deadline=None, max_examples=150)
@given(st.data())
def test_path_heuristic_is_the_cost_of_a_tree(data: st.DataObject) -> None:
    """The pruning's upper bound is never below the optimum (else it would cut optimal trees)."""
    n, edges = data.draw(grid_pieces())
    terminals = data.draw(st.lists(st.integers(0, n - 1), min_size=min(n, 2), max_size=6, unique=True))
    n_nodes, adj, term_nodes = contracted(n, edges, terminals)
    dist = [steiner._distances(t, adj, n_nodes, steiner._max_cost(adj)) for t in term_nodes]
    if any(dist[0][t] >= steiner._INF for t in term_nodes):
        return
    assert steiner._path_heuristic_bound(dist, term_nodes, adj) >= exact_tree(n_nodes, adj, term_nodes)


def test_path_heuristic_is_tight_where_the_spanning_tree_is_not() -> None:
    """Six spread-out Trans Europa cities on an empty board: the spanning tree of their distances
    is 5 rails above the optimum, the shortest-path heuristic at most one, which is what keeps the
    pruned DP small on this worst case."""
    b = load_board("trans-europa")
    terminals = [30, 200, 7, 158, 132, 123]
    scan = steiner._edge_scan(b.adjacency)
    comp, n_nodes = steiner._contract_zero_edges(b.n_points, scan, b.edge_cost)
    adj, _ = steiner._contracted_graph(scan, b.edge_cost, comp, n_nodes)
    term_nodes = [comp[t] for t in terminals]
    dist = [steiner._distances(t, adj, n_nodes, 2) for t in term_nodes]
    best = min_steiner(b.n_points, b.adjacency, b.edge_cost, terminals)[0]
    assert steiner._spanning_bound(dist[0], dist[1:], term_nodes[1:]) == best + 5
    assert best <= steiner._path_heuristic_bound(dist, term_nodes, adj) <= best + 1
