"""Ticket to Ride Europe variants: which tickets are used, the starting deal, keeping and returning.

Rules: the variant table of /work/shared/rules/ticket-to-ride-europe.md.
"""

from __future__ import annotations

import json

import pytest

import tracklayer
from tests.ttr.helpers import assert_illegal, legal_texts, set_turn, start
from tracklayer import IllegalAction
from tracklayer.core.rng import Rng

VARIANTS = ("classic", "1912", "mega", "big-cities")


def pool(g) -> list[int]:
    """Every ticket in play at the start: offers plus the ticket deck."""
    return [t for o in g.state.offers for t in o] + list(g.state.ticket_deck)


def longs(g, tickets) -> list[int]:
    return [t for t in tickets if g.board.tickets[t].long]


def regulars(g, tickets) -> list[int]:
    return [t for t in tickets if not g.board.tickets[t].long]


# ============================================================================ common to all variants
@pytest.mark.parametrize("variant", VARIANTS)
def test_every_variant_four_cards_and_european_express(variant):
    g = tracklayer.new_game("ttr-europe", 3, seed=5, variant=variant)
    assert [sum(h) for h in g.state.hands] == [4, 4, 4]
    assert g.state.wagons == [45] * 3 and g.state.stations_left == [3] * 3
    r = g.result()
    assert all("longest_path_bonus" in p for p in r["players"])


def test_unknown_variant_refused():
    with pytest.raises(IllegalAction, match="no variant 'express'"):
        tracklayer.new_game("ttr-europe", 3, seed=5, variant="express")


def test_default_variant_is_classic():
    assert tracklayer.new_game("ttr-europe", 2, seed=5).variant.name == "classic"


# ============================================================================ classic
@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_classic_uses_only_europe_tickets(n):
    g = tracklayer.new_game("ttr-europe", n, seed=11, variant="classic")
    tix = g.board.tickets
    assert all("europe" in tix[t].logos for t in pool(g))
    assert len(regulars(g, pool(g))) == 40
    assert len(longs(g, pool(g))) == n  # the other long tickets stay in the box
    assert len(g.state.ticket_deck) == 40 - 3 * n


# ============================================================================ 1912
@pytest.mark.parametrize("n", [2, 5])
def test_1912_uses_only_1912_tickets(n):
    g = tracklayer.new_game("ttr-europe", n, seed=11, variant="1912")
    tix = g.board.tickets
    assert all("1912" in tix[t].logos for t in pool(g))
    assert not any(tix[t].logos == ("europe",) for t in pool(g))
    assert len(regulars(g, pool(g))) == 49
    for offer in g.state.offers:
        assert len(offer) == 4 and len(longs(g, offer)) == 1
    assert len(g.state.ticket_deck) == 49 - 3 * n
    assert not longs(g, g.state.ticket_deck)


def test_1912_keep_two_returned_to_box():
    g = tracklayer.new_game("ttr-europe", 2, seed=11, variant="1912")
    offer = sorted(g.state.offers[0])
    assert_illegal(g, g.table.keep((offer[0],)), "at least 2")
    deck = list(g.state.ticket_deck)
    g.apply(g.table.keep(tuple(offer[:2])))
    assert g.state.ticket_deck == deck
    assert sorted(g.state.tickets[0]) == offer[:2]


def test_1912_draw_three_keep_one():
    g = start(variant="1912")
    n = len(g.state.ticket_deck)
    g.apply("tickets")
    assert len(g.state.offers[0]) == 3
    assert all("1912" in g.board.tickets[t].logos for t in g.state.offers[0])
    g.apply(g.table.keep((min(g.state.offers[0]),)))
    assert len(g.state.ticket_deck) == n - 1


