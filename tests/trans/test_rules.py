"""Rule by rule: every test here fails if the rule it names is broken (base game, no special cards).

Situations are built on Trans Europa around Paris (9,6), Amsterdam (11,4) and Zürich (13,8):
  9,6-10,5, 10,5-11,4, 11,6-12,7, 12,7-13,8, 9,11-11,10 ... are single lines;
  11,4-12,3, 11,4-13,4, 12,5-13,4, 12,5-14,5 are double lines.
Hands are often cut down to the cities that matter: the rules do not depend on how many cities a
player holds, and short hands keep the geometry readable.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from tests.trans.helpers import (
    assert_illegal,
    build,
    can,
    city,
    legal_texts,
    line,
    new,
    place_markers,
    play,
    point,
    set_hands,
)
from tracklayer.core.errors import IllegalAction, NotationError, UnknownName


def test_the_lines_used_in_these_tests_have_the_expected_costs():
    g = new()
    b = g.board
    for text in ("9,6-10,5", "10,5-11,4", "11,6-12,7", "12,7-13,8", "9,10-11,10", "11,4-12,5"):
        assert b.edge_cost[line(g, text)] == 1, text
    for text in ("11,4-12,3", "11,4-13,4", "12,5-13,4", "12,5-14,5"):
        assert b.edge_cost[line(g, text)] == 2, text
    assert b.cities[city(g, "Paris")].point == point(g, "9,6")
    assert b.cities[city(g, "Amsterdam")].point == point(g, "11,4")
    assert b.cities[city(g, "Zurich")].point == point(g, "13,8")
    assert b.cities[city(g, "Marseille")].point == point(g, "9,10")


# --------------------------------------------------------------------------------------------- dealing
@pytest.mark.parametrize("game", ["trans-europa", "trans-america"])
@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_each_player_gets_one_city_of_each_colour_and_small_games_leave_flagged_cities_out(game, n):
    flagged_seen = False
    for seed in range(8):
        g = new(game, n, seed=seed)
        b = g.board
        held = [c for h in g.state.hands for c in h]
        assert len(held) == len(set(held)) == 5 * n
        for hand in g.state.hands:
            assert sorted(b.cities[c].color for c in hand) == list(range(5))
        flagged = [c for c in held if not b.cities[c].small_game]
        if n <= 3:
            assert flagged == [], "a 2-3 player game dealt a city with a dashed border"
            assert all(len(pile) == 5 - n for pile in g.state.decks)
        else:
            assert all(len(pile) == 7 - n for pile in g.state.decks)
        flagged_seen |= bool(flagged)
    assert flagged_seen == (n > 3)


def test_same_seed_same_deal_other_seed_other_deal():
    assert new(seed=5).state == new(seed=5).state
    assert new(seed=5).state.hands != new(seed=6).state.hands
    assert new(seed="abc").state.hands == new(seed="abc").state.hands


def test_player_count_and_first_player_are_checked():
    with pytest.raises(IllegalAction, match="2-6 players, not 7"):
        new(n=7)
    with pytest.raises(IllegalAction, match="2-6 players, not 1"):
        new(n=1)
    with pytest.raises(IllegalAction, match="first_player must be a seat"):
        new(n=3, first_player=3)
    with pytest.raises(IllegalAction, match="names must differ"):
        new(n=["a", "a"])
    with pytest.raises(IllegalAction, match="has no variants"):
        new(variant="mega")


# --------------------------------------------------------------------------------------------- start markers
def test_start_markers_are_placed_in_turn_from_the_start_player_on_free_points():
    g = new(n=3, first_player=1)
    assert g.phase == "start" and g.current_player == 1
    assert len(g.legal_actions()) == g.board.n_points
    g.apply("start Paris")  # a city point is allowed
    assert g.state.markers[1] == point(g, "9,6")
    assert g.current_player == 2
    assert not can(g, "start 9,6")
    assert len(g.legal_actions()) == g.board.n_points - 1
    assert_illegal(g, "start 9,6", "already holds the start marker of player 2")
    assert_illegal(g, "rail 9,6-10,5", "cannot place a rail now: start markers")
    g.apply("start 12,5")
    assert g.current_player == 0
    g.apply("start (21, 10)")
    assert g.phase == "rails" and g.current_player == 1  # the start player takes the first turn


def test_start_marker_notation_errors():
    g = new()
    with pytest.raises(NotationError, match="not a point of the Trans Europa board"):
        g.parse("start 20,10")
    with pytest.raises(UnknownName, match="did you mean 'Paris'"):
        g.parse("start Pariss")
    with pytest.raises(NotationError, match="start where"):
        g.parse("start")


# --------------------------------------------------------------------------------------------- rails
def rails_game(n: int = 3, markers: tuple[str, ...] = ("11,6", "10,1", "21,10"), hands=None):
    g = new(n=n, seed=3)
    set_hands(g, hands or [["Amsterdam"], ["Oslo"], ["Sofia"]][:n])
    place_markers(g, list(markers))
    return g


def test_a_rail_must_touch_the_network_of_ones_own_start_marker():
    g = rails_game()
    around = {line(g, t) for t in ("10,5-11,6", "9,6-11,6", "11,6-12,5", "11,6-13,6", "11,6-12,7", "10,7-11,6")}
    assert {a.line for a in g.legal_actions()} == around
    assert_illegal(g, "rail 12,5-13,6", "does not touch your network")
    g.apply("rail 11,6-12,5")
    # the network now holds 12,5 too: a branch there or back at the start point are both fine
    assert can(g, "rail 11,4-12,5")
    assert can(g, "rail 10,5-11,6")
    assert can(g, "rail 12,5-13,6")
    g.apply("rail 10,7-11,6")
    assert g.current_player == 1 and g.state.used == 0


def play_other_turns(g, until: int) -> None:
    """Let the other players place one rail and end, until it is ``until``'s turn."""
    while g.current_player != until:
        g.apply(next(a for a in g.legal_actions() if a.kind == "rail"))
        if g.current_player != until and g.state.used:
            g.apply("end")


