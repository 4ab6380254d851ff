"""Random-play throughput of the Trans Europa / Trans America engine, on one core.

Every move goes through the public API (``legal_actions()`` then ``apply()``). Two policies:
``uniform`` picks any legal action (rounds then mostly end when the 85 rails run out, and games
rarely reach 13 points, so this row counts rounds); ``guided`` builds towards the mover's own
cities (rounds end by connection, as in real play, and games finish). Every round ends with exact
scoring (one Steiner tree per player), which is included in the figures and also timed alone.

    python benchmarks/trans_random_play.py            # a few seconds per row
    python benchmarks/trans_random_play.py --seconds 10 --only america
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

import tracklayer
from tracklayer.trans.cards import effects_of
from tracklayer.trans.scoring import score_players

ROWS = [(game, n, cards) for game in ("trans-europa", "trans-america") for n in (2, 4, 6)
        for cards in (None, "each-round")]


class Guided:
    """Rails towards the mover's nearest unconnected city; start markers on one's own cities."""

    def __init__(self, board: Any) -> None:
        self.board = board
        self.dist = board.city_distances()

    def __call__(self, g: Any, legal: Any, rnd: random.Random) -> Any:
        s, b = g.state, self.board
        p = s.current
        if s.phase == "start":
            free = [b.cities[c].point for c in s.hands[p] if b.cities[c].point not in s.markers]
            return g.table.start[rnd.choice(free)] if free else legal[rnd.randrange(len(legal))]
        if s.phase != "rails" or rnd.random() < 0.1:
            return legal[rnd.randrange(len(legal))]
        targets = [c for c in s.hands[p] if not s.networks.joined(b.cities[c].point, s.markers[p])]
        rails = [a for a in legal if a.kind == "rail"]
        net, home = s.networks, s.markers[p]
        rails = [a for a in rails if net.joined(b.edge_a[a.line], home) or net.joined(b.edge_b[a.line], home)] or rails
        if not targets or not rails:
            return legal[rnd.randrange(len(legal))]
        dist = self.dist
        return min(rails, key=lambda a: (min(dist[c][x] for c in targets for x in (b.edge_a[a.line], b.edge_b[a.line])),
                                         rnd.random()))


def uniform(g: Any, legal: Any, rnd: random.Random) -> Any:
    return legal[rnd.randrange(len(legal))]


def run(game: str, n: int, cards: Any, policy_name: str, seconds: float) -> dict[str, float]:
    rounds = actions = games = 0
    records: list[tuple[Any, dict[str, Any]]] = []
    start = time.perf_counter()
    seed = 0
    while time.perf_counter() - start < seconds:
        g = tracklayer.new_game(game, n, seed=seed, special_cards=cards)
        policy = Guided(g.board) if policy_name == "guided" else uniform
        rnd = random.Random(seed)
        seed += 1
        while not g.is_over and time.perf_counter() - start < seconds:
            legal = g.legal_actions()
            g.apply(policy(g, legal, rnd))
            actions += 1
        rounds += len(g.state.history)
        games += g.is_over
        records.extend((g, r) for r in g.state.history[:50])
    elapsed = time.perf_counter() - start
    score_ms = []
    for g, rec in records[:300]:
        b = g.board
        fx = effects_of(b, rec["cards"])
        built = [o >= 0 for o in rec["owner"]]
        pts = [[b.cities[c].point for c in hand] for hand in rec["hands"]]
        t0 = time.perf_counter()
        score_players(b.n_points, b.adjacency, fx.line_cost, built, rec["markers"], pts, fx.table)
        score_ms.append((time.perf_counter() - t0) * 1000)
    score_ms.sort()
    return {"rounds/s": rounds / elapsed, "actions/s": actions / elapsed, "games/s": games / elapsed,
            "actions/round": actions / max(rounds, 1),
            "score p50": statistics.median(score_ms) if score_ms else 0.0,
            "score p99": score_ms[min(len(score_ms) - 1, int(len(score_ms) * 0.99))] if score_ms else 0.0}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=2.0, help="time budget per row")
    parser.add_argument("--only", default="", help="only rows whose label contains this text")
    args = parser.parse_args()
    print(f"{'game':<15}{'players':>7}  {'cards':<11}{'policy':<9}{'rounds/s':>9}{'actions/s':>11}{'games/s':>9}"
          f"{'actions/round':>15}{'round scoring ms p50/p99':>27}")
    for game, n, cards in ROWS:
        for policy in ("uniform", "guided"):
            label = f"{game} {n} {cards or 'none'} {policy}"
            if args.only and args.only not in label:
                continue
            r = run(game, n, cards, policy, args.seconds)
            print(f"{game:<15}{n:>7}  {cards or 'none':<11}{policy:<9}{r['rounds/s']:>9.1f}{r['actions/s']:>11.0f}"
                  f"{r['games/s']:>9.2f}{r['actions/round']:>15.1f}{r['score p50']:>18.2f} / {r['score p99']:.2f}")


if __name__ == "__main__":
    main()
