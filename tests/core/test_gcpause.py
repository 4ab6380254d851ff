"""No stop-the-world pauses: the engine's long-lived memos are bounded, and long-running processes
(the server, the lab's workers) freeze their warmed-up heap. Structural checks only: no timings."""

from __future__ import annotations

import gc
import itertools
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import tracklayer
import tracklayer.trans.actions as trans_actions
import tracklayer.ttr.actions as ttr_actions
from tracklayer.bots import warmup
from tracklayer.core import gcpause


@pytest.fixture
def gc_state() -> Iterator[None]:
    """Undo what freeze_heap does to this (test) process."""
    thresholds = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)


def play_random(name: str, n: int, seed: int, moves: int = 400) -> None:
    game = tracklayer.new_game(name, n, seed=seed)
    rnd = random.Random(seed)
    for _ in range(moves):
        if game.is_over:
            break
        legal = game.legal_actions()
        game.apply(legal[rnd.randrange(len(legal))])


def ttr_memos(rules: Any) -> dict[str, tuple[int, int]]:
    """(size, bound) of every memo of a TTR board's action table (the rules keep none)."""
    table = rules.board.actions
    return {"keeps": (len(table._keeps), ttr_actions.KEEP_MEMO)}


def test_ttr_memos_stay_within_their_bounds_over_many_games(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ttr_actions, "KEEP_MEMO", 4)
    # the rules object is shared by every game on the board: start from empty memos, whatever other tests in
    # this process filled them with at their real bounds (a memo is cleared only when it is next used)
    rules = tracklayer.new_game("ttr-europe", 4, seed=0).rules
    rules.board.actions._keeps.clear()
    seen = []
    for seed in range(4):
        game = tracklayer.new_game("ttr-europe", 4, seed=seed)
        rnd = random.Random(seed)
        while not game.is_over:
            legal = game.legal_actions()
            game.apply(legal[rnd.randrange(len(legal))])
            seen.append(ttr_memos(game.rules))
    assert all(size <= bound for sizes in seen for size, bound in sizes.values())
    for memo in seen[0]:  # each was really filled up to its bound
        assert any(sizes[memo][0] == sizes[memo][1] for sizes in seen), memo


def test_keep_memos_are_bounded_at_their_real_sizes() -> None:
    table = tracklayer.new_game("ttr-europe", 2, seed=0).board.actions
    n = len(table.board.tickets)
    subsets = itertools.islice(itertools.combinations(range(n), 3), ttr_actions.KEEP_MEMO + 100)
    for combo in subsets:
        table.keep(combo)
    assert len(table._keeps) <= ttr_actions.KEEP_MEMO
    # an action made after a clear equals the one before it (actions compare by key)
    first = table.keep((0, 1, 2))
    table._keeps.clear()
    assert table.keep((0, 1, 2)) == first and table.keep((0, 1, 2)) is not first


def test_trans_multi_rail_memo_is_bounded() -> None:
    game = tracklayer.new_game("trans-europa", 2, seed=0)
    table = game.board.actions
    for pair in itertools.islice(itertools.combinations(range(game.board.n_edges), 2), trans_actions.MULTI_MEMO + 50):
        table.rails(pair)
    assert 0 < len(table._multi) <= trans_actions.MULTI_MEMO


def test_freeze_heap_warms_up_and_freezes(gc_state: None) -> None:
    from tracklayer.ttr.board import load_board

    frozen = gcpause.freeze_heap(lambda: warmup.warm_up(["ttr-new-york", "trans-america"]))
    assert frozen > 0 and gc.get_freeze_count() > 0
    assert gc.get_threshold() == gcpause.GC_THRESHOLDS
    board = load_board("ttr-new-york")
    assert set(board._rules) == set(board.variants)  # every variant's rules were built before freezing
    gc.unfreeze()
    gcpause.freeze_heap(thresholds=None)
    assert gc.get_threshold() == gcpause.GC_THRESHOLDS  # thresholds=None leaves them alone


def test_a_failing_warm_up_only_logs(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    def broken(name: str) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(warmup, "_warm_game", broken)
    warmup.warm_up(["ttr-europe"])
    assert "warm-up of ttr-europe failed" in caplog.text
    gcpause.freeze_heap(lambda: 1 / 0, thresholds=None)
    assert "warm-up failed" in caplog.text
    gc.unfreeze()


def test_the_server_freezes_its_heap_at_start_up(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    import tracklayer.server.app as server_app
    from tracklayer.server import Settings, create_app

    calls: list[tuple[Any, ...]] = []
    monkeypatch.setattr(server_app, "freeze_heap", lambda *a, **kw: calls.append(a))
    url = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    with TestClient(create_app(Settings(database_url=url))) as client:
        assert client.get("/healthz").status_code == 200
    assert len(calls) == 1
    with TestClient(create_app(Settings(database_url=url, tune_gc=False))) as client:
        assert client.get("/healthz").status_code == 200
    assert len(calls) == 1  # tune_gc=False: an embedding application keeps its own GC settings


def test_lab_workers_freeze_their_heap(monkeypatch: pytest.MonkeyPatch, gc_state: None) -> None:
    from tracklayer.lab import runner

    made: list[dict[str, Any]] = []

    class InlinePool:
        """A stand-in for ProcessPoolExecutor that runs its initialiser and jobs in this process."""

        def __init__(self, **kwargs: Any) -> None:
            made.append(kwargs)
            kwargs["initializer"](*kwargs["initargs"])

        def __enter__(self) -> InlinePool:
            return self

        def __exit__(self, *exc: object) -> None:
            return None

        def submit(self, fn: Any, *args: Any) -> Any:
            from concurrent.futures import Future

            fut: Future[Any] = Future()
            fut.set_result(fn(*args))
            return fut

    monkeypatch.setattr(runner, "ProcessPoolExecutor", InlinePool)
    warmed: list[Any] = []
    monkeypatch.setattr(warmup, "warm_up", lambda games=None: warmed.append(games))
    specs = runner.schedule("ttr-new-york", ["random", "random"], 2, seed=1)
    records = runner.run_specs(specs, jobs=2)
    assert len(records) == 2
    assert made and made[0]["initializer"] is runner._worker_init
    assert warmed == [("ttr-new-york",)]
    assert gc.get_freeze_count() > 0
