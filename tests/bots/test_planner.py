"""The planner's rules: no ticket draws while short of time, the end foreseen from opponents' hands,
tunnel odds, European Express gains. Each test would fail if the rule it names broke."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

import tracklayer
from tracklayer.bots.ttr_common import Obs, Plan
from tracklayer.bots.ttr_heuristic import HeuristicBot, Moves


def _opening_game(seed: int = 1) -> tracklayer.core.game.BaseGame:  # type: ignore[name-defined]
    """A 2-player Europe game at seat 0's first main-phase turn (both players kept their tickets)."""
    g = tracklayer.new_game("ttr-europe", 2, seed=seed)
    bots = [HeuristicBot(0, "planner"), HeuristicBot(1, "planner")]
    while not (g.phase == "main" and g.current_player == 0):
        s = g.current_player
        g.apply(bots[s].choose(g.view(s), g.legal_actions()))
    return g


def _opening(seed: int = 1) -> Obs:
    return Obs.from_view(_opening_game(seed).view(0))


def _route(obs: Obs, a: str, b: str) -> int:
    info = obs.info
    ia, ib = info.city_index[a], info.city_index[b]
    return next(r for r, ends in enumerate(info.route_ends) if set(ends) == {ia, ib})


def test_planner_draws_no_tickets_while_a_held_ticket_is_given_up_for_time() -> None:
    obs = _opening()
    bot = HeuristicBot(0, "planner")
    done = Plan(routes=[], borrow=[], done=list(obs.tickets), planned=[], failed=[], wagons=0, cost=0.0)
    assert bot.want_tickets(obs, done)  # plan complete, 45 wagons, a whole game left: more tickets pay
    short = Plan(routes=[], borrow=[], done=obs.tickets[1:], planned=[], failed=obs.tickets[:1], wagons=0, cost=0.0,
                 dropped=obs.tickets[:1])
    assert not bot.want_tickets(obs, short)


def test_dropped_tickets_are_the_ones_the_time_check_gives_up() -> None:
    """With the game about to end, the plan gives up tickets and records them as dropped."""
    obs = _opening(seed=3)
    bot = HeuristicBot(0, "planner")
    assert bot.plan(obs).dropped == []
    obs.wagons[1] = 4  # the opponent can end the game in a turn or two
    obs.cards[1] = 10
    plan = bot.plan(obs)
    assert plan.dropped and set(plan.dropped) <= set(plan.failed)


def test_an_opponents_big_hand_brings_the_end_closer() -> None:
    obs = _opening()
    obs.turn = 60  # 30 rounds at under a wagon a turn: the average pace says about 20 turns
    obs.wagons[1] = 20
    obs.cards[1] = 0
    empty = obs.turns_left_fast()
    obs.cards[1] = 18
    hoarder = obs.turns_left_fast()
    assert hoarder < empty <= obs.turns_left_estimate()
    # 18 wagons to lay: with no cards 6 claims of 3 and 9 draw turns, with 18 cards only the claims
    assert empty == pytest.approx(18 / 3 + 18 / 2 + 1)
    assert hoarder == pytest.approx(18 / 3 + 1)
    obs.final_round = True
    assert obs.turns_left_fast() == 1.0


def test_planner_uses_the_fast_estimate_and_baselines_do_not() -> None:
    obs = _opening()
    obs.turn = 60
    obs.wagons[1] = 20
    obs.cards[1] = 18
    assert HeuristicBot(0, "planner").turns_left(obs) < obs.turns_left_estimate()
    for style in ("greedy", "routes", "hungry", "longroute"):
        assert HeuristicBot(0, style).turns_left(obs) == obs.turns_left_estimate()


@dataclass
class _Pay:
    color: int
    n_color: int
    n_loco: int


