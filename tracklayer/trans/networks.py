"""Rail networks: which grid points are joined by built rails, and whose start markers they touch.

A union-find over grid points, merged as rails are placed (rails are never removed during a round,
so merging is all that is needed). Each root also keeps the list of its points, so the lines a
player may extend (those touching their network) are found by walking their network only, not the
whole board. The structure is derived from the built lines: a state snapshot leaves it out, and
:meth:`Networks.rebuild` recreates it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence


class Networks:
    __slots__ = ("members", "parent")

    def __init__(self, n_points: int) -> None:
        self.parent = list(range(n_points))
        self.members: list[list[int] | None] = [[p] for p in range(n_points)]

    @classmethod
    def rebuild(cls, n_points: int, lines: Iterable[tuple[int, int]]) -> Networks:
        net = cls(n_points)
        for a, b in lines:
            net.union(a, b)
        return net

    def clone(self) -> Networks:
        new = Networks.__new__(Networks)
        new.parent = self.parent[:]
        new.members = [None if m is None else m[:] for m in self.members]
        return new

    def find(self, p: int) -> int:
        parent = self.parent
        while parent[p] != p:
            parent[p] = parent[parent[p]]
            p = parent[p]
        return p

    def union(self, a: int, b: int) -> int:
        """Join the networks of ``a`` and ``b``; returns the root of the joined network."""
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return ra
        ma, mb = self.members[ra], self.members[rb]
        assert ma is not None and mb is not None
        if len(ma) < len(mb):
            ra, rb, ma, mb = rb, ra, mb, ma
        self.parent[rb] = ra
        ma.extend(mb)
        self.members[rb] = None
        return ra

    def points(self, p: int) -> list[int]:
        """Every point of the network containing ``p`` (do not modify)."""
        m = self.members[self.find(p)]
        assert m is not None
        return m

    def joined(self, a: int, b: int) -> bool:
        return self.find(a) == self.find(b)

    def all_joined(self, marker: int, points: Sequence[int]) -> bool:
        """Whether every point of ``points`` is in the network of ``marker``."""
        root = self.find(marker)
        find = self.find
        return all(find(p) == root for p in points)

    def players_on(self, p: int, markers: Sequence[int]) -> list[int]:
        """The players whose start markers are in the network of point ``p`` (a shared network)."""
        root = self.find(p)
        return [q for q, m in enumerate(markers) if m >= 0 and self.find(m) == root]

    def canonical(self) -> list[int]:
        """Per point, the lowest point id of its network (independent of merge order)."""
        low: dict[int, int] = {}
        out = []
        for p in range(len(self.parent)):
            r = self.find(p)
            out.append(low.setdefault(r, p))
        return out
