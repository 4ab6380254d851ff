"""``POST /api/score``: exactly what ``tracklayer score --json`` prints, and the CLI's error line as a 400."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from tests.hostile_cases import encoded_files, whole_files
from tests.server.helpers import database_url
from tracklayer.cli import app as cli
from tracklayer.server import Settings, create_app

GOOD = {"game": "ttr-europe", "players": [
    {"name": "Ann", "routes": [["Paris", "Frankfurt", "white"], ["Frankfurt", "München"]],
     "tickets": [["Paris", "Wien"]]},
    {"name": "[/red]", "routes": [["Berlin", "Danzig"]]}]}
TRANS = {"game": "trans-america", "rails": [],
         "players": [{"name": "Ann", "start": [8, 8], "cities": ["Phoenix"]}]}


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    tmp = tmp_path_factory.mktemp("score-api")
    settings = Settings(database_url=database_url(tmp), tune_gc=False)
    with TestClient(create_app(settings)) as c:
        yield c


def cli_score(tmp_path: Path, content: bytes) -> tuple[int, str]:
    path = tmp_path / "game.json"
    path.write_bytes(content)
    res = CliRunner().invoke(cli, ["score", str(path), "--json"])
    prefix = f"error: {path}: "
    if res.exit_code == 2:
        assert res.output.startswith(prefix) and res.output.endswith("\n")
        return 2, res.output[len(prefix):-1]
    return res.exit_code, res.output


@pytest.mark.parametrize("doc", [GOOD, TRANS])
def test_the_answer_is_what_score_json_prints(client: TestClient, tmp_path: Path, doc: dict) -> None:
    body = json.dumps(doc, ensure_ascii=False).encode()
    r = client.post("/api/score", content=body, headers={"content-type": "application/json"})
    assert r.status_code == 200, r.text
    code, out = cli_score(tmp_path, body)
    assert code == 0 and r.json() == json.loads(out)


@pytest.mark.parametrize("content", [
    b"{oops",
    b"[" * 50_000,
    "é".encode("latin-1"),
    b'{"game": "ttr-europe", "players": [{"name": "A", "routes": [["Pariss", "Wien"]]}]}',
    b'{"game": "ttr-europe", "players": [{"name": "A", "tickets": [["Paris", "Wien", ' + b"9" * 5000 + b"]]}]}",
    b'{"game": "ttr-europe", "variant": [], "players": [{"name": "A"}]}',
    b'{"game": "trans-europa", "players": [{"name": "\\ud800", "start": [9, 6], "cities": ["Oslo"]}]}',
])
def test_bad_files_give_400_with_the_cli_message(client: TestClient, tmp_path: Path, content: bytes) -> None:
    r = client.post("/api/score", content=content)
    assert r.status_code == 400
    code, line = cli_score(tmp_path, content)
    assert code == 2 and r.json() == {"detail": line}


def test_the_cli_and_the_api_give_the_same_answer_to_the_same_bytes(client: TestClient, tmp_path: Path) -> None:
    """One decoder (``score_document``'s) for both: a UTF-16 or UTF-32 file with a byte order mark
    scores on the page as on the command line, whatever Content-Type the page sends, and every
    refused file is refused with the same line."""
    corpus = [*encoded_files(), *whole_files(), b"[" * 50, b'{"game": NaN}', b"",
              b'{"game": "ttr-europe", "players": [{"name": "A", "tickets": [["Paris", "Wien", ' + b"9" * 50 + b"]]}]}"]
    for i, content in enumerate(corpus):
        code, out = cli_score(tmp_path, content)
        expected = (200, json.loads(out)) if code == 0 else (400, {"detail": out})
        assert code in (0, 2), out
        for headers in ({}, {"content-type": "application/json"}, {"content-type": "text/plain"}):
            r = client.post("/api/score", content=content, headers=headers)
            assert (r.status_code, r.json()) == expected, (i, headers, content[:60])
