"""Run a benchmark's rows under both builds of the engine, side by side, and print the ratios.

A benchmark script measures its rows in the build its process runs (``tracklayer.engine_info()``).
With ``--builds both`` it hands each row to two child processes of itself, one compiled and one
interpreted (``TRACKLAYER_INTERPRETED=1``), one after the other for the same row, so both figures of a
row are measured moments apart on the same machine load; each child reports its row as one
``ROW {json}`` line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from typing import Any

CHILD = "TRACKLAYER_BENCH_CHILD"


def report(label: str, **values: float) -> None:
    """In a child: hand the parent the figures of one row."""
    if os.environ.get(CHILD):
        print("ROW " + json.dumps({"label": label, **values}), flush=True)


def run_row(script: str, label: str, argv: Sequence[str], build: str) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k != "TRACKLAYER_INTERPRETED"} | {CHILD: "1"}
    if build == "interpreted":
        env["TRACKLAYER_INTERPRETED"] = "1"
    out = subprocess.run([sys.executable, script, "--builds", "this", "--only", label, *argv], env=env,
                         capture_output=True, text=True, check=True).stdout
    rows = [json.loads(line[4:]) for line in out.splitlines() if line.startswith("ROW ")]
    mine = [r for r in rows if r["label"] == label]
    if len(mine) != 1:
        raise RuntimeError(f"the {build} run of {label!r} reported {len(mine)} rows")
    return mine[0]


def side_by_side(script: str, labels: Sequence[str], argv: Sequence[str], figure: str, unit: str,
                 higher_is_better: bool) -> None:
    """Measure ``figure`` of each row in both builds and print compiled, interpreted and their ratio."""
    import tracklayer

    info = tracklayer.engine_info()
    if info["build"] != "compiled":
        print(f"the engine is not compiled here ({info['reason']}): nothing to compare")
        return
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}, {os.cpu_count()} CPUs")
    print(f"{'row':<58}{'compiled':>14}{'interpreted':>14}{'speed-up':>10}   ({figure}, {unit})")
    for label in labels:
        compiled = run_row(script, label, argv, "compiled")[figure]
        interpreted = run_row(script, label, argv, "interpreted")[figure]
        ratio = compiled / interpreted if higher_is_better else interpreted / compiled
        print(f"{label:<58}{compiled:>14,.1f}{interpreted:>14,.1f}{ratio:>9.2f}x", flush=True)
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} at the end")
