"""Final scoring of Ticket to Ride Europe: tickets, stations, unused stations, European Express, ties.

Positions are scored with ``tracklayer.ttr.scoring.score_position`` (what ``Game.result`` uses) and
with the table scorer ``tracklayer.ttr.table_score.score_table`` (the ``tracklayer score`` input).
"""

from __future__ import annotations

from typing import Any

import pytest

from tracklayer.ttr.board import load_board
from tracklayer.ttr.scoring import HeldTicket, score_position
from tracklayer.ttr.table_score import ScoreInputError, score_table

EU = load_board("ttr-europe")


def rid(label: str, board=EU) -> int:
    lanes = board.actions.routes_named(label)
    assert len(lanes) >= 1
    return lanes[0]


def cid(name: str, board=EU) -> int:
    return board.cities.index(name)


def position(routes: dict[int, list[str]] | None = None, stations: dict[int, list[str]] | None = None,
             tickets: dict[int, list[tuple[str, str, int]]] | None = None, n: int = 2,
             tiebreak: str = "classic", board=EU) -> dict[str, Any]:
    owner = [-1] * len(board.routes)
    for p, labels in (routes or {}).items():
        for label in labels:
            lanes = [r for r in board.actions.routes_named(label) if owner[r] == -1]
            owner[lanes[0]] = p
    st = [-1] * len(board.cities)
    for p, cities in (stations or {}).items():
        for c in cities:
            st[cid(c, board)] = p
    held = [[HeldTicket(cid(a, board), cid(b, board), pts, f"{a}-{b}") for a, b, pts in (tickets or {}).get(p, [])]
            for p in range(n)]
    return score_position(board, [f"P{p}" for p in range(n)], owner, st, held, tiebreak)


def player(result, p) -> dict[str, Any]:
    return result["players"][p]


# ============================================================================ routes and tickets
def test_route_points_recounted_from_the_table():
    r = position({0: ["Amsterdam-Bruxelles", "Amsterdam-Frankfurt", "Amsterdam-Essen", "Athina-Sarajevo",
                      "Palermo-Smyrna", "Petrograd-Stockholm"]})
    assert player(r, 0)["route_points"] == 1 + 2 + 4 + 7 + 15 + 21
    assert player(r, 0)["wagons_used"] == 1 + 2 + 3 + 4 + 6 + 8


def test_completed_ticket_adds_failed_ticket_subtracts():
    r = position({0: ["Dieppe-Paris", "Paris-Frankfurt/white"]},
                 tickets={0: [("Dieppe", "Frankfurt", 8), ("Dieppe", "Wien", 11)]})
    p = player(r, 0)
    assert p["ticket_points"] == 8 - 11
    assert [t["completed"] for t in p["tickets"]] == [True, False]
    assert p["completed_tickets"] == 1 and p["failed_tickets"] == 1


def test_ticket_not_completed_by_opponent_routes():
    r = position({0: ["Dieppe-Paris"], 1: ["Paris-Frankfurt/white"]}, tickets={0: [("Dieppe", "Frankfurt", 8)]})
    assert player(r, 0)["ticket_points"] == -8


def test_total_is_the_sum_of_the_parts():
    r = position({0: ["Dieppe-Paris", "Paris-Frankfurt/white"], 1: ["Wien-Budapest/red"]},
                 stations={1: ["Roma"]}, tickets={0: [("Dieppe", "Frankfurt", 8)], 1: [("Wien", "Roma", 9)]})
    p0, p1 = player(r, 0), player(r, 1)
    assert p0["total"] == 1 + 4 + 8 + 12 + 10
    assert p1["total"] == 1 - 9 + 8 + 0


# ============================================================================ stations
def test_station_borrows_an_opponent_route_for_a_ticket():
    r = position({0: ["Dieppe-Paris"], 1: ["Paris-Frankfurt/white"]}, stations={0: ["Paris"]},
                 tickets={0: [("Dieppe", "Frankfurt", 8)]})
    p = player(r, 0)
    assert p["ticket_points"] == 8
    assert p["stations"] == [{"city": "Paris", "borrows": "Frankfurt-Paris/white"}]


