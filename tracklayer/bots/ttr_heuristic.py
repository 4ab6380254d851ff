"""Heuristic Ticket to Ride bots: the playtesting baselines and the planner.

The four baselines follow the agents of de Mesentier Silva, Lee, Togelius and Nealen, "AI-based
Playtesting of Contemporary Board Games" (FDG 2017), as far as the paper describes them:

* ``greedy`` (one-step thinking): looks one move ahead; claims the most valuable affordable route
  that lies on a shortest path of one of its tickets (each ticket planned on its own), otherwise
  draws cards for those paths; draws new tickets when its tickets are done, keeping the cheapest.
* ``routes`` (route-focused): plans all its tickets together and claims the longest routes of the
  plan first; never draws extra tickets and, once done, claims the longest routes it can afford
  (``BOARD_PARAMS`` can make it share paths and draw tickets: Big Cities).
* ``hungry`` (destination-hungry): keeps every ticket its wagons allow and draws more tickets
  whenever its plan is nearly complete; plays for ticket points.
* ``longroute`` (long-route): keeps few tickets and goes for long routes (4+ wagons) for their
  points, preferring ones that extend its own network.

``planner`` is the strong heuristic: greedy Steiner planning over free and own routes for all its
tickets with colour bookkeeping (which colours the plan still needs, gray routes take the colour
it holds most of), ticket offers judged by points against wagons and a cautious count of the turns
left (opponents' hands count: cards held can be laid fast), no ticket draws while it is already
giving tickets up for time, stations only when a ticket is otherwise impossible and worth more than
the station, tunnels claimed when the odds of covering the extra cost are good, face-up
locomotives only for ferries, European Express gains in claims off the plan, blocking an
opponent's obvious connection when that costs little, and an endgame that turns cards into points.

All of them see only ``(view, legal)``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from tracklayer.bots.base import Budget, move_seed
from tracklayer.bots.ttr_common import GRAY, INF, Obs, Planner, card_needs, payment_penalty
from tracklayer.ttr.trail import longest_trail

STYLES = ("greedy", "routes", "hungry", "longroute", "planner")

# Parameters that depend on the map: style -> (game, variant or None for every variant) -> {attribute: value}.
# A bot reads the entry of the board it plays (the variant's own entry over the game's) when it first sees
# it; everything else plays with the class defaults (tuned on Europe). Tuned on deals of their own seeds,
# see docs/bots.md.
BOARD_PARAMS: dict[str, dict[tuple[str, str | None], dict[str, float]]] = {
    # New York's 15 taxis: keep both starting tickets more often (no slack asked beyond the turns the plan
    # needs), price each claim turn more in paths (fewer, longer routes), block cheaper links of the
    # opponent, try three ticket orders for the plan, and keep to the plan until the last round (claims
    # for points alone, from 4 taxis on, end the short game before the tickets are done)
    "planner": {
        ("ttr-new-york", None): {"keep_margin": 0.0, "route_overhead": 0.8, "block_gain": 3.0, "plan_orders": 3,
                                 "end_wagons": 2},
    },
    # Big Cities' tickets all join big cities: plan them as one network (their paths share track), keep a
    # compact first plan (1.2 points a wagon) and draw more tickets once it is done while 8 wagons are left
    "routes": {
        ("ttr-europe", "big-cities"): {"shared_paths": True, "routes_wagon_cost": 1.2, "done_ticket_wagons": 8},
    },
}


class Moves:
    """Legal actions grouped by kind (claims by route, stations by city, draws by card)."""

    def __init__(self, legal: Sequence[Any]) -> None:
        self.claims: dict[int, list[Any]] = {}
        self.stations: dict[int, list[Any]] = {}
        self.draws: dict[int | None, Any] = {}
        self.keeps: list[Any] = []
        self.pays: list[Any] = []
        self.tickets = self.decline = self.pass_ = None
        for a in legal:
            k = a.kind
            if k == "claim":
                self.claims.setdefault(a.route, []).append(a)
            elif k == "draw":
                self.draws[a.card] = a
            elif k == "station":
                self.stations.setdefault(a.city, []).append(a)
            elif k == "keep":
                self.keeps.append(a)
            elif k == "pay":
                self.pays.append(a)
            elif k == "tickets":
                self.tickets = a
            elif k == "decline":
                self.decline = a
            elif k == "pass":
                self.pass_ = a


class HeuristicBot:
    """One of the heuristic styles (see the module doc)."""

    def __init__(self, seed: int | str | None = None, style: str = "planner") -> None:
        if style not in STYLES:
            raise ValueError(f"unknown style {style!r}")
        self.seed = seed
        self.style = style
        self.name = style
        self._regular: dict[str, tuple[list[int], float]] = {}  # variant -> (sample of its regular tickets,
        #                                                          their mean points): see keep_long_step
        self._board: tuple[str, str] | None = None  # the board whose BOARD_PARAMS this bot plays with ...
        self._board_params: tuple[str, ...] = ()  # ... and the parameters they set

    # ------------------------------------------------------------------ entry
    def choose(self, view: dict[str, Any], legal: Sequence[Any], budget: Budget | None = None) -> Any:
        if len(legal) == 1:
            return legal[0]
        obs = Obs.from_view(view)
        moves = Moves(legal)
        return self.decide(obs, moves, legal)

    def decide(self, obs: Obs, moves: Moves, legal: Sequence[Any]) -> Any:
        if self._board != (obs.info.board.key, obs.variant):
            self.use_board(obs.info.board.key, obs.variant)
        phase = obs.phase
        if phase in ("initial", "keep"):
            return self.keep(obs, moves)
        if phase == "tunnel":
            return self.tunnel(obs, moves)
        if phase == "second_draw":
            plan = self.plan(obs)
            return self.draw(obs, moves, plan, second=True)
        return self.main(obs, moves, legal)

    def use_board(self, game: str, variant: str) -> None:
        """Play with the style's BOARD_PARAMS for this board: the game's entry, then the variant's over it."""
        for name in self._board_params:
            delattr(self, name)  # back to the class defaults
        table = BOARD_PARAMS.get(self.style, {})
        params = {**table.get((game, None), {}), **table.get((game, variant), {})}
        for name, value in params.items():
            if not hasattr(type(self), name):
                raise AttributeError(f"BOARD_PARAMS: {self.style} has no parameter {name!r}")
            setattr(self, name, value)
        self._board_params = tuple(params)
        self._board = (game, variant)

    # ------------------------------------------------------------------ planning
    long_bias = 0.3  # planner: path costs favour long routes (more points per wagon)
    ticket_routes_left = 0  # planner draws tickets when its plan has at most this many routes left ...
    ticket_wagons = 12  # ... it has at least this many wagons ...
    ticket_turns = 7.0  # ... and about this many turns are left
    ferry_penalty = 0.8  # path cost per ferry locomotive (locomotives are scarce)
    block_gain = 8.0  # mid-game, block a route that lengthens an opponent's link by this much ...
    block_len = 3  # ... if it is at most this long
    plan_orders = 1  # ticket orders the planner tries for its Steiner plan (1: by points)
    loco_need = 4  # hungry: take a face-up locomotive when the plan still lacks this many cards
    planner_loco_need = 99  # planner: the same (so, in effect, only for ferries: two blind cards beat one wild)
    hand_cap = 20  # with this many cards and nothing of the plan affordable, spend cards on points
    concentrate = True  # draw for the route closest to complete rather than the biggest deficit
    route_overhead = 0.35  # path cost of a route beyond its length (one claim turn)
    time_slack = 2.0  # turns of optimism before tickets are given up for lack of time
    keep_wagon_cost = 0.0  # points a planned wagon costs when judging tickets (long routes pay more)
    ticket_spare = 14  # or mid-plan: at least this many wagons beyond the plan ...
    ticket_slack = 8.0  # ... and this many turns beyond what the plan needs
    keep_rate = 1.4  # useful cards drawn per turn, when judging whether kept tickets can be built in time
    keep_margin = 2.0  # turns of slack a kept plan should leave
    no_draw_when_dropped = True  # never draw tickets while some held ticket is given up for time
    fast_factor = 0.85  # opponents' quickest finish (from wagons and hand) scaled by this; 0: average pace only
    fast_len = 3.0  # wagons an opponent lays per claim turn in that estimate
    tunnel_risk = 0.2  # claim a tunnel only when the extra cost goes uncovered at most this often
    express_weight = 0.5  # weight of European Express gains in mid-game point claims (1 when finishing)
    short_route = 3  # mid-game, with wagons to spare, point claims skip routes shorter than this
    attraction_weight = 1.0  # a claim's points count each tourist attraction it is the first to touch this much
    end_wagons = 4  # planner: once a player has this few wagons, claims turn cards into points (the endgame)
    routes_wagon_cost = 0.5  # routes: points a planned wagon costs when judging tickets (compact plans)
    shared_paths = False  # routes: plans its tickets as one network (paths reuse each other) instead of one by one
    done_ticket_wagons = 0  # routes: draws tickets once its plan is done with at least this many wagons (0: never)

    def turns_left(self, obs: Obs) -> float:
        """My turns left: the planner also counts how fast opponents' hands could end the game."""
        if self.style != "planner" or self.fast_factor <= 0:
            return obs.turns_left_estimate()
        return obs.turns_left_fast(self.fast_len, self.fast_factor)

    def planner(self, obs: Obs) -> Planner:
        if self.style == "planner":
            return Planner(obs, long_bias=self.long_bias, route_overhead=self.route_overhead,
                           ferry_penalty=self.ferry_penalty)
        return Planner(obs)

    def plan(self, obs: Obs, tickets: list[int] | None = None) -> Any:
        pl = self.planner(obs)
        tickets = obs.tickets if tickets is None else tickets
        style = self.style
        if style != "planner":
            # the playtesting agents path each ticket on its own (shortest path; routes may share paths by board)
            return pl.plan(tickets, steiner=self.shared_paths, allow_borrow=False)
        plan = pl.plan(tickets, orders=self.plan_orders)
        if style == "planner" and plan.planned and obs.phase not in ("initial", "keep"):
            # out of time: give up the tickets that cost most per point, so the cards go to the rest
            turns = self.turns_left(obs)
            live = list(plan.planned)
            while live and self._need_turns(obs, plan) > turns + self.time_slack:
                info = obs.info
                worst = max(live, key=lambda t: pl.distance(*info.ticket_ends[t]) / info.ticket_points[t])
                live.remove(worst)
                keep = [t for t in tickets if t in live or t in plan.done]
                dropped = [t for t in tickets if t not in keep]
                plan = pl.plan(keep)
                plan.failed = sorted(set(plan.failed) | set(dropped))
                plan.dropped = dropped
        return plan

    # ------------------------------------------------------------------ tickets
    def keep(self, obs: Obs, moves: Moves) -> Any:
        info = obs.info
        style = self.style
        if style == "planner":
            later = self._later_offer(obs)
            if later is not None:
                return self.keep_long_step(obs, moves, later)
        best, best_value = moves.keeps[0], -INF
        pl = self.planner(obs)
        turns = self.turns_left(obs)
        by_id = {str(t["id"]): info.ticket_index(t) for t in obs.view.get("offer", [])}
        for choice in moves.keeps:
            new = self._kept(choice, by_id, len(info.board.tickets))
            if style == "greedy":
                # one step: the fewest tickets, the cheapest ones
                value = -len(new) * 100 - sum(pl.distance(*info.ticket_ends[t]) for t in new)
            elif style == "longroute":
                value = -len(new) * 100 + sum(info.ticket_points[t] for t in new)
            else:
                allt = obs.tickets + new
                plan = pl.plan(allt, steiner=style == "planner" or self.shared_paths, allow_borrow=style == "planner",
                               orders=self.plan_orders if style == "planner" else 1)
                good = set(plan.done) | set(plan.planned)
                value = sum(info.ticket_points[t] * (1 if t in good else -1) for t in allt)
                if style == "routes":
                    value -= self.routes_wagon_cost * plan.wagons  # prefers compact plans
                elif style == "planner":
                    value += self._feasibility(obs, plan, new, turns) - self.keep_wagon_cost * plan.wagons
            if value > best_value:
                best, best_value = choice, value
        return best

    def _later_offer(self, obs: Obs) -> Any:
        """The next step of the starting deal when this offer has one after it (Mega: the long tickets,
        before 5 regular tickets the player has not seen yet), else None."""
        variant = obs.info.board.variants.get(obs.variant)
        if obs.phase != "initial" or variant is None or len(variant.initial.steps) < 2:
            return None
        offer = obs.view.get("offer", [])
        if not offer or not all(t.get("long") for t in offer):
            return None
        return variant.initial.steps[1]

    def keep_long_step(self, obs: Obs, moves: Moves, step: Any) -> Any:
        """Choose among long tickets before the regular ones are seen (Mega: keep one or none).

        The regular tickets are unknown, but how many must be kept after each choice is not (Mega: 2 with
        a long ticket, 3 without), so each choice is judged with that many average regular tickets: their
        points, and the wagons and turns they add to the choice's plan (measured on a sample of the deck:
        a long ticket across the middle of the map shares more track with them). The choice expecting the
        most points after a penalty for running out of turns wins; a long ticket whose plan does not fit
        in the wagons with the regular ones counts as lost."""
        info = obs.info
        sample, mean_points = self._regular_sample(obs)
        pl = self.planner(obs)
        turns = self.turns_left(obs)
        wagons = obs.wagons[obs.seat]
        by_id = {str(t["id"]): info.ticket_index(t) for t in obs.view.get("offer", [])}
        best, best_value = moves.keeps[0], -INF
        for choice in moves.keeps:
            new = self._kept(choice, by_id, len(info.board.tickets))
            held = obs.tickets + new
            base = pl.plan(held)
            if any(t in base.failed for t in new):
                continue  # no way to build it (blocked): never worth keeping
            extra = [pl.plan([*held, r]).wagons - base.wagons for r in sample]
            more = sum(extra) / len(extra) if extra else 0.0  # wagons an average regular ticket adds
            k = step.least(len(held), step.size)
            points = sum(info.ticket_points[t] for t in new)
            expect = points + k * mean_points
            need = self._need_turns(obs, base, self.keep_rate) + k * (more / self.keep_rate + more / 3)
            slack = turns - need - self.keep_margin
            value = expect
            if slack < 0:
                value -= 2.0 * expect * min(1.0, -slack / max(need, 1.0))
            if base.wagons + k * more > wagons:
                value -= 2.0 * points
            if value > best_value:
                best, best_value = choice, value
        return best

    def _regular_sample(self, obs: Obs) -> tuple[list[int], float]:
        """Every 4th regular ticket of the variant (enough for an average, at a quarter of the plans) and
        the mean points of all of them; worked out once per variant."""
        found = self._regular.get(obs.variant)
        if found is None:
            info = obs.info
            _, regular = info.board.tickets_for(info.board.variants[obs.variant])
            mean = sum(info.ticket_points[t] for t in regular) / len(regular) if regular else 0.0
            found = self._regular[obs.variant] = (regular[::4], mean)
        return found

    @staticmethod
    def _kept(choice: Any, by_id: dict[str, int], n_board: int) -> list[int]:
        """The tickets a keep action keeps, as the bot's ticket indices (bonus tickets by their id)."""
        if all(t < n_board for t in choice.tickets) or not by_id:
            return list(choice.tickets)
        return [by_id[x] for x in str(choice).split()[1:]]

    def _need_turns(self, obs: Obs, plan: Any, rate: float = 1.8) -> float:
        info = obs.info
        deficit, gray, ferry = card_needs(info, obs.hand, plan.routes)
        cards = sum(deficit) + gray + max(0, ferry - obs.hand[info.loco])
        return len(plan.routes) + cards / rate + 1.5 * len(plan.borrow)

    def _feasibility(self, obs: Obs, plan: Any, new: list[int], turns: float) -> float:
        """Penalty for a plan that probably cannot be built in the turns that are left."""
        info = obs.info
        need_turns = self._need_turns(obs, plan, self.keep_rate)
        slack = turns - need_turns - self.keep_margin
        risk = sum(info.ticket_points[t] for t in new)
        pen = 0.0
        if slack < 0:
            pen -= 2.0 * risk * min(1.0, -slack / max(need_turns, 1.0)) + 2.0 * -slack
        # wagons left for route points after the plan: a small tie-break for lean plans
        pen -= 0.15 * plan.wagons
        return pen

    def want_tickets(self, obs: Obs, plan: Any) -> bool:
        me = obs.seat
        if self.style == "routes" and self.done_ticket_wagons > 0:
            return (obs.ticket_deck > 0 and not plan.routes and not plan.borrow
                    and obs.wagons[me] >= self.done_ticket_wagons and not obs.final_round)
        if obs.ticket_deck == 0 or self.style in ("routes", "longroute"):
            return False
        if self.style == "greedy":
            return not plan.routes and not plan.borrow and obs.wagons[me] >= 6
        if self.style == "hungry":
            return plan.wagons <= 6 and obs.wagons[me] >= 12 and not obs.final_round
        if plan.borrow or self.turns_left(obs) < self.ticket_turns:
            return False
        if plan.dropped and self.no_draw_when_dropped:
            return False  # already short of time for the tickets held: new ones would only fail too
        if not plan.routes:
            return obs.wagons[me] >= self.ticket_wagons
        # plenty of wagons and time beyond the current plan: more tickets pay
        spare = obs.wagons[me] - plan.wagons
        if spare < self.ticket_spare:
            return False
        slack = self.turns_left(obs)
        need = self._need_turns(obs, plan)
        return slack - need >= self.ticket_slack

    # ------------------------------------------------------------------ turn
    def main(self, obs: Obs, moves: Moves, legal: Sequence[Any]) -> Any:
        plan = self.plan(obs)
        targets = plan.routes
        style = self.style
        end_near = obs.final_round or min(obs.wagons) <= self.end_wagons

        if end_near and style == "planner":
            act = self.best_points_claim(obs, moves, plan, finishing=True)
            if act is not None:
                return act
            st = self.station_move(obs, moves, plan, force=True)
            if st is not None:
                return st

        if style == "longroute":
            act = self.long_claim(obs, moves, plan)
            if act is not None:
                return act

        if style == "planner" and self.block_gain < 100:
            act = self.block_claim(obs, moves, self.block_gain)
            if act is not None:
                return act

        act = self.plan_claim(obs, moves, plan)
        if act is not None:
            return act

        if style == "planner":
            st = self.station_move(obs, moves, plan, force=self.turns_left(obs) <= 4 or not targets)
            if st is not None:
                return st
            if sum(obs.hand) >= self.hand_cap and targets:
                act = self.best_points_claim(obs, moves, plan, finishing=False)
                if act is not None:
                    return act

        if not targets and not plan.borrow:
            if self.want_tickets(obs, plan) and moves.tickets is not None:
                return moves.tickets
            if style == "planner":
                act = self.block_claim(obs, moves, 5.0)
                if act is not None:
                    return act
            act = self.best_points_claim(obs, moves, plan, finishing=False)
            if act is not None:
                return act
        elif style in ("hungry", "planner") and self.want_tickets(obs, plan) and moves.tickets is not None:
            return moves.tickets

        act = self.draw(obs, moves, plan, second=False)
        if act is not None:
            return act
        # nothing to draw: claim anything, else tickets, else whatever is legal
        act = self.best_points_claim(obs, moves, plan, finishing=True)
        if act is not None:
            return act
        if moves.tickets is not None:
            return moves.tickets
        return legal[0]

    def pick_payment(self, obs: Obs, actions: list[Any], plan: Any, route: int | None = None) -> tuple[Any, float]:
        rest = [r for r in plan.routes if r != route]
        deficit, _, _ = card_needs(obs.info, obs.hand, rest)
        keep = {obs.info.route_color[r] for r in rest if obs.info.route_color[r] != GRAY}
        best = min(actions, key=lambda a: payment_penalty(obs.info, a, deficit, keep))
        return best, payment_penalty(obs.info, best, deficit, keep)

    def plan_claim(self, obs: Obs, moves: Moves, plan: Any) -> Any:
        info = obs.info
        best, best_score = None, -INF
        for r in plan.routes:
            acts = moves.claims.get(r)
            if not acts:
                continue
            if info.tunnel[r]:
                # a tunnel may ask for up to 3 more cards: go with some spare of the right kind
                if self.style == "planner" and self.tunnel_risk < 1:
                    # pay with the cards most likely to cover the extra; wait while that is too risky
                    odds = {a: self._tunnel_fail(obs, a) for a in acts}
                    acts = [a for a in acts if odds[a] <= self.tunnel_risk] or (
                        [min(acts, key=lambda a: odds[a])] if self.turns_left(obs) <= 3 else [])
                else:
                    acts = [a for a in acts if self._tunnel_spare(obs, a) >= 1] or (
                        acts if obs.turns_left_estimate() <= 3 else [])
                if not acts:
                    continue
            act, pen = self.pick_payment(obs, acts, plan, r)
            if self.style == "greedy":
                score = info.route_points[r]
            elif self.style == "routes":
                score = info.route_len[r] * 10 - pen
            else:
                score = info.route_len[r] * 1.2 - pen + self._contested(obs, r)
            if score > best_score:
                best, best_score = act, score
        return best

    def _tunnel_spare(self, obs: Obs, act: Any) -> int:
        hand = obs.hand
        spare = hand[obs.info.loco] - act.n_loco
        if act.n_color:
            spare += hand[act.color] - act.n_color
        return spare

    def _express_gain(self, obs: Obs, r: int) -> float:
        """Change in my European Express points (longest continuous path) if I claim route ``r``.

        The bonus goes to every player with the longest trail; a claim that is not next to my
        network cannot lengthen it beyond its own length.
        """
        info = obs.info
        bonus = info.board.longest_path_bonus if info.board.features.longest_path else 0
        if not bonus:
            return 0.0
        cached = getattr(self, "_express_base", None)  # every player's trail, once per observed position
        base = cached[1] if cached is not None and cached[0] is obs else None
        if base is None:
            edges_of: list[list[tuple[int, int, int]]] = [[] for _ in range(obs.n)]
            for x, o in enumerate(obs.route_owner):
                if o >= 0:
                    edges_of[o].append((*info.route_ends[x], info.route_len[x]))
            lengths = [longest_trail(edges)[0] for edges in edges_of]
            other = max((v for p, v in enumerate(lengths) if p != obs.seat), default=0)
            base = (lengths[obs.seat], other, edges_of[obs.seat])
            self._express_base = (obs, base)
        mine, other, my_edges = base
        a, b = info.route_ends[r]
        if any(obs.route_owner[x] == obs.seat for c in (a, b) for _, x in info.adj[c]):  # next to my network
            after = longest_trail([*my_edges, (a, b, info.route_len[r])])[0]
        else:
            after = max(mine, info.route_len[r])
        return bonus * (float(after >= other) - float(mine >= other))

    def _tunnel_fail(self, obs: Obs, act: Any) -> float:
        """Chance that a tunnel claim paid with ``act`` asks for more extra cards than the hand has left.

        Each of the 3 revealed cards matches with the share of matching cards among those I cannot
        see (a locomotive, or the colour played unless only locomotives are played); binomial odds.
        """
        info = obs.info
        loco = info.loco
        hand = obs.hand
        unseen = sum(info.total_cards) - sum(hand) - sum(1 for c in obs.market if c >= 0)
        match = info.total_cards[loco] - hand[loco] - obs.market.count(loco)
        if act.n_color and act.color >= 0:
            match += info.total_cards[act.color] - hand[act.color] - obs.market.count(act.color)
        p = min(1.0, max(0.0, match / max(1, unseen)))
        spare = self._tunnel_spare(obs, act) if act.n_color else hand[loco] - act.n_loco
        fail = 0.0
        for k in range(spare + 1, 4):
            fail += math.comb(3, k) * p**k * (1 - p) ** (3 - k)
        return fail

    def _contested(self, obs: Obs, r: int) -> float:
        """Routes with no alternative lane near opponents' networks are worth grabbing first."""
        info = obs.info
        a, b = info.route_ends[r]
        near = 0
        for city in (a, b):
            for _, rr in info.adj[city]:
                o = obs.route_owner[rr]
                if o not in (-1, obs.seat):
                    near += 1
        single = 1.0 if not any(obs.usable(t) for t in info.twins[r]) else 0.0
        return 0.6 * near + single

    def best_points_claim(self, obs: Obs, moves: Moves, plan: Any, finishing: bool) -> Any:
        """Claim the route worth most points now (ticket-completing claims count their tickets)."""
        info = obs.info
        me = obs.seat
        if not moves.claims:
            return None
        pl = None
        missing = [t for t in obs.tickets if t not in plan.done]
        sights = self._untouched_attractions(obs) if self.style == "planner" and self.attraction_weight > 0 else None
        best, best_score = None, -INF
        for r, acts in moves.claims.items():
            score = float(info.route_points[r])
            if self.style == "longroute" and info.route_len[r] < 4 and not finishing:
                continue
            short = info.route_len[r] < self.short_route
            if not finishing and short and self.style == "planner" and obs.wagons[me] > 8:
                continue  # short routes waste the turn while time is left: draw for long ones instead
            if info.tunnel[r]:
                acts = [a for a in acts if self._tunnel_spare(obs, a) >= 1]
                if not acts:
                    continue
            if r in plan.routes:
                score += 4
            if sights:
                score += self.attraction_weight * len(sights.intersection(info.route_ends[r]))
            if self.style == "planner" and self.express_weight > 0:
                score += self._express_gain(obs, r) * (1.0 if finishing else self.express_weight)
            if missing and finishing:
                if pl is None:
                    pl = self.planner(obs)
                comp = pl.components()
                a, b = info.route_ends[r]
                ca, cb = comp[a], comp[b]
                for t in missing:
                    x, y = comp[info.ticket_ends[t][0]], comp[info.ticket_ends[t][1]]
                    if {x, y} == {ca, cb}:
                        score += 2 * info.ticket_points[t]
            act, pen = self.pick_payment(obs, acts, plan, r)
            score -= 0.05 * pen
            if score > best_score:
                best, best_score = act, score
        return best

    @staticmethod
    def _untouched_attractions(obs: Obs) -> frozenset[int]:
        """The tourist attractions none of my routes touches yet: a claim scores each one at its ends once."""
        info = obs.info
        mine = {c for q, o in enumerate(obs.route_owner) if o == obs.seat for c in info.route_ends[q]}
        return info.board.attractions - mine

    def long_claim(self, obs: Obs, moves: Moves, plan: Any) -> Any:
        info = obs.info
        best, best_score = None, -INF
        touch = {c for r, o in enumerate(obs.route_owner) if o == obs.seat for c in info.route_ends[r]}
        for r, acts in moves.claims.items():
            if info.route_len[r] < 4:
                continue
            if info.tunnel[r]:
                acts = [a for a in acts if self._tunnel_spare(obs, a) >= 1]
                if not acts:
                    continue
            a, b = info.route_ends[r]
            score = info.route_points[r] + (3 if a in touch or b in touch else 0) + (5 if r in plan.routes else 0)
            act, pen = self.pick_payment(obs, acts, plan, r)
            if score - 0.1 * pen > best_score:
                best, best_score = act, score - 0.1 * pen
        return best

    def station_move(self, obs: Obs, moves: Moves, plan: Any, force: bool) -> Any:
        if not plan.borrow or not moves.stations:
            return None
        if plan.routes and not force:
            return None
        for _route, city in plan.borrow:
            acts = moves.stations.get(city)
            if acts:
                return self.pick_payment(obs, acts, plan)[0]
        return None

    def block_claim(self, obs: Obs, moves: Moves, threshold: float) -> Any:
        """Claim a cheap route that cuts an opponent's evident connection (two components of theirs)."""
        info = obs.info
        if not moves.claims:
            return None
        best, best_gain = None, 0.0
        for p in range(obs.n):
            if p == obs.seat:
                continue
            pl = Planner(obs, p)
            comp = pl.components()
            sizes: dict[int, int] = {}
            for r, o in enumerate(obs.route_owner):
                if o == p:
                    c = comp[info.route_ends[r][0]]
                    sizes[c] = sizes.get(c, 0) + 1
            if len(sizes) < 2:
                continue
            big = sorted(sizes, key=lambda c: -sizes[c])[:2]
            a = next(x for x in range(info.n_cities) if comp[x] == big[0])
            b = next(x for x in range(info.n_cities) if comp[x] == big[1])
            found = pl.path(a, b, set(), False)
            if found is None:
                continue
            base, routes, _ = found
            for r in routes:
                if r not in moves.claims:
                    continue
                saved = pl.cost[r]
                pl.cost[r] = INF
                alt = pl.path(a, b, set(), False)
                pl.cost[r] = saved
                gain = min(12.0, (INF if alt is None else alt[0]) - base)
                gain += info.route_points[r] * 0.5
                if gain > best_gain + 1e-9 and gain >= threshold and info.route_len[r] <= self.block_len:
                    best, best_gain = r, gain
        if best is None:
            return None
        return min(moves.claims[best], key=lambda a: (a.n_loco, -a.n_color))

    # ------------------------------------------------------------------ cards
    def draw(self, obs: Obs, moves: Moves, plan: Any, second: bool) -> Any:
        info = obs.info
        loco = info.loco
        hand = obs.hand
        if not moves.draws:
            return None
        targets = plan.routes
        if not targets and self.style in ("planner", "longroute", "routes"):
            targets = self._wish_routes(obs, plan)
        deficit, gray_def, ferry = card_needs(info, hand, targets)
        weight = [0.0] * loco
        if self.style == "planner" and self.concentrate:
            # concentrate: a card counts most for the route it brings closest to being claimable
            top = max(range(loco), key=lambda c: hand[c] - deficit[c])
            n_loco = hand[loco]
            for r in targets:
                length = info.route_len[r] - info.ferry[r]
                c = info.route_color[r]
                if c == GRAY:
                    c = top
                missing = max(0, length - hand[c] - n_loco)
                if missing > 0 or hand[c] < length:
                    weight[c] = max(weight[c], 1.0 + 1.0 / max(1, missing))
        else:
            weight = [float(d) for d in deficit]
            if gray_def > 0:
                top = max(range(loco), key=lambda c: hand[c])
                for c in range(loco):
                    weight[c] += 0.3 * gray_def if c == top else 0.05 * gray_def
        if self.style == "longroute":
            top = max(range(loco), key=lambda c: hand[c])
            weight[top] += 2
        face = [c for c in moves.draws if c is not None and c != loco]
        best = max(face, key=lambda c: weight[c], default=None)
        if best is not None and weight[best] > 0:
            return moves.draws[best]
        if not second and loco in moves.draws and self.style in ("planner", "hungry", "routes"):
            # a ferry of the plan needs locomotives: blind draws find one in 8 cards, so take it face up
            # (routes does only that; hungry also when its plan lacks many cards)
            need = sum(deficit) + gray_def + max(0, ferry - hand[loco])
            threshold = {"planner": self.planner_loco_need, "hungry": self.loco_need}.get(self.style, INF)
            if ferry > hand[loco] or need >= threshold:
                return moves.draws[loco]
        if None in moves.draws:
            return moves.draws[None]
        if face:
            return moves.draws[face[0]]
        return moves.draws.get(loco)

    def _wish_routes(self, obs: Obs, plan: Any) -> list[int]:
        """With no ticket routes left: the longest free route we could still fill, to collect for."""
        info = obs.info
        me = obs.seat
        best = [r for r in range(len(info.route_len)) if obs.usable(r) and info.route_len[r] <= obs.wagons[me]]
        best.sort(key=lambda r: (-info.route_points[r], r))
        return best[:1]

    def tunnel(self, obs: Obs, moves: Moves) -> Any:
        """Pay when possible: declining wastes the turn and the claim would only be tried again."""
        if not moves.pays:
            return moves.decline
        return min(moves.pays, key=lambda a: (a.n_loco, a.n_color))


def make_style(style: str):
    def factory(seed: int | str | None = None) -> HeuristicBot:
        return HeuristicBot(seed, style)

    factory.__name__ = f"{style}_bot"
    return factory


__all__ = ["STYLES", "HeuristicBot", "Moves", "make_style", "move_seed"]
