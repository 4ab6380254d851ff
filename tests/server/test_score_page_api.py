"""What the score page relies on: ``POST /api/score`` answers exactly what ``tracklayer score --json``
prints (the real command, in a subprocess) for positions of all four games, and bad files get a 400
with the CLI's error line; ``GET /api/boards/{game}/tickets`` lists each board's tickets and decks."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests import waits
from tests.server.helpers import database_url
from tracklayer.server import Settings, create_app
from tracklayer.ttr.board import load_board

ROOT = Path(__file__).resolve().parents[2]

POSITIONS = {
    "europe": {"game": "ttr-europe", "tiebreak": "anniversary-de", "variant": "classic", "players": [
        {"name": "Ann", "color": 3, "routes": [["Paris", "Frankfurt", "white"], ["Frankfurt", "München"],
                                              ["München", "Wien"]],
         "stations": ["Berlin"], "tickets": [["Paris", "Wien"], ["Paris", "Berlin", 7]]},
        {"name": "Bob", "routes": [["Berlin", "Frankfurt", "red"], ["Berlin", "Danzig"]],
         "tickets": [["Berlin", "Roma"]]},
        {"name": "Cy"}]},
    "new-york": {"game": "ttr-new-york", "players": [
        {"name": "Ann", "routes": [["Brooklyn", "Lower East Side"]], "tickets": [["Brooklyn", "Lower East Side", 4]]},
        {"name": "Bob"}]},
    "trans-europa": {"game": "trans-europa", "rails": [[[9, 6], [10, 5]]], "special_cards": [4],
                     "players": [{"name": "Ann", "start": [9, 6], "cities": ["Oslo"], "score": 2},
                                 {"name": "Bob", "start": [13, 6], "cities": ["Madrid"]}]},
    "trans-america": {"game": "trans-america", "rails": [[[8, 8], [7, 9]]],
                      "players": [{"name": "Ann", "start": [8, 8], "cities": ["Phoenix"]},
                                  {"name": "Bob", "start": [12, 8], "cities": ["Denver"]}]},
}
BAD = [
    b"{oops",
    b'{"game": "ttr-europe", "players": [{"name": "A", "routes": [["Paris", "Frankfurt", "white"]]},'
    b' {"name": "B", "routes": [["Paris", "Frankfurt", "orange"]]}]}',
    b'{"game": "ttr-new-york", "players": [{"name": "A", "stations": ["Brooklyn"]}]}',
    b'{"game": "trans-europa", "players": [{"name": "A", "start": [99, 99], "cities": ["Oslo"]}]}',
    b'{"game": "trans-america", "rails": [[[8, 8], [7, 9]], [[7, 9], [8, 8]]], "players": [{"name": "A"}]}',
]


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    tmp = tmp_path_factory.mktemp("score-page-api")
    with TestClient(create_app(Settings(database_url=database_url(tmp), tune_gc=False))) as c:
        yield c


def run_cli(tmp_path: Path, content: bytes) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "position.json"
    path.write_bytes(content)
    return subprocess.run([sys.executable, "-m", "tracklayer.cli", "score", "--json", str(path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=waits.scaled(120))


@pytest.mark.parametrize("name", sorted(POSITIONS))
def test_the_api_prints_what_the_cli_prints(client: TestClient, tmp_path: Path, name: str) -> None:
    body = json.dumps(POSITIONS[name], ensure_ascii=False).encode()
    r = client.post("/api/score", content=body)
    assert r.status_code == 200, r.text
    res = run_cli(tmp_path, body)
    assert res.returncode == 0, res.stderr
    assert r.json() == json.loads(res.stdout)
    assert r.json()["players"][0]["name"] == "Ann"


@pytest.mark.parametrize("content", BAD)
def test_errors_are_the_cli_line(client: TestClient, tmp_path: Path, content: bytes) -> None:
    r = client.post("/api/score", content=content)
    res = run_cli(tmp_path, content)
    assert r.status_code == 400 and res.returncode == 2
    prefix = f"error: {tmp_path / 'position.json'}: "
    assert res.stderr.startswith(prefix)
    assert r.json() == {"detail": res.stderr.removeprefix(prefix).rstrip("\n")}


def test_the_ticket_list_of_each_board(client: TestClient) -> None:
    for game in ("ttr-europe", "ttr-new-york"):
        board = load_board(game)
        data = client.get(f"/api/boards/{game}/tickets").json()
        assert len(data["tickets"]) == len(board.tickets)
        assert {(t["id"], t["a"], t["b"], t["points"]) for t in data["tickets"]} == \
            {(t.id, t.a, t.b, t.points) for t in board.tickets}
        assert {v["name"] for v in data["variants"]} == set(board.variants)
        assert data["closed_with_players"] == sorted(board.closed_with_players)
    europe = client.get("/api/boards/ttr-europe/tickets").json()
    assert any("1912" in t["logos"] for t in europe["tickets"])  # the variant decks are there too
    trans = client.get("/api/boards/trans-europa/tickets").json()
    assert trans["tickets"] == []
    # the special cards' effects: the page offers the ones that change a score, and card 16's passes
    cards = {c["id"]: c for c in trans["special_cards"]}
    assert set(cards) == set(range(1, 20)) and cards[16] == {"id": 16, "effect": "pass_cards", "times": 3}
    assert [c for c, v in cards.items() if v["effect"] in ("prestige_table", "single_terrain")] == [1, 2, 4, 5]
    assert client.get("/api/boards/monopoly/tickets").status_code == 404
    assert client.get("/score").status_code == 200
