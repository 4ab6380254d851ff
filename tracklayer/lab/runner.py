"""Running many bot games, in parallel processes or on a Ray cluster, reproducibly from one seed.

A run is a list of :class:`GameSpec` (game, seats, deal seed). ``schedule`` builds it: deal ``d``
(seed derived from the run seed) is played once from every seat rotation, so every bot sits in
every seat of the same deal and first-player advantage and deal luck cancel out. ``run_one`` plays
one spec and returns a JSON-ready record; it is a pure function of the spec (apart from the
measured move times), which is what makes the parallel backends interchangeable.
"""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from typing import Any

from tracklayer.core.action import Action
from tracklayer.core.errors import TracklayerError
from tracklayer.core.rng import seed_state
from tracklayer.lab.blocks import BlockWatch

BACKENDS = ("process", "ray")


@dataclass(frozen=True)
class GameSpec:
    index: int
    game: str
    seats: tuple[str, ...]  # bot name per seat
    seed: int  # the deal
    variant: str | None = None
    budget: str | None = None  # "0.5s", "200i" (see bots.base.Budget.parse)
    options: dict[str, Any] = field(default_factory=dict)
    # each bot in a process of its own (bots/isolated.py); None: only bots from outside the project
    isolate: bool | None = None


def deal_seed(seed: int | str, deal: int) -> int:
    return seed_state(f"tracklayer-lab/{seed}/{deal}") & ((1 << 63) - 1)


