"""``tracklayer score``: real positions in, readable or JSON breakdown out, exit 2 on bad input."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from tests import waits
from tracklayer.cli import app

runner = CliRunner()

POSITION = {
    "game": "ttr-europe",
    "players": [
        {"name": "Ann",
         "routes": [["Paris", "Frankfurt", "white"], ["Frankfurt", "München"], ["München", "Wien"],
                    ["Wien", "Budapest"]],
         "stations": ["Berlin"],
         "tickets": [["Paris", "Wien"], ["Lisboa", "Danzig", 20]]},
        {"name": "Bob",
         "routes": [["Berlin", "Frankfurt"], ["Berlin", "Danzig"], ["Paris", "Frankfurt"]],
         "tickets": [["Berlin", "Roma"]]},
    ],
}


def score(tmp_path, data, *args):
    path = tmp_path / "game.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return runner.invoke(app, ["score", str(path), *args])


def test_json_output_has_the_documented_fields(tmp_path):
    data = json.loads(json.dumps(POSITION))
    data["players"][1]["routes"].pop()
    res = score(tmp_path, data, "--json")
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    ann, bob = out["players"]
    for key in ("name", "total", "route_points", "ticket_points", "completed_tickets", "station_points",
                "stations_built", "longest_path", "longest_path_bonus"):
        assert key in ann
    assert "attraction_points" not in ann
    # Ann: lengths 3, 2, 3, 1 score 4 + 2 + 4 + 1; Paris-Wien done (+8), Lisboa-Danzig failed (-20)
    assert ann["route_points"] == 4 + 2 + 4 + 1
    assert ann["ticket_points"] == 8 - 20 and ann["completed_tickets"] == 1
    assert ann["stations_built"] == 1 and ann["station_points"] == 8
    assert ann["longest_path"] == 3 + 2 + 3 + 1 and ann["longest_path_bonus"] == 10
    assert bob["longest_path"] == 3 + 4 and bob["longest_path_bonus"] == 0
    assert out["winners"] == ["Ann"]


def test_two_players_may_not_use_both_lanes_of_a_double(tmp_path):
    res = score(tmp_path, POSITION)
    # 2 players: Ann named the white lane, Bob's colourless entry would take the orange lane
    assert res.exit_code == 2
    assert "players: Bob and Ann both claim a lane of Frankfurt-Paris" in res.output and "only one lane" in res.output
    data = json.loads(json.dumps(POSITION))
    data["players"] += [{"name": "Cy"}, {"name": "Di"}]
    assert score(tmp_path, data).exit_code == 0  # with 4 players both lanes may be used


@pytest.mark.parametrize(
    ("patch", "needle"),
    [
        (lambda d: d["players"][0]["routes"].append(["Pariss", "Wien"]), "players[0].routes[4]: unknown city 'Pariss'"),
        (lambda d: d["players"][0]["routes"].append(["Paris", "Wien"]), "no route joins Paris and Wien"),
        (lambda d: d["players"][1]["routes"].append(["München", "Wien"]), "already claimed by Ann"),
        (lambda d: d["players"][0]["routes"].append(["Paris", "Frankfurt", "orange"]), "owns both lanes"),
        (lambda d: d["players"][0]["stations"].extend(["Roma", "Wien", "Riga"]), "4 stations"),
        (lambda d: d["players"][1].update(stations=["Berlin"]), "already has a station"),
        (lambda d: d["players"][0]["tickets"].append(["Paris", "Riga"]), "add its points"),
        (lambda d: d["players"][0]["tickets"].append(["Paris", "Narnia", 5]), "unknown city 'Narnia'"),
        (lambda d: d.update(game="ttr-mars"), "'game' must be"),
    ],
)
def test_bad_input_exits_2_naming_player_and_entry(tmp_path, patch, needle):
    data = json.loads(json.dumps(POSITION))
    data["players"][1]["routes"].pop()  # make the base position valid
    patch(data)
    res = score(tmp_path, data)
    assert res.exit_code == 2
    assert needle in res.output


def test_too_many_wagons(tmp_path):
    long_routes = [["Petrograd", "Stockholm"], ["Palermo", "Smyrna"], ["Budapest", "Kyiv"], ["Edinburgh", "London"],
                   ["Kharkov", "Moskva"], ["Moskva", "Petrograd"], ["Athina", "Sarajevo"], ["Barcelona", "Marseille"],
                   ["Berlin", "Danzig"], ["Riga", "Wilno"]]  # 8 + 6 + 6 + 7 * 4 = 48
    data = {"game": "ttr-europe", "players": [{"name": "Zed", "routes": long_routes}]}
    res = score(tmp_path, data)
    assert res.exit_code == 2 and "players[0].routes: Zed's routes use 48 wagons, more than the 45" in res.output


def test_valid_position_prints_a_readable_table(tmp_path):
    data = json.loads(json.dumps(POSITION))
    data["players"][1]["routes"].pop()
    res = score(tmp_path, data)
    assert res.exit_code == 0, res.output
    assert "Final scores" in res.output and "Winner: Ann" in res.output
    assert "Paris – Wien +8" in res.output


def test_new_york_counts_attractions_and_has_no_stations(tmp_path):
    data = {"game": "ttr-new-york", "players": [
        {"name": "Ann", "routes": [["Central Park", "Times Square", "red"], ["Times Square", "Empire State Building"]],
         "tickets": []},
        {"name": "Bob", "routes": [["Chinatown", "Wall Street"]], "tickets": []}]}
    res = score(tmp_path, data, "--json")
    assert res.exit_code == 0, res.output
    ann = json.loads(res.output)["players"][0]
    assert "stations_built" not in ann and "longest_path" not in ann
    assert ann["attraction_points"] == len(ann["attractions"])
    data["players"][0]["stations"] = ["Soho"]
    assert score(tmp_path, data).exit_code == 2


def test_the_installed_command_reads_stdin_and_fails_cleanly(tmp_path):
    cmd = [sys.executable, "-m", "tracklayer.cli", "score", "-", "--json"]
    good = {"game": "ttr-new-york", "players": [{"name": "A", "routes": [["Chelsea", "Soho"]]}]}
    proc = subprocess.run(cmd, input=json.dumps(good), capture_output=True, text=True, timeout=waits.scaled(60))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["winners"] == ["A"]
    proc = subprocess.run(cmd, input="{oops", capture_output=True, text=True, timeout=waits.scaled(60))
    assert proc.returncode == 2 and "not valid JSON" in proc.stderr
    assert "Traceback" not in proc.stderr
