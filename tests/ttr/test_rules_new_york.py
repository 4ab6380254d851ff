"""Ticket to Ride: New York, one test (or more) per rule of /work/shared/rules/ticket-to-ride-new-york.md."""

from __future__ import annotations

from collections import Counter

import pytest

import tracklayer
from tests.ttr.helpers import (
    assert_illegal,
    card,
    cards,
    claims_of,
    hand,
    hoarded,
    lanes,
    legal_texts,
    oracle_legal,
    route,
    set_deck,
    set_discard,
    set_market,
    set_turn,
    start,
    ticket,
    total_cards,
)
from tracklayer import IllegalAction
from tracklayer.ttr.board import load_board
from tracklayer.ttr.cards import EMPTY
from tracklayer.ttr.scoring import HeldTicket, score_position
from tracklayer.ttr.table_score import ScoreInputError, score_table

NY = "ttr-new-york"
COLORS = ("blue", "green", "black", "pink", "red", "orange")


def ny(n: int = 2, **kw):
    return start(NY, n, **kw)


def counts(g, **kw) -> list[int]:
    h = [0] * (len(g.board.colors) + 1)
    for k, v in kw.items():
        h[card(g, k)] = v
    return h


# ============================================================================ components / setup
@pytest.mark.parametrize("n", [2, 3, 4])
def test_components_and_deal(n):
    g = tracklayer.new_game(NY, n, seed=4)
    s = g.state
    every: Counter = Counter()
    for h in s.hands:
        for c, k in enumerate(h):
            every[c] += k
    every.update(s.deck)
    every.update(s.discard)
    every.update(c for c in s.market if c != EMPTY)
    assert sum(every.values()) == 44
    assert [every[card(g, c)] for c in COLORS] == [6] * 6
    assert every[g.board.loco] == 8
    assert g.board.locomotive_name == "taxi"
    assert [sum(h) for h in s.hands] == [2] * n
    assert len(s.market) == 5 and EMPTY not in s.market
    assert s.market.count(g.board.loco) < 3
    assert s.wagons == [15] * n
    assert s.stations_left == [0] * n
    assert len(g.board.tickets) == 18


@pytest.mark.parametrize("n", [1, 5])
def test_player_count_limits(n):
    with pytest.raises(IllegalAction, match="2-4 players"):
        tracklayer.new_game(NY, n, seed=1)


def test_no_tunnels_ferries_stations_on_the_board():
    b = load_board(NY)
    assert not b.features.tunnels and not b.features.ferries and not b.features.stations
    assert not any(r.tunnel or r.locomotives for r in b.routes)
    assert b.stations == 0


def test_initial_two_tickets_keep_one_or_two():
    g = tracklayer.new_game(NY, 3, seed=4)
    s = g.state
    assert [len(o) for o in s.offers] == [2, 2, 2]
    assert len(s.ticket_deck) == 18 - 6
    offer = sorted(s.offers[0])
    assert set(legal_texts(g)) == {f"keep {g.board.tickets[offer[0]].id}", f"keep {g.board.tickets[offer[1]].id}",
                                   "keep " + " ".join(g.board.tickets[t].id for t in offer)}
    assert_illegal(g, g.table.keep(()), "at least 1")


def test_initial_returned_ticket_goes_under_the_deck():
    g = tracklayer.new_game(NY, 2, seed=4)
    offer = sorted(g.state.offers[0])
    deck = list(g.state.ticket_deck)
    g.apply(g.table.keep((offer[0],)))
    assert g.state.tickets[0] == [offer[0]]
    assert g.state.set_aside == [offer[1]] and g.state.ticket_deck == deck  # until everybody has chosen
    g.apply("keep all")
    assert g.phase == "main" and g.current_player == 0
    assert g.state.ticket_deck == [offer[1], *deck] and g.state.set_aside == []


def test_first_player_option():
    g = tracklayer.new_game(NY, 3, seed=4, first_player=1)
    assert g.current_player == 1
    while g.phase == "initial":
        g.apply("keep all")
    assert g.current_player == 1


# ============================================================================ drawing
def test_draw_two_cards():
    g = ny()
    hand(g, 0)
    set_market(g, ["red", "blue", "green", "black", "pink"])
    set_deck(g, ["orange", "orange", "red"])
    g.apply("draw blue")
    assert g.state.market == cards(g, "red", "red", "green", "black", "pink")
    assert g.phase == "second_draw"
    g.apply("draw deck")
    assert g.state.hands[0] == counts(g, blue=1, orange=1)
    assert g.current_player == 1


