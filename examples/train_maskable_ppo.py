"""Baselines: sb3-contrib's MaskablePPO against ``random`` and ``greedy`` on 2-player Europe and New York.

Standard tools only: ``tracklayer.rl.make_gym(..., observation="flat")`` is a ``Box`` observation that
``MlpPolicy`` takes as is, and ``action_masks()`` is the mask MaskablePPO asks for. For every
(environment, opponent) pair the script trains one model from scratch for ``--timesteps`` learner
moves, then evaluates it on a fixed protocol and prints the win rate with its 95% Wilson interval:

* ``--eval-games`` games (default 200) on engine seeds 1,000,000 + g, g = 0 .. N-1, the same for every
  model and opponent;
* seat rotation: the learner sits in seat g mod 2 (so it starts half of the games);
* the model plays deterministically (the most likely legal action); a win is a sole win after the
  game's tie-break (``info["winner"]`` with one winner), a shared win counts as half.

Needs ``pip install 'tracklayer[sb3]'`` (stable-baselines3, sb3-contrib, torch)::

    python examples/train_maskable_ppo.py                       # the published baselines (docs/bots.md)
    python examples/train_maskable_ppo.py --envs ttr_new_york_v1 --opponents random --timesteps 20000
    python examples/train_maskable_ppo.py --smoke               # a tiny budget: checks that it runs
    python examples/train_maskable_ppo.py --batch-workers 2     # the rows stepped by BatchEnv's 2 workers

``--batch-workers K`` trains on ``BatchEnv(..., workers=K).sb3()`` instead of ``make_vec_env``: the same
``--n-envs`` games with the same seeds (tests/rl/test_sb3_batch.py checks the two give equal steps),
stepped in ``K`` worker processes.
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np

from tracklayer.lab.stats import wilson
from tracklayer.rl import BatchEnv, make_gym

EVAL_SEED0 = 1_000_000


def make_env_fn(name: str, opponent: str, seat: int | str = "random"):
    """A picklable constructor (SB3's vector envs call it; no closure over local state besides its args)."""
    return EnvFactory(name, opponent, seat)


class EnvFactory:
    """``EnvFactory(name, opponent)()`` is a fresh flat-observation environment against ``opponent``."""

    def __init__(self, name: str, opponent: str, seat: int | str = "random") -> None:
        self.name, self.opponent, self.seat = name, opponent, seat

    def __call__(self):
        return make_gym(self.name, opponents=self.opponent, seat=self.seat, observation="flat", bot_log_tail=0)


def evaluate(model, name: str, opponent: str, games: int) -> tuple[float, tuple[float, float], float]:
    """(win rate, Wilson 95% interval, mean final margin) over the fixed protocol in the docstring."""
    wins = 0.0
    margins = []
    envs = {seat: make_gym(name, opponents=opponent, seat=seat, observation="flat", reward="margin")
            for seat in (0, 1)}
    for g in range(games):
        env = envs[g % 2]
        obs, _ = env.reset(seed=EVAL_SEED0 + g)
        done = False
        reward = 0.0
        while not done:
            action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
            obs, reward, term, trunc, _ = env.step(int(action))
            done = term or trunc
        won = env.episode.winners() if env.episode.over else []
        if env.seat in won:
            wins += 1.0 if len(won) == 1 else 0.5
        margins.append(reward)
    lo, hi = wilson(wins, games)
    return wins / games, (lo, hi), float(np.mean(margins))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--envs", default="ttr_europe_v2,ttr_new_york_v1")
    parser.add_argument("--opponents", default="random,greedy")
    parser.add_argument("--timesteps", type=int, default=50_000, help="learner moves of training per model")
    parser.add_argument("--eval-games", type=int, default=200)
    parser.add_argument("--n-envs", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--batch-workers", type=int, default=None, metavar="K",
                        help="step the --n-envs games with BatchEnv in K worker processes (default: make_vec_env)")
    parser.add_argument("--smoke", action="store_true", help="tiny budget: checks that everything runs")
    args = parser.parse_args()
    if args.smoke:
        args.timesteps, args.eval_games, args.n_envs = 256, 4, 2

    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_util import make_vec_env

    torch.set_num_threads(1)
    rows = []
    for name in args.envs.split(","):
        for opponent in args.opponents.split(","):
            t0 = time.perf_counter()
            if args.batch_workers is None:
                vec = make_vec_env(make_env_fn(name, opponent), n_envs=args.n_envs, seed=args.seed)
            else:
                vec = BatchEnv(name, n=args.n_envs, workers=args.batch_workers, opponents=opponent, seat="random",
                               bot_log_tail=0).sb3()
                vec.seed(args.seed)
            n_steps = 64 if args.smoke else 512
            model = MaskablePPO("MlpPolicy", vec, n_steps=n_steps, batch_size=min(256, n_steps * args.n_envs),
                                n_epochs=4, learning_rate=3e-4, gamma=0.999, ent_coef=0.01, seed=args.seed,
                                device="cpu", verbose=0)
            model.learn(total_timesteps=args.timesteps)
            vec.close()
            train_s = time.perf_counter() - t0
            rate, (lo, hi), margin = evaluate(model, name, opponent, args.eval_games)
            rows.append((name, opponent, rate, lo, hi, margin, train_s))
            print(f"{name} vs {opponent}: win rate {rate:.1%} [95% CI {lo:.1%}, {hi:.1%}] over {args.eval_games} "
                  f"games, mean margin {margin:+.1f}; {args.timesteps} training steps in {train_s:.0f} s", flush=True)
    print("\n| environment | opponent | training steps | win rate | 95% CI (Wilson) | mean margin |")
    print("|---|---|---|---|---|---|")
    for name, opponent, rate, lo, hi, margin, _ in rows:
        print(f"| {name} | {opponent} | {args.timesteps:,} | {rate:.1%} | {lo:.1%}–{hi:.1%} | {margin:+.1f} |")


if __name__ == "__main__":
    main()
