"""Worst-case time of ``score_document`` (what ``tracklayer score`` runs) on hostile score files.

Builds a corpus from one valid file per game (ttr-europe, ttr-new-york, trans-europa,
trans-america): every entry replaced by wrong types, markup, surrogates, huge numbers and long
strings (up to 1 MB, the size limit), plus whole-file attacks (deep nesting, 100,000-digit numbers,
Latin-1, UTF-16 without a BOM, random bytes). Prints, per kind of case, how many gave a result or an
error, anything else that escaped (must be 0), and the slowest case. Before the validation layer a
20,000-character name took ~15 s and some files ran past 60 s; every case should now take
milliseconds.

    python benchmarks/score_hostile.py
"""

from __future__ import annotations

import copy
import json
import random
import time
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from tracklayer.score_file import ScoreFileError, score_document

VALID: list[dict[str, Any]] = [
    {"game": "ttr-europe", "tiebreak": "classic", "variant": "classic", "players": [
        {"name": "Ann", "routes": [["Paris", "Frankfurt", "white"], ["Wien", "Budapest"]], "stations": ["Berlin"],
         "tickets": [["Paris", "Wien"], ["Lisboa", "Danzig", 20]]},
        {"name": "Bob", "routes": [["Berlin", "Danzig"]], "tickets": [["Berlin", "Roma"]]}]},
    {"game": "ttr-new-york", "players": [
        {"name": "Ann", "routes": [["Central Park", "Times Square", "red"]], "tickets": [["Central Park", "Chelsea"]]},
        {"name": "Bob", "routes": [["Chinatown", "Wall Street"]]}]},
    {"game": "trans-europa", "rails": [[[9, 6], [10, 5]], [[10, 5], [11, 4]]], "special_cards": [2], "players": [
        {"name": "Ann", "start": [9, 6], "cities": ["Amsterdam", "Madrid"]},
        {"name": "Bob", "start": [13, 6], "cities": ["Zürich"], "score": 3}]},
    {"game": "trans-america", "rails": [], "special_cards": [4],
     "players": [{"name": "Ann", "start": [8, 8], "cities": ["Phoenix"]}]},
]

VALUES: dict[str, list[Any]] = {
    "types": [None, True, 0, -7, 3.5, [], {}, [[]], {"a": 1}, ["Paris"], [1, 2], "Paris"],
    "numbers": [10 ** 40, 10 ** 4000, float("inf"), float("nan"), -(10 ** 300)],
    "markup": ["[/red]", "[bold red]Ann", ":smile:", "[link=x]y[/link]"],
    "surrogates/control": ["\ud800", "a\udfffb", "\x1b[31mred", "\u2028", "tab\t"],
    "long strings": ["x" * 20_000, "München" * 3000, "Pariss" * 30_000, "y" * 990_000],
    "long lists": [[["Paris", "Wien"]] * 50_000, [[[9, 6], [10, 5]]] * 50_000, ["Oslo"] * 100_000],
}


def paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    if isinstance(value, dict):
        for k, v in value.items():
            yield from paths(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from paths(v, (*path, i))


def replaced(doc: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    out = copy.deepcopy(doc)
    node = out
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = new
    return out


def cases() -> Iterator[tuple[str, Any]]:
    for doc in VALID:
        for kind, values in VALUES.items():
            for path in paths(doc):
                for v in values:
                    yield kind, json.dumps(replaced(doc, path, v), ensure_ascii=False).encode("utf-8", "surrogatepass")
    rnd = random.Random(1)
    text = json.dumps(VALID[0])
    whole = [b"[" * 500_000, b'{"a":' * 190_000, b"1" * 999_999, ("[" + "9" * 900_000 + "]").encode(),
             b"[" + b"1e999," * 100_000 + b"1]", text.encode("utf-16-le"), text.encode("latin-1"),
             "é".encode("latin-1") + text.encode(), bytes(rnd.randrange(256) for _ in range(500_000)),
             b'"' + b"\\u00e9" * 160_000 + b'"']
    for raw in whole:
        yield "whole file", raw


def main() -> None:
    stats: dict[str, list[float]] = defaultdict(list)
    outcome: dict[str, dict[str, int]] = defaultdict(lambda: {"result": 0, "error": 0, "escaped": 0})
    slowest: tuple[float, str] = (0.0, "")
    for kind, raw in cases():
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