# ============================================================================ mega
@pytest.mark.parametrize("n", [2, 5])
def test_mega_first_offer_is_the_two_long_tickets_alone(n):
    # step 1 of the deal: 2 long tickets, and no regular ones yet (they were dealt with them before)
    g = tracklayer.new_game("ttr-europe", n, seed=13, variant="mega")
    tix = g.board.tickets
    for offer in g.state.offers:
        assert len(offer) == 2 and len(longs(g, offer)) == 2
    all_regular = regulars(g, pool(g))
    assert len(all_regular) == 89 and len(g.state.ticket_deck) == 89  # all still in the deck
    assert {logo for t in all_regular for logo in tix[t].logos} >= {"europe", "1912"}
    assert not longs(g, g.state.ticket_deck)
    assert g.state.deal_step == 0


def mega_offer(seed=13):
    g = tracklayer.new_game("ttr-europe", 3, seed=seed, variant="mega")
    return g, sorted(g.state.offers[0])


def test_mega_view_shows_no_regular_ticket_before_the_long_choice():
    g, _ = mega_offer()
    nxt = g.state.ticket_deck[-5:]  # the regular tickets the player will be offered next
    for seat in range(3):
        view = g.view(seat)
        text = json.dumps(view)
        assert [t["id"] for t in view["offer"]] == [g.board.tickets[t].id for t in g.state.offers[seat]]
        assert all(t["long"] for t in view["offer"])
        for t in nxt:
            assert g.board.tickets[t].id not in text
        assert [p.get("choosing_tickets") for p in view["players"]] == [2, 2, 2]
    assert g.view(0)["keep_rule"] == {"at_least": 0, "at_most_long": 1}  # the rule, for the chooser only
    assert "keep_rule" not in g.view(1)


def test_mega_keep_one_or_no_long_ticket_never_both():
    g, lg = mega_offer()
    assert legal_texts(g) == ["keep none", *(f"keep {g.board.tickets[t].id}" for t in lg)]
    assert_illegal(g, g.table.keep(tuple(lg)), "at most 1 long ticket")
    assert_illegal(g, "keep all", "at most 1 long ticket")
    assert g.parse("keep none") == g.table.keep(())
    assert g.parse(str(g.table.keep(()))) == g.table.keep(())


def test_mega_second_offer_five_regular_from_the_deck_after_the_long_choice():
    g, lg = mega_offer()
    top5 = g.state.ticket_deck[-5:][::-1]  # dealt from the top
    g.apply(g.table.keep((lg[0],)))
    s = g.state
    assert g.current_player == 0 and g.phase == "initial" and s.deal_step == 1
    assert s.offers[0] == top5 and not longs(g, top5)
    assert s.tickets[0] == [lg[0]]
    assert len(s.ticket_deck) == 89 - 5
    assert all(lg[1] not in x for x in (s.ticket_deck, s.set_aside, *s.offers, *s.tickets))  # to the box
    view1 = g.view(1)
    assert view1["players"][0]["choosing_tickets"] == 5 and view1["players"][0]["tickets"] == 1
    assert view1["log"][-1]["move"] == "keep 1 ticket"


def test_mega_with_a_long_ticket_keep_at_least_two_regular():
    g, lg = mega_offer()
    g.apply(g.table.keep((lg[0],)))
    rg = sorted(g.state.offers[0])
    assert g.view(0)["keep_rule"] == {"at_least": 2, "at_most_long": 0}
    assert_illegal(g, g.table.keep((rg[0],)), "at least 2")
    assert len(g.legal_actions()) == 10 + 10 + 5 + 1
    g.apply(g.table.keep(tuple(rg[:2])))
    assert sorted(g.state.tickets[0]) == sorted([lg[0], *rg[:2]])
    assert g.current_player == 1 and g.state.deal_step == 0 and g.state.offers[1]


def test_mega_without_a_long_ticket_keep_at_least_three_regular():
    g, _ = mega_offer()
    g.apply("keep none")
    assert g.view(1)["log"][-1]["move"] == "keep 0 tickets"
    rg = sorted(g.state.offers[0])
    assert g.view(0)["keep_rule"] == {"at_least": 3, "at_most_long": 0}
    assert_illegal(g, g.table.keep(tuple(rg[:2])), "at least 3")
    assert len(g.legal_actions()) == 10 + 5 + 1
    g.apply(g.table.keep(tuple(rg[:3])))
    assert sorted(g.state.tickets[0]) == rg[:3]