def test_two_single_rails_or_one_double_rail_per_turn():
    g = rails_game(markers=("12,5", "10,1", "21,10"), hands=[["Rome"], ["Oslo"], ["Sofia"]])
    assert can(g, "rail 12,5-13,4") and can(g, "rail 12,5-14,5")  # doubles are offered with 2 rails left
    g.apply("rail 12,5-13,4")  # one double line uses the whole turn
    assert g.current_player == 1
    assert g.state.supply == 85 - 1  # ... but only one rail piece: "eine Schiene auf eine freie Doppellinie"
    play_other_turns(g, 0)
    g.apply("rail 11,4-12,5")  # one single: now only single lines fit in the turn
    assert g.state.used == 1
    assert not can(g, "rail 12,5-14,5")
    assert_illegal(g, "rail 12,5-14,5", "double line needing 2 rails and you have 1 left")
    assert all(g.board.edge_cost[a.line] == 1 for a in g.legal_actions() if a.kind == "rail")
    g.apply("rail 10,5-11,4")
    assert g.current_player == 1  # the second single ended the turn by itself


def test_a_built_line_cannot_take_another_rail():
    g = rails_game()
    g.apply("rail 11,6-12,5")
    assert not can(g, "rail 11,6-12,5")
    assert_illegal(g, "rail 11,6-12,5", "already has a rail")


def test_joined_networks_are_shared_and_either_player_may_extend_them():
    g = rails_game(markers=("11,6", "13,6", "21,10"))
    g.apply("rail 11,6-12,5")
    g.apply("rail 12,5-13,6")  # joins player 2's start marker: one shared network
    assert g.state.networks.players_on(point(g, "11,6"), g.state.markers) == [0, 1]
    # player 2 may now build from player 1's start point, far from their own rails
    assert can(g, "rail 10,5-11,6")
    g.apply("rail 10,5-11,6")
    g.apply("rail 9,6-10,5")
    assert g.state.owner[line(g, "9,6-10,5")] == 1


def test_end_finishes_a_turn_early_but_only_after_a_rail():
    g = rails_game()
    assert "end" not in legal_texts(g)
    assert_illegal(g, "end", "at least one rail")
    g.apply("rail 11,6-12,5")
    assert "end" in legal_texts(g)
    g.apply("end")
    assert g.current_player == 1 and g.state.used == 0


ISLAND = ("1,6-3,6", "1,6-2,7", "3,6-4,7", "3,6-2,7", "2,7-4,7")  # singles; every way out is a double line