def test_face_up_taxi_first_is_the_only_card():
    g = ny()
    hand(g, 0)
    set_market(g, ["taxi", "red", "blue", "green", "black"])
    set_deck(g, ["orange", "pink"])
    g.apply("draw taxi")
    assert g.state.hands[0] == counts(g, taxi=1)
    assert g.current_player == 1 and g.phase == "main"


def test_face_up_taxi_not_as_second_card():
    g = ny()
    set_market(g, ["red", "taxi", "blue", "green", "black"])
    set_deck(g, ["orange", "pink"])
    g.apply("draw red")
    assert "draw taxi" not in legal_texts(g)
    assert_illegal(g, "draw taxi", "taxi cannot be taken as the second card")


def test_blind_taxi_counts_as_one():
    g = ny()
    hand(g, 0)
    set_deck(g, ["orange", "taxi"])
    g.apply("draw deck")
    assert g.phase == "second_draw" and g.current_player == 0
    g.apply("draw deck")
    assert g.state.hands[0] == counts(g, taxi=1, orange=1)


def test_three_face_up_taxis_reset_market():
    g = ny()
    set_market(g, ["taxi", "taxi", "red", "blue", "green"])
    set_deck(g, ["pink", "pink", "black", "orange", "orange", "taxi"])
    set_discard(g, [])
    g.apply("draw red")
    assert sorted(g.state.discard) == sorted(cards(g, "taxi", "taxi", "taxi", "blue", "green"))
    assert g.state.market == cards(g, "orange", "orange", "black", "pink", "pink")


@pytest.mark.parametrize("seed", range(10))
def test_taxi_reset_repeats_while_a_better_market_exists(seed):
    # the same rule as Europe: with 3 non-taxis among 11 cards, three resets are often not enough (the
    # engine used to stop there); the reset goes on until fewer than 3 taxis lie face up
    g = ny(seed=seed)
    s = g.state
    taxi = g.board.loco
    hand(g, 0)
    set_market(g, ["taxi", "taxi", "red", "blue", "green"])
    set_deck(g, ["pink"] + ["taxi"] * 6)
    set_discard(g, [])
    g.apply("draw red")
    assert s.market.count(taxi) < 3
    assert sorted(c for c in s.deck + s.discard + s.market if c != EMPTY) == sorted(
        cards(g, "blue", "green", "pink") + [taxi] * 8)


def test_taxi_reset_stops_when_no_better_market_exists():
    g = ny()
    hand(g, 0)
    set_market(g, ["taxi", "taxi", "red", "blue", "green"])
    set_deck(g, ["taxi"] * 6)
    set_discard(g, [])
    g.apply("draw red")
    assert g.state.market == cards(g, "taxi", "taxi", "taxi", "blue", "green") and g.state.discard == []


def test_taxi_reset_as_soon_as_a_claim_makes_one_possible():
    # "Sobald zu einem beliebigen Zeitpunkt drei Taxikarten offen ausliegen ... sofort": not only when a
    # face-up card is taken. Before the claim the 2 green are the only non-taxis outside the hands; with
    # the 2 orange paid, a market of fewer than 3 taxis can be made
    g = ny(seed=5)
    taxi = g.board.loco
    hoarded(g, ["green", "green", "taxi", "taxi", "taxi"], ["taxi"] * 5, orange=2)
    g.apply("claim Lincoln Center-Central Park: 2 orange")
    s = g.state
    assert s.route_owner[route(g, "Lincoln Center-Central Park")] == 0 and g.current_player == 1
    assert s.market.count(taxi) < 3
    assert sorted(c for c in s.deck + s.discard + s.market if c != EMPTY) == sorted(
        cards(g, "green", "green", "orange", "orange") + [taxi] * 8)
    assert total_cards(g) == 44


def test_empty_deck_reshuffles_discard():
    g = ny()
    s = g.state
    s.discard.extend(s.deck)
    s.deck = []
    g._legal = None
    n = len(s.discard)
    g.apply("draw deck")
    assert s.discard == [] and len(s.deck) == n - 1
    assert total_cards(g) == 44


def test_no_hand_limit():
    g = ny()
    hand(g, 0, red=30)
    set_deck(g, ["blue", "blue"])
    g.apply("draw deck")
    g.apply("draw deck")
    assert sum(g.state.hands[0]) == 32