def test_mega_returned_regular_set_aside_long_to_box():
    g, lg = mega_offer()
    g.apply(g.table.keep((lg[0],)))
    rg = sorted(g.state.offers[0])
    deck = list(g.state.ticket_deck)
    g.apply(g.table.keep(tuple(rg[:2])))
    s = g.state
    assert sorted(s.set_aside) == rg[2:]  # out of play until everybody has chosen ...
    assert s.ticket_deck == deck  # ... not under the deck yet
    assert_illegal(g, "tickets", "starting tickets first")  # and nobody can draw tickets meanwhile


def finish_start(g, keep_long=True):
    """Every player chooses: the first long ticket (or none), then the smallest legal set."""
    while g.phase == "initial":
        legal = g.legal_actions()
        if g.state.deal_step == 0 and g.variant.name == "mega":
            g.apply(legal[1] if keep_long else legal[0])
        else:
            g.apply(legal[0])


# ============================================================================ returned starting tickets
@pytest.mark.parametrize(("game", "variant", "n"), [("ttr-europe", "mega", 3), ("ttr-europe", "big-cities", 4),
                                                    ("ttr-new-york", None, 3)])
def test_returned_starting_tickets_are_one_shuffle_of_everybodys_returns(game, variant, n):
    # rules: the returned tickets of all players are shuffled together, then put under the deck, once
    # everybody has chosen (they used to be shuffled per player and lay in seat-order blocks)
    g = tracklayer.new_game(game, n, seed=29, variant=variant)
    s = g.state
    while not (s.initial_pending == [s.current] and s.deal_step == len(g.variant.initial.steps) - 1):
        g.apply(g.legal_actions()[0])
    deck = list(s.ticket_deck)
    keep = g.legal_actions()[0]
    pile = s.set_aside + [t for t in s.offers[s.current] if t not in keep.tickets]
    assert len(s.set_aside) >= n - 1  # the others' returns wait, out of the deck
    rng = Rng(s.rng.state)
    g.apply(keep)
    rng.shuffle(pile)  # one shuffle of everybody's returns ...
    assert s.ticket_deck == pile[::-1] + deck  # ... under the deck
    assert s.set_aside == [] and g.phase == "main"


@pytest.mark.parametrize("variant", ["mega", "big-cities"])
def test_returned_starting_tickets_are_not_in_seat_blocks(variant):
    # 3 players each return 3 tickets: seat-order blocks would put each player's returns together
    blocky = 0
    for seed in range(40):
        g = tracklayer.new_game("ttr-europe", 3, seed=seed, variant=variant)
        returned: dict[int, int] = {}
        while g.phase == "initial":
            s = g.state
            p = s.current
            legal = g.legal_actions()
            keep = legal[1] if (variant == "mega" and s.deal_step == 0) else legal[0]
            for t in s.offers[p]:
                if t not in keep.tickets and not g.board.tickets[t].long:
                    returned[t] = p
            g.apply(keep)
        bottom = g.state.ticket_deck[: len(returned)]
        assert set(bottom) == set(returned)
        seats = [returned[t] for t in bottom]
        if all(seats[i] == seats[i - 1] for i in range(1, len(seats)) if i % 3):
            blocky += 1
    assert blocky <= 2  # a single shuffle of 9 makes 3 blocks of 3 with probability 1/280


def test_mega_draw_three_keep_one():
    g = start(variant="mega")
    g.apply("tickets")
    assert len(g.state.offers[0]) == 3
    assert not longs(g, g.state.offers[0])
    assert_illegal(g, g.table.keep(()), "at least 1")
    g.apply(g.table.keep((g.state.offers[0][0],)))
    assert g.current_player == 1


