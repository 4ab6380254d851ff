"""The server's background tasks (lease, matchmaker, clock scanner): started once, a failed pass
logged and retried, stopped for good at shutdown."""

from __future__ import annotations

import asyncio
import logging

import pytest

from tracklayer.server.background import Background


def test_a_failed_pass_is_logged_and_the_next_one_runs(caplog: pytest.LogCaptureFixture) -> None:
    passes: list[int] = []

    async def main() -> Background:
        third = asyncio.Event()

        async def step() -> None:
            passes.append(len(passes))
            if len(passes) == 1:
                raise RuntimeError("database down")
            if len(passes) == 3:
                third.set()

        ticker = Background.every("test-ticker", 0, step, "test: a pass failed")
        ticker.start()
        ticker.start()  # again: still one task
        await asyncio.wait_for(third.wait(), 60)
        await ticker.close()
        return ticker

    with caplog.at_level(logging.ERROR, logger="tracklayer.server"):
        ticker = asyncio.run(main())
    assert ticker.task is not None and ticker.task.done() and ticker.task.get_name() == "test-ticker"
    failed = [r for r in caplog.records if r.getMessage() == "test: a pass failed"]
    assert len(failed) == 1 and failed[0].exc_info and "database down" in str(failed[0].exc_info[1])
    assert passes[:3] == [0, 1, 2]


def test_close_waits_for_the_task_to_end_and_swallows_its_end() -> None:
    ended: list[str] = []

    async def run() -> None:
        try:
            await asyncio.Event().wait()  # for ever
        finally:
            ended.append("cleaned up")
            raise RuntimeError("an error on the way out")  # shutdown does not care

    async def main() -> None:
        task = Background("test-task", run)
        await task.close()  # not started: nothing to do
        task.start()
        await asyncio.sleep(0)  # let it reach its wait
        await task.close()
        assert ended == ["cleaned up"]
        task.start()  # stopped for good: no second task
        assert ended == ["cleaned up"] and task.task is not None and task.task.done()

    asyncio.run(main())