# ============================================================================ claiming
@pytest.mark.parametrize(("move", "length", "points"), [
    ("claim Midtown West-Times Square: 1 red", 1, 1),
    ("claim Lincoln Center-Central Park: 2 orange", 2, 2),
    ("claim Central Park-United Nations: 3 pink", 3, 4),
    ("claim Chelsea-Soho: 4 pink", 4, 7),
])
def test_route_scoring_table(move, length, points):
    g = ny()
    hand(g, 0, red=1, orange=2, pink=4)
    deck = list(g.state.deck)
    g.apply(move)
    assert g.state.route_points[0] == points
    assert g.state.wagons[0] == 15 - length
    assert g.state.deck == deck  # no tunnel: nothing is revealed
    assert g.current_player == 1


def test_claim_coloured_route_wrong_colour():
    g = ny()
    hand(g, 0, red=2)
    assert claims_of(g, "Lincoln Center-Central Park") == []
    assert_illegal(g, g.table.claim(route(g, "Lincoln Center-Central Park"), card(g, "red"), 0), "is orange")


def test_taxis_are_wild():
    g = ny()
    hand(g, 0, orange=1, taxi=1)
    assert claims_of(g, "Lincoln Center-Central Park") == ["claim Lincoln Center-Central Park: 1 orange + 1 taxi"]
    g.apply("claim Lincoln Center-Central Park: 1 orange + 1 taxi")
    assert g.state.hands[0] == counts(g)
    assert g.state.route_owner[route(g, "Lincoln Center-Central Park")] == 0


def test_all_taxis():
    g = ny()
    hand(g, 0, taxi=3)
    g.apply("claim Central Park-United Nations: 3 taxi")
    assert g.state.route_owner[route(g, "Central Park-United Nations")] == 0


def test_gray_route_any_one_colour_not_mixed():
    g = ny()
    hand(g, 0, red=1, blue=1)
    assert claims_of(g, "Times Square-United Nations") == []
    assert_illegal(g, "claim Times Square-United Nations: 1 red + 1 blue", "one colour")
    hand(g, 0, black=2)
    g.apply("claim Times Square-United Nations: 2 black")
    assert g.state.route_owner[route(g, "Times Square-United Nations")] == 0


def test_need_enough_taxis():
    g = ny()
    hand(g, 0, pink=4, red=1)
    g.state.wagons[0] = 3
    g._legal = None
    assert claims_of(g, "Chelsea-Soho") == []
    assert_illegal(g, "claim Chelsea-Soho: 4 pink", "needs 4")


def test_claim_taken_route_refused():
    g = ny()
    hand(g, 0, orange=2)
    hand(g, 1, orange=2)
    g.apply("claim Lincoln Center-Central Park: 2 orange")
    assert_illegal(g, "claim Lincoln Center-Central Park: 2 orange", "already claimed by player 1")


def test_double_route_closed_with_two_players():
    g = ny(2)
    hand(g, 0, green=2)
    hand(g, 1, blue=2)
    g.apply("claim Lincoln Center-Times Square/green: 2 green")
    assert claims_of(g, "Lincoln Center-Times Square") == []
    assert_illegal(g, "claim Lincoln Center-Times Square/blue: 2 blue", "closed: with 2 players")


def test_identical_double_lanes_closed_with_two_players():
    g = ny(2)
    hand(g, 0, red=2)
    hand(g, 1, red=2)
    g.apply("claim Chelsea-Empire State Building: 2 red")
    assert claims_of(g, "Chelsea-Empire State Building") == []
    with pytest.raises(IllegalAction):
        g.apply("claim Chelsea-Empire State Building: 2 red")


@pytest.mark.parametrize("n", [3, 4])
def test_double_route_both_lanes_by_different_players(n):
    g = ny(n)
    hand(g, 0, green=2)
    hand(g, 1, blue=2)
    g.apply("claim Lincoln Center-Times Square/green: 2 green")
    g.apply("claim Lincoln Center-Times Square/blue: 2 blue")
    assert [g.state.route_owner[r] for r in lanes(g, "Lincoln Center-Times Square")] == [0, 1]


@pytest.mark.parametrize("n", [3, 4])
def test_identical_lanes_both_used_by_different_players(n):
    g = ny(n)
    hand(g, 0, red=2)
    hand(g, 1, red=2)
    g.apply("claim Chelsea-Empire State Building: 2 red")
    g.apply("claim Chelsea-Empire State Building: 2 red")
    assert sorted(g.state.route_owner[r] for r in lanes(g, "Chelsea-Empire State Building")) == [0, 1]


@pytest.mark.parametrize("n", [3, 4])
def test_double_route_same_player_never_both(n):
    g = ny(n)
    hand(g, 0, green=2, blue=2)
    g.apply("claim Lincoln Center-Times Square/green: 2 green")
    set_turn(g, 0)
    assert claims_of(g, "Lincoln Center-Times Square") == []
    assert_illegal(g, "claim Lincoln Center-Times Square/blue: 2 blue", "both lanes")


