"""What Ticket to Ride bots read from a view, and the planning tools they share.

``Obs.from_view`` turns ``game.view(seat)`` (names, JSON) into integer tables indexed like the
board (the board itself is public data, loaded by the game name in the view). ``Planner`` finds
cheap paths for tickets over free and own routes (Dijkstra with own routes free, greedy Steiner
over all tickets, optionally borrowing one opponent route per ticket with a station), works out
which card colours the plan still needs, and picks card payments that spend the least useful cards.
Nothing here ever touches a game object.
"""

from __future__ import annotations

import heapq
from array import array
from dataclasses import dataclass, field
from typing import Any, ClassVar

import cython

from tracklayer.ttr.board import GRAY, Board, load_board

INF = float("inf")


class BoardInfo:
    """Name -> index tables and the city graph of one board (built once per board)."""

    _cache: ClassVar[dict[str, BoardInfo]] = {}

    def __init__(self, board: Board) -> None:
        self.board = board
        self.n_cities = len(board.cities)
        self.n_cards = len(board.colors) + 1
        self.loco = board.loco
        self.card_index = {board.card_name(c): c for c in range(self.n_cards)}
        self.city_index = {name: i for i, name in enumerate(board.cities)}
        self.adj: list[list[tuple[int, int]]] = [[] for _ in board.cities]  # city -> (other city, route)
        for r in board.routes:
            self.adj[r.a].append((r.b, r.index))
            self.adj[r.b].append((r.a, r.index))
        self.route_len = [r.length for r in board.routes]
        self.route_color = [r.color for r in board.routes]
        self.route_ends = [(r.a, r.b) for r in board.routes]
        self.route_points = list(board.route_score)
        # routes by points, most first (ties by id): what a rollout claims when it has no plan
        self.by_points = sorted(range(len(self.route_points)), key=lambda r: -self.route_points[r])
        self.tunnel = [r.tunnel for r in board.routes]
        self.ferry = [r.locomotives for r in board.routes]
        self.twins = [r.twins for r in board.routes]
        self.ticket_ends = [(t.a, t.b) for t in board.tickets]
        self.ticket_points = [t.points for t in board.tickets]
        self.ticket_long = [t.long for t in board.tickets]
        self.total_cards = [board.per_color] * len(board.colors) + [board.locomotives]
        self.extra: dict[tuple[str, int, int, int], int] = {}  # bonus tickets seen in views

    def ticket_index(self, entry: dict[str, Any]) -> int:
        """Index of a ticket as a view shows it; a user-supplied bonus ticket gets an index of its own."""
        b = self.board
        a, z = self.city_index[entry["from"]], self.city_index[entry["to"]]
        t = b.ticket_by_id.get(str(entry["id"]).casefold())
        if t is not None and {b.tickets[t].a, b.tickets[t].b} == {a, z} and b.tickets[t].points == entry["points"]:
            return t
        key = (str(entry["id"]), a, z, entry["points"])
        found = self.extra.get(key)
        if found is None:
            found = self.extra[key] = len(self.ticket_ends)
            self.ticket_ends.append((a, z))
            self.ticket_points.append(entry["points"])
            self.ticket_long.append(bool(entry.get("long", False)))
        return found

    @classmethod
    def get(cls, game: str) -> BoardInfo:
        info = cls._cache.get(game)
        if info is None:
            info = cls._cache[game] = BoardInfo(load_board(game))
        return info


