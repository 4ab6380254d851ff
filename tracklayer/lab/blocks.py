"""When a Ticket to Ride seat was blocked, for the lab's report.

A strong player beats a bot by claiming a route its long ticket needs: the lab counts, per bot, the games in
which that happened and those it still won. A seat is *blocked* when an opponent's claim made the cheapest
way to join one of its incomplete tickets longer (more trains still to lay) or impossible. The cheapest way
counts the routes the seat owns as laid and the routes it may still claim (free, and not closed by a double
route's other lane) by their length; stations are left out, so a block a station could bridge still counts.
The watcher reads the real game: the lab is the referee, not a player.
"""

from __future__ import annotations

import heapq
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tracklayer.ttr.game import TTRGame

FREE = -1


class BlockWatch:
    """Follows a game move by move (``after_move``) and keeps which seats were blocked."""

    def __init__(self, game: TTRGame) -> None:
        self.game = game
        board = game.board
        n = game.n_players
        self.blocked = [False] * n
        self.length = [r.length for r in board.routes]
        self.twins = [tuple(r.twins) for r in board.routes]
        self.closed = n in board.closed_with_players
        self.adj: list[list[tuple[int, int]]] = [[] for _ in board.cities]
        for r in board.routes:
            self.adj[r.a].append((r.b, r.index))
            self.adj[r.b].append((r.a, r.index))
        self.owner = list(game.state.route_owner)
        # (seat, ticket) -> the routes of its cheapest way still to claim (empty: joined, None: impossible)
        self.ways: dict[tuple[int, int], list[int] | None] = {}

    def usable(self, r: int, p: int) -> bool:
        """Whether seat ``p`` may still claim route ``r`` (cards and trains aside)."""
        owner = self.game.state.route_owner
        return owner[r] == FREE and not any(owner[t] == p or (self.closed and owner[t] != FREE)
                                            for t in self.twins[r])

    def way(self, p: int, ticket: int) -> list[int] | None:
        """The routes ``p`` still has to claim on the cheapest way to join ``ticket``'s cities, or None."""
        t = self.game.tickets[ticket]
        owner = self.game.state.route_owner
        dist = {t.a: 0}
        back: dict[int, tuple[int, int]] = {}
        heap = [(0, t.a)]
        while heap:
            d, u = heapq.heappop(heap)
            if u == t.b:
                routes = []
                while u != t.a:
                    u, r = back[u]
                    if owner[r] != p:
                        routes.append(r)
                return routes
            if d > dist[u]:
                continue
            for v, r in self.adj[u]:
                if owner[r] == p:
                    c = 0
                elif self.usable(r, p):
                    c = self.length[r]
                else:
                    continue
                if d + c < dist.get(v, 1 << 30):
                    dist[v] = d + c
                    back[v] = (u, r)
                    heapq.heappush(heap, (d + c, v))
        return None

    def _cost(self, routes: list[int] | None) -> float:
        return float("inf") if routes is None else sum(self.length[r] for r in routes)

    def after_move(self) -> None:
        """Look at the routes claimed by the last move, and at tickets a seat took."""
        s = self.game.state
        claimed = [(r, o) for r, o in enumerate(s.route_owner) if o != self.owner[r]]
        self.owner = list(s.route_owner)
        for r, by in claimed:
            for (p, ticket), routes in list(self.ways.items()):
                if p == by:
                    self.ways[p, ticket] = self.way(p, ticket)  # its own claim: the way may change
                elif routes is not None and r in routes:
                    before = self._cost(routes)  # r was free until this move: the way cost this much
                    after = self.way(p, ticket)
                    if self._cost(after) > before:
                        self.blocked[p] = True
                    self.ways[p, ticket] = after
        for p, held in enumerate(s.tickets):
            for ticket in held:
                if (p, ticket) not in self.ways:
                    self.ways[p, ticket] = self.way(p, ticket)
