"""The simulation lab: statistics, reproducible runs, outputs, the CLI and the Ray backend."""

from __future__ import annotations

import csv
import json
import math
import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tracklayer.cli import app
from tracklayer.core.errors import TracklayerError
from tracklayer.lab import run_one, schedule, simulate, tournament
from tracklayer.lab.stats import elo_ratings, mean_std, pairwise_outcomes, wilson


def _strip_times(records: list[dict]) -> list[dict]:
    out = []
    for rec in records:
        rec = dict(rec, wall_seconds=0)
        rec["seats"] = [dict(s, think_seconds=0, max_move_seconds=0) for s in rec["seats"]]
        out.append(rec)
    return out


# ---------------------------------------------------------------------------- statistics


def test_wilson_interval_known_values() -> None:
    lo, hi = wilson(8, 10)
    assert math.isclose(lo, 0.4902, abs_tol=1e-3) and math.isclose(hi, 0.9433, abs_tol=1e-3)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == 1.0
    lo, hi = wilson(200, 400)
    assert lo < 0.5 < hi and hi - lo < 0.1
    assert wilson(0, 0) == (0.0, 1.0)


def test_mean_std_and_elo_order() -> None:
    assert mean_std([1, 2, 3]) == (2.0, 1.0)
    games = [[("a", 1), ("b", 2), ("c", 3)]] * 8 + [[("b", 1), ("a", 2), ("c", 3)]] * 2
    elo = elo_ratings(pairwise_outcomes(games))
    assert elo["a"] > elo["b"] > elo["c"]
    assert math.isclose(sum(elo.values()) / 3, 1500, abs_tol=1e-6)
    assert pairwise_outcomes([[("a", 1), ("b", 1)]]) == [("a", "b", 0.5)]


def test_schedule_rotates_seats_over_each_deal() -> None:
    specs = schedule("ttr-europe", ["x", "y", "z"], 6, seed=1)
    assert [s.seats for s in specs[:3]] == [("x", "y", "z"), ("y", "z", "x"), ("z", "x", "y")]
    assert specs[0].seed == specs[1].seed == specs[2].seed != specs[3].seed
    assert schedule("ttr-europe", ["x", "y", "z"], 6, seed=1) == specs
    assert schedule("ttr-europe", ["x", "y", "z"], 6, seed=2)[0].seed != specs[0].seed


# ---------------------------------------------------------------------------- runs


def test_simulate_is_reproducible_and_parallel_equals_serial(tmp_path: Path) -> None:
    a = simulate("ttr-new-york", ["planner", "random"], 4, seed=5, jobs=1)
    b = simulate("ttr-new-york", ["planner", "random"], 4, seed=5, jobs=2)
    assert _strip_times(a["games"]) == _strip_times(b["games"])
    assert a["summary"]["planner"]["wins"] == b["summary"]["planner"]["wins"]
    c = simulate("ttr-new-york", ["planner", "random"], 4, seed=6, jobs=1)
    assert _strip_times(c["games"]) != _strip_times(a["games"])