@dataclass
class Obs:
    """One seat's knowledge, as integer tables (parsed from a view)."""

    info: BoardInfo
    view: dict[str, Any]
    variant: str
    seat: int
    n: int
    phase: str
    hand: list[int]
    market: list[int]
    route_owner: list[int]
    station_owner: list[int]
    wagons: list[int]
    stations_left: list[int]
    cards: list[int]
    n_tickets: list[int]
    tickets: list[int]
    offer: list[int]
    deck: int
    discard: int
    ticket_deck: int
    final_round: bool
    turn: int
    route_points: list[int] = field(default_factory=list)

    @staticmethod
    def from_view(view: dict[str, Any]) -> Obs:
        info = BoardInfo.get(view["game"])
        seat = view["seat"]
        if seat is None:
            raise ValueError("a bot needs a seat's view, not a spectator's")
        ci = info.card_index
        hand = [0] * info.n_cards
        for name, k in view.get("hand", {}).items():
            hand[ci[name]] = k
        players = view["players"]
        station_owner = [-1] * info.n_cities
        for city, owner in view.get("stations", {}).items():
            station_owner[info.city_index[city]] = owner
        return Obs(
            info=info, view=view, variant=view["variant"], seat=seat, n=len(players), phase=view["phase"],
            hand=hand, market=[-1 if c is None else ci[c] for c in view["market"]],
            route_owner=[-1 if o is None else o for o in view["route_owner"]],
            station_owner=station_owner,
            wagons=[p["wagons"] for p in players],
            stations_left=[p.get("stations_left", 0) for p in players],
            cards=[p["cards"] for p in players],
            n_tickets=[p["tickets"] for p in players],
            tickets=[info.ticket_index(t) for t in view.get("tickets", [])],
            offer=[info.ticket_index(t) for t in view.get("offer", [])],
            deck=view["deck"], discard=view["discard"], ticket_deck=view["ticket_deck"],
            final_round=bool(view.get("final_round")), turn=view.get("turn", 0),
            route_points=[p["route_points"] for p in players],
        )

    # ------------------------------------------------------------------ route status
    def usable(self, r: int, p: int | None = None) -> bool:
        """Could player ``p`` (default: me) still claim route ``r`` (ignoring cards and wagons)?"""
        return route_usable(self.route_owner, self.info.twins[r], r, self.seat if p is None else p,
                            self.n in self.info.board.closed_with_players)

    def turns_left_estimate(self) -> float:
        """Rough number of my turns before the game ends (the fastest player runs out of wagons).

        Each player's pace is their wagons laid per turn so far, shrunk towards 1.1 (the average
        pace of bot games) while few turns have been played.
        """
        if self.final_round:
            return 1.0
        b = self.info.board
        rounds = self.turn / max(1, self.n)
        best = float("inf")
        for p in range(self.n):
            used = b.wagons - self.wagons[p]
            pace = (used + 1.1 * 8) / (rounds + 8)
            best = min(best, (self.wagons[p] - b.end_trigger) / pace + 1)
        return max(1.0, best)

    def turns_left_fast(self, claim_len: float = 3.0, factor: float = 1.0) -> float:
        """Like ``turns_left_estimate``, but an opponent's hand also counts: cards held can be laid fast.

        An opponent with W wagons to lay before the end and H cards needs about W / ``claim_len``
        claim turns plus (W - H) / 2 draw turns at the quickest; a big hand ends the game much
        sooner than the average pace says (a hoarding opponent lays 15 wagons in 4 turns).
        """
        best = self.turns_left_estimate()
        if self.final_round:
            return best
        trigger = self.info.board.end_trigger
        for p in range(self.n):
            if p == self.seat:
                continue
            w = max(0, self.wagons[p] - trigger)
            fast = factor * (w / claim_len + max(0, w - self.cards[p]) / 2.0) + 1
            best = min(best, fast)
        return max(1.0, best)


@cython.ccall
@cython.locals(owner=list, twins=tuple, r=cython.int, p=cython.int, closed=cython.bint, t=cython.int,
               o=cython.int)
def route_usable(owner: list[int], twins: tuple[int, ...], r: int, p: int, closed: bool) -> bool:
    """Whether ``p`` could still claim route ``r`` (``twins``: its other lanes) by ownership alone: nobody
    owns it, ``p`` owns no other lane, and the double route is not ``closed`` by a built lane."""
    if owner[r] != -1:
        return False
    for t in twins:
        o = owner[t]
        if o == p or (closed and o != -1):
            return False
    return True


