"""Hostile score files: every input ends in a result or in one ``error: FILE: where: what`` line, exit 2.

The corpus (``tests/hostile_cases.py``, shared with ``benchmarks/score_hostile.py``) is generated
from one valid file per game (ttr-europe, ttr-new-york, trans-europa, trans-america): every entry of
it replaced by wrong types, deep nesting, huge numbers, markup, surrogates, control characters and
long strings, and attacks on the whole file; here the whole file is also re-encoded (UTF-8 with a
BOM, UTF-16, Latin-1, UTF-32, random bytes), and hypothesis mutates values and bytes further. Cases run
in-process through ``score_document`` (the CLI's and the server's single entry point) and the
renderers; a few run as real subprocesses for the exit code and the stderr line.

No timing assertions (the machine is shared): that scoring stays fast is checked structurally
instead: every string and list has a length limit enforced before any matching, and fuzzy name
suggestions are never computed for text longer than any name.
"""

from __future__ import annotations

import copy
import io
import itertools
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Console
from typer.testing import CliRunner

from tests import waits
from tests.hostile_cases import VALID, VALUES, entry_cases, paths, replaced, whole_files
from tracklayer import score_file
from tracklayer.cli import app
from tracklayer.score_file import ScoreFileError, score_document
from tracklayer.tui.results import print_result

ROOT = Path(__file__).resolve().parents[1]

# every kind at every entry but the long lists (~1 MB documents: tens of seconds at every entry),
# which test_long_lists_at_some_entries samples and benchmarks/score_hostile.py runs in full
KINDS = [kind for kind in VALUES if kind != "long lists"]


def check_outcome(data: Any) -> str:
    """Score ``data``; a result must render as text and JSON, an error must be one clean line."""
    try:
        result = score_document(data)
    except ScoreFileError as exc:
        line = str(exc)
        assert line and "\n" not in line and "\r" not in line, line
        assert len(line) < 400, line
        assert "please report" not in line, line  # the schema, not the last-resort net, caught it
        line.encode("utf-8")  # printable: no lone surrogates
        assert not re.search(r"[\x00-\x1f\x7f]", line), line
        return "error"
    json.dumps(result, ensure_ascii=False).encode("utf-8")
    out = io.StringIO()
    print_result(result, Console(file=out, width=120, color_system=None))
    for p in result["players"]:
        assert p["name"] in out.getvalue()  # names are printed literally, markup and all
    return "ok"


@pytest.mark.parametrize("game", list(VALID))
def test_the_valid_files_score(game):
    assert check_outcome(VALID[game]) == "ok"
    text = json.dumps(VALID[game], ensure_ascii=False)
    same = score_document(VALID[game])
    for raw in (text, text.encode(), b"\xef\xbb\xbf" + text.encode(), "\ufeff" + text,
                b"\xff\xfe" + text.encode("utf-16-le"), b"\xfe\xff" + text.encode("utf-16-be"),
                b"\xff\xfe\x00\x00" + text.encode("utf-32-le"), b"\x00\x00\xfe\xff" + text.encode("utf-32-be")):
        assert score_document(raw) == same


@pytest.mark.parametrize("game", list(VALID))
def test_every_entry_replaced_by_hostile_values(game):
    outcomes = {"ok": 0, "error": 0}
    for _game, _kind, _label, doc in entry_cases(KINDS, [game]):
        outcomes[check_outcome(doc)] += 1
        outcomes[check_outcome(json.dumps(doc, ensure_ascii=True, allow_nan=True))] += 1
    assert outcomes["error"] > 100 and outcomes["ok"] > 0  # both kinds really happen


def test_long_lists_at_some_entries():
    for _game, _kind, _label, doc in itertools.islice(entry_cases(["long lists"]), 0, None, 15):
        assert check_outcome(doc) == "error"
        assert check_outcome(json.dumps(doc)) == "error"


def test_whole_file_attacks():
    outcomes = [check_outcome(raw) for raw in whole_files()]
    assert outcomes.count("error") >= len(outcomes) - 1  # the valid file prefixed by a Latin-1 é may score


