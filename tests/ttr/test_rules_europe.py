"""Ticket to Ride Europe: one test (or more) per rule of /work/shared/rules/ticket-to-ride-europe.md.

Every test builds a precise situation (hands, deck, market... set directly on ``g.state``), plays the
move and checks the exact outcome; prohibitions check that ``IllegalAction`` is raised with a
meaningful message and that the state is unchanged.
"""

from __future__ import annotations

from collections import Counter

import pytest

import tracklayer
from tests.ttr.helpers import (
    assert_illegal,
    card,
    cards,
    city,
    claims_of,
    hand,
    hoarded,
    lanes,
    legal_texts,
    oracle_legal,
    own,
    route,
    set_deck,
    set_discard,
    set_market,
    set_turn,
    start,
    ticket,
    total_cards,
)
from tracklayer import IllegalAction, NotationError
from tracklayer.ttr.cards import EMPTY

COLORS = ("pink", "white", "blue", "yellow", "orange", "black", "red", "green")
NEUTRAL_MARKET = ["pink", "white", "blue", "yellow", "orange"]


def all_cards(g) -> Counter:
    s = g.state
    out: Counter = Counter()
    for h in s.hands:
        for c, n in enumerate(h):
            out[c] += n
    out.update(s.deck)
    out.update(s.discard)
    out.update(c for c in s.market if c != EMPTY)
    return out


# ============================================================================ components / setup
@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_setup_cards_wagons_stations(n):
    g = tracklayer.new_game("ttr-europe", n, seed=7)
    s = g.state
    counts = all_cards(g)
    assert sum(counts.values()) == 110
    assert [counts[card(g, c)] for c in COLORS] == [12] * 8
    assert counts[g.board.loco] == 14
    assert [sum(h) for h in s.hands] == [4] * n
    assert len(s.market) == 5 and EMPTY not in s.market
    assert s.market.count(g.board.loco) < 3
    assert s.wagons == [45] * n
    assert s.stations_left == [3] * n
    assert s.route_points == [0] * n
    assert s.final_turns == -1


@pytest.mark.parametrize("n", [1, 6])
def test_setup_player_count_limits(n):
    with pytest.raises(IllegalAction, match="2-5 players"):
        tracklayer.new_game("ttr-europe", n, seed=1)


@pytest.mark.parametrize("game", ["ttr-europe", "trans-europa"])
def test_setup_refuses_a_bool_for_the_players(game):
    with pytest.raises(IllegalAction, match="a count or a list of names, not True"):
        tracklayer.new_game(game, True, seed=1)


def test_setup_market_reset_three_locomotives():
    # find a deal whose first 5 face-up cards held 3+ locomotives: they were discarded at setup
    loco = None
    for seed in range(2000):
        g = tracklayer.new_game("ttr-europe", 3, seed=seed)
        loco = g.board.loco
        if g.state.discard:
            break
    else:  # pragma: no cover
        pytest.fail("no seed with a setup reset")
    s = g.state
    assert len(s.discard) % 5 == 0
    for i in range(0, len(s.discard), 5):
        assert s.discard[i:i + 5].count(loco) >= 3
    assert s.market.count(loco) < 3
    assert total_cards(g) == 110


def test_market_reset_after_a_draw():
    g = start()
    set_market(g, ["locomotive", "locomotive", "red", "blue", "green"])
    set_deck(g, ["pink", "white", "orange", "yellow", "black", "locomotive"])
    set_discard(g, [])
    g.apply("draw red")  # the refill turns up a 3rd locomotive: all 5 are discarded and replaced
    s = g.state
    assert sorted(s.discard) == sorted(cards(g, "locomotive", "locomotive", "locomotive", "blue", "green"))
    assert s.market == cards(g, "black", "yellow", "orange", "white", "pink")
    assert s.deck == []
    assert s.hands[0][card(g, "red")] >= 1
    assert g.phase == "second_draw"


def test_market_reset_repeats_beyond_three_resets_until_fewer_than_three_locomotives():
    # rules decision: the reset repeats as long as a better market can be made; a count of resets is
    # no reason to stop (the engine used to give up after 3 resets in a row)
    g = start()
    loco = g.board.loco
    set_market(g, ["locomotive", "locomotive", "red", "blue", "green"])
    set_deck(g, ["pink", "white", "orange", "yellow", "black",  # 4th reset: no locomotive
                 "locomotive", "locomotive", "locomotive", "red", "red",  # 3rd reset: 3 locomotives
                 "locomotive", "locomotive", "locomotive", "white", "white",  # 2nd reset
                 "locomotive", "locomotive", "locomotive", "pink", "pink",  # 1st reset
                 "locomotive"])  # the refill: a 3rd locomotive face up
    set_discard(g, [])
    g.apply("draw red")
    s = g.state
    assert s.market == cards(g, "black", "yellow", "orange", "white", "pink")
    assert len(s.discard) == 20 and s.discard.count(loco) == 12
    assert s.deck == []


def test_market_reset_stops_only_when_no_better_market_exists():
    # deck, discard and market hold 2 non-locomotives (the rest are in hands, which do not count):
    # no market with fewer than 3 locomotives can exist, so it stays as it is
    g = start()
    loco = g.board.loco
    hand(g, 0)
    set_market(g, ["locomotive", "locomotive", "red", "blue", "green"])
    set_deck(g, ["locomotive"] * 10)
    set_discard(g, [])
    g.apply("draw red")
    s = g.state
    assert s.market == cards(g, "locomotive", "locomotive", "locomotive", "blue", "green")
    assert s.discard == [] and len(s.deck) == 9
    assert legal_texts(g) == ["draw blue", "draw green", "draw deck"]  # no face-up locomotive as 2nd card
    g.apply("draw blue")  # the refill is a 4th locomotive: still nothing better to be had
    assert s.market.count(loco) == 4 and g.current_player == 1
    hand(g, 1, red=1)
    g.apply("claim Budapest-Wien/red: 1 red")  # 2 non-locomotives in the piles: still no better market
    assert s.market.count(loco) == 4 and s.discard == cards(g, "red")
    hand(g, 2, red=2)
    g.apply("claim Rostov-Sochi: 2 red")  # 4 now: the market resets at once, until fewer than 3
    assert s.market.count(loco) < 3


