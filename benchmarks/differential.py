"""Compiled against interpreted: do both builds of the engine play exactly the same games?

Each game is seeded and its moves are chosen by a generator seeded the same way, so both builds face
the same decisions. A game's transcript covers, at every step, the player to move, the phase, the RNG
state and every legal move in order; every few steps a seat's JSON view, observation view and RL
observation (each seat in turn, and the spectator's view) and the action mask; a save and reload in
the middle (the game goes on from the reloaded copy); and at the end the state and the full result.
Each build writes one SHA-256 per game, and the two lists must be equal.

    python benchmarks/differential.py                   # 10,000 games, both builds side by side
    python benchmarks/differential.py --games 200       # what tests/test_native.py runs, in two halves
    python benchmarks/differential.py --trace CASE SEED # one game's transcript, to diff by hand

The cases cover every map and variant, 2 to 6 players, and Trans with one, several and per-round
special cards, so tunnels, ferries, stations, the Mega deal and every card's effect are played. Bots
play a share of the moves, and their decisions are part of the transcript: the Steiner bot in Trans,
and in Ticket to Ride the compiled bots (``planner`` and ``mcts``, with a fixed number of
iterations, in turn for each case, whose search near the end samples worlds, clones them and plays them out).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tracklayer.bots.trans_bots import SteinerBot  # noqa: E402
from tracklayer.bots.ttr_heuristic import HeuristicBot  # noqa: E402
from tracklayer.bots.ttr_mcts import MCTSBot  # noqa: E402

# (game, players, options): cycled through, so any N games cover the cases evenly
CASES: list[tuple[str, int, dict[str, Any]]] = [
    ("ttr-europe", 2, {"variant": "classic"}),
    ("ttr-europe", 4, {"variant": "classic"}),
    ("ttr-europe", 5, {"variant": "1912"}),
    ("ttr-europe", 3, {"variant": "mega"}),
    ("ttr-europe", 4, {"variant": "big-cities"}),
    ("ttr-new-york", 2, {}),
    ("ttr-new-york", 4, {}),
    ("trans-europa", 3, {}),
    ("trans-america", 6, {"special_cards": "each-round"}),
    ("trans-europa", 4, {"special_cards": "each-round"}),
    ("trans-america", 2, {"special_cards": {"fixed": [], "per_round": 3}}),
    ("trans-europa", 5, {"special_cards": {"fixed": [], "per_round": 2}}),
]
VIEW_EVERY = 5  # steps between looks at a seat's views, observation and the mask
BOT_SHARE = {"trans": 0.8, "ttr": 0.5}  # of the moves, per family
MCTS_ITERATIONS = 6  # per searched move: enough to sample, clone and play out several worlds
LOG_TAIL = 12  # moves of the log a view carries (the whole log would make long games quadratic)


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=repr)


def transcript(case: int, seed: int) -> Iterator[str]:
    """The lines that describe one game, in order (see the module docstring)."""
    import numpy as np

    import tracklayer

    game_name, n, options = CASES[case % len(CASES)]
    game = tracklayer.new_game(game_name, n, seed=seed, **options)
    if game_name.startswith("ttr-"):
        from tracklayer.rl.ttr_codec import ttr_codec as codec_for
    else:
        from tracklayer.rl.trans_codec import trans_codec as codec_for  # type: ignore[assignment]
    codec: Any = codec_for(game)
    rnd = random.Random(f"{case}/{seed}")
    # Trans games played at random hardly end (nobody joins their cities): there a Steiner bot plays most moves
    family = "ttr" if game_name.startswith("ttr-") else "trans"
    bot: Any
    if family == "trans":
        bot = SteinerBot(seed=seed)
    elif seed // len(CASES) % 2:
        bot = MCTSBot(seed=seed, iterations=MCTS_ITERATIONS, max_seconds=None)
    else:
        bot = HeuristicBot(seed, "planner")
    reload_at = rnd.randrange(20, 120)
    step = 0
    while not game.is_over:
        legal = game.legal_actions()
        yield f"{step} {game.current_player} {game.phase} {game.state.rng.state} {' | '.join(map(str, legal))}"
        if step % VIEW_EVERY == 0:  # one seat at a time, in turn, and now and then a spectator
            seat = step // VIEW_EVERY % (n + 1)
            if seat < n:
                yield _json(game.view(seat, log_tail=LOG_TAIL))
                yield _json(game.observation_view(seat)._asdict())
                yield hashlib.sha256(np.ascontiguousarray(codec.observe_game(game, seat)).tobytes()).hexdigest()
            else:
                yield _json(game.view(None, log_tail=LOG_TAIL))
            yield hashlib.sha256(np.ascontiguousarray(codec.mask(game)).tobytes()).hexdigest()
            # caches the state derives from its own fields (to_dict leaves them out): the views and codecs key
            # their memos by them, so a build that computed them differently would show only much later
            yield _json(getattr(game.state, "owned", None))
        if step == reload_at:
            saved = json.loads(json.dumps(game.to_json()))
            game = tracklayer.load_game(saved)
            yield "reloaded " + _json(saved["state"])
        if rnd.random() < BOT_SHARE[family]:
            move = bot.choose(game.view(game.current_player, log_tail=0), legal)
            yield f"bot {move}"
            game.apply(move)
        else:
            game.apply(legal[rnd.randrange(len(legal))])
        step += 1
    yield _json(game.state.to_dict())
    yield _json(game.result())


def digest(case: int, seed: int) -> str:
    h = hashlib.sha256()
    for line in transcript(case, seed):
        h.update(line.encode())
        h.update(b"\n")
    return h.hexdigest()


def run_worker(first: int, games: int) -> None:
    """Print one ``case seed digest`` line per game, for the process's own build."""
    import tracklayer

    print(tracklayer.engine_info()["build"], flush=True)
    for k in range(first, first + games):
        print(k % len(CASES), k, digest(k % len(CASES), k), flush=True)