def test_no_stations():
    g = ny()
    hand(g, 0, red=3, taxi=2)
    assert not any(a.kind == "station" for a in g.legal_actions())
    assert_illegal(g, "station Brooklyn: 1 red", "has no stations")
    assert_illegal(g, g.table.station(0, card(g, "red"), 1, 0), "has no stations")


# ============================================================================ tickets during play
def ticket_deck(g, ids):
    g.state.ticket_deck = [ticket(g, i) for i in ids]
    g._legal = None


def test_draw_two_tickets_keep_at_least_one():
    g = ny()
    ticket_deck(g, ["NY01", "NY02", "NY03"])
    n = len(g.state.tickets[0])
    g.apply("tickets")
    assert sorted(g.state.offers[0]) == [ticket(g, "NY02"), ticket(g, "NY03")]
    assert set(legal_texts(g)) == {"keep NY02", "keep NY03", "keep NY02 NY03"}
    assert_illegal(g, g.table.keep(()), "at least 1")
    g.apply("keep NY03")
    assert len(g.state.tickets[0]) == n + 1
    assert g.state.ticket_deck == [ticket(g, "NY02"), ticket(g, "NY01")]  # returned under the deck
    assert g.current_player == 1


def test_one_ticket_left_draw_it_and_keep_it():
    g = ny()
    ticket_deck(g, ["NY07"])
    g.apply("tickets")
    assert g.state.offers[0] == [ticket(g, "NY07")]
    assert legal_texts(g) == ["keep NY07"]
    assert_illegal(g, g.table.keep(()), "at least 1")
    g.apply("keep NY07")
    assert ticket(g, "NY07") in g.state.tickets[0]
    assert g.state.ticket_deck == []


def test_no_tickets_left_action_unavailable():
    g = ny()
    ticket_deck(g, [])
    assert "tickets" not in legal_texts(g)
    assert_illegal(g, "tickets", "ticket deck is empty")


# ============================================================================ end of game
def test_end_trigger_two_taxis_everyone_one_more_turn():
    g = ny(3)
    hand(g, 0, red=1)
    g.state.wagons[0] = 3
    g._legal = None
    g.apply("claim Midtown West-Times Square: 1 red")
    assert g.state.wagons[0] == 2 and g.state.final_turns >= 0
    turns = []
    while not g.is_over:
        turns.append(g.current_player)
        g.apply("draw deck")
        if g.phase == "second_draw":
            g.apply("draw deck")
    assert turns == [1, 2, 0]


def test_three_taxis_left_no_trigger():
    g = ny(2)
    hand(g, 0, red=1)
    g.state.wagons[0] = 4
    g._legal = None
    g.apply("claim Midtown West-Times Square: 1 red")
    assert g.state.final_turns == -1


# ============================================================================ scoring
NYB = load_board(NY)


def ny_position(routes, tickets, n=2):
    owner = [-1] * len(NYB.routes)
    for p, labels in routes.items():
        for label in labels:
            free = [r for r in NYB.actions.routes_named(label) if owner[r] == -1]
            owner[free[0]] = p
    held = [[HeldTicket(NYB.cities.index(a), NYB.cities.index(b), pts) for a, b, pts in tickets.get(p, [])]
            for p in range(n)]
    return score_position(NYB, [f"P{p}" for p in range(n)], owner, [-1] * len(NYB.cities), held)


def test_attractions_one_point_each_touched():
    # Central Park, Times Square touched; Times Square twice still counts once; Lincoln Center is none
    r = ny_position({0: ["Lincoln Center-Central Park", "Central Park-Times Square/black",
                         "Lincoln Center-Times Square/green"]}, {})
    p = r["players"][0]
    assert sorted(p["attractions"]) == ["Central Park", "Times Square"]
    assert p["attraction_points"] == 2
    assert p["total"] == 2 + 2 + 2 + 2


def test_attractions_counted_per_player():
    r = ny_position({0: ["Wall Street-Brooklyn/blue"], 1: ["Chinatown-Brooklyn/red"]}, {})
    assert r["players"][0]["attraction_points"] == 2  # Wall Street, Brooklyn
    assert r["players"][1]["attraction_points"] == 2  # Chinatown, Brooklyn


def test_tickets_plus_and_minus():
    r = ny_position({0: ["Lincoln Center-Central Park"]},
                    {0: [("Central Park", "Lincoln Center", 3), ("Brooklyn", "Chelsea", 8)]})
    p = r["players"][0]
    assert p["ticket_points"] == 3 - 8
    assert p["total"] == 2 + 1 + 3 - 8


