"""The code base type-checks with mypy, strictly on the engine (CI runs the tests, so this keeps the type gate
in CI). The configuration is pyproject.toml's ``[tool.mypy]``; docs/development.md says how to run it."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# a module of each strictly checked package, and one of the rest
STRICT = ["tracklayer/core/errors.py", "tracklayer/maps/loader.py", "tracklayer/ttr/board.py",
          "tracklayer/trans/board.py"]
CHECKED = "tracklayer/score_file.py"


def _mypy(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mypy", *args], cwd=ROOT, capture_output=True, text=True)


def test_mypy_is_clean():
    proc = _mypy()
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_engine_packages_are_checked_strictly(tmp_path):
    """An untyped function, read in place of a module of each engine package, is an error there (the strict
    override applies) and passes in a module outside them: deleting or narrowing the override fails this."""
    untyped = tmp_path / "untyped.py"
    untyped.write_text("def f(x):\n    return x\n")
    shadows = [arg for path in [*STRICT, CHECKED] for arg in ("--shadow-file", path, str(untyped))]
    proc = _mypy("--cache-dir", str(tmp_path / "cache"), *shadows, *STRICT, CHECKED)
    out = proc.stdout + proc.stderr
    for path in STRICT:
        assert f"{path}:1: error: Function is missing a type annotation" in out, out
    assert CHECKED not in out, out
