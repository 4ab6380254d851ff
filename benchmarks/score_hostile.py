"""Worst-case time of ``score_document`` (what ``tracklayer score`` runs) on hostile score files.

The corpus is that of the hostile-input tests (``tests/hostile_cases.py``): from one valid file
per game (ttr-europe, ttr-new-york, trans-europa, trans-america), every entry replaced by wrong
types, markup, surrogates, huge numbers, deep nesting, long strings and lists (up to 1 MB, the size
limit), plus whole-file attacks (deep nesting, 100,000-digit numbers, Latin-1, UTF-16 without a
BOM, random bytes). Prints, per kind of case, how many gave a result or an error, anything else
that escaped (must be 0), and the slowest case. Before the validation layer a 20,000-character name
took ~15 s and some files ran past 60 s; every case should now take milliseconds.

    python benchmarks/score_hostile.py [--limit 20]
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the corpus lives in tests/ (standard library only), shared with the tests

from tests.hostile_cases import entry_cases, whole_files  # noqa: E402
from tracklayer.score_file import ScoreFileError, score_document  # noqa: E402


def cases(limit: int | None = None) -> Iterator[tuple[str, Any]]:
    """``(kind, raw bytes)`` of every case, at most ``limit`` of each kind (spread over the games)."""
    by_kind: dict[str, list[Any]] = defaultdict(list)
    for _game, kind, _label, doc in entry_cases():
        by_kind[kind].append(doc)
    for kind, docs in by_kind.items():
        step = 1 if limit is None else max(1, len(docs) // limit)
        for doc in itertools.islice(docs, 0, None if limit is None else step * limit, step):
            yield kind, json.dumps(doc, ensure_ascii=False).encode("utf-8", "surrogatepass")
    for raw in whole_files()[:limit]:
        yield "whole file", raw


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="at most this many cases of each kind (a quick run)")
    limit = parser.parse_args().limit
    stats: dict[str, list[float]] = defaultdict(list)
    outcome: dict[str, dict[str, int]] = defaultdict(lambda: {"result": 0, "error": 0, "escaped": 0})
    slowest: tuple[float, str] = (0.0, "")
    for kind, raw in cases(limit):
        t0 = time.perf_counter()
        try:
            score_document(raw)
            outcome[kind]["result"] += 1
        except ScoreFileError:
            outcome[kind]["error"] += 1
        except Exception as exc:  # a bug: the point of the benchmark is that this never happens
            outcome[kind]["escaped"] += 1
            print(f"ESCAPED {kind}: {type(exc).__name__}: {exc}"[:200])
        dt = time.perf_counter() - t0
        stats[kind].append(dt)
        if dt > slowest[0]:
            slowest = (dt, f"{kind}: {raw[:60]!r}… ({len(raw):,} bytes)")
    print(f"{'cases':20} {'n':>6} {'result':>7} {'error':>6} {'escaped':>8} {'max ms':>8} {'mean ms':>8}")
    for kind, times in stats.items():
        o = outcome[kind]
        print(f"{kind:20} {len(times):6d} {o['result']:7d} {o['error']:6d} {o['escaped']:8d} "
              f"{max(times) * 1000:8.1f} {sum(times) / len(times) * 1000:8.2f}")
    print(f"slowest case: {slowest[0] * 1000:.1f} ms, {slowest[1]}")


if __name__ == "__main__":
    main()