# ============================================================================ big cities
@pytest.mark.parametrize("n", [2, 5])
def test_big_cities_only_big_city_tickets_no_long(n):
    g = tracklayer.new_game("ttr-europe", n, seed=17, variant="big-cities")
    b = g.board
    everything = pool(g)
    assert len(everything) == 45
    assert all("big-cities" in b.tickets[t].logos for t in everything)
    assert not longs(g, everything)
    assert all(b.tickets[t].a in b.big_cities or b.tickets[t].b in b.big_cities for t in everything)
    assert all(len(o) == 5 for o in g.state.offers)
    assert len(g.state.ticket_deck) == 45 - 5 * n


def test_big_cities_keep_at_least_two_of_five():
    g = tracklayer.new_game("ttr-europe", 3, seed=17, variant="big-cities")
    offer = sorted(g.state.offers[0])
    assert_illegal(g, g.table.keep((offer[0],)), "at least 2")
    assert len(legal_texts(g)) == 10 + 10 + 5 + 1
    deck = list(g.state.ticket_deck)
    g.apply(g.table.keep(tuple(offer[:2])))
    assert sorted(g.state.set_aside) == offer[2:]  # returned: set aside until everybody has chosen
    assert g.state.ticket_deck == deck
    finish_start(g)
    assert sorted(g.state.ticket_deck[:9]) == sorted(set(pool(g)) - set(deck) - {t for ts in g.state.tickets
                                                                                  for t in ts})
    assert g.state.ticket_deck[9:] == deck


def test_big_cities_draw_four_keep_one():
    g = start(variant="big-cities")
    n = len(g.state.ticket_deck)
    top4 = g.state.ticket_deck[-4:]
    g.apply("tickets")
    assert sorted(g.state.offers[0]) == sorted(top4)
    assert len(legal_texts(g)) == 15
    assert_illegal(g, g.table.keep(()), "at least 1")
    keep = min(top4)
    g.apply(g.table.keep((keep,)))
    assert keep in g.state.tickets[0]
    assert len(g.state.ticket_deck) == n - 1
    assert sorted(g.state.ticket_deck[:3]) == sorted(t for t in top4 if t != keep)


def test_big_cities_fewer_than_four_left():
    g = start(variant="big-cities")
    g.state.ticket_deck = g.state.ticket_deck[:2]
    g._legal = None
    g.apply("tickets")
    assert len(g.state.offers[0]) == 2 and g.state.ticket_deck == []


# ============================================================================ bonus tickets
def extra_in_pool(variant: str, deck: str, long: bool = False) -> bool:
    raw = {"a": "Paris", "b": "Wien", "points": 12, "deck": deck, "long": long, "id": "OE01"}
    g = tracklayer.new_game("ttr-europe", 2, seed=19, variant=variant, extra_tickets=[raw])
    x = g.board.ticket_by_id["oe01"]
    assert g.board.tickets[x].points == 12
    # a long bonus ticket joins the long pool (dealt or boxed); a regular one the deck or an offer
    if long:
        return x in g.board.tickets_for(g.variant, ())[0]
    return x in pool(g)


@pytest.mark.parametrize(("variant", "expected"), [("classic", True), ("1912", False), ("mega", True),
                                                    ("big-cities", False)])
def test_extra_ticket_with_europe_logo(variant, expected):
    assert extra_in_pool(variant, "europe") is expected


@pytest.mark.parametrize(("variant", "expected"), [("classic", False), ("1912", True), ("mega", True),
                                                    ("big-cities", False)])
def test_extra_ticket_with_1912_logo(variant, expected):
    assert extra_in_pool(variant, "1912") is expected


@pytest.mark.parametrize(("variant", "expected"), [("classic", False), ("big-cities", True)])
def test_extra_ticket_with_big_cities_logo(variant, expected):
    assert extra_in_pool(variant, "big-cities") is expected


def test_extra_long_ticket_joins_long_pool():
    assert extra_in_pool("classic", "europe", long=True) is True
    assert extra_in_pool("big-cities", "europe", long=True) is False


