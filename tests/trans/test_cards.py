"""Every special card, alone and in the combinations the engine allows; and the special-card options.

Board facts used (Trans America): Phoenix 7,9 has three double lines over water (to 8,8, 9,9, 5,9);
Denver 11,5 has double lines over mountains (to 9,5 and 10,6). Trans Europa: see test_rules.py.
"""

from __future__ import annotations

import json
import random

import pytest

from tests.trans.helpers import (
    assert_illegal,
    build,
    can,
    legal_texts,
    line,
    new,
    place_markers,
    play,
    set_hands,
)
from tracklayer.core.errors import IllegalAction
from tracklayer.trans.cards import card_plan, effects_of, load_cards
from tracklayer.trans.scoring import PrestigeTable, missing_rails


def names(g, cities):
    return sorted(g.board.city_names(cities))


def colours(g, hand):
    return sorted(g.board.colors[g.board.cities[c].color] for c in hand)


def finish_choices(g):
    while g.phase == "choose":
        g.apply(g.legal_actions()[0])


def europa_round(cards, first_player=0):
    """Trans Europa, 3 players: Ann (marker Paris, 9,6-10,5 built) is one rail from Amsterdam;
    Bob (13,6) misses 2 rails to Zürich, Cy (11,10) 1 rail to Marseille."""
    g = new("trans-europa", 3, seed=3, special_cards=cards, first_player=first_player)
    finish_choices(g)
    set_hands(g, [["Amsterdam"], ["Zürich"], ["Marseille"]])
    place_markers(g, ["9,6", "13,6", "11,10"])
    build(g, 0, "9,6-10,5")
    return g


def test_the_card_data_has_19_cards_with_known_effects():
    cards = load_cards()
    assert sorted(cards) == list(range(1, 20))
    assert {c.effect for c in cards.values()} == {
        "prestige_table", "extra_rails", "single_terrain", "return_color", "return_choice", "rhythm", "reveal",
        "draft", "pass_cards", "pass_hand", "criss_cross"}
    assert [cards[i].colors for i in (10, 11, 12)] == [("pink", "orange"), ("pink", "brown"), ("brown", "orange")]
    assert [cards[i].colors for i in (13, 14, 15)] == [("pink",), ("brown",), ("orange",)]


# --------------------------------------------------------------------------------------------- 1, 2: tables
def test_card_1_easier_prestige_table():
    table = effects_of(new().board, [1]).table
    assert [table.points(m) for m in range(9)] == [4, 3, 3, 2, 2, 1, 1, 0, 0]
    g = europa_round(1)
    g.apply("rail 10,5-11,4")
    assert g.state.history[0]["missing"] == [0, 2, 1]
    assert g.state.history[0]["prestige"] == [4, 3, 3]


def test_card_2_harder_prestige_table():
    table = effects_of(new().board, [2]).table
    assert [table.points(m) for m in range(6)] == [4, 2, 1, 0, 0, 0]
    g = europa_round(2)
    g.apply("rail 10,5-11,4")
    assert g.state.history[0]["prestige"] == [4, 1, 2]


def test_without_cards_the_board_table_applies():
    table = new().board.prestige
    assert [table.points(m) for m in range(8)] == [4, 3, 2, 1, 1, 0, 0, 0]
    assert table == PrestigeTable(4, ((1, 3), (2, 2), (3, 1), (5, 0)))


def test_when_cards_1_and_2_meet_the_one_laid_last_covers_the_other():
    b = new().board
    assert effects_of(b, [1, 2]).table == effects_of(b, [2]).table
    assert effects_of(b, [2, 1]).table == effects_of(b, [1]).table


# --------------------------------------------------------------------------------------------- 3: three rails
def test_card_3_allows_three_rails_for_example_a_double_and_a_single():
    g = new("trans-europa", 3, seed=3, special_cards=3)
    set_hands(g, [["Rome"], ["Oslo"], ["Sofia"]])
    place_markers(g, ["12,5", "10,1", "21,10"])
    assert g.view(0)["turn"]["budget"] == 3
    g.apply("rail 12,5-13,4")  # double: 1 rail left
    assert g.current_player == 0 and g.state.used == 2
    assert not can(g, "rail 12,5-14,5")
    g.apply("rail 11,4-12,5")
    assert g.current_player == 1
    g.apply("rail 10,1-11,2 11,2-12,1 12,1-13,2")  # three singles
    assert g.current_player == 2