@pytest.mark.parametrize(("raw", "needle"), [
    (json.dumps(VALID["ttr-europe"]).encode("utf-16-le"), "UTF-16 without a byte order mark"),
    (json.dumps(VALID["trans-europa"], ensure_ascii=False).encode("latin-1"), "not UTF-8 text: byte 0xFC"),
    (b"\xff\xfe\x00\x00" + b"{\x00\x00\x00\x00\x00\x11\x00",
     "not valid UTF-32 text: code point not in range(0x110000) at byte offset 8"),
    (b"\x00\x00\xfe\xff\x00\x00\x00", "not valid UTF-32 text: truncated data at byte offset 4"),
    (b"\xff\xfe\x00\xd8\x00\x00", "not valid UTF-16 text: illegal UTF-16 surrogate at byte offset 2"),
    (b"\xfe\xff\x00{\x00", "not valid UTF-16 text: truncated data at byte offset 4"),
    (bytes(range(256)), "binary data"),
    (b"\x89PNG\r\n\x1a\n", "binary data"),
    (b"[" * 100_000, "nested more than"),
    (b'{"a":' * 50_000, "nested more than"),
    (b'{"game": "ttr-europe", "players": [{"name": "A"}], "notes": ' + b"[" * 40 + b"]" * 40 + b"}",
     "notes[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]: nested more than 16 levels"),
    (b"1" * 100_000, "got a number of 100000 characters"),
    (b'{"game": "ttr-europe", "players": [{"name": "A", "tickets": [["Paris", "Wien", ' + b"9" * 5000 + b"]]}]}",
     "players[0].tickets[0][2]: points must be a positive whole number (at most 1000), got a number of 5000 "),
    (b'{"game": "trans-america", "players": [{"name": "A", "score": 1e999}]}',
     "players[0].score: 'score' (prestige before this round) must be a whole number from 0 to 1000, got inf"),
    (b'{"game": "ttr-europe", "players": [{"name": "A"}], "x": [NaN]}', "x[0]: nan is not a finite number"),
    (b'{"game": NaN}', "game: 'game' must be one of"),
    (b'{"game": "ttr-europe", "players": [{"name": "\\ud800"}]}', "players[0].name: text with a lone surrogate"),
    (b"", "not valid JSON"),
    (b"{oops", "line 1, column 2: not valid JSON"),
    (b"x" * 1_000_001, "more than 1,000,000 bytes"),
    (b'{"game": "ttr-europe", "players": [{"name": "' + b"n" * 20_000 + b'"}]}',
     "players[0].name: a player's name has at most 64 characters, got 20,000"),
    (b'{"game": "ttr-europe", "variant": [], "players": [{"name": "A"}]}', "variant: 'variant' must be text"),
    (b'{"game": "ttr-europe", "variant": {}, "players": [{"name": "A"}]}', "variant: 'variant' must be text"),
    (b'{"game": "trans-europa", "players": [{"name": "A", "start": [1, 2], "cities": ["Oslo"], "score": true}]}',
     "players[0].score: 'score' (prestige before this round) must be a whole number"),
    (b'{"game": "ttr-europe", "players": [{"name": "A", "routes": [5]}]}',
     "players[0].routes[0]: this must be [city, city] or [city, city, colour], got 5"),
    (b'{"game": "ttr-europe", "players": [{"name": "A", "tickets": [["Paris", ["Wien"], 3]]}]}',
     "players[0].tickets[0][1]: a city must be text, got a list of 1"),
    (b'{"game": "ttr-europe", "players": [{"name": "A", "tickets": [["Paris", "Wien", "8"]]}]}',
     "players[0].tickets[0][2]: points must be a positive whole number"),
    (b'{"game": "ttr-europe", "players": [{"name": "A", "tickets": [["Paris", "Wien", -8]]}]}',
     "players[0].tickets[0][2]: points must be a positive whole number"),
    (b'{"game": ["ttr-europe"], "players": []}', "game: 'game' must be one of ttr-europe, ttr-new-york, "
                                                "trans-europa, trans-america, got a list of 1"),
    (b'[1, 2]', "the file must hold a JSON object"),
])
def test_bad_bytes_give_one_clear_line(raw, needle):
    with pytest.raises(ScoreFileError) as info:
        score_document(raw)
    assert needle in str(info.value)
    assert check_outcome(raw) == "error"


def test_long_text_is_refused_before_any_name_matching(monkeypatch):
    """Linear time, structurally: a long city or player name never reaches fuzzy matching."""
    import difflib

    from tracklayer.core import names
    from tracklayer.ttr.board import load_board

    calls: list[int] = []
    real = difflib.get_close_matches

    def counting(word: str, *args: Any, **kwargs: Any) -> Any:
        calls.append(len(word))
        return real(word, *args, **kwargs)

    monkeypatch.setattr(names.difflib, "get_close_matches", counting)
    for game, doc in VALID.items():
        key = "cities" if game.startswith("trans-") else "stations"
        for n in (65, 1_000, 9_000):
            bad = replaced(doc, ("players", 0, key), ["Q" * n])
            with pytest.raises(ScoreFileError, match=r"a city has at most 64 characters"):
                score_document(bad)
    assert calls == []
    # the name index itself refuses to compare text far longer than its longest name
    index = load_board("ttr-europe").city_index
    assert index.suggest("Pariss") == ["Paris"]
    assert index.suggest("Paris" * 50) == []
    assert calls == [6]


def test_markup_names_print_literally():
    doc = copy.deepcopy(VALID["ttr-europe"])
    doc["players"][0]["name"] = "[/red]"
    doc["players"][1]["name"] = "[bold]:smile:"
    res = CliRunner().invoke(app, ["score", "-"], input=json.dumps(doc))
    assert res.exit_code == 0, res.output
    assert "[/red]" in res.output and "[bold]:smile:" in res.output
    trans = copy.deepcopy(VALID["trans-europa"])
    trans["players"][0]["name"] = "[link=x]A[/link]"
    res = CliRunner().invoke(app, ["score", "-"], input=json.dumps(trans))
    assert res.exit_code == 0 and "[link=x]A[/link]" in res.output


