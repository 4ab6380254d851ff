"""Trans boards: data sizes, validation errors naming file, entry and problem, points and names."""

from __future__ import annotations

import json

import pytest

from tracklayer.core.errors import MapError, NotationError, UnknownName
from tracklayer.maps.loader import read_map
from tracklayer.trans.board import board_from_data, load_board
from tracklayer.trans.cards import cards_from_data


@pytest.mark.parametrize(("game", "points", "lines", "doubles"), [("trans-europa", 210, 577, 151),
                                                                  ("trans-america", 188, 509, 109)])
def test_boards_load_with_expected_sizes(game, points, lines, doubles):
    b = load_board(game)
    assert (b.n_points, b.n_edges, len(b.cities)) == (points, lines, 35)
    assert sum(1 for c in b.edge_cost if c == 2) == doubles
    assert b.rails == 85 and b.rails_per_turn == 2 and b.goal == 13
    assert b.colors == ("brown", "white", "pink", "orange", "turquoise")
    for col in range(5):
        assert len(b.cities_for(6)[col]) == 7 and len(b.cities_for(3)[col]) == 5 and len(b.cities_for(2)[col]) == 5
    # adjacency lists every line at both ends; lines join neighbours
    assert sum(len(a) for a in b.adjacency) == 2 * b.n_edges
    for e in range(b.n_edges):
        (xa, ra), (xb, rb) = b.xy[b.edge_a[e]], b.xy[b.edge_b[e]]
        assert (abs(xa - xb), abs(ra - rb)) in ((2, 0), (1, 1))
        assert b.edge_a[e] < b.edge_b[e]


def test_trans_europa_channel_ferry_and_alps_tunnel_are_single_lines():
    b = load_board("trans-europa")
    ferry = b.edge(b.parse_point("9,4"), b.parse_point("8,5"))
    tunnel = b.edge(b.parse_point("13,8"), b.parse_point("14,9"))
    assert (b.edge_cost[ferry], b.edge_terrain[ferry]) == (1, "ferry")
    assert (b.edge_cost[tunnel], b.edge_terrain[tunnel]) == (1, "tunnel")
    assert load_board("trans-america").terrains == b.terrains == frozenset({"water", "mountain"})


@pytest.mark.parametrize("game", ["trans-europa", "trans-america"])
def test_every_double_line_is_labelled_water_or_mountain(game):
    # cards 4 and 5 need the terrain of every double line (Trans Europa's are derived: tools/trans_terrain.py)
    b = load_board(game)
    doubles = [e for e in range(b.n_edges) if b.edge_cost[e] == 2]
    assert doubles and all(b.edge_terrain[e] in ("water", "mountain") for e in doubles)
    labels = [b.edge_terrain[e] for e in doubles]
    assert labels.count("water") >= 40 and labels.count("mountain") >= 40
    assert all(b.edge_terrain[e] in (None, "ferry", "tunnel") for e in range(b.n_edges) if b.edge_cost[e] == 1)


def test_points_are_written_x_comma_row():
    b = load_board("trans-europa")
    p = b.parse_point("12,5")
    assert b.xy[p] == (12, 5) and b.point_text(p) == "12,5"
    assert b.parse_point(" (12, 5) ") == b.parse_point("[12,5]") == p
    with pytest.raises(NotationError, match="written x,row"):
        b.parse_point("12;5")
    with pytest.raises(NotationError, match="11,5 is not a point of the Trans Europa board"):
        b.parse_point("11,5")
    assert b.point_from_pair([12, 5]) == p and b.point_from_pair([12, 6]) is None
    assert b.point_from_pair([True, 5]) is None


def test_city_lookup_ignores_case_and_accents_and_knows_aliases():
    b = load_board("trans-europa")
    assert b.cities[b.city("zurich")].name == "Zürich"
    assert b.cities[b.city("MALMO")].name == "Malmö"
    assert b.cities[b.city("Wien")].name == "Vienna"
    assert b.cities[b.city("St Petersburg")].name == "St. Petersburg"
    with pytest.raises(UnknownName, match="did you mean 'Madrid'"):
        b.city("Madird")
    a = load_board("trans-america")
    assert a.cities[a.city("saint louis")].name == "St. Louis"


def _data(game="trans-europa"):
    data, _ = read_map(game)
    return json.loads(json.dumps(data))