def test_card_3_completion_on_a_later_rail_still_ends_the_round_at_once():
    g = new("trans-europa", 2, seed=3, special_cards=3)
    set_hands(g, [["Zürich"], ["Amsterdam"]])
    place_markers(g, ["11,4", "10,5"])
    g.apply("rail 12,5-11,4")
    g.apply("rail 11,4-10,5")  # second rail joins Bob: over at once although one rail is left
    assert g.state.round == 2 and g.state.history[0]["connected"] == [False, True]


# --------------------------------------------------------------------------------------------- 4, 5: terrain
def america_round(cards, hands=(("Santa Fe",), ("Boston",), ("Seattle",)), markers=("7,9", "32,2", "9,1")):
    g = new("trans-america", 3, seed=3, special_cards=cards)
    finish_choices(g)
    set_hands(g, [list(h) for h in hands])
    place_markers(g, list(markers))
    return g


def test_trans_america_double_lines_have_the_terrain_the_cards_need():
    g = new("trans-america")
    b = g.board
    for text in ("7,9-8,8", "7,9-9,9", "5,9-7,9"):
        assert (b.edge_cost[line(g, text)], b.edge_terrain[line(g, text)]) == (2, "water")
    for text in ("9,5-11,5", "11,5-10,6"):
        assert (b.edge_cost[line(g, text)], b.edge_terrain[line(g, text)]) == (2, "mountain")


def test_card_4_water_doubles_count_as_single_for_building_supply_and_scoring():
    g = america_round(4)
    assert can(g, "rail 7,9-8,8")
    g.apply("rail 7,9-8,8")
    assert g.state.used == 1 and g.state.supply == 84 and g.current_player == 0
    g.apply("rail 7,9-9,9")  # a second water "double" in the same turn
    assert g.current_player == 1 and g.state.supply == 83
    fx = g.rules.effects(g.state)
    assert fx.line_cost[line(g, "9,5-11,5")] == 2  # mountains stay double
    assert fx.line_cost[line(g, "5,9-7,9")] == 1


def test_card_4_counts_water_doubles_as_one_missing_rail():
    g = america_round(4, hands=(("Phoenix",), ("Boston",), ("Seattle",)), markers=("8,8", "32,2", "9,1"))
    plain = america_round(None, hands=(("Phoenix",), ("Boston",), ("Seattle",)), markers=("8,8", "32,2", "9,1"))
    v, w = g.view(0), plain.view(0)
    assert (v["missing_rails"], w["missing_rails"]) == (1, 2)


def test_card_5_mountain_doubles_count_as_single():
    g = america_round(5, hands=(("Denver",), ("Boston",), ("Seattle",)), markers=("9,5", "32,2", "9,1"))
    assert g.view(0)["missing_rails"] == 1
    g.apply("rail 9,5-11,5")
    assert g.state.round == 2  # Ann joined Denver with a 1-rail line on her first rail
    fx = effects_of(g.board, [5])
    assert fx.line_cost[line(g, "7,9-8,8")] == 2  # water stays double
    assert fx.line_cost[line(g, "9,5-11,5")] == 1


def test_cards_4_and_5_are_refused_on_a_board_whose_data_marks_no_terrain():
    from tracklayer.maps.loader import read_map
    from tracklayer.trans.board import board_from_data

    data, _ = read_map("trans-europa")
    data = json.loads(json.dumps(data))
    for e in data["edges"]:
        if e["cost"] == 2:
            e["terrain"] = None
    bare = board_from_data(data, "bare.json", "bare")
    with pytest.raises(IllegalAction, match=r"needs double lines marked 'water'.*Trans Europa board data marks none"):
        card_plan(4, bare)
    with pytest.raises(IllegalAction, match="'mountain'"):
        card_plan([3, 5], bare)
    assert 4 not in card_plan("each-round", bare).deck and len(card_plan("each-round", bare).deck) == 17


@pytest.mark.parametrize("game", ["trans-europa", "trans-america"])
def test_the_each_round_deck_holds_all_19_cards_on_both_boards(game):
    g = new(game, 3, seed=4, special_cards="each-round")
    assert card_plan("each-round", g.board).deck == tuple(range(1, 20))
    assert len(g.state.special_deck) + len(g.state.cards) == 19