def spawn(build: str, first: int, games: int) -> subprocess.Popen[str]:
    env = dict(os.environ)
    env.pop("TRACKLAYER_INTERPRETED", None)
    if build == "interpreted":
        env["TRACKLAYER_INTERPRETED"] = "1"
    return subprocess.Popen([sys.executable, __file__, "--worker", str(first), str(games)], env=env,
                            stdout=subprocess.PIPE, text=True, cwd=ROOT)


def compare(games: int, first: int = 0, jobs: int = 1, say: Callable[[str], None] = print) -> int:
    """Play ``games`` games in each build (``jobs`` processes per build) and compare; 0 when identical."""
    per = -(-games // jobs)
    runs: dict[str, list[subprocess.Popen[str]]] = {
        build: [spawn(build, first + j * per, min(per, games - j * per)) for j in range(jobs) if j * per < games]
        for build in ("compiled", "interpreted")}
    lines: dict[str, list[str]] = {}
    builds: dict[str, set[str]] = {}
    for build, procs in runs.items():
        out: list[str] = []
        seen: set[str] = set()
        for proc in procs:
            stdout, _ = proc.communicate()
            if proc.returncode:
                say(f"the {build} worker failed (exit {proc.returncode})")
                return 2
            head, *rest = stdout.splitlines()
            seen.add(head)
            out += rest
        lines[build], builds[build] = out, seen
    if builds["compiled"] != {"compiled"}:
        say(f"the compiled build is not compiled here ({', '.join(sorted(builds['compiled']))}): "
            "build it first (pip install -e .)")
        return 2
    if builds["interpreted"] != {"interpreted"}:
        say("the interpreted worker did not run interpreted")
        return 2
    differ = [(a, b) for a, b in zip(lines["compiled"], lines["interpreted"], strict=True) if a != b]
    for a, _ in differ[:10]:
        case, seed, _digest = a.split()
        say(f"DIFFERENT: case {case} {CASES[int(case)]} seed {seed}  (replay: --trace {case} {seed})")
    say(f"{len(lines['compiled'])} games, {len(differ)} different")
    return 1 if differ else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--first", type=int, default=0, help="first game number (seed)")
    parser.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 2) // 2),
                        help="worker processes per build")
    parser.add_argument("--trace", nargs=2, type=int, metavar=("CASE", "SEED"))
    parser.add_argument("--worker", nargs=2, type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        run_worker(*args.worker)
        return
    if args.trace:
        for line in transcript(*args.trace):
            print(line)
        return
    load = os.getloadavg()[0]
    start = time.perf_counter()
    code = compare(args.games, args.first, args.jobs)
    print(f"{time.perf_counter() - start:.1f} s, load average {load:.1f} at the start")
    sys.exit(code)


if __name__ == "__main__":
    main()