def test_station_at_the_other_end_works_too():
    r = position({0: ["Dieppe-Paris"], 1: ["Paris-Frankfurt/white"]}, stations={0: ["Frankfurt"]},
                 tickets={0: [("Dieppe", "Frankfurt", 8)]})
    assert player(r, 0)["ticket_points"] == 8


def test_station_borrows_exactly_one_route():
    # Dieppe-Paris (own) | Paris-Frankfurt, Frankfurt-Munchen (opponent) | Munchen-Wien (own)
    routes = {0: ["Dieppe-Paris", "Munchen-Wien"], 1: ["Paris-Frankfurt/white", "Frankfurt-Munchen"]}
    one = position(routes, stations={0: ["Frankfurt"]}, tickets={0: [("Dieppe", "Wien", 10)]})
    assert player(one, 0)["ticket_points"] == -10  # one station in the middle cannot borrow both
    two = position(routes, stations={0: ["Paris", "Munchen"]}, tickets={0: [("Dieppe", "Wien", 10)]})
    assert player(two, 0)["ticket_points"] == 10
    assert {s["borrows"] for s in player(two, 0)["stations"]} == {"Frankfurt-Paris/white", "Frankfurt-Munchen"}


def test_station_same_route_for_every_ticket():
    r = position({1: ["Paris-Frankfurt/white", "Frankfurt-Munchen"]}, stations={0: ["Frankfurt"]},
                 tickets={0: [("Frankfurt", "Paris", 10), ("Frankfurt", "Munchen", 4)]})
    p = player(r, 0)
    assert p["ticket_points"] == 10 - 4
    assert [t["completed"] for t in p["tickets"]] == [True, False]
    assert p["stations"][0]["borrows"] == "Frankfurt-Paris/white"


def test_station_best_assignment_is_chosen():
    # s1 at Frankfurt: F-Paris or F-Munchen; s2 at Munchen: M-Frankfurt or M-Wien
    routes = {1: ["Paris-Frankfurt/white", "Frankfurt-Munchen", "Munchen-Wien"]}
    tickets = {0: [("Paris", "Munchen", 5), ("Frankfurt", "Wien", 6)]}
    r = position(routes, stations={0: ["Frankfurt", "Munchen"]}, tickets=tickets)
    p = player(r, 0)
    assert p["ticket_points"] == 6 - 5
    assert [t["completed"] for t in p["tickets"]] == [False, True]
    r = position(routes, stations={0: ["Munchen", "Frankfurt"]}, tickets={0: [("Paris", "Munchen", 7),
                                                                                ("Frankfurt", "Wien", 6)]})
    assert player(r, 0)["ticket_points"] == 7 - 6


def test_station_borrowing_serves_several_tickets_at_once():
    r = position({0: ["Dieppe-Paris", "Frankfurt-Munchen"], 1: ["Paris-Frankfurt/white"]},
                 stations={0: ["Paris"]}, tickets={0: [("Dieppe", "Frankfurt", 8), ("Paris", "Munchen", 6)]})
    assert player(r, 0)["ticket_points"] == 14


def test_station_on_city_without_opponent_routes_gives_nothing():
    r = position({0: ["Dieppe-Paris"], 1: ["Frankfurt-Munchen"]}, stations={0: ["Frankfurt"]},
                 tickets={0: [("Dieppe", "Frankfurt", 8)]})
    p = player(r, 0)
    assert p["ticket_points"] == -8
    assert p["stations"] == [{"city": "Frankfurt", "borrows": None}]


def test_station_cannot_borrow_unclaimed_route():
    r = position({0: ["Dieppe-Paris"]}, stations={0: ["Paris"]}, tickets={0: [("Dieppe", "Frankfurt", 8)]})
    assert player(r, 0)["ticket_points"] == -8


