"""Many games stepped in one call, numpy arrays in and out (the pgx / EnvPool style of API).

``BatchEnv("ttr_europe_v2", n=256, opponents="random", workers=2)`` holds ``n`` single-learner games
(each one a :class:`~tracklayer.rl.gym_env.TracklayerGymEnv` in ``observation="flat"`` mode, so
opponents, seats, rewards and options are exactly those of the Gymnasium environment)::

    obs, masks = env.reset(seed=0)            # float32[n, D], bool[n, N]
    obs, masks, rewards, terminated, truncated, info = env.step(actions)   # actions: int[n]

Auto-reset happens in the same call (as SB3's VecEnv and EnvPool do): a game that ended is replaced by
a new one, its row of ``obs`` / ``masks`` is already the new game's, and what the old game ended with
is in ``info["final_observation"]`` (float32[n, D], rows of games that did not end are stale) and
``info["final_info"]`` (``{row: info}``). So every mask returned has a legal action: a learner never
acts on a finished game. The returned arrays are reused by the next call (copy what you keep).

**Workers.** One process steps its games one after the other; more speed comes from processes, as in
EnvPool: ``workers=K`` shards the rows over ``K`` worker processes (contiguous
blocks of rows). They write observations, masks, rewards and done flags straight into arrays in shared
memory (``multiprocessing.shared_memory``) that the caller reads, and read the actions from another;
each call costs one small pipe message per worker each way (the command, then "done" with the final
infos of the games that ended). ``workers=0`` (the default) steps every game in this process;
``workers="auto"`` is one worker per CPU. A row's game depends only on its own seed and actions, so the
results are identical for any number of workers. Workers start with ``forkserver`` (``spawn`` where that
is missing): both are safe when the caller runs threads (PyTorch does), and the fork server imports
tracklayer once, so a worker starts in milliseconds instead of a second of imports under ``spawn``.
Options cross to the workers by pickle: opponents must pickle (bot names, module-level functions,
models and :class:`~tracklayer.rl.opponents.SelfPlayPool` do). ``close()`` (also ``with``, garbage
collection and interpreter exit) stops the workers and frees the shared memory.
"""

from __future__ import annotations

import contextlib
import itertools
import multiprocessing
import os
import pickle
import signal
import traceback
import weakref
from collections.abc import Callable
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from multiprocessing.shared_memory import SharedMemory
from typing import Any

import numpy as np

from tracklayer.rl.envs import get_spec
from tracklayer.rl.fastpath import note_row, step_rows
from tracklayer.rl.gym_env import TracklayerGymEnv

# the arrays of a batch, in the order they are laid out in one buffer: (name, dtype, per-row shape key)
_FIELDS = (("obs", np.float32, "D"), ("final_obs", np.float32, "D"), ("masks", np.bool_, "N"),
           ("rewards", np.float32, ""), ("terminated", np.bool_, ""), ("truncated", np.bool_, ""),
           ("actions", np.int64, ""))