@pytest.mark.parametrize(("mutate", "message"), [
    (lambda d: d["edges"][3].update(a=[99, 99]), r"edges\[3\].*point 99,99 is not in 'points'"),
    (lambda d: d["edges"][0].update(cost=3), r"edges\[0\] \(5,0-7,0\): cost must be 1 \(single\) or 2"),
    (lambda d: d["edges"][0].update(b=[9, 0]), r"edges\[0\].*must join neighbouring grid points"),
    (lambda d: d["edges"].append(dict(d["edges"][0])), r"edges\[577\].*duplicate of edges\[0\]"),
    (lambda d: d["edges"][0].update(terrain="lava"), r"edges\[0\].*terrain must be null or one of"),
    (lambda d: d["points"].append([5, 0]), r"points\[210\] \[5, 0\]: duplicate of points\[0\]"),
    (lambda d: d["points"].append([99, 40]), r"edges: the grid is not connected: point 99,40"),
    (lambda d: d["cities"][0].update(color="purple"), r"cities\[0\] \(Glasgow\): colour 'purple'"),
    (lambda d: d["cities"][0].update(point=[6, 0]), r"cities\[0\] \(Glasgow\): point 6,0 is not on the board"),
    (lambda d: d["cities"][1].update(point=[9, 0]), r"cities\[1\] \(Oslo\): point 9,0 already holds Glasgow"),
    (lambda d: d["cities"][1].update(name="Oslo-Nord"), r"cities\[1\] \(Oslo-Nord\): a city name may not"),
    (lambda d: d["cities"][1].update(aliases=["Glasgow"]), r"cities: city spelling 'Glasgow' names both"),
    (lambda d: d["cities"][0].update(removed_with_2_3_players="yes"), r"removed_with_2_3_players must be"),
    (lambda d: d["prestige"].update(missing=[[2, 3]]), r"prestige: 'missing' must start at 1"),
    (lambda d: d["prestige"].update(missing=[[1, 1], [2, 2]]), r"prestige: prestige may not .* grow"),
    (lambda d: d.pop("rails"), r"missing field 'rails'"),
    (lambda d: d.update(family="ttr"), r"family 'ttr' is not a Trans"),
    (lambda d: d.update(cities=d["cities"][:30]), r"cities: colour \w+ has \d cities, fewer than 6 players"),
    (lambda d: d.update(rails_per_turn=1), r"rails_per_turn \(1\) must reach the dearest line's cost \(2\)"),
])
def test_broken_map_files_name_file_entry_and_problem(mutate, message):
    data = _data()
    mutate(data)
    with pytest.raises(MapError, match=message) as info:
        board_from_data(data, "broken.json", "broken")
    assert str(info.value).startswith("broken.json")


@pytest.mark.parametrize(("mutate", "message"), [
    (lambda d: d["cards"][0].update(effect="teleport"), r"cards\[0\] \(card 1\): unknown effect 'teleport'"),
    (lambda d: d["cards"][1].update(id=1), r"cards\[1\] \(card 1\): ids must be positive and unique"),
    (lambda d: d["cards"][0].update(missing=[[0, 3]]), r"card 1\): 'missing' must start at 1"),
    (lambda d: d["cards"][8].update(rails=[3, 0]), r"card 9\): rails must be a list of positive"),
    (lambda d: d["cards"][8].update(rails=[1, 1]), r"card 9\): rails must reach 2 in some turn"),
    (lambda d: d["cards"][3].update(terrain="sky"), r"card 4\): terrain must be one of"),
])
def test_broken_special_card_files_name_the_card(mutate, message):
    data, _ = read_map("trans-special-cards")
    data = json.loads(json.dumps(data))
    mutate(data)
    with pytest.raises(MapError, match=message):
        cards_from_data(data, "cards.json")


def test_a_map_file_of_ones_own_plays(tmp_path):
    import tracklayer

    data = _data("trans-america")
    data["name"] = "My America"
    path = tmp_path / "my-america.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    g = tracklayer.new_game("trans-america", 3, seed=1, map_file=str(path))
    assert g.board.name == "My America"
    assert tracklayer.load_game(g.to_json()).board.name == "My America"


@pytest.mark.parametrize("game", ["trans-europa", "trans-america"])
def test_distances_from_equal_the_two_terminal_steiner_value(game):
    import random

    from tracklayer.trans.board import load_board
    from tracklayer.trans.steiner import min_steiner

    b = load_board(game)
    rnd = random.Random(5)
    for _ in range(25):
        src, dst = rnd.randrange(b.n_points), rnd.randrange(b.n_points)
        value, _ = min_steiner(b.n_points, b.adjacency, b.edge_cost, [src, dst])
        assert b.distances_from(src)[dst] == value
    assert b.city_distances()[0][b.cities[0].point] == 0
    assert b.city_distances() is b.city_distances()
