"""Learn to beat the random bot at Ticket to Ride with masked policy-gradient (REINFORCE) in numpy.

The policy is linear and masked: for the legal action indices ``L`` of the position,
``p = softmax(W[L] @ obs + b[L])``. One seat learns (``tracklayer.rl.make_gym``) against
``random`` bots; the reward is the final score margin. Everything is numpy on one CPU core: the
default run takes a few minutes and prints the win rate against ``random`` before and after.

    python examples/train_reinforce.py                      # Europe, 2 players, ~3 minutes
    python examples/train_reinforce.py --env ttr_new_york_v1 --minutes 1
    python examples/train_reinforce.py --smoke              # a few episodes: checks that it runs
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from tracklayer.rl import make_gym


class MaskedLinearPolicy:
    """Softmax over the legal actions of ``W @ obs + b`` (only the legal rows are ever computed)."""

    def __init__(self, n_actions: int, obs_size: int, seed: int) -> None:
        self.W = np.zeros((n_actions, obs_size), dtype=np.float32)
        self.b = np.zeros(n_actions, dtype=np.float32)
        self.rng = np.random.default_rng(seed)

    def probs(self, obs: np.ndarray, legal: np.ndarray) -> np.ndarray:
        z = self.W[legal] @ obs + self.b[legal]
        z = np.exp(z - z.max())
        return z / z.sum()

    def act(self, obs: np.ndarray, legal: np.ndarray, greedy: bool = False) -> int:
        p = self.probs(obs, legal)
        return int(np.argmax(p)) if greedy else int(self.rng.choice(len(legal), p=p))


def play(env, policy: MaskedLinearPolicy, seed: int, greedy: bool = False, record: bool = False):
    """One episode; returns (reward, won, trajectory of (obs, legal, choice))."""
    obs, _ = env.reset(seed=seed)
    steps = []
    reward, info = 0.0, {}
    done = False
    while not done:
        x = obs["observation"]
        legal = np.flatnonzero(obs["action_mask"])
        k = policy.act(x, legal, greedy)
        if record:
            steps.append((x, legal, k))
        obs, reward, term, trunc, info = env.step(int(legal[k]))
        done = term or trunc
    return reward, bool(info.get("winner")), steps


def win_rate(env, policy: MaskedLinearPolicy, games: int, seed0: int, greedy: bool) -> float:
    return sum(play(env, policy, seed0 + g, greedy)[1] for g in range(games)) / games


def train(args: argparse.Namespace) -> None:
    env = make_gym(args.env, opponents="random", seat="random", bot_log_tail=0, reward="margin")
    n_actions = env.action_space.n
    obs_size = env.observation_space["observation"].shape[0]
    policy = MaskedLinearPolicy(n_actions, obs_size, seed=args.seed)
    print(f"{args.env}: {n_actions} actions, observation of {obs_size} floats", flush=True)
    eval_games = args.eval_games
    t0 = time.perf_counter()
    before = win_rate(env, policy, eval_games, 10_000, greedy=False)
    print(f"win rate against random before training: {before:.0%} ({eval_games} games, "
          f"{time.perf_counter() - t0:.0f} s)", flush=True)

    baseline = 0.0
    episodes = 0
    deadline = time.perf_counter() + args.minutes * 60
    seed = 0
    while time.perf_counter() < deadline and (args.episodes <= 0 or episodes < args.episodes):
        batch = []
        for _ in range(args.batch):
            reward, _, steps = play(env, policy, seed, record=True)
            seed += 1
            batch.append((reward / args.reward_scale, steps))
        episodes += len(batch)
        returns = np.array([r for r, _ in batch])
        baseline = 0.9 * baseline + 0.1 * returns.mean() if episodes > len(batch) else returns.mean()
        std = returns.std() + 1e-6
        for ret, steps in batch:
            adv = (ret - baseline) / std
            for x, legal, k in steps:
                p = policy.probs(x, legal)
                g = -p
                g[k] += 1.0
                g *= args.lr * adv / len(steps) ** 0.5
                policy.W[legal] += np.outer(g, x)
                policy.b[legal] += g
        if episodes % (args.batch * 10) == 0:
            print(f"  {episodes} episodes, mean margin {returns.mean() * args.reward_scale:+.1f}, "
                  f"{time.perf_counter() - t0:.0f} s", flush=True)
    after_sampled = win_rate(env, policy, eval_games, 10_000, greedy=False)
    after_greedy = win_rate(env, policy, eval_games, 10_000, greedy=True)
    print(f"trained on {episodes} episodes in {time.perf_counter() - t0:.0f} s")
    print(f"win rate against random after training: {after_sampled:.0%} sampled, {after_greedy:.0%} greedy "
          f"(before: {before:.0%})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--env", default="ttr_europe_v2")
    parser.add_argument("--minutes", type=float, default=2.0, help="training time budget")
    parser.add_argument("--episodes", type=int, default=0, help="stop after this many episodes (0: no limit)")
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--reward-scale", type=float, default=50.0)
    parser.add_argument("--eval-games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--smoke", action="store_true", help="a tiny run (for tests)")
    args = parser.parse_args()
    if args.smoke:
        args.episodes, args.batch, args.eval_games = 4, 2, 2
    train(args)


if __name__ == "__main__":
    main()
