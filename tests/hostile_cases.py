"""Hostile score files, generated from one valid file per game: the one corpus of
``tests/test_score_hostile.py`` (every case ends in a result or one clean error line) and
``benchmarks/score_hostile.py`` (no case is slow).

Every entry of each valid file (ttr-europe, ttr-new-york, trans-europa, trans-america), the whole
document included, is replaced in turn by each value of ``VALUES`` (wrong types, huge numbers,
markup, surrogates and control characters, near-miss names, deep nesting, long strings and lists);
``whole_files`` adds attacks on the file as a whole (deep nesting, 100,000-digit numbers, Latin-1,
UTF-16 without a byte order mark, random bytes), and ``encoded_files`` each valid file in every
encoding a score file may have and some it may not.

Standard library and tracklayer only, so the benchmark runs from a plain checkout without the
test dependencies (it puts the checkout on ``sys.path``). It lives under tests/, not in the
package: an installed tracklayer has no use for a corpus of attacks on itself.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterable, Iterator
from typing import Any

from tracklayer.core.schema import MAX_DEPTH

VALID: dict[str, dict[str, Any]] = {
    "ttr-europe": {
        "game": "ttr-europe", "tiebreak": "classic", "variant": "classic",
        "players": [
            {"name": "Ann", "routes": [["Paris", "Frankfurt", "white"], ["Wien", "Budapest"]], "stations": ["Berlin"],
             "tickets": [["Paris", "Wien"], ["Lisboa", "Danzig", 20]]},
            {"name": "Bob", "routes": [["Berlin", "Danzig"]], "tickets": [["Berlin", "Roma"]]}]},
    "ttr-new-york": {
        "game": "ttr-new-york",
        "players": [
            {"name": "Ann", "routes": [["Central Park", "Times Square", "red"]],
             "tickets": [["Central Park", "Chelsea"]]},
            {"name": "Bob", "routes": [["Chinatown", "Wall Street"]]}]},
    "trans-europa": {
        "game": "trans-europa", "rails": [[[9, 6], [10, 5]], [[10, 5], [11, 4]]], "special_cards": [2],
        "players": [
            {"name": "Ann", "start": [9, 6], "cities": ["Amsterdam", "Madrid"]},
            {"name": "Bob", "start": [13, 6], "cities": ["Zürich"], "score": 3}]},
    "trans-america": {
        "game": "trans-america", "rails": [], "special_cards": [4],
        "players": [{"name": "Ann", "start": [8, 8], "cities": ["Phoenix"]}]},
}

DEEP: list[Any] = []  # nested three times deeper than the schema allows
_d = DEEP
for _ in range(3 * MAX_DEPTH):
    _d.append([])
    _d = _d[0]

# kind of attack -> the values that replace each entry in turn
VALUES: dict[str, list[Any]] = {
    "types": [None, True, False, 0, -7, 3.5, 5.0, "", "   ", [], {}, [[]], {"a": 1}, ["Paris"],
              ["Paris", "Wien", "red", "extra"], [1, 2], [[1, 2], [3]], "Paris"],
    "numbers": [float("inf"), float("nan"), 10 ** 40, 10 ** 400, 10 ** 4000, -(10 ** 300)],
    "markup": ["[/red]", "[bold red]Ann", ":smile:", "[link=x]y[/link]"],
    "surrogates/control": ["\ud800", "a\udfffb", "\x1b[31mred", "\u2028", "tab\t", "tab\tname", "Ann\n"],
    "near-miss names": ["Zurich", "Pariss"],
    "nesting": [DEEP],
    "long strings": ["x" * 20_000, "München" * 3000, "Pariss" * 30_000, "y" * 990_000],
    # ~1 MB documents at every entry: tens of milliseconds each, so the tests leave them to the benchmark
    "long lists": [[["Paris", "Wien"]] * 50_000, [[[9, 6], [10, 5]]] * 50_000, ["Oslo"] * 100_000],
}


def paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every entry of a JSON value, as the keys and indices leading to it (``()``: the value itself)."""
    yield path
    if isinstance(value, dict):
        for k, v in value.items():
            yield from paths(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from paths(v, (*path, i))


def replaced(doc: Any, path: tuple[Any, ...], new: Any) -> Any:
    """A copy of ``doc`` with the entry at ``path`` replaced by ``new``."""
    if not path:
        return new
    out = copy.deepcopy(doc)
    node = out
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = new
    return out


def entry_cases(kinds: Iterable[str] | None = None, games: Iterable[str] | None = None
                ) -> Iterator[tuple[str, str, str, Any]]:
    """``(game, kind, label, document)``: each entry of each valid file replaced by each value of
    each kind (all kinds, all games if None); the label says which entry and value (``players.0.name=3``)."""
    chosen = list(VALUES) if kinds is None else list(kinds)
    for game in VALID if games is None else games:
        doc = VALID[game]
        for kind in chosen:
            for path in paths(doc):
                for i, bad in enumerate(VALUES[kind]):
                    yield game, kind, f"{'.'.join(map(str, path)) or '<root>'}={i}", replaced(doc, path, bad)


def whole_files() -> list[bytes]:
    """Attacks on the file as a whole, up to the 1 MB size limit (built on call: a few MB)."""
    rnd = random.Random(1)
    text = json.dumps(VALID["ttr-europe"])
    return [b"[" * 500_000, b'{"a":' * 190_000, b"1" * 999_999, ("[" + "9" * 900_000 + "]").encode(),
            b"[" + b"1e999," * 100_000 + b"1]", text.encode("utf-16-le"), text.encode("latin-1"),
            "é".encode("latin-1") + text.encode(), bytes(rnd.randrange(256) for _ in range(500_000)),
            b'"' + b"\\u00e9" * 160_000 + b'"']


def encoded_files() -> list[bytes]:
    """Each valid file in each encoding the decoder reads (UTF-8 with and without a BOM, UTF-16 and
    UTF-32 with a BOM, both byte orders), in some it refuses (UTF-16 without a BOM, Latin-1), and cut
    off in the middle of a character."""
    out: list[bytes] = []
    for doc in VALID.values():
        text = json.dumps(doc, ensure_ascii=False)
        out += [text.encode(), text.encode("utf-8-sig"), text.encode("utf-16"), b"\xfe\xff" + text.encode("utf-16-be"),
                text.encode("utf-32"), b"\x00\x00\xfe\xff" + text.encode("utf-32-be"), text.encode("utf-16-le"),
                text.encode("latin-1", "replace"), text.encode("utf-16")[:-1], text.encode("utf-32")[:-2]]
    return out
