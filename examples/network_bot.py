"""A bot that plays on a tracklayer server over the network, as a bot account (docs/protocol.md,
"Bots over the network").

    python examples/network_bot.py --server http://localhost:8000 --token tlb_… --game ttr-new-york

Its policy (for Ticket to Ride) reads only the legal moves the server sends: it claims the longest
route it can, keeps as many tickets as it is offered, and otherwise draws blind from the deck; in
other games it plays the first legal move. It needs ``tracklayer.client`` alone, no engine.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from tracklayer.client import BotClient, Result


def route_length(move: str) -> int:
    """How many spaces a claim covers, from the cards it spends (``claim A-B with 3 red``)."""
    words = move.split()
    return sum(int(w) for w in words if w.isdigit())


def policy(view: dict[str, Any], legal: list[str]) -> str:
    """The longest claim if any, else keep the most tickets offered, else a blind draw, else the first move."""
    claims = [m for m in legal if m.startswith("claim")]
    if claims:
        return max(claims, key=route_length)
    keeps = [m for m in legal if m.startswith("keep")]
    if keeps:
        return max(keeps, key=lambda m: len(m.split()))
    draws = [m for m in legal if m.startswith("draw")]
    return "draw deck" if "draw deck" in draws else draws[0] if draws else legal[0]


def run(server: str, token: str, game: str, players: int, wait: int, opponent: str | None) -> Result:
    with BotClient(server, token) as client:
        me = client.me()
        if opponent:
            seat = client.create(game, [opponent] * (players - 1))
        else:
            seat = client.quick_play(game, players=players, wait=wait)
        print(f"{me['username']} plays seat {seat.seat} of game {seat.game_id}", file=sys.stderr)
        return client.play(policy, on_illegal="retry")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--server", default="http://localhost:8000")
    ap.add_argument("--token", required=True, help="the bot account's API token (tlb_…)")
    ap.add_argument("--game", default="ttr-new-york")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--wait", type=int, default=30, help="quick play: seconds before the server's bots fill in")
    ap.add_argument("--against", default=None, help="create a game against this server bot instead of quick play")
    args = ap.parse_args(argv)
    result = run(args.server, args.token, args.game, args.players, args.wait, args.against)
    print(f"rank {result.rank}: {result.result.get('winners')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
