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

3. **Learning from results** (``--reinforce N``): the network plays against ``--against`` with moves
   sampled from its softmax over the legal actions; after each batch of games every move it made is
   reinforced by the game's result (1 a win, ½ a shared first place, 0 a loss) less a baseline: the
   running average of results, or (``--baseline value``) a small value network trained alongside that
   predicts the result from the position (REINFORCE with a baseline), with a KL penalty that keeps it
   near the network it started from.
   This is what takes it past its teacher: the imitation stages can only copy the planner.

The weights are saved as float16 ``.npz`` (``tracklayer/bots/data/learned-<map>.npz``), read by
``tracklayer.rl.learned`` with numpy alone: playing needs no torch.

    # the shipped New York network: imitation and two DAgger rounds (the planner before New York's own
    # parameters taught it) ...
    git show e68906c:tracklayer/bots/data/learned-ttr-new-york.npz > imitation.npz
    python examples/train_learned.py --game ttr-new-york --games 3000 --dagger 2 --epochs 8   # how it was made
    # ... then three times 900 batches of 64 games against today's planner, learning from the results
    python examples/train_learned.py --game ttr-new-york --start imitation.npz --reinforce 900 --out step1
    python examples/train_learned.py --game ttr-new-york --start step1/learned-ttr-new-york.npz --seed 2000000 \
        --reinforce 900 --reinforce-seed 1 --out step2
    python examples/train_learned.py --game ttr-new-york --start step2/learned-ttr-new-york.npz --seed 3000000 \
        --reinforce 900 --reinforce-seed 2

``--eval N`` prints the learning curve: after imitation and after each DAgger round, the network plays
N games against each bot of ``--eval-against`` (seats alternating, deals from a seed range no training
game uses) and the win rate is printed with its 95 % Wilson interval.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import tracklayer
from tracklayer.bots import make_bot
from tracklayer.lab.stats import wilson, win_share
from tracklayer.rl.learned import LearnedPolicy, save_weights
from tracklayer.rl.ttr_codec import TTRCodec, ttr_codec

LEAGUE = ("greedy", "routes", "planner")
EVAL_SEEDS = 50_000_000  # offset of the evaluation deals: far from every collection round's seeds
REINFORCE_SEEDS = 69_000_000  # offset of the deals of the results stage (70,000,000 and up by default)


Move = Callable[[Any, TTRCodec, list[Any]], Any]


def play(game_name: str, variant: str | None, seed: int, learner: int, opponent: Any, move: Move) -> float:
    """One 2-player game on deal ``seed``: ``move(game, codec, legal)`` chooses at the ``learner``'s
    seat, the bot ``opponent`` at the other one. Returns the learner's part of the win (lab rule)."""
    game = tracklayer.new_game(game_name, 2, seed=seed, variant=variant)
    codec = ttr_codec(game)
    while not game.is_over:
        seat = game.current_player
        legal = game.legal_actions()
        if seat == learner:
            game.apply(move(game, codec, legal))
        else:
            game.apply(opponent.choose(game.view(seat, log_tail=0), legal))
    return win_share([p["rank"] for p in game.result()["players"]], learner)


