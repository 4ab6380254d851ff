"""Parameters by board (``BOARD_PARAMS``) and the routes baseline's ferry locomotives: each test would fail
if the rule it names broke."""

from __future__ import annotations

import tracklayer
from tracklayer.bots.ttr_common import Obs, Plan
from tracklayer.bots.ttr_heuristic import BOARD_PARAMS, HeuristicBot, Moves


def _first_choice(bot: HeuristicBot, game: str, variant: str | None = None) -> None:
    options = {} if variant is None else {"variant": variant}
    g = tracklayer.new_game(game, 2, seed=5, **options)
    seat = g.current_player
    bot.choose(g.view(seat), g.legal_actions())


def test_every_board_parameter_is_one_the_bot_has() -> None:
    for style, table in BOARD_PARAMS.items():
        for params in table.values():
            assert all(hasattr(HeuristicBot, name) for name in params), style


def test_a_bot_plays_with_the_parameters_of_the_board_it_sees() -> None:
    planner = HeuristicBot(0, "planner")
    _first_choice(planner, "ttr-new-york")
    for name, value in BOARD_PARAMS["planner"][("ttr-new-york", None)].items():
        assert getattr(planner, name) == value
    assert planner.route_overhead != HeuristicBot.route_overhead
    _first_choice(planner, "ttr-europe")  # another board: back to the defaults
    assert planner.route_overhead == HeuristicBot.route_overhead
    assert planner.keep_margin == HeuristicBot.keep_margin

    routes = HeuristicBot(0, "routes")
    _first_choice(routes, "ttr-europe", "big-cities")
    assert routes.shared_paths and routes.done_ticket_wagons > 0
    _first_choice(routes, "ttr-europe", "classic")
    assert not routes.shared_paths and routes.done_ticket_wagons == 0


def test_routes_draws_more_tickets_only_where_its_board_says_so() -> None:
    g = tracklayer.new_game("ttr-europe", 2, seed=5, variant="big-cities")
    obs = Obs.from_view(g.view(0))
    done = Plan(routes=[], borrow=[], done=list(obs.tickets), planned=[], failed=[], wagons=0, cost=0.0)
    bot = HeuristicBot(0, "routes")
    bot.use_board("ttr-europe", "big-cities")
    assert bot.want_tickets(obs, done)  # plan done, 45 wagons: more Big Cities tickets
    busy = Plan(routes=[0], borrow=[], done=[], planned=list(obs.tickets), failed=[], wagons=3, cost=3.0)
    assert not bot.want_tickets(obs, busy)
    bot.use_board("ttr-europe", "classic")
    assert not bot.want_tickets(obs, done)  # the paper's route-focused agent never draws tickets


def test_routes_takes_a_face_up_locomotive_only_for_a_ferry() -> None:
    """Blind draws find a locomotive in about 8 cards: waiting for a ferry's that way stalled the plan."""
    g = tracklayer.new_game("ttr-europe", 2, seed=1)
    obs = Obs.from_view(g.view(0))
    info = obs.info
    loco = info.loco
    obs.hand = [0] * info.n_cards
    obs.market = [loco] * 5
    moves = Moves([g.table.draw(loco), g.table.draw_deck])
    land = next(r for r in range(len(info.ferry)) if not info.ferry[r] and info.route_len[r] >= 4)
    ferry = next(r for r in range(len(info.ferry)) if info.ferry[r] and info.route_len[r] <= 3)

    def plan(routes: list[int]) -> Plan:
        return Plan(routes=routes, borrow=[], done=[], planned=[], failed=[], wagons=4, cost=0.0)

    bot = HeuristicBot(0, "routes")
    assert bot.draw(obs, moves, plan([land]), second=False) == g.table.draw_deck
    assert bot.draw(obs, moves, plan([ferry]), second=False) == g.table.draw(loco)