def test_market_reset_as_soon_as_a_claim_makes_one_possible():
    # the rulebooks: "Sollten einmal mindestens 3 der 5 offen ausliegenden Karten Lokomotiven sein ..."
    # (DE), "in un qualsiasi momento" (IT): not only when a face-up card is taken. Before the claim the
    # white card is the only non-locomotive outside the hands; the 2 blue paid make 3, enough for a market
    # of fewer than 3 locomotives
    g = start(seed=3)
    loco = g.board.loco
    hoarded(g, ["locomotive", "locomotive", "white", "locomotive", "locomotive"], ["locomotive"] * 10, blue=2)
    g.apply("claim Rostov-Sochi: 2 blue")
    s = g.state
    assert s.route_owner[route(g, "Rostov-Sochi")] == 0 and g.current_player == 1
    assert s.market.count(loco) < 3
    assert sorted(c for c in s.deck + s.discard + s.market if c != EMPTY) == sorted(
        cards(g, "white", "blue", "blue") + [loco] * 14)
    assert total_cards(g) == 110


def test_market_reset_as_soon_as_a_station_is_paid():
    g = start(seed=3)
    hoarded(g, ["locomotive", "locomotive", "locomotive", "white", "white"], ["locomotive"] * 11, red=1)
    g.apply("station Berlin: 1 red")
    assert g.state.market.count(g.board.loco) < 3
    assert total_cards(g) == 110


def test_market_reset_as_soon_as_a_tunnel_is_built_at_once():
    # only 2 cards left to reveal, neither counts: the tunnel is built at once and its 3 red make a reset possible
    g = start(seed=3)
    hoarded(g, ["locomotive"] * 5, ["blue", "white"], red=3)
    g.apply("claim Erzurum-Sochi: 3 red")
    s = g.state
    assert s.route_owner[route(g, "Erzurum-Sochi")] == 0
    assert s.market.count(g.board.loco) < 3
    assert total_cards(g) == 110


def test_market_reset_as_soon_as_a_tunnel_is_paid():
    g = start(seed=3)
    loco = g.board.loco
    hoarded(g, ["locomotive"] * 5, ["locomotive"] * 6 + ["blue", "locomotive", "red"], red=3, locomotive=2)
    g.apply("claim Erzurum-Sochi: 3 red")
    s = g.state
    assert g.phase == "tunnel" and s.market == [loco] * 5  # the cards wait on the table: nothing discarded yet
    g.apply("pay: 2 locomotive")
    assert s.route_owner[route(g, "Erzurum-Sochi")] == 0
    assert s.market.count(loco) < 3
    assert total_cards(g) == 110


@pytest.mark.parametrize("seed", range(12))
def test_market_reset_worst_pile_ends(seed):
    # the hardest pile for the reset: every locomotive and only 3 other cards in deck, discard and market;
    # reshuffles make a good market likely sooner or later, and the loop ends with one
    g = start(seed=seed)
    loco = g.board.loco
    set_market(g, ["locomotive", "locomotive", "red", "blue", "green"])
    set_deck(g, ["white"] + ["locomotive"] * 11 + ["locomotive"])
    set_discard(g, [])
    g.apply("draw red")
    s = g.state
    assert s.market.count(loco) < 3
    assert len(s.deck) + len(s.discard) + sum(1 for c in s.market if c != EMPTY) == 17


def test_classic_initial_deal_one_long_three_regular_rest_to_box():
    for n in (2, 5):
        g = tracklayer.new_game("ttr-europe", n, seed=3)
        t = g.board.tickets
        s = g.state
        for p in range(n):
            offer = s.offers[p]
            assert len(offer) == 4
            assert sum(t[i].long for i in offer) == 1
            assert all("europe" in t[i].logos for i in offer)
        assert len(s.ticket_deck) == 40 - 3 * n
        assert not any(t[i].long for i in s.ticket_deck)
        assert all("europe" in t[i].logos for i in s.ticket_deck)
        dealt = {i for o in s.offers for i in o}
        assert not dealt & set(s.ticket_deck)


def test_initial_keep_at_least_two():
    g = tracklayer.new_game("ttr-europe", 3, seed=3)
    offer = sorted(g.state.offers[0])
    assert_illegal(g, g.table.keep((offer[0],)), "at least 2")
    keeps = legal_texts(g)
    assert all(len(k.split()) - 1 >= 2 for k in keeps)
    assert len(keeps) == 6 + 4 + 1  # every pair, triple and all four


def test_initial_keep_any_mix_and_returned_to_box():
    g = tracklayer.new_game("ttr-europe", 3, seed=3)
    t = g.board.tickets
    offer = g.state.offers[0]
    regular = [i for i in offer if not t[i].long]
    deck_before = list(g.state.ticket_deck)
    g.apply(g.table.keep(tuple(sorted(regular[:2]))))  # two regular tickets, long one dropped
    assert sorted(g.state.tickets[0]) == sorted(regular[:2])
    assert g.state.ticket_deck == deck_before  # returned tickets go to the box, not the deck
    assert g.current_player == 1 and g.phase == "initial"
    long_one = next(i for i in g.state.offers[1] if t[i].long)
    reg_one = next(i for i in g.state.offers[1] if not t[i].long)
    g.apply(g.table.keep(tuple(sorted((long_one, reg_one)))))  # long + regular is fine too
    assert sorted(g.state.tickets[1]) == sorted((long_one, reg_one))
    assert g.state.ticket_deck == deck_before


def test_first_player_default_seat_zero():
    g = start()
    assert g.current_player == 0 and g.state.first == 0


def test_first_player_option():
    g = tracklayer.new_game("ttr-europe", 4, seed=2, first_player=2)
    assert g.current_player == 2 and g.phase == "initial"
    order = []
    while g.phase == "initial":
        order.append(g.current_player)
        g.apply("keep all")
    assert order == [2, 3, 0, 1]
    assert g.current_player == 2 and g.phase == "main"
    g.apply("draw deck")
    g.apply("draw deck")
    assert g.current_player == 3  # then clockwise


def test_first_player_out_of_range():
    with pytest.raises(IllegalAction, match="first_player"):
        tracklayer.new_game("ttr-europe", 3, seed=1, first_player=3)


# ============================================================================ drawing train cards
def test_draw_two_cards_face_up_replaced_from_deck():
    g = start()
    hand(g, 0)
    set_market(g, ["red", "blue", "green", "yellow", "black"])
    set_deck(g, ["white", "orange", "pink"])
    g.apply("draw red")
    s = g.state
    assert s.hands[0][card(g, "red")] == 1
    assert s.market == cards(g, "pink", "blue", "green", "yellow", "black")  # same slot, deck top
    assert s.deck == cards(g, "white", "orange")
    assert g.phase == "second_draw" and g.current_player == 0
    g.apply("draw blue")
    assert s.hands[0] == hand_counts(g, red=1, blue=1)
    assert s.market == cards(g, "pink", "orange", "green", "yellow", "black")
    assert g.phase == "main" and g.current_player == 1


