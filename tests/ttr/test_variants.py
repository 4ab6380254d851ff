"""Ticket to Ride Europe variants: which tickets are used, the starting deal, keeping and returning.

Rules: the variant table of /work/shared/rules/ticket-to-ride-europe.md.
"""

from __future__ import annotations

import pytest

import tracklayer
from tests.ttr.helpers import assert_illegal, legal_texts, set_turn, start
from tracklayer import IllegalAction

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
def test_mega_deal_two_long_five_regular(n):
    g = tracklayer.new_game("ttr-europe", n, seed=13, variant="mega")
    tix = g.board.tickets
    for offer in g.state.offers:
        assert len(longs(g, offer)) == 2 and len(regulars(g, offer)) == 5
    all_regular = regulars(g, pool(g))
    assert len(all_regular) == 89
    assert {logo for t in all_regular for logo in tix[t].logos} >= {"europe", "1912"}
    assert len(g.state.ticket_deck) == 89 - 5 * n
    assert not longs(g, g.state.ticket_deck)


def mega_offer(seed=13):
    g = tracklayer.new_game("ttr-europe", 3, seed=seed, variant="mega")
    offer = g.state.offers[0]
    return g, sorted(longs(g, offer)), sorted(regulars(g, offer))


def test_mega_never_both_long_tickets():
    g, lg, rg = mega_offer()
    assert_illegal(g, g.table.keep(tuple(sorted(lg + rg))), "at most 1 long")
    assert_illegal(g, g.table.keep(tuple(sorted(lg + rg[:2]))), "at most 1 long")
    assert all(len(longs(g, a.tickets)) <= 1 for a in g.legal_actions())


def test_mega_with_a_long_ticket_keep_at_least_two_regular():
    g, lg, rg = mega_offer()
    assert_illegal(g, g.table.keep(tuple(sorted([lg[0], rg[0]]))), "at least 3")
    g.apply(g.table.keep(tuple(sorted([lg[0], *rg[:2]]))))
    assert sorted(g.state.tickets[0]) == sorted([lg[0], *rg[:2]])


def test_mega_without_a_long_ticket_keep_at_least_three_regular():
    g, _, rg = mega_offer()
    assert_illegal(g, g.table.keep(tuple(rg[:2])), "at least 3")
    g.apply(g.table.keep(tuple(rg[:3])))
    assert sorted(g.state.tickets[0]) == rg[:3]


def test_mega_legal_initial_keeps_are_exactly_the_rule():
    g, _, _ = mega_offer()
    got = {a.tickets for a in g.legal_actions()}
    for keep in got:
        n_long = len(longs(g, keep))
        n_reg = len(keep) - n_long
        assert n_long <= 1 and n_reg >= (2 if n_long else 3)
    # count: 0 long -> subsets of 5 with >= 3; 1 long (2 choices) -> subsets of 5 with >= 2
    assert len(got) == (10 + 5 + 1) + 2 * (10 + 10 + 5 + 1)


def test_mega_returned_regular_under_deck_long_to_box():
    g, lg, rg = mega_offer()
    deck = list(g.state.ticket_deck)
    g.apply(g.table.keep(tuple(sorted([lg[0], *rg[:2]]))))
    s = g.state
    returned = rg[2:]
    assert sorted(s.ticket_deck[: len(returned)]) == sorted(returned)  # at the bottom
    assert s.ticket_deck[len(returned):] == deck
    assert lg[1] not in s.ticket_deck  # the returned long ticket goes to the box


def test_mega_returned_regular_are_shuffled():
    patterns = set()
    for seed in range(8):
        g, lg, rg = mega_offer(seed)
        offer = g.state.offers[0]
        g.apply(g.table.keep(tuple(sorted([lg[0], *rg[:2]]))))
        returned = [t for t in offer if t in rg[2:]]  # in the order they were dealt
        bottom = g.state.ticket_deck[:3]
        assert sorted(bottom) == sorted(returned)
        patterns.add(tuple(returned.index(t) for t in bottom))
    # an unshuffled return would put them back in the same relative order every time
    assert len(patterns) > 1


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
    assert sorted(g.state.ticket_deck[:3]) == offer[2:]  # returned under the deck
    assert g.state.ticket_deck[3:] == deck


def test_big_cities_initial_returned_are_shuffled():
    patterns = set()
    for seed in range(8):
        g = tracklayer.new_game("ttr-europe", 2, seed=seed, variant="big-cities")
        offer = list(g.state.offers[0])
        keep = sorted(offer)[:2]
        g.apply(g.table.keep(tuple(keep)))
        returned = [t for t in offer if t not in keep]
        bottom = g.state.ticket_deck[:3]
        assert sorted(bottom) == sorted(returned)
        patterns.add(tuple(returned.index(t) for t in bottom))
    assert len(patterns) > 1


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