def test_a_player_must_build_when_possible_and_passes_only_when_not():
    # a pass needs a turn budget below 2 with only double lines free: card 9's third round of turns
    g = new(n=3, seed=3, special_cards=9)
    set_hands(g, [["Amsterdam"], ["Oslo"], ["Sofia"]])
    place_markers(g, ["1,6", "10,1", "21,10"])
    assert_illegal(g, "pass", "must place at least one rail")
    build(g, 0, *ISLAND)
    g.state.turn = 2 * 3  # rhythm 3, 2, 1: the third round of turns has 1 rail each
    g._legal = None
    assert legal_texts(g) == ["pass"]
    g.apply("pass")
    assert g.current_player == 1 and g.state.round == 1
    assert "pass" not in legal_texts(g)
    assert_illegal(g, "pass", "must place at least one rail")
    play_other_turns(g, 0)  # Bob and Cy build; then the rhythm is back at 3 and Ann takes a double line
    assert g.view(0, hints=False)["turn"]["budget"] == 3
    rails = [a for a in g.legal_actions() if a.kind == "rail"]
    assert rails and all(g.board.edge_cost[a.line] == 2 for a in rails)
    g.apply(rails[0])
    assert g.state.used == 2 and g.state.round == 1 and g.state.history == []


def test_no_blocked_round_end_a_last_rail_may_go_on_a_double_line():
    # Before: the supply had 1 rail, only double lines were free for everybody, so the round ended "blocked".
    # A double line takes one rail piece: Ann builds one with the last piece and the supply ends the round.
    g = rails_game(markers=("1,6", "3,6", "2,7"))
    build(g, 0, *ISLAND)
    g.state.supply = 1
    g._legal = None
    assert "pass" not in legal_texts(g)
    assert_illegal(g, "pass", "must place at least one rail")
    rails = [a for a in g.legal_actions() if a.kind == "rail"]
    assert rails and all(g.board.edge_cost[a.line] == 2 for a in rails)
    g.apply(rails[0])
    assert g.state.round == 2
    assert g.state.history[0]["ended_by"] == "supply"


def test_the_supply_running_out_ends_the_round_at_once():
    g = rails_game()
    g.state.supply = 3
    g.apply("rail 11,6-12,5")
    g.apply("rail 12,5-13,6")
    g.apply(next(a for a in g.legal_actions() if a.kind == "rail"))  # Bob's first rail empties the supply
    assert g.state.round == 2
    record = g.state.history[0]
    assert record["ended_by"] == "supply"
    assert sum(1 for o in record["owner"] if o >= 0) == 3


def test_a_double_line_takes_one_rail_piece_of_the_supply():
    g = rails_game(markers=("12,5", "10,1", "21,10"))
    g.state.supply = 2
    g._legal = None
    g.apply("rail 12,5-13,4")  # double: the whole turn, one piece
    assert (g.state.supply, g.current_player, g.state.round) == (1, 1, 1)
    g = rails_game(markers=("12,5", "10,1", "21,10"))
    g.state.supply = 1
    g._legal = None
    assert can(g, "rail 12,5-13,4")  # the last piece may go on a double line
    g.apply("rail 12,5-13,4")
    assert g.state.round == 2 and g.state.history[0]["ended_by"] == "supply"


def test_a_round_ends_after_85_pieces_however_many_are_double_lines():
    # build a double line whenever one is offered: the supply still lasts 85 lines, not 85 rails' worth of cost
    g = new(n=2, seed=11)
    set_hands(g, [["Moscow"], ["Madrid"]])
    place_markers(g, ["1,6", "31,4"])
    while g.state.round == 1:
        rails = [a for a in g.legal_actions() if a.kind == "rail"]
        doubles = [a for a in rails if g.board.edge_cost[a.line] == 2]
        g.apply((doubles or rails)[0])
    rec = g.state.history[0]
    built = [e for e, o in enumerate(rec["owner"]) if o >= 0]
    n_doubles = sum(1 for e in built if g.board.edge_cost[e] == 2)
    assert rec["ended_by"] == "supply" and rec["connected"] == [False, False]
    assert len(built) == 85 and n_doubles >= 20


# --------------------------------------------------------------------------------------------- end of a round
def connect_setup(first_player: int = 0):
    """Ann (seat 0) holds Amsterdam with her marker on Paris and 9,6-10,5 built: one rail to go.
    Bob (1) holds Zürich, marker 13,6 (2 rails missing). Cy (2) holds Marseille, marker 11,10 (1)."""
    g = new(n=3, seed=3, first_player=first_player)
    set_hands(g, [["Amsterdam"], ["Zürich"], ["Marseille"]])
    place_markers(g, ["9,6", "13,6", "11,10"])
    build(g, 0, "9,6-10,5")
    return g


