"""Environment steps per second per core for every tracklayer.rl environment.

A step is one agent move through the PettingZoo AEC API exactly as a learner drives it:
``last()`` (the observation of the seat plus the action mask) then ``step(index)`` with a uniformly
random legal index. The agent reads the int8 mask as bool (numpy finds the legal indices of a bool
array about ten times faster; the agent's cost is not the environment's). Time is CPU time of this
process (per core, so the figure is not diluted by other load on the machine); wall-clock steps/s
are printed beside it. The ``BatchEnv`` rows step 64 or 256 games per call against ``random``
opponents, in this process and (64) sharded over worker processes (``workers=2``, and one per CPU if
that is another number), beside the one-game Gymnasium figure (``gym vs random``): their learner steps
are counted per game (64 a call). With workers only the wall-clock figure measures speed; their CPU
column is steps per CPU second of all the processes together (this one and the workers, read from
``/proc``: the cost, overhead included, not the speed), and they run for the given seconds of wall
time. The load average is printed first: on a shared machine wall figures are only as good as it.
``--breakdown`` splits the cost of a step into its parts on positions of random games (2-player
Europe and New York, 2-player Trans Europa, 4-player Trans America with special cards): the parts
the environments use (``codec.mask`` on a fresh position, the observation: ``observe_game`` for Ticket
to Ride, ``observation_view`` + ``observe_compact`` for Trans, ``apply``) and the reference paths they
are tested against (``codec.legal``, ``view`` + ``observe``).

With ``--builds both`` every row runs in the compiled and in the interpreted build side by side (see
``benchmarks/builds.py``) and the table gives CPU steps/s in each and the speed-up.

    python benchmarks/env_steps.py                 # a few seconds per row
    python benchmarks/env_steps.py --seconds 10 --breakdown
    python benchmarks/env_steps.py --builds both --only "aec raw"
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import sys
import time
from pathlib import Path

# Stepping never calls BLAS, but OpenBLAS's idle worker threads spin for a while after numpy starts them
# and their CPU time would count in this process's time (about 1.5 % of a row): one thread, unless set.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import builds

import tracklayer
from tracklayer.rl import BatchEnv, make_env, make_gym, make_raw_env

ROWS = [
    ("ttr_europe_v2", {"players": 2}),
    ("ttr_europe_v2", {"players": 2, "history": 8}),
    ("ttr_europe_v2", {"players": 4}),
    ("ttr_europe_v2", {"players": 3, "variant": "mega"}),
    ("ttr_new_york_v1", {"players": 2}),
    ("ttr_new_york_v1", {"players": 4}),
    ("trans_europa_v1", {"players": 2}),
    ("trans_america_v1", {"players": 4, "special_cards": "each-round"}),
]


def aec_rate(env, seconds: float) -> tuple[float, float, int]:
    """(steps per CPU second, steps per wall second, episodes)."""
    rng = np.random.default_rng(0)
    steps = episodes = 0
    cpu0, wall0 = time.process_time(), time.perf_counter()
    while time.process_time() - cpu0 < seconds:
        env.reset(seed=episodes)
        episodes += 1
        for _agent in env.agent_iter():
            obs, _reward, term, trunc, _info = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = obs["action_mask"].view(bool).nonzero()[0]  # 0/1 int8 read as bool: numpy finds those 10x faster
            env.step(int(legal[rng.integers(len(legal))]))
            steps += 1
    return steps / (time.process_time() - cpu0), steps / (time.perf_counter() - wall0), episodes


def gym_rate(env, seconds: float) -> tuple[float, float, int]:
    """Learner steps per CPU second (the bots' moves in between are part of the cost)."""
    rng = np.random.default_rng(0)
    steps = episodes = 0
    cpu0, wall0 = time.process_time(), time.perf_counter()
    while time.process_time() - cpu0 < seconds:
        obs, _ = env.reset(seed=episodes)
        episodes += 1
        done = False
        while not done:
            legal = obs["action_mask"].view(bool).nonzero()[0]  # 0/1 int8 read as bool: numpy finds those 10x faster
            obs, _r, term, trunc, _ = env.step(int(legal[rng.integers(len(legal))]))
            done = term or trunc
            steps += 1
    return steps / (time.process_time() - cpu0), steps / (time.perf_counter() - wall0), episodes


def batch_rate(env: BatchEnv, seconds: float) -> tuple[float, float, int]:
    """Learner steps (games × calls) per CPU second of ``BatchEnv.step`` with random legal actions chosen
    for all rows at once: the argmax over the legal actions of random keys (a random window of a key
    table drawn once, so the agent costs under a microsecond a row and the figure is the environment's).
    With workers the CPU time is that of every process and the run lasts ``seconds`` of wall time."""
    rng = np.random.default_rng(0)
    steps = 0
    _obs, masks = env.reset(seed=0)
    n_actions = masks.shape[1]
    table = rng.random((env.n, 2 * n_actions), dtype=np.float32)
    pids = [p.pid for p in env._workers.procs] if env._workers is not None else []
    clock = time.perf_counter if pids else time.process_time
    cpu0, wall0, start = time.process_time() + _cpu_seconds(pids), time.perf_counter(), clock()
    while clock() - start < seconds:
        shift = int(rng.integers(n_actions))
        _obs, masks, _r, _term, _trunc, _info = env.step((table[:, shift:shift + n_actions] * masks).argmax(axis=1))
        steps += env.n
    cpu = time.process_time() + _cpu_seconds(pids) - cpu0
    wall = time.perf_counter() - wall0
    episodes = int(env.episodes.sum())
    env.close()
    return steps / cpu, steps / wall, episodes


def _cpu_seconds(pids: list[int]) -> float:
    """User + system CPU seconds of processes ``pids`` so far (Linux ``/proc``; 0 elsewhere)."""
    total = 0.0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rpartition(")")[2].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime
    return total


def breakdown(name: str, options: dict, games: int = 20) -> None:
    """Mean microseconds per step of each part, on the positions of random games."""
    env = make_raw_env(name, **options)
    ep = env.episode
    positions = []
    for seed in range(games):
        g = tracklayer.new_game(ep.spec.game, ep.n_players, seed=seed, **ep.game_options)
        rnd = random.Random(seed)
        while not g.is_over and len(g.moves) < 400:  # uniformly random Trans games rarely end
            positions.append(g.clone())
            legal = g.legal_actions()
            g.apply(legal[rnd.randrange(len(legal))])
    codec = ep.codec
    opts = codec.view_options
    views = [p.view(p.current_player, **opts) for p in positions]
    compact = hasattr(codec, "observe_compact")  # Trans: the engine's compact view, then the codec
    cviews = [p.observation_view(p.current_player, log_tail=codec.history) for p in positions] if compact else []
    pairs = []
    for p in positions:
        q = p.clone()
        pairs.append((q, q.legal_actions()[0]))

    def fresh(p, fn):
        p._legal = None
        return fn(p)

    parts = [
        ("engine legal_actions() (lazy)", positions, lambda p: fresh(p, type(p).legal_actions)),
        ("codec.mask(game) (fresh position)", positions, lambda p: fresh(p, codec.mask)),
        ("legal_actions() + codec.legal(game)", positions, lambda p: fresh(p, codec.legal)),
        (f"engine view(seat, {opts})", positions, lambda p: p.view(p.current_player, **opts)),
        ("codec.observe(view)", views, codec.observe),
    ]
    if compact:
        parts += [
            ("engine observation_view(seat)", positions,
             lambda p: p.observation_view(p.current_player, log_tail=codec.history)),
            ("codec.observe_compact(view)", cviews, codec.observe_compact),
        ]
    else:  # Ticket to Ride: written from the engine's state
        parts.append(("codec.observe_game(game, seat)", positions, lambda p: codec.observe_game(p, p.current_player)))
    parts.append(("engine apply()", pairs, lambda qa: qa[0].apply(qa[1])))
    print(f"\n{name} {options}: microseconds per step over {len(positions)} positions")
    # thousands of live games are a fixture, not part of a step: keep the garbage collector off them
    gc.collect()
    gc.freeze()
    try:
        for label, items, fn in parts:
            if "apply" not in label:
                for x in items:  # warm the engine's memo tables first
                    fn(x)
            t0 = time.process_time()
            for x in items:
                fn(x)
            print(f"  {label:<40}{(time.process_time() - t0) / len(items) * 1e6:8.1f}")
    finally:
        gc.unfreeze()


def _rows() -> list[tuple[str, dict[str, object], str]]:
    pools = sorted({2, os.cpu_count() or 1})
    rows = [(n, o, "aec raw") for n, o in ROWS] + [("ttr_europe_v2", {"players": 2}, "aec wrapped")]
    for name in ("ttr_europe_v2", "ttr_new_york_v1"):
        rows += [(name, {"players": 2}, "gym vs random"), (name, {"players": 2}, "batch64 vs random"),
                 (name, {"players": 2}, "batch256 vs random")]
        rows += [(name, {"players": 2}, f"batch64 workers={k} vs random") for k in pools]
    return rows


def _label(options: dict[str, object], kind: str) -> str:
    return f"{kind} {options}".replace("'", "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    builds.add_arguments(parser, seconds_help="CPU time per row (wall time for rows with workers)",
                         builds_default="this")
    parser.add_argument("--breakdown", action="store_true", help="also time the parts of a step")
    args = parser.parse_args()
    rows = _rows()
    if args.builds == "both":
        labels = [f"{name} {_label(options, kind)}" for name, options, kind in rows]
        builds.side_by_side(__file__, [x for x in labels if args.only in x], ["--seconds", str(args.seconds)],
                            "cpu", "learner steps per CPU second", higher_is_better=True, against=args.against)
        return
    print(f"engine: {tracklayer.engine_info()['build']}")
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}, {os.cpu_count()} CPUs")
    print(f"{'environment':<18}{'options':<44}{'steps/s (CPU)':>14}{'steps/s (wall)':>16}{'episodes':>10}")
    for name, options, kind in rows:
        label = _label(options, kind)
        if args.only and args.only not in f"{name} {label}":
            continue
        if kind == "aec raw":
            cpu, wall, eps = aec_rate(make_raw_env(name, **options), args.seconds)
        elif kind == "aec wrapped":
            cpu, wall, eps = aec_rate(make_env(name, **options), args.seconds)
        elif kind.startswith("batch"):
            workers = int(kind.partition("workers=")[2].split()[0]) if "workers=" in kind else 0
            games = int(kind.split()[0].removeprefix("batch"))
            cpu, wall, eps = batch_rate(BatchEnv(name, n=games, opponents="random", bot_log_tail=0, workers=workers,
                                                 **options), args.seconds)
        else:
            env = make_gym(name, opponents="random", bot_log_tail=0, **options)
            cpu, wall, eps = gym_rate(env, args.seconds)
        print(f"{name:<18}{label:<44}{cpu:>14,.0f}{wall:>16,.0f}{eps:>10}")
        builds.report(f"{name} {label}", cpu=cpu, wall=wall)
    if args.breakdown:
        for name, options in (ROWS[0], ROWS[4], ROWS[6], ROWS[7]):
            breakdown(name, options)


if __name__ == "__main__":
    main()