def europa_terrain_round(cards, hands, markers):
    g = new("trans-europa", 3, seed=3, special_cards=cards)
    finish_choices(g)
    set_hands(g, [list(h) for h in hands])
    place_markers(g, list(markers))
    return g


def test_trans_europa_double_lines_used_here_have_the_derived_terrain():
    b = new("trans-europa").board
    for text in ("13,12-15,12", "15,12-14,13", "6,11-8,11"):  # Tyrrhenian Sea by Rome, Balearic Sea by Barcelona
        assert (b.edge_cost[line(new(), text)], b.edge_terrain[line(new(), text)]) == (2, "water")
    for text in ("17,8-18,7", "16,9-17,8", "12,9-13,8"):  # Alps by Vienna and Zürich
        assert (b.edge_cost[line(new(), text)], b.edge_terrain[line(new(), text)]) == (2, "mountain")


def test_card_4_on_trans_europa_water_doubles_count_single_for_the_turn_and_the_missing_rails():
    hands, markers = (("Rome",), ("Oslo",), ("Sofia",)), ("13,12", "10,1", "21,10")
    g = europa_terrain_round(4, hands, markers)
    plain = europa_terrain_round(None, hands, markers)
    assert (g.view(0)["missing_rails"], plain.view(0)["missing_rails"]) == (1, 2)  # 13,12-15,12 is water
    g.apply("rail 13,12-15,12")  # now one rail of the turn: Rome joined on the first rail, the round is over
    assert g.state.round == 2 and g.state.history[0]["connected"][0]
    g = europa_terrain_round(4, (("Vienna",), ("Oslo",), ("Sofia",)), ("18,7", "10,1", "21,10"))
    assert g.view(0)["missing_rails"] == 2  # 17,8-18,7 is a mountain: still double under card 4
    g.apply("rail 17,8-18,7")
    assert g.state.round == 2  # a double uses the whole turn ... and joined Vienna
    fx = effects_of(g.board, [4])
    assert fx.line_cost[line(g, "6,11-8,11")] == 1 and fx.line_cost[line(g, "12,9-13,8")] == 2


def test_card_5_on_trans_europa_mountain_doubles_count_single():
    g = europa_terrain_round(5, (("Vienna",), ("Oslo",), ("Sofia",)), ("16,9", "10,1", "21,10"))
    assert g.view(0)["missing_rails"] == 1  # 16,9-17,8 over the Alps counts 1
    g.apply("rail 16,9-17,8")
    assert g.state.round == 2 and g.state.history[0]["missing"][0] == 0
    g = europa_terrain_round(5, (("Zürich",), ("Oslo",), ("Sofia",)), ("12,9", "10,1", "21,10"))
    g.apply("rail 10,9-12,9")
    assert g.current_player == 0 and g.state.used == 1  # a single: one rail of the budget left ...
    assert can(g, "rail 12,9-13,8")  # ... enough for a mountain "double" under card 5
    fx = effects_of(g.board, [5])
    assert fx.line_cost[line(g, "13,12-15,12")] == 2 and fx.line_cost[line(g, "17,8-18,7")] == 1


# --------------------------------------------------------------------------------------------- 6, 7: returns
@pytest.mark.parametrize(("card", "colour"), [(6, "white"), (7, "turquoise")])
def test_cards_6_and_7_everyone_returns_one_colour(card, colour):
    for n in (2, 4, 6):
        g = new("trans-europa", n, seed=n, special_cards=card)
        assert g.phase == "start"
        col = g.board.colors.index(colour)
        for hand in g.state.hands:
            assert len(hand) == 4 and colour not in colours(g, hand)
        assert len(g.state.decks[col]) == len(g.board.cities_for(n)[col])  # all back in the pile
        assert {m["returned"] for m in g.view(0)["card_moves"]} <= set(g.board.city_names(g.state.decks[col]))


def test_with_four_cities_joining_those_four_wins_the_round():
    g = new("trans-europa", 2, seed=1, special_cards=6)
    hand = g.state.hands[0]
    place_markers(g, [g.board.point_text(g.board.cities[hand[0]].point), "5,0"])
    b = g.board
    _, lines = missing_rails(b.n_points, b.adjacency, b.edge_cost, [False] * b.n_edges, g.state.markers[0],
                             g.rules.city_points(g.state, 0))
    # build all but one leaf line of Ann's tree, then place the last one
    net_points = {g.state.markers[0]}
    order = []
    pending = list(lines)
    while pending:
        for e in pending:
            if b.edge_a[e] in net_points or b.edge_b[e] in net_points:
                order.append(e)
                net_points |= {b.edge_a[e], b.edge_b[e]}
                pending.remove(e)
                break
    build(g, 0, *[b.edge_text(e) for e in order[:-1]])
    g.apply(g.table.rail[order[-1]])
    assert g.state.history[0]["connected"][0] is True


