"""A task that runs for the life of the server: started once the event loop runs, cancelled at shutdown.

The game lease (``lease.py``), the matchmaker's ticker (``lobby.py``), the clocks' scanner
(``clocks.py``), the rating sweep (``accounts/service.py``) and the presence heartbeat (``presence.py``) each
keep one. Shutdown waits for the cancelled task to end, so no task is left
pending when the loop closes. Whatever the task raised then is of no interest: the server is
stopping.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

log = logging.getLogger("tracklayer.server")


class Background:
    """One named task: ``start`` it (again: no-op) with the loop running, ``await close()`` to stop it."""

    def __init__(self, name: str, run: Callable[[], Coroutine[Any, Any, None]]) -> None:
        self.name = name
        self._run = run
        self.task: asyncio.Task[None] | None = None

    @classmethod
    def every(cls, name: str, seconds: float, step: Callable[[], Awaitable[object]], failed: str) -> Background:
        """A task that awaits ``step()``, then sleeps ``seconds``, for ever. A pass that fails is logged
        (``failed``, with its traceback) and the next one tried: a database that is down for a while
        must not end the task for good."""
        return cls(name, lambda: _every(seconds, step, failed))

    def start(self) -> None:
        if self.task is None:
            self.task = asyncio.get_running_loop().create_task(self._run(), name=self.name)

    async def close(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(BaseException):
                await self.task


async def _every(seconds: float, step: Callable[[], Awaitable[object]], failed: str) -> None:
    while True:
        try:
            await step()
        except Exception:  # not CancelledError (a BaseException): cancelling still ends the loop
            log.exception(failed)
        await asyncio.sleep(seconds)