def test_station_does_not_use_routes_away_from_its_city():
    r = position({0: ["Dieppe-Paris"], 1: ["Paris-Frankfurt/white"]}, stations={0: ["Dieppe"]},
                 tickets={0: [("Dieppe", "Frankfurt", 8)]})
    assert player(r, 0)["ticket_points"] == -8


@pytest.mark.parametrize(("built", "points"), [(0, 12), (1, 8), (2, 4), (3, 0)])
def test_four_points_per_unused_station(built, points):
    r = position(stations={0: ["Lisboa", "Cadiz", "Madrid"][:built]})
    assert player(r, 0)["station_points"] == points
    assert player(r, 0)["stations_built"] == built


# ============================================================================ European Express
def test_longest_path_gets_ten():
    r = position({0: ["Paris-Frankfurt/white"], 1: ["Dieppe-Paris"]})
    assert player(r, 0)["longest_path"] == 3 and player(r, 0)["longest_path_bonus"] == 10
    assert player(r, 1)["longest_path"] == 1 and player(r, 1)["longest_path_bonus"] == 0


def test_longest_path_tie_everyone_gets_ten():
    r = position({0: ["Paris-Frankfurt/white"], 1: ["Munchen-Wien"], 2: ["Dieppe-Paris"]}, n=3)
    assert [player(r, p)["longest_path_bonus"] for p in range(3)] == [10, 10, 0]


def test_longest_path_may_loop_and_revisit_a_city():
    # triangle Paris-Frankfurt-Bruxelles plus a tail Brest-Paris: Brest-Paris-Frankfurt-Bruxelles-Paris
    r = position({0: ["Paris-Frankfurt/white", "Frankfurt-Bruxelles", "Bruxelles-Paris/red", "Brest-Paris"]})
    assert player(r, 0)["longest_path"] == 3 + 3 + 2 + 2


def test_longest_path_branches_do_not_add():
    r = position({0: ["Wien-Budapest/red", "Wien-Munchen", "Wien-Berlin", "Wien-Warszawa"]})
    assert player(r, 0)["longest_path"] == 4 + 3


def test_longest_path_each_route_once():
    # two lanes Paris-Frankfurt can't be owned by one player; use a figure eight through Paris
    r = position({0: ["Paris-Frankfurt/white", "Frankfurt-Bruxelles", "Bruxelles-Paris/red",
                      "Paris-Dieppe", "Dieppe-Brest", "Brest-Paris", "Paris-Marseille"]})
    assert player(r, 0)["longest_path"] == 3 + 2 + 2 + 1 + 2 + 3 + 4


def test_longest_path_separate_networks_not_added():
    r = position({0: ["Paris-Frankfurt/white", "Moskva-Petrograd"]})
    assert player(r, 0)["longest_path"] == 4


def test_borrowed_routes_do_not_count_for_longest_path():
    routes = {0: ["Dieppe-Paris", "Munchen-Wien"], 1: ["Paris-Frankfurt/white", "Frankfurt-Munchen"]}
    r = position(routes, stations={0: ["Paris", "Munchen"]}, tickets={0: [("Dieppe", "Wien", 10)]})
    assert player(r, 0)["ticket_points"] == 10  # both borrowed
    assert player(r, 0)["longest_path"] == 3
    assert player(r, 0)["longest_path_bonus"] == 0
    assert player(r, 1)["longest_path"] == 5 and player(r, 1)["longest_path_bonus"] == 10


# ============================================================================ winner and ties
def test_most_points_wins():
    r = position({0: ["Paris-Frankfurt/white"], 1: ["Dieppe-Paris"]})
    assert r["winners"] == ["P0"] and r["tiebreak"] == "points"
    assert [player(r, p)["rank"] for p in range(2)] == [1, 2]


