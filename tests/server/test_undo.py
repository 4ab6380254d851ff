"""Undo over a real server process (docs/protocol.md#undo): a person playing bots takes a claim back,
the bots wait for them, and what is refused: rated games, revealed cards, a move the bots went past,
games with other people. A taken-back move stays deleted across a kill -9 and restart."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import tracklayer
from tests.server.helpers import Client, Server, database_url, running
from tracklayer.server.db import Store

GRACE = {"TRACKLAYER_UNDO_GRACE_SECONDS": "600"}  # bots wait until the test says "done" or takes back


def _game_view(state: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in state["view"].items() if k != "log"}


def _to_claim(c: Client) -> dict[str, Any]:
    """Play the seat (drawing from the deck, keeping tickets, letting the bot go on) until a route claim
    is legal; returns that state. Ticket to Ride New York has no tunnel, so every claim may be taken back."""
    while True:
        st = c.my_turn(30)
        claim = next((m for m in st["legal"] if m.startswith("claim")), None)
        if claim is not None and st["view"]["phase"] == "main":
            return st
        move = "draw deck" if "draw deck" in st["legal"] else st["legal"][0]
        ack = c.move(move)
        assert ack["type"] == "ack", ack
        after = c.wait_state(lambda s, n=ack["index"]: s["moves"] > n)
        if after.get("can_undo") and not after.get("legal"):
            c.send({"type": "done"})  # a ticket choice the bot would otherwise wait for


def _claim(c: Client) -> dict[str, Any]:
    """Play the seat to its first route claim and make it; returns the state the claim was made in."""
    st = _to_claim(c)
    assert c.move(next(m for m in st["legal"] if m.startswith("claim")))["type"] == "ack"
    return st


def _new(srv: Server, seats: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return srv.create("ttr-new-york", seats, first_player=0, **extra)


@dataclass
class Table:
    srv: Server
    game: dict[str, Any]
    ann: Client  # seat 0's connection


@pytest.fixture
def table(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Table]:
    """Ann against a random bot, connected, on a server whose bots wait for her undo ``request.param``
    seconds (GRACE's unless a test parametrizes it)."""
    env = {"TRACKLAYER_UNDO_GRACE_SECONDS": getattr(request, "param", GRACE["TRACKLAYER_UNDO_GRACE_SECONDS"])}
    with running(database_url(tmp_path), tmp_path / "server.log", env=env) as srv:
        out = _new(srv, [{"name": "Ann"}, {"kind": "bot", "bot": "random"}])
        c = srv.client(out["id"], out["seats"][0]["token"])
        try:
            yield Table(srv, out, c)
        finally:
            c.close()


def test_a_claim_against_a_bot_is_taken_back_and_stays_so_after_a_restart(table: Table, tmp_path: Path) -> None:
    url = database_url(tmp_path)
    srv, out, c = table.srv, table.game, table.ann
    gid = out["id"]
    before = _claim(c)
    n = before["moves"]
    after = c.wait_state(lambda s: s["moves"] == n + 1)
    assert after.get("can_undo") is True
    assert after["view"]["current_player"] == 1  # the bot's turn: it waits for Ann
    c.send({"type": "undo"})
    assert c.wait(lambda m: m.get("type") in ("undone", "error")) == {"type": "undone", "moves": n}
    back = c.wait_state(lambda s: s["moves"] == n)
    assert _game_view(back) == _game_view(before)
    assert back["legal"] == before["legal"] and "can_undo" not in back
    assert back["log_from"] == 0  # the log lost an entry: sent whole
    assert len(Store(url).load_moves(gid)) == n
    # nothing left to take back: the move before was the seat's deck draw or the bot's
    c.send({"type": "undo"})
    refused = c.wait(lambda m: m.get("type") == "error")
    assert refused["code"] == "undo"
    # a deck draw shows a card: no undo
    ack = c.move("draw deck")
    assert ack["type"] == "ack"
    st = c.wait_state(lambda s: s["moves"] == n + 1)
    assert "can_undo" not in st
    c.send({"type": "undo"})
    assert c.wait(lambda m: m.get("type") == "error")["code"] == "undo"
    srv.kill9()
    c.close()
    assert len(Store(url).load_moves(gid)) == n + 1
    with running(url, tmp_path / "server.log", env=GRACE) as srv:
        c = srv.client(gid, out["seats"][0]["token"])
        try:
            st = c.wait_state()
            assert st["moves"] == n + 1  # the taken-back claim is not replayed
            assert _game_view(st)["route_owner"] == _game_view(before)["route_owner"]
        finally:
            c.close()


def test_the_bot_waits_until_done_then_the_move_stands(table: Table) -> None:
    c = table.ann
    n = _claim(c)["moves"]
    assert c.wait_state(lambda s: s["moves"] == n + 1).get("can_undo") is True
    c.send({"type": "done"})
    moved = c.wait_state(lambda s: s["moves"] > n + 1)  # the bot moved once Ann was done
    assert "can_undo" not in moved
    c.send({"type": "undo"})
    assert c.wait(lambda m: m.get("type") == "error")["code"] == "undo"


@pytest.mark.parametrize("table", ["0.2"], indirect=True)
def test_after_the_grace_the_bot_moves_and_the_claim_stands(table: Table) -> None:
    c = table.ann
    n = _claim(c)["moves"]
    closed = c.wait_state(lambda s: s["moves"] == n + 1 and "can_undo" not in s)  # the grace passed
    assert closed["view"]["current_player"] == 1
    c.wait_state(lambda s: s["moves"] > n + 1)
    c.send({"type": "undo"})
    assert c.wait(lambda m: m.get("type") == "error")["code"] == "undo"


def test_no_undo_in_a_rated_game_or_with_another_person(tmp_path: Path) -> None:
    with running(database_url(tmp_path), tmp_path / "server.log", env=GRACE) as srv:
        # two different bots: rated (the bots' ladder), even for a guest
        rated = _new(srv, [{"name": "Ann"}, {"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "greedy"}])
        two = _new(srv, [{"name": "Ann"}, {"name": "Bob"}])
        c = srv.client(rated["id"], rated["seats"][0]["token"])
        try:
            n = _claim(c)["moves"]
            after = c.wait_state(lambda s: s["moves"] >= n + 1)
            assert "can_undo" not in after
            c.send({"type": "undo"})
            refused = c.wait(lambda m: m.get("type") == "error")
            assert refused["code"] == "undo" and "rated" in refused["message"]
        finally:
            c.close()
        ann, bob = (srv.client(two["id"], s["token"]) for s in two["seats"])
        try:
            st = ann.my_turn()
            assert ann.move(st["legal"][-1])["type"] == "ack"  # a ticket choice
            after = ann.wait_state(lambda s: s["moves"] == 1)
            assert "can_undo" not in after
            ann.send({"type": "undo"})
            refused = ann.wait(lambda m: m.get("type") == "error")
            assert refused["code"] == "undo" and "other people" in refused["message"]
        finally:
            ann.close()
            bob.close()


def test_hot_seat_table_takes_back_its_player_move_until_the_next_player_moves(tmp_path: Path) -> None:
    with running(database_url(tmp_path), tmp_path / "server.log", env=GRACE) as srv:
        out = _new(srv, [{"name": "Ann"}, {"name": "Bob"}], hotseat=True)
        t = srv.client(out["id"], out["hotseat"]["token"])
        try:
            st = t.my_turn()
            first = st["legal"][-1]
            assert t.move(first)["type"] == "ack"  # Ann keeps her tickets
            st = t.wait_state(lambda s: s["moves"] == 1)
            assert st.get("can_undo") is True
            t.send({"type": "undo"})
            assert t.wait(lambda m: m.get("type") == "undone")["moves"] == 0
            st = t.wait_state(lambda s: s["moves"] == 0)
            assert t.move(first)["type"] == "ack"
            st = t.wait_state(lambda s: s["moves"] == 1)
            assert t.move(st["legal"][-1])["type"] == "ack"  # Bob chose: Ann's choice is final
            st = t.wait_state(lambda s: s["moves"] == 2)
            game = tracklayer.load_game({**Store(database_url(tmp_path)).load_game(out["id"]).setup,
                                         "moves": Store(database_url(tmp_path)).load_moves(out["id"])})
            assert game.move_log[-1][0] == 1 and st.get("can_undo") is True  # Bob's own choice, not Ann's
            t.send({"type": "undo"})
            assert t.wait(lambda m: m.get("type") == "undone")["moves"] == 1
            st = t.wait_state(lambda s: s["moves"] == 1)
            assert "can_undo" not in st  # Bob moved after Ann: her choice is final, his taken back or not
        finally:
            t.close()
