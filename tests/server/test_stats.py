"""Per-player statistics on the profile: each account seat of a finished game stores its final
numbers (tracklayer.server.accounts.stats), and the profile adds them up per family.

A real server plays a rated New York game against a bot; the store's summary is checked on games of both
families with known numbers; a database of the 0008 schema with a finished game upgrades and its profile
still opens (a game without statistics counts in no summary)."""

from __future__ import annotations

import json
import secrets
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa

from tests import waits
from tests.server.helpers import database_url, play_out, running
from tracklayer.server.accounts import AccountStore, account_games
from tracklayer.server.accounts.stats import seat_stats
from tracklayer.server.db import make_engine, migrate

PASSWORD = "correct horse battery"


def name(prefix: str) -> str:
    return f"{prefix}_{secrets.token_hex(4)}"


def test_a_finished_game_stores_the_seats_numbers_and_the_profile_adds_them_up(tmp_path: Path) -> None:
    user = name("Stat")
    with running(database_url(tmp_path), tmp_path / "server.log", rate=1000.0) as server, \
            httpx.Client(base_url=server.base, timeout=waits.scaled(20)) as http:
        r = http.post("/api/register", json={"username": user, "password": PASSWORD})
        assert r.status_code == 201, r.text
        r = http.post("/api/games", headers={"X-CSRF-Token": r.json()["csrf"]}, json={
            "game": "ttr-new-york", "first_player": 0,
            "seats": [{"name": user}, {"kind": "bot", "bot": "greedy", "name": "Robo"}]})
        assert r.status_code == 201, r.text
        created = r.json()
        final = play_out(server, created["id"], created["seats"][0]["token"])
        result = final["view"]["result"]
        mine = next(p for p in result["players"] if p["seat"] == 0)
        # the statistics are written with the rating, just after the last move
        def with_stats() -> dict[str, Any]:
            profile: dict[str, Any] = http.get(f"/api/users/{user}").json()
            return profile if profile["stats"] else {}

        profile = waits.until(with_stats, 30, "the game's statistics on the profile")

    (game,) = profile["games"]
    want = seat_stats(result, 0)
    assert game["id"] == created["id"] and game["stats"] == want
    assert want["total"] == mine["total"] and want["route_points"] == mine["route_points"]
    assert want["ticket_points"] == mine["ticket_points"] and want["attractions"] == len(mine["attractions"])
    assert want["tickets_completed"] == sum(t["completed"] for t in mine["tickets"])
    assert want["tickets_failed"] == sum(not t["completed"] for t in mine["tickets"])
    assert "stations_built" not in want and "longest_path" not in want  # New York has neither
    assert (want["route_points"] + want["ticket_points"] + want["attraction_points"]) == want["total"]
    summary = profile["stats"]
    assert set(summary) == {"ttr"}
    ttr = summary["ttr"]
    assert ttr["games"] == 1 and ttr["wins"] == int(mine["rank"] == 1)
    assert ttr["total"] == mine["total"] and ttr["ticket_points"] == mine["ticket_points"]
    assert ttr["tickets_completed"] == want["tickets_completed"]
    assert ttr["tickets_failed"] == want["tickets_failed"]


def _finished(engine: sa.Engine, store: AccountStore, acct: int, game: str) -> str:
    gid = name("g")
    with engine.begin() as conn:
        conn.execute(sa.text("INSERT INTO games (id, game, setup, seats, spectator_token, status, created_at, "
                             "updated_at) VALUES (:i, :g, '{}', '[]', :i, 'over', 1, 1)"), {"i": gid, "g": game})
    assert store.link_seat(acct, gid, 0)
    return gid


