"""``BatchEnv``: many games per call, in this process or sharded over worker processes.

The worker pools are few and small (each start costs a fork from the fork server): the trajectories of
``workers=0`` and ``workers=2`` must be equal step for step (observations, masks, rewards, done flags,
final observations and infos, through auto-resets, truncations and an illegal action), errors in a
worker must reach the caller with their type, message and row, a dead worker must not hang the caller,
and ``close()`` / garbage collection must stop the workers and free the shared memory.
"""

from __future__ import annotations

import gc
import os
import pickle
import time
from multiprocessing.shared_memory import SharedMemory
from typing import Any

import numpy as np
import pytest

from tests import waits
from tests.rl.trajectories import assert_same
from tracklayer.core.errors import IllegalAction
from tracklayer.rl import BatchEnv, SelfPlayPool
from tracklayer.rl.batch import WorkerError, WorkerTimeoutError, resolve_workers


def trajectory(env: BatchEnv, steps: int, *, illegal_at: int | None = None) -> list[tuple[Any, ...]]:
    """Copies of everything ``reset`` and ``step`` return, the actions drawn from the masks by a fixed
    generator; at step ``illegal_at`` row 0 plays an action outside its mask."""
    obs, masks = env.reset(seed=11)
    rng = np.random.default_rng(5)
    out: list[tuple[Any, ...]] = [(obs.copy(), masks.copy())]
    for t in range(steps):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        if t == illegal_at:
            actions[0] = int(np.flatnonzero(~masks[0])[0])
        obs, masks, rewards, term, trunc, info = env.step(actions)
        done = term | trunc
        out.append((obs.copy(), masks.copy(), rewards.copy(), term.copy(), trunc.copy(),
                    info["final_observation"][done].copy(), info["final_info"]))
    return out


def first_legal(obs: Any, mask: Any) -> int:
    return int(np.flatnonzero(mask)[0])


def finals(traj: list[tuple[Any, ...]]) -> list[dict[str, Any]]:
    return [info for step in traj[1:] for info in step[6].values()]


# ---------------------------------------------------------------- identical results for any number of workers
def test_workers_step_exactly_the_in_process_games_ttr() -> None:
    options = {"opponents": "random", "seat": "random"}
    with pytest.warns(UserWarning, match="illegal action"):  # (a worker's warning goes to its stderr)
        local = trajectory(BatchEnv("ttr_new_york_v1", n=5, **options), 250, illegal_at=3)
    with BatchEnv("ttr_new_york_v1", n=5, workers=2, **options) as env:
        assert env.workers == 2 and env.closed is False
        sharded = trajectory(env, 250, illegal_at=3)
        assert env.episodes.sum() == len(finals(sharded))
        # set_opponents reaches every row in every worker, as SB3's env_method does
        assert env.get_attr("opponent_names") == [["random"]] * 5
        env.set_opponents("greedy")
        assert env.get_attr("opponent_names") == [["greedy"]] * 5
        env.set_opponents(SelfPlayPool([first_legal]))  # a pool of a module-level policy pickles across
        assert env.get_attr("opponent_names") == [["SelfPlayPool(1 snapshot)"]] * 5
        _obs, masks = env.reset(seed=1)  # games against the pool
        for _ in range(5):
            _obs, masks, *_ = env.step(masks.argmax(axis=1))
        assert masks.any(axis=1).all()
        assert len(env.env_method("action_text", 0)) == 5
        with pytest.raises(AttributeError, match="env_method"):
            env.envs  # noqa: B018 - the games live in the workers
    assert env.closed
    assert_same(local, sharded)
    ended = finals(local)
    assert len(ended) > 20 and sum(step[2].any() for step in local[1:]) > 10
    assert all("result" in f for f in ended if "illegal_action" not in f)
    # the illegal action ended row 0's game at once with the illegal reward, in both
    assert local[4][3][0] and local[4][2][0] == -1.0 and set(local[4][6][0]) == {"illegal_action"}


def test_workers_step_exactly_the_in_process_games_trans_with_truncation() -> None:
    options = {"opponents": "random", "max_steps": 30, "players": 3}
    local = trajectory(BatchEnv("trans_europa_v1", n=3, **options), 150)
    with BatchEnv("trans_europa_v1", n=3, workers=2, **options) as env:
        sharded = trajectory(env, 150)
    assert_same(local, sharded)
    assert any("truncated_after" in f for f in finals(local))
    assert any(step[4].any() for step in local[1:])