# ---------------------------------------------------------------------- planning
@cython.cclass
class Frontier:
    """Dijkstra's queue: ``(distance, node)`` pairs, the smallest first (equal distances: the lower node),
    the order ``heapq`` gives the same pairs as tuples. Compiled, a binary heap over two C arrays of
    ``capacity`` places; interpreted, ``heapq`` itself."""

    keys = cython.declare(cython.double[::1])
    nodes = cython.declare(cython.int[::1])
    heap = cython.declare(list)  # interpreted: (distance, node) tuples
    size = cython.declare(cython.Py_ssize_t, visibility="readonly")  # pairs in the queue
    key = cython.declare(cython.double, visibility="readonly")  # the distance of the pair popped last

    def __init__(self, capacity: int) -> None:
        self.size = 0
        self.key = 0.0
        if cython.compiled:
            self.keys = array("d", bytes(8 * capacity))
            self.nodes = array("i", bytes(4 * capacity))
        else:
            self.heap = []

    @cython.ccall
    @cython.locals(key=cython.double, node=cython.int, i=cython.Py_ssize_t, up=cython.Py_ssize_t)
    def push(self, key: float, node: int) -> None:
        if not cython.compiled:
            heapq.heappush(self.heap, (key, node))
            self.size += 1
            return
        i = self.size
        self.size += 1
        while i > 0:  # move the hole up past every parent that comes after the new pair
            up = (i - 1) >> 1
            if _less(self.keys[up], self.nodes[up], key, node):
                break
            self.keys[i] = self.keys[up]
            self.nodes[i] = self.nodes[up]
            i = up
        self.keys[i] = key
        self.nodes[i] = node

    @cython.ccall
    @cython.returns(cython.int)
    @cython.locals(key=cython.double, node=cython.int, i=cython.Py_ssize_t, child=cython.Py_ssize_t,
                   n=cython.Py_ssize_t, top=cython.int)
    def pop(self) -> int:
        """The node of the smallest pair, taken out (its distance is ``key``)."""
        if not cython.compiled:
            self.key, top = heapq.heappop(self.heap)
            self.size -= 1
            return top
        top = self.nodes[0]
        self.key = self.keys[0]
        self.size -= 1
        n = self.size
        key = self.keys[n]  # the last pair fills the hole at the root, moved down past smaller children
        node = self.nodes[n]
        i = 0
        while True:
            child = 2 * i + 1
            if child >= n:
                break
            if child + 1 < n and _less(self.keys[child + 1], self.nodes[child + 1], self.keys[child],
                                       self.nodes[child]):
                child += 1
            if _less(key, node, self.keys[child], self.nodes[child]):
                break
            self.keys[i] = self.keys[child]
            self.nodes[i] = self.nodes[child]
            i = child
        self.keys[i] = key
        self.nodes[i] = node
        return top


@cython.cfunc
@cython.inline
@cython.returns(cython.bint)
@cython.locals(a_key=cython.double, a_node=cython.int, b_key=cython.double, b_node=cython.int)
def _less(a_key: float, a_node: int, b_key: float, b_node: int) -> bool:
    """Whether the pair ``(a_key, a_node)`` comes before ``(b_key, b_node)``: as Python compares the tuples."""
    return a_key < b_key or (a_key == b_key and a_node < b_node)


@dataclass
class Plan:
    routes: list[int]  # free routes still to claim (in ticket order)
    borrow: list[tuple[int, int]]  # (opponent route, city for the station) pairs
    done: list[int]  # tickets already complete (own routes + existing stations)
    planned: list[int]  # tickets the plan completes
    failed: list[int]  # tickets given up (impossible, or too expensive)
    wagons: int  # wagons the plan still needs
    cost: float  # path cost of the plan
    dropped: list[int] = field(default_factory=list)  # tickets given up for lack of time (planner)


