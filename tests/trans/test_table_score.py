"""Scoring a Trans round played on a table: ``score_trans_table`` and ``tracklayer score``."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from tracklayer.cli import app
from tracklayer.core.errors import TracklayerError
from tracklayer.trans.table_score import score_trans_table

runner = CliRunner()


def position(**changes):
    base = {
        "game": "trans-europa",
        "rails": [[[9, 6], [10, 5]], [[10, 5], [11, 4]], [[13, 6], [12, 7]]],
        "players": [
            {"name": "Ann", "start": [9, 6], "cities": ["Amsterdam"]},
            {"name": "Bob", "start": [13, 6], "cities": ["Zürich"]},
            {"name": "Cy", "start": [11, 10], "cities": ["Marseille"], "score": 11},
            {"name": "Dan", "start": [15, 6], "cities": ["madrid"]},
        ],
    }
    base.update(changes)
    return json.loads(json.dumps(base))


def test_connected_player_gets_4_others_score_by_fewest_missing_rails():
    out = score_trans_table(position())
    ann, bob, cy, dan = out["players"]
    assert (ann["connected"], ann["missing_rails"], ann["prestige"]) == (True, 0, 4)
    assert (bob["missing_rails"], bob["prestige"]) == (1, 3)  # 12,7-13,8: one rail after 13,6-12,7
    assert bob["missing_lines"] == ["12,7-13,8"]
    assert (cy["missing_rails"], cy["prestige"], cy["total"]) == (1, 3, 14)
    assert dan["missing_rails"] >= 5 and dan["prestige"] == 0
    assert out["winners"] == ["Cy"] and out["game_over"] is True
    assert [p["rank"] for p in out["players"]] == [2, 3, 1, 4]


def test_special_cards_change_the_table_and_the_cost_of_doubles():
    pos = position(special_cards=[2])
    out = score_trans_table(pos)
    assert [p["prestige"] for p in out["players"]][:3] == [4, 2, 2]
    am = {"game": "trans-america", "rails": [],
          "players": [{"name": "Ann", "start": [8, 8], "cities": ["Phoenix"]}]}
    assert score_trans_table(am)["players"][0]["missing_rails"] == 2
    am["special_cards"] = [4]
    assert score_trans_table(am)["players"][0]["missing_rails"] == 1


@pytest.mark.parametrize(("change", "message"), [
    ({"game": "trans-mars"}, "'game' must be one of trans-europa, trans-america"),
    ({"rails": [[[9, 6], [30, 30]]]}, r"rails\[0\]\[1\]: 30,30 is not a point of the Trans Europa board"),
    ({"rails": [[[9, 6], [13, 6]]]}, r"rails\[0\]: no line joins 9,6 and 13,6"),
    ({"rails": [[[9, 6], [10, 5]], [[10, 5], [9, 6]]]}, r"rails\[1\]: .*listed twice"),
    ({"rails": [[9, 6]]}, r"rails\[0\]\[0\]: this must be a point \[x, row\]"),
    ({"rails": [[[9, 6]]]}, r"rails\[0\]: this must be a line \[\[x, row\], \[x, row\]\]"),
    ({"rails": [[["a", 6], [10, 5]]]}, r"rails\[0\]\[0\]\[0\]: a coordinate must be a whole number"),
    ({"special_cards": [4, 4]}, r"special_cards: .*only once"),
    ({"players": []}, "non-empty list"),
])
def test_bad_positions_are_refused_with_the_entry_named(change, message):
    with pytest.raises(TracklayerError, match=message):
        score_trans_table(position(**change))


@pytest.mark.parametrize(("player", "message"), [
    ({"cities": ["Atlantis"]}, r"players\[0\]\.cities\[0\]: unknown city 'Atlantis'"),
    ({"cities": ["Madrid", "London"]}, r"players\[0\]\.cities\[1\]: London and Madrid are both pink"),
    ({"cities": ["Zurich"]}, r"players\[1\]\.cities\[0\]: Zürich is also held by Ann"),
    ({"start": [13, 6]}, r"players\[1\]\.start: 13,6 already holds the start marker of Ann"),
    ({"start": None}, r"players\[0\]\.start: this must be a point \[x, row\]"),
    ({"start": [4, 4]}, r"players\[0\]\.start: 4,4 is not a point"),
    ({"cities": []}, r"players\[0\]\.cities: 'cities' must be a non-empty list"),
    ({"score": -1}, r"players\[0\]\.score: 'score'"),
    ({"name": "Bob"}, r"players\[\d\]\.name: the name 'Bob' is used twice"),
])
def test_bad_players_are_refused_with_the_player_named(player, message):
    pos = position()
    if player.get("name") == "Bob":
        pos["players"][2]["name"] = "Bob"
    else:
        pos["players"][0].update(player)
    if player.get("start", 0) is None:
        pos["players"][0].pop("start")
        message = r"players\[0\]: Ann's 'start' .* is missing"
    with pytest.raises(TracklayerError, match=message):
        score_trans_table(pos)


def _lines(game, doubles, singles):
    """``doubles`` double lines and ``singles`` single lines of ``game`` as a position's ``rails``."""
    from tracklayer.trans.board import load_board

    b = load_board(game)
    pick = ([e for e in range(b.n_edges) if b.edge_cost[e] == 2][:doubles]
            + [e for e in range(b.n_edges) if b.edge_cost[e] == 1][:singles])
    assert len(pick) == doubles + singles
    return [[list(b.xy[b.edge_a[e]]), list(b.xy[b.edge_b[e]])] for e in pick]


