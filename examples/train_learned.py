"""Train the ``learned`` bot: a policy network that imitates the planner, then learns from its own games.

The network reads the environment's flat observation (``TTRCodec.observe``) and scores every action
index; the bot plays the legal action with the highest score. Training has two stages:

1. **Imitation** (behaviour cloning): the planner (Hard) plays 2-player games against a league of the
   project's bots (greedy, routes, planner); every planner decision is a sample (observation, legal
   indices, the planner's index) and the network learns to pick the planner's move (cross-entropy over
   the legal actions only).
2. **DAgger rounds**: the network itself plays against the league, the planner labels the positions
   the network reaches (what it would have played there), and the network trains on everything
   collected so far. A cloned policy drifts into positions its teacher never reaches; these rounds
   teach it what to do there.

The weights are saved as float16 ``.npz`` (``tracklayer/bots/data/learned-<map>.npz``), read by
``tracklayer.rl.learned`` with numpy alone: playing needs no torch.

    python examples/train_learned.py --game ttr-new-york --games 3000 --dagger 2 --epochs 8   # the shipped network

``--eval N`` prints the learning curve: after imitation and after each DAgger round, the network plays
N games against each bot of ``--eval-against`` (seats alternating, deals from a seed range no training
game uses) and the win rate is printed with its 95 % Wilson interval.
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path
from typing import Any

import numpy as np

import tracklayer
from tracklayer.bots import make_bot
from tracklayer.lab.stats import wilson
from tracklayer.rl.learned import LearnedPolicy, save_weights
from tracklayer.rl.ttr_codec import ttr_codec

LEAGUE = ("greedy", "routes", "planner")
EVAL_SEEDS = 50_000_000  # offset of the evaluation deals: far from every collection round's seeds


def collect(game_name: str, games: int, seed: int, policy: LearnedPolicy | None, beta: float,
            variant: str | None) -> tuple[np.ndarray, list[np.ndarray], np.ndarray]:
    """Samples of the planner's choices at the learner's seat, in games where the learner plays the
    planner's move with probability ``beta`` and the policy's otherwise (``policy`` None: always the planner)."""
    obs_rows: list[np.ndarray] = []
    legal_rows: list[np.ndarray] = []
    labels: list[int] = []
    rng = random.Random(seed)
    for g in range(games):
        game = tracklayer.new_game(game_name, 2, seed=seed + g, variant=variant)
        codec = ttr_codec(game)
        learner = g % 2
        teacher = make_bot("planner", seed + g)
        opponent = make_bot(LEAGUE[g // 2 % len(LEAGUE)], seed + g + 1)
        while not game.is_over:
            seat = game.current_player
            legal = game.legal_actions()
            view = game.view(seat, log_tail=0)
            if seat != learner:
                game.apply(opponent.choose(view, legal))
                continue
            label = teacher.choose(view, legal)
            if len(legal) > 1:
                indices, _ = codec.legal(game)
                obs = codec.observe_game(game, seat)
                obs_rows.append(obs.astype(np.float16))
                legal_rows.append(np.asarray(indices, dtype=np.int16))
                labels.append(codec.encode(game, label))
                if policy is not None and rng.random() >= beta:
                    label = legal[indices.index(policy.best(obs, indices))]
            game.apply(label)
    return np.stack(obs_rows), legal_rows, np.asarray(labels, dtype=np.int64)


def evaluate(game_name: str, variant: str | None, policy: LearnedPolicy, against: str, games: int,
             seed: int) -> float:
    """Share of ``games`` 2-player games the network wins against the bot ``against`` (a shared first
    place counts half), the network in seat 0 and 1 by turns."""
    won = 0.0
    for g in range(games):
        game = tracklayer.new_game(game_name, 2, seed=seed + g, variant=variant)
        codec = ttr_codec(game)
        learner = g % 2
        opponent = make_bot(against, seed + g)
        while not game.is_over:
            seat = game.current_player
            legal = game.legal_actions()
            if seat != learner:
                game.apply(opponent.choose(game.view(seat, log_tail=0), legal))
            elif len(legal) == 1:
                game.apply(legal[0])
            else:
                indices, _ = codec.legal(game)
                game.apply(legal[indices.index(policy.best(codec.observe_game(game, seat), indices))])
        ranks = [p["rank"] for p in game.result()["players"]]
        if ranks[learner] == 1:
            won += 1.0 if ranks.count(1) == 1 else 0.5
    return won / games


def report(stage: str, args: argparse.Namespace, weights: dict[str, np.ndarray]) -> None:
    """One point of the learning curve: the network after ``stage`` against each evaluation bot."""
    policy = LearnedPolicy(weights)
    for k, against in enumerate(args.eval_against.split(",")):
        share = evaluate(args.game, args.variant, policy, against, args.eval, args.seed + EVAL_SEEDS + k * args.eval)
        lo, hi = wilson(share * args.eval, args.eval)
        print(f"curve: {stage}: {share:.1%} ({lo:.0%}–{hi:.0%}) of {args.eval} games against {against}", flush=True)


def train(obs: np.ndarray, legal: list[np.ndarray], labels: np.ndarray, n_actions: int, hidden: int,
          epochs: int, seed: int, batch: int = 256) -> dict[str, np.ndarray]:
    """Cross-entropy of the planner's index among the legal ones (torch, CPU)."""
    import torch

    torch.manual_seed(seed)
    d = obs.shape[1]
    net = torch.nn.Sequential(torch.nn.Linear(d, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, hidden),
                              torch.nn.ReLU(), torch.nn.Linear(hidden, n_actions))
    opt = torch.optim.Adam(net.parameters(), lr=1e-3 * (batch / 256) ** 0.5)
    x_all = torch.from_numpy(obs.astype(np.float32))
    y_all = torch.from_numpy(labels)
    mask_all = torch.zeros((len(labels), n_actions), dtype=torch.bool)
    for i, idx in enumerate(legal):
        mask_all[i, torch.from_numpy(idx.astype(np.int64))] = True
    n = len(labels)
    order = np.random.default_rng(seed).permutation(n)
    hold = order[: n // 20]  # 5% held out: the accuracy printed is on positions never trained on
    fit = order[n // 20:]
    for epoch in range(epochs):
        net.train()
        perm = np.random.default_rng(seed + epoch).permutation(fit)
        total = 0.0
        for k in range(0, len(perm), batch):
            b = torch.from_numpy(perm[k:k + batch])
            logits = net(x_all[b]).masked_fill(~mask_all[b], -1e9)
            loss = torch.nn.functional.cross_entropy(logits, y_all[b])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(b)
        net.eval()
        with torch.no_grad():
            h = torch.from_numpy(hold)
            pred = net(x_all[h]).masked_fill(~mask_all[h], -1e9).argmax(1)
            acc = float((pred == y_all[h]).float().mean())
        print(f"  epoch {epoch + 1}: loss {total / len(fit):.3f}, held-out agreement with the planner {acc:.1%}",
              flush=True)
    layers = [m for m in net if isinstance(m, torch.nn.Linear)]
    return {f"{kind}{i}": (m.weight.detach().numpy().T if kind == "w" else m.bias.detach().numpy())
            for i, m in enumerate(layers) for kind in ("w", "b")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="ttr-europe")
    parser.add_argument("--variant", default=None)
    parser.add_argument("--games", type=int, default=600, help="games per collection round")
    parser.add_argument("--dagger", type=int, default=2, help="DAgger rounds after imitation")
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--seed", type=int, default=1_000_000)
    parser.add_argument("--out", default="tracklayer/bots/data")
    parser.add_argument("--eval", type=int, default=0, help="games per evaluation bot after each stage (0: none)")
    parser.add_argument("--eval-against", default="greedy,planner", help="the evaluation bots, comma-separated")
    args = parser.parse_args()
    probe = tracklayer.new_game(args.game, 2, seed=0, variant=args.variant)
    n_actions = ttr_codec(probe).n_actions
    t0 = time.process_time()
    obs, legal, labels = collect(args.game, args.games, args.seed, None, 1.0, args.variant)
    print(f"imitation: {len(labels)} planner decisions from {args.games} games ({time.process_time() - t0:.0f} s CPU)")
    weights = train(obs, legal, labels, n_actions, args.hidden, args.epochs, args.seed, args.batch)
    if args.eval:
        report("imitation", args, weights)
    for r in range(args.dagger):
        policy = LearnedPolicy(weights)
        more = collect(args.game, args.games, args.seed + 100_000 * (r + 1), policy, 0.0, args.variant)
        obs = np.concatenate([obs, more[0]])
        legal += more[1]
        labels = np.concatenate([labels, more[2]])
        print(f"DAgger round {r + 1}: {len(more[2])} positions of the network's own games, {len(labels)} in all "
              f"({time.process_time() - t0:.0f} s CPU)")
        weights = train(obs, legal, labels, n_actions, args.hidden, args.epochs, args.seed + r + 1, args.batch)
        if args.eval:
            report(f"DAgger round {r + 1}", args, weights)
    name = args.game if args.variant in (None, "classic") else f"{args.game}-{args.variant}"
    path = Path(args.out) / f"learned-{name}.npz"
    meta: dict[str, Any] = {"game": args.game, "variant": args.variant or "", "players": 2,
                            "obs_size": int(obs.shape[1]), "n_actions": n_actions, "samples": len(labels),
                            "games": args.games * (1 + args.dagger), "dagger": args.dagger, "seed": args.seed,
                            "cpu_seconds": round(time.process_time() - t0)}
    save_weights(path, weights, meta)
    print(f"saved {path} ({path.stat().st_size // 1024} KiB), {meta}")


if __name__ == "__main__":
    main()