def test_joining_all_ones_cities_ends_the_round_at_once_and_scores_it():
    g = connect_setup()
    g.apply("rail 10,5-11,4")  # Ann had a second rail left: the round ends anyway
    s = g.state
    assert s.round == 2
    rec = s.history[0]
    assert rec["ended_by"] == "connected"
    assert rec["connected"] == [True, False, False]
    assert rec["missing"] == [0, 2, 1]  # 13,6-12,7-13,8 and 11,10-9,10
    assert rec["prestige"] == [4, 2, 3]
    assert s.scores == [4, 2, 3]


def test_missing_rails_table_and_double_lines_count_two():
    g = new(n=5, seed=3)
    set_hands(g, [["Amsterdam"], ["Zürich"], ["Marseille"], ["London"], ["Paris"]])
    # Bob 13,6: two singles to Zürich; Cy 15,6: 6 rails to Marseille; Dan 10,3 beside London (single);
    # Eve 12,3 holds Paris: once Ann's network 9,6-10,5-11,4 is built, one double line (12,3-11,4) joins it
    place_markers(g, ["9,6", "13,6", "15,6", "10,3", "12,3"])
    build(g, 0, "9,6-10,5")
    g.apply("rail 10,5-11,4")  # Ann connects Amsterdam
    rec = g.state.history[0]
    assert rec["missing"] == [0, 2, 6, 1, 2]
    assert rec["prestige"] == [4, 2, 0, 3, 2]
    assert [g.board.edge_text(e) for e in rec["missing_lines"][4]] == ["12,3-11,4"]
    assert g.board.edge_cost[rec["missing_lines"][4][0]] == 2


def test_missing_rails_use_every_rail_on_the_board_but_build_nothing():
    g = connect_setup()
    build(g, 2, "12,7-13,8")  # Cy's rail next to Zürich: Bob may count on it
    g.apply("rail 10,5-11,4")
    rec = g.state.history[0]
    assert rec["missing"][1] == 1  # 13,6-12,7 then Cy's rail
    assert rec["prestige"][1] == 3


def test_completion_by_another_players_rail_counts_passively():
    # Bob's marker sits on Amsterdam's neighbour 10,5: Ann's rail 9,6-10,5 ... but Ann moves second
    g = new(n=2, seed=3)
    set_hands(g, [["Zürich"], ["Amsterdam"]])
    place_markers(g, ["11,4", "10,5"])  # Ann's marker on Amsterdam's point, Bob next to it
    g.apply("rail 12,5-11,4")  # Ann's first rail elsewhere (touches her marker)
    g.apply("rail 11,4-10,5")  # second rail joins Bob to Amsterdam: Bob is connected, round ends
    rec = g.state.history[0]
    assert rec["connected"] == [False, True]
    assert rec["prestige"][1] == 4
    assert g.state.round == 2


def test_first_rail_completing_another_player_lets_the_mover_finish_the_turn():
    g = new(n=2, seed=3)
    set_hands(g, [["Zürich"], ["Amsterdam"]])
    place_markers(g, ["11,4", "10,5"])
    g.apply("rail 11,4-10,5")  # first rail of Ann's turn joins Bob to Amsterdam
    assert g.state.round == 1 and g.state.ending
    assert g.current_player == 0
    assert g.view(0)["turn"]["finishing"] is True
    assert "end" in legal_texts(g)
    g.apply("rail 11,4-12,5")
    assert g.state.round == 2  # the round ends with the turn
    rec = g.state.history[0]
    assert rec["connected"] == [False, True]
    assert rec["owner"][line(g, "11,4-12,5")] == 0


def test_first_rail_special_case_can_end_with_two_connected_players():
    g = new(n=2, seed=3)
    set_hands(g, [["Paris"], ["Amsterdam"]])
    place_markers(g, ["11,4", "10,5"])
    g.apply("rail 11,4-10,5")  # Bob connected by Ann's first rail
    assert g.state.round == 1
    g.apply("rail 10,5-9,6")  # Ann joins Paris with her second rail
    rec = g.state.history[0]
    assert rec["connected"] == [True, True]
    assert rec["prestige"] == [4, 4]