@pytest.mark.parametrize("tiebreak", ["classic", "anniversary-de"])
def test_tie_most_completed_tickets(tiebreak):
    r = position({0: ["Dieppe-Paris"], 1: ["Amsterdam-Bruxelles"]},
                 tickets={0: [("Dieppe", "Paris", 5), ("Paris", "Dieppe", 3), ("Lisboa", "Moskva", 7)],
                          1: [("Amsterdam", "Bruxelles", 1)]}, tiebreak=tiebreak)
    assert player(r, 0)["total"] == player(r, 1)["total"]
    assert r["winners"] == ["P0"] and r["tiebreak"] == "completed tickets"


def test_classic_tie_fewest_stations_then_anniversary_longest_path():
    routes = {0: ["Paris-Frankfurt/white"], 1: ["Amsterdam-Bruxelles"]}
    stations = {0: ["Lisboa"]}
    tickets = {0: [("Paris", "Frankfurt", 1)], 1: [("Amsterdam", "Bruxelles", 10)]}
    classic = position(routes, stations, tickets, tiebreak="classic")
    assert player(classic, 0)["total"] == player(classic, 1)["total"] == 23
    assert classic["winners"] == ["P1"] and classic["tiebreak"] == "fewest stations built"
    de = position(routes, stations, tickets, tiebreak="anniversary-de")
    assert de["winners"] == ["P0"] and de["tiebreak"] == "longest path"


def test_classic_tie_european_express_holder():
    routes = {0: ["Paris-Frankfurt/white"], 1: ["Amsterdam-Bruxelles"]}
    tickets = {0: [("Paris", "Frankfurt", 2)], 1: [("Amsterdam", "Bruxelles", 15)]}
    r = position(routes, tickets=tickets)
    assert player(r, 0)["total"] == player(r, 1)["total"] == 28
    assert r["winners"] == ["P0"] and r["tiebreak"] == "European Express"


def test_anniversary_de_tie_ignores_stations():
    # equal points and tickets, P1 built a station, both paths equal: anniversary-de -> shared
    routes = {0: ["Dieppe-Paris"], 1: ["Amsterdam-Bruxelles"]}
    tickets = {0: [("Dieppe", "Paris", 5)], 1: [("Amsterdam", "Bruxelles", 9)]}
    de = position(routes, {1: ["Lisboa"]}, tickets, tiebreak="anniversary-de")
    assert player(de, 0)["total"] == player(de, 1)["total"]
    assert sorted(de["winners"]) == ["P0", "P1"] and de["tiebreak"] == "shared"
    classic = position(routes, {1: ["Lisboa"]}, tickets, tiebreak="classic")
    assert classic["winners"] == ["P0"] and classic["tiebreak"] == "fewest stations built"


@pytest.mark.parametrize("tiebreak", ["classic", "anniversary-de"])
def test_still_tied_shared(tiebreak):
    r = position({0: ["Dieppe-Paris"], 1: ["Amsterdam-Bruxelles"], 2: ["Paris-Frankfurt/white"]},
                 tickets={0: [("Dieppe", "Paris", 4)], 1: [("Amsterdam", "Bruxelles", 4)]}, n=3, tiebreak=tiebreak)
    # P2: 4 + 10 (express) + 12 = 26; P0/P1: 1 + 4 + 12 = 17, 1 completed each
    assert r["winners"] == ["P2"]
    r = position({0: ["Dieppe-Paris"], 1: ["Amsterdam-Bruxelles"]},
                 tickets={0: [("Dieppe", "Paris", 4)], 1: [("Amsterdam", "Bruxelles", 4)]}, tiebreak=tiebreak)
    assert sorted(r["winners"]) == ["P0", "P1"]
    assert r["tiebreak"] == "shared"
    assert [player(r, p)["rank"] for p in range(2)] == [1, 1]


def test_unknown_tiebreak_refused():
    with pytest.raises(ValueError, match="tiebreak"):
        position(tiebreak="german")


# ============================================================================ table scorer
def table(players: list[dict[str, Any]], **kw: Any) -> dict[str, Any]:
    return score_table({"game": "ttr-europe", "players": players, **kw})