# --------------------------------------------------------------------------------------------- 8: return by choice
def test_card_8_everyone_returns_a_city_of_their_choice_blindly():
    g = new("trans-europa", 3, seed=4, special_cards=8, first_player=1)
    hands = [h[:] for h in g.state.hands]
    assert g.phase == "choose" and g.current_player == 1  # from the round's start player
    assert legal_texts(g) == [f"return {c}" for c in g.board.city_names(sorted(hands[1]))]
    assert_illegal(g, f"pass {g.board.cities[hands[1][0]].name}", "now everyone returns a city")
    assert_illegal(g, f"return {g.board.cities[hands[0][0]].name}", "you do not hold")
    chosen = hands[1][2]
    g.apply(g.table.give_back[chosen])
    # nothing changed that others could see: the hand is intact until everyone has chosen
    assert g.state.hands == hands and g.current_player == 2
    name = g.board.cities[chosen].name
    for seat in (0, 2, None):
        assert name not in json.dumps(g.view(seat), ensure_ascii=False)
    assert g.view(1)["choice"]["my_choice"] == name
    assert g.view(2)["log"][-1]["move"] == "return a city"
    g.apply(g.table.give_back[hands[2][0]])
    g.apply(g.table.give_back[hands[0][4]])
    assert g.phase == "start"
    assert [len(h) for h in g.state.hands] == [4, 4, 4]
    assert chosen not in g.state.hands[1]
    assert chosen in g.state.decks[g.board.cities[chosen].color]
    assert g.view(0)["log"][0]["move"] == "return a city"


def test_cards_6_7_and_8_together_leave_two_cities():
    g = new("trans-europa", 3, seed=4, special_cards=[6, 7, 8])
    finish_choices(g)
    assert [len(h) for h in g.state.hands] == [2, 2, 2]


# --------------------------------------------------------------------------------------------- 9: rhythm
def test_card_9_rails_follow_the_rhythm_3_2_1_by_round_of_turns():
    g = new("trans-europa", 2, seed=3, special_cards=9)
    set_hands(g, [["Rome"], ["Oslo"]])
    place_markers(g, ["12,5", "10,1"])
    budgets = []
    while len(budgets) < 8:
        budgets.append(g.view(g.current_player, hints=False)["turn"]["budget"])
        if budgets[-1] == 1:
            assert all(g.board.edge_cost[a.line] == 1 for a in g.legal_actions() if a.kind == "rail")
        g.apply(next(a for a in g.legal_actions() if a.kind == "rail" and g.board.edge_cost[a.line] == 1))
        if g.state.used:
            g.apply("end")
    assert budgets == [3, 3, 2, 2, 1, 1, 3, 3]


def test_card_3_adds_a_rail_to_the_rhythm_of_card_9():
    fx = effects_of(new().board, [3, 9])
    assert [fx.budget(2, r) for r in range(4)] == [4, 3, 2, 4]


# --------------------------------------------------------------------------------------------- 10-12, 19: open cities
@pytest.mark.parametrize(("card", "shown"), [(10, {"pink", "orange"}), (11, {"pink", "brown"}),
                                             (12, {"brown", "orange"}), (19, {"brown", "white", "pink", "orange",
                                                                               "turquoise"})])
def test_cards_10_to_12_and_19_put_cities_face_up(card, shown):
    g = new("trans-europa", 3, seed=5, special_cards=card)
    b = g.board
    view = g.view(1)
    text = json.dumps(view, ensure_ascii=False)
    for q in (0, 2):
        hand = g.state.hands[q]
        open_ = [b.cities[c].name for c in hand if b.colors[b.cities[c].color] in shown]
        hidden = [b.cities[c].name for c in hand if b.colors[b.cities[c].color] not in shown]
        assert view["players"][q]["open_cities"] == sorted(open_)
        for name in hidden:
            assert name not in text


