"""The event log: unique move indices, kill -9 and restart, replay."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import httpx
import pytest

import tracklayer
from tests.server.helpers import database_url, running
from tracklayer.server.db import GameRecord, MoveConflict, Store


def test_store_refuses_a_second_move_with_the_same_index(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    rec = GameRecord("g1", "ttr-new-york", "standard", {"game": "ttr-new-york"}, [{"name": "A", "kind": "human"}],
                     "spec", None)
    store.create_game(rec)
    store.append_move("g1", 0, "keep NY01")
    with pytest.raises(MoveConflict):
        store.append_move("g1", 0, "keep NY02")
    store.append_move("g1", 1, "draw deck", status="running")
    again = Store(store.url)  # a second open runs the migrations again: nothing to do
    assert again.load_game("g1").moves == ["keep NY01", "draw deck"]
    assert again.list_games()[0]["moves"] == 2 and again.list_games()[0]["status"] == "running"
    assert again.load_game("nope") is None


def test_default_database_is_a_sqlite_file_in_the_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tracklayer.server import db

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    monkeypatch.setenv("HOME", str(tmp_path))
    url = db.default_database_url()
    assert url.startswith("sqlite:///") and url.endswith("tracklayer.sqlite3")
    assert Path(url.removeprefix("sqlite:///")).parent.is_dir()
    assert db.normalise_url("postgresql://u:p@h/d") == "postgresql+psycopg://u:p@h/d"


def test_the_sqlite_file_is_for_its_owner_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The file holds every seat token: the data folder is made 0700 and the database, its WAL and
    shared-memory files 0600, whatever the umask; an existing file readable by others is tightened."""
    from tracklayer.server import db

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    old_umask = os.umask(0o022)
    try:
        folder = Path(db.default_database_url().removeprefix("sqlite:///")).parent
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
        path = tmp_path / "new" / "deeper" / "db.sqlite3"
        store = Store(f"sqlite:///{path}")
        store.create_game(GameRecord("g1", "ttr-new-york", "standard", {}, [], "spec", None))
        files = [path, Path(f"{path}-wal"), Path(f"{path}-shm")]
        assert all(f.exists() for f in files)
        assert [stat.S_IMODE(f.stat().st_mode) for f in files] == [0o600] * 3
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
        store.close()
        old = tmp_path / "old.sqlite3"
        Store(f"sqlite:///{old}").close()
        old.chmod(0o644)
        Store(f"sqlite:///{old}").close()  # opened again (the server starts): tightened
        assert stat.S_IMODE(old.stat().st_mode) == 0o600
    finally:
        os.umask(old_umask)


def test_kill_9_keeps_every_acknowledged_move(tmp_path: Path) -> None:
    url = database_url(tmp_path)
    log = tmp_path / "server.log"
    acked: list[str] = []
    with running(url, log) as srv:
        out = srv.create("ttr-europe", [{"name": "Ann"}, {"name": "Bob"}], first_player=0)
        gid = out["id"]
        clients = [srv.client(gid, s["token"]) for s in out["seats"]]
        try:
            for _ in range(12):
                st = clients[0].wait_state()
                mover = st["view"]["current_player"]
                c = clients[mover]
                s = c.wait_state(lambda x, n=st["moves"]: x["moves"] == n)
                choice = next((m for m in s["legal"] if m.startswith("claim")), None) or s["legal"][0]
                ack = c.move(choice, s["moves"])
                assert ack["type"] == "ack", ack
                acked.append(ack["move"])
                clients[0].wait_state(lambda x, n=ack["index"]: x["moves"] == n + 1)
            srv.kill9()  # no shutdown, no flush: only what was committed survives
        finally:
            for c in clients:
                c.close()
    with running(url, log) as srv:
        c0 = srv.client(gid, out["seats"][0]["token"])
        c1 = srv.client(gid, out["seats"][1]["token"])
        try:
            st = c0.wait_state()
            assert st["moves"] == len(acked)
            # the seat's own log shows its moves verbatim; the stored log is the acknowledged one
            assert Store(url).load_moves(gid) == acked
            replay = tracklayer.load_game({**Store(url).load_game(gid).setup, "moves": acked})
            assert st["view"]["route_owner"] == replay.view(0)["route_owner"]
            mover = st["view"]["current_player"]
            c = (c0, c1)[mover]
            s = c.wait_state(lambda x: x["moves"] == len(acked))
            ack = c.move(s["legal"][0])
            assert ack["type"] == "ack" and ack["index"] == len(acked)  # play goes on
            assert httpx.get(srv.base + f"/api/games/{gid}").json()["moves"] == len(acked) + 1
        finally:
            c0.close()
            c1.close()


def test_bots_finish_a_game_and_it_is_stored_as_over(tmp_path: Path) -> None:
    url = database_url(tmp_path)
    with running(url, tmp_path / "server.log") as srv:
        out = srv.create("ttr-new-york", [{"kind": "bot"}, {"kind": "bot"}])
        spec = srv.client(out["id"], out["spectator"]["token"])
        try:
            st = spec.wait_state(lambda s: s["over"], timeout=60)
            result = st["view"]["result"]
            assert result["final"] and len(result["players"]) == 2
        finally:
            spec.close()
        games = httpx.get(srv.base + "/api/games?status=over").json()["games"]
        assert any(g["id"] == out["id"] for g in games)
    rec = Store(url).load_game(out["id"])
    assert rec.status == "over"
    assert tracklayer.load_game({**rec.setup, "moves": rec.moves}).is_over


def test_group_commit_reports_each_conflict(tmp_path: Path) -> None:
    import secrets

    store = Store(database_url(tmp_path))
    gid = secrets.token_urlsafe(8)
    store.create_game(GameRecord(gid, "ttr-new-york", "standard", {"game": "ttr-new-york"}, [],
                                 secrets.token_urlsafe(12), None))
    assert store.append_batch([(gid, 0, "keep NY01", "running")]) == [True]
    assert store.append_batch([(gid, 0, "keep NY02", None), (gid, 1, "draw deck", None)]) == [False, True]
    assert store.load_moves(gid) == ["keep NY01", "draw deck"]


def test_group_commit_of_several_games(tmp_path: Path) -> None:
    import secrets

    store = Store(database_url(tmp_path))
    ids = [secrets.token_urlsafe(8) for _ in range(3)]
    for gid in ids:
        store.create_game(GameRecord(gid, "ttr-new-york", "standard", {"game": "ttr-new-york"}, [],
                                     secrets.token_urlsafe(12), None))
    a, b, c = ids
    batch = [(a, 0, "keep NY01", "running"), (b, 0, "keep NY02", None), (a, 0, "keep NY03", "running"),
             (c, 0, "keep NY04", "over")]
    assert store.append_batch(batch) == [True, True, False, True]
    assert store.load_moves(a) == ["keep NY01"] and store.load_moves(c) == ["keep NY04"]
    status = {g["id"]: g["status"] for g in store.list_games() if g["id"] in ids}  # PostgreSQL is shared
    assert status == {a: "running", b: "open", c: "over"}  # None leaves a game's status as it was
    assert store.append_batch([]) == []
    assert store.append_batch([(b, 1, "draw deck", "running"), (c, 0, "draw deck", None)]) == [True, False]
    assert store.load_moves(b) == ["keep NY02", "draw deck"] and store.load_moves(c) == ["keep NY04"]