def hand_counts(g, **kw):
    h = [0] * (len(g.board.colors) + 1)
    for k, v in kw.items():
        h[card(g, k)] = v
    return h


def test_draw_blind_two_cards():
    g = start()
    hand(g, 0)
    set_deck(g, ["white", "orange", "pink"])
    g.apply("draw deck")
    assert g.phase == "second_draw" and g.current_player == 0
    g.apply("draw deck")
    assert g.state.hands[0] == hand_counts(g, pink=1, orange=1)
    assert g.state.deck == cards(g, "white")
    assert g.current_player == 1


def test_face_up_locomotive_first_is_the_only_card():
    g = start()
    hand(g, 0)
    set_market(g, ["locomotive", "red", "blue", "green", "yellow"])
    set_deck(g, ["white", "orange"])
    g.apply("draw locomotive")
    assert g.state.hands[0] == hand_counts(g, locomotive=1)
    assert g.state.market[0] == card(g, "orange")
    assert g.current_player == 1 and g.phase == "main"


def test_face_up_locomotive_not_allowed_as_second_card():
    g = start()
    set_market(g, ["red", "locomotive", "blue", "green", "yellow"])
    set_deck(g, ["white", "orange", "pink"])
    g.apply("draw red")
    assert "draw locomotive" not in legal_texts(g)
    assert_illegal(g, "draw locomotive", "second card")


def test_just_revealed_locomotive_not_allowed_as_second_card():
    g = start()
    set_market(g, ["red", "blue", "green", "yellow", "black"])
    set_deck(g, ["white", "locomotive"])
    g.apply("draw red")
    assert g.state.market[0] == g.board.loco
    assert "draw locomotive" not in legal_texts(g)
    assert_illegal(g, "draw locomotive", "second card")


def test_blind_locomotive_counts_as_one_card():
    g = start()
    hand(g, 0)
    set_deck(g, ["white", "orange", "locomotive"])
    g.apply("draw deck")
    assert g.state.hands[0] == hand_counts(g, locomotive=1)
    assert g.phase == "second_draw" and g.current_player == 0
    g.apply("draw deck")
    assert g.state.hands[0] == hand_counts(g, locomotive=1, orange=1)
    assert g.current_player == 1


def test_only_draws_allowed_as_second_card():
    g = start()
    hand(g, 0, red=5, locomotive=5)
    g.apply("draw deck")
    assert all(a.kind == "draw" for a in g.legal_actions())
    assert_illegal(g, "claim Wien-Budapest/red: 1 red", "second card")
    assert_illegal(g, "tickets", "second card")
    assert_illegal(g, "station Berlin: 1 red", "second card")


def test_deck_exhausted_discard_reshuffled():
    g = start()
    s = g.state
    s.discard.extend(s.deck)  # all undealt cards in the discard pile; totals unchanged
    s.deck = []
    g._legal = None
    assert "draw deck" in legal_texts(g)
    n = len(s.discard)
    in_hands = sum(s.hands[0])
    g.apply("draw deck")
    assert s.discard == []
    assert len(s.deck) == n - 1
    assert sum(s.hands[0]) == in_hands + 1
    assert total_cards(g) == 110


def test_face_up_refill_reshuffles_discard():
    g = start()
    s = g.state
    set_market(g, ["red", "blue", "green", "yellow", "black"])
    set_deck(g, [])
    set_discard(g, ["white"])
    g.apply("draw red")
    assert s.market[0] == card(g, "white")
    assert s.discard == [] and s.deck == []


def test_deck_and_discard_empty_no_blind_draw():
    g = start()
    set_deck(g, [])
    set_discard(g, [])
    assert "draw deck" not in legal_texts(g)
    assert_illegal(g, "draw deck", "deck and the discard pile are empty")


def test_nothing_to_draw_draw_action_unavailable():
    g = start()
    set_deck(g, [])
    set_discard(g, [])
    set_market(g, [None] * 5)
    assert not any(a.kind == "draw" for a in g.legal_actions())
    assert_illegal(g, "draw red", "no red card is face up")


def test_face_up_card_must_be_on_display():
    g = start()
    set_market(g, NEUTRAL_MARKET)
    assert_illegal(g, "draw red", "no red card is face up")


def test_decision_no_legal_second_card_ends_turn_with_one_card():
    g = start()
    hand(g, 0)
    set_deck(g, [])
    set_discard(g, [])
    set_market(g, ["red", "locomotive", "locomotive", None, None])
    g.apply("draw red")
    assert g.state.hands[0] == hand_counts(g, red=1)
    assert g.current_player == 1 and g.phase == "main"


def test_second_card_blind_when_only_discard_left():
    g = start()
    hand(g, 0)
    set_deck(g, [])
    set_discard(g, ["green"])
    set_market(g, ["red", "locomotive", "locomotive", None, None])
    g.apply("draw red")
    # the refill reshuffled the discard into the empty slot; no second card left but that one
    assert g.phase == "second_draw"
    assert legal_texts(g) == ["draw green"]


def test_pass_only_when_nothing_is_legal():
    g = start()
    assert "pass" not in legal_texts(g)
    assert_illegal(g, "pass", "only pass when no other move")


def test_pass_when_nothing_is_possible():
    g = start()
    set_deck(g, [])
    set_discard(g, [])
    set_market(g, [None] * 5)
    g.state.ticket_deck = []
    hand(g, 0)
    assert legal_texts(g) == ["pass"]
    g.apply("pass")
    assert g.current_player == 1 and g.phase == "main"


# ============================================================================ claiming routes
ROUTE_BY_LENGTH = [  # (route, payment, deck top three cards for tunnels)
    (1, "claim Amsterdam-Bruxelles: 1 black"),
    (2, "claim Amsterdam-Frankfurt: 2 white"),
    (3, "claim Amsterdam-Essen: 3 yellow"),
    (4, "claim Athina-Sarajevo: 4 green"),
    (6, "claim Palermo-Smyrna: 4 red + 2 locomotive"),
    (8, "claim Petrograd-Stockholm: 8 red"),
]
SCORE = {1: 1, 2: 2, 3: 4, 4: 7, 6: 15, 8: 21}


@pytest.mark.parametrize(("length", "move"), ROUTE_BY_LENGTH)
def test_route_scoring_table(length, move):
    g = start()
    hand(g, 0, red=8, black=1, white=2, yellow=3, green=4, locomotive=2)
    set_deck(g, ["blue", "blue", "blue", "blue"])  # tunnels reveal nothing that counts
    g.apply(move)
    assert g.phase == "main" and g.current_player == 1
    assert g.state.route_points[0] == SCORE[length]
    assert g.state.wagons[0] == 45 - length
    assert g.board.routes[g.moves[-1].route].length == length