def collect(game_name: str, games: int, seed: int, policy: LearnedPolicy | None, beta: float,
            variant: str | None) -> tuple[np.ndarray, list[np.ndarray], np.ndarray]:
    """Samples of the planner's choices at the learner's seat, in games where the learner plays the
    planner's move with probability ``beta`` and the policy's otherwise (``policy`` None: always the planner)."""
    obs_rows: list[np.ndarray] = []
    legal_rows: list[np.ndarray] = []
    labels: list[int] = []
    rng = random.Random(seed)
    for g in range(games):
        teacher = make_bot("planner", seed + g)

        def labelled(game: Any, codec: TTRCodec, legal: list[Any], teacher: Any = teacher) -> Any:
            label = teacher.choose(game.view(game.current_player, log_tail=0), legal)
            if len(legal) > 1:
                indices, _ = codec.legal(game)
                obs = codec.observe_game(game, game.current_player)
                obs_rows.append(obs.astype(np.float16))
                legal_rows.append(np.asarray(indices, dtype=np.int16))
                labels.append(codec.encode(game, label))
                if policy is not None and rng.random() >= beta:
                    label = legal[indices.index(policy.best(obs, indices))]
            return label

        play(game_name, variant, seed + g, g % 2, make_bot(LEAGUE[g // 2 % len(LEAGUE)], seed + g + 1), labelled)
    return np.stack(obs_rows), legal_rows, np.asarray(labels, dtype=np.int64)


def evaluate(game_name: str, variant: str | None, policy: LearnedPolicy, against: str, games: int,
             seed: int) -> float:
    """Share of ``games`` 2-player games the network wins against the bot ``against`` (a shared first
    place counts half), the network in seat 0 and 1 by turns."""

    def best(game: Any, codec: TTRCodec, legal: list[Any]) -> Any:
        if len(legal) == 1:
            return legal[0]
        indices, _ = codec.legal(game)
        return legal[indices.index(policy.best(codec.observe_game(game, game.current_player), indices))]

    return sum(play(game_name, variant, seed + g, g % 2, make_bot(against, seed + g), best)
               for g in range(games)) / games


def report(stage: str, args: argparse.Namespace, weights: dict[str, np.ndarray]) -> None:
    """One point of the learning curve: the network after ``stage`` against each evaluation bot."""
    policy = LearnedPolicy(weights)
    for k, against in enumerate(args.eval_against.split(",")):
        share = evaluate(args.game, args.variant, policy, against, args.eval, args.seed + EVAL_SEEDS + k * args.eval)
        lo, hi = wilson(share * args.eval, args.eval)
        print(f"curve: {stage}: {share:.1%} ({lo:.0%}–{hi:.0%}) of {args.eval} games against {against}", flush=True)


def torch_layers(weights: dict[str, np.ndarray]) -> Any:
    """The network as a torch ``Sequential`` (Linear, ReLU, ..., Linear) holding copies of ``weights``."""
    import torch

    linears = []
    for w, b in LearnedPolicy(weights).layers:
        m = torch.nn.Linear(w.shape[0], w.shape[1])
        m.weight.data = torch.from_numpy(w.T.copy())
        m.bias.data = torch.from_numpy(b.copy())
        linears.append(m)
    return torch.nn.Sequential(*[part for i, m in enumerate(linears)
                                 for part in ([m, torch.nn.ReLU()] if i < len(linears) - 1 else [m])])


def numpy_weights(net: Any) -> dict[str, np.ndarray]:
    """The weights of a torch ``Sequential`` of Linear layers, as :class:`LearnedPolicy` takes them."""
    import torch

    linears = [m for m in net if isinstance(m, torch.nn.Linear)]
    return {f"{kind}{i}": (m.weight.detach().numpy().T.copy() if kind == "w" else m.bias.detach().numpy().copy())
            for i, m in enumerate(linears) for kind in ("w", "b")}


class Sampler:
    """The learner's moves in the results stage: drawn from the network's softmax over the legal actions,
    each one kept (observation, legal indices, position of the pick) for the batch's gradient step."""

    def __init__(self, policy: LearnedPolicy, rng: np.random.Generator) -> None:
        self.policy = policy
        self.rng = rng
        self.obs_rows: list[np.ndarray] = []
        self.legal_rows: list[np.ndarray] = []
        self.picks: list[int] = []

    def __call__(self, game: Any, codec: TTRCodec, legal: list[Any]) -> Any:
        if len(legal) == 1:
            return legal[0]
        indices, _ = codec.legal(game)
        obs = codec.observe_game(game, game.current_player)
        scores = self.policy.scores(obs)[np.asarray(indices)]
        p = np.exp(scores - scores.max())
        k = int(self.rng.choice(len(indices), p=p / p.sum()))
        self.obs_rows.append(obs.astype(np.float32))
        self.legal_rows.append(np.asarray(indices))
        self.picks.append(k)
        return legal[k]


def reinforce(args: argparse.Namespace, weights: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """``args.reinforce`` batches of ``args.batch_games`` games against ``args.against``, each followed by
    one policy-gradient step (see the module doc). Deterministic: one torch thread, seeded deals and
    move sampling."""
    import torch

    torch.set_num_threads(1)  # the sums' order, hence the weights, do not depend on the machine's cores
    start = LearnedPolicy(weights)
    net = torch_layers(weights)
    opt = torch.optim.Adam(net.parameters(), lr=args.reinforce_lr)
    rng = np.random.default_rng(args.reinforce_seed)
    against = args.against.split(",")
    baseline = 0.5
    critic = None
    if args.baseline == "value":  # a small network that predicts the result from the position
        torch.manual_seed(args.reinforce_seed)
        d = start.layers[0][0].shape[0]
        critic = torch.nn.Sequential(torch.nn.Linear(d, 128), torch.nn.ReLU(), torch.nn.Linear(128, 1))
        critic[2].bias.data.fill_(baseline)  # it starts where the running mean starts
        critic_opt = torch.optim.Adam(critic.parameters(), lr=1e-3)
    t0 = time.process_time()
    for it in range(args.reinforce):
        sampler = Sampler(LearnedPolicy(numpy_weights(net)), rng)
        results: list[float] = []
        for g in range(args.batch_games):
            seed = args.seed + REINFORCE_SEEDS + it * args.batch_games + g
            made = len(sampler.picks)
            won = play(args.game, args.variant, seed, g % 2, make_bot(against[g // 2 % len(against)], seed), sampler)
            results += [won] * (len(sampler.picks) - made)
        obs_rows, legal_rows, picks = sampler.obs_rows, sampler.legal_rows, sampler.picks
        result = np.asarray(results, dtype=np.float32)
        x = torch.from_numpy(np.stack(obs_rows))
        target = torch.from_numpy(result)
        if critic is None:
            advantage = target - baseline
        else:
            predicted = critic(x).squeeze(1)
            advantage = target - predicted.detach()
            value_loss = torch.nn.functional.mse_loss(predicted, target)
            critic_opt.zero_grad()
            value_loss.backward()
            critic_opt.step()
        baseline = 0.9 * baseline + 0.1 * float(result.mean())
        logits = net(x)
        mask = torch.zeros_like(logits, dtype=torch.bool)
        for j, idx in enumerate(legal_rows):
            mask[j, torch.from_numpy(idx)] = True
        logp = torch.log_softmax(logits.masked_fill(~mask, -1e9), 1)
        chosen = torch.tensor([int(legal_rows[j][picks[j]]) for j in range(len(picks))])
        with torch.no_grad():
            ref_scores = torch.from_numpy(np.stack([start.scores(o) for o in obs_rows]))
            ref = torch.softmax(ref_scores.masked_fill(~mask, -1e9), 1)
        kl = (ref * (torch.log(ref + 1e-12) - logp)).masked_fill(~mask, 0).sum(1).mean()
        loss = -(advantage * logp[torch.arange(len(picks)), chosen]).mean() + args.reinforce_kl * kl
        opt.zero_grad()
        loss.backward()
        opt.step()
        if it % 50 == 0:
            print(f"  batch {it}: learner's results {float(result.mean()):.2f}, "
                  f"KL to the start {float(kl.detach()):.3f} ({time.process_time() - t0:.0f} s CPU)", flush=True)
        if args.eval and (it + 1) % args.eval_every == 0:
            report(f"reinforce {it + 1}", args, numpy_weights(net))
    return numpy_weights(net)


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
    return numpy_weights(net)


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
    parser.add_argument("--start", type=Path, help="begin from these weights instead of imitation and DAgger")
    parser.add_argument("--reinforce", type=int, default=0, help="batches of the results stage (0: none)")
    parser.add_argument("--batch-games", type=int, default=64, help="games per batch of the results stage")
    parser.add_argument("--against", default="planner", help="the results stage's opponents, comma-separated")
    parser.add_argument("--reinforce-lr", type=float, default=5e-4)
    parser.add_argument("--reinforce-kl", type=float, default=0.02, help="weight of the KL penalty to the start")
    parser.add_argument("--reinforce-seed", type=int, default=0, help="seed of the move sampling")
    parser.add_argument("--eval-every", type=int, default=100, help="results-stage batches between evaluations")
    parser.add_argument("--baseline", choices=("mean", "value"), default="mean",
                        help="what a move's result is measured against: the running mean of results, or a value "
                             "network trained alongside on the positions (the result expected from there)")
    args = parser.parse_args()
    t0 = time.process_time()
    if args.start:
        start = LearnedPolicy.load(args.start)
        weights = start.weights()
        meta: dict[str, Any] = dict(start.meta)
    else:
        weights, meta = imitate(args)
    if args.reinforce:
        weights = reinforce(args, weights)
        stage = {"batches": args.reinforce, "batch_games": args.batch_games, "against": args.against,
                 "lr": args.reinforce_lr, "kl": args.reinforce_kl, "sampling_seed": args.reinforce_seed,
                 **({"baseline": "value"} if args.baseline == "value" else {}),
                 "first_deal": args.seed + REINFORCE_SEEDS}
        meta["reinforce"] = [*meta.get("reinforce", []), stage]  # a run from --start adds to the ones before
    meta["cpu_seconds"] = meta.get("cpu_seconds", 0) + round(time.process_time() - t0)
    name = args.game if args.variant in (None, "classic") else f"{args.game}-{args.variant}"
    path = Path(args.out) / f"learned-{name}.npz"
    save_weights(path, weights, meta)
    print(f"saved {path} ({path.stat().st_size // 1024} KiB), {meta}")


def imitate(args: argparse.Namespace) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """Imitation and DAgger rounds (stages 1 and 2); the weights and what the run was."""
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
    meta = {"game": args.game, "variant": args.variant or "", "players": 2, "obs_size": int(obs.shape[1]),
            "n_actions": n_actions, "samples": len(labels), "games": args.games * (1 + args.dagger),
            "dagger": args.dagger, "seed": args.seed}
    return weights, meta


if __name__ == "__main__":
    main()
