"""The browser client's own gates: prettier, eslint, tsc (JSDoc types) and its node unit tests (tests/js).

The tools come from the npm registry (package.json, package-lock.json); ``.ci/run`` installs them with
``npm ci``, so in CI a missing tool is a failure. Elsewhere, without ``node_modules``, these tests are
skipped with the command that installs them.
"""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _npm(script: str) -> None:
    if not (ROOT / "node_modules" / ".bin").is_dir() or shutil.which("npm") is None:
        if os.environ.get("CI"):
            pytest.fail("the web client's tools are not installed: .ci/run runs `npm ci` before the tests")
        pytest.skip("the web client's tools are not installed: run `npm ci` in the repository root")
    proc = subprocess.run(["npm", "run", "--silent", script], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, f"npm run {script}:\n{proc.stdout}{proc.stderr}"


def test_formatted_with_prettier():
    _npm("format:check")


def test_eslint_is_clean():
    _npm("lint")


def test_jsdoc_types_check():
    _npm("typecheck")


def test_node_unit_tests_pass():
    _npm("test")