class Planner:
    """Path planning over one observation for one player (me unless told otherwise)."""

    @cython.locals(me=cython.int, closed=cython.bint, owner=list, twins=list, lengths=list, points=list,
                   tunnel=list, ferry=list, cost=list, borrowable=list, r=cython.int, o=cython.int,
                   length=cython.int, worth=cython.int, locos=cython.int, c=cython.double, tunnel_penalty=cython.double,
                   ferry_penalty=cython.double, route_overhead=cython.double, long_bias=cython.double)
    def __init__(self, obs: Obs, p: int | None = None, *, tunnel_penalty: float = 0.6, ferry_penalty: float = 0.8,
                 route_overhead: float = 0.35, station_penalty: float = 6.0, long_bias: float = 0.0) -> None:
        self.obs = obs
        self.p = obs.seat if p is None else p
        info = obs.info
        self.info = info
        me = self.p
        cost = []
        borrowable = []
        closed = obs.n in info.board.closed_with_players
        owner, twins, lengths, points = obs.route_owner, info.twins, info.route_len, info.route_points
        tunnel, ferry = info.tunnel, info.ferry
        for r in range(len(lengths)):
            o = owner[r]
            if o == me:
                c = 0.0
            elif route_usable(owner, twins[r], r, me, closed):
                length = lengths[r]
                worth = points[r]
                c = length + route_overhead - long_bias * (worth - length)
                if tunnel[r]:
                    c += tunnel_penalty
                locos = ferry[r]
                if locos:
                    c += ferry_penalty * locos
            else:
                c = INF
            cost.append(c)
            borrowable.append(o != -1 and o != me)
        self.cost: list[float] = cost
        self.borrowable: list[bool] = borrowable
        self.stations = obs.stations_left[me] if info.board.features.stations else 0
        self.station_penalty = station_penalty
        # stations already built by p: their borrowable routes are free (we may assume the best use)
        self.own_station_cities = [city for city, holder in enumerate(obs.station_owner) if holder == me]

    @cython.locals(a=cython.int, b=cython.int, allow_borrow=cython.bint, adj=list, cost=list, borrowable=list,
                   edge=list, dist=list, prev_node=list, prev_route=list, frontier=Frontier, sp=cython.double,
                   d=cython.double, c=cython.double, nd=cython.double, node=cython.int, u=cython.int,
                   s=cython.int, ns=cython.int, nxt=cython.int, v=cython.int, r=cython.int, borrowed=cython.int)
    def path(self, a: int, b: int, extra_free: set[int], allow_borrow: bool) -> tuple[float, list[int], int] | None:
        """Cheapest a-b path: (cost, routes, borrowed route or -1); own and ``extra_free`` routes cost 0.

        With ``allow_borrow`` the path may use one opponent route (a station) at ``station_penalty``.
        States are (city, borrowed yet?) packed as ``2 * city + flag`` in flat lists.
        """
        adj = self.info.adj
        cost = self.cost
        borrowable = self.borrowable
        station_free = self._station_free()
        edge = cost[:]  # what each route costs this search: free if planned already or borrowed for free
        for r in extra_free:
            edge[r] = 0.0
        for r in station_free:
            edge[r] = 0.0
        sp = self.station_penalty
        size = 2 * self.info.n_cities
        dist = [INF] * size
        prev_node = [-1] * size
        prev_route = [-1] * size
        node = 2 * a
        dist[node] = 0.0
        frontier = Frontier(4 * len(cost) + 1)  # a search pushes at most once per route, lane and flag, and the start
        frontier.push(0.0, node)
        while frontier.size:
            node = frontier.pop()
            d = frontier.key
            if d > dist[node]:
                continue
            u, s = node >> 1, node & 1
            if u == b:
                routes, borrowed = [], -1
                while prev_node[node] >= 0:
                    r = prev_route[node]
                    if borrowable[r] and r not in station_free:
                        borrowed = r
                    elif cost[r] > 0 and r not in extra_free:
                        routes.append(r)
                    node = prev_node[node]
                routes.reverse()
                return d, routes, borrowed
            for v, r in adj[u]:
                c = edge[r]
                ns = s
                if c == INF:
                    if allow_borrow and s == 0 and borrowable[r]:
                        c = sp
                        ns = 1
                    else:
                        continue
                nd = d + c
                nxt = 2 * v + ns
                if nd < dist[nxt]:
                    dist[nxt] = nd
                    prev_node[nxt] = node
                    prev_route[nxt] = r
                    frontier.push(nd, nxt)
        return None

    def _station_free(self) -> set[int]:
        """Opponent routes at cities where this player already has a station (borrowable for free)."""
        cached = getattr(self, "_sf", None)
        if cached is None:
            adj = self.info.adj
            cached = {r for c in self.own_station_cities for _, r in adj[c] if self.borrowable[r]}
            self._sf = cached
        return cached

    def plan(self, tickets: list[int], wagons: int | None = None, *, steiner: bool = True,
             allow_borrow: bool = True, value_cut: float = 0.0, orders: int = 1) -> Plan:
        """Greedy Steiner plan (see ``plan_in_order``); with ``orders`` > 1 also tries the tickets
        longest first and shortest first, and keeps the plan that completes most points, then the
        cheapest."""
        info = self.info
        best = self.plan_in_order(sorted(tickets, key=lambda t: -info.ticket_points[t]), wagons, steiner=steiner,
                                  allow_borrow=allow_borrow, value_cut=value_cut)
        if orders > 1 and len(tickets) > 1:
            dist = {t: self.distance(*info.ticket_ends[t]) for t in tickets}
            for order in (sorted(tickets, key=lambda t: -dist[t]), sorted(tickets, key=lambda t: dist[t])):
                other = self.plan_in_order(order, wagons, steiner=steiner, allow_borrow=allow_borrow,
                                           value_cut=value_cut)
                if self._plan_key(other) > self._plan_key(best):
                    best = other
        return best

    def _plan_key(self, plan: Plan) -> tuple[int, float]:
        pts = self.info.ticket_points
        return sum(pts[t] for t in plan.planned) - sum(pts[t] for t in plan.failed), -plan.cost

    def plan_in_order(self, order: list[int], wagons: int | None = None, *, steiner: bool = True,
                      allow_borrow: bool = True, value_cut: float = 0.0) -> Plan:
        """Greedy Steiner plan: tickets in ``order``, each path reusing the earlier ones.

        A ticket whose extra path needs more wagons than are left, or whose points are below
        ``value_cut`` times its cost, is given up.
        """
        info = self.info
        wagons = self.obs.wagons[self.p] if wagons is None else wagons
        free: set[int] = set()
        borrow: list[tuple[int, int]] = []
        done, planned, failed = [], [], []
        used = 0
        cost = 0.0
        stations = self.stations
        comp = self.components()
        for t in order:
            a, b = info.ticket_ends[t]
            if comp[a] == comp[b]:
                done.append(t)
                continue
            found = self.path(a, b, free if steiner else set(), allow_borrow and stations > 0)
            if found is None:
                failed.append(t)
                continue
            c, routes, borrowed = found
            if not routes and borrowed < 0:
                planned.append(t)
                continue
            need = sum(info.route_len[r] for r in routes if r not in free)
            if used + need > wagons or (value_cut and info.ticket_points[t] < value_cut * c):
                failed.append(t)
                continue
            if borrowed >= 0:
                ra, rb = info.route_ends[borrowed]
                city = ra if self.obs.station_owner[ra] == -1 else rb
                if self.obs.station_owner[city] != -1:
                    failed.append(t)
                    continue
                borrow.append((borrowed, city))
                stations -= 1
            used += need
            cost += c
            for r in routes:
                free.add(r)
            planned.append(t)
        routes_out = [r for r in free if self.cost[r] > 0]
        routes_out.sort(key=lambda r: -info.route_len[r])
        return Plan(routes_out, borrow, done, planned, failed, used, cost)

    @cython.locals(parent=list, owner=list, ends=list, p=cython.int, r=cython.int, ra=cython.int, rb=cython.int)
    def components(self) -> list[int]:
        """Component label per city of the player's own routes."""
        parent = list(range(self.info.n_cities))
        owner = self.obs.route_owner
        ends = self.info.route_ends
        p = self.p
        for r in range(len(owner)):
            if owner[r] == p:
                ra = _find(parent, ends[r][0])
                rb = _find(parent, ends[r][1])
                if ra != rb:
                    parent[ra] = rb
        return [_find(parent, x) for x in range(self.info.n_cities)]

    def distance(self, a: int, b: int) -> float:
        found = self.path(a, b, set(), False)
        return INF if found is None else found[0]


