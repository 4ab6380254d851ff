"""Information-set Monte Carlo search for Ticket to Ride (determinized, paired, at the root).

The bot sees only its view. For every search world it samples one complete game state that agrees
with that view (``sample_world``, the engine's public belief sampler :func:`tracklayer.ttr.belief.sample_from_view`):
the cards it cannot see (deck, discard pile, the unknown part of each opponent's hand) are dealt at
random from the cards that are not visible anywhere, keeping every public count (deck size, discard
size, hand sizes) and the cards each opponent is known to hold because it took them face up (tracked
from the public log, less what it has paid since); each opponent's tickets are drawn from the tickets
the bot has not seen, as many as the view shows (long tickets where the ticket deck's size requires
them). The world is a private engine game, never the real one.

Candidate moves come from the prior (its own choice first: the planner, or on the games of
``LEARNED_PRIOR`` the learned network, which beats the planner there) plus the most promising claims and
card draws. Every candidate is played in the same sampled worlds with the same dice (common random
numbers), followed by a fast plan-following policy for every seat over a few turns (to the end of
the game near the end), and the position is scored as "my points minus the best opponent's"
(exact final scoring when the game ended, otherwise routes, tickets done or their odds given the
turns left, cards in hand and unused stations). A candidate replaces the prior's choice only
when its paired mean difference is positive by ``z`` standard errors and ``margin`` points;
clearly worse candidates are dropped as worlds accumulate. By default the search runs only when
the end is near (``endgame`` own turns left), where short rollouts reach the real final scoring;
earlier the prior's move is played (see docs/bots.md for why).

Choices depend only on (seed, view, iteration budget): the default budget is a number of
simulations, not seconds, so runs replay exactly; a time budget caps the work but then the choice
also depends on the machine's speed.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from typing import Any

import cython

from tracklayer.bots.base import Budget, move_seed
from tracklayer.bots.ttr_common import GRAY, INF, BoardInfo, Obs, Planner, route_usable
from tracklayer.bots.ttr_heuristic import HeuristicBot, Moves
from tracklayer.core.errors import IllegalAction
from tracklayer.core.rng import Rng
from tracklayer.ttr import belief
from tracklayer.ttr.scoring import TrailLengths

if cython.compiled:  # the C type (state.pxd)
    from cython.cimports.tracklayer.ttr.state import State
else:
    from tracklayer.ttr.state import State

DEFAULT_ITERATIONS = 160  # simulations per searched move (reproducible: no clock involved)
MAX_SECONDS: float | None = None  # no time cap unless a Budget asks for one
# (game, variant as the view names it) where the search starts from the learned network's move (prior
# "auto"): where the network wins against the planner on the lab's deals, so the search builds on the
# stronger player (New York: see docs/bots.md)
LEARNED_PRIOR = frozenset({("ttr-new-york", "standard")})


def known_cards(obs: Obs) -> list[list[int]]:
    """Cards each player is publicly known to hold: taken face up and not paid out since
    (:func:`tracklayer.ttr.belief.known_cards` on the view's log)."""
    return belief.known_cards(obs.info.board, obs.view.get("log", []), obs.cards)


def obs_from_state(info: BoardInfo, state: Any, p: int, variant: str) -> Obs:
    """An Obs for seat ``p`` of a private simulated world (the search's own game, not the real one)."""
    return Obs(
        info=info, view={}, variant=variant, seat=p, n=state.n_players, phase=state.phase,
        hand=state.hands[p], market=state.market, route_owner=state.route_owner,
        station_owner=state.station_owner, wagons=state.wagons, stations_left=state.stations_left,
        cards=[sum(h) for h in state.hands], n_tickets=[len(t) for t in state.tickets],
        tickets=state.tickets[p], offer=state.offers[p], deck=len(state.deck), discard=len(state.discard),
        ticket_deck=len(state.ticket_deck), final_round=state.final_turns >= 0, turn=state.turn,
        route_points=state.route_points,
    )


@cython.cclass
class FastPolicy:
    """A cheap plan-following policy for rollouts: acts on the simulated state directly.

    Compiled, its fields are C types and its helpers C calls (``cython.cclass``): a search plays it for
    every seat in every simulated turn."""

    g = cython.declare(object)
    info = cython.declare(object)
    variant = cython.declare(str)
    rng = cython.declare(object)
    plans: dict[int, tuple[list[int], list[int]]] = cython.declare(dict)  # seat -> (plan routes, tickets)
    route_len: list[int] = cython.declare(list)  # the board's tables (BoardInfo's), per route
    route_color: list[int] = cython.declare(list)
    ferry: list[int] = cython.declare(list)
    tunnel: list[bool] = cython.declare(list)
    twins: list[tuple[int, ...]] = cython.declare(list)
    closed_with = cython.declare(frozenset)  # player counts where one built lane closes a double route
    loco = cython.declare(cython.int)

    def __init__(self, game: Any, info: BoardInfo, variant: str, rng: random.Random) -> None:
        self.g = game
        self.info = info
        self.variant = variant
        self.rng = rng
        self.plans = {}
        self.route_len = info.route_len
        self.route_color = info.route_color
        self.ferry = info.ferry
        self.tunnel = info.tunnel
        self.twins = info.twins
        self.closed_with = info.board.closed_with_players
        self.loco = info.loco

    @cython.locals(p=cython.int, s=State, owner=list, r=cython.int, o=cython.int, own=cython.bint)
    def plan_for(self, p: int) -> list[int]:
        s = self.g.state
        cached = self.plans.get(p)
        if cached is not None:
            routes, tickets = cached
            if tickets == s.tickets[p]:
                owner = s.route_owner
                own = False
                for r in routes:
                    o = owner[r]
                    if o != -1 and o != p:
                        break
                    if o == p:
                        own = True
                else:
                    if own:  # own claims: the rest of the plan stands
                        routes = [r for r in routes if owner[r] == -1]
                        self.plans[p] = (routes, tickets)
                    return routes
        obs = obs_from_state(self.info, s, p, self.variant)
        plan = Planner(obs, long_bias=0.3).plan(list(s.tickets[p]), allow_borrow=False)
        routes = plan.routes
        self.plans[p] = (routes, list(s.tickets[p]))
        return routes

    @cython.locals(s=State)
    def step(self) -> None:
        g = self.g
        s = g.state
        try:
            if s.phase == "main":
                self._main(s.current)
            elif s.phase == "second_draw":
                self._draw(s.current)
            elif s.phase == "tunnel":
                legal = g.legal_actions()
                g.apply(min(legal, key=lambda a: (a.kind == "decline", getattr(a, "n_loco", 0))))
            elif s.phase in ("keep", "initial"):
                self._keep(s.current)
            else:
                g.apply(g.legal_actions()[0])
        except IllegalAction:
            legal = g.legal_actions()
            g.apply(legal[self.rng.randrange(len(legal))])

    @cython.locals(p=cython.int)
    def _keep(self, p: int) -> None:
        """Keep the one offered ticket that is cheapest per point (or the minimum the rules ask)."""
        s = self.g.state
        obs = obs_from_state(self.info, s, p, self.variant)
        pl = Planner(obs)
        legal = self.g.legal_actions()
        size = len(legal[0].tickets)
        info = self.info

        def cost(a: Any) -> float:
            return sum(pl.distance(*info.ticket_ends[t]) / info.ticket_points[t] for t in a.tickets)

        self.g.apply(min((a for a in legal if len(a.tickets) == size), key=cost))

    @cython.cfunc
    @cython.locals(p=cython.int, r=cython.int, s=State, hand=list, length=cython.int, ferry=cython.int,
                   color=cython.int, locos=cython.int, need_loco=cython.int, c=cython.int, most=cython.int)
    def _payment(self, p: int, r: int) -> tuple[int, int] | None:
        """(colour, n_loco) paying route ``r`` with the fewest locomotives, or None."""
        s = self.g.state
        hand = s.hands[p]
        length = self.route_len[r]
        ferry = self.ferry[r]
        color = self.route_color[r]
        locos = hand[self.loco]
        if color == GRAY:  # the colour held most (the first of equals)
            color = 0
            most = hand[0]
            for c in range(1, self.loco):
                if hand[c] > most:
                    color = c
                    most = hand[c]
        need_loco = length - hand[color]
        if need_loco < ferry:
            need_loco = ferry
        if need_loco > locos:
            return None
        if self.tunnel[r] and hand[color] + locos - length < 1:
            return None
        return (color if need_loco < length else -1), need_loco

    @cython.cfunc
    @cython.returns(cython.bint)
    @cython.locals(p=cython.int, r=cython.int, s=State, length=cython.int, left=cython.int)
    def _can_claim(self, p: int, r: int) -> bool:
        s = self.g.state
        length = self.route_len[r]
        left = s.wagons[p]
        if length > left:
            return False
        return route_usable(s.route_owner, self.twins[r], r, p, s.n_players in self.closed_with)

    @cython.locals(p=cython.int, s=State, r=cython.int)
    def _main(self, p: int) -> None:
        info = self.info
        s = self.g.state
        routes = self.plan_for(p)
        best = None
        for r in routes:
            if self._can_claim(p, r):
                pay = self._payment(p, r)
                if pay is not None:
                    best = (r, pay)
                    break
        if best is None and (not routes or s.final_turns >= 0 or sum(s.hands[p]) >= 14):
            for r in info.by_points:
                if self._can_claim(p, r) and (self.route_len[r] >= 3 or s.wagons[p] < 6 or s.final_turns >= 0):
                    pay = self._payment(p, r)
                    if pay is not None:
                        best = (r, pay)
                        break
        if best is not None:
            r, (color, n_loco) = best
            self.g.apply(self.g.table.claim(r, color, n_loco))
            return
        self._draw(p)

    @cython.locals(p=cython.int, s=State, r=cython.int, c=cython.int)
    def _draw(self, p: int) -> None:
        s = self.g.state
        table = self.g.table
        want = set()
        for r in self.plans.get(p, ([], []))[0][:3]:
            c = self.route_color[r]
            if c != GRAY:
                want.add(c)
        for c in s.market:
            if c in want:
                self.g.apply(table.draw(c))
                return
        if s.deck or s.discard:
            self.g.apply(table.draw_deck)
            return
        legal = self.g.legal_actions()
        self.g.apply(legal[self.rng.randrange(len(legal))])


class MCTSBot:
    """Determinized paired search over the planner's candidate moves (see the module doc)."""

    name = "mcts"

    def __init__(self, seed: int | str | None = None, *, iterations: int = DEFAULT_ITERATIONS,
                 max_seconds: float | None = MAX_SECONDS, horizon: int = 4, candidates: int = 8,
                 z: float = 1.5, margin: float = 1.0, endgame: float = 8.0, rollout: str = "fast",
                 trigger: str = "planner", prior: str = "auto") -> None:
        if trigger not in ("planner", "pace"):
            raise ValueError(f"trigger must be 'planner' or 'pace', not {trigger!r}")
        if prior not in ("auto", "planner", "learned"):
            raise ValueError(f"prior must be 'auto', 'planner' or 'learned', not {prior!r}")
        self.seed = seed
        self.iterations = iterations
        self.max_seconds = max_seconds
        self.horizon = horizon  # own turns simulated after the move
        self.n_candidates = candidates
        self.z = z  # a candidate must beat the prior's choice by z standard errors ...
        self.margin = margin  # ... and by this many points on average
        self.rollout = rollout  # "fast" (FastPolicy) or "planner" (slower, true to the planner)
        self.endgame = endgame  # search only when about this many own turns are left (else: the planner)
        # how those turns are counted: "planner" = the planner's own estimate, where an opponent's big
        # hand brings the end closer (a hoarder can lay 15 wagons in 4 turns, and the search must be
        # running by then); "pace" = every player's average pace only
        self.trigger = trigger
        self.base = HeuristicBot(seed, "planner")
        # whose move is played outside the search and is the candidate to beat inside it: "planner",
        # "learned" (the network's where one ships for the game, else the planner's), or "auto": the
        # network's on the games of LEARNED_PRIOR, the planner's elsewhere
        self.prior = prior
        self._learned: dict[tuple[str, str, int], Any] = {}
        self._trails: TrailLengths | None = None  # the running search's (see evaluate)
        self._sampler: belief.ViewSampler | None = None  # the running search's (see sample_world)
        self.last_stats: list[tuple[str, int, float]] = []

    def turns_left(self, obs: Obs) -> float:
        """Own turns left as the search trigger counts them (see ``trigger``)."""
        return self.base.turns_left(obs) if self.trigger == "planner" else obs.turns_left_estimate()

    # ------------------------------------------------------------------ entry
    def choose(self, view: dict[str, Any], legal: Sequence[Any], budget: Budget | None = None) -> Any:
        if len(legal) == 1:
            return legal[0]
        obs = Obs.from_view(view)
        moves = Moves(legal)
        n_board = len(obs.info.board.tickets)
        bonus = any(t >= n_board for t in obs.tickets)  # a user's bonus ticket: no world can hold it
        first = self.first_choice(view, obs, moves, legal)
        if obs.phase != "main" or self.turns_left(obs) > self.endgame or bonus:
            return first
        cands = self.candidates(obs, moves, legal, first)
        if len(cands) == 1:
            return cands[0]
        iterations = self.iterations
        seconds: float | None = self.max_seconds
        if budget is not None:
            if budget.iterations is not None:
                iterations = budget.iterations
                seconds = budget.seconds
            elif budget.seconds is not None:
                iterations, seconds = 1 << 30, budget.seconds
        return self.search(obs, cands, iterations, seconds)

    def first_choice(self, view: dict[str, Any], obs: Obs, moves: Moves, legal: Sequence[Any]) -> Any:
        """The prior's move (see ``prior``)."""
        game = (view["game"], view.get("variant") or "")
        use = self.prior == "learned" or (self.prior == "auto" and game in LEARNED_PRIOR)
        learned = self.learned_for(view) if use else None
        return learned.choose(view, legal) if learned is not None else self.base.decide(obs, moves, legal)

    def learned_for(self, view: dict[str, Any]) -> Any:
        """The learned bot where a network ships for this game, else None (asked once per game kind).
        Made through the registry by name: the network lives in ``tracklayer.rl``, a layer above the bots."""
        key = (view["game"], view.get("variant") or "", len(view["players"]))
        if key not in self._learned:
            from tracklayer.bots import cannot_play, make_bot

            self._learned[key] = None if cannot_play("learned", *key) else make_bot("learned", self.seed)
        return self._learned[key]

    def candidates(self, obs: Obs, moves: Moves, legal: Sequence[Any], first: Any) -> list[Any]:
        info = obs.info
        out = [first]
        plan = self.base.plan(obs)
        scored = []
        for r, acts in moves.claims.items():
            act, pen = self.base.pick_payment(obs, acts, plan, r)
            if info.tunnel[r] and self.base._tunnel_spare(obs, act) < 1:
                continue
            scored.append((info.route_points[r] + (6 if r in plan.routes else 0) - 0.3 * pen, act))
        scored.sort(key=lambda x: -x[0])
        out.extend(a for _, a in scored[: self.n_candidates // 2])
        if None in moves.draws:
            out.append(moves.draws[None])
        for c in sorted((c for c in moves.draws if c is not None), key=lambda c: -obs.hand[c])[:2]:
            out.append(moves.draws[c])
        # (drawing tickets only when the planner wants to: a short rollout cannot judge new tickets)
        seen, uniq = set(), []
        for a in out:
            if a not in seen:
                seen.add(a)
                uniq.append(a)
        return uniq[: self.n_candidates + 1]

    # ------------------------------------------------------------------ search
    def search(self, obs: Obs, cands: list[Any], iterations: int, seconds: float | None) -> Any:
        """Paired evaluation: every candidate is played in the same sampled worlds with the same dice.

        Comparing candidates on common worlds removes most of the sampling noise from their
        differences. The prior's choice (index 0) is kept unless another candidate beats it by
        more than ``z`` standard errors of the paired difference (and by ``margin`` points).
        Candidates that trail the best by far are dropped as worlds accumulate (successive
        rejection), so the budget goes to the close calls.
        """
        rng = random.Random(move_seed(self.seed, obs.view, "mcts"))
        self._trails = TrailLengths(obs.info.board)  # its playouts often end with the same networks
        self._sampler = belief.ViewSampler(obs.view)  # every world of this search agrees with this view
        deadline = None if seconds is None else time.perf_counter() + seconds
        alive = list(range(len(cands)))
        values: list[list[float]] = [[] for _ in cands]
        used = 0
        worlds = 0
        while used + len(alive) <= iterations or worlds < 2:
            if deadline is not None and worlds >= 2 and time.perf_counter() > deadline:
                break
            world = self.sample_world(obs, rng)
            dice = rng.getrandbits(63)
            for k in alive:
                g = world.clone()
                g.state.rng = Rng(dice)
                values[k].append(self.simulate(g, cands[k], obs, random.Random(dice)))
            used += len(alive)
            worlds += 1
            if worlds >= 6 and len(alive) > 2:
                alive = [k for k in alive if k == 0 or self._diff(values, k, worlds)[0]
                         + 3.0 * self._diff(values, k, worlds)[1] > 0]
        best, best_gain = 0, 0.0
        for k in alive:
            if k == 0:
                continue
            mean, se = self._diff(values, k, worlds)
            if mean > self.margin and mean > self.z * se and mean > best_gain:
                best, best_gain = k, mean
        self.last_stats = [(str(cands[k]), len(values[k]), sum(values[k]) / max(1, len(values[k])))
                           for k in range(len(cands))]
        self._sampler = None
        return cands[best]

    @staticmethod
    def _diff(values: list[list[float]], k: int, worlds: int) -> tuple[float, float]:
        """Mean and standard error of candidate k minus candidate 0 over their common worlds."""
        m = min(len(values[k]), len(values[0]))
        d = [values[k][i] - values[0][i] for i in range(m)]
        if m < 2:
            return 0.0, INF
        mean = sum(d) / m
        var = sum((x - mean) ** 2 for x in d) / (m - 1)
        return mean, math.sqrt(var / m)

    def sample_world(self, obs: Obs, rng: random.Random) -> Any:
        """A complete private game consistent with ``obs``: the engine's belief sampler on the view
        (:func:`tracklayer.ttr.belief.sample_from_view`, which finds the known cards in the view itself;
        the running search's :class:`~tracklayer.ttr.belief.ViewSampler` has read that view already)."""
        sampler = self._sampler
        if sampler is not None and sampler.view is obs.view:
            return sampler.sample(rng)
        return belief.sample_from_view(obs.view, rng)

    def simulate(self, g: Any, action: Any, obs: Obs, rng: random.Random) -> float:
        me = obs.seat
        info = obs.info
        s = g.state
        g.apply(action)
        start = s.turn
        limit = start + (self.horizon + int(min(self.endgame, 8)) + 4) * obs.n
        steps = 0
        if self.rollout == "planner":
            # the planner itself plays every seat: the continuation the real game will most likely see
            while s.phase != "over" and s.turn < limit and steps < 400:
                legal = g.legal_actions()
                if len(legal) == 1:
                    g.apply(legal[0])
                else:
                    wobs = obs_from_state(info, s, s.current, obs.variant)
                    g.apply(self.base.decide(wobs, Moves(legal), legal))
                steps += 1
        else:
            policy = FastPolicy(g, info, obs.variant, rng)
            while s.phase != "over" and s.turn < limit and steps < 400:
                policy.step()
                steps += 1
        return self.evaluate(g, obs, me)

    def evaluate(self, g: Any, obs: Obs, me: int) -> float:
        s = g.state
        if s.phase == "over":
            totals = g.final_totals(self._trails)
        else:
            totals = [self.estimate(g, obs, p) for p in range(s.n_players)]
        best_other = max(t for p, t in enumerate(totals) if p != me)
        return totals[me] - best_other

    def estimate(self, g: Any, obs: Obs, p: int) -> float:
        """Points ``p`` can expect: routes, tickets (done, or odds of finishing), cards, stations."""
        info = obs.info
        s = g.state
        wobs = obs_from_state(info, s, p, obs.variant)
        pl = Planner(wobs)
        turns = wobs.turns_left_estimate()
        value = float(s.route_points[p]) + 0.5 * sum(s.hands[p])
        value += info.board.unused_station_points * s.stations_left[p]
        plan = pl.plan(list(s.tickets[p]), allow_borrow=False)
        for t in plan.done:
            value += info.ticket_points[t]
        for t in plan.failed:
            value -= info.ticket_points[t]
        if plan.planned:
            need = len(plan.routes) + max(0, plan.wagons - sum(s.hands[p])) / 1.8
            ratio = need / max(1.0, turns)
            chance = 1.0 if ratio <= 0.6 else max(0.0, 1.0 - (ratio - 0.6) / 0.7)
            for t in plan.planned:
                value += info.ticket_points[t] * (2.0 * chance - 1.0)
        return value