def test_table_score_matches_position_scoring():
    data = [
        {"name": "Ann", "routes": [["Dieppe", "Paris"], ["Munchen", "Wien"]], "stations": ["Paris", "Munchen"],
         "tickets": [["Dieppe", "Wien", 10]]},
        {"name": "Bob", "routes": [["Paris", "Frankfurt", "white"], ["Frankfurt", "Munchen"]],
         "tickets": [["Paris", "Munchen", 9]]},
    ]
    r = table(data)
    ann, bob = r["players"]
    assert ann["ticket_points"] == 10 and ann["station_points"] == 4
    assert ann["total"] == 1 + 4 + 10 + 4
    assert bob["total"] == 4 + 2 + 9 + 12 + 10
    assert r["winners"] == ["Bob"]


def test_table_score_known_ticket_points_from_map():
    r = table([{"name": "Ann", "routes": [["Amsterdam", "Frankfurt"]], "tickets": [["Frankfurt", "Kobenhavn"]]}])
    assert r["players"][0]["tickets"][0]["points"] == 5
    assert r["players"][0]["ticket_points"] == -5


@pytest.mark.parametrize(("players", "match"), [
    ([{"name": "Ann", "routes": [["Pariss", "Frankfurt"]]}], r"players\[0\]\.routes\[0\]: .*Pariss.*mean 'Paris'"),
    ([{"name": "Ann", "routes": [["Paris", "Wien"]]}], r"players\[0\]\.routes\[0\]: no route joins Paris and Wien"),
    ([{"name": "Ann", "routes": [["Paris", "Frankfurt", "purple"]]}], r"players\[0\]\.routes\[0\]: no purple lane"),
    ([{"name": "Ann", "routes": [["Paris", "Zurich"]]}, {"name": "Bob", "routes": [["Zurich", "Paris"]]}],
     r"players\[1\]\.routes\[0\]: .*already claimed by Ann"),
    ([{"name": "Ann", "routes": [["Paris", "Zurich"], ["Paris", "Zurich"]]}], r"players\[0\]\.routes\[1\]: .*already"),
    ([{"name": "Ann", "stations": ["Paris", "Wien", "Roma", "Berlin"]}], r"players\[0\]\.stations: 4 stations.*only 3"),
    ([{"name": "Ann", "stations": ["Paris"]}, {"name": "Bob", "stations": ["paris"]}],
     r"players\[1\]\.stations\[0\]: Paris already has a station \(of Ann\)"),
    ([{"name": "Ann", "stations": ["Wein"]}], r"players\[0\]\.stations\[0\]: .*Wein.*did you mean 'Wien'"),
    ([{"name": "Ann", "tickets": [["Lisboa", "Moskva"]]}], r"players\[0\]\.tickets\[0\]: .*add its points"),
    ([{"name": "Ann", "tickets": [["Lisbox", "Moskva", 20]]}], r"players\[0\]\.tickets\[0\]: .*Lisbox.*mean .Lisboa."),
    ([{"name": "Ann", "tickets": [["Paris", "Paris", 3]]}], r"players\[0\]\.tickets\[0\]: .*two different cities"),
    ([{"name": "Ann", "tickets": [["Paris", "Wien", 0]]}], r"players\[0\]\.tickets\[0\]\[2\]: points must be a pos"),
])
def test_table_score_bad_input(players, match):
    with pytest.raises(ScoreInputError, match=match):
        table(players)


def test_table_score_unknown_ticket_with_points_is_fine():
    r = table([{"name": "Ann", "tickets": [["Lisboa", "Moskva", 20]]}])
    assert r["players"][0]["ticket_points"] == -20


def test_table_score_both_lanes_by_one_player():
    players = [{"name": "Ann", "routes": [["Paris", "Frankfurt", "white"], ["Paris", "Frankfurt", "orange"]]},
               {"name": "Bob"}, {"name": "Cy"}, {"name": "Di"}]
    with pytest.raises(ScoreInputError, match=r"players\[0\]: Ann owns both lanes.*Frankfurt-Paris"):
        table(players)


