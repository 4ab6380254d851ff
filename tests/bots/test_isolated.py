"""Bots in processes of their own (tracklayer.bots.isolated): a bot from outside the project cannot reach
the game through the call stack wherever bots run (play_game, the lab, the RL opponents), and plays the
same moves as in the caller's process."""

from __future__ import annotations

import numpy as np
import pytest

import tracklayer
from tracklayer.bots import check_bot, make_bot, play_game
from tracklayer.bots.isolated import IsolatedBot
from tracklayer.core.errors import TracklayerError
from tracklayer.lab import simulate

PEEK = "tests.bots.peeking:PeekingBot"


def test_in_the_callers_process_a_bot_can_read_the_deck() -> None:
    """The reason for isolation: the same bot, asked to run in-process, reaches the game object."""
    game = tracklayer.new_game("ttr-new-york", ["a", "b"], seed=5)
    with pytest.raises(RuntimeError, match="peeked at the deck"):
        play_game(game, [make_bot(PEEK, 1, isolate=False), make_bot("random", 2)])


def test_an_outside_bot_is_isolated_by_default_and_finds_nothing() -> None:
    bot = make_bot(PEEK, 1)
    assert isinstance(bot, IsolatedBot)
    game = tracklayer.new_game("ttr-new-york", ["a", "b"], seed=5)
    play_game(game, [bot, make_bot("random", 2)])  # a peek would raise here, from its process
    assert game.is_over
    bot.close()


@pytest.mark.parametrize("game_name", ["ttr-europe", "trans-europa"])
def test_an_isolated_bot_plays_the_same_game_as_in_process(game_name: str) -> None:
    games = []
    for isolate in (False, True):
        game = tracklayer.new_game(game_name, ["a", "b"], seed=11)
        bots = [make_bot("greedy", "g", isolate=isolate), make_bot("random", "r", isolate=isolate)]
        play_game(game, bots)
        games.append(([str(m) for m in game.moves], game.result()["players"]))
    assert games[0] == games[1]


def test_the_lab_isolates_outside_bots_and_can_isolate_all() -> None:
    out = simulate("ttr-new-york", [PEEK, "random"], 2, seed=3, plots=False)
    assert out["summary"][PEEK]["games"] == 2
    with pytest.raises(RuntimeError, match="peeked at the deck"):
        simulate("ttr-new-york", [PEEK, "random"], 1, seed=3, plots=False, isolate_bots=False)
    both = simulate("ttr-new-york", ["greedy", "random"], 2, seed=3, plots=False, isolate_bots=True)
    same = simulate("ttr-new-york", ["greedy", "random"], 2, seed=3, plots=False)
    assert [g["seats"] for g in both["games"]] != [] and [
        [(s["bot"], s["total"]) for s in g["seats"]] for g in both["games"]
    ] == [[(s["bot"], s["total"]) for s in g["seats"]] for g in same["games"]]
    assert both["meta"]["isolate_bots"] is True


def test_an_rl_opponent_from_outside_the_project_is_isolated() -> None:
    from tracklayer.rl import make_gym

    env = make_gym("ttr_new_york_v1", opponents=PEEK)
    env.reset(seed=4)
    done = False
    while not done:  # the opponent's peek would raise from its process
        action = int(np.flatnonzero(env.action_masks())[0])
        _obs, _reward, terminated, truncated, _info = env.step(action)
        done = terminated or truncated
    env.close()


def test_bad_outside_bots_are_refused_by_name() -> None:
    with pytest.raises(TracklayerError, match=r"unknown bot 'nosuch'.*package\.module:factory"):
        check_bot("nosuch")
    with pytest.raises(TracklayerError, match=r"cannot load 'Bot' from 'tests\.bots\.nowhere'"):
        make_bot("tests.bots.nowhere:Bot", 1, isolate=False)
    with pytest.raises(TracklayerError, match="failed in its process"):
        make_bot("tests.bots.nowhere:Bot", 1)  # in its own process, the same refusal comes back
    with pytest.raises(TracklayerError, match="not a factory"):
        make_bot("tests.bots.peeking:NOT_A_FACTORY", 1, isolate=False)
    bot = make_bot("tests.bots.peeking:MadeUpMoveBot", 1)
    game = tracklayer.new_game("ttr-new-york", ["a", "b"], seed=5)
    with pytest.raises(TracklayerError, match="not one of the legal moves"):
        bot.choose(game.view(0), game.legal_actions())
