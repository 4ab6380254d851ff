"""A server's shutdown ends: the game lease's task stops when cancelled, whatever it was doing.

On Python 3.11, ``asyncio.wait_for`` drops a cancellation that arrives just as the awaited result
does; the lease task used it around every query, so a shutdown that came at that moment waited for
ever for a task that went on looping (it hung ``pytest tests/server -n 2`` on PostgreSQL, in the
teardown of an in-process app). Here the lease is closed at random moments while it queries
without pause, many times: each close must return.
"""

from __future__ import annotations

import ast
import asyncio
import os
import random
from pathlib import Path

import pytest

import tracklayer.server as server_pkg
from tests import waits
from tests.server.helpers import PG_ENV
from tracklayer.server import lease as lease_mod

CLOSES = 60  # before the fix about one close in five hung here (59 of 300)


@pytest.mark.skipif(not os.environ.get(PG_ENV), reason=f"the lease needs PostgreSQL: set {PG_ENV}")
def test_lease_task_ends_when_closed_at_any_moment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lease_mod, "RETRY", 0.002)  # a query nearly always in flight or just answered
    url = os.environ[PG_ENV]

    async def closes() -> list[int]:
        hung = []
        for i in range(CLOSES):
            lease = lease_mod.Lease(url, lambda _g: None, lambda _gs: None)
            lease.start()
            lease.want(f"lease-close-test-{i}")
            await asyncio.sleep(0.03 + random.random() * 0.07)
            closer = asyncio.ensure_future(lease.close())
            done, _ = await asyncio.wait([closer], timeout=waits.scaled(15))
            if not done:  # leave nothing running behind: the connection closes with the loop
                hung.append(i)
        return hung

    hung = asyncio.run(closes())
    assert not hung, f"Lease.close() did not return within 15 s in closes {hung} of {CLOSES}"


def test_server_code_has_no_wait_for() -> None:
    """``asyncio.timeout`` instead, everywhere in the server: see the module docstring."""
    root = Path(server_pkg.__file__).parent
    found = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Attribute) and node.attr == "wait_for" \
                    and isinstance(node.value, ast.Name) and node.value.id == "asyncio":
                found.append(f"{path.relative_to(root)}:{node.lineno}")
    assert not found, f"asyncio.wait_for can swallow a cancellation on Python 3.11: {found}"
