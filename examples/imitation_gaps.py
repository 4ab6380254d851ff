"""Where an imitation of the planner parts from it, by kind of move, with and without planner features.

Collects the planner's decisions at the learner's seat (as ``train_learned.py``'s imitation stage does:
the league as opponents), trains the same network on the flat observation alone and on the observation
plus features a seat can compute from its own view with the planner's tools (the routes of the plan for
its tickets; each held ticket's remaining distance and whether the plan has it done or failed), and prints
the held-out agreement with the planner per kind of move (card draws, claims, ticket choices, ...).

    python examples/imitation_gaps.py --games 800
"""

from __future__ import annotations

import argparse
import collections
import importlib.util
from pathlib import Path
from typing import Any

import numpy as np

import tracklayer
from tracklayer.bots import make_bot
from tracklayer.bots.ttr_common import Obs, Planner
from tracklayer.rl.ttr_codec import TTRCodec, ttr_codec


def _recipe() -> Any:
    """``train_learned.py`` beside this file: its game loop, league and trainer."""
    spec = importlib.util.spec_from_file_location("train_learned", Path(__file__).with_name("train_learned.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def plan_features(view: dict[str, Any], n_routes: int, n_tickets: int) -> np.ndarray:
    """The planner's plan (a flag per route) and, per held ticket, its remaining distance / 10 and +1 done,
    -1 failed: all from the seat's view."""
    obs = Obs.from_view(view)
    planner = Planner(obs)
    plan = planner.plan(list(obs.tickets), allow_borrow=False)
    out = np.zeros(n_routes + 2 * n_tickets, dtype=np.float32)
    out[list(plan.routes)] = 1.0
    for t in obs.tickets:
        if t < n_tickets:  # a bonus ticket of a user's own has no slot
            out[n_routes + t] = min(planner.distance(*obs.info.ticket_ends[t]), 30.0) / 10.0
            out[n_routes + n_tickets + t] = 1.0 if t in plan.done else -1.0 if t in plan.failed else 0.0
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="ttr-europe")
    parser.add_argument("--variant", default="classic")
    parser.add_argument("--games", type=int, default=800)
    parser.add_argument("--seed", type=int, default=7_000_000)
    parser.add_argument("--epochs", type=int, default=8)
    args = parser.parse_args()
    recipe = _recipe()
    plain: list[np.ndarray] = []
    featured: list[np.ndarray] = []
    legal_rows: list[np.ndarray] = []
    labels: list[int] = []
    kinds: list[str] = []
    probe = tracklayer.new_game(args.game, 2, seed=args.seed, variant=args.variant)
    n_routes, n_tickets = len(probe.board.routes), len(probe.board.tickets)
    for g in range(args.games):
        teacher = make_bot("planner", args.seed + g)

        def labelled(game: Any, codec: TTRCodec, legal: list[Any], teacher: Any = teacher) -> Any:
            view = game.view(game.current_player, log_tail=0)
            label = teacher.choose(view, legal)
            if len(legal) > 1:
                indices, _ = codec.legal(game)
                obs = codec.observe_game(game, game.current_player)
                plain.append(obs.astype(np.float16))
                featured.append(np.concatenate([obs, plan_features(view, n_routes, n_tickets)]).astype(np.float16))
                legal_rows.append(np.asarray(indices, dtype=np.int16))
                labels.append(codec.encode(game, label))
                kinds.append(type(label).__name__)
            return label

        opponent = make_bot(recipe.LEAGUE[g // 2 % len(recipe.LEAGUE)], args.seed + g + 1)
        recipe.play(args.game, args.variant, args.seed + g, g % 2, opponent, labelled)
    y = np.asarray(labels, dtype=np.int64)
    n_actions = ttr_codec(probe).n_actions
    held = np.random.default_rng(0).permutation(len(y))[: len(y) // 20]  # the trainer's held-out rows (seed 0)
    print(f"{len(y)} samples of {args.games} games")
    for name, rows in (("observation", plain), ("observation + plan features", featured)):
        print(f"{name}:")
        policy = recipe.LearnedPolicy(recipe.train(np.stack(rows), legal_rows, y, n_actions, 256, args.epochs, 0))
        hits: collections.Counter[str] = collections.Counter()
        seen: collections.Counter[str] = collections.Counter()
        for i in held:
            seen[kinds[i]] += 1
            hits[kinds[i]] += int(policy.best(rows[i].astype(np.float32), [int(x) for x in legal_rows[i]]) == y[i])
        print("  agreement by kind: " + ", ".join(f"{k} {hits[k] / seen[k]:.0%} of {seen[k]}"
                                                  for k, _ in seen.most_common()))


if __name__ == "__main__":
    main()