# --------------------------------------------------------------------------------------------- 13-15: drafts
@pytest.mark.parametrize(("card", "colour"), [(13, "pink"), (14, "brown"), (15, "orange")])
def test_cards_13_to_15_draft_one_colour_around_the_table(card, colour):
    g = new("trans-europa", 3, seed=6, special_cards=card, first_player=1)
    b = g.board
    col = b.colors.index(colour)
    pile_before = len(b.cities_for(3)[col]) - 3
    s = g.state
    assert g.phase == "choose" and g.current_player == 1
    mine = [c for c in s.hands[1] if b.cities[c].color == col]
    assert len(mine) == 2 and len(s.decks[col]) == pile_before - 1  # the start player took an extra card
    assert {m.get("took") for m in g.view(1)["card_moves"]} == {b.cities[s.moves[0][3]].name}
    other = next(c for c in s.hands[1] if b.cities[c].color != col)
    assert_illegal(g, g.table.give[other], f"this draft is of {colour} cities")
    assert_illegal(g, g.table.give_back[mine[0]], "you pass a")
    g.apply(g.table.give[mine[0]])  # pass one pink (brown, orange) to the left
    assert g.current_player == 2
    assert {"received": b.cities[mine[0]].name, "from": 1} in g.view(2)["card_moves"]
    assert b.cities[mine[0]].name not in json.dumps(g.view(0), ensure_ascii=False)
    two = [c for c in s.hands[2] if b.cities[c].color == col]
    assert len(two) == 2 and mine[0] in two
    g.apply(g.table.give[two[1]])
    last = [c for c in s.hands[0] if b.cities[c].color == col]
    assert_illegal(g, g.table.give[last[0]], "you return a")  # the last player returns, not passes
    g.apply(g.table.give_back[last[0]])
    assert g.phase == "start"
    for hand in s.hands:
        assert len(hand) == 5 and sorted(b.cities[c].color for c in hand) == list(range(5))
    assert len(s.decks[col]) == pile_before and s.decks[col][0] == last[0]


# --------------------------------------------------------------------------------------------- 16: three passes
def test_card_16_three_blind_passes_to_the_left():
    g = new("trans-europa", 3, seed=7, special_cards=16)
    b = g.board
    s = g.state
    all_before = sorted(c for h in s.hands for c in h)
    for step in (1, 2, 3):
        assert g.view(0)["choice"]["pass_round"] == step
        hands = [h[:] for h in s.hands]
        picks = []
        for seat in (0, 1, 2):
            assert g.current_player == seat
            pick = hands[seat][step]
            picks.append(pick)
            g.apply(g.table.give[pick])
            if seat < 2:  # hidden until everyone chose
                assert s.hands == hands
                assert b.cities[pick].name not in json.dumps(g.view((seat + 1) % 3), ensure_ascii=False)
        for seat in (0, 1, 2):
            assert picks[seat] in s.hands[(seat + 1) % 3] and picks[seat] not in s.hands[seat]
        received = [m for m in g.view(1)["card_moves"] if "received" in m]
        assert received[-1] == {"received": b.cities[picks[0]].name, "from": 0}
    assert g.phase == "start"
    assert sorted(c for h in s.hands for c in h) == all_before
    assert all(len(h) == 5 for h in s.hands)
    assert sorted(g.view(2)["players"][0]["card_colors"]) == colours(g, s.hands[0])  # backs are public


def test_card_16_may_leave_a_hand_with_a_colour_twice():
    g = new("trans-europa", 2, seed=1, special_cards=16)
    b = g.board
    s = g.state
    pink = b.colors.index("pink")
    for _ in range(3):  # Ann never passes a pink city, Bob passes his pink one first
        g.apply(g.table.give[next(c for c in s.hands[0] if b.cities[c].color != pink)])
        g.apply(g.table.give[min(s.hands[1], key=lambda c: b.cities[c].color != pink)])
    assert sum(1 for c in s.hands[0] if b.cities[c].color == pink) == 2
    assert g.phase == "start"


# --------------------------------------------------------------------------------------------- 17: pass the hand
def test_card_17_everyone_plays_the_left_neighbours_old_hand():
    g = new("trans-europa", 4, seed=8, special_cards=17)
    before = new("trans-europa", 4, seed=8).state.hands  # the same deal without the card
    for p in range(4):
        assert g.state.hands[(p + 1) % 4] == before[p]
        passed = [m["passed"] for m in g.view(p)["card_moves"] if "passed" in m]
        assert sorted(passed) == names(g, before[p])