@cython.cfunc
@cython.returns(cython.int)
@cython.locals(parent=list, x=cython.int, up=cython.int)
def _find(parent: list[int], x: int) -> int:
    """The root of ``x`` in the union-find ``parent``, halving the path on the way."""
    while True:
        up = parent[x]
        if up == x:
            return x
        parent[x] = parent[up]
        x = parent[x]


def card_needs(info: BoardInfo, hand: list[int], routes: list[int]) -> tuple[list[int], int, int]:
    """(deficit per colour, gray deficit, ferry locomotives still needed) for claiming ``routes``.

    Colour routes take their colour first; gray routes then take the colour with most spare cards;
    locomotives are not counted against deficits here (the caller decides how to use them).
    """
    n_col = info.loco
    spare = hand[:n_col]
    deficit = [0] * n_col
    gray_deficit = 0
    ferry_need = 0
    colored = [r for r in routes if info.route_color[r] != GRAY]
    gray = sorted((r for r in routes if info.route_color[r] == GRAY), key=lambda r: -info.route_len[r])
    for r in colored:
        c = info.route_color[r]
        use = min(spare[c], info.route_len[r])
        spare[c] -= use
        deficit[c] += info.route_len[r] - use
    for r in gray:
        length = info.route_len[r] - info.ferry[r]
        ferry_need += info.ferry[r]
        c = max(range(n_col), key=lambda x: spare[x])
        use = min(spare[c], length)
        spare[c] -= use
        gray_deficit += length - use
    return deficit, gray_deficit, ferry_need


def payment_penalty(info: BoardInfo, action: Any, deficit: list[int], keep_colors: set[int]) -> float:
    """How much a payment hurts: locomotives are precious, colours the plan still needs too."""
    pen = 3.0 * action.n_loco
    c = action.color
    if action.n_color and c >= 0:
        if c in keep_colors:
            pen += 1.5 * action.n_color
        pen += 0.5 * min(action.n_color, max(0, deficit[c]))
    return pen