def test_table_score_both_identical_lanes_by_one_player():
    players = [{"name": "Ann", "routes": [["Dieppe", "London"], ["London", "Dieppe"]]},
               {"name": "Bob"}, {"name": "Cy"}, {"name": "Di"}]
    with pytest.raises(ScoreInputError, match=r"players\[0\]: Ann owns both lanes"):
        table(players)


@pytest.mark.parametrize("n", [2, 3])
def test_table_score_both_lanes_with_two_or_three_players(n):
    players = [{"name": "Ann", "routes": [["Paris", "Frankfurt", "white"]]},
               {"name": "Bob", "routes": [["Paris", "Frankfurt", "orange"]]}] + [{"name": "Cy"}] * (n - 2)
    pattern = rf"players: (Ann and Bob|Bob and Ann) both claim a lane.*with {n} players only one lane"
    with pytest.raises(ScoreInputError, match=pattern):
        table(players)


@pytest.mark.parametrize("n", [4, 5])
def test_table_score_both_lanes_by_two_players_with_four_or_five(n):
    players = [{"name": "Ann", "routes": [["Paris", "Frankfurt", "white"]]},
               {"name": "Bob", "routes": [["Paris", "Frankfurt"]]}] + [{"name": f"X{i}"} for i in range(n - 2)]
    r = table(players)
    assert r["players"][1]["routes"] == ["Frankfurt-Paris/orange"]


def test_table_score_too_many_wagons():
    routes = [["Petrograd", "Stockholm"], ["Palermo", "Smyrna"], ["Budapest", "Kyiv"], ["Athina", "Sarajevo"],
              ["Warszawa", "Wien"], ["Riga", "Wilno"], ["Petrograd", "Wilno"], ["Paris", "Marseille"],
              ["Barcelona", "Marseille"]]  # 8 + 6 + 6 + 4 * 6 = 44 wagons: fine
    assert table([{"name": "Ann", "routes": routes}])["players"][0]["wagons_used"] == 44
    with pytest.raises(ScoreInputError, match=r"players\[0\]\.routes: Ann's routes use 46 wagons.*45"):
        table([{"name": "Ann", "routes": [*routes, ["Barcelona", "Madrid"]]}])


def test_table_score_duplicate_player_name():
    with pytest.raises(ScoreInputError, match="used twice"):
        table([{"name": "Ann"}, {"name": "Ann"}])


def test_table_score_too_many_players():
    with pytest.raises(ScoreInputError, match="at most 5"):
        table([{"name": f"P{i}"} for i in range(6)])


def test_table_score_tiebreak_option():
    players = [{"name": "Ann", "routes": [["Paris", "Frankfurt", "white"]], "stations": ["Lisboa"],
                "tickets": [["Paris", "Frankfurt", 1]]},
               {"name": "Bob", "routes": [["Amsterdam", "Bruxelles"]], "tickets": [["Amsterdam", "Bruxelles", 10]]}]
    assert table(players)["winners"] == ["Bob"]
    assert table(players, tiebreak="anniversary-de")["winners"] == ["Ann"]
    with pytest.raises(ScoreInputError, match="tiebreak"):
        table(players, tiebreak="german")


# ============================================================================ exhaustive cross-checks
def _components_join(edges, a, b) -> bool:
    parent: dict[int, int] = {}

    def find(x):
        while parent.get(x, x) != x:
            x = parent[x]
        return x

    for u, v in edges:
        ru, rv = find(u), find(v)
        if ru != rv:
            parent[ru] = rv
    return find(a) == find(b)