# --------------------------------------------------------------------------------------------- 18: criss-cross
def test_card_18_rails_may_go_anywhere_but_the_round_is_won_through_ones_own_marker():
    g = new("trans-europa", 2, seed=3, special_cards=18)
    set_hands(g, [["Amsterdam"], ["Rome"]])
    place_markers(g, ["9,6", "21,10"])
    assert can(g, "rail 1,6-3,6")  # nowhere near any network
    assert len(g.legal_actions()) == g.board.n_edges
    g.apply("rail 11,4-10,5")  # Amsterdam joined to 10,5, not to Ann's marker yet
    g.apply("rail 1,6-3,6")
    assert g.state.round == 1
    g.apply(g.table.rail[line(g, "13,10-15,10")])  # Bob somewhere
    g.apply("end")
    g.apply("rail 9,6-10,5")  # now Amsterdam is joined to Ann's marker
    assert g.state.round == 2 and g.state.history[0]["connected"] == [True, False]


# --------------------------------------------------------------------------------------------- plans
def test_each_round_reveals_a_new_card_before_the_start_markers():
    g = new("trans-america", 3, seed=9, special_cards="each-round")
    seen = [tuple(g.state.cards)]
    assert len(seen[0]) == 1 and g.view(0)["special_cards"][0]["id"] == seen[0][0]
    assert len(g.state.special_deck) == 18
    rnd = random.Random(1)
    while g.state.round < 4 and not g.is_over:
        r = g.state.round
        play(g, rnd, moves=len(g.moves) + 1)
        if g.state.round != r and not g.is_over:
            seen.append(tuple(g.state.cards))
    assert len(set(seen)) == len(seen)


def test_the_special_deck_is_reshuffled_when_used_up():
    g = new("trans-europa", 2, seed=2, special_cards={"deck": [3, 9], "per_round": 1})
    firsts = [g.state.cards[0]]
    for _ in range(4):
        g.rules._start_round(g.state, 0)  # what the end of a round does next
        firsts.append(g.state.cards[0])
    assert sorted(firsts[:2]) == [3, 9] and sorted(firsts[2:4]) == [3, 9]


def test_a_reshuffle_in_the_middle_of_a_reveal_never_shows_a_card_twice():
    g = new("trans-europa", 2, seed=5, special_cards={"deck": [3, 9, 18], "per_round": 2})
    for _ in range(12):
        assert len(set(g.state.cards)) == 2
        g.rules._start_round(g.state, 0)


def test_fixed_cards_and_per_round_cards_combine():
    g = new("trans-europa", 2, seed=2, special_cards={"fixed": [19], "per_round": 2, "deck": [3, 9, 18]})
    assert g.state.cards[0] == 19 and len(g.state.cards) == 3
    opts = g.to_json()["options"]["special_cards"]
    assert opts == {"fixed": [19], "per_round": 2, "deck": [3, 9, 18]}


@pytest.mark.parametrize(("spec", "message"), [
    (20, "there is no special card 20"),
    ([3, 3], "only once"),
    ("sometimes", "unknown setting 'sometimes'"),
    ({"fixed": [1], "deck": [1, 2]}, "only once"),
    ({"per_round": 3, "deck": [1, 2]}, "cannot reveal 3 cards per round from a deck of 2"),
    ({"every": 1}, "unknown key 'every'"),
    ({"per_round": -1}, "non-negative"),
    ([1.5], "card number"),
])
def test_bad_special_card_settings_are_refused(spec, message):
    with pytest.raises(IllegalAction, match=message):
        new("trans-america", special_cards=spec)


def test_special_card_plans_normalise():
    b = new().board
    assert card_plan(None, b).to_option() is None
    assert card_plan(3, b).fixed == (3,)
    assert card_plan([3, 18], b).fixed == (3, 18)
    assert card_plan("each-round", b).per_round == 1
    assert card_plan(True, b) == card_plan("each-round", b)
    assert card_plan({"fixed": [1]}, b).per_round == 0


def test_view_lists_the_cards_in_play_with_their_text():
    g = new("trans-europa", 2, seed=1, special_cards=[3, 18])
    v = g.view(0)
    assert [c["id"] for c in v["special_cards"]] == [3, 18]
    assert "3 rails" in v["special_cards"][0]["text"]