def schedule(game: str, players: Sequence[str], n_games: int, seed: int | str, variant: str | None = None,
             budget: str | None = None, start: int = 0, isolate: bool | None = None) -> list[GameSpec]:
    """``n_games`` games; game ``i`` plays deal ``i // n`` with the seats rotated ``i % n`` places."""
    n = len(players)
    specs = []
    for i in range(start, start + n_games):
        r = i % n
        seats = tuple(players[r:]) + tuple(players[:r])
        specs.append(GameSpec(i, game, seats, deal_seed(seed, i // n), variant, budget, isolate=isolate))
    return specs


def _source_breakdown(family: str, p: dict[str, Any]) -> dict[str, float]:
    if family == "ttr":
        return {
            "routes": p.get("route_points", 0),
            "tickets": p.get("ticket_points", 0),
            "stations": p.get("station_points", 0),
            "longest_path": p.get("longest_path_bonus", 0),
            "attractions": p.get("attraction_points", 0),
            "tickets_completed": p.get("completed_tickets", 0),
            "tickets_failed": p.get("failed_tickets", 0),
        }
    return {
        "rounds_connected": sum(1 for c in p.get("connected", []) if c),
        "missing_rails": sum(p.get("missing_rails", [])),
    }


def _play_stats(game: Any, seat: int, p: dict[str, Any], blocked: bool) -> dict[str, float]:
    """How a Ticket to Ride seat played, where strong players exploit a bot: cards still in hand at the
    end (hoarding), destination ticket draws, locomotives taken face up, stations built and those that
    borrow a route, failed tickets (also among the sources), and whether an opponent blocked one of its
    tickets (``lab/blocks.py``) and whether it won all the same."""
    if game.family != "ttr":
        return {}
    loco = game.board.loco
    mine = [a for mover, a, _note in game.move_log if mover == seat]
    built = list(p.get("stations", []))
    return {
        "cards_at_end": float(sum(game.state.hands[seat])),
        "ticket_draws": float(sum(1 for a in mine if a.kind == "tickets")),
        "face_up_locomotives": float(sum(1 for a in mine if a.kind == "draw" and a.key[1] == loco)),
        "stations_built": float(len(built)),
        "stations_used": float(sum(1 for st in built if st.get("borrows"))),
        "tickets_failed": float(p.get("failed_tickets", 0)),
        "blocked": float(blocked),
        "won_after_blocked": float(blocked and p["rank"] == 1),
    }


def run_one(spec: GameSpec | dict[str, Any]) -> dict[str, Any]:
    """Play one game between registry bots; each bot only ever gets its seat's view."""
    import tracklayer
    from tracklayer.bots import make_bot, play_game
    from tracklayer.bots.base import Budget

    if isinstance(spec, dict):
        spec = GameSpec(**{**spec, "seats": tuple(spec["seats"])})
    names = [f"{bot}@{seat}" for seat, bot in enumerate(spec.seats)]
    options = dict(spec.options)
    if spec.variant is not None:
        options["variant"] = spec.variant
    game = tracklayer.new_game(spec.game, names, seed=spec.seed, **options)
    bots = [make_bot(bot, seed=f"{spec.seed}/{seat}/{bot}", isolate=spec.isolate)
            for seat, bot in enumerate(spec.seats)]
    n = len(spec.seats)
    think = [0.0] * n
    count = [0] * n
    slowest = [0.0] * n

    watch = BlockWatch(game) if game.family == "ttr" else None

    def on_move(seat: int, action: Action, dt: float) -> None:
        think[seat] += dt
        count[seat] += 1
        slowest[seat] = max(slowest[seat], dt)
        if watch is not None:
            watch.after_move()

    t0 = time.perf_counter()
    play_game(game, bots, Budget.parse(spec.budget), on_move=on_move)
    wall = time.perf_counter() - t0
    result = game.result()
    family = game.family
    seats = []
    for seat, p in enumerate(result["players"]):
        seats.append({
            "seat": seat,
            "bot": spec.seats[seat],
            "total": p["total"],
            "rank": p["rank"],
            "sources": _source_breakdown(family, p),
            "play": _play_stats(game, seat, p, watch is not None and watch.blocked[seat]),
            "moves": count[seat],
            "think_seconds": think[seat],
            "max_move_seconds": slowest[seat],
        })
    length = {"moves": len(game.moves)}
    if family == "ttr":
        length["turns"] = game.state.turn
    else:
        length["rounds"] = len(result.get("rounds", []))
    return {
        "index": spec.index,
        "game": spec.game,
        "variant": getattr(getattr(game, "variant", None), "name", spec.variant),
        "seed": spec.seed,
        "budget": spec.budget,
        "seats": seats,
        "winners": [s["seat"] for s in seats if s["rank"] == 1],
        "length": length,
        "wall_seconds": wall,
    }


def _check_bots(specs: Sequence[GameSpec]) -> None:
    from tracklayer.bots import check_bot

    for name in sorted({b for s in specs for b in s.seats}):
        check_bot(name)


def run_specs(specs: Sequence[GameSpec], jobs: int = 1, backend: str = "process", address: str | None = None,
              progress: Callable[[int, int], None] | None = None) -> list[dict[str, Any]]:
    """Play every spec (``jobs`` at a time) and return the records in spec order."""
    if backend not in BACKENDS:
        raise TracklayerError(f"unknown backend {backend!r}; backends: {', '.join(BACKENDS)}")
    _check_bots(specs)
    total = len(specs)
    records: dict[int, dict[str, Any]] = {}

    def done(rec: dict[str, Any]) -> None:
        records[rec["index"]] = rec
        if progress is not None:
            progress(len(records), total)

    if backend == "ray":
        for rec in _run_ray(specs, jobs, address):
            done(rec)
    elif jobs <= 1 or total <= 1:
        for spec in specs:
            done(run_one(spec))
    else:
        games = tuple(sorted({s.game for s in specs}))
        with ProcessPoolExecutor(max_workers=min(jobs, total), initializer=_worker_init, initargs=(games,)) as pool:
            pending: set[Future[dict[str, Any]]] = set()
            it = iter(specs)
            for spec in it:
                pending.add(pool.submit(run_one, spec))
                if len(pending) >= 2 * jobs:
                    break
            while pending:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for f in finished:
                    done(f.result())
                    nxt = next(it, None)
                    if nxt is not None:
                        pending.add(pool.submit(run_one, nxt))
    return [records[s.index] for s in specs]


def _worker_init(games: tuple[str, ...]) -> None:
    """A worker process's start: warm up for ``games`` and freeze the heap, so that full collections
    during its many games walk only what those games allocate (see core/gcpause.py)."""
    from tracklayer.bots.warmup import warm_up
    from tracklayer.core.gcpause import freeze_heap

    freeze_heap(functools.partial(warm_up, games))


def _run_ray(specs: Sequence[GameSpec], jobs: int, address: str | None) -> Iterator[dict[str, Any]]:
    """The same games as Ray tasks: ``address`` joins a cluster, else a local Ray with ``jobs`` CPUs."""
    try:
        import ray
    except ImportError:
        raise TracklayerError("the ray backend needs Ray: pip install 'tracklayer[ray]'") from None
    started = False
    if not ray.is_initialized():
        if address:
            ray.init(address=address, ignore_reinit_error=True, log_to_driver=False)
        else:
            ray.init(num_cpus=max(1, jobs), include_dashboard=False, ignore_reinit_error=True, log_to_driver=False,
                     runtime_env={"env_vars": {"PYTHONPATH": os.pathsep.join(_package_roots())}})
        started = True
    try:
        remote = ray.remote(num_cpus=1)(run_one)
        pending = [remote.remote(asdict(s)) for s in specs]
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            for ref in ready:
                yield ray.get(ref)
    finally:
        if started:
            ray.shutdown()


def _package_roots() -> list[str]:
    """Where this tracklayer is imported from, so local Ray workers import the same code."""
    import tracklayer

    root = os.path.dirname(os.path.dirname(os.path.abspath(tracklayer.__file__)))
    return [root, *[p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]]