def test_claim_coloured_route_exact_cards():
    g = start()
    hand(g, 0, white=4, red=1)
    set_discard(g, [])
    ri = route(g, "Paris-Frankfurt/white")
    g.apply("claim Paris-Frankfurt/white: 3 white")
    s = g.state
    assert s.route_owner[ri] == 0
    assert s.hands[0] == hand_counts(g, white=1, red=1)
    assert sorted(s.discard) == [card(g, "white")] * 3
    assert s.wagons[0] == 42 and s.route_points[0] == 4
    assert g.current_player == 1


def test_claim_wrong_colour_refused():
    g = start()
    hand(g, 0, red=3, white=1)
    assert claims_of(g, "Paris-Frankfurt/white") == []
    assert_illegal(g, g.table.claim(route(g, "Paris-Frankfurt/white"), card(g, "red"), 0), "is white")


def test_claim_wrong_number_of_cards_refused():
    g = start()
    hand(g, 0, white=4)
    assert_illegal(g, "claim Paris-Frankfurt/white: 2 white", "needs 3 cards")
    assert_illegal(g, "claim Paris-Frankfurt/white: 4 white", "needs 3 cards")


def test_claim_without_the_cards_refused():
    g = start()
    hand(g, 0, white=2, locomotive=0)
    assert_illegal(g, "claim Paris-Frankfurt/white: 3 white", "2 white")
    assert_illegal(g, "claim Paris-Frankfurt/white: 2 white + 1 locomotive", "0 locomotive")


def test_locomotives_are_wild_on_coloured_route():
    g = start()
    hand(g, 0, white=2, locomotive=1)
    assert claims_of(g, "Paris-Frankfurt/white") == ["claim Frankfurt-Paris/white: 2 white + 1 locomotive"]
    g.apply("claim Paris-Frankfurt/white: 2 white + 1 locomotive")
    assert g.state.route_owner[route(g, "Paris-Frankfurt/white")] == 0
    assert g.state.hands[0] == hand_counts(g)


def test_all_locomotives_on_coloured_route():
    g = start()
    hand(g, 0, locomotive=3)
    g.apply("claim Paris-Frankfurt/white: 3 locomotive")
    assert g.state.route_owner[route(g, "Paris-Frankfurt/white")] == 0
    assert g.state.hands[0] == hand_counts(g)


def test_gray_route_any_one_colour():
    for colour in COLORS:
        g = start()
        hand(g, 0, **{colour: 4})
        g.apply(f"claim Marseille-Paris: 4 {colour}")
        assert g.state.route_owner[route(g, "Marseille-Paris")] == 0
        assert g.state.route_points[0] == 7


def test_gray_route_mixed_colours_refused():
    g = start()
    hand(g, 0, red=2, blue=2)
    assert claims_of(g, "Marseille-Paris") == []
    assert_illegal(g, "claim Marseille-Paris: 2 red + 2 blue", "one colour")
    hand(g, 0, red=2, blue=2, locomotive=1)
    assert claims_of(g, "Marseille-Paris") == []


def test_gray_route_payments_offered():
    g = start()
    hand(g, 0, red=3, blue=1, locomotive=4)
    got = set(claims_of(g, "Marseille-Paris"))
    assert got == {
        "claim Marseille-Paris: 3 red + 1 locomotive",
        "claim Marseille-Paris: 2 red + 2 locomotive",
        "claim Marseille-Paris: 1 red + 3 locomotive",
        "claim Marseille-Paris: 1 blue + 3 locomotive",
        "claim Marseille-Paris: 4 locomotive",
    }


def test_gray_route_all_locomotives():
    g = start()
    hand(g, 0, locomotive=4)
    g.apply("claim Marseille-Paris: 4 locomotive")
    assert g.state.route_owner[route(g, "Marseille-Paris")] == 0
    assert g.state.hands[0] == hand_counts(g)


def test_need_enough_wagons():
    g = start()
    hand(g, 0, white=3, red=1)
    g.state.wagons[0] = 2
    g._legal = None
    assert claims_of(g, "Paris-Frankfurt/white") == []
    assert claims_of(g, "Wien-Budapest/red") == ["claim Budapest-Wien/red: 1 red"]
    assert_illegal(g, "claim Paris-Frankfurt/white: 3 white", "needs 3 wagons")


def test_exactly_enough_wagons_suffices():
    g = start()
    hand(g, 0, white=3)
    g.state.wagons[0] = 3
    g._legal = None
    g.apply("claim Paris-Frankfurt/white: 3 white")
    assert g.state.wagons[0] == 0


def test_claim_need_not_connect():
    g = start()
    hand(g, 0, yellow=2, white=4)
    g.apply("claim Barcelona-Madrid: 2 yellow")
    set_turn(g, 0)
    g.apply("claim Moskva-Petrograd: 4 white")  # far away from Barcelona-Madrid
    s = g.state
    assert s.route_owner[route(g, "Barcelona-Madrid")] == 0
    assert s.route_owner[route(g, "Moskva-Petrograd")] == 0
    assert s.route_points[0] == 2 + 7


def test_claim_taken_route_refused():
    g = start()
    own(g, 1, "Marseille-Paris")
    hand(g, 0, red=4)
    assert claims_of(g, "Marseille-Paris") == []
    assert_illegal(g, "claim Marseille-Paris: 4 red", "already claimed by player 2")


def test_one_route_per_turn():
    g = start()
    hand(g, 0, red=5, white=5)
    n_moves = len(g.move_log)
    g.apply("claim Wien-Budapest/red: 1 red")
    # the claim ended the turn: player 1 cannot go on claiming (e.g. Paris-Frankfurt) in the same turn
    assert g.current_player == 1 and g.phase == "main"
    assert g.state.hands[0] == hand_counts(g, red=4, white=5)
    assert g.state.route_owner[route(g, "Paris-Frankfurt/white")] == -1
    assert len(g.move_log) == n_moves + 1 and g.move_log[-1][0] == 0


@pytest.mark.parametrize("n", [4, 5])
def test_double_route_other_player_may_take_second_lane(n):
    g = start(n=n)
    hand(g, 0, black=3)
    hand(g, 1, red=3)
    g.apply("claim Berlin-Frankfurt/black: 3 black")
    g.apply("claim Berlin-Frankfurt/red: 3 red")
    s = g.state
    assert s.route_owner[route(g, "Berlin-Frankfurt/black")] == 0
    assert s.route_owner[route(g, "Berlin-Frankfurt/red")] == 1