@pytest.mark.parametrize("game", ["trans-europa", "trans-america"])
def test_a_position_of_85_pieces_with_doubles_is_accepted(game):
    # a double line is one rail piece: 60 doubles + 25 singles is a full supply (it was refused as 145 rails)
    pos = position(game=game, rails=_lines(game, 60, 25))
    ann, bob = ((("Madrid", [1, 10]), ("Oslo", [15, 0])) if game == "trans-europa"
                else (("Boston", [34, 2]), ("Phoenix", [7, 9])))
    pos["players"] = [{"name": "Ann", "start": ann[1], "cities": [ann[0]]},
                      {"name": "Bob", "start": bob[1], "cities": [bob[0]]}]
    out = score_trans_table(pos)
    assert [p["connected"] for p in out["players"]] == [True, True]  # each marker sits on its city


def test_cards_4_and_5_score_a_trans_europa_table():
    # Rome's water doubles (13,12-15,12) and Vienna's mountain doubles (16,9-17,8) count single under 4 / 5
    def missing(cards):
        pos = position(rails=[], special_cards=cards, players=[
            {"name": "Ann", "start": [13, 12], "cities": ["Rome"]},
            {"name": "Bob", "start": [16, 9], "cities": ["Vienna"]}])
        return [p["missing_rails"] for p in score_trans_table(pos)["players"]]

    assert missing([]) == [2, 2] and missing([4]) == [1, 2] and missing([5]) == [2, 1] and missing([4, 5]) == [1, 1]


def test_too_many_rails_for_the_supply():
    with pytest.raises(TracklayerError, match="86 lines have a rail; the game has only 85 rail pieces"):
        score_trans_table(position(rails=_lines("trans-europa", 60, 26)))
    with pytest.raises(TracklayerError, match="the game has only 85"):
        score_trans_table(position(rails=_lines("trans-europa", 0, 86)))


def test_card_16_allows_two_cities_of_one_colour():
    pos = position(special_cards=[16])
    pos["players"][3]["cities"] = ["Madrid", "London"]
    assert score_trans_table(pos)["players"][3]["name"] == "Dan"


def test_card_16_allows_up_to_four_of_a_colour_and_no_more_than_were_dealt():
    # the own city and one received in each of the 3 passes: 4 pink cities need 4 players
    pos = position(special_cards=[16])
    pos["players"][3]["cities"] = ["Madrid", "London", "Dublin", "Brest", "Oslo"]
    assert score_trans_table(pos)["players"][3]["missing_rails"] > 0
    pos["players"][3]["cities"] = ["Madrid", "London", "Dublin", "Brest", "Bilbao"]
    with pytest.raises(TracklayerError, match=r"players\[3\]\.cities\[4\]: Dan holds 5 pink cities; with 3 passes "
                                              r"a hand holds at most 4 of one colour"):
        score_trans_table(pos)
    # two players were dealt two pink cities: three cannot be held
    two = position(special_cards=[16], players=[
        {"name": "Ann", "start": [9, 6], "cities": ["Madrid", "London"]},
        {"name": "Bob", "start": [13, 6], "cities": ["Dublin"]}])
    with pytest.raises(TracklayerError, match=r"players: 3 pink cities are held \(Madrid, London, Dublin\), "
                                              r"but with 2 players only 2 are dealt"):
        score_trans_table(two)
    two["players"][1]["cities"] = ["Oslo"]
    assert [p["name"] for p in score_trans_table(two)["players"]] == ["Ann", "Bob"]


def test_cli_prints_json_and_exits_2_on_bad_input(tmp_path):
    path = tmp_path / "round.json"
    path.write_text(json.dumps(position()), encoding="utf-8")
    res = runner.invoke(app, ["score", str(path), "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert [p["prestige"] for p in out["players"]] == [4, 3, 3, 0]
    res = runner.invoke(app, ["score", str(path)])
    assert res.exit_code == 0 and "Cy" in res.output
    bad = position()
    bad["players"][1]["cities"] = ["Zurichh"]
    path.write_text(json.dumps(bad), encoding="utf-8")
    res = runner.invoke(app, ["score", str(path)])
    assert res.exit_code == 2
    assert "unknown city 'Zurichh'; did you mean 'Zürich'" in res.output


def test_the_example_in_the_docs_scores():
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "trans.md").read_text(encoding="utf-8")
    block = text.split("## `tracklayer score` for a Trans round", 1)[1].split("```json", 1)[1].split("```", 1)[0]
    out = score_trans_table(json.loads(block))
    assert [p["name"] for p in out["players"]] == ["Ann", "Bob"]
    assert all(p["missing_rails"] > 0 for p in out["players"])


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_card_16_hands_the_engine_deals_are_accepted_up_to_the_bound(n):
    # everyone passes pink cities towards seat 0, which passes the others: seat 0 ends with min(1 + 3, n)
    # pink cities (the scorer's two limits are exactly reached, and such a hand is accepted)
    import tracklayer

    g = tracklayer.new_game("trans-europa", [f"P{i}" for i in range(n)], seed=3, special_cards=[16])
    b = g.board
    pink = b.colors.index("pink")
    while str(g.legal_actions()[0]).startswith("pass"):
        p = g.current_player
        hand = g.state.hands[p]
        pinks = [c for c in hand if b.cities[c].color == pink]
        others = [c for c in hand if b.cities[c].color != pink]
        g.apply(f"pass {b.cities[(others if p == 0 else pinks or others)[0]].name}")
    hands = [[b.cities[c].name for c in h] for h in g.state.hands]
    assert sum(b.cities[b.city(c)].color == pink for c in hands[0]) == min(4, n)
    pos = {"game": "trans-europa", "special_cards": [16],
           "players": [{"name": f"P{i}", "start": list(b.xy[3 * i]), "cities": h} for i, h in enumerate(hands)]}
    assert len(score_trans_table(pos)["players"]) == n