def test_tunnel_odds_follow_the_unseen_cards() -> None:
    obs = _opening()
    info = obs.info
    bot = HeuristicBot(0, "planner")
    red = info.card_index["red"]
    obs.hand = [0] * info.n_cards
    obs.hand[red] = 3
    obs.market = [info.card_index["blue"]] * 5
    unseen = 110 - 3 - 5
    p = (12 - 3 + 14) / unseen
    assert bot._tunnel_fail(obs, _Pay(red, 3, 0)) == pytest.approx(1 - (1 - p) ** 3)  # no spare: any match fails
    obs.hand[red] = 5
    p = (12 - 5 + 14) / (110 - 5 - 5)
    assert bot._tunnel_fail(obs, _Pay(red, 3, 0)) == pytest.approx(p**3)  # two spare: only three matches fail
    obs.hand[info.loco] = 1
    assert bot._tunnel_fail(obs, _Pay(red, 3, 0)) == 0.0  # three spare cover any reveal


def test_express_gain_counts_only_a_change_of_the_longest_path_standing() -> None:
    obs = _opening()
    bot = HeuristicBot(0, "planner")
    owner = obs.route_owner
    for r in range(len(owner)):
        owner[r] = -1
    for a, b in (("Lisboa", "Madrid"), ("Madrid", "Pamplona")):  # mine: 3 + 3
        owner[_route(obs, a, b)] = 0
    for a, b in (("Kyiv", "Kharkov"), ("Kharkov", "Moskva")):  # theirs: 4 + 4
        owner[_route(obs, a, b)] = 1
    assert bot._express_gain(obs, _route(obs, "Pamplona", "Paris")) == 10  # 3 + 3 + 4 = 10 beats 8
    assert bot._express_gain(obs, _route(obs, "Cadiz", "Madrid")) == 0  # a fork: the trail stays 6
    assert bot._express_gain(obs, _route(obs, "Edinburgh", "London")) == 0  # not on my network: 4
    owner[_route(obs, "Pamplona", "Paris")] = 0
    bot = HeuristicBot(0, "planner")  # a new position (the bot caches the lengths per view)
    assert bot._express_gain(obs, _route(obs, "Marseille", "Paris")) == 0  # already ahead: nothing to gain


def test_planner_takes_a_face_up_locomotive_only_for_ferries() -> None:
    """One wild card is a whole turn; two blind cards are worth more unless a ferry needs locomotives."""
    g = _opening_game()
    obs = Obs.from_view(g.view(0))
    info = obs.info
    loco = info.loco
    obs.hand = [0] * info.n_cards
    obs.market = [loco] * 5  # nothing else face up: only the locomotive or the deck
    moves = Moves([g.table.draw(loco), g.table.draw_deck])
    land = [_route(obs, "Pamplona", "Paris"), _route(obs, "Lisboa", "Madrid")]  # 7 cards short, no ferry
    ferry = next(r for r in range(len(info.ferry)) if info.ferry[r] and info.route_len[r] <= 3)

    def plan(routes: list[int]) -> Plan:
        return Plan(routes=routes, borrow=[], done=[], planned=list(obs.tickets), failed=[], wagons=7, cost=0.0)

    assert HeuristicBot(0, "planner").draw(obs, moves, plan(land), second=False) == g.table.draw_deck
    assert HeuristicBot(0, "planner").draw(obs, moves, plan([ferry]), second=False) == g.table.draw(loco)
    # the destination-hungry baseline keeps its rule: a locomotive when 4+ cards are missing
    assert HeuristicBot(0, "hungry").draw(obs, moves, plan(land), second=False) == g.table.draw(loco)


def test_mcts_starts_its_search_when_the_planner_sees_the_end_coming() -> None:
    """An opponent hoarding cards can end the game in a few turns: the default trigger (the planner's
    estimate) searches then, while the average pace alone would still leave it to the planner."""
    from tracklayer.bots.ttr_mcts import MCTSBot

    obs = _opening()
    obs.turn = 60
    obs.wagons[1] = 20
    obs.cards[1] = 18
    bot, pace = MCTSBot(0), MCTSBot(0, trigger="pace")
    assert bot.turns_left(obs) <= bot.endgame < pace.turns_left(obs) == obs.turns_left_estimate()
    obs.cards[1] = 0  # no hoard: both leave the move to the planner
    assert bot.turns_left(obs) > bot.endgame
    with pytest.raises(ValueError, match="trigger"):
        MCTSBot(0, trigger="clock")
