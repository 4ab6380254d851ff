"""The guard that no test leaves a child process behind (see tests/waits.py)."""

from __future__ import annotations

import signal
import sys
from typing import Any

import pytest

from tests import waits


def pytest_configure(config: pytest.Config) -> None:
    # SIGTERM (a CI job cancelled, xdist stopping its workers) ends pytest through SystemExit, so the
    # fixtures' teardowns and the atexit guard still kill the servers the tests started
    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))


def pytest_sessionfinish(session: pytest.Session, exitstatus: Any) -> None:
    left = waits.kill_all()
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if left and reporter is not None:
        reporter.write_line(f"killed the process groups of {len(left)} child process(es) a test left running: "
                            f"{left}", red=True)
