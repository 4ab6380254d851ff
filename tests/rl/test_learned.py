"""The ``learned`` bot: its network ships for 2-player New York, it reads only the seat's view (the same
encoding as the environments), plays whole legal games deterministically, and refuses the games it has no
network for."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tracklayer
from tracklayer.bots import cannot_play, make_bot, play_game
from tracklayer.core.errors import TracklayerError
from tracklayer.rl.learned import LearnedPolicy, _codec, available, save_weights
from tracklayer.rl.ttr_codec import ttr_codec


def test_networks_ship_for_two_player_new_york_and_europe() -> None:
    assert {"ttr-new-york", "ttr-europe"} <= set(available())


@pytest.mark.parametrize("name", ["ttr-europe", "ttr-new-york"])
def test_the_view_gives_the_environments_observation_and_indices(name: str) -> None:
    # the bot sees only the view; the network was trained on the environments' encoding of the game
    for seed in range(2):
        game = tracklayer.new_game(name, 2, seed=seed)
        env_codec = ttr_codec(game)
        view_codec = _codec(name, game.variant.name, 2)
        rnd = random.Random(seed)
        while not game.is_over:
            seat = game.current_player
            legal = game.legal_actions()
            view = game.view(seat)
            assert [view_codec.encode_view(view, a) for a in legal] == [env_codec.encode(game, a) for a in legal]
            assert np.array_equal(view_codec.observe(view), env_codec.observe_game(game, seat))
            game.apply(legal[rnd.randrange(len(legal))])


@pytest.mark.parametrize("name", ["ttr-new-york", "ttr-europe"])
def test_plays_whole_games_deterministically(name: str) -> None:
    def moves(seed: int) -> list[str]:
        log: list[str] = []
        game = tracklayer.new_game(name, 2, seed=seed)
        play_game(game, [make_bot("learned", 1), make_bot("greedy", 2)],
                  on_move=lambda seat, action, _dt: log.append(f"{seat} {action}"))
        result = game.result()
        assert len(result["players"]) == 2 and result["winners"]
        return log

    first = moves(7)
    assert any(m.startswith("0 ") for m in first)
    assert first == moves(7)


def test_refuses_what_it_was_not_trained_for() -> None:
    for name, players, variant in (("ttr-new-york", 4, None), ("ttr-europe", 2, "1912"), ("ttr-europe", 3, None)):
        game = tracklayer.new_game(name, players, seed=0, variant=variant)
        with pytest.raises(TracklayerError, match="plays 2-player ttr-europe, ttr-new-york"):
            make_bot("learned", 0).choose(game.view(game.current_player), game.legal_actions())
    trans = tracklayer.new_game("trans-europa", 2, seed=0)
    with pytest.raises(TracklayerError, match="cannot play 'trans-europa'"):
        make_bot("learned", 0).choose(trans.view(trans.current_player), trans.legal_actions())


def test_numpy_inference_is_the_network(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    weights = {"w0": rng.normal(size=(5, 4)), "b0": rng.normal(size=4), "w1": rng.normal(size=(4, 3)),
               "b1": rng.normal(size=3)}
    save_weights(tmp_path / "net.npz", weights, {"game": "test"})
    policy = LearnedPolicy.load(tmp_path / "net.npz")
    assert policy.meta == {"game": "test"}
    x = rng.normal(size=5).astype(np.float32)
    half = {k: v.astype(np.float16).astype(np.float32) for k, v in weights.items()}
    expected = np.maximum(x @ half["w0"] + half["b0"], 0) @ half["w1"] + half["b1"]
    assert np.allclose(policy.scores(x), expected, atol=1e-5)
    assert policy.best(x, [0, 2]) == [0, 2][int(np.argmax(expected[[0, 2]]))]


def test_the_registry_says_which_games_it_cannot_play() -> None:
    assert cannot_play("learned", "ttr-new-york", None, 2) is None
    assert "not 3-player ttr-new-york" in (cannot_play("learned", "ttr-new-york", None, 3) or "")
    assert "not 2-player ttr-europe-mega" in (cannot_play("learned", "ttr-europe", "mega", 2) or "")
    assert cannot_play("planner", "ttr-europe", "mega", 5) is None
    assert cannot_play("random", "trans-europa", None, 6) is None


def test_a_base_install_without_the_rl_libraries_keeps_its_lobby() -> None:
    """Without gymnasium (``pip install .`` alone) the learned bot is not offered and refused with the reason;
    every other bot and game stays (the lobby must not lose Ticket to Ride because one bot cannot load)."""
    code = (
        "import sys; sys.modules['gymnasium'] = None\n"
        "from tracklayer.bots import cannot_play\n"
        "from tracklayer.server.catalog import catalog\n"
        "games = {g['name']: g for g in catalog()['games']}\n"
        "print('learned' in games['ttr-new-york']['bots'], 'planner' in games['ttr-new-york']['bots'])\n"
        "print(cannot_play('learned', 'ttr-new-york', None, 2))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True).stdout
    offered, reason = out.splitlines()
    assert offered == "False True"
    assert reason.startswith("the learned bot cannot load here: ") and "pip install 'tracklayer[rl]'" in reason


def _prior_choices(name: str, players: int, **mcts: str) -> tuple[int, int, int]:
    """Over the opening of a game (outside the search window), how many of the mcts bot's moves are the
    learned bot's, how many the planner's, and how many positions there were."""
    from tracklayer.bots.ttr_common import Obs
    from tracklayer.bots.ttr_heuristic import HeuristicBot
    from tracklayer.bots.ttr_mcts import MCTSBot

    game = tracklayer.new_game(name, players, seed=11)
    bot, planner = MCTSBot(3, **mcts), HeuristicBot(3, "planner")
    learned = make_bot("learned", 3) if cannot_play("learned", name, None, players) is None else None
    same_learned = same_planner = n = 0
    while not game.is_over:
        view, legal = game.view(game.current_player), game.legal_actions()
        choice = bot.choose(view, legal)
        obs = Obs.from_view(view)
        if obs.phase != "main" or bot.turns_left(obs) > bot.endgame:  # outside the search window
            same_planner += choice == planner.choose(view, legal)
            same_learned += learned is not None and choice == learned.choose(view, legal)
            n += 1
        game.apply(choice)
    return same_learned, same_planner, n


def test_the_expert_builds_on_the_learned_network_where_it_beats_the_planner() -> None:
    """New York (in LEARNED_PRIOR): outside its search window mcts plays the network's move, not the
    planner's; Europe, and New York with more players than the network knows, keep the planner."""
    from tracklayer.bots.ttr_mcts import MCTSBot

    learned, planner, n = _prior_choices("ttr-new-york", 2)
    assert learned == n > planner  # the network and the planner differ on these deals, so this can fail
    for name, players, prior in (("ttr-new-york", 2, "planner"), ("ttr-new-york", 3, "learned"),
                                 ("ttr-europe", 2, "auto")):
        _, planner, n = _prior_choices(name, players, prior=prior)
        assert planner == n > 10
    with pytest.raises(ValueError, match="prior"):
        MCTSBot(0, prior="network")
