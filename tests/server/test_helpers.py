"""The server helper leaves no process behind: not when a start fails, not when a test kills a server."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import waits
from tests.server.helpers import Server, database_url, running

# a "server" that never listens, with a child of its own (as a server has its bot workers)
NEVER_READY = ["sh", "-c", "sleep 600 & echo child started; exec sleep 600"]


class NeverReady(Server):
    def argv(self) -> list[str]:
        return NEVER_READY


def test_a_start_that_times_out_kills_the_server_and_its_children(tmp_path: Path) -> None:
    srv = NeverReady(database_url(tmp_path), tmp_path / "server.log")
    with pytest.raises(RuntimeError, match=r"did not answer /healthz within \d+ s \(killed\)"):
        srv.start(start_seconds=2)
    assert srv.proc is not None and srv.proc.returncode is not None
    assert waits.group_alive(srv.proc.pid) == []
    assert "child started" in srv.log()  # there was a child to kill


def test_bot_workers_exit_when_their_server_is_killed(tmp_path: Path) -> None:
    """kill -9 of a server (a crash, the OOM killer): its bot workers notice and exit on their own."""
    with running(database_url(tmp_path), tmp_path / "server.log") as srv:
        assert srv.proc is not None
        pgid = srv.proc.pid
        srv.create("ttr-new-york", [{"kind": "bot", "bot": "greedy"}, {"kind": "bot", "bot": "greedy"}])
        workers = waits.until(lambda: [p for p in waits.group_alive(pgid) if p != pgid], 60,
                              "the server's bot workers to start")
        srv.kill9()
        waits.until(lambda: not waits.group_alive(pgid), 30,
                    f"the bot workers {workers} of the killed server to exit")
