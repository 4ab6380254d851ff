"""Trans Europa / Trans America rules: rounds, turns, legal actions and applying an action.

A round: deal one city per colour to everyone (with 2-3 players the flagged cities are out), lay
out the special cards of the round (if any) and run the setup steps they add (returns, drafts,
passes: hidden choices made one player after the other), place the start markers in turn from the
round's start player, then turns of rails until someone's cities are all joined to their start
marker or the supply runs out; score; the start player passes left; the game ends after the round
in which someone reaches the goal (13).

One rail is one action; a turn lasts while its budget lasts (2 rails, a double line costing 2;
special cards change the budget). Every line takes one rail piece from the supply of 85, a double
line too (the rulebook: "eine Schiene auf eine freie Doppellinie"): a double uses the turn, not two
pieces. ``apply`` checks everything before it changes anything, so an
:class:`IllegalAction` leaves the state as it was; a compound move is tried on a clone and
committed only when every rail of it is legal.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tracklayer.core.errors import IllegalAction
from tracklayer.core.rng import Rng
from tracklayer.trans.actions import (
    Action,
    EndTurn,
    Pass,
    PassCity,
    PlaceRail,
    PlaceRails,
    PlaceStart,
    ReturnCity,
)
from tracklayer.trans.board import Board
from tracklayer.trans.cards import CardPlan, Effects, effects_of
from tracklayer.trans.networks import Networks
from tracklayer.trans.scoring import score_players
from tracklayer.trans.state import (
    CHOOSE,
    FREE,
    M_PASS,
    M_RETURN,
    M_TAKE,
    OVER,
    RAILS,
    START,
    T_DRAFT,
    T_PASS,
    T_PASS_HAND,
    T_RETURN_CHOICE,
    T_RETURN_COLOR,
    State,
)

ENDED_CONNECTED = "connected"  # a player joined all their cities
ENDED_SUPPLY = "supply"  # the rails ran out
# There is no third way: a player with no free line touching their network has every point of the (connected)
# grid in it, so is connected; and every turn budget is ever again at least 2 (the board's ``rails_per_turn`` and
# every rhythm reach the dearest line, checked when the data is loaded), so a player who passes because only
# double lines are free builds in a later turn, and each built line takes one piece of the finite supply.


class Rules:
    """The rules of one board with one special-card plan; states are passed in."""

    def __init__(self, board: Board, plan: CardPlan) -> None:
        self.board = board
        self.plan = plan
        self.table = board.actions
        self._effects: dict[tuple[int, ...], Effects] = {}
        self._city_point = [c.point for c in board.cities]
        self._city_color = [c.color for c in board.cities]

    def resync(self, s: State) -> None:
        """Recompute the fields derived from ``owner`` (``state.DERIVED``), e.g. after editing a state by
        hand; the built lines come out in line order (the rules append them in the order placed)."""
        b = self.board
        s.built = [e for e, o in enumerate(s.owner) if o != FREE]
        s.networks = Networks.rebuild(b.n_points, ((b.edge_a[e], b.edge_b[e]) for e in s.built))

    def effects(self, s: State) -> Effects:
        key = tuple(s.cards)
        fx = self._effects.get(key)
        if fx is None:
            fx = self._effects[key] = effects_of(self.board, key)
        return fx

    def budget(self, s: State) -> int:
        """Rails the current turn may place in all (a double line costs 2 of them)."""
        return self.effects(s).budget(self.board.rails_per_turn, s.turn // s.n_players)

    def city_points(self, s: State, p: int) -> list[int]:
        cp = self._city_point
        return [cp[c] for c in s.hands[p]]

    # ------------------------------------------------------------------ setup
    def setup(self, n_players: int, rng: Rng, first_player: int) -> State:
        b = self.board
        if not b.min_players <= n_players <= b.max_players:
            raise IllegalAction(f"{b.name} is for {b.min_players}-{b.max_players} players, not {n_players}")
        if not isinstance(first_player, int) or not 0 <= first_player < n_players:
            raise IllegalAction(f"first_player must be a seat from 0 to {n_players - 1}, not {first_player!r}")
        s = State(n_players, b.n_points, b.n_edges, rng)
        if self.plan.per_round:
            s.special_deck = list(self.plan.deck)
            rng.shuffle(s.special_deck)
        self._start_round(s, first_player)
        return s

    def _seats_from(self, s: State, first: int) -> list[int]:
        n = s.n_players
        return [(first + i) % n for i in range(n)]

    def _start_round(self, s: State, start: int) -> None:
        b = self.board
        rng = s.rng
        s.round += 1
        s.start_player = start
        s.owner = [FREE] * b.n_edges
        s.networks = Networks(b.n_points)
        s.built = []
        s.supply = b.rails
        s.markers = [-1] * s.n_players
        s.used = s.turn = s.passes = 0
        s.ending = False
        s.moves = []
        piles = b.cities_for(s.n_players)
        for pile in piles:
            rng.shuffle(pile)
        s.hands = [[] for _ in range(s.n_players)]
        for pile in piles:
            for p in self._seats_from(s, start):
                s.hands[p].append(pile.pop())
        s.decks = piles
        revealed: list[int] = []
        for _ in range(self.plan.per_round):
            if not s.special_deck:  # rules decision: the cards revealed before this round are reshuffled
                s.special_deck = [c for c in s.special_seen if c not in revealed]
                s.special_seen = revealed[:]
                rng.shuffle(s.special_deck)
            card = s.special_deck.pop()
            s.special_seen.append(card)
            revealed.append(card)
        s.cards = [*self.plan.fixed, *revealed]
        fx = self.effects(s)
        tasks = [[T_RETURN_COLOR, c] for c in fx.return_colors] + [[T_DRAFT, c] for c in fx.drafts]
        tasks += [[T_RETURN_CHOICE, i + 1] for i in range(fx.return_choice)]
        tasks += [[T_PASS, i + 1] for i in range(fx.pass_times)]
        if fx.pass_hand:
            tasks.append([T_PASS_HAND, 0])
        s.tasks = tasks
        s.task = []
        self._next_task(s)

    def _next_task(self, s: State) -> None:
        """Run the automatic setup steps; stop at the next choice, or go on to the start markers."""
        n = s.n_players
        order = self._seats_from(s, s.start_player)
        while s.tasks:
            kind, arg = s.tasks.pop(0)
            if kind == T_RETURN_COLOR:
                for p in order:
                    for c in [c for c in s.hands[p] if self._city_color[c] == arg]:
                        self._to_pile(s, p, c, kind)
                continue
            if kind == T_PASS_HAND:
                old = s.hands
                s.hands = [old[(p - 1) % n] for p in range(n)]
                for p in order:
                    for c in old[p]:
                        s.moves.append([M_PASS, p, (p + 1) % n, c, kind])
                continue
            if kind == T_DRAFT:
                pile = s.decks[arg]
                if not pile:
                    continue  # rules decision: nothing left of that colour, no draft
                c = pile.pop()
                s.hands[s.start_player].append(c)
                s.moves.append([M_TAKE, -1, s.start_player, c, kind])
            s.task = [kind, arg]
            s.queue = order[:]
            s.pending = [-1] * n
            s.phase = CHOOSE
            s.current = order[0]
            return
        s.task = []
        s.queue = []
        s.phase = START
        s.current = s.start_player

    def _to_pile(self, s: State, p: int, c: int, task: int) -> None:
        """A city card goes face down to the bottom of its colour's rest pile."""
        s.hands[p].remove(c)
        s.decks[self._city_color[c]].insert(0, c)
        s.moves.append([M_RETURN, p, -1, c, task])

    # ------------------------------------------------------------------ legal actions
    def legal_actions(self, s: State) -> Sequence[Action]:
        t = self.table
        phase = s.phase
        if phase == RAILS:
            lines, end, pass_ = self.rail_turn(s)
            out: list[Action] = [t.rail[e] for e in sorted(set(lines))]
            if end:
                out.append(t.end)
            if pass_:
                out.append(t.pass_)
            return out
        if phase == START:
            taken = set(s.markers)
            return [t.start[p] for p in range(self.board.n_points) if p not in taken]
        if phase == CHOOSE:
            return self._choices(s)
        return []

    def rail_turn(self, s: State) -> tuple[list[int], bool, bool]:
        """The legal moves of the rail phase as parts (``legal_actions`` lists them, encoders mask them):
        ``(lines, end, pass)``: the lines the player to move may build (:meth:`rail_candidates`: unsorted,
        some twice), whether ending the turn is allowed (after a rail, while more could be laid), and
        whether passing is (no rail laid and none possible)."""
        lines = self.rail_candidates(s, s.current, self.budget(s) - s.used)
        return lines, bool(lines) and s.used > 0, not lines and s.used == 0

    def rail_candidates(self, s: State, p: int, left: int) -> list[int]:
        """Free lines player ``p`` may build with ``left`` rails of their turn, unsorted, a line touching the
        network at both ends listed twice (``legal_actions`` sorts them, a mask needs only which). A line of any
        cost takes one piece of the supply, so only the turn's budget limits the cost (the round ends when the
        supply is empty)."""
        cap = left if s.supply > 0 else 0
        if cap <= 0:
            return []
        fx = self.effects(s)
        cost = fx.line_cost
        owner = s.owner
        if fx.criss_cross:
            return [e for e in range(self.board.n_edges) if owner[e] == FREE and cost[e] <= cap]
        at = self.board.lines_at
        points = s.networks.points(s.markers[p])
        if cap >= fx.max_line_cost:  # every free line will do (the usual start of a turn)
            return [e for q in points for e in at[q] if owner[e] == FREE]
        return [e for q in points for e in at[q] if owner[e] == FREE and cost[e] <= cap]

    def can_extend(self, s: State, p: int, left: int) -> bool:
        """Whether :meth:`rail_candidates` is not empty, found without listing them (it stops at the first)."""
        cap = left if s.supply > 0 else 0
        if cap <= 0:
            return False
        fx = self.effects(s)
        cost = fx.line_cost
        owner = s.owner
        if fx.criss_cross:
            return any(o == FREE and c <= cap for o, c in zip(owner, cost, strict=True))
        at = self.board.lines_at
        for q in s.networks.points(s.markers[p]):
            for e in at[q]:
                if owner[e] == FREE and cost[e] <= cap:
                    return True
        return False

    def _choices(self, s: State) -> list[Action]:
        t = self.table
        kind, arg = s.task
        hand = sorted(s.hands[s.current])
        if kind == T_RETURN_CHOICE:
            return [t.give_back[c] for c in hand]
        if kind == T_PASS:
            return [t.give[c] for c in hand]
        assert kind == T_DRAFT
        mine = [c for c in hand if self._city_color[c] == arg]
        table = t.give_back if len(s.queue) == 1 else t.give
        return [table[c] for c in mine]

    # ------------------------------------------------------------------ apply
    def apply(self, s: State, action: Action) -> Action:
        if s.phase == OVER:
            raise IllegalAction("the game is over")
        if isinstance(action, PlaceRail):
            self._rail(s, action.line)
        elif isinstance(action, PlaceRails):
            self._rails(s, action.lines)
        elif isinstance(action, PlaceStart):
            self._start(s, action.point)
        elif isinstance(action, EndTurn):
            self._need(s, RAILS, "end the turn")
            if s.used == 0:
                raise IllegalAction("place at least one rail before ending your turn")
            self._end_turn(s)
        elif isinstance(action, Pass):
            self._need(s, RAILS, "pass")
            if s.used:
                raise IllegalAction("you have placed a rail this turn: 'end' finishes the turn")
            if self.can_extend(s, s.current, self.budget(s)):
                raise IllegalAction("you must place at least one rail when you can; pass only when no line is free "
                                    "for you")
            self._end_turn(s, passed=True)
        elif isinstance(action, (ReturnCity, PassCity)):
            self._choose(s, action)
        else:
            raise IllegalAction(f"not a Trans Europa / Trans America action: {action!r}")
        return action

    def _need(self, s: State, phase: str, doing: str) -> None:
        if s.phase == phase:
            return
        what = {
            CHOOSE: "the special cards' city choices come first (return/pass a city)",
            START: "start markers are being placed (start x,row)",
            RAILS: "rails are being placed",
        }[s.phase]
        raise IllegalAction(f"cannot {doing} now: {what}")

    def _start(self, s: State, point: int) -> None:
        b = self.board
        self._need(s, START, "place a start marker")
        if not 0 <= point < b.n_points:
            raise IllegalAction(f"no point {point}")
        if point in s.markers:
            raise IllegalAction(f"{b.point_text(point)} already holds the start marker of player "
                                f"{s.markers.index(point) + 1}; choose a free point")
        s.markers[s.current] = point
        waiting = [p for p in self._seats_from(s, s.start_player) if s.markers[p] < 0]
        if waiting:
            s.current = waiting[0]
            return
        s.phase = RAILS
        s.current = s.start_player
        s.used = s.turn = s.passes = 0

    def _rail_problem(self, s: State, e: int) -> str | None:
        b = self.board
        if not 0 <= e < b.n_edges:
            return f"no line {e}"
        if s.owner[e] != FREE:
            return f"{b.edge_text(e)} already has a rail"
        fx = self.effects(s)
        cost = fx.line_cost[e]
        left = fx.budget(b.rails_per_turn, s.turn // s.n_players) - s.used
        if cost > left:
            kind = "a double line" if cost == 2 else "this line"
            return f"{b.edge_text(e)} is {kind} needing {cost} rails and you have {left} left this turn"
        if s.supply <= 0:  # not reached in play: the rail that empties the supply ends the round
            return "the supply of rails is empty"
        if not fx.criss_cross:
            net = s.networks
            home = s.markers[s.current]
            if not (net.joined(b.edge_a[e], home) or net.joined(b.edge_b[e], home)):
                return (f"{b.edge_text(e)} does not touch your network (the rails joined to your start marker "
                        f"at {b.point_text(home)})")
        return None

    def _rail(self, s: State, e: int) -> None:
        self._need(s, RAILS, "place a rail")
        problem = self._rail_problem(s, e)
        if problem:
            raise IllegalAction(problem)
        b = self.board
        p = s.current
        fx = self.effects(s)
        cost = fx.line_cost[e]
        first = s.used == 0
        s.owner[e] = p
        s.supply -= 1  # one piece, a double line too; the double uses ``cost`` of the turn's budget
        s.used += cost
        net = s.networks
        net.union(b.edge_a[e], b.edge_b[e])
        s.built.append(e)
        find = net.find
        cp = self._city_point
        markers = s.markers
        done = []
        for q, hand in enumerate(s.hands):
            root = find(markers[q])
            for c in hand:
                if find(cp[c]) != root:
                    break
            else:
                done.append(q)
        if s.supply == 0:
            self._end_round(s, ENDED_CONNECTED if done else ENDED_SUPPLY)
            return
        if done and not s.ending:
            if first and p not in done:
                s.ending = True  # the first rail completed someone else: the turn may be finished
            else:
                self._end_round(s, ENDED_CONNECTED)
                return
        left = fx.budget(b.rails_per_turn, s.turn // s.n_players) - s.used
        if left <= 0 or not self.can_extend(s, p, left):
            self._end_turn(s)

    def _rails(self, s: State, lines: tuple[int, ...]) -> None:
        self._need(s, RAILS, "place rails")
        trial = s.clone()
        p, rnd = s.current, s.round
        for i, e in enumerate(lines):
            if i and (trial.phase != RAILS or trial.current != p or trial.round != rnd):
                raise IllegalAction(f"the turn ends after {i} rail(s) of this move: "
                                    f"{self.board.edge_text(e)} cannot be placed in it")
            problem = self._rail_problem(trial, e)
            if problem:
                raise IllegalAction(f"rail {i + 1} of this move: {problem}")
            self._rail(trial, e)
        s.copy_from(trial)

    def _end_turn(self, s: State, passed: bool = False) -> None:
        if s.ending:
            self._end_round(s, ENDED_CONNECTED)
            return
        s.passes = s.passes + 1 if passed else 0
        s.turn += 1
        s.used = 0
        s.current = (s.current + 1) % s.n_players

    # ------------------------------------------------------------------ special-card choices
    def _choose(self, s: State, action: ReturnCity | PassCity) -> None:
        b = self.board
        verb = "return" if isinstance(action, ReturnCity) else "pass"
        self._need(s, CHOOSE, f"{verb} a city card")
        c = action.city
        p = s.current
        if not 0 <= c < len(b.cities) or c not in s.hands[p]:
            name = b.cities[c].name if 0 <= c < len(b.cities) else str(c)
            raise IllegalAction(f"you do not hold {name}: choose one of {', '.join(b.city_names(sorted(s.hands[p])))}")
        kind, arg = s.task
        last = len(s.queue) == 1
        if kind == T_DRAFT:
            if self._city_color[c] != arg:
                raise IllegalAction(f"this draft is of {b.colors[arg]} cities; {b.cities[c].name} is "
                                    f"{b.colors[self._city_color[c]]}")
            want = "return" if last else "pass"
            if verb != want:
                raise IllegalAction(f"in this draft you {want} a {b.colors[arg]} city ('{want} <city>'): "
                                    + ("you are the last, the unwanted card goes back" if last
                                       else "it goes to your left neighbour"))
            if last:
                self._to_pile(s, p, c, kind)
            else:
                nxt = (p + 1) % s.n_players
                s.hands[p].remove(c)
                s.hands[nxt].append(c)
                s.moves.append([M_PASS, p, nxt, c, kind])
        else:
            want = "return" if kind == T_RETURN_CHOICE else "pass"
            if verb != want:
                raise IllegalAction(f"now everyone {'returns' if want == 'return' else 'passes'} a city "
                                    f"('{want} <city>')")
            s.pending[p] = c
        s.queue.pop(0)
        if s.queue:
            s.current = s.queue[0]
            return
        if kind == T_RETURN_CHOICE:
            for q in self._seats_from(s, s.start_player):
                self._to_pile(s, q, s.pending[q], kind)
        elif kind == T_PASS:
            n = s.n_players
            for q in self._seats_from(s, s.start_player):
                s.hands[q].remove(s.pending[q])
            for q in self._seats_from(s, s.start_player):
                s.hands[(q + 1) % n].append(s.pending[q])
                s.moves.append([M_PASS, q, (q + 1) % n, s.pending[q], kind])
        s.pending = [-1] * s.n_players
        self._next_task(s)

    # ------------------------------------------------------------------ end of a round
    def _end_round(self, s: State, reason: str) -> None:
        b = self.board
        fx = self.effects(s)
        built = [o != FREE for o in s.owner]
        scores = score_players(b.n_points, b.adjacency, fx.line_cost, built, s.markers,
                               [self.city_points(s, q) for q in range(s.n_players)], fx.table)
        for q, sc in enumerate(scores):
            s.scores[q] += sc.prestige
        record: dict[str, Any] = {
            "round": s.round,
            "start_player": s.start_player,
            "cards": s.cards[:],
            "ended_by": reason,
            "hands": [h[:] for h in s.hands],
            "markers": s.markers[:],
            "owner": s.owner[:],
            "connected": [sc.connected for sc in scores],
            "missing": [sc.missing for sc in scores],
            "missing_lines": [list(sc.lines) for sc in scores],
            "prestige": [sc.prestige for sc in scores],
            "scores": s.scores[:],
        }
        s.history.append(record)
        s.ending = False
        if max(s.scores) >= b.goal:
            s.phase = OVER
            s.task = []
            s.queue = []
            return
        self._start_round(s, (s.start_player + 1) % s.n_players)
