"""Ticket to Ride for learning agents: the fixed action encoding and the observation tensor.

One :class:`TTRCodec` serves one (board, variant, player count, history length). It turns

* an engine action into an integer of ``Discrete(n_actions)`` and back (:meth:`encode`,
  :meth:`decode`), and the legal actions of a position into a 0/1 mask (:meth:`legal`);
* a seat's ``game.view(seat)`` -- and nothing else -- into a flat float32 vector with named slices
  (:meth:`observe`), and such a vector into text (:meth:`describe`).

The layouts are documented in ``docs/rl.md``. Card payments are part of the action, encoded so the
space stays small: a claim is ``(route, colour or none, number of locomotives)`` (the route fixes
the card count), a station is ``(city, colour or none, number of locomotives)`` (the station's cost
is known to the mover), a tunnel payment is ``number of extra locomotives`` (the tunnel fixes the
colour and the count), and keeping tickets is a bitmask over the positions of the offer (with an index for
keeping none where a starting offer allows it: Mega's long tickets).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from tracklayer.core.action import Action
from tracklayer.rl.ttr_arrays import TTRArrays
from tracklayer.ttr.actions import NONE, KeepTickets
from tracklayer.ttr.board import GRAY, Board, Variant
from tracklayer.ttr.rules import TUNNEL_REVEAL

if TYPE_CHECKING:
    from tracklayer.ttr.game import TTRGame

PHASES = ("initial", "main", "second_draw", "keep", "tunnel", "over")
MOVE_KINDS = ("draw_face_up", "draw_deck", "claim", "station", "tickets", "keep", "pay", "decline", "pass")
TURN_SCALE = 400  # `progress[0]` is min(turn / TURN_SCALE, 1)


def seat_label(rel: int) -> str:
    """Relative seat as text: 0 is the observer ("you"), 1 the next player to the left, ..."""
    return "you" if rel == 0 else f"+{rel}"


class TTRCodec:
    """Action encoding and observation tensor of one Ticket to Ride configuration."""

    family = "ttr"
    phases = PHASES
    move_kinds = MOVE_KINDS

    def __init__(self, board: Board, variant: Variant, n_players: int, history: int = 0) -> None:
        if history < 0:
            raise ValueError("history must be >= 0")
        self.board = board
        self.variant = variant
        self.n_players = n = n_players
        self.history = history
        b = board
        table = b.actions
        self.n_colors = nc = len(b.colors)
        self.n_kinds = nk = nc + 1  # card kinds: the colours, then the wild card
        self.n_routes = nr = len(b.routes)
        self.n_cities = ncity = len(b.cities)
        self.n_tickets = nt = len(b.tickets)
        self.has_stations = b.features.stations
        self.has_tunnels = b.features.tunnels
        steps = variant.initial.steps
        # the largest single offer (Mega deals 2 long, then 5 regular tickets: 5), and whether a starting
        # offer may be returned whole (Mega's long tickets): then the keep block starts with "keep none"
        self.offer_size = max(variant.draw_count, *(step.size for step in steps))
        self.keep_none = any(step.min_keep == 0 for step in steps)
        z = 1 if self.keep_none else 0
        self.max_cost = max(b.station_costs) if self.has_stations else 0
        self.station_slots = nc * self.max_cost + 1  # (colour, n_loco < cost) ... then "all wild"

        # ------------------------------------------------------------- action layout
        blocks: dict[str, range] = {}
        pos = 0

        def block(name: str, size: int) -> int:
            nonlocal pos
            blocks[name] = range(pos, pos + size)
            pos += size
            return blocks[name].start

        self._draw0 = block("draw", nk + 1)
        self._tickets_i = block("tickets", 1)
        claim_opts: list[list[tuple[int, int]]] = []
        for route in b.routes:
            if route.color == GRAY:
                opts = [(c, nl) for c in range(nc) for nl in range(route.locomotives, route.length)]
            else:
                opts = [(route.color, nl) for nl in range(route.locomotives, route.length)]
            opts.append((NONE, route.length))
            claim_opts.append(opts)
        self._claim0 = block("claim", sum(len(o) for o in claim_opts))
        self._station0 = block("station", ncity * self.station_slots) if self.has_stations else pos
        self._pay0 = block("pay", TUNNEL_REVEAL + 1) if self.has_tunnels else pos
        self._decline_i = block("decline", 1) if self.has_tunnels else -1
        self._keep0 = block("keep", (1 << self.offer_size) - 1 + z)
        self._keep_first = self._keep0 - 1 + z  # index of bitmask b: _keep_first + b (b = 0: keep none)
        self._pass_i = block("pass", 1)
        self.action_blocks = blocks
        self.n_actions = pos

        # decode table for state-free indices, and key -> index for every encodable action
        self._fixed: list[Action | None] = [None] * pos
        index: dict[tuple[Any, ...], int] = {}
        for c in range(nk):
            self._fixed[self._draw0 + c] = table.draw(c)
        self._fixed[self._draw0 + nk] = table.draw_deck
        self._fixed[self._tickets_i] = table.draw_tickets
        self._fixed[self._pass_i] = table.pass_
        if self.has_tunnels:
            self._fixed[self._decline_i] = table.decline
        self._claim_base: list[int] = []  # index of the first payment of each route
        i = self._claim0
        for r, opts in enumerate(claim_opts):
            self._claim_base.append(i)
            for color, nl in opts:
                self._fixed[i] = table.claim(r, color, nl)
                i += 1
        # a coloured claim paying nl wilds is index _claim_first[route] + nl
        self._claim_first = [i - r.locomotives for i, r in zip(self._claim_base, b.routes, strict=True)]
        # per grey route: (payment options per colour, offset of its all-wild payment from _claim_first)
        self._gray_span = [(r.length - r.locomotives, r.locomotives + nc * (r.length - r.locomotives))
                           for r in b.routes]
        for j, a in enumerate(self._fixed):
            if a is not None:
                index[a.key] = j
        if self.has_stations:
            for cost in sorted(set(b.station_costs)):
                for city in range(ncity):
                    base = self._station0 + city * self.station_slots
                    index[table.station(city, NONE, 0, cost).key] = base + self.station_slots - 1
                    for c in range(nc):
                        for nl in range(cost):
                            index[table.station(city, c, cost - nl, nl).key] = base + c * self.max_cost + nl
        if self.has_tunnels:
            for extra in range(1, TUNNEL_REVEAL + 1):
                for nl in range(extra + 1):
                    colors = [NONE] if nl == extra else range(nc)
                    for c in colors:
                        index[table.pay(c, extra - nl, nl).key] = self._pay0 + nl
        self._index = index

        # ------------------------------------------------------------- observation layout
        self._card_ix = {b.card_name(c): c for c in range(nk)}
        self._city_ix = {name: c for c, name in enumerate(b.cities)}
        self._ticket_ix = {t.id: t.index for t in b.tickets}
        self._lanes: dict[str, list[int]] = {}
        for r in range(nr):
            self._lanes.setdefault(b.route_label(r), []).append(r)
        self.total_cards = nc * b.per_color + b.locomotives
        self._card_scale = [float(b.per_color)] * nc + [float(b.locomotives)]
        self.max_route_points = sum(b.route_score)
        self.max_route_length = max(r.length for r in b.routes)
        slices: dict[str, slice] = {}
        pos = 0

        def part(name: str, size: int) -> int:
            nonlocal pos
            slices[name] = slice(pos, pos + size)
            pos += size
            return pos - size

        self.player_fields = ["wagons", "route_points", "cards", "tickets", "choosing_tickets"]
        if self.has_stations:
            self.player_fields.append("stations_left")
        self._o_phase = part("phase", len(PHASES))
        self._o_to_move = part("to_move", n)
        self._o_first = part("first_player", n)
        self._o_progress = part("progress", 3)
        self._o_hand = part("hand", nk)
        self._o_market = part("market", nk + 1)
        self._o_piles = part("piles", 3)
        self._o_players = part("players", n * len(self.player_fields))
        self._o_routes = part("routes", nr * n)
        self._route_base = [self._o_routes + r * n for r in range(nr)]
        self._o_stations = part("stations", ncity * n) if self.has_stations else -1
        self._o_tickets = part("tickets", nt * 2)
        self._o_offer = part("offer", self.offer_size * nt)
        if self.has_tunnels:
            self._o_tunnel_route = part("tunnel_route", nr)
            self._o_tunnel_color = part("tunnel_color", nk)
            self._o_tunnel_cards = part("tunnel_cards", 2)
            self._o_tunnel_revealed = part("tunnel_revealed", nk)
            self._o_tunnel_extra = part("tunnel_extra", 1)
        self._hist_width = n + len(MOVE_KINDS) + nk
        self._o_history = part("history", history * self._hist_width) if history else -1
        self.slices = slices
        self.obs_size = pos
        self._phase_ix = {p: i for i, p in enumerate(PHASES)}
        self._kind_ix = {k: i for i, k in enumerate(MOVE_KINDS)}
        self._arrays: TTRArrays | None = None  # the typed writer, made with the first game (its move generator)

    # ================================================================= actions
    def encode(self, game: TTRGame, action: Action) -> int:
        """Index of ``action`` in the current position of ``game`` (keeps depend on the offer)."""
        i = self._index.get(action.key)
        if i is not None:
            return i
        return self._encode_keep(action, game.state.offers[game.state.current])

    def encode_view(self, view: dict[str, Any], action: Action) -> int:
        """``encode`` from a seat's view: a player outside the engine sees its own offer, not the game."""
        i = self._index.get(action.key)
        if i is not None:
            return i
        by_id = self.board.ticket_by_id
        return self._encode_keep(action, [by_id[t["id"].lower()] for t in view.get("offer") or ()])

    def _encode_keep(self, action: Action, offer: Sequence[int]) -> int:
        """A ticket choice is a bitmask over the offer's positions."""
        if isinstance(action, KeepTickets):
            try:
                bits = sum(1 << offer.index(t) for t in action.tickets)
            except ValueError:
                raise ValueError(f"{action}: the tickets are not all on offer") from None
            if (not bits and not self.keep_none) or len(set(action.tickets)) != len(action.tickets):
                raise ValueError(f"{action}: not a ticket choice")
            return self._keep_first + bits
        raise ValueError(f"{action!s} has no index in this encoding")

    def decode(self, game: TTRGame, index: int) -> Action:
        """The engine action of ``index`` in the current position (legal or not).

        Raises ``ValueError`` when the index cannot stand for a move here at all (e.g. a keep of
        an offer position that is empty, or a station payment of more cards than the station costs).
        """
        i = int(index)
        if not 0 <= i < self.n_actions:
            raise ValueError(f"action index {i} is outside 0..{self.n_actions - 1}")
        fixed = self._fixed[i]
        if fixed is not None:
            return fixed
        s = game.state
        table = self.board.actions
        b = self.board
        if self._keep0 <= i < self._keep_first + (1 << self.offer_size):
            bits = i - self._keep_first
            offer = s.offers[s.current]
            if bits >> len(offer):
                raise ValueError(f"action {i} keeps offer positions that hold no ticket")
            return table.keep(tuple(sorted(offer[k] for k in range(len(offer)) if bits >> k & 1)))
        if self.has_stations and self._station0 <= i < self._station0 + self.n_cities * self.station_slots:
            city, slot = divmod(i - self._station0, self.station_slots)
            left = s.stations_left[s.current]
            if not left:
                raise ValueError(f"action {i}: no station left to build")
            cost = b.station_costs[b.stations - left]
            if slot == self.station_slots - 1:
                return table.station(city, NONE, 0, cost)
            color, nl = divmod(slot, self.max_cost)
            if nl >= cost:
                raise ValueError(f"action {i}: this station costs {cost} card(s), not more than {nl} wilds")
            return table.station(city, color, cost - nl, nl)
        if self.has_tunnels and self._pay0 <= i <= self._pay0 + TUNNEL_REVEAL:
            t = s.tunnel
            if t is None:
                raise ValueError(f"action {i}: no tunnel is waiting for payment")
            nl = i - self._pay0
            n_color = t.extra - nl
            if n_color < 0 or (n_color and t.color == NONE):
                raise ValueError(f"action {i}: the tunnel needs {t.extra} extra card(s) of another kind")
            return table.pay(t.color if n_color else NONE, n_color, nl)
        raise ValueError(f"action index {i} decodes to nothing")  # pragma: no cover

    def legal(self, game: TTRGame) -> tuple[list[int], list[Action]]:
        """Indices and actions of every legal action of the player to move (same order)."""
        legal = game.legal_actions()
        acts = legal if isinstance(legal, list) else list(legal)
        if acts and acts[0].kind == "keep":  # keeps are encoded by offer position: state-dependent
            bit = {t: 1 << k for k, t in enumerate(game.state.offers[game.state.current])}.__getitem__
            first = self._keep_first
            keeps = cast("list[KeepTickets]", acts)  # a ticket choice's legal actions are all keeps
            return [first + sum(map(bit, a.tickets)) for a in keeps], acts
        get = self._index.get
        idx = [get(a.key, -1) for a in acts]
        if -1 in idx:
            bad = acts[idx.index(-1)]
            raise ValueError(f"the engine offers {bad!s}, which this encoding cannot represent")
        return idx, acts

    def mask(self, game: TTRGame) -> np.ndarray:
        """int8 0/1 mask of the legal actions of the player to move: the indices of :meth:`legal`, filled
        from the engine's parts of a turn instead of one action at a time (see :meth:`mask_bytes`)."""
        return np.frombuffer(self.mask_bytes(game), dtype=np.int8)

    def mask_bytes(self, game: TTRGame) -> bytearray:
        """:meth:`mask` as one 0/1 byte per action (environments keep it and index it without numpy),
        written by :class:`~tracklayer.rl.ttr_arrays.TTRArrays` from the legal-move generator's parts of the
        turn, without making action objects."""
        out = bytearray(self.n_actions)
        self.arrays(game).mask(game, np.frombuffer(out, dtype=np.uint8))
        return out

    def __getstate__(self) -> dict[str, Any]:
        """Pickles (and copies) without the typed writer: it is made again with the next game."""
        state = self.__dict__.copy()
        state["_arrays"] = None
        return state

    def arrays(self, game: TTRGame) -> TTRArrays:
        """The typed writer of this layout (one per codec; the move generator is the board's)."""
        arrays = self._arrays
        if arrays is None:
            arrays = self._arrays = TTRArrays(self, game.rules.moves)
        return arrays

    def block_of(self, index: int) -> tuple[str, int]:
        """(block name, offset in the block) of an action index; blocks are ``action_blocks``."""
        for name, rng in self.action_blocks.items():
            if index in rng:
                return name, index - rng.start
        raise ValueError(f"action index {index} is outside 0..{self.n_actions - 1}")

    def action_label(self, index: int) -> str:
        """A state-free description of an index (for logs and debugging), e.g. ``claim Paris-Wien/red: 1 wild``."""
        i = int(index)
        b = self.board
        name, k = self.block_of(i)
        if name in ("claim", "draw", "tickets", "pass", "decline"):
            return str(self._fixed[i])
        if name == "station":
            city, slot = divmod(k, self.station_slots)
            if slot == self.station_slots - 1:
                return f"station {b.cities[city]}: only {b.locomotive_name}s"
            color, nl = divmod(slot, self.max_cost)
            return f"station {b.cities[city]}: {b.colors[color]} + {nl} {b.locomotive_name}"
        if name == "pay":
            return f"pay: tunnel colour + {k} {b.locomotive_name}"
        bits = i - self._keep_first
        if not bits:
            return "keep none"
        return "keep offer position(s) " + " ".join(str(p + 1) for p in range(self.offer_size) if bits >> p & 1)

    # ================================================================= observations
    def observe(self, view: dict[str, Any]) -> np.ndarray:
        """The float32 observation of the seat whose ``view`` this is (values in [0, 1])."""
        n = self.n_players
        seat = view["seat"]
        obs = np.zeros(self.obs_size, dtype=np.float32)
        ones: list[int] = []  # indices set to 1.0
        at: list[int] = []  # indices set to the values in `vals`
        vals: list[float] = []
        one = ones.append
        phase = view["phase"]
        one(self._o_phase + self._phase_ix[phase])
        cur = view["current_player"]
        if cur is not None:
            one(self._o_to_move + (cur - seat) % n)
        one(self._o_first + (view["first_player"] - seat) % n)
        p0 = self._o_progress
        turn = view["turn"] / TURN_SCALE
        at += (p0, p0 + 1, p0 + 2)
        vals += (turn if turn < 1.0 else 1.0, 1.0 if view["final_round"] else 0.0,
                 (view["final_turns_left"] or 0) / n)
        card_ix = self._card_ix
        scale = self._card_scale
        h0 = self._o_hand
        for name, count in view["hand"].items():
            if count:
                c = card_ix[name]
                at.append(h0 + c)
                vals.append(count / scale[c])
        m0 = self._o_market
        market = view["market"]
        nm = len(market)
        counts: dict[int, int] = {}
        for name in market:
            c = self.n_kinds if name is None else card_ix[name]
            counts[c] = counts.get(c, 0) + 1
        for c, k in counts.items():
            at.append(m0 + c)
            vals.append(k / nm)
        q0 = self._o_piles
        at += (q0, q0 + 1, q0 + 2)
        vals += (view["deck"] / self.total_cards, view["discard"] / self.total_cards,
                 view["ticket_deck"] / self.n_tickets)
        width = len(self.player_fields)
        stations = self.has_stations
        offer_size = self.offer_size
        for entry in view["players"]:
            base = self._o_players + ((entry["seat"] - seat) % n) * width
            at += (base, base + 1, base + 2, base + 3, base + 4)
            vals += (entry["wagons"] / self.board.wagons, entry["route_points"] / self.max_route_points,
                     entry["cards"] / self.total_cards, entry["tickets"] / self.n_tickets,
                     entry.get("choosing_tickets", 0) / offer_size)
            if stations:
                at.append(base + 5)
                vals.append(entry["stations_left"] / self.board.stations)
        ones += [base + (o - seat) % n for base, o in zip(self._route_base, view["route_owner"], strict=True)
                 if o is not None]
        if stations:
            s0 = self._o_stations
            city_ix = self._city_ix
            for city, o in view["stations"].items():
                one(s0 + city_ix[city] * n + (o - seat) % n)
        t_ix = self._ticket_ix
        t0 = self._o_tickets
        for t in view["tickets"]:
            k = t_ix[t["id"]]
            one(t0 + 2 * k)
            if t["completed"]:
                one(t0 + 2 * k + 1)
        f0 = self._o_offer
        nt = self.n_tickets
        for pos, t in enumerate(view["offer"]):
            one(f0 + pos * nt + t_ix[t["id"]])
        tunnel = view.get("tunnel")
        if tunnel is not None:
            owner = view["route_owner"]
            lanes = self._lanes[tunnel["route"]]
            r = next((x for x in lanes if owner[x] is None), lanes[0])
            one(self._o_tunnel_route + r)
            color, n_color, n_loco = self.board.actions.parse_cards(tunnel["played"])
            one(self._o_tunnel_color + (self.n_colors if color == NONE else color))
            at += (self._o_tunnel_cards, self._o_tunnel_cards + 1, self._o_tunnel_extra)
            vals += (n_color / self.max_route_length, n_loco / self.max_route_length, tunnel["extra"] / TUNNEL_REVEAL)
            rev: dict[int, int] = {}
            for name in tunnel["revealed"]:
                c = card_ix[name]
                rev[c] = rev.get(c, 0) + 1
            for c, k in rev.items():
                at.append(self._o_tunnel_revealed + c)
                vals.append(k / TUNNEL_REVEAL)
        if self.history:
            log = view["log"][-self.history:]
            w = self._hist_width
            base = self._o_history + (self.history - len(log)) * w  # newest last, padded at the front
            for entry in log:
                one(base + (entry["player"] - seat) % n)
                word, _, rest = entry["move"].partition(" ")
                if word == "draw":
                    if rest == "deck":
                        one(base + n + 1)
                    else:
                        one(base + n)
                        one(base + n + len(MOVE_KINDS) + card_ix[rest])
                else:
                    one(base + n + self._kind_ix[word.rstrip(":")])
                base += w
        obs[ones] = 1.0
        obs[at] = vals
        return obs

    def observe_game(self, game: TTRGame, seat: int) -> np.ndarray:
        """The observation of ``seat`` in ``game``: equal to ``observe(game.view(seat, **view_options))``,
        written from the engine's state by :class:`~tracklayer.rl.ttr_arrays.TTRArrays` (same visibility)."""
        obs = np.empty(self.obs_size, dtype=np.float32)
        self.observe_into(game, seat, obs)
        return obs

    def observe_into(self, game: TTRGame, seat: int, out: np.ndarray) -> None:
        """Write :meth:`observe_game` into ``out``, a float32 row of ``obs_size`` (a row of a batch)."""
        self.arrays(game).observe(game, seat, out)

    @property
    def view_options(self) -> dict[str, Any]:
        """Keyword arguments for ``game.view(seat, ...)``: only the log entries :meth:`observe` reads."""
        return {"log_tail": self.history}

    # ================================================================= text
    def describe(self, obs: Sequence[float] | np.ndarray) -> str:
        """The observation as text: exactly the information of the vector, slice by slice."""
        v = np.asarray(obs, dtype=np.float64)
        b = self.board
        n = self.n_players
        sl = self.slices

        def part(name: str) -> np.ndarray:
            return v[sl[name]]

        def count(x: float, scale: float) -> int:
            return round(x * scale)

        def cards(vec: np.ndarray, scales: Sequence[float]) -> str:
            items = [f"{count(x, scales[c])} {b.card_name(c)}" for c, x in enumerate(vec[:self.n_kinds]) if x > 0]
            return ", ".join(items) or "nothing"

        lines = []
        phase = PHASES[int(np.argmax(part("phase")))]
        mover = part("to_move")
        first = int(np.argmax(part("first_player")))
        turn, final, left = part("progress")
        lines.append(f"phase: {phase}; to move: {seat_label(int(np.argmax(mover))) if mover.any() else 'nobody'}; "
                     f"first player: {seat_label(first)}; turn: {count(turn, TURN_SCALE)}"
                     + ("+" if turn >= 1.0 else "")
                     + (f"; final round, {count(left, n)} turn(s) left" if final else ""))
        lines.append(f"hand: {cards(part('hand'), self._card_scale)}")
        market = part("market")
        face_up = b.face_up
        shown = [f"{count(x, face_up)} {b.card_name(c)}" for c, x in enumerate(market[:-1]) if x > 0]
        if market[-1] > 0:
            shown.append(f"{count(market[-1], face_up)} empty")
        lines.append(f"market: {', '.join(shown)}")
        deck, discard, tdeck = part("piles")
        lines.append(f"piles: deck {count(deck, self.total_cards)}, discard {count(discard, self.total_cards)}, "
                     f"tickets {count(tdeck, self.n_tickets)}")
        scales = {"wagons": b.wagons, "route_points": self.max_route_points, "cards": self.total_cards,
                  "tickets": self.n_tickets, "choosing_tickets": self.offer_size, "stations_left": b.stations}
        players = part("players").reshape(n, len(self.player_fields))
        routes = part("routes").reshape(self.n_routes, n)
        stations = part("stations").reshape(self.n_cities, n) if self.has_stations else None
        for rel in range(n):
            fields = ", ".join(f"{f} {count(x, scales[f])}" for f, x in zip(self.player_fields, players[rel],
                                                                                strict=True))
            lines.append(f"player {seat_label(rel)}: {fields}")
            owned = [b.route_label(r) for r in range(self.n_routes) if routes[r, rel] > 0]
            lines.append(f"  routes ({len(owned)}): {', '.join(owned) or '-'}")
            if stations is not None:
                built = [b.cities[c] for c in range(self.n_cities) if stations[c, rel] > 0]
                lines.append(f"  stations: {', '.join(built) or '-'}")
        tk = part("tickets").reshape(self.n_tickets, 2)
        held = []
        for t in range(self.n_tickets):
            if tk[t, 0] > 0:
                ticket = b.tickets[t]
                held.append(f"{ticket.id} {b.cities[ticket.a]}-{b.cities[ticket.b]} {ticket.points}"
                            + (" done" if tk[t, 1] > 0 else ""))
        lines.append(f"my tickets: {'; '.join(held) or '-'}")
        offer = part("offer").reshape(self.offer_size, self.n_tickets)
        offered = []
        for pos in range(self.offer_size):
            if offer[pos].any():
                ticket = b.tickets[int(np.argmax(offer[pos]))]
                offered.append(f"{pos + 1}: {ticket.id} {b.cities[ticket.a]}-{b.cities[ticket.b]} {ticket.points}"
                               + (" long" if ticket.long else ""))
        if offered:
            lines.append(f"offer: {'; '.join(offered)}")
        if self.has_tunnels and part("tunnel_route").any():
            r = int(np.argmax(part("tunnel_route")))
            color = int(np.argmax(part("tunnel_color")))
            n_color, n_loco = part("tunnel_cards")
            paid = []
            if count(n_color, self.max_route_length):
                paid.append(f"{count(n_color, self.max_route_length)} {b.colors[color]}")
            if count(n_loco, self.max_route_length):
                paid.append(f"{count(n_loco, self.max_route_length)} {b.locomotive_name}")
            revealed = cards(part("tunnel_revealed"), [TUNNEL_REVEAL] * self.n_kinds)
            lines.append(f"tunnel: {b.route_label(r)} played {' + '.join(paid)}; revealed {revealed}; "
                         f"{count(part('tunnel_extra')[0], TUNNEL_REVEAL)} more card(s) to pay")
        if self.history:
            moves = []
            w = self._hist_width
            h = part("history").reshape(self.history, w)
            for row in h:
                if not row.any():
                    continue
                who = seat_label(int(np.argmax(row[:n])))
                kind = MOVE_KINDS[int(np.argmax(row[n:n + len(MOVE_KINDS)]))]
                if kind == "draw_face_up":
                    kind = f"draw {b.card_name(int(np.argmax(row[n + len(MOVE_KINDS):])))}"
                moves.append(f"{who}: {kind}")
            lines.append(f"recent moves: {'; '.join(moves) or '-'}")
        return "\n".join(lines)

    # ================================================================= results
    @staticmethod
    def final_scores(game: TTRGame, result: dict[str, Any]) -> list[float]:
        """Final points per seat from ``game.result()``."""
        out = [0.0] * game.n_players
        for entry in result["players"]:
            out[entry["seat"]] = float(entry["total"])
        return out

    @staticmethod
    def winners(game: TTRGame, result: dict[str, Any]) -> list[int]:
        """Seats that won (after the tie-break; several when it is still shared)."""
        return [game.players.index(name) for name in result["winners"]]


_CODECS: dict[tuple[int, str, int, int], TTRCodec] = {}


def ttr_codec(game: TTRGame, history: int = 0) -> TTRCodec:
    """The codec of ``game``'s board, variant and player count (cached while the board object lives)."""
    key = (id(game.board), game.variant.name, game.n_players, history)
    codec = _CODECS.get(key)
    if codec is None or codec.board is not game.board:
        if len(_CODECS) >= 64:  # boards with user tickets are new objects per game: keep the cache small
            _CODECS.clear()
        codec = _CODECS[key] = TTRCodec(game.board, game.variant, game.n_players, history)
    return codec
