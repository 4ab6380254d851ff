"""The planner's Dijkstra queue pops what heapq pops (compiled, it is a heap of its own over C arrays)."""

from __future__ import annotations

import heapq

from hypothesis import given
from hypothesis import strategies as st

from tracklayer.bots.ttr_common import Frontier

# pushes (a distance from a few values, so that ties are common, and a node) and pops, interleaved
OPS = st.lists(st.one_of(st.tuples(st.sampled_from([0.0, 0.35, 1.0, 2.35, 2.35, 6.0, 7.7]), st.integers(0, 20)),
                         st.none()), max_size=120)


@given(OPS)
def test_the_frontier_pops_the_smallest_pair_as_heapq_does(ops: list[tuple[float, int] | None]) -> None:
    frontier = Frontier(len(ops) + 1)
    heap: list[tuple[float, int]] = []
    for op in ops:
        if op is None:
            if not heap:
                continue
            key, node = heapq.heappop(heap)
            assert frontier.pop() == node and frontier.key == key
        else:
            heapq.heappush(heap, op)
            frontier.push(*op)
        assert frontier.size == len(heap)
    while heap:
        key, node = heapq.heappop(heap)
        assert (frontier.pop(), frontier.key) == (node, key)
    assert frontier.size == 0