def test_files_that_cannot_be_read(tmp_path, monkeypatch):
    runner = CliRunner()
    res = runner.invoke(app, ["score", str(tmp_path / "missing.json")])
    assert res.exit_code == 2 and res.output == f"error: {tmp_path / 'missing.json'}: no such file\n"
    res = runner.invoke(app, ["score", str(tmp_path)])
    assert res.exit_code == 2 and res.output == f"error: {tmp_path}: is a directory, not a file\n"
    locked = tmp_path / "locked.json"
    locked.write_text("{}")
    locked.chmod(0)
    if os.geteuid() == 0:  # root reads anything: make open() refuse as it would for anybody else
        def refuse(*args: Any, **kwargs: Any) -> Any:
            raise PermissionError(13, "Permission denied")

        monkeypatch.setattr(score_file, "open", refuse, raising=False)
    res = runner.invoke(app, ["score", str(locked)])
    assert res.exit_code == 2 and res.output == f"error: {locked}: permission denied\n"


# --------------------------------------------------------------------------------------- hypothesis
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=80),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(list(VALID)), st.data())
def test_random_values_anywhere(game, data):
    doc = VALID[game]
    path = data.draw(st.sampled_from(list(paths(doc))))
    check_outcome(replaced(doc, path, data.draw(JSON)))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(list(VALID)), st.sampled_from(["utf-8", "utf-8-sig", "utf-16"]), st.data())
def test_random_byte_mutations(game, encoding, data):
    raw = bytearray(json.dumps(VALID[game], ensure_ascii=False).encode(encoding))
    for _ in range(data.draw(st.integers(1, 4))):
        op = data.draw(st.sampled_from(["flip", "insert", "delete", "repeat"]))
        at = data.draw(st.integers(0, len(raw) - 1))
        if op == "flip":
            raw[at] = data.draw(st.integers(0, 255))
        elif op == "insert":
            raw[at:at] = data.draw(st.binary(min_size=1, max_size=8))
        elif op == "delete":
            del raw[at:at + data.draw(st.integers(1, 8))]
        else:
            raw[at:at] = raw[at:at + 4] * data.draw(st.integers(1, 3000))
        if not raw:
            raw = bytearray(b"{")
    check_outcome(bytes(raw))


# --------------------------------------------------------------------------------------- subprocess
@pytest.mark.parametrize(("content", "status"), [
    (json.dumps(VALID["trans-america"]).encode(), 0),
    (b"[" * 100_000, 2),
    (json.dumps(VALID["ttr-europe"]).replace("Ann", "[/red]").encode("latin-1"), 0),
    ("é".encode("latin-1") + b"{}", 2),
    (b'{"game": "ttr-europe", "players": [{"name": "\\udc80x"}]}', 2),
    (b'{"game": "ttr-europe", "players": [{"name": "A", "tickets": [["Paris", "Wien", ' + b"7" * 5000 + b"]]}]}", 2),
])
def test_the_installed_command(tmp_path, content, status):
    path = tmp_path / "game.json"
    path.write_bytes(content)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, "-m", "tracklayer.cli", "score", str(path)], capture_output=True,
                          timeout=waits.scaled(120), env=env)
    assert proc.returncode == status, proc.stderr
    if status:
        assert proc.stdout == b""
        assert re.fullmatch(rb"error: " + re.escape(str(path).encode()) + rb": [^\n]+\n", proc.stderr), proc.stderr
    else:
        assert proc.stderr == b"" and re.search(rb"(Winner|Leader): ", proc.stdout)


def test_the_benchmark_runs_on_the_same_corpus_without_test_dependencies(tmp_path):
    """benchmarks/score_hostile.py imports tests/hostile_cases.py from a plain checkout, run from
    anywhere, with pytest and hypothesis unimportable: a quick --limit 2 of every kind, none escaped."""
    bench = ROOT / "benchmarks" / "score_hostile.py"
    script = ("import runpy, sys\n"
              "sys.modules.update(pytest=None, hypothesis=None)  # importing them raises ImportError\n"
              f"sys.argv = [{str(bench)!r}, '--limit', '2']\n"
              "runpy.run_path(sys.argv[0], run_name='__main__')\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True,
                          timeout=waits.scaled(300), env=env)
    assert proc.returncode == 0, proc.stderr
    rows = {line[:20].strip(): line[20:].split() for line in proc.stdout.splitlines()[1:-1]}
    assert set(rows) == {*VALUES, "whole file"}, proc.stdout
    assert all(n == "2" and escaped == "0" for n, _ok, _err, escaped, *_ms in rows.values()), proc.stdout