def test_the_special_case_may_be_ended_with_end():
    g = new(n=2, seed=3)
    set_hands(g, [["Zürich"], ["Amsterdam"]])
    place_markers(g, ["11,4", "10,5"])
    g.apply("rail 11,4-10,5")
    g.apply("end")
    assert g.state.round == 2 and g.state.history[0]["connected"] == [False, True]


def test_first_rail_completing_the_mover_and_another_ends_at_once():
    g = new(n=2, seed=3)
    set_hands(g, [["Paris"], ["Amsterdam"]])
    place_markers(g, ["11,4", "9,6"])  # Ann on Amsterdam wants Paris; Bob on Paris wants Amsterdam
    build(g, 1, "9,6-10,5")
    g.apply("rail 11,4-10,5")
    assert g.state.round == 2
    assert g.state.history[0]["connected"] == [True, True]


# --------------------------------------------------------------------------------------------- next round, end
def test_the_next_round_clears_rails_returns_markers_redeals_and_passes_the_start_player_left():
    g = connect_setup(first_player=2)
    g.state.current = 0
    g.state.used = 0
    g._legal = None
    hands_before = [h[:] for h in g.state.hands]
    g.apply("rail 10,5-11,4")
    s = g.state
    assert s.round == 2 and s.start_player == 0  # 2 -> 0: to the left
    assert s.phase == "start" and s.current == 0
    assert all(o == -1 for o in s.owner) and s.supply == 85
    assert s.markers == [-1, -1, -1]
    assert all(sorted(g.board.cities[c].color for c in h) == list(range(5)) for h in s.hands)
    assert s.hands != hands_before
    assert g.view(1)["rounds"][0]["players"][0]["cities"] == ["Amsterdam"]  # revealed after the round


def test_the_game_ends_after_the_round_in_which_someone_reaches_13():
    g = connect_setup()
    g.state.scores = [9, 0, 0]
    g.apply("rail 10,5-11,4")
    assert g.is_over and g.current_player is None
    assert g.state.scores == [13, 2, 3]
    res = g.result()
    assert res["final"] and res["winners"] == ["Player 1"]
    assert [p["rank"] for p in res["players"]] == [1, 3, 2]
    assert res["players"][0]["prestige_per_round"] == [4]
    assert g.legal_actions() == []
    with pytest.raises(IllegalAction, match="over"):
        g.apply("end")


def test_the_game_goes_on_below_13_and_the_highest_total_wins_with_ties_shared():
    g = connect_setup()
    g.state.scores = [8, 10, 0]
    g.apply("rail 10,5-11,4")
    assert not g.is_over  # 12, 12, 3
    g = connect_setup()
    g.state.scores = [11, 13, 0]  # someone may already be past 13 only in a made-up position
    g.apply("rail 10,5-11,4")
    assert g.is_over and g.state.scores == [15, 15, 3]
    assert g.result()["winners"] == ["Player 1", "Player 2"]


# --------------------------------------------------------------------------------------------- notation, atomic moves
def test_compound_rails_are_applied_all_or_nothing():
    g = rails_game()
    before = g.state.to_dict()
    assert_illegal(g, "rail 11,6-12,5 12,7-13,8", "rail 2 of this move: 12,7-13,8 does not touch")
    assert g.state.to_dict() == before
    assert_illegal(g, "rail 11,6-12,5 12,5-14,5", "rail 2 of this move: 12,5-14,5 is a double line")
    assert_illegal(g, "rail 11,6-12,5 12,5-13,6 13,6-12,7", "the turn ends after 2 rail")
    g.apply("rail 11,6-12,5 12,5-13,6")
    assert g.current_player == 1
    assert [str(m) for m in g.moves][-1] == "rail 12,5-11,6 12,5-13,6"