@pytest.mark.parametrize(("name", "options"), [
    ("ttr_europe_v2", {"players": 3, "seat": "random"}),
    ("ttr_europe_v2", {"players": 2, "history": 3}),
    ("ttr_new_york_v1", {"players": 2, "max_steps": 40}),
    ("trans_europa_v1", {"players": 3, "max_steps": 30}),
])
def test_random_opponents_in_compiled_code_play_the_general_loops_games(name, options, monkeypatch) -> None:
    """Rows whose opponents are all ``random`` step in compiled code (``rl.fastpath``: the opponents'
    moves, and for Ticket to Ride the whole row): the same games, draws, observations, masks, rewards,
    truncations and final infos as the loop that asks each opponent object for its move and the
    environment for each part of a step; an index outside the mask takes the general path."""
    import tracklayer.rl.batch as batch
    from tracklayer.rl.gym_env import TracklayerGymEnv

    fast_steps = []
    real = batch.step_rows  # the rows' compiled loop: what it leaves to the general path, it returns

    def counted(envs, *args):
        left = real(envs, *args)
        fast_steps.extend([1] * (len(envs) - len(left)))
        return left

    monkeypatch.setattr(batch, "step_rows", counted)
    with pytest.warns(UserWarning, match="illegal action"):
        fast = trajectory(BatchEnv(name, n=4, opponents="random", **options), 120, illegal_at=5)
    assert bool(fast_steps) == name.startswith("ttr")
    probe = BatchEnv(name, n=1, opponents="random", **options)
    probe.reset(seed=0)
    assert probe._rows.envs[0]._random_rngs is not None
    monkeypatch.setattr(TracklayerGymEnv, "compiled_opponents", False)
    general = BatchEnv(name, n=4, opponents="random", **options)
    fast_steps.clear()
    with pytest.warns(UserWarning, match="illegal action"):
        slow = trajectory(general, 120, illegal_at=5)
    assert not fast_steps and all(env._random_rngs is None for env in general._rows.envs)
    assert_same(fast, slow)
    assert finals(fast)


def test_worker_count() -> None:
    assert resolve_workers(0, 8) == 0
    assert resolve_workers(4, 3) == 3  # never an idle worker
    assert resolve_workers("auto", 1000) == (os.cpu_count() or 1)
    for bad in (-1, "many", 1.5, True):
        with pytest.raises(ValueError, match="workers must be"):
            resolve_workers(bad, 8)  # type: ignore[arg-type]


def test_bad_actions_are_refused_before_any_game_moves() -> None:
    env = BatchEnv("ttr_new_york_v1", n=3)
    _obs, masks = env.reset(seed=0)
    before = env.obs.copy()
    with pytest.raises(ValueError, match="shape"):
        env.step(np.zeros(2, dtype=int))
    with pytest.raises(ValueError, match="integers"):
        env.step(np.full(3, 0.5))
    assert np.array_equal(env.obs, before)
    env.step(masks.argmax(axis=1).astype(float))  # integral floats are accepted, as int(action) would


# ---------------------------------------------------------------- errors reach the caller
def boom(obs: Any, mask: Any) -> int:
    raise ValueError("the opponent's policy failed")


class PickyError(Exception):
    def __init__(self, *, code: int) -> None:  # pickles, but does not load again (no positional argument)
        super().__init__(f"picky {code}")


def picky(obs: Any, mask: Any) -> int:
    raise PickyError(code=3)


def die(obs: Any, mask: Any) -> int:
    os._exit(7)


def stall(obs: Any, mask: Any) -> int:
    time.sleep(120)
    return 0


def test_illegal_action_raises_with_its_message_and_row() -> None:
    with BatchEnv("ttr_new_york_v1", n=4, workers=2, illegal_action="raise") as env:
        _obs, masks = env.reset(seed=0)
        actions = masks.argmax(axis=1)
        actions[3] = int(np.flatnonzero(~masks[3])[0])
        with pytest.raises(IllegalAction, match="is not legal now") as caught:
            env.step(actions)
        notes = "\n".join(caught.value.__notes__)
        assert "in BatchEnv row 3" in notes and "worker 1" in notes and "rows 2..3" in notes
        _obs, masks = env.reset(seed=0)  # the workers live on: reset and play again
        env.step(masks.argmax(axis=1))
    local = BatchEnv("ttr_new_york_v1", n=4, illegal_action="raise")
    _obs, masks = local.reset(seed=0)
    actions = masks.argmax(axis=1)
    actions[2] = int(np.flatnonzero(~masks[2])[0])
    with pytest.raises(IllegalAction, match="is not legal now") as caught:
        local.step(actions)
    assert caught.value.__notes__ == ["in BatchEnv row 2"]


def test_an_opponent_error_or_a_dead_worker_is_reported_not_hung() -> None:
    with BatchEnv("ttr_new_york_v1", n=2, workers=2, opponents=boom, seat=1) as env:
        with pytest.raises(ValueError, match="the opponent's policy failed") as caught:
            env.reset(seed=0)  # seat 1: the opponent moves first
        assert "in BatchEnv row 0" in caught.value.__notes__[0]
        assert "boom" in caught.value.__notes__[-1]  # the worker's traceback
    with BatchEnv("ttr_new_york_v1", n=2, workers=1, opponents=picky, seat=1) as env:
        with pytest.raises(RuntimeError, match="PickyError: picky 3") as caught:
            env.reset(seed=0)
        assert "in BatchEnv row 0" in caught.value.__notes__[-1]  # in the worker's traceback
    env = BatchEnv("ttr_new_york_v1", n=2, workers=2, opponents=die, seat=1)
    died = r"worker ([01]) \(pid \d+, rows \1..\1\) died during reset\(\) \(exit code 7\)"
    with pytest.raises(WorkerError, match=died):
        env.reset(seed=0)
    assert env.closed
    with pytest.raises(RuntimeError, match="closed"):
        env.step(np.zeros(2, dtype=int))