def test_simulate_writes_json_csv_png_with_sane_numbers(tmp_path: Path) -> None:
    res = simulate("ttr-europe", ["planner", "greedy", "random"], 3, seed=1, jobs=2, out=tmp_path)
    names = {Path(f).name for f in res["files"]}
    assert {"simulate.json", "simulate_games.csv", "simulate_bots.csv", "simulate_scores.png",
            "simulate_winrates.png", "simulate_ratings.png"} <= names
    for f in res["files"]:
        assert Path(f).stat().st_size > 0
    assert (tmp_path / "simulate_scores.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    doc = json.loads((tmp_path / "simulate.json").read_text())
    assert doc["meta"]["games"] == 3 and len(doc["games"]) == 3
    total_wins = 0.0
    for name, s in doc["summary"].items():
        lo, hi = s["win_ci95"]
        assert 0.0 <= lo <= s["win_rate"] <= hi <= 1.0, name
        assert s["games"] == 3
        assert s["move_seconds_mean"] >= 0 and s["score_sd"] >= 0
        assert set(s["sources_mean"]) >= {"routes", "tickets", "stations", "longest_path"}
        assert set(s["play_mean"]) == {"cards_at_end", "ticket_draws", "face_up_locomotives", "stations_built",
                                       "stations_used", "tickets_failed", "blocked", "won_after_blocked"}
        total_wins += s["wins"]
    assert math.isclose(total_wins, 3)
    with (tmp_path / "simulate_games.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 9 and {r["bot"] for r in rows} == {"planner", "greedy", "random"}
    assert all(float(r["cards_at_end"]) >= 0 and float(r["face_up_locomotives"]) >= 0 for r in rows)
    # every bot sat in every seat of the one deal
    assert {(r["bot"], r["seat"]) for r in rows} == {(b, str(k)) for b in ("planner", "greedy", "random")
                                                     for k in range(3)}
    # the route/ticket/bonus breakdown adds up to the total
    for rec in doc["games"]:
        for s in rec["seats"]:
            src = s["sources"]
            assert src["routes"] + src["tickets"] + src["stations"] + src["longest_path"] + src["attractions"] \
                == s["total"]


def test_run_one_record_for_trans() -> None:
    [spec] = schedule("trans-america", ["steiner", "random"], 1, seed=3)
    rec = run_one(spec)
    assert rec["length"]["rounds"] >= 1 and rec["winners"] == [0]
    assert rec["seats"][0]["bot"] == "steiner" and "rounds_connected" in rec["seats"][0]["sources"]


def test_tournament_round_robin_and_ladder(tmp_path: Path) -> None:
    rr = tournament("ttr-new-york", ["random", "planner", "greedy"], 2, seed=1, jobs=2, out=tmp_path)
    assert len(rr["matches"]) == 3 and len(rr["games"]) == 6
    assert rr["ratings"]["planner"]["elo"] > rr["ratings"]["random"]["elo"]
    assert (tmp_path / "tournament_ratings.png").exists() and (tmp_path / "tournament_bots.csv").exists()
    lad = tournament("ttr-new-york", ["random", "planner"], 2, fmt="ladder", passes=1, seed=1)
    assert lad["ladder"] == ["planner", "random"]
    with pytest.raises(TracklayerError, match="format"):
        tournament("ttr-new-york", ["random", "planner"], 2, fmt="swiss")


def test_unknown_bot_and_bad_arguments() -> None:
    with pytest.raises(TracklayerError, match="unknown bot"):
        simulate("ttr-europe", ["planner", "wizard"], 2)
    with pytest.raises(TracklayerError, match="two seats"):
        simulate("ttr-europe", ["planner"], 2)
    with pytest.raises(TracklayerError, match="backend"):
        simulate("ttr-europe", ["planner", "random"], 1, backend="slurm")


# ---------------------------------------------------------------------------- CLI


def test_cli_simulate_and_tournament(tmp_path: Path) -> None:
    runner = CliRunner()
    res = runner.invoke(app, ["simulate", "ttr-new-york", "--players", "planner,random", "--games", "2",
                              "--seed", "3", "--out", str(tmp_path / "sim")])
    assert res.exit_code == 0, res.output
    assert "planner" in res.output and "Win %" in res.output
    assert "How they play" in res.output and "Cards at end" in res.output and "Face-up locos" in res.output
    assert (tmp_path / "sim" / "simulate_winrates.png").exists()
    res = runner.invoke(app, ["simulate", "ttr-new-york", "--players", "planner,random", "--games", "2", "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["summary"]["planner"]["games"] == 2
    res = runner.invoke(app, ["tournament", "trans-america", "--bots", "steiner,random", "--games", "2", "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["summary"]["steiner"]["wins"] == 2
    res = runner.invoke(app, ["simulate", "ttr-europe", "--players", "planner,wizard", "--games", "1"])
    assert res.exit_code == 2 and "unknown bot 'wizard'" in res.output


# ---------------------------------------------------------------------------- Ray


def test_ray_backend_matches_process_backend() -> None:
    ray = pytest.importorskip("ray")
    try:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True,
                 runtime_env={"env_vars": {"PYTHONPATH": str(Path(__file__).resolve().parents[2])}})
    except Exception as exc:  # e.g. no shared memory in a sandbox: Ray itself cannot start here
        pytest.skip(f"ray cannot start: {exc}")
    try:
        a = simulate("ttr-new-york", ["planner", "greedy"], 2, seed=4, jobs=2, backend="ray")
    finally:
        ray.shutdown()
    b = simulate("ttr-new-york", ["planner", "greedy"], 2, seed=4, jobs=1)
    assert _strip_times(a["games"]) == _strip_times(b["games"])


def test_play_statistics_count_what_the_seat_did() -> None:
    """The statistics that show a bot's habits (cards held at the end, ticket draws, face-up locomotives,
    stations built and used, failed tickets) count the seat's own moves in the game's log."""
    import tracklayer
    from tracklayer.lab.runner import _play_stats

    g = tracklayer.new_game("ttr-europe", 2, seed=3)
    rnd = random.Random(3)
    while not g.is_over:
        legal = g.legal_actions()
        g.apply(legal[rnd.randrange(len(legal))])
    result = g.result()
    loco = g.board.loco
    for seat, p in enumerate(result["players"]):
        stats = _play_stats(g, seat, p, blocked=seat == 0)
        mine = [a for mover, a, _ in g.move_log if mover == seat]
        assert stats["cards_at_end"] == sum(g.state.hands[seat])
        assert stats["ticket_draws"] == sum(1 for a in mine if str(a) == "tickets")
        assert stats["face_up_locomotives"] == sum(1 for a in mine if str(a) == f"draw {g.board.card_name(loco)}")
        assert stats["stations_built"] == sum(1 for a in mine if a.kind == "station") == 3 - g.state.stations_left[seat]
        assert 0 <= stats["stations_used"] <= stats["stations_built"]
        assert stats["tickets_failed"] == p["failed_tickets"]
        assert stats["blocked"] == float(seat == 0)
        assert stats["won_after_blocked"] == float(seat == 0 and p["rank"] == 1)
    assert any(_play_stats(g, seat, p, False)["ticket_draws"] for seat, p in enumerate(result["players"]))
    assert _play_stats(tracklayer.new_game("trans-europa", 2, seed=0), 0, {}, False) == {}