def _brute_tickets(own_edges, options, tickets):
    """Best (points, completed) over every choice of one borrowed route (or none) per station."""
    from itertools import product

    best = None
    for combo in product(*[[None, *opts] for opts in options]):
        edges = own_edges + [e for e in combo if e is not None]
        done = [_components_join(edges, a, b) for a, b, _ in tickets]
        key = (sum(p if d else -p for (_, _, p), d in zip(tickets, done, strict=True)), sum(done))
        if best is None or key > best:
            best = key
    return best


def _brute_trail(edges) -> int:
    best = 0

    def walk(v, used, total):
        nonlocal best
        best = max(best, total)
        for i, (a, b, length) in enumerate(edges):
            if i in used or v not in (a, b):
                continue
            walk(b if v == a else a, used | {i}, total + length)

    for v in {x for a, b, _ in edges for x in (a, b)}:
        walk(v, frozenset(), 0)
    return best


@pytest.mark.parametrize("seed", range(40))
def test_station_assignment_is_the_exhaustive_best(seed):
    import random

    rnd = random.Random(seed)
    n = 3
    owner = [-1] * len(EU.routes)
    for r in rnd.sample(range(len(EU.routes)), 45):
        owner[r] = rnd.randrange(n)
    st = [-1] * len(EU.cities)
    for p in range(n):
        for c in rnd.sample([c for c in range(len(EU.cities)) if st[c] == -1], rnd.randrange(4)):
            st[c] = p
    held = [[HeldTicket(*rnd.sample(range(len(EU.cities)), 2), rnd.randint(1, 21)) for _ in range(rnd.randint(1, 6))]
            for _ in range(n)]
    r = score_position(EU, ["A", "B", "C"], owner, st, held)
    for p in range(n):
        own_edges = [(EU.routes[i].a, EU.routes[i].b) for i in range(len(EU.routes)) if owner[i] == p]
        options = [[(EU.routes[i].a, EU.routes[i].b) for i in EU.city_routes[c] if owner[i] not in (-1, p)]
                   for c in range(len(EU.cities)) if st[c] == p]
        tickets = [(t.a, t.b, t.points) for t in held[p]]
        points, done = _brute_tickets(own_edges, options, tickets)
        got = r["players"][p]
        assert (got["ticket_points"], got["completed_tickets"]) == (points, done)
        # the reported borrowings really achieve that score, one opponent route at each station's city
        borrowed = []
        for s in got["stations"]:
            if s["borrows"] is not None:
                ri = next(i for i in EU.actions.routes_named(s["borrows"].split("/")[0])
                          if EU.route_label(i) == s["borrows"] and owner[i] not in (-1, p))
                assert EU.cities.index(s["city"]) in (EU.routes[ri].a, EU.routes[ri].b)
                borrowed.append((EU.routes[ri].a, EU.routes[ri].b))
        done_flags = [_components_join(own_edges + borrowed, a, b) for a, b, _ in tickets]
        assert [t["completed"] for t in got["tickets"]] == done_flags


@pytest.mark.parametrize("seed", range(40))
def test_longest_path_is_the_exhaustive_longest_trail(seed):
    import random

    rnd = random.Random(1000 + seed)
    # a connected-ish random network: grow from a random city
    chosen: list[int] = []
    cities = {rnd.randrange(len(EU.cities))}
    for _ in range(rnd.randint(1, 11)):
        frontier = [i for c in cities for i in EU.city_routes[c]
                    if i not in chosen and not any(t in chosen for t in EU.routes[i].twins)]
        if not frontier:
            break
        i = rnd.choice(frontier)
        chosen.append(i)
        cities |= {EU.routes[i].a, EU.routes[i].b}
    owner = [-1] * len(EU.routes)
    for i in chosen:
        owner[i] = 0
    r = score_position(EU, ["A", "B"], owner, [-1] * len(EU.cities), [[], []])
    edges = [(EU.routes[i].a, EU.routes[i].b, EU.routes[i].length) for i in chosen]
    assert r["players"][0]["longest_path"] == _brute_trail(edges)
    assert r["players"][0]["longest_path_bonus"] == 10