@pytest.mark.parametrize("n", [4, 5])
def test_double_route_same_player_never_both(n):
    g = start(n=n)
    hand(g, 0, black=3, red=3)
    g.apply("claim Berlin-Frankfurt/black: 3 black")
    set_turn(g, 0)
    assert claims_of(g, "Berlin-Frankfurt") == []
    assert_illegal(g, "claim Berlin-Frankfurt/red: 3 red", "both lanes")


@pytest.mark.parametrize("n", [4, 5])
def test_identical_double_lanes_same_player_never_both(n):
    g = start(n=n)
    hand(g, 0, red=4, locomotive=4)
    g.apply("claim Dieppe-London: 1 red + 1 locomotive")
    assert sum(g.state.route_owner[r] == 0 for r in lanes(g, "Dieppe-London")) == 1
    set_turn(g, 0)
    assert claims_of(g, "Dieppe-London") == []
    assert_illegal(g, "claim Dieppe-London: 1 red + 1 locomotive", "claimed|both lanes")
    set_turn(g, 1)
    hand(g, 1, blue=1, locomotive=1)
    g.apply("claim Dieppe-London: 1 blue + 1 locomotive")  # another player takes the other lane
    assert sorted(g.state.route_owner[r] for r in lanes(g, "Dieppe-London")) == [0, 1]


@pytest.mark.parametrize("n", [2, 3])
def test_double_route_second_lane_closed_with_two_or_three_players(n):
    g = start(n=n)
    hand(g, 0, black=3)
    hand(g, 1, red=3)
    g.apply("claim Berlin-Frankfurt/black: 3 black")
    assert claims_of(g, "Berlin-Frankfurt") == []
    assert_illegal(g, "claim Berlin-Frankfurt/red: 3 red", f"closed: with {n} players")


@pytest.mark.parametrize("n", [2, 3])
def test_identical_double_lanes_closed_with_two_or_three_players(n):
    g = start(n=n)
    hand(g, 0, red=1, locomotive=1)
    hand(g, 1, blue=1, locomotive=1)
    g.apply("claim Dieppe-London: 1 red + 1 locomotive")
    assert claims_of(g, "Dieppe-London") == []
    with pytest.raises(IllegalAction):
        g.apply("claim Dieppe-London: 1 blue + 1 locomotive")
    assert sorted(g.state.route_owner[r] for r in lanes(g, "Dieppe-London")) == [-1, 0]


def test_ferry_needs_its_locomotives():
    g = start()
    hand(g, 0, red=6, locomotive=1)
    assert claims_of(g, "Palermo-Smyrna") == []
    assert_illegal(g, "claim Palermo-Smyrna: 6 red", "ferry")
    assert_illegal(g, "claim Palermo-Smyrna: 5 red + 1 locomotive", "at least 2")


def test_ferry_smyrna_palermo_four_of_a_colour_plus_two_locomotives():
    g = start()
    hand(g, 0, red=6, blue=6, locomotive=3)
    got = set(claims_of(g, "Palermo-Smyrna"))
    assert got == {f"claim Palermo-Smyrna: {6 - k} {c} + {k} locomotive" for c in ("blue", "red") for k in (2, 3)}
    g.apply("claim Palermo-Smyrna: 4 red + 2 locomotive")
    s = g.state
    assert s.route_owner[route(g, "Palermo-Smyrna")] == 0
    assert s.hands[0] == hand_counts(g, red=2, blue=6, locomotive=1)
    assert s.route_points[0] == 15


def test_ferry_all_locomotives():
    g = start()
    hand(g, 0, locomotive=6)
    g.apply("claim Palermo-Smyrna: 6 locomotive")
    assert g.state.route_owner[route(g, "Palermo-Smyrna")] == 0


def test_ferry_one_symbol():
    g = start()
    hand(g, 0, green=3)
    assert claims_of(g, "Brindisi-Palermo") == []
    assert_illegal(g, "claim Brindisi-Palermo: 3 green", "ferry")
    hand(g, 0, green=2, locomotive=1)
    g.apply("claim Brindisi-Palermo: 2 green + 1 locomotive")
    assert g.state.route_owner[route(g, "Brindisi-Palermo")] == 0


# ============================================================================ tunnels
def tunnel_game(deck_top3: list[str], **hand_counts_):
    """Player 0 to move with this hand; deck's top three cards are ``deck_top3`` (first = top)."""
    g = start()
    hand(g, 0, **hand_counts_)
    set_deck(g, ["pink"] * 10 + list(reversed(deck_top3)))
    set_discard(g, [])
    return g


def test_tunnel_reveals_three_cards():
    g = tunnel_game(["blue", "green", "white"], red=3)
    g.apply("claim Erzurum-Sochi: 3 red")
    # nothing matched: built at once, the 3 revealed cards discarded with the payment
    s = g.state
    assert len(s.deck) == 10
    assert sorted(s.discard) == sorted(cards(g, "red", "red", "red", "blue", "green", "white"))
    assert s.route_owner[route(g, "Erzurum-Sochi")] == 0
    assert s.route_points[0] == 4 and s.wagons[0] == 42
    assert g.current_player == 1 and g.phase == "main"


def test_tunnel_matching_colour_and_locomotive_each_cost_one_extra():
    g = tunnel_game(["red", "locomotive", "blue"], red=5, locomotive=1)
    g.apply("claim Erzurum-Sochi: 3 red")
    s = g.state
    assert g.phase == "tunnel" and g.current_player == 0
    assert s.tunnel.revealed == cards(g, "red", "locomotive", "blue")
    assert s.tunnel.extra == 2
    assert s.route_owner[route(g, "Erzurum-Sochi")] == -1
    assert s.hands[0] == hand_counts(g, red=2, locomotive=1)  # laid down, not yet paid
    assert set(legal_texts(g)) == {"pay: 2 red", "pay: 1 red + 1 locomotive", "decline"}


def test_tunnel_three_matches_three_extra():
    g = tunnel_game(["red", "red", "locomotive"], red=6)
    g.apply("claim Erzurum-Sochi: 3 red")
    assert g.state.tunnel.extra == 3
    assert legal_texts(g) == ["pay: 3 red", "decline"]


def test_tunnel_pay_discards_everything():
    g = tunnel_game(["red", "locomotive", "blue"], red=5, locomotive=1)
    g.apply("claim Erzurum-Sochi: 3 red")
    g.apply("pay: 1 red + 1 locomotive")
    s = g.state
    assert s.route_owner[route(g, "Erzurum-Sochi")] == 0
    assert s.hands[0] == hand_counts(g, red=1)
    assert sorted(s.discard) == sorted(cards(g, *["red"] * 5, "locomotive", "locomotive", "blue"))
    assert s.tunnel is None
    assert s.route_points[0] == 4 and s.wagons[0] == 42
    assert g.phase == "main" and g.current_player == 1


