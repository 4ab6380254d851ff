"""The engine's playout for search (``TTRGame.rollout``, ``Rules.playout``) plays exactly the game a loop
over the public API plays with the same choices, and leaves the game it starts from untouched."""

from __future__ import annotations

import random

import pytest

import tracklayer
from tracklayer.core.rng import Rng, seed_state
from tracklayer.ttr.scoring import TrailLengths


@pytest.mark.parametrize(("game", "n", "variant", "seed"), [
    ("ttr-europe", 2, "classic", 1), ("ttr-europe", 4, "classic", 2), ("ttr-europe", 3, "mega", 3),
    ("ttr-europe", 5, "1912", 4), ("ttr-new-york", 2, None, 5), ("ttr-new-york", 4, None, 6)])
def test_rollout_plays_the_public_api_game_and_leaves_the_game_alone(game: str, n: int, variant: str | None,
                                                                    seed: int) -> None:
    g = tracklayer.new_game(game, n, seed=seed, variant=variant)
    rnd = random.Random(seed)
    for _ in range(30):
        legal = g.legal_actions()
        g.apply(legal[rnd.randrange(len(legal))])
    before = g.state.to_dict()
    totals = g.rollout(seed=99)
    assert g.state.to_dict() == before and not g.is_over
    # the same choices through the public API, on a copy
    copy = g.clone()
    rng = Rng(seed_state(99))
    while not copy.is_over:
        legal = copy.legal_actions()
        copy.apply(legal[rng.below(len(legal))])
    assert totals == [p["total"] for p in copy.result()["players"]]
    s = g.state.clone()
    played = g.rules.playout(s, Rng(seed_state(99)), 10_000)
    assert s.to_dict() == copy.state.to_dict() and played == len(copy.moves) - len(g.moves)


def test_a_playout_stops_at_its_limit() -> None:
    g = tracklayer.new_game("ttr-europe", 3, seed=7)
    s = g.state.clone()
    assert g.rules.playout(s, Rng(1), 25) == 25
    assert s.phase != "over" and s.turn > 0


@pytest.mark.parametrize(("game", "n", "variant"), [
    ("ttr-europe", 2, "classic"), ("ttr-europe", 4, "1912"), ("ttr-europe", 3, "mega"),
    ("ttr-europe", 5, "big-cities"), ("ttr-new-york", 2, None), ("ttr-new-york", 4, None)])
def test_final_totals_are_the_totals_of_the_breakdown(game: str, n: int, variant: str | None) -> None:
    """A search scores its playouts with ``final_totals`` (no names, no lists): the same numbers as
    ``result()``, finished or not, stations, the European Express and attractions included, with the
    trail lengths computed or asked of a search's memo (``TrailLengths``)."""
    checked = stations = 0
    for seed in range(12):
        g = tracklayer.new_game(game, n, seed=seed, variant=variant)
        memo = TrailLengths(g.board)
        rnd = random.Random(seed)
        while not g.is_over:
            legal = g.legal_actions()
            g.apply(legal[rnd.randrange(len(legal))])
            if len(g.moves) % 37 == 0 or g.is_over:
                totals = [p["total"] for p in g.result()["players"]]
                assert g.final_totals() == totals
                assert g.final_totals(memo) == totals
                assert g.final_totals(memo) == totals  # now every length from the memo
                checked += 1
        stations += sum(o >= 0 for o in g.state.station_owner)
    assert checked >= 12 * 2  # the end of every game and positions on the way
    assert (stations > 0) == (game == "ttr-europe")  # random play builds stations where there are any
