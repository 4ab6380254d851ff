"""Run a benchmark's rows under both builds of the engine, side by side, and print the ratios.

A benchmark script measures its rows in the build its process runs (``tracklayer.engine_info()``).
With ``--builds both`` it hands each row to two child processes of itself, one compiled and one
interpreted (``TRACKLAYER_INTERPRETED=1``), one after the other for the same row, so both figures of a
row are measured moments apart on the same machine load; each child reports its row as one
``ROW {json}`` line.

``--against DIR`` adds another engine to the comparison: a checkout of another revision (``git worktree
add ../base REV``, built in place with ``python setup.py build_ext --inplace``), whose own copy of the
script measures the same rows in its compiled and interpreted builds, interleaved with this checkout's.
Then the ratios are this compiled build against each of the others. A checkout from before this module
(the engine before its compiled core) runs this checkout's script on its own package: both its columns
are then its one, interpreted, engine.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

CHILD = "TRACKLAYER_BENCH_CHILD"


def report(label: str, **values: float) -> None:
    """In a child: hand the parent the figures of one row."""
    if os.environ.get(CHILD):
        print("ROW " + json.dumps({"label": label, **values}), flush=True)


def run_row(script: str, label: str, argv: Sequence[str], build: str, root: Path | None = None) -> dict[str, Any]:
    """One row in one build, in a child process: of this checkout, or of the checkout at ``root``."""
    env = {k: v for k, v in os.environ.items() if k != "TRACKLAYER_INTERPRETED"} | {CHILD: "1"}
    if build == "interpreted":
        env["TRACKLAYER_INTERPRETED"] = "1"
    if root is not None:  # the other checkout's package, and its own copy of the script if it speaks this
        env["PYTHONPATH"] = str(root)  # protocol (an older one, from before builds.py, runs this copy)
        theirs = root / Path(script).resolve().relative_to(Path(__file__).resolve().parents[1])
        script = str(theirs) if theirs.is_file() and (root / "benchmarks" / "builds.py").is_file() else script
    out = subprocess.run([sys.executable, script, "--builds", "this", "--only", label, *argv], env=env,
                         capture_output=True, text=True, check=True, cwd=root).stdout
    rows = [json.loads(line[4:]) for line in out.splitlines() if line.startswith("ROW ")]
    mine = [r for r in rows if r["label"] == label]
    if len(mine) != 1:
        raise RuntimeError(f"the {build} run of {label!r} reported {len(mine)} rows")
    return mine[0]


def add_arguments(parser: argparse.ArgumentParser, seconds_help: str = "CPU time per row",
                  builds_default: str = "both") -> None:
    """The options every side-by-side benchmark takes: ``--seconds``, ``--only``, ``--builds``, ``--against``."""
    parser.add_argument("--seconds", type=float, default=3.0, help=seconds_help)
    parser.add_argument("--only", default="", help="only rows whose label contains this text")
    parser.add_argument("--builds", choices=("both", "this"), default=builds_default,
                        help="compare the compiled and interpreted builds, or measure this process's build")
    parser.add_argument("--against", type=Path, metavar="DIR",
                        help="also measure the engine of another checkout (built in place) and compare with it")


def side_by_side(script: str, labels: Sequence[str], argv: Sequence[str], figure: str, unit: str,
                 higher_is_better: bool, against: Path | None = None) -> None:
    """Measure ``figure`` of each row in both builds (and in both builds of the checkout ``against``) and
    print the figures and the ratios of this compiled build to the others."""
    import tracklayer

    info = tracklayer.engine_info()
    if info["build"] != "compiled":
        print(f"the engine is not compiled here ({info['reason']}): nothing to compare")
        return
    runs: list[tuple[str, str, Path | None]] = [("compiled", "compiled", None), ("interpreted", "interpreted", None)]
    if against is not None:
        against = against.resolve()
        runs += [("base compiled", "compiled", against), ("base interpreted", "interpreted", against)]
        print(f"base: the engine in {against}")
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}, {os.cpu_count()} CPUs")
    width = max((len(label) for label in labels), default=3) + 2
    print(f"{'row':<{width}}" + "".join(f"{name:>18}" for name, *_ in runs)
          + "".join(f"{'vs ' + name:>22}" for name, *_ in runs[1:]) + f"   ({figure}, {unit})")
    for label in labels:
        values = [run_row(script, label, argv, build, root)[figure] for _, build, root in runs]
        mine = values[0]
        ratios = [(mine / v if higher_is_better else v / mine) for v in values[1:]]
        print(f"{label:<{width}}" + "".join(f"{v:>18,.1f}" for v in values)
              + "".join(f"{r:>21.2f}x" for r in ratios), flush=True)
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} at the end")
