"""Browser tests: Debian's chromium driven by Playwright (no browser download).

They skip only when /usr/bin/chromium is absent; CI installs it. Screenshots go to a temporary
folder, or to $TRACKLAYER_SCREENSHOT_DIR (``docs/screenshots`` to refresh the README's pictures).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests import waits
from tests.server.helpers import Server, database_url, running

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="module")
def web_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    tmp = tmp_path_factory.mktemp("web")
    with running(database_url(tmp), tmp / "server.log", bot_delay=0.0, rate=50) as srv:
        yield srv


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, timeout=waits.ms(60))
        new_context = b.new_context

        def scaled_context(*args: Any, **kw: Any) -> Any:
            """A context whose waits without their own bound (clicks, goto) get Playwright's 30 s, scaled."""
            context = new_context(*args, **kw)
            context.set_default_timeout(waits.ms(30))
            return context

        b.new_context = scaled_context  # type: ignore[method-assign]
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("TRACKLAYER_SCREENSHOT_DIR") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture
def page(browser: object) -> Iterator[object]:
    context = browser.new_context(viewport={"width": 1400, "height": 900}, locale="en-US")  # type: ignore[attr-defined]
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.errors = errors
    try:
        yield pg
    finally:
        context.close()
    assert not errors, errors