def test_tunnel_wrong_extra_payment_refused():
    g = tunnel_game(["red", "locomotive", "blue"], red=5, blue=3, locomotive=1)
    g.apply("claim Erzurum-Sochi: 3 red")
    assert_illegal(g, "pay: 2 blue", "red or locomotive")
    assert_illegal(g, "pay: 1 red", "needs 2 more")
    assert_illegal(g, "pay: 3 red", "needs 2 more")
    assert_illegal(g, "draw deck", "tunnel")
    assert_illegal(g, "claim Wien-Budapest/red: 1 red", "tunnel")


def test_tunnel_decline_returns_cards_and_ends_turn():
    g = tunnel_game(["red", "locomotive", "blue"], red=3)
    g.apply("claim Erzurum-Sochi: 3 red")
    assert legal_texts(g) == ["decline"]  # cannot pay 2 more
    g.apply("decline")
    s = g.state
    assert s.hands[0] == hand_counts(g, red=3)
    assert s.route_owner[route(g, "Erzurum-Sochi")] == -1
    assert sorted(s.discard) == sorted(cards(g, "red", "locomotive", "blue"))
    assert s.tunnel is None and s.wagons[0] == 45 and s.route_points[0] == 0
    assert g.phase == "main" and g.current_player == 1


def test_tunnel_locomotives_only_count_only_revealed_locomotives():
    g = tunnel_game(["red", "red", "locomotive"], locomotive=5, red=2)
    g.apply("claim Erzurum-Sochi: 3 locomotive")
    assert g.state.tunnel.extra == 1
    assert legal_texts(g) == ["pay: 1 locomotive", "decline"]
    assert_illegal(g, "pay: 1 red", "locomotive")
    g.apply("pay: 1 locomotive")
    assert g.state.route_owner[route(g, "Erzurum-Sochi")] == 0
    assert g.state.hands[0] == hand_counts(g, locomotive=1, red=2)


def test_tunnel_locomotives_only_no_revealed_locomotive_no_extra():
    g = tunnel_game(["red", "red", "red"], locomotive=3)
    g.apply("claim Erzurum-Sochi: 3 locomotive")
    assert g.state.route_owner[route(g, "Erzurum-Sochi")] == 0
    assert g.phase == "main" and g.current_player == 1


def test_tunnel_mixed_payment_colour_is_the_one_played():
    g = tunnel_game(["red", "locomotive", "green"], red=2, locomotive=3)
    g.apply("claim Erzurum-Sochi: 2 red + 1 locomotive")
    assert g.state.tunnel.extra == 2


def test_gray_tunnel_uses_the_colour_played():
    g = tunnel_game(["blue", "red", "red"], blue=4, red=4)
    g.apply("claim Paris-Zurich: 3 blue")
    assert g.state.tunnel.extra == 1
    assert legal_texts(g) == ["pay: 1 blue", "decline"]
    g = tunnel_game(["blue", "red", "red"], blue=4, red=4)
    g.apply("claim Paris-Zurich: 3 red")
    assert g.state.tunnel.extra == 2
    assert_illegal(g, "pay: 2 blue", "red or locomotive")


def test_tunnel_short_deck_reveals_what_exists():
    g = start()
    hand(g, 0, red=3)
    set_deck(g, ["red"])
    set_discard(g, ["blue"])
    g.apply("claim Erzurum-Sochi: 3 red")
    s = g.state
    assert sorted(s.tunnel.revealed) == sorted(cards(g, "red", "blue"))
    assert s.tunnel.extra == 1
    assert s.deck == [] and s.discard == []


def test_tunnel_no_cards_left_no_risk():
    g = start()
    hand(g, 0, red=3)
    set_deck(g, [])
    set_discard(g, [])
    g.apply("claim Erzurum-Sochi: 3 red")
    s = g.state
    assert s.route_owner[route(g, "Erzurum-Sochi")] == 0
    assert s.discard == cards(g, "red", "red", "red")
    assert g.phase == "main" and g.current_player == 1


def test_tunnel_keeps_card_totals():
    g = start()
    g.apply("draw deck")
    g.apply("draw deck")
    set_turn(g, 0)
    s = g.state
    s.hands[0][card(g, "red")] += 3
    s.deck.remove(card(g, "red"))
    s.deck.remove(card(g, "red"))
    s.deck.remove(card(g, "red"))
    g._legal = None
    assert total_cards(g) == 110
    g.apply("claim Erzurum-Sochi: 3 red")
    assert total_cards(g) == 110
    if g.phase == "tunnel":
        g.apply("decline")
    assert total_cards(g) == 110


# ============================================================================ destination tickets
def ticket_deck(g, ids):
    """Set the ticket deck (last id on top)."""
    g.state.ticket_deck = [ticket(g, i) for i in ids]
    g._legal = None


def test_draw_three_tickets_keep_one_returned_under_deck():
    g = start()
    ticket_deck(g, ["EU01", "EU02", "EU03", "EU04", "EU05"])
    held = list(g.state.tickets[0])
    g.apply("tickets")
    s = g.state
    assert g.phase == "keep" and g.current_player == 0
    assert sorted(s.offers[0]) == sorted(ticket(g, i) for i in ("EU03", "EU04", "EU05"))
    assert s.ticket_deck == [ticket(g, "EU01"), ticket(g, "EU02")]
    assert len(legal_texts(g)) == 7  # every non-empty subset
    g.apply("keep EU04")
    assert s.tickets[0] == [*held, ticket(g, "EU04")]
    assert sorted(s.ticket_deck[:2]) == sorted([ticket(g, "EU03"), ticket(g, "EU05")])  # at the bottom
    assert s.ticket_deck[2:] == [ticket(g, "EU01"), ticket(g, "EU02")]
    assert s.offers[0] == []
    assert g.phase == "main" and g.current_player == 1


def test_draw_tickets_must_keep_at_least_one():
    g = start()
    ticket_deck(g, ["EU01", "EU02", "EU03", "EU04", "EU05"])
    g.apply("tickets")
    assert_illegal(g, g.table.keep(()), "at least 1")


def test_keep_only_offered_tickets():
    g = start()
    ticket_deck(g, ["EU01", "EU02", "EU03", "EU04", "EU05"])
    g.apply("tickets")
    assert_illegal(g, "keep EU01", "keep only tickets you were offered")


def test_draw_tickets_keep_all_three():
    g = start()
    ticket_deck(g, ["EU01", "EU02", "EU03", "EU04", "EU05"])
    n = len(g.state.tickets[0])
    g.apply("tickets")
    g.apply("keep all")
    assert len(g.state.tickets[0]) == n + 3
    assert g.state.ticket_deck == [ticket(g, "EU01"), ticket(g, "EU02")]