def test_extra_tickets_tuple_form_counts():
    g = tracklayer.new_game("ttr-europe", 2, seed=19, extra_tickets=[("Paris", "Wien", 12, "europe")])
    assert len(regulars(g, pool(g))) == 41
    assert g.board.tickets[g.board.ticket_by_id["x01"]].logos == ("europe",)


def test_extra_ticket_is_playable():
    g = tracklayer.new_game("ttr-europe", 2, seed=19, extra_tickets=[("Paris", "Wien", 12, "europe")])
    while g.phase == "initial":
        g.apply("keep all")
    x = g.board.ticket_by_id["x01"]
    if x not in g.state.ticket_deck:
        pytest.skip("bonus ticket was dealt")
    g.state.ticket_deck.remove(x)
    g.state.ticket_deck.append(x)
    set_turn(g, 0)
    g.apply("tickets")
    g.apply("keep X01")
    assert x in g.state.tickets[0]
    r = g.result()
    assert any(t["id"] == "X01" and t["points"] == 12 for t in r["players"][0]["tickets"])


@pytest.mark.parametrize(("extra", "match"), [
    (("Paris", "Wien", 12, "orient"), "deck 'orient'"),
    (("Pariss", "Wien", 12, "europe"), "Paris"),
    (("Paris", "Paris", 12, "europe"), "two different cities"),
    (("Paris", "Wien", 0, "europe"), "positive"),
])
def test_extra_ticket_bad_input(extra, match):
    with pytest.raises(IllegalAction, match=match):
        tracklayer.new_game("ttr-europe", 2, seed=19, extra_tickets=[extra])


# ============================================================================ saved games, map data
def test_a_game_saved_before_the_deal_steps_still_loads():
    # files saved before the state gained deal_step/set_aside (and lost market_stuck) replay as before
    g = start(variant="classic")
    for _ in range(6):
        g.apply(g.legal_actions()[0])
    data = g.to_json()
    snap = data["state"]
    del snap["deal_step"], snap["set_aside"]
    snap["market_stuck"] = False
    assert tracklayer.load_game(data).state == g.state


def test_deal_steps_are_checked_when_the_map_is_read():
    from tracklayer.core.errors import MapError
    from tracklayer.ttr.board import _initial_deal

    deal = _initial_deal({"steps": [{"long": 2, "min_keep": 0, "max_keep_long": 1},
                                    {"regular": 5, "min_keep": 2, "min_held": 3}], "returned": "under_shuffled"}, "x")
    assert [s.least(held, 5) for s, held in ((deal.steps[1], 1), (deal.steps[1], 0))] == [2, 3]
    assert (deal.long, deal.regular) == (2, 5)
    inline = _initial_deal({"long": 1, "regular": 3, "min_keep": 2, "max_keep_long": 1, "returned": "box"}, "x")
    assert len(inline.steps) == 1 and inline.steps[0].size == 4
    with pytest.raises(MapError, match="only the first step"):
        _initial_deal({"steps": [{"regular": 2, "min_keep": 1}, {"long": 1, "min_keep": 0}], "returned": "box"}, "x")
    with pytest.raises(MapError, match="at least one starting ticket"):
        _initial_deal({"steps": [{"long": 2, "min_keep": 0}], "returned": "box"}, "x")


def test_a_mega_game_stored_with_the_old_single_deal_is_refused_clearly():
    # before the fix the first Mega choice kept long and regular tickets at once; such a game cannot be
    # replayed (the server shows it as broken, with its log) and the error names the move
    from tracklayer.core.errors import GameDataError

    g = tracklayer.new_game("ttr-europe", 2, seed=13, variant="mega")
    lg = g.state.offers[0][0]
    regular = g.state.ticket_deck[-2:]
    old_move = "keep " + " ".join(g.board.tickets[t].id for t in sorted([lg, *regular]))
    data = {**g.setup(), "moves": [old_move]}
    with pytest.raises(GameDataError, match=r"moves\[0\].*cannot be replayed"):
        tracklayer.load_game(data)
