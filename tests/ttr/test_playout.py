"""The engine's playout for search (``TTRGame.rollout``, ``Rules.playout``) plays exactly the game a loop
over the public API plays with the same choices, and leaves the game it starts from untouched."""

from __future__ import annotations

import random

import pytest

import tracklayer
from tracklayer.core.rng import Rng, seed_state


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