def test_fewer_tickets_left_draw_those():
    g = start()
    ticket_deck(g, ["EU01", "EU02"])
    g.apply("tickets")
    assert sorted(g.state.offers[0]) == sorted([ticket(g, "EU01"), ticket(g, "EU02")])
    assert g.state.ticket_deck == []
    assert set(legal_texts(g)) == {"keep EU01", "keep EU02", "keep EU01 EU02"}
    g.apply("keep EU02")
    assert g.state.ticket_deck == [ticket(g, "EU01")]


def test_no_tickets_left_action_unavailable():
    g = start()
    g.state.ticket_deck = []
    g._legal = None
    assert "tickets" not in legal_texts(g)
    assert_illegal(g, "tickets", "ticket deck is empty")


def test_no_ticket_limit():
    g = start()
    for _ in range(4):
        set_turn(g, 0)
        g.apply("tickets")
        g.apply("keep all")
    assert len(g.state.tickets[0]) == 4 + 12


def test_tickets_stay_secret():
    g = start()
    v = g.view(1)
    assert v["players"][0]["tickets"] == len(g.state.tickets[0])
    ids = {g.board.tickets[t].id for t in g.state.tickets[0]}
    assert not ids & {t["id"] for t in v["tickets"]}
    assert not any("keep EU" in m["move"] for m in v["log"] if m["player"] != 1)


# ============================================================================ stations
def test_station_costs_one_two_three():
    g = start()
    hand(g, 0, red=6, blue=1, locomotive=2)
    g.apply("station Berlin: 1 blue")
    s = g.state
    assert s.station_owner[city(g, "Berlin")] == 0 and s.stations_left[0] == 2
    assert g.current_player == 1  # a station ends the turn
    set_turn(g, 0)
    assert_illegal(g, "station Paris: 1 red", "costs 2")
    assert_illegal(g, "station Paris: 3 red", "costs 2")
    g.apply("station Paris: 1 red + 1 locomotive")
    assert s.stations_left[0] == 1
    set_turn(g, 0)
    assert_illegal(g, "station Wien: 2 red", "costs 3")
    g.apply("station Wien: 3 red")
    assert s.stations_left[0] == 0
    assert s.hands[0] == hand_counts(g, red=2, locomotive=1)
    assert [s.station_owner[city(g, c)] for c in ("Berlin", "Paris", "Wien")] == [0, 0, 0]


def test_station_payment_one_colour_locomotives_wild():
    g = start()
    g.state.stations_left[0] = 2  # second station costs 2
    hand(g, 0, red=1, blue=1)
    assert not any(a.kind == "station" for a in g.legal_actions())
    assert_illegal(g, "station Berlin: 1 red + 1 blue", "one colour")
    hand(g, 0, locomotive=2)
    g.apply("station Berlin: 2 locomotive")
    assert g.state.station_owner[city(g, "Berlin")] == 0


def test_station_offered_on_every_free_city():
    g = start()
    hand(g, 0, red=1)
    g.state.station_owner[city(g, "Berlin")] = 1
    g._legal = None
    st = [a for a in g.legal_actions() if a.kind == "station"]
    assert len(st) == 46
    assert {a.city for a in st} == set(range(47)) - {city(g, "Berlin")}


def test_one_station_per_city_overall():
    g = start()
    hand(g, 0, red=1)
    hand(g, 1, red=1)
    g.apply("station Berlin: 1 red")
    assert_illegal(g, "station Berlin: 1 red", "already has a station")
    set_turn(g, 0)
    g.state.hands[0][card(g, "red")] = 2
    assert_illegal(g, "station Berlin: 2 red", "already has a station")


def test_at_most_three_stations():
    g = start()
    hand(g, 0, red=10)
    for c in ("Berlin", "Paris", "Wien"):
        set_turn(g, 0)
        g.apply(f"station {c}")
    set_turn(g, 0)
    assert not any(a.kind == "station" for a in g.legal_actions())
    assert_illegal(g, g.table.station(city(g, "Roma"), card(g, "red"), 3, 0), "all 3")


def test_station_where_no_routes_of_the_player():
    g = start()
    own(g, 1, "Marseille-Paris")
    hand(g, 0, red=1)
    g.apply("station Lisboa: 1 red")  # nobody's routes touch it
    set_turn(g, 0)
    hand(g, 0, red=2)
    g.apply("station Marseille: 2 red")  # only an opponent's route touches it
    assert g.state.stations_left[0] == 1


# ============================================================================ end of the game
def test_end_trigger_final_round_everyone_one_more_turn():
    g = start(n=3)
    hand(g, 0, red=1)
    g.state.wagons[0] = 3
    g._legal = None
    g.apply("claim Wien-Budapest/red: 1 red")  # ends the turn with 2 wagons
    assert g.state.final_turns >= 0
    turns = []
    while not g.is_over:
        turns.append(g.current_player)
        g.apply("draw deck")
        if g.phase == "second_draw":
            g.apply("draw deck")
    assert turns == [1, 2, 0]
    assert g.phase == "over" and g.current_player is None
    assert_illegal(g, "draw deck", "over")


def test_end_trigger_by_a_middle_seat():
    g = start(n=4)
    set_turn(g, 2)
    hand(g, 2, red=1)
    g.state.wagons[2] = 1
    g._legal = None
    g.apply("claim Wien-Budapest/red: 1 red")  # 0 wagons left
    turns = []
    while not g.is_over:
        turns.append(g.current_player)
        g.apply("tickets")
        g.apply(g.legal_actions()[0])
    assert turns == [3, 0, 1, 2]


def test_three_wagons_left_does_not_trigger():
    g = start(n=3)
    hand(g, 0, red=1)
    g.state.wagons[0] = 4
    g._legal = None
    g.apply("claim Wien-Budapest/red: 1 red")
    assert g.state.wagons[0] == 3
    assert g.state.final_turns == -1
    assert g.view(0)["final_round"] is False


def test_final_round_not_retriggered_by_others():
    g = start(n=2)
    hand(g, 0, red=1)
    hand(g, 1, white=1)
    g.state.wagons[0] = 3
    g.state.wagons[1] = 3
    g._legal = None
    g.apply("claim Wien-Budapest/red: 1 red")
    hand(g, 1, pink=1)
    g.apply("claim Dieppe-Paris: 1 pink")  # player 2 also drops to 2 wagons during the final round
    assert not g.is_over and g.current_player == 0
    g.apply("tickets")
    g.apply(g.legal_actions()[0])
    assert g.is_over