def _layout(n: int, obs_size: int, n_actions: int) -> tuple[list[tuple[str, Any, tuple[int, ...], int]], int]:
    """(name, dtype, shape, byte offset) of every array in one buffer (each 64-byte aligned), and its size."""
    sizes = {"D": (obs_size,), "N": (n_actions,), "": ()}
    out, offset = [], 0
    for name, dtype, key in _FIELDS:
        shape = (n, *sizes[key])
        out.append((name, dtype, shape, offset))
        offset += -(-int(np.prod(shape)) * np.dtype(dtype).itemsize // 64) * 64
    return out, max(offset, 64)


def _arrays(buffer: Any, n: int, obs_size: int, n_actions: int) -> dict[str, np.ndarray]:
    layout, _size = _layout(n, obs_size, n_actions)
    return {name: np.ndarray(shape, dtype=dtype, buffer=buffer, offset=offset)
            for name, dtype, shape, offset in layout}


def resolve_workers(workers: int | str, n: int) -> int:
    """The number of worker processes for ``n`` rows: ``"auto"`` is one per CPU; never more than ``n``."""
    if workers == "auto":
        workers = os.cpu_count() or 1
    if isinstance(workers, bool) or not isinstance(workers, int | np.integer) or workers < 0:
        raise ValueError(f"workers must be 0 (in this process), a positive number or 'auto', not {workers!r}")
    return min(int(workers), n)


class _Rows:
    """Rows ``lo .. lo + count - 1`` of a batch, stepped in this process, writing into ``arrays`` (views
    of the batch's own arrays, or of the shared memory in a worker)."""

    def __init__(self, name: str, lo: int, count: int, options: dict[str, Any], arrays: dict[str, np.ndarray]) -> None:
        spec = get_spec(name)
        self.lo = lo
        self.envs = [TracklayerGymEnv(spec, **options) for _ in range(count)]
        self.a = arrays
        self.n_actions = self.envs[0].episode.n_actions
        # the masks as bytes: the episode keeps its mask as bytes, copied in without a numpy array per row
        self._mask_bytes = arrays["masks"].view(np.uint8).reshape(-1).data
        self._obs_rows = list(arrays["obs"])  # a view per row, written in place by the codec
        self._mask_rows = list(arrays["masks"].view(np.uint8))

    def reset(self, seed: int | None) -> None:
        k = 0
        try:
            for k, env in enumerate(self.envs):
                env.reset(seed=None if seed is None else seed + self.lo + k)
                self._write(k, env)
        except Exception as exc:
            note_row(exc, self.lo + k)
            raise

    def step(self) -> dict[int, dict[str, Any]]:
        """Step every row with ``arrays["actions"]``; returns ``{row: final info}`` of the games that ended."""
        final: dict[int, dict[str, Any]] = {}
        final_obs = self.a["final_obs"]
        actions = self.a["actions"].tolist()
        rewards, ended, cut = self.a["rewards"], self.a["terminated"], self.a["truncated"]
        # the rows that go on against `random` opponents step in compiled code; the others here
        left = step_rows(self.envs, actions, self._obs_rows, self._mask_rows, rewards, ended, cut, self.lo)
        k = 0
        try:
            for k, moved in left:
                env = self.envs[k]
                reward, term, trunc, info = env.outcome() if moved else env.advance(actions[k])
                if term or trunc:
                    final_obs[k] = env.episode.observation(env.seat)
                    final[self.lo + k] = info
                    env.reset()
                self._write(k, env)
                rewards[k] = reward
                ended[k] = term
                cut[k] = trunc
        except Exception as exc:
            note_row(exc, self.lo + k)
            raise
        return final

    def call(self, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
        """``getattr(env, method)(*args, **kwargs)`` of every row (an attribute's value if it is not callable)."""
        out = []
        k = 0
        try:
            for k, env in enumerate(self.envs):  # noqa: B007 - k names the row of an error
                value = getattr(env, method)
                out.append(value(*args, **kwargs) if callable(value) else value)
        except Exception as exc:
            note_row(exc, self.lo + k)
            raise
        return out

    def _write(self, k: int, env: TracklayerGymEnv) -> None:
        """The observation and mask of row ``k``'s learner, written in place."""
        ep = env.episode
        ep.observation_into(env.seat, self._obs_rows[k])
        ep._position()
        n = self.n_actions
        mask = ep._position_mask()
        self._mask_bytes[k * n:(k + 1) * n] = mask
        env._remember(self._mask_rows[k])  # the row's mask is the one its compiled step checks the index on

    def close(self) -> None:
        for env in self.envs:
            env.close()


# ---------------------------------------------------------------------------- worker processes
class _Segment(SharedMemory):
    """Shared memory whose mapping lives exactly as long as something views it.

    numpy arrays over ``shm.buf`` keep a reference to the buffer's object but no buffer export, so
    ``SharedMemory.close()`` (which unmaps) succeeds under them and leaves them pointing at freed memory:
    a caller still holding a closed batch's ``obs`` would crash the interpreter. Here ``close()`` only
    drops this object's references and its file descriptor; the mapping goes with its last array."""

    def close(self) -> None:
        self._buf = None
        self._mmap = None
        fd = getattr(self, "_fd", -1)
        if fd >= 0:
            os.close(fd)
            self._fd = -1

    def __del__(self) -> None:
        with contextlib.suppress(OSError):
            self.close()


def _worker(conn: Connection, segment: str, n: int, obs_size: int, n_actions: int, lo: int, hi: int, name: str,
            options: dict[str, Any]) -> None:
    """A worker's loop: build rows ``lo .. hi - 1``, then answer commands ``(seq, method, args)`` with
    ``(seq, "ok", result)`` or ``(seq, "error", failure)`` until told to close or the parent goes away."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle; it closes the workers
    shm = _Segment(name=segment)
    rows: _Rows | None = None
    try:
        arrays = {k: v[lo:hi] for k, v in _arrays(shm.buf, n, obs_size, n_actions).items()}
        try:
            rows = _Rows(name, lo, hi - lo, options, arrays)
        except Exception as exc:
            conn.send((0, "error", _failure(exc)))
            return
        del arrays
        conn.send((0, "ok", None))
        while True:
            try:
                seq, method, args = pickle.loads(conn.recv_bytes())
            except EOFError:
                return
            if method == "close":
                return
            try:
                result = getattr(rows, method)(*args)
                conn.send((seq, "ok", result))
            except Exception as exc:
                conn.send((seq, "error", _failure(exc)))
    finally:
        if rows is not None:
            rows.close()
            rows = None
        shm.close()


def _failure(exc: BaseException) -> tuple[bytes | None, str, str]:
    """An exception as (pickle or None, "Type: message", traceback text) for the parent to raise again."""
    text = "".join(traceback.format_exception(exc))
    try:
        data: bytes | None = pickle.dumps(exc)
    except Exception:
        data = None
    return data, f"{type(exc).__name__}: {exc}", text


def _loaded(data: bytes | None) -> BaseException | None:
    """The worker's exception itself, if it loads here."""
    try:
        return pickle.loads(data) if data is not None else None
    except Exception:
        return None


def _context(start_method: str | None) -> Any:
    """The multiprocessing context of the workers: ``forkserver`` (tracklayer preloaded) where available."""
    if start_method is None:
        start_method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    ctx = multiprocessing.get_context(start_method)
    if start_method == "forkserver":
        from multiprocessing import forkserver

        preload = list(getattr(forkserver._forkserver, "_preload_modules", ["__main__"]))
        if "tracklayer.rl" not in preload:  # no effect once the server runs; harmless to other users of it
            ctx.set_forkserver_preload([*preload, "tracklayer.rl"])
    return ctx


class WorkerError(RuntimeError):
    """A worker process died or did not answer in time; the batch is closed."""


class WorkerTimeoutError(WorkerError, TimeoutError):
    """A worker did not answer a call within the batch's ``timeout``, or did not start within its
    ``start_timeout``."""


START_TIMEOUT = 600.0  # seconds: a worker starts in about a second on a quiet machine; this only ends a hang


class _Workers:
    """The worker processes of a batch, their pipes and the shared memory (no reference to the batch,
    so a finaliser can close them when the batch is collected)."""

    def __init__(self, name: str, n: int, obs_size: int, n_actions: int, workers: int, options: dict[str, Any],
                 timeout: float | None, start_timeout: float | None, start_method: str | None) -> None:
        self.timeout = timeout
        self.seq = 0
        self.closed = False
        self.owner = os.getpid()
        self.procs: list[BaseProcess] = []
        self.conns: list[Connection] = []
        bounds = np.linspace(0, n, workers + 1).round().astype(int).tolist()
        self.shards = list(itertools.pairwise(bounds))
        size = _layout(n, obs_size, n_actions)[1]
        self.shm = _Segment(create=True, size=size)
        try:
            ctx = _context(start_method)
            for lo, hi in self.shards:
                parent, child = ctx.Pipe()
                proc = ctx.Process(target=_worker, name=f"BatchEnv-{name}-rows-{lo}-{hi - 1}", daemon=True,
                                   args=(child, self.shm.name, n, obs_size, n_actions, lo, hi, name, options))
                proc.start()
                child.close()
                self.procs.append(proc)
                self.conns.append(parent)
            self.gather(0, "start", start_timeout)
        except BaseException:
            self.close()
            raise

    def run(self, method: str, *args: Any) -> list[Any]:
        """Every worker's ``_Rows.<method>(*args)``, in worker order; raises the first error (lowest row)
        once every worker answered, so the pipes stay in step."""
        if self.closed:
            raise RuntimeError("this BatchEnv is closed")
        self.seq += 1
        message = pickle.dumps((self.seq, method, args))  # once for all workers: fails before any is sent
        for k, conn in enumerate(self.conns):
            try:
                conn.send_bytes(message)
            except OSError:
                self.procs[k].join(1.0)
                self._fail(k, f"died before {method}() (exit code {self.procs[k].exitcode})")
        return self.gather(self.seq, method, self.timeout)

    def gather(self, seq: int, method: str, timeout: float | None) -> list[Any]:
        """Every worker's answer to call ``seq``, each within ``timeout`` seconds (None: while it lives)."""
        results: list[Any] = [None] * len(self.conns)
        errors: list[tuple[int, tuple[bytes | None, str, str]]] = []
        waiting = dict(enumerate(self.conns))
        sentinels = {self.procs[k].sentinel: k for k in waiting}
        while waiting:
            ready = wait([*waiting.values(), *(s for s, k in sentinels.items() if k in waiting)], timeout)
            if not ready:
                busy = ", ".join(self._label(k) for k in waiting)
                what = "start" if method == "start" else f"answer {method}()"
                self._fail(next(iter(waiting)), f"did not {what} within {timeout} s (busy: {busy})",
                           WorkerTimeoutError)
            for k, conn in list(waiting.items()):
                if conn not in ready and self.procs[k].sentinel not in ready:
                    continue
                try:
                    got, status, payload = conn.recv()
                except (EOFError, OSError):
                    self.procs[k].join(1.0)
                    hint = (" (its error is on stderr: options that cannot be loaded in a new process, such as a "
                            "function of an interactive session's __main__, are the usual cause)"
                            if method == "start" else "")
                    self._fail(k, f"died during {method}() (exit code {self.procs[k].exitcode}){hint}")
                if got != seq:  # the answer to a call interrupted earlier (Ctrl-C): drop it
                    continue
                del waiting[k]
                if status == "ok":
                    results[k] = payload
                else:
                    errors.append((k, payload))
        if errors:
            k, (data, summary, text) = min(errors, key=lambda e: e[0])  # the lowest row's, whoever answered first
            exc = _loaded(data) or RuntimeError(summary)
            exc.add_note(f"raised in BatchEnv worker {self._label(k)}; its traceback:\n{text.rstrip()}")
            raise exc
        return results

    def _label(self, k: int) -> str:
        lo, hi = self.shards[k]
        return f"{k} (pid {self.procs[k].pid}, rows {lo}..{hi - 1})"

    def _fail(self, k: int, what: str, kind: type[WorkerError] = WorkerError) -> None:
        label = self._label(k)
        self.close(polite=kind is not WorkerTimeoutError)  # a worker stuck in a call will not read "close"
        raise kind(f"BatchEnv worker {label} {what}; the batch is closed: make a new one")

    def close(self, polite: bool = True) -> None:
        """Stop the workers (asked to, then by force; ``polite=False``: by force at once) and unlink the
        shared memory. Idempotent; nothing in a forked copy of the caller (its exit must not stop them)."""
        if self.closed or os.getpid() != self.owner:
            return
        self.closed = True
        message = pickle.dumps((0, "close", ()))
        for conn in self.conns:
            with contextlib.suppress(OSError):
                conn.send_bytes(message)
        for proc in self.procs:
            proc.join(5.0 if polite else 0.0)
            if proc.is_alive():
                proc.kill()
                proc.join(5.0)
        for conn in self.conns:
            conn.close()
        self.shm.close()  # the arrays of the batch stay readable; the memory goes with the last of them
        with contextlib.suppress(FileNotFoundError):
            self.shm.unlink()


# ---------------------------------------------------------------------------- the batch
class BatchEnv:
    """``n`` games of environment ``name`` against ``opponents`` (see :class:`TracklayerGymEnv`), stepped
    in this process (``workers=0``) or sharded over ``workers`` processes (``"auto"``: one per CPU).

    ``timeout``: seconds a worker may take to answer one call before the batch gives up on it (None:
    wait as long as it lives; a worker that dies is noticed at once either way). ``start_timeout``:
    seconds the workers may take to start (a process each, the imports, their games) until each has
    said it is ready; apart from ``timeout`` and far longer by default, since on a loaded machine a
    process's start takes many times a step's answer (None: as long as they live). ``start_method``: the
    multiprocessing start method of the workers (default ``forkserver``, else ``spawn``).
    An exception raised in a game (``illegal_action="raise"``, an opponent's error) reaches the caller
    with its type and message and a note naming the row (and the worker, with its traceback); the rows
    are then part-way through the call: ``reset()`` before stepping again."""

    def __init__(self, name: str, n: int = 64, *, workers: int | str = 0, timeout: float | None = 300.0,
                 start_timeout: float | None = START_TIMEOUT, start_method: str | None = None,
                 **options: Any) -> None:
        if n <= 0:
            raise ValueError("n must be positive")
        self.workers = resolve_workers(workers, n)
        options.setdefault("seat", "random")
        options["observation"] = "flat"
        template = TracklayerGymEnv(get_spec(name), **options)  # checks the options here, not in a worker
        self.name = name
        self.n = n
        self.single_observation_space = template.observation_space
        self.single_action_space = template.action_space
        self.obs_size = template.episode.obs_size
        self.n_actions = template.episode.n_actions
        self.episodes = np.zeros(n, dtype=np.int64)  # finished episodes per row
        self._rows: _Rows | None = None
        self._workers: _Workers | None = None
        if self.workers == 0:
            arrays = _arrays(bytearray(_layout(n, self.obs_size, self.n_actions)[1]), n, self.obs_size,
                             self.n_actions)
            self._rows = _Rows(name, 0, n, options, arrays)
        else:
            try:
                pickle.dumps(options)
            except Exception as exc:
                exc.add_note(f"BatchEnv(workers={workers!r}) sends its options to worker processes: opponents must "
                             "pickle (bot names, module-level functions, models, SelfPlayPool; not lambdas)")
                raise
            self._workers = _Workers(name, n, self.obs_size, self.n_actions, self.workers, options, timeout,
                                     start_timeout, start_method)
            self._finalizer = weakref.finalize(self, self._workers.close)
            arrays = _arrays(self._workers.shm.buf, n, self.obs_size, self.n_actions)
        self.obs, self.final_obs, self.masks = arrays["obs"], arrays["final_obs"], arrays["masks"]
        self.rewards, self.terminated, self.truncated = arrays["rewards"], arrays["terminated"], arrays["truncated"]
        self._actions = arrays["actions"]

    @property
    def envs(self) -> list[TracklayerGymEnv]:
        """The games (in-process batches only; with workers use :meth:`env_method` / :meth:`get_attr`)."""
        if self._rows is None:
            raise AttributeError(f"BatchEnv(workers={self.workers}) holds its games in worker processes: "
                                 "use env_method() / get_attr()")
        return self._rows.envs

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """New games in every row (row ``i`` seeded ``seed + i``; its later games continue that stream)."""
        self._run("reset", seed)
        self.episodes[:] = 0
        return self.obs, self.masks

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One learner move in every game; returns (obs, masks, rewards, terminated, truncated, info)."""
        actions = np.asarray(actions)
        if actions.shape != (self.n,):
            raise ValueError(f"actions must have shape ({self.n},), not {actions.shape}")
        if not np.issubdtype(actions.dtype, np.integer) and not (
                np.issubdtype(actions.dtype, np.floating) and np.array_equal(actions, np.floor(actions))):
            raise ValueError(f"actions must be integers, not {actions.dtype} {actions.tolist()[:8]}")
        self._actions[:] = actions
        final: dict[int, dict[str, Any]] = {}
        for part in self._run("step"):
            final.update(part)
        self.episodes += self.terminated | self.truncated
        return self.obs, self.masks, self.rewards, self.terminated, self.truncated, {
            "final_observation": self.final_obs, "final_info": final}

    def action_masks(self) -> np.ndarray:
        """bool[n, N]: the legal actions of every row (the array ``step`` returned)."""
        return self.masks

    def env_method(self, method: str, *args: Any, **kwargs: Any) -> list[Any]:
        """``method(*args, **kwargs)`` of every row's :class:`TracklayerGymEnv`, results in row order (as
        SB3's ``VecEnv.env_method``); arguments and results cross to the workers by pickle."""
        return [x for part in self._run("call", method, args, kwargs) for x in part]

    def get_attr(self, attribute: str) -> list[Any]:
        """An attribute of every row's environment, in row order."""
        return self.env_method(attribute)

    def sb3(self, monitor: bool = True) -> Any:
        """This batch as Stable-Baselines3's ``VecEnv`` (:class:`tracklayer.rl.sb3.SB3BatchVecEnv`, needs
        stable-baselines3), in SB3's ``VecMonitor`` unless ``monitor=False`` (the episode returns and
        lengths SB3 logs: the rows have no ``Monitor`` of their own)."""
        from tracklayer.rl.sb3 import SB3BatchVecEnv

        venv = SB3BatchVecEnv(self)
        if not monitor:
            return venv
        from stable_baselines3.common.vec_env import VecMonitor

        return VecMonitor(venv)

    def set_opponents(self, opponents: object) -> None:
        """New opponents in every row from its next game on (e.g. a :class:`SelfPlayPool` after ``add()``)."""
        self.env_method("set_opponents", opponents)

    def close(self) -> None:
        """Stop the workers and free the shared memory (the arrays returned so far stay readable)."""
        if self._workers is not None:
            self._finalizer()
        elif self._rows is not None:
            self._rows.close()

    @property
    def closed(self) -> bool:
        return self._workers is not None and self._workers.closed

    def __enter__(self) -> BatchEnv:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"BatchEnv({self.name!r}, n={self.n}, workers={self.workers})"

    def _run(self, method: str, *args: Any) -> list[Any]:
        """``_Rows.<method>(*args)`` of every shard: one list entry per shard."""
        if self._rows is not None:
            run: Callable[..., Any] = getattr(self._rows, method)
            return [run(*args)]
        assert self._workers is not None
        return self._workers.run(method, *args)
