"""Chat over the game websocket: players and spectators marked apart, stored with the game (history on
connect, after a restart too), cleaned and length-limited text, per-connection and per-seat rate limits,
and an upgrade of a database made by the 0001 schema."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import insert, inspect

import tracklayer
from tests import waits
from tests.server.helpers import PG_ENV, Client, Server, database_url, running
from tracklayer.server.chat import MAX_CHAT, RATE_COUNT, clean_text
from tracklayer.server.db import make_engine


def _chat(c: Client, timeout: float = 10) -> dict[str, Any]:
    return c.wait(lambda m: m.get("type") in ("chat", "error"), timeout)


def _history(c: Client) -> list[dict[str, Any]]:
    return c.wait(lambda m: m.get("type") == "chat_history")["messages"]


def test_players_and_spectators_chat_and_history_survives_a_restart(tmp_path: Path) -> None:
    url = database_url(tmp_path)
    with running(url, tmp_path / "a.log") as srv:
        out = srv.create("ttr-new-york", [{"name": "Ann"}, {"name": "Bob"}])
        gid = out["id"]
        ann = srv.client(gid, out["seats"][0]["token"])
        spec = srv.client(gid, out["spectator"]["token"])
        try:
            assert _history(ann) == [] and _history(spec) == []
            ann.send({"type": "chat", "text": "  hello <script>alert(1)</script>\n\u0007there\u202e "})
            for c in (ann, spec):
                m = _chat(c)
                assert m["type"] == "chat" and m["role"] == "seat" and m["seat"] == 0 and m["name"] == "Ann"
                assert m["text"] == "hello <script>alert(1)</script> there" and m["idx"] == 0
            spec.send({"type": "chat", "text": "<img src=x onerror=alert(1)>"})
            for c in (ann, spec):
                m = _chat(c)
                assert m["role"] == "spectator" and m["seat"] is None and m["name"] is None
                assert m["text"] == "<img src=x onerror=alert(1)>" and m["idx"] == 1
            for bad in ("", "   ", 5, None, "x" * (MAX_CHAT + 1)):
                ann.send({"type": "chat", "text": bad})
                err = _chat(ann)
                assert err["type"] == "error" and err["code"] == "bad-chat", (bad, err)
        finally:
            ann.close()
            spec.close()
        # a game with a chat still plays and lists
        assert httpx.get(f"{srv.base}/api/games/{gid}", timeout=waits.scaled(10)).status_code == 200
    with running(url, tmp_path / "b.log") as srv:  # stored with the game: back after a restart
        bob = srv.client(gid, out["seats"][1]["token"])
        try:
            hist = _history(bob)
            assert [(m["role"], m["name"], m["text"]) for m in hist] == [
                ("seat", "Ann", "hello <script>alert(1)</script> there"),
                ("spectator", None, "<img src=x onerror=alert(1)>")]
        finally:
            bob.close()


def test_chat_rate_limit_per_connection_and_per_seat(server: Server) -> None:
    out = server.create("ttr-new-york", [{"name": "Ann"}, {"name": "Bob"}])
    gid = out["id"]
    ann1 = server.client(gid, out["seats"][0]["token"])
    ann2 = server.client(gid, out["seats"][0]["token"])  # a second tab of the same seat
    spec = server.client(gid, out["spectator"]["token"])
    try:
        for c in (ann1, ann2, spec):
            _history(c)
        for k in range(RATE_COUNT):
            (ann1 if k % 2 else ann2).send({"type": "chat", "text": f"m{k}"})
            assert _chat(spec)["text"] == f"m{k}"
        ann1.send({"type": "chat", "text": "one too many"})
        err = ann1.wait(lambda m: m.get("type") == "error")
        assert err["code"] == "chat-rate"
        ann2.send({"type": "chat", "text": "another tab, same seat"})
        assert ann2.wait(lambda m: m.get("type") == "error")["code"] == "chat-rate"
        spec.send({"type": "chat", "text": "the spectator still may"})
        assert _chat(spec)["text"] == "the spectator still may"
    finally:
        for c in (ann1, ann2, spec):
            c.close()


def test_clean_text() -> None:
    assert clean_text("a\tb\r\nc") == "a b  c"
    assert clean_text("\u202egnp.exe\u202c") == "gnp.exe"
    assert clean_text("\x00\x1b[31mred") == "[31mred"
    assert clean_text("é 中文 🚂") == "é 中文 🚂"


def test_upgrade_of_a_0001_database_with_a_game(tmp_path: Path) -> None:
    """A database made by the 0001 schema, with a game in it, upgrades; the game plays and chats."""
    if database_url(tmp_path).startswith("postgresql"):
        pytest.skip("the upgrade is tested on a fresh SQLite file")
    from alembic import command
    from alembic.config import Config

    import tracklayer.server.db as db

    url = f"sqlite:///{tmp_path / 'old.sqlite3'}"
    engine = make_engine(url)
    cfg = Config()
    cfg.set_main_option("script_location", str(Path(db.__file__).parent / "migrations"))
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0001")
    assert "chat" not in inspect(engine).get_table_names()
    game = tracklayer.new_game("ttr-new-york", ["Ann", "Bob"], seed=7, first_player=0)
    with engine.begin() as conn:  # a game as the 0001 server stored it
        conn.execute(insert(db.games).values(
            id="oldgame", game="ttr-new-york", variant="standard", setup=json.dumps(game.setup()),
            seats=json.dumps([{"name": "Ann", "kind": "human", "token": "ann-token"},
                              {"name": "Bob", "kind": "human", "token": "bob-token"}]),
            spectator_token="spec-token", table_token=None, status="open", created_at=1.0, updated_at=1.0))
    engine.dispose()
    out = {"id": "oldgame", "seats": [{"token": "ann-token"}]}
    with running(url, tmp_path / "s3.log") as srv:
        ann = srv.client(out["id"], out["seats"][0]["token"])
        try:
            state = ann.wait_state()
            assert state["moves"] == 0 and _history(ann) == []
            assert ann.move(state["legal"][0])["type"] == "ack"
            ann.send({"type": "chat", "text": "after the upgrade"})
            assert _chat(ann)["text"] == "after the upgrade"
        finally:
            ann.close()
    assert "chat" in inspect(make_engine(url)).get_table_names()


@pytest.mark.skipif(not os.environ.get(PG_ENV), reason=f"several server processes need PostgreSQL: set {PG_ENV}")
def test_chat_reaches_every_process(tmp_path: Path) -> None:
    """A player on one server process and a spectator on another chat (PostgreSQL NOTIFY), each message
    once, in order."""
    servers = [Server(os.environ[PG_ENV], tmp_path / f"{k}.log") for k in "ab"]
    try:
        a, b = (s.start() for s in servers)
        out = a.create("ttr-new-york", [{"name": "Ann"}, {"name": "Bob"}])
        gid = out["id"]
        ann = a.client(gid, out["seats"][0]["token"])
        spec = b.client(gid, out["spectator"]["token"])
        try:
            _history(ann)
            _history(spec)
            ann.send({"type": "chat", "text": "from process a"})
            assert _chat(spec)["text"] == "from process a"
            spec.send({"type": "chat", "text": "from process b"})
            assert _chat(ann)["text"] == "from process a"  # its own message, delivered once
            assert _chat(ann)["text"] == "from process b"
            assert _chat(spec)["text"] == "from process b"
            assert [m["idx"] for m in spec.messages if m.get("type") == "chat"] == [0, 1]
            ann.send({"type": "ping"})
            ann.wait(lambda m: m.get("type") == "pong")
            assert [m["text"] for m in ann.messages if m.get("type") == "chat"] == ["from process a", "from process b"]
        finally:
            ann.close()
            spec.close()
    finally:
        for s in servers:
            s.stop()