def test_end_trigger_with_zero_one_or_two_wagons():
    """A turn ending with exactly 0 wagons also triggers (the whole range 0..2)."""
    for left in (0, 1, 2):
        g = start(n=2)
        hand(g, 0, red=1)
        g.state.wagons[0] = left + 1
        g._legal = None
        g.apply("claim Wien-Budapest/red: 1 red")
        assert g.state.final_turns == 2
        g.apply("tickets")
        g.apply(g.legal_actions()[0])
        assert not g.is_over and g.current_player == 0
        g.apply("tickets")
        g.apply(g.legal_actions()[0])
        assert g.is_over


def test_game_over_result_is_final():
    g = start(n=2)
    hand(g, 0, red=1)
    g.state.wagons[0] = 1
    g._legal = None
    g.apply("claim Wien-Budapest/red: 1 red")
    for _ in range(2):
        g.apply("tickets")
        g.apply(g.legal_actions()[0])
    r = g.result()
    assert r["final"] is True
    assert [p["route_points"] for p in r["players"]] == g.state.route_points


def test_notation_errors_are_illegal_actions():
    g = start()
    with pytest.raises(NotationError, match="unknown card colour"):
        g.apply("claim Marseille-Paris: 4 purple")
    with pytest.raises(IllegalAction, match="no route joins"):
        g.apply("claim Paris-Wien: 4 red")


# ============================================================================ more card-flow corners
def test_empty_market_slots_refilled_at_end_of_turn_from_discard():
    g = start()
    hand(g, 0, red=1)
    set_deck(g, [])
    set_discard(g, [])
    set_market(g, [None] * 5)
    g.apply("claim Wien-Budapest/red: 1 red")  # the paid card is the only card left anywhere
    assert g.state.market.count(card(g, "red")) == 1
    assert g.state.discard == [] and g.state.deck == []


def test_tunnel_reveal_reshuffles_discard_mid_reveal():
    g = start()
    hand(g, 0, red=3)
    set_deck(g, ["blue"])
    set_discard(g, ["green", "green", "green", "green"])
    g.apply("claim Erzurum-Sochi: 3 red")
    s = g.state
    assert s.route_owner[route(g, "Erzurum-Sochi")] == 0  # blue, green, green: nothing to add
    assert sorted(s.discard) == sorted(cards(g, "red", "red", "red", "blue", "green", "green"))
    assert s.deck == cards(g, "green", "green")


def test_tunnel_played_cards_are_not_reshuffled_into_the_reveal():
    g = start()
    hand(g, 0, red=3)
    set_deck(g, [])
    set_discard(g, ["blue", "blue"])
    g.apply("claim Erzurum-Sochi: 3 red")
    assert g.state.route_owner[route(g, "Erzurum-Sochi")] == 0  # only the two blue cards were revealed
    assert sorted(g.state.discard) == sorted(cards(g, "red", "red", "red", "blue", "blue"))


def test_station_payment_is_discarded_and_turn_ends():
    g = start()
    hand(g, 0, red=1)
    set_discard(g, [])
    g.apply("station Berlin: 1 red")
    assert g.state.discard == [card(g, "red")]
    assert g.state.hands[0] == hand_counts(g)
    assert g.current_player == 1 and g.phase == "main"


def test_decline_is_allowed_even_when_able_to_pay():
    g = tunnel_game(["red", "blue", "blue"], red=5)
    g.apply("claim Erzurum-Sochi: 3 red")
    assert "pay: 1 red" in legal_texts(g)
    g.apply("decline")
    assert g.state.hands[0] == hand_counts(g, red=5)
    assert g.current_player == 1


def test_unknown_tiebreak_option_refused():
    with pytest.raises(IllegalAction, match="tiebreak"):
        tracklayer.new_game("ttr-europe", 2, seed=1, tiebreak="german")


@pytest.mark.parametrize(("tiebreak", "winner"), [("classic", "Player 2"), ("anniversary-de", "Player 1")])
def test_game_result_uses_stations_and_tiebreak_option(tiebreak, winner):
    extra = [("Paris", "Munchen", 1, "europe"), ("Frankfurt", "Munchen", 9, "europe")]
    g = start(n=2, tiebreak=tiebreak, extra_tickets=extra)
    s = g.state
    hand(g, 0, white=3)
    g.apply("claim Paris-Frankfurt/white: 3 white")
    hand(g, 1, pink=2)
    g.apply("claim Frankfurt-Munchen: 2 pink")
    hand(g, 0, red=1)
    g.apply("station Frankfurt: 1 red")
    s.tickets = [[ticket(g, "X01")], [ticket(g, "X02")]]
    r = g.result()
    p0, p1 = r["players"]
    # Player 1 borrows Frankfurt-Munchen through the station: 4 + 1 + 8 (2 unused) + 10 (express) = 23
    assert p0["stations"] == [{"city": "Frankfurt", "borrows": "Frankfurt-Munchen"}]
    assert p0["ticket_points"] == 1 and p0["station_points"] == 8 and p0["longest_path_bonus"] == 10
    assert p0["total"] == 23
    # Player 2: 2 + 9 + 12 = 23; one completed ticket each
    assert p1["total"] == 23
    assert p0["completed_tickets"] == p1["completed_tickets"] == 1
    assert r["winners"] == [winner]


# ============================================================================ legal actions = the rules
@pytest.mark.parametrize(("variant", "n", "seed"), [
    ("classic", 2, 1), ("classic", 3, 2), ("classic", 4, 3), ("classic", 5, 4),
    ("1912", 3, 5), ("mega", 4, 6), ("big-cities", 2, 7), ("big-cities", 5, 8),
])
def test_legal_actions_match_the_rules_over_random_games(variant, n, seed):
    import random

    rnd = random.Random(seed)
    g = tracklayer.new_game("ttr-europe", n, seed=seed, variant=variant)
    steps = 0
    while not g.is_over and steps < 400:
        legal = list(g.legal_actions())
        texts = [str(a) for a in legal]
        assert len(texts) == len(set(texts)), "duplicate legal actions"
        assert set(texts) == oracle_legal(g), f"step {steps}, phase {g.phase}"
        # prefer claims and stations so that the board fills up
        big = [a for a in legal if a.kind in ("claim", "station", "pay")]
        g.apply(rnd.choice(big) if big and rnd.random() < 0.5 else rnd.choice(legal))
        steps += 1


# ============================================================================ snapshots (test infrastructure)
def test_state_to_dict_is_a_snapshot():
    import copy

    g = start()
    d = g.state.to_dict()
    saved = g.to_json()
    before = copy.deepcopy(d)
    g.apply("draw deck")
    assert d == before
    assert saved["state"] == before
