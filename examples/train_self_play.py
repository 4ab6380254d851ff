"""Self-play: sb3-contrib's MaskablePPO against a pool of its own frozen snapshots, in subprocesses.

The loop a researcher writes with the standard tools (docs/rl.md, "Opponents and self-play"):

1. ``make_vec_env`` with ``SubprocVecEnv`` over ``make_gym(..., observation="flat", seat="random")``;
   the first opponents are ``--start`` (a bot name, default ``random``), so early games teach something;
2. every generation: ``model.learn(--steps)``, ``pool.add(model)`` (a frozen copy: the model's saved
   bytes), ``vec.env_method("set_opponents", pool)`` (each subprocess holds its own copy of the pool);
   each episode then plays the latest snapshot with probability ``--latest-prob``, otherwise one of the
   last ``--pool-size`` uniformly;
3. after every generation the model is evaluated against fixed bots on the protocol of
   ``train_maskable_ppo.py`` (engine seeds 1,000,000 + g, seat g mod 2, deterministic play, Wilson 95%
   intervals), so generations are comparable.

Needs ``pip install 'tracklayer[sb3]'``::

    python examples/train_self_play.py                                  # New York, 6 generations
    python examples/train_self_play.py --env ttr_europe_v2 --generations 10 --steps 50000
    python examples/train_self_play.py --smoke                          # a tiny budget: checks that it runs
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the baselines script's environments and evaluation

from train_maskable_ppo import EnvFactory, evaluate

from tracklayer.rl import SelfPlayPool


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--env", default="ttr_new_york_v1")
    parser.add_argument("--generations", type=int, default=6)
    parser.add_argument("--steps", type=int, default=20_000, help="learner moves of training per generation")
    parser.add_argument("--start", default="random", help="opponent of the first generation (a bot name)")
    parser.add_argument("--pool-size", type=int, default=8)
    parser.add_argument("--latest-prob", type=float, default=0.5)
    parser.add_argument("--eval", default="random,greedy", help="bots the model is evaluated against")
    parser.add_argument("--eval-games", type=int, default=100)
    parser.add_argument("--n-envs", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--smoke", action="store_true", help="tiny budget: checks that everything runs")
    args = parser.parse_args()
    if args.smoke:
        args.generations, args.steps, args.eval_games, args.n_envs = 2, 128, 2, 2

    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import SubprocVecEnv

    torch.set_num_threads(1)
    vec = make_vec_env(EnvFactory(args.env, args.start), n_envs=args.n_envs, seed=args.seed,
                       vec_env_cls=SubprocVecEnv)
    n_steps = 64 if args.smoke else 512
    model = MaskablePPO("MlpPolicy", vec, n_steps=n_steps, batch_size=min(256, n_steps * args.n_envs), n_epochs=4,
                        learning_rate=3e-4, gamma=0.999, ent_coef=0.01, seed=args.seed, device="cpu", verbose=0)
    pool = SelfPlayPool(size=args.pool_size, latest_prob=args.latest_prob)
    bots = args.eval.split(",")
    print(f"| generation | trained against | {' | '.join(f'vs {b} (95% CI)' for b in bots)} | seconds |")
    print("|---|---|" + "---|" * len(bots) + "---|", flush=True)
    for generation in range(1, args.generations + 1):
        t0 = time.perf_counter()
        against = vec.get_attr("opponent_names")[0][0]
        model.learn(args.steps, reset_num_timesteps=False)
        pool.add(model)
        vec.env_method("set_opponents", pool)  # from the next episode on, in every subprocess
        cells = []
        for bot in bots:
            rate, (lo, hi), _margin = evaluate(model, args.env, bot, args.eval_games)
            cells.append(f"{rate:.1%} ({lo:.1%}–{hi:.1%})")
        print(f"| {generation} | {against} | {' | '.join(cells)} | {time.perf_counter() - t0:.0f} |", flush=True)
    vec.close()


if __name__ == "__main__":
    main()