class OnlyHere:
    """A policy that pickles but cannot be loaded in another process (as a function of an interactive
    session's ``__main__``)."""

    def __init__(self) -> None:
        self.pid = os.getpid()

    def __call__(self, obs: Any, mask: Any) -> int:
        return int(np.flatnonzero(mask)[0])

    def __setstate__(self, state: dict[str, Any]) -> None:
        if state["pid"] != os.getpid():
            raise RuntimeError("OnlyHere cannot be loaded in another process")
        self.__dict__.update(state)


def test_options_that_do_not_pickle_are_refused_in_the_caller() -> None:
    with pytest.raises(Exception, match="pickle") as caught:
        BatchEnv("ttr_new_york_v1", n=2, workers=2, opponents=lambda obs, mask: 0)
    assert any("must pickle" in note for note in caught.value.__notes__)
    with pytest.raises(TypeError, match="unknown option"):  # checked here, not in a worker
        BatchEnv("ttr_new_york_v1", n=2, workers=2, colour="red")
    with pytest.raises(WorkerError, match=r"died during start\(\) \(exit code 1\) \(its error is on stderr"):
        BatchEnv("ttr_new_york_v1", n=2, workers=1, opponents=OnlyHere())


def test_a_worker_killed_from_outside_is_noticed() -> None:
    env = BatchEnv("ttr_new_york_v1", n=2, workers=2, timeout=waits.scaled(60))
    first = env.reset(seed=0)[0].copy()
    assert env._workers is not None
    # a call whose answers were never read (Ctrl-C while waiting): the next call skips them
    w = env._workers
    w.seq += 1
    for conn in w.conns:
        conn.send_bytes(pickle.dumps((w.seq, "step", ())))
    obs, masks = env.reset(seed=0)
    assert np.array_equal(obs, first)
    assert env.get_attr("seat") == [int(s) for s in env.get_attr("seat")]  # answers in step with calls
    victim = env._workers.procs[1]
    victim.kill()
    victim.join(waits.scaled(10))
    died = r"worker 1 \(pid \d+, rows 1..1\) died (before|during) step\(\) \(exit code -9\)"
    with pytest.raises(WorkerError, match=died):
        env.step(masks.argmax(axis=1))
    assert not any(p.is_alive() for p in env._workers.procs)


def test_a_worker_that_does_not_answer_times_out() -> None:
    env = BatchEnv("ttr_new_york_v1", n=2, workers=1, opponents=stall, seat=1, timeout=1.0)
    with pytest.raises(TimeoutError, match=r"worker 0 \(pid \d+, rows 0..1\) did not answer reset\(\) within 1.0 s"):
        env.reset(seed=0)
    assert env.closed and env._workers is not None
    assert not any(p.is_alive() for p in env._workers.procs)
    assert issubclass(WorkerTimeoutError, WorkerError)


def test_the_start_has_its_own_bound_not_the_calls_timeout() -> None:
    """A worker's start (its process, the imports, its games) is bounded by ``start_timeout``, not by the
    per-call ``timeout``: on a loaded machine a start takes many times a step's answer."""
    with BatchEnv("ttr_new_york_v1", n=2, workers=1, timeout=1e-6) as env:
        assert env._workers is not None and all(p.is_alive() for p in env._workers.procs)
    with pytest.raises(WorkerTimeoutError, match=r"worker 0 \(pid \d+, rows 0..1\) did not start within 1e-06 s"):
        BatchEnv("ttr_new_york_v1", n=2, workers=1, start_timeout=1e-6)


# ---------------------------------------------------------------- close, garbage collection
def segment_exists(name: str) -> bool:
    try:
        SharedMemory(name=name).close()
    except FileNotFoundError:
        return False
    return True


def test_close_and_garbage_collection_stop_workers_and_free_shared_memory() -> None:
    env = BatchEnv("ttr_new_york_v1", n=3, workers=2)
    obs, _masks = env.reset(seed=0)
    assert env._workers is not None
    procs, name = env._workers.procs, env._workers.shm.name
    assert all(p.is_alive() for p in procs) and segment_exists(name)
    kept = obs  # an array the caller still holds stays readable after close
    env.close()
    env.close()  # idempotent
    assert not any(p.is_alive() for p in procs) and not segment_exists(name)
    assert kept.shape == (3, env.obs_size) and kept.any()

    env = BatchEnv("ttr_new_york_v1", n=2, workers=1)
    assert env._workers is not None
    procs, name = env._workers.procs, env._workers.shm.name
    del env
    gc.collect()
    for p in procs:
        p.join(waits.scaled(10))
    assert not any(p.is_alive() for p in procs) and not segment_exists(name)