def test_no_longest_path_bonus():
    r = ny_position({0: ["Chelsea-Soho", "Greenwich Village-Soho", "Chelsea-Greenwich Village/red"],
                     1: ["Midtown West-Times Square"]}, {})
    p = r["players"][0]
    assert "longest_path_bonus" not in p and "station_points" not in p
    assert p["total"] == p["route_points"] + p["attraction_points"]
    assert p["total"] == 7 + 2 + 4 + 2  # Chelsea, Greenwich Village


def test_tie_most_completed_tickets():
    r = ny_position({0: ["Lincoln Center-Central Park"], 1: ["Midtown West-Times Square"]},
                    {0: [("Lincoln Center", "Central Park", 3)],
                     1: [("Midtown West", "Times Square", 4), ("Times Square", "Midtown West", 2),
                         ("Brooklyn", "Lincoln Center", 2)]})
    assert r["players"][0]["total"] == r["players"][1]["total"] == 6
    assert r["winners"] == ["P1"] and r["tiebreak"] == "completed tickets"


def test_tie_still_tied_shared():
    r = ny_position({0: ["Lincoln Center-Central Park"], 1: ["Midtown West-Times Square"]},
                    {0: [("Lincoln Center", "Central Park", 3)], 1: [("Midtown West", "Times Square", 4)]})
    assert r["players"][0]["total"] == r["players"][1]["total"] == 6
    assert sorted(r["winners"]) == ["P0", "P1"] and r["tiebreak"] == "shared"


def test_game_result_counts_attractions():
    g = ny()
    hand(g, 0, orange=2)
    g.apply("claim Lincoln Center-Central Park: 2 orange")
    r = g.result()
    assert r["players"][0]["attraction_points"] == 1
    assert r["players"][0]["route_points"] == 2


def test_table_score_new_york():
    r = score_table({"game": NY, "players": [
        {"name": "Ann", "routes": [["Lincoln Center", "Central Park"]], "tickets": [["Central Park", "Chelsea"]]},
        {"name": "Bob", "routes": [["Midtown West", "Times Square"]]}]})
    ann = r["players"][0]
    assert ann["ticket_points"] == -5 and ann["attraction_points"] == 1
    assert r["winners"] == ["Bob"]


def test_table_score_new_york_rejects_stations():
    with pytest.raises(ScoreInputError, match=r"players\[0\]\.stations: .*no stations"):
        score_table({"game": NY, "players": [{"name": "Ann", "stations": ["Brooklyn"]}]})


def test_table_score_new_york_double_lanes_two_players():
    with pytest.raises(ScoreInputError, match="with 2 players only one lane"):
        score_table({"game": NY, "players": [
            {"name": "Ann", "routes": [["Lincoln Center", "Times Square", "green"]]},
            {"name": "Bob", "routes": [["Lincoln Center", "Times Square", "blue"]]}]})
    r = score_table({"game": NY, "players": [
        {"name": "Ann", "routes": [["Lincoln Center", "Times Square", "green"]]},
        {"name": "Bob", "routes": [["Lincoln Center", "Times Square", "blue"]]}, {"name": "Cy"}]})
    assert r["players"][1]["route_points"] == 2


def test_table_score_new_york_too_many_taxis():
    routes = [["Chelsea", "Soho"], ["Central Park", "United Nations"], ["United Nations", "Gramercy Park"],
              ["Lower East Side", "Brooklyn"], ["Chinatown", "Brooklyn"]]  # 4 + 3 * 4 = 16 > 15
    with pytest.raises(ScoreInputError, match=r"players\[0\]\.routes: Ann's routes use 16 taxis.*15"):
        score_table({"game": NY, "players": [{"name": "Ann", "routes": routes}]})


# ============================================================================ legal actions = the rules
@pytest.mark.parametrize(("n", "seed"), [(2, 1), (3, 2), (4, 3), (2, 4)])
def test_legal_actions_match_the_rules_over_random_games(n, seed):
    import random

    rnd = random.Random(seed)
    g = tracklayer.new_game(NY, n, seed=seed)
    steps = 0
    while not g.is_over and steps < 300:
        legal = list(g.legal_actions())
        texts = [str(a) for a in legal]
        assert len(texts) == len(set(texts)), "duplicate legal actions"
        assert set(texts) == oracle_legal(g), f"step {steps}, phase {g.phase}"
        claims = [a for a in legal if a.kind == "claim"]
        g.apply(rnd.choice(claims) if claims and rnd.random() < 0.5 else rnd.choice(legal))
        steps += 1
