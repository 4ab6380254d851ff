"""Instructions a workload costs, counted by callgrind: a speed comparison that machine load cannot blur.

On a shared machine CPU time wanders by a quarter between runs, more than many changes are worth.
Valgrind's callgrind counts the instructions a process executes, the same on every run of a
deterministic workload, and per function inclusive of what it calls. This script runs one workload
under callgrind in this checkout's compiled build and, with ``--against DIR``, in another checkout's
(built in place, ``python setup.py build_ext --inplace``), both at once, and prints the instructions
of the whole process and of the named functions, with the ratios. Needs ``valgrind`` (Debian package).

Workloads:

* ``mcts``: one 2-player Europe game (classic tickets, deal 701), the ``mcts`` bot (seed 1) against the
  planner (seed 2); the functions are the search, its final scoring and the longest trail.
* ``random``: 40 random 4-player Europe games through ``legal_actions()`` and ``apply()``, scored with
  ``result()``.

    python benchmarks/instructions.py --against ../base
    python benchmarks/instructions.py --workload random --against ../base
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

WORKLOADS = {
    "mcts": """
import tracklayer
from tracklayer.bots import make_bot
g = tracklayer.new_game("ttr-europe", 2, seed=701, variant="classic")
bots = [make_bot("mcts", 1), make_bot("planner", 2)]
while not g.is_over:
    p = g.current_player
    legal = g.legal_actions()
    g.apply(legal[0] if len(legal) == 1 else bots[p].choose(g.view(p), legal))
print(len(g.moves), [p["total"] for p in g.result()["players"]])
""",
    "random": """
import random, tracklayer
moves = 0
for seed in range(40):
    g = tracklayer.new_game("ttr-europe", 4, seed=seed, variant="classic")
    rnd = random.Random(seed)
    while not g.is_over:
        legal = g.legal_actions()
        g.apply(legal[rnd.randrange(len(legal))])
    g.result()
    moves += len(g.moves)
print(moves)
""",
}
# (label, its class or module, its name): found in the compiled build's callgrind output as Cython's
# ``__pyx_pw_..._<owner>_<number><name>``, whatever the number (it moves as functions are added)
FUNCTIONS = {
    "mcts": [("MCTSBot.search", "MCTSBot", "search"), ("score_position", "scoring", "score_position"),
             ("final_totals", "scoring", "final_totals"), ("longest_trail", "trail", "longest_trail")],
    "random": [("legal_actions", "BaseGame", "legal_actions"), ("apply", "BaseGame", "apply"),
               ("TTRGame.result", "TTRGame", "result")],
}


def count(root: Path, workload: str, out_dir: Path, tag: str) -> tuple[str, int, dict[str, int]]:
    """Run ``workload`` under callgrind with the package at ``root``: (its output, total, per function)."""
    out = out_dir / f"callgrind.{tag}"
    env = {k: v for k, v in os.environ.items() if k != "TRACKLAYER_INTERPRETED"} | {"PYTHONPATH": str(root)}
    run = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, "-c",
                          WORKLOADS[workload]], env=env, capture_output=True, text=True, check=True, cwd=root)
    total = int(re.search(r"Collected : (\d+)", run.stderr).group(1))  # type: ignore[union-attr]
    table = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", str(out)],
                           capture_output=True, text=True, check=True).stdout
    per: dict[str, int] = {}
    for label, owner, name in FUNCTIONS[workload]:
        pattern = re.compile(rf"__pyx_pw_\w*{re.escape(owner)}_\d+{re.escape(name)}\b")
        hits = [int(line.split()[0].replace(",", "")) for line in table.splitlines() if pattern.search(line)]
        if hits:
            per[label] = max(hits)
    return run.stdout.strip(), total, per


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workload", choices=sorted(WORKLOADS), default="mcts")
    parser.add_argument("--against", type=Path, help="another checkout, built in place")
    args = parser.parse_args()
    here = Path(__file__).resolve().parents[1]
    roots = [("this", here)] + ([("against", args.against.resolve())] if args.against else [])
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(len(roots)) as pool:
        results = list(pool.map(lambda r: count(r[1], args.workload, Path(tmp), r[0]), roots))
    for (name, root), (output, _, _) in zip(roots, results, strict=True):
        print(f"{name}: {root} -> {output}")
    if len(results) == 2 and results[0][0] != results[1][0]:
        print("note: the two checkouts played different games; the counts compare different work")
    print(f"{'instructions (millions)':<26}" + "".join(f"{name:>14}" for name, _ in roots)
          + (f"{'this / against':>16}" if len(roots) == 2 else ""))
    labels = ["whole process"] + [label for label, _, _ in FUNCTIONS[args.workload]]
    for label in labels:
        values = [r[1] if label == "whole process" else r[2].get(label) for r in results]
        cells = "".join(f"{'—' if v is None else f'{v / 1e6:,.0f}':>14}" for v in values)
        ratio = (f"{values[0] / values[1]:>16.3f}" if len(values) == 2 and values[0] and values[1] else
                 (f"{'':>16}" if len(values) == 2 else ""))
        print(f"{label:<26}{cells}{ratio}")


if __name__ == "__main__":
    main()
