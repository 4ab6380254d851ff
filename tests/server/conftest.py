from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.server.helpers import Server, database_url, running


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    tmp = tmp_path_factory.mktemp("server")
    with running(database_url(tmp), tmp / "server.log", bot_delay=0.0) as srv:
        yield srv


@pytest.fixture
def fresh_dir(tmp_path: Path) -> Path:
    return tmp_path