def test_rail_notation_reads_either_direction_chains_brackets_and_city_names():
    g = rails_game()
    t = g.table
    assert g.parse("rail 12,5-11,6") == g.parse("rail 11,6-12,5") == t.rail[line(g, "11,6-12,5")]
    assert str(g.parse("rail 11,6 - 12,5")) == "rail 12,5-11,6"  # north first
    assert g.parse("rail (11, 6)-(12, 5)") == t.rail[line(g, "11,6-12,5")]
    chain = g.parse("rail 11,6-12,5-13,6")
    assert chain.lines == (line(g, "11,6-12,5"), line(g, "12,5-13,6"))
    assert g.parse("rail 11,6-12,5 12,5-13,6") == chain
    assert g.parse("rail Amsterdam-12,5") == t.rail[line(g, "11,4-12,5")]
    assert g.parse("rail Paris-10,5; Amsterdam-10,5").lines == (line(g, "9,6-10,5"), line(g, "10,5-11,4"))
    with pytest.raises(NotationError, match="no line joins 11,6 and 14,5"):
        g.parse("rail 11,6-14,5")
    with pytest.raises(NotationError, match="put ';' between segments that name cities"):
        g.parse("rail Paris-10,5 Amsterdam-10,5")
    with pytest.raises(UnknownName, match="did you mean 'Paris'"):
        g.parse("rail Pariss-10,5")
    with pytest.raises(NotationError, match="rail where"):
        g.parse("rail")
    with pytest.raises(NotationError, match="unknown move"):
        g.parse("claim 11,6-12,5")


def test_every_city_name_and_alias_is_readable():
    for game in ("trans-europa", "trans-america"):
        g = new(game)
        for c in g.board.cities:
            assert g.parse(f"start {c.name}") == g.table.start[c.point]
            assert g.parse(f"return {c.name.upper()}").city == c.index
    g = new("trans-europa")
    assert g.parse("start Wien") == g.parse("start Vienna")
    assert g.parse("start kiev") == g.parse("start Kyiv")
    assert g.parse("start zurich") == g.parse("start Zürich")
    g = new("trans-america")
    assert g.parse("start Winston-Salem") == g.parse("start Winston")
    assert g.parse("rail Winston-Salem-29,7") == g.table.rail[line(g, "29,7-28,8")]


def test_illegal_moves_in_every_phase_leave_the_game_unchanged():
    g = rails_game()
    assert_illegal(g, "start 5,0", "cannot place a start marker now")
    assert_illegal(g, "return Oslo", "cannot return a city card now")
    assert_illegal(g, "pass Oslo", "cannot pass a city card now")
    assert_illegal(g, g.table.rail[line(g, "1,6-3,6")], "does not touch")


def test_cities_of_every_colour_are_dealt_evenly_over_many_rounds():
    counts: Counter[int] = Counter()
    for seed in range(30):
        g = new(n=6, seed=seed)
        for h in g.state.hands:
            counts.update(h)
    assert len(counts) == 35  # every card turns up with 6 players


def test_the_api_example_in_the_docs_runs():
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "trans.md").read_text(encoding="utf-8")
    code = text.split("```python", 1)[1].split("```", 1)[0]
    scope: dict[str, object] = {}
    exec(code, scope)
    g = scope["g"]
    assert [str(m) for m in g.moves][-1] == "rail 1,10-3,10 3,10-5,10"
    assert scope["same"].state == g.state


def test_a_tampered_save_is_refused_and_views_check_the_seat():
    import tracklayer
    from tracklayer.core.errors import GameDataError

    g = play(new(n=3, seed=2), random.Random(2), moves=120)  # through the API only: it replays
    assert tracklayer.load_game(g.to_json()).state == g.state
    data = g.to_json()
    data["state"]["scores"] = [99, 0, 0]
    with pytest.raises(GameDataError, match=r"differs in scores\)"):
        tracklayer.load_game(data)
    data = g.to_json()
    data["moves"].append("rail 1,6-3,6")
    with pytest.raises(GameDataError, match=r"moves\[\d+\] 'rail 1,6-3,6' cannot be replayed"):
        tracklayer.load_game(data)
    with pytest.raises(IllegalAction, match="no seat 3"):
        g.view(3)


def test_result_while_the_game_runs_covers_the_finished_rounds():
    g = connect_setup()
    assert g.result()["rounds"] == [] and g.result()["final"] is False
    g.apply("rail 10,5-11,4")
    res = g.result()
    assert res["final"] is False and res["winners"] == ["Player 1"]
    assert res["rounds"][0]["players"][1]["missing_lines"] == ["13,6-12,7", "12,7-13,8"]
    assert res["players"][1]["missing_rails"] == [2] and res["players"][0]["connected"] == [True]
    assert g.view(2)["log"][-1]["note"] == "round 1 ends (connected): Player 1 +4, Player 2 +2, Player 3 +3"
