"""Trans Europa / Trans America for learning agents: action encoding and observation tensor.

Every Trans move is already one small choice (one rail per action, a turn goes on while its budget
lasts), so the encoding is direct: ``start`` per grid point, ``rail`` per line, ``end``, ``pass``,
``return`` per city and ``give`` (pass a city card left) per city. Observations are built from what
the seat may see only: ``observe`` reads ``game.view(seat, hints=False)`` (the hint is an exact Steiner
computation: agents get the board instead), and ``observe_game``, the environments' path, reads the
engine's compact ``game.observation_view(seat)`` (the same information as integer ids) into exactly the
same vector. Layouts are documented in ``docs/rl.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import add
from typing import TYPE_CHECKING, Any

import numpy as np

from tracklayer.core.action import Action
from tracklayer.trans.board import Board
from tracklayer.trans.cards import load_cards
from tracklayer.trans.state import RAILS, START, TASK_NAMES

if TYPE_CHECKING:
    from tracklayer.trans.game import TransGame
    from tracklayer.trans.view import ObservationView

PHASES = ("start", "rails", "choose", "over")
MOVE_KINDS = ("start", "rail", "end", "pass", "return", "give")
TASKS = tuple(TASK_NAMES[k] for k in sorted(TASK_NAMES))
ROUND_SCALE = 20  # progress[0] = min(round / ROUND_SCALE, 1)
TURN_SCALE = 40  # progress[1] = min(game round of the rail phase / TURN_SCALE, 1)
BUDGET_SCALE = 4  # rails per turn, at most 2 + card 3 + the rhythm card
HAND_SCALE = 10  # cities in a hand
COLOR_SCALE = 3  # cities of one colour in a hand
CARD_MOVES = ("returned", "took", "passed", "received")


def seat_label(rel: int) -> str:
    return "you" if rel == 0 else f"+{rel}"


class TransCodec:
    """Action encoding and observation tensor of one Trans board and player count."""

    family = "trans"

    def __init__(self, board: Board, n_players: int, history: int = 0) -> None:
        if history < 0:
            raise ValueError("history must be >= 0")
        self.board = b = board
        self.n_players = n = n_players
        self.history = history
        table = b.actions
        self.n_points = npt = b.n_points
        self.n_edges = ne = b.n_edges
        self.n_cities = nc = len(b.cities)
        self.n_colors = nk = len(b.colors)
        cards = load_cards()
        self.card_ids = sorted(cards)

        blocks: dict[str, range] = {}
        fixed: list[Action] = []
        for name, actions in (("start", table.start), ("rail", table.rail), ("end", [table.end]),
                              ("pass", [table.pass_]), ("return", table.give_back), ("give", table.give)):
            blocks[name] = range(len(fixed), len(fixed) + len(actions))
            fixed.extend(actions)
        self.action_blocks = blocks
        self.n_actions = len(fixed)
        self._fixed = fixed
        self._index = {a.key: i for i, a in enumerate(fixed)}

        slices: dict[str, slice] = {}
        pos = 0

        def part(name: str, size: int) -> int:
            nonlocal pos
            slices[name] = slice(pos, pos + size)
            pos += size
            return pos - size

        self.player_fields = ["score", "cities", *(f"{c}_cards" for c in b.colors)]
        self._o_phase = part("phase", len(PHASES))
        self._o_to_move = part("to_move", n)
        self._o_start_player = part("start_player", n)
        self._o_progress = part("progress", 2)
        self._o_turn = part("turn", 4)
        self._o_supply = part("supply", 1)
        self._o_special = part("special_cards", len(self.card_ids) + 1)
        self._o_players = part("players", n * len(self.player_fields))
        self._o_markers = part("markers", npt * n)
        self._o_rails = part("rails", ne * n)
        self._o_shares = part("shares_network", n * n)
        self._o_cities = part("cities", nc)
        self._o_open = part("open_cities", n * nc)
        self._o_moves = part("card_moves", len(CARD_MOVES) * nc)
        self._o_choice = part("choice", len(TASKS) + n + nk + 1 + nc + n)
        self._hist_width = n + len(MOVE_KINDS)
        self._o_history = part("history", history * self._hist_width) if history else -1
        self.slices = slices
        self.obs_size = pos

        self._phase_ix = {p: i for i, p in enumerate(PHASES)}
        self._task_ix = {t: i for i, t in enumerate(TASKS)}
        self._point_ix = {b.point_text(p): p for p in range(npt)}
        self._edge_ix = {b.edge_text(e): e for e in range(ne)}
        self._city_ix = {c.name: c.index for c in b.cities}
        self._color_ix = {c: i for i, c in enumerate(b.colors)}
        self._card_ix = {cid: i for i, cid in enumerate(self.card_ids)}
        self._rail_base = [self._o_rails + e * n for e in range(ne)]
        self._rel = [[(q - seat) % n for q in range(n)] for seat in range(n)]  # [seat][absolute] -> relative
        self._order = [[(seat + r) % n for r in range(n)] for seat in range(n)]  # [seat][relative] -> absolute
        self._kind_ix = {k: i for i, k in enumerate(MOVE_KINDS)}
        self._task_of_kind = {k: i for i, k in enumerate(sorted(TASK_NAMES))}
        self._rail0 = blocks["rail"].start
        self._start0 = blocks["start"].start
        self._end_i = blocks["end"].start
        self._pass_i = blocks["pass"].start
        self._all_points = b"\x01" * npt

    # ================================================================= actions
    @property
    def view_options(self) -> dict[str, Any]:
        return {"log_tail": self.history, "hints": False}

    def encode(self, game: TransGame, action: Action) -> int:
        i = self._index.get(action.key)
        if i is None:
            raise ValueError(f"{action!s} has no index in this encoding (compound rails are played one by one)")
        return i

    def decode(self, game: TransGame, index: int) -> Action:
        i = int(index)
        if not 0 <= i < self.n_actions:
            raise ValueError(f"action index {i} is outside 0..{self.n_actions - 1}")
        return self._fixed[i]

    def legal(self, game: TransGame) -> tuple[list[int], list[Action]]:
        acts = list(game.legal_actions())
        get = self._index.get
        idx = [get(a.key, -1) for a in acts]
        if -1 in idx:
            raise ValueError(f"the engine offers {acts[idx.index(-1)]!s}, which this encoding cannot represent")
        return idx, acts

    def mask(self, game: TransGame) -> np.ndarray:
        """int8 0/1 mask of the legal actions of the player to move (the indices of :meth:`legal`)."""
        return np.frombuffer(self.mask_bytes(game), dtype=np.int8)

    def mask_bytes(self, game: TransGame) -> bytearray:
        """:meth:`mask` as one 0/1 byte per action (environments keep it and index it without numpy).

        Rails and start markers (nearly every move) are read from what ``legal_actions`` builds its list
        from (``Rules.rail_turn``, the free points) without making or sorting action objects; the
        few city choices go through :meth:`legal`."""
        s = game.state
        out = bytearray(self.n_actions)
        phase = s.phase
        if phase == RAILS:
            lines, end, pass_ = game.rules.rail_turn(s)
            r0 = self._rail0
            for e in lines:
                out[r0 + e] = 1
            out[self._end_i] = end
            out[self._pass_i] = pass_
        elif phase == START:
            s0 = self._start0
            out[s0:s0 + self.n_points] = self._all_points
            for p in s.markers:
                if p >= 0:
                    out[s0 + p] = 0
        else:
            for i in self.legal(game)[0]:
                out[i] = 1
        return out

    def observe_game(self, game: TransGame, seat: int) -> np.ndarray:
        """The observation of ``seat``: equal to ``observe(game.view(seat, **view_options))``, built from
        the engine's compact ``game.observation_view(seat)`` (same visibility, integer ids)."""
        return self.observe_compact(game.observation_view(seat, log_tail=self.history))

    def block_of(self, index: int) -> tuple[str, int]:
        for name, rng in self.action_blocks.items():
            if index in rng:
                return name, index - rng.start
        raise ValueError(f"action index {index} is outside 0..{self.n_actions - 1}")

    def action_label(self, index: int) -> str:
        self.block_of(int(index))
        return str(self._fixed[int(index)])

    # ================================================================= observations
    def observe(self, view: dict[str, Any]) -> np.ndarray:
        n = self.n_players
        seat = view["seat"]
        b = self.board
        obs = np.zeros(self.obs_size, dtype=np.float32)
        ones: list[int] = []
        at: list[int] = []
        vals: list[float] = []
        one = ones.append
        one(self._o_phase + self._phase_ix[view["phase"]])
        cur = view["current_player"]
        if cur is not None:
            one(self._o_to_move + (cur - seat) % n)
        one(self._o_start_player + (view["start_player"] - seat) % n)
        turn = view.get("turn")
        game_round = turn["game_round"] if turn else 0
        at += (self._o_progress, self._o_progress + 1)
        vals += (min(view["round"] / ROUND_SCALE, 1.0), min(game_round / TURN_SCALE, 1.0))
        if turn:
            t0 = self._o_turn
            at += (t0, t0 + 1, t0 + 2)
            vals += (min(turn["budget"] / BUDGET_SCALE, 1.0), min(turn["used"] / BUDGET_SCALE, 1.0),
                     min(turn["left"] / BUDGET_SCALE, 1.0))
            if turn["finishing"]:
                one(t0 + 3)
        at.append(self._o_supply)
        vals.append(view["supply"] / b.rails)
        for card in view["special_cards"]:
            one(self._o_special + self._card_ix[card["id"]])
        at.append(self._o_special + len(self.card_ids))
        vals.append(min(view["special_deck"] / len(self.card_ids), 1.0))
        width = len(self.player_fields)
        point_ix = self._point_ix
        city_ix = self._city_ix
        color_ix = self._color_ix
        for entry in view["players"]:
            rel = (entry["seat"] - seat) % n
            base = self._o_players + rel * width
            at += (base, base + 1)
            vals += (min(entry["score"] / b.goal, 1.0), min(entry["cities"] / HAND_SCALE, 1.0))
            colors: dict[int, int] = {}
            for name in entry["card_colors"]:
                k = color_ix[name]
                colors[k] = colors.get(k, 0) + 1
            for k, count in colors.items():
                at.append(base + 2 + k)
                vals.append(min(count / COLOR_SCALE, 1.0))
            if entry["start"] is not None:
                one(self._o_markers + point_ix[entry["start"]] * n + rel)
            for q in entry.get("shares_network_with", ()):
                one(self._o_shares + rel * n + (q - seat) % n)
            for name in entry.get("open_cities", ()):
                one(self._o_open + rel * self.n_cities + city_ix[name])
        edge_ix = self._edge_ix
        rail_base = self._rail_base
        ones += [rail_base[edge_ix[r["line"]]] + (r["player"] - seat) % n for r in view["rails"]]
        for c in view.get("cities", ()):
            one(self._o_cities + city_ix[c["name"]])
        nc = self.n_cities
        for move in view.get("card_moves", ()):
            for k, kind in enumerate(CARD_MOVES):
                name = move.get(kind)
                if name is not None:
                    one(self._o_moves + k * nc + city_ix[name])
        choice = view.get("choice")
        if choice is not None:
            c0 = self._o_choice
            one(c0 + self._task_ix[choice["step"]])
            c0 += len(TASKS)
            one(c0 + (choice["waiting_for"] - seat) % n)
            c0 += n
            if "color" in choice:
                one(c0 + color_ix[choice["color"]])
            c0 += self.n_colors
            if "pass_round" in choice:
                at.append(c0)
                vals.append(min(choice["pass_round"] / 3, 1.0))
            c0 += 1
            if "my_choice" in choice:
                one(c0 + city_ix[choice["my_choice"]])
            c0 += nc
            for q in choice["still_to_choose"]:
                one(c0 + (q - seat) % n)
        if self.history:
            log = view["log"][-self.history:]
            w = self._hist_width
            base = self._o_history + (self.history - len(log)) * w
            for entry in log:
                one(base + (entry["player"] - seat) % n)
                word, _, rest = entry["move"].partition(" ")
                kind = "give" if word == "pass" and rest else ("rail" if word == "rails" else word)
                one(base + n + MOVE_KINDS.index(kind))
                base += w
        obs[ones] = 1.0
        obs[at] = vals
        return obs

    def observe_compact(self, v: ObservationView) -> np.ndarray:
        """:meth:`observe` of the compact view: the same vector (the same values from the same ints), with
        no names to look up."""
        n = self.n_players
        seat = v.seat
        rel = self._rel[seat]
        b = self.board
        obs = np.zeros(self.obs_size, dtype=np.float32)
        ones: list[int] = [self._o_phase + self._phase_ix[v.phase], self._o_start_player + rel[v.start_player]]
        one = ones.append
        cur = v.current_player
        if cur is not None:
            one(self._o_to_move + rel[cur])
        turn = v.turn
        p0 = self._o_progress
        at = [p0, p0 + 1, self._o_supply, self._o_special + len(self.card_ids)]
        vals = [min(v.round / ROUND_SCALE, 1.0), min(turn[2] / TURN_SCALE, 1.0) if turn else 0.0,
                v.supply / b.rails, min(v.special_deck / len(self.card_ids), 1.0)]
        if turn:
            t0 = self._o_turn
            budget, used = turn[0], turn[1]
            at += (t0, t0 + 1, t0 + 2)
            vals += (min(budget / BUDGET_SCALE, 1.0), min(used / BUDGET_SCALE, 1.0),
                     min((budget - used) / BUDGET_SCALE, 1.0))
            if turn[3]:
                one(t0 + 3)
        special, card_ix = self._o_special, self._card_ix
        for card in v.cards:
            one(special + card_ix[card])
        width = len(self.player_fields)
        o_players, o_markers, o_shares, o_open = self._o_players, self._o_markers, self._o_shares, self._o_open
        nc = self.n_cities
        goal = b.goal
        markers, shares, open_cities = v.markers, v.shares, v.open_cities
        for q in range(n):
            r = rel[q]
            base = o_players + r * width
            at += (base, base + 1)
            vals += (min(v.scores[q] / goal, 1.0), min(v.hand_sizes[q] / HAND_SCALE, 1.0))
            for k, count in enumerate(v.colors[q]):
                if count:
                    at.append(base + 2 + k)
                    vals.append(min(count / COLOR_SCALE, 1.0))
            if markers[q] >= 0:
                one(o_markers + markers[q] * n + r)
            if shares:
                ones += [o_shares + r * n + rel[x] for x in shares[q]]
            if open_cities:
                ones += [o_open + r * nc + c for c in open_cities[q]]
        ones += map(add, map(self._rail_base.__getitem__, v.rails), map(rel.__getitem__, v.rail_owners))
        o_cities = self._o_cities
        ones += [o_cities + c for c in v.hand]
        o_moves = self._o_moves
        ones += [o_moves + k * nc + c for k, c in v.card_moves]
        choice = v.choice
        if choice is not None:
            kind, waiting, color, pass_round, mine, queue = choice
            c0 = self._o_choice
            one(c0 + self._task_of_kind[kind])
            c0 += len(TASKS)
            one(c0 + rel[waiting])
            c0 += n
            if color >= 0:
                one(c0 + color)
            c0 += self.n_colors
            if pass_round:
                at.append(c0)
                vals.append(min(pass_round / 3, 1.0))
            c0 += 1
            if mine >= 0:
                one(c0 + mine)
            c0 += nc
            ones += [c0 + rel[q] for q in queue]
        if self.history:
            log = v.log[-self.history:]
            w = self._hist_width
            base = self._o_history + (self.history - len(log)) * w
            kind_ix = self._kind_ix
            for mover, move_kind in log:
                ones += (base + rel[mover], base + n + kind_ix[move_kind])
                base += w
        obs.put(ones, 1.0)  # put: the same float32 values as obs[ones] = ..., a little cheaper than indexing
        obs.put(at, vals)
        return obs

    # ================================================================= text
    def describe(self, obs: Sequence[float] | np.ndarray) -> str:
        v = np.asarray(obs, dtype=np.float64)
        b = self.board
        n = self.n_players
        sl = self.slices

        def part(name: str) -> np.ndarray:
            return v[sl[name]]

        def count(x: float, scale: float) -> int:
            return round(x * scale)

        lines = []
        mover = part("to_move")
        rnd, game_round = part("progress")
        who = seat_label(int(np.argmax(mover))) if mover.any() else "nobody"
        lines.append(f"phase: {PHASES[int(np.argmax(part('phase')))]}; to move: {who}; round "
                     f"{count(rnd, ROUND_SCALE)} (start player {seat_label(int(np.argmax(part('start_player'))))})")
        budget, used, left, finishing = part("turn")
        if budget:
            lines.append(f"turn: game round {count(game_round, TURN_SCALE)}, budget {count(budget, BUDGET_SCALE)}, "
                         f"used {count(used, BUDGET_SCALE)}, left {count(left, BUDGET_SCALE)}"
                         + (", finishing" if finishing else ""))
        lines.append(f"supply: {count(part('supply')[0], b.rails)} rails")
        special = part("special_cards")
        cards = [str(cid) for k, cid in enumerate(self.card_ids) if special[k] > 0]
        lines.append(f"special cards: {', '.join(cards) or '-'} (deck {count(special[-1], len(self.card_ids))})")
        players = part("players").reshape(n, len(self.player_fields))
        markers = part("markers").reshape(self.n_points, n)
        rails = part("rails").reshape(self.n_edges, n)
        shares = part("shares_network").reshape(n, n)
        open_cities = part("open_cities").reshape(n, self.n_cities)
        scales = [b.goal, HAND_SCALE] + [COLOR_SCALE] * self.n_colors
        for rel in range(n):
            fields = ", ".join(f"{f} {count(x, s)}" for f, x, s in zip(self.player_fields, players[rel], scales,
                                                                        strict=True))
            start = [b.point_text(p) for p in range(self.n_points) if markers[p, rel] > 0]
            built = [b.edge_text(e) for e in range(self.n_edges) if rails[e, rel] > 0]
            lines.append(f"player {seat_label(rel)}: {fields}; start {start[0] if start else '-'}")
            lines.append(f"  rails ({len(built)}): {', '.join(built) or '-'}")
            if shares[rel].any():
                lines.append(f"  shares a network with {', '.join(seat_label(q) for q in range(n) if shares[rel, q])}")
            if open_cities[rel].any():
                shown = [b.cities[c].name for c in range(self.n_cities) if open_cities[rel, c]]
                lines.append(f"  open cities: {', '.join(shown)}")
        mine = part("cities")
        lines.append(f"my cities: {', '.join(b.cities[c].name for c in range(self.n_cities) if mine[c]) or '-'}")
        moves = part("card_moves").reshape(len(CARD_MOVES), self.n_cities)
        for k, kind in enumerate(CARD_MOVES):
            if moves[k].any():
                lines.append(f"{kind}: {', '.join(b.cities[c].name for c in range(self.n_cities) if moves[k, c])}")
        choice = part("choice")
        if choice.any():
            nt = len(TASKS)
            step = TASKS[int(np.argmax(choice[:nt]))]
            waiting = seat_label(int(np.argmax(choice[nt:nt + n])))
            rest = choice[nt + n:]
            text = f"choice: {step}, waiting for {waiting}"
            if rest[:self.n_colors].any():
                text += f", colour {b.colors[int(np.argmax(rest[:self.n_colors]))]}"
            if rest[self.n_colors]:
                text += f", pass round {count(rest[self.n_colors], 3)}"
            mine_choice = rest[self.n_colors + 1:self.n_colors + 1 + self.n_cities]
            if mine_choice.any():
                text += f", my choice {b.cities[int(np.argmax(mine_choice))].name}"
            still = rest[self.n_colors + 1 + self.n_cities:]
            lines.append(text + f", still to choose: {', '.join(seat_label(q) for q in range(n) if still[q]) or '-'}")
        if self.history:
            w = self._hist_width
            recent = []
            for row in part("history").reshape(self.history, w):
                if row.any():
                    recent.append(f"{seat_label(int(np.argmax(row[:n])))}: {MOVE_KINDS[int(np.argmax(row[n:]))]}")
            lines.append(f"recent moves: {'; '.join(recent) or '-'}")
        return "\n".join(lines)

    # ================================================================= results
    @staticmethod
    def final_scores(game: TransGame, result: dict[str, Any]) -> list[float]:
        return [float(p["total"]) for p in result["players"]]

    @staticmethod
    def winners(game: TransGame, result: dict[str, Any]) -> list[int]:
        return [game.players.index(name) for name in result["winners"]]


_CODECS: dict[tuple[int, int, int], TransCodec] = {}


def trans_codec(game: TransGame, history: int = 0) -> TransCodec:
    """The codec of ``game``'s board and player count (cached while the board object lives)."""
    key = (id(game.board), game.n_players, history)
    codec = _CODECS.get(key)
    if codec is None or codec.board is not game.board:
        if len(_CODECS) >= 64:
            _CODECS.clear()
        codec = _CODECS[key] = TransCodec(game.board, game.n_players, history)
    return codec