def test_the_summary_per_family(tmp_path: Path) -> None:
    engine = make_engine(database_url(tmp_path))
    migrate(engine)
    try:
        store = AccountStore(engine)
        user = name("sum")
        acct = store.create_account(user, "$argon2id$not-used")
        assert acct is not None
        seats = [{"kind": "human"}, {"kind": "bot", "bot": "greedy"}]
        europe = [
            {"total": 100, "route_points": 60, "ticket_points": 20, "tickets_completed": 3, "tickets_failed": 1,
             "longest_path": 20, "longest_bonus": True, "bonus_points": 10, "stations_built": 0,
             "station_points": 12},
            {"total": 51, "route_points": 40, "ticket_points": -1, "tickets_completed": 1, "tickets_failed": 2,
             "longest_path": 9, "longest_bonus": False, "bonus_points": 0, "stations_built": 3,
             "station_points": 0},
        ]
        york = {"total": 30, "route_points": 20, "ticket_points": 4, "tickets_completed": 2, "tickets_failed": 0,
                "attractions": 2, "attraction_points": 6}
        for stats, rank in ((europe[0], 1), (europe[1], 2)):
            store.finish_game(_finished(engine, store, acct, "ttr-europe"), "ttr-europe", seats, [rank, 3 - rank],
                              [stats, stats])
        store.finish_game(_finished(engine, store, acct, "ttr-new-york"), "ttr-new-york", seats, [2, 1],
                          [york, york])
        for stats, rank in (({"total": 5, "rounds": 3, "rounds_won": 2, "missing_rails": 4}, 1),
                            ({"total": -2, "rounds": 4, "rounds_won": 0, "missing_rails": 15}, 2)):
            store.finish_game(_finished(engine, store, acct, "trans-europa"), "trans-europa", seats,
                              [rank, 3 - rank], [stats, stats])
        _finished(engine, store, acct, "ttr-europe")  # ended before statistics were kept: in no summary
        profile = store.profile(user)
        assert profile is not None
    finally:
        engine.dispose()
    assert profile["stats"]["ttr"] == {
        "games": 3, "wins": 1,
        "total": pytest.approx(181 / 3, abs=0.01), "route_points": 40.0,
        "ticket_points": pytest.approx(23 / 3, abs=0.01),
        "station_points": 6.0, "bonus_points": 5.0, "attraction_points": 6.0,
        "longest_path": 14.5, "stations_built": 1.5, "attractions": 2.0,
        "tickets_completed": 6, "tickets_failed": 3, "ticket_rate": pytest.approx(6 / 9, abs=0.001),
        "longest_bonus_share": 0.5,
    }
    assert profile["stats"]["trans"] == {"games": 2, "wins": 1, "total": 1.5, "rounds": 7, "rounds_won": 2,
                                         "missing_rails": 19}
    assert len(profile["games"]) == 6 and sum("stats" in g for g in profile["games"]) == 5


def test_upgrade_from_0008_keeps_finished_games(tmp_path: Path) -> None:
    """A database of the 0008 schema with an account's finished game upgrades; the game keeps its rank,
    has no statistics, and the profile opens with an empty summary."""
    from alembic import command
    from alembic.config import Config

    db = f"sqlite:///{tmp_path / 'old.sqlite3'}"
    cfg = Config()
    cfg.set_main_option("script_location", str(Path(migrate.__code__.co_filename).parent / "migrations"))
    engine = make_engine(db)
    try:
        with engine.begin() as conn:
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "0008")
            conn.execute(sa.text("INSERT INTO accounts (id, username, username_key, password_hash, created_at) "
                                 "VALUES (1, 'Olda', 'olda', 'h', 1)"))
            conn.execute(sa.text("INSERT INTO games (id, game, setup, seats, spectator_token, status, created_at, "
                                 "updated_at) VALUES ('old1', 'ttr-europe', :s, '[]', 'x', 'over', 1, 1)"),
                         {"s": json.dumps({"game": "ttr-europe"})})
            conn.execute(sa.text("INSERT INTO account_games (account_id, game_id, seat, rank, players, joined_at) "
                                 "VALUES (1, 'old1', 0, 2, 3, 1)"))
        with engine.begin() as conn:
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "head")
        with engine.connect() as conn:
            row = conn.execute(sa.select(account_games)).one()
        assert row.rank == 2 and row.stats is None
        profile = AccountStore(engine).profile("Olda")
    finally:
        engine.dispose()
    assert profile is not None and profile["stats"] == {}
    (game,) = profile["games"]
    assert game["rank"] == 2 and "stats" not in game
