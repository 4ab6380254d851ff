"""Playouts per second: what a search bot can think with, per CPU second.

Two kinds of rows, each on positions of seeded games (the same positions in every build):

* ``random``: from a mid-game position (40 % into a random game), copy the game (``clone()``), play
  uniformly random legal moves to the end through the public API and score it (``result()``): the
  playout of a plain Monte Carlo search.
* ``rollout``: the same playouts inside the engine (``game.rollout(seed)``: a copy of the state played
  to the end with no move log, then scored); an engine without ``rollout`` plays the public-API loop.
* ``mcts``: the ``mcts`` bot's own search (``MCTSBot.search``: determinized worlds sampled from the
  seat's view, each candidate move played out by its fast rollout policy and evaluated) on positions
  where it searches (its own main-phase turns near the end of games the planner plays), with a fixed
  iteration budget; a playout is one candidate played out in one world.

Prints playouts per CPU second. By default each row runs in the compiled and in the interpreted build
side by side (see ``benchmarks/builds.py``; ``--against DIR`` adds another checkout's engine).

    python benchmarks/playouts.py
    python benchmarks/playouts.py --builds this --seconds 10
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import builds
from random_play import play_out

import tracklayer

ROWS = [("random", "ttr-europe", 2), ("random", "ttr-europe", 4), ("random", "ttr-new-york", 2),
        ("rollout", "ttr-europe", 2), ("rollout", "ttr-europe", 4), ("rollout", "ttr-new-york", 2),
        ("mcts", "ttr-europe", 2), ("mcts", "ttr-new-york", 2)]
SEARCH_ITERATIONS = 96


def _label(kind: str, game: str, n: int) -> str:
    return f"{kind} {game} {n}"


def random_position(game: str, n: int, seed: int) -> Any:
    """A position 40 % into a seeded random game (the same game played twice: to learn its length, and
    to stop there)."""
    g = tracklayer.new_game(game, n, seed=seed)
    play_out(g, random.Random(seed))
    moves = g.moves
    g = tracklayer.new_game(game, n, seed=seed)
    for move in moves[:len(moves) * 2 // 5]:
        g.apply(move)
    return g


def random_playout(position: Any, seed: int) -> None:
    g = position.clone()
    play_out(g, random.Random(seed))
    g.result()


def engine_rollout(position: Any, seed: int) -> None:
    if hasattr(position, "rollout"):
        position.rollout(seed)
    else:
        random_playout(position, seed)


def search_positions(game: str, n: int, seed: int, bot: Any) -> list[tuple[dict[str, Any], list[Any]]]:
    """The positions of one planner-played game where the ``mcts`` bot would search: (view, legal)."""
    from tracklayer.bots import make_bot
    from tracklayer.bots.ttr_common import Obs

    players = [make_bot("planner", seed=f"{seed}/{p}") for p in range(n)]
    g = tracklayer.new_game(game, n, seed=seed)
    found = []

    while not g.is_over:
        p = g.current_player
        view = g.view(p)  # what a bot is given: the whole public log (its world sampler reads it)
        legal = g.legal_actions()
        if g.phase == "main" and len(legal) > 1 and bot.turns_left(Obs.from_view(view)) <= bot.endgame:
            obs = Obs.from_view(view)
            if len(candidates(bot, view, obs, legal)) > 1:
                found.append((view, list(legal)))
        g.apply(players[p].choose(view, legal))
    return found


def candidates(bot: Any, view: dict[str, Any], obs: Any, legal: list[Any]) -> list[Any]:
    """The search's candidates at a position, starting from the prior's move (a checkout from before
    the prior, ``--against``, takes no such move)."""
    from tracklayer.bots.ttr_heuristic import Moves

    moves = Moves(legal)
    if hasattr(bot, "first_choice"):
        return list(bot.candidates(obs, moves, legal, bot.first_choice(view, obs, moves, legal)))
    return list(bot.candidates(obs, moves, legal))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    builds.add_arguments(parser)
    args = parser.parse_args()
    labels = [_label(*row) for row in ROWS if args.only in _label(*row)]
    if args.builds == "both":
        builds.side_by_side(__file__, labels, ["--seconds", str(args.seconds)], "playouts_per_s",
                            "playouts per CPU second", higher_is_better=True, against=args.against)
        return
    from tracklayer.bots.ttr_common import Obs
    from tracklayer.bots.ttr_mcts import MCTSBot

    print(f"engine: {tracklayer.engine_info()['build']}")
    print(f"{'row':<28}{'playouts':>10}{'playouts/s (CPU)':>18}{'ms per playout':>16}")
    for kind, game, n in ROWS:
        label = _label(kind, game, n)
        if label not in labels:
            continue
        playouts = 0
        cpu = 0.0
        seed = 0
        while cpu < args.seconds:
            if kind in ("random", "rollout"):
                position = random_position(game, n, seed)
                play = random_playout if kind == "random" else engine_rollout
                start = time.process_time()
                for k in range(8):
                    play(position, k)
                cpu += time.process_time() - start
                playouts += 8
            else:
                bot = MCTSBot(seed=seed, max_seconds=None)
                for view, legal in search_positions(game, n, seed, bot)[:4]:
                    obs = Obs.from_view(view)
                    cands = candidates(bot, view, obs, legal)
                    start = time.process_time()
                    bot.search(obs, cands, SEARCH_ITERATIONS, None)
                    cpu += time.process_time() - start
                    playouts += sum(count for _, count, _ in bot.last_stats)
            seed += 1
        print(f"{label:<28}{playouts:>10}{playouts / cpu:>18,.0f}{cpu / playouts * 1000:>16.2f}")
        builds.report(label, playouts_per_s=playouts / cpu)


if __name__ == "__main__":
    main()
