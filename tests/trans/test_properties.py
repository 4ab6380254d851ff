"""Invariants of the Trans engine over random games of both boards, 2-6 players, with and without
special cards: conservation, valid results, replay determinism, notation round trips, secrecy of
views, and apply succeeding exactly for legal actions."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tracklayer
from tests.trans.helpers import new, play
from tracklayer.core.errors import IllegalAction
from tracklayer.trans.cards import effects_of

SETUPS = [(game, n, cards) for game in ("trans-europa", "trans-america") for n in (2, 3, 4, 5, 6)
          for cards in (None, "each-round")]
COMBOS = [("trans-europa", 3, [6, 7, 8]), ("trans-europa", 4, [13, 14, 15, 16, 17]), ("trans-europa", 2, [3, 9, 18]),
          ("trans-america", 5, [1, 4, 5, 19]), ("trans-america", 6, {"fixed": [2, 10], "per_round": 3}),
          ("trans-america", 2, [8, 16, 3])]
FAST = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def game_at(setup, seed: int, moves: int, eps: float = 0.3):
    game, n, cards = setup
    g = new(game, n, seed=seed, special_cards=cards)
    return play(g, random.Random(seed), moves=moves, eps=eps)


def check_conservation(g) -> None:
    s, b = g.state, g.board
    cost = g.rules.effects(s).line_cost
    singles = sum(1 for e, o in enumerate(s.owner) if o >= 0 and b.edge_cost[e] == 1)
    doubles = sum(1 for e, o in enumerate(s.owner) if o >= 0 and b.edge_cost[e] == 2)
    # a double line is one rail piece (it uses the turn, not two pieces): pieces = singles + doubles
    assert singles + doubles + s.supply == b.rails, "rail pieces on the board + supply != 85"
    assert s.supply >= 0
    if s.phase == "rails":
        assert s.supply > 0, "a round goes on with an empty supply"
        assert 0 <= s.used <= g.rules.budget(s)
        assert max((cost[e] for e in s.built), default=0) <= 2
        if s.used == 0 and g.rules.rail_turn(s)[2]:  # a pass: only when the budget cannot pay a free double
            assert g.rules.budget(s) < 2, "a player must pass with a budget of 2 or more: a round could stall"
    cards = Counter(c for h in s.hands for c in h) + Counter(c for pile in s.decks for c in pile)
    used = [c for pile in b.cities_for(s.n_players) for c in pile]
    assert cards == Counter(used), "a city card is lost, doubled, or one from the box is in play"
    for pile_col, pile in enumerate(s.decks):
        assert all(b.cities[c].color == pile_col for c in pile)
    if s.phase == "rails":
        assert all(m >= 0 for m in s.markers) and len(set(s.markers)) == s.n_players
        # the networks agree with the built lines
        fresh = type(s.networks).rebuild(b.n_points, [(b.edge_a[e], b.edge_b[e]) for e, o in enumerate(s.owner)
                                                      if o >= 0])
        assert fresh.canonical() == s.networks.canonical()
        # the yes/no question the rules ask after each rail agrees with the full list of options
        for q in range(s.n_players):
            for left in (1, 2, 4):
                assert g.rules.can_extend(s, q, left) == bool(g.rules.rail_candidates(s, q, left))
    # the derived fields are the built lines (in the order placed) and recomputed exactly by resync
    assert sorted(s.built) == [e for e, o in enumerate(s.owner) if o >= 0] and len(set(s.built)) == len(s.built)
    again = g.clone()
    g.rules.resync(again.state)
    assert again.state.built == sorted(s.built)
    assert again.state.networks.canonical() == s.networks.canonical()
    assert again.state == s


@pytest.mark.parametrize("setup", SETUPS + COMBOS, ids=lambda x: str(x))
def test_random_games_conserve_rails_and_cards_and_end_with_valid_results(setup):
    game, n, cards = setup
    g = new(game, n, seed=n, special_cards=cards)
    play(g, random.Random(n), check=check_conservation)
    assert g.is_over and g.current_player is None and g.legal_actions() == []
    res = g.result()
    assert res["final"]
    totals = [p["total"] for p in res["players"]]
    assert max(totals) >= 13
    assert all(max(r["players"][q]["total"] for q in range(n)) < 13 for r in res["rounds"][:-1])
    assert res["winners"] == [p["name"] for p in res["players"] if p["total"] == max(totals)]
    for p in res["players"]:
        assert p["total"] == sum(p["prestige_per_round"])
        assert p["rank"] == 1 + sum(1 for t in totals if t > p["total"])
    for rec, summary in zip(g.state.history, res["rounds"], strict=True):
        table = effects_of(g.board, rec["cards"]).table
        for q in range(n):
            assert rec["connected"][q] == (rec["missing"][q] == 0)
            assert rec["prestige"][q] == table.points(rec["missing"][q])
            line_cost = effects_of(g.board, rec["cards"]).line_cost
            assert sum(line_cost[e] for e in rec["missing_lines"][q]) == rec["missing"][q]
            assert all(rec["owner"][e] < 0 for e in rec["missing_lines"][q])
        assert (rec["ended_by"] == "connected") == any(rec["connected"])
        assert summary["ended_by"] in ("connected", "supply")  # no "blocked" round end: the rules have none
        assert rec["ended_by"] != "supply" or sum(1 for o in rec["owner"] if o >= 0) == g.board.rails


@FAST
@given(setup=st.sampled_from(SETUPS), seed=st.integers(0, 10**6), moves=st.integers(0, 300))
def test_json_round_trip_and_replay_reproduce_the_state(setup, seed, moves):
    game, n, cards = setup
    g = game_at(setup, seed, moves)
    data = json.loads(json.dumps(g.to_json()))
    loaded = tracklayer.load_game(data)
    assert loaded.state == g.state
    assert [str(a) for a in loaded.legal_actions()] == [str(a) for a in g.legal_actions()]
    assert loaded.view(0) == g.view(0)
    replay = new(game, n, seed=seed, special_cards=cards)
    for text in data["moves"]:
        replay.apply(text)
    assert replay.state == g.state
    clone = g.clone()
    if not clone.is_over:
        clone.apply(clone.legal_actions()[0])
        assert loaded.state == g.state  # the clone is independent


@FAST
@given(setup=st.sampled_from(SETUPS), seed=st.integers(0, 10**6), moves=st.integers(0, 300))
def test_notation_round_trips_for_every_legal_action(setup, seed, moves):
    g = game_at(setup, seed, moves)
    for action in g.legal_actions():
        assert g.parse(str(action)) == action


def _known_to(g, seat):
    """City ids the seat may legitimately see named: its hand, open colours, its card movements."""
    s, b = g.state, g.board
    fx = g.rules.effects(s)
    known = set(s.hands[seat]) if seat is not None else set()
    known |= {c for h in s.hands for c in h if b.cities[c].color in fx.reveal}
    if seat is not None:
        known |= {m[3] for m in s.moves if seat in (m[1], m[2])}
    return known


@FAST
@given(setup=st.sampled_from(SETUPS), seed=st.integers(0, 10**6), moves=st.integers(0, 300))
def test_a_view_never_names_another_players_secret_cities(setup, seed, moves):
    g = game_at(setup, seed, moves)
    if g.is_over:
        return
    s, b = g.state, g.board
    public = {c for rec in s.history for h in rec["hands"] for c in h}  # revealed at each round's end
    for seat in [*range(s.n_players), None]:
        text = json.dumps(g.view(seat), ensure_ascii=False)
        known = _known_to(g, seat) | public
        secret = {c for q in range(s.n_players) if q != seat for c in s.hands[q]}
        secret |= {c for pile in s.decks for c in pile}
        secret |= {c for q, c in enumerate(s.pending) if c >= 0 and q != seat}
        for c in secret - known:
            assert f'"{b.cities[c].name}"' not in text, f"seat {seat} sees {b.cities[c].name}"
    spectator = g.view(None)
    assert "cities" not in spectator and "card_moves" not in spectator


def _other_world(g, seat, rnd):
    """Reassign every city the seat cannot know (same colours, same holders) - a world it cannot tell apart."""
    other = g.clone()
    s, b = other.state, other.board
    fx = other.rules.effects(s)
    mine = set(s.hands[seat]) if seat is not None else set()
    for col in range(len(b.colors)):
        if col in fx.reveal:
            continue
        slots = [(q, i) for q in range(s.n_players) for i, c in enumerate(s.hands[q])
                 if b.cities[c].color == col and c not in mine]
        pool = [s.hands[q][i] for q, i in slots] + s.decks[col]
        rnd.shuffle(pool)
        for (q, i), c in zip(slots, pool, strict=False):
            s.hands[q][i] = c
        s.decks[col] = pool[len(slots):]
    rnd.shuffle(s.special_deck)
    return other


@FAST
@given(setup=st.sampled_from(SETUPS), seed=st.integers(0, 10**6), moves=st.integers(0, 300))
def test_a_view_does_not_depend_on_what_the_seat_cannot_know(setup, seed, moves):
    g = game_at(setup, seed, moves)
    if g.is_over or g.phase == "choose" or g.state.moves:
        return  # card movements of special cards make knowledge seat-specific: tested in test_cards
    rnd = random.Random(seed)
    for seat in [*range(g.n_players), None]:
        assert _other_world(g, seat, rnd).view(seat) == g.view(seat)


@FAST
@given(setup=st.sampled_from(SETUPS), seed=st.integers(0, 10**6), moves=st.integers(0, 300),
       donor_moves=st.integers(0, 300))
def test_apply_succeeds_exactly_for_legal_actions_and_illegal_ones_change_nothing(setup, seed, moves, donor_moves):
    g = game_at(setup, seed, moves)
    donor = game_at(setup, seed + 1, donor_moves)
    legal = set(g.legal_actions())
    candidates = list(donor.legal_actions())[:40] + list(g.legal_actions())[:10]
    candidates += [g.table.end, g.table.pass_, g.table.start[0], g.table.give[0], g.table.give_back[1]]
    for action in candidates:
        trial = g.clone()
        before = trial.state.to_dict()
        before_text = json.dumps(before)
        try:
            trial.apply(action)
        except IllegalAction as exc:
            assert str(exc)
            assert json.dumps(trial.state.to_dict()) == before_text
            assert action not in legal
        else:
            assert action in legal


@FAST
@given(setup=st.sampled_from(SETUPS), seed=st.integers(0, 10**6), moves=st.integers(0, 300),
       picks=st.lists(st.integers(0, 10**6), min_size=2, max_size=3))
def test_a_compound_rail_move_equals_its_rails_one_by_one_or_changes_nothing(setup, seed, moves, picks):
    g = game_at(setup, seed, moves)
    if g.phase != "rails":
        return
    rails = [a.line for a in g.legal_actions() if a.kind == "rail"]
    everything = list(range(g.board.n_edges))
    lines = tuple(rails[p % len(rails)] if i == 0 and rails else everything[p % len(everything)]
                  for i, p in enumerate(picks))
    compound = g.table.rails(lines)
    stepwise = g.clone()
    ok = True
    for i, e in enumerate(lines):
        if i and (stepwise.phase != "rails" or stepwise.current_player != g.current_player
                  or stepwise.state.round != g.state.round):
            ok = False
            break
        try:
            stepwise.apply(g.table.rail[e])
        except IllegalAction:
            ok = False
            break
    trial = g.clone()
    before = json.dumps(trial.state.to_dict())
    try:
        trial.apply(compound)
    except IllegalAction:
        assert not ok
        assert json.dumps(trial.state.to_dict()) == before
    else:
        assert ok
        assert trial.state == stepwise.state


def test_same_seed_same_game():
    a = play(new("trans-america", 4, seed=11, special_cards="each-round"), random.Random(3))
    b = play(new("trans-america", 4, seed=11, special_cards="each-round"), random.Random(3))
    assert a.state == b.state and [str(m) for m in a.moves] == [str(m) for m in b.moves]


def test_remembered_hints_are_the_computed_ones():
    """The view's hint is remembered per seat (shared by clones): after every move of a game, on the game
    and on a clone that went its own way, each seat's hint is what ``missing_rails`` computes now."""
    from tracklayer.trans.scoring import missing_rails

    g = new("trans-america", 3, seed=4, special_cards=[4, 5, 18])
    rnd = random.Random(4)

    def check(game) -> None:
        s, b = game.state, game.board
        if s.phase != "rails":
            return
        for seat in range(s.n_players):
            n, lines = missing_rails(b.n_points, b.adjacency, game.rules.effects(s).line_cost,
                                     [o >= 0 for o in s.owner], s.markers[seat], game.rules.city_points(s, seat))
            view = game.view(seat, log_tail=0)
            assert view["missing_rails"] == n and view["missing_lines"] == [b.edge_text(e) for e in lines]

    hits = 0
    while not g.is_over and len(g.moves) < 120:
        check(g)
        other = g.clone()
        if not other.is_over:
            legal = other.legal_actions()
            other.apply(legal[-1])
            check(other)
        hits += len(g._hints)
        check(g)  # the clone's hints did not leak into the game's
        legal = g.legal_actions()
        g.apply(legal[rnd.randrange(len(legal))])
    assert hits
