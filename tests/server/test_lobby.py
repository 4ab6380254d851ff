"""Lobby API contracts: open seats and joins (one winner under races), the creator's links,
the status batch (never another seat's token), quick play and its bot-fill deadline (also across a
restart), and a database made by the 0001 schema upgraded with its game intact."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import update

from tests import waits
from tests.server.helpers import Server, database_url, running
from tracklayer.server.db import Store, games


def _post(server: Server, path: str, body: Any, **kw: Any) -> httpx.Response:
    return httpx.post(server.base + path, json=body, timeout=waits.scaled(20), **kw)


def _open_game(server: Server, **extra: Any) -> dict[str, Any]:
    return server.create("ttr-europe", [{"name": "Ann"}, {"kind": "open"}, {"kind": "bot"}], first_player=1, **extra)


def test_open_seat_waits_then_join_starts_the_game(server: Server) -> None:
    out = _open_game(server)
    gid = out["id"]
    assert [s["kind"] for s in out["seats"]] == ["human", "open", "bot"] and "token" not in out["seats"][1]
    info = httpx.get(server.base + f"/api/games/{gid}").json()
    assert info["status"] == "waiting"
    ann = server.client(gid, out["seats"][0]["token"])
    try:
        st = ann.wait_state()
        assert st.get("waiting") is True and st["moves"] == 0
        listed = next(g for g in httpx.get(server.base + "/api/games?status=waiting").json()["games"] if g["id"] == gid)
        assert [s["kind"] for s in listed["seats"]] == ["human", "open", "bot"] and listed["watch"]
        time.sleep(1.5)  # the bot (seat 2) is not first; nobody may move while waiting, and nobody did
        assert httpx.get(server.base + f"/api/games/{gid}").json()["moves"] == 0
        r = _post(server, f"/api/games/{gid}/join", {"name": "Bea"})
        assert r.status_code == 200, r.text
        j = r.json()
        assert j["seat"] == 1 and j["link"] == f"/game/{gid}#{j['token']}"
        st = ann.wait_state(lambda s: not s.get("waiting"))
        assert [p["name"] for p in st["seats"]] == ["Ann", "Bea", "Bot 3"]
        assert httpx.get(server.base + f"/api/games/{gid}").json()["status"] == "open"
        bea = server.client(gid, j["token"])
        try:
            st = bea.wait_state()
            assert st["seat"] == 1 and st["legal"]  # Bea moves first
        finally:
            bea.close()
    finally:
        ann.close()
    again = _post(server, f"/api/games/{gid}/join", {"name": "Cy"})
    assert again.status_code == 409 and "no open seat" in again.json()["detail"]


def _race_joins(game_id: str, joiners: list[tuple[Server, str]]) -> list[httpx.Response]:
    """Every ``(server, name)`` asks to join at the same moment (a barrier); their answers."""
    results: list[httpx.Response] = []
    barrier = threading.Barrier(len(joiners), timeout=waits.scaled(30))

    def join(srv: Server, name: str) -> None:
        barrier.wait()
        results.append(_post(srv, f"/api/games/{game_id}/join", {"name": name}))

    threads = [threading.Thread(target=join, args=j) for j in joiners]
    for t in threads:
        t.start()
    for t in threads:
        t.join(waits.scaled(60))
    assert not any(t.is_alive() for t in threads), "a join request did not come back within 60 s"
    return results


def test_join_race_has_one_winner(server: Server) -> None:
    out = _open_game(server)
    results = _race_joins(out["id"], [(server, "Cy"), (server, "Di")])
    assert sorted(r.status_code for r in results) == [200, 409], [r.text for r in results]


def test_join_refusals(server: Server) -> None:
    assert _post(server, "/api/games/nope/join", {"name": "X"}).status_code == 404
    assert _post(server, "/api/games/a%00b/join", {"name": "X"}).status_code == 404  # PostgreSQL: no NUL in text
    r = _post(server, "/api/games/status", {"items": [{"game": "a\x00b", "token": "t"}]})
    assert r.status_code == 200 and r.json()["items"] == [{"game": "a\x00b", "error": "no-game"}]
    full = server.create("ttr-europe", [{"name": "Ann"}, {"kind": "bot"}])
    r = _post(server, f"/api/games/{full['id']}/join", {"name": "X"})
    assert r.status_code == 409 and "no open seat" in r.json()["detail"]
    private = server.create("ttr-europe", [{"name": "Ann"}, {"kind": "bot"}], private=True)
    r = _post(server, f"/api/games/{private['id']}/join", {"name": "X"})
    assert r.status_code == 403 and "private" in r.json()["detail"]
    assert private["id"] not in json.dumps(httpx.get(server.base + "/api/games").json())
    r = httpx.post(server.base + "/api/games", json={"game": "ttr-europe", "private": True,
                                                      "seats": [{"name": "A"}, {"kind": "open"}]})
    assert r.status_code == 400 and "open seats" in r.json()["detail"]
    out = _open_game(server)
    r = _post(server, f"/api/games/{out['id']}/join", {"name": "x" * 200})
    assert r.status_code == 400
    r = _post(server, f"/api/games/{out['id']}/join", ["not", "an", "object"])
    assert r.status_code == 400


def test_links_need_the_creator_token(server: Server) -> None:
    out = server.create("ttr-europe", [{"name": "Ann"}, {"name": "Bob"}, {"kind": "open"}])
    gid, creator = out["id"], out["creator"]["token"]
    assert out["creator"]["link"] == f"/my#{gid}:{creator}"
    url = server.base + f"/api/games/{gid}/links"
    assert httpx.get(url).status_code == 403
    for tok in (out["seats"][0]["token"], out["spectator"]["token"], "x" * 30):
        assert httpx.get(url, headers={"Authorization": f"Bearer {tok}"}).status_code == 403
    links = httpx.get(url, headers={"Authorization": f"Bearer {creator}"}).json()
    assert [s.get("token") for s in links["seats"]] == [out["seats"][0]["token"], out["seats"][1]["token"], None]
    assert links["spectator"]["token"] == out["spectator"]["token"]
    joined = _post(server, f"/api/games/{gid}/join", {"name": "Cy"}).json()
    links = httpx.get(url, headers={"Authorization": f"Bearer {creator}"}).json()
    assert links["seats"][2]["token"] == joined["token"] and links["status"] == "open"
    # the creator token opens no seat and no view
    assert httpx.get(server.base + f"/api/games/{gid}/view",
                     headers={"Authorization": f"Bearer {creator}"}).status_code == 403


def test_status_batch_reveals_only_what_a_token_grants(server: Server) -> None:
    out = server.create("ttr-europe", [{"name": "Ann"}, {"name": "Bob"}], first_player=1)
    gid = out["id"]
    ann, bob = out["seats"][0]["token"], out["seats"][1]["token"]
    items = [{"game": gid, "token": ann}, {"game": gid, "token": bob},
             {"game": gid, "token": out["spectator"]["token"]},
             {"game": gid, "token": out["creator"]["token"]}, {"game": gid, "token": "forged-token-xyz"},
             {"game": "nope", "token": ann}, {"game": 5}]
    r = _post(server, "/api/games/status", {"items": items})
    assert r.status_code == 200, r.text
    a, b, spec, creator, forged, missing, bad = r.json()["items"]
    assert (a["role"], a["seat"], a["turn"], a["your_turn"]) == ("seat", 0, 1, False)
    assert (b["role"], b["seat"], b["your_turn"]) == ("seat", 1, True)
    assert (spec["role"], spec["your_turn"]) == ("spectator", False)
    assert creator["role"] == "creator" and [p["name"] for p in creator["players"]] == ["Ann", "Bob"]
    assert forged == {"game": gid, "error": "unknown-token"}
    assert missing["error"] == "no-game" and bad["error"] == "bad-item"
    text = r.text
    for secret in (ann, bob, out["spectator"]["token"], out["creator"]["token"]):
        assert secret not in text
    assert _post(server, "/api/games/status", {"items": [{}] * 101}).status_code == 400
    assert _post(server, "/api/games/status", {"tokens": "x"}).status_code == 400


def _quick(server: Server, name: str, wait: int = 600, game: str = "ttr-europe", players: int = 3) -> dict[str, Any]:
    r = _post(server, "/api/quickplay", {"game": game, "players": players, "name": name, "wait": wait})
    assert r.status_code == 200, r.text
    return r.json()


def _deadline_now(db_url: str, gid: str) -> None:
    store = Store(db_url)
    try:
        with store.engine.begin() as conn:
            conn.execute(update(games).where(games.c.id == gid).values(fill_at=time.time() - 1))
    finally:
        store.close()


def _wait_for(check: Any, timeout: float = 60.0, what: str = "the condition") -> Any:
    """Poll ``check`` until it returns something true; a clear failure (not a hang) after ``timeout``."""
    timeout = waits.scaled(timeout)
    deadline = time.monotonic() + timeout
    value = None
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}; last check gave {value!r}")


def test_quickplay_seats_two_people_then_bots_fill(server: Server) -> None:
    assert _post(server, "/api/quickplay", {"game": "nope", "players": 3}).status_code == 400
    assert _post(server, "/api/quickplay", {"game": "ttr-europe", "players": 9}).status_code == 400
    assert _post(server, "/api/quickplay", {"game": "ttr-europe", "players": 3, "wait": 5}).status_code == 400
    one = _quick(server, "Ann", players=4, game="ttr-new-york")
    two = _quick(server, "Bob", players=4, game="ttr-new-york")
    assert one["new"] and not two["new"] and one["id"] == two["id"] and two["seat"] == 1
    gid = one["id"]
    assert httpx.get(server.base + f"/api/games/{gid}").json()["status"] == "waiting"
    other = _quick(server, "Cy", players=3, game="ttr-new-york")  # another size: another game
    r = _post(server, "/api/quickplay", {"game": "ttr-new-york", "players": 3, "name": "Cy", "avoid": [other["id"]]})
    assert r.json()["id"] != other["id"]  # a browser already seated there is not seated twice
    assert _post(server, "/api/quickplay", {"game": "ttr-europe", "players": 3, "avoid": "x"}).status_code == 400
    assert other["id"] != gid
    _deadline_now(server.db_url, gid)
    info = _wait_for(lambda: (i := httpx.get(server.base + f"/api/games/{gid}").json())["status"] != "waiting" and i,
                     what="the bot fill")
    assert [s["kind"] for s in info["seats"]] == ["human", "human", "bot", "bot"]
    assert [s["name"] for s in info["seats"][:2]] == ["Ann", "Bob"]


def test_bot_fill_deadline_survives_a_restart(tmp_path: Path) -> None:
    url = database_url(tmp_path)
    with running(url, tmp_path / "a.log") as srv:
        q = _quick(srv, "Ann", players=2, game="trans-america")
        gid = q["id"]
    _deadline_now(url, gid)  # the deadline passed while no server ran
    with running(url, tmp_path / "b.log") as srv:
        # this process or, on PostgreSQL, another one on the database (another test's server) fires the
        # fill; whichever does, every answer shows the status and the seats of one stored row
        seen: list[dict[str, Any]] = []

        def started() -> dict[str, Any] | None:
            seen.append(httpx.get(srv.base + f"/api/games/{gid}", timeout=waits.scaled(20)).json())
            return seen[-1] if seen[-1]["status"] != "waiting" else None

        try:
            info = _wait_for(started, what="the bot fill")
        except AssertionError as exc:
            raise AssertionError(f"{exc}; last answer: {seen[-1:]}") from None
        assert all(_consistent(i["status"], [s["kind"] for s in i["seats"]]) for i in seen), seen
        assert [s["kind"] for s in info["seats"]] == ["human", "bot"], info
        ann = srv.client(gid, q["token"])
        try:
            assert not ann.wait_state().get("waiting")
        finally:
            ann.close()


def test_upgrade_from_0001_keeps_games(tmp_path: Path) -> None:
    """A database made by the 0001 schema, with a game in it, is upgraded; the game opens and plays."""
    if "postgresql" in database_url(tmp_path):
        pytest.skip("the upgrade is checked on a fresh SQLite file")
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import create_engine, text

    import tracklayer

    path = tmp_path / "old.sqlite3"
    engine = create_engine(f"sqlite:///{path}")
    cfg = Config()
    cfg.set_main_option("script_location", str(Path(tracklayer.__file__).parent / "server" / "migrations"))
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0001")
        g = tracklayer.new_game("ttr-europe", ["Ann", "Bob"], seed=7, first_player=0)
        seats = [{"name": "Ann", "kind": "human", "token": "a" * 24},
                 {"name": "Bob", "kind": "human", "token": "b" * 24}]
        conn.execute(text("INSERT INTO games (id, game, variant, setup, seats, spectator_token, table_token, status, "
                          "created_at, updated_at) VALUES ('oldgame1', 'ttr-europe', 'classic', :setup, :seats, "
                          ":spec, NULL, 'open', 1, 1)"),
                     {"setup": json.dumps(g.setup()), "seats": json.dumps(seats), "spec": "s" * 24})
    engine.dispose()
    with running(f"sqlite:///{path}", tmp_path / "s.log") as srv:
        listed = next(x for x in httpx.get(srv.base + "/api/games").json()["games"] if x["id"] == "oldgame1")
        assert "watch" not in listed  # an older game's spectator link stays a secret
        st = _post(srv, "/api/games/status", {"items": [{"game": "oldgame1", "token": "a" * 24}]}).json()["items"][0]
        assert st["role"] == "seat" and st["your_turn"] is True
        ann = srv.client("oldgame1", "a" * 24)
        try:
            st = ann.wait_state()
            ann.send({"type": "move", "move": st["legal"][0], "expect": 0})
            ann.wait_state(lambda s: s["moves"] == 1)
        finally:
            ann.close()


def test_join_race_across_two_server_processes(tmp_path: Path) -> None:
    """Two processes on one database: one join wins, and the process that lost sees the new seats
    in the game it holds in memory (its matchmaker's pass). PostgreSQL: SQLite serves one process."""
    url = database_url(tmp_path)
    if not url.startswith("postgres"):
        pytest.skip("several server processes need PostgreSQL (TRACKLAYER_TEST_DATABASE_URL)")
    with running(url, tmp_path / "a.log") as a, running(url, tmp_path / "b.log") as b:
        out = a.create("ttr-europe", [{"name": "Ann"}, {"kind": "open"}])
        gid = out["id"]
        assert httpx.get(b.base + f"/api/games/{gid}").json()["status"] == "waiting"  # b holds it in memory
        results = _race_joins(gid, [(a, "Cy"), (b, "Di")])
        assert sorted(r.status_code for r in results) == [200, 409], [r.text for r in results]
        winner = next(r.json() for r in results if r.status_code == 200)
        for srv in (a, b):
            info = _wait_for(lambda s=srv: (i := httpx.get(s.base + f"/api/games/{gid}").json())["status"] == "open"
                             and i, what="the joined game to start")
            assert info["seats"][1]["kind"] == "human"
            c = srv.client(gid, winner["token"])
            try:
                assert c.wait_state()["seat"] == 1
            finally:
                c.close()


def _consistent(status: str, kinds: list[str]) -> bool:
    """The lobby's invariant: a game waits exactly while one of its seats is open."""
    return (status == "waiting") == ("open" in kinds)


def test_a_fill_by_another_process_is_never_half_seen(tmp_path: Path) -> None:
    """Process a owns a quick-play game and fires its bot fill; process b, which has the game in memory
    too, hears of the first move before its matchmaker re-reads the seats. No answer and no state of b
    may then show a started game with an open seat (or a waiting one with every seat taken)."""
    url = database_url(tmp_path)
    if not url.startswith("postgres"):
        pytest.skip("several server processes need PostgreSQL (TRACKLAYER_TEST_DATABASE_URL)")
    with running(url, tmp_path / "a.log") as a, running(url, tmp_path / "b.log") as b:
        q = _quick(a, "Ann", players=2, game="ttr-europe")
        gid = q["id"]
        assert httpx.get(b.base + f"/api/games/{gid}").json()["status"] == "waiting"  # b holds it in memory
        on_a, on_b = a.client(gid, q["token"]), b.client(gid, q["token"])
        seen: list[tuple[str, list[str]]] = []
        stop = threading.Event()

        def poll() -> None:  # b's summary, as often as it answers, until the game has started there
            while not stop.is_set():
                info = httpx.get(b.base + f"/api/games/{gid}", timeout=waits.scaled(20)).json()
                seen.append((info["status"], [s["kind"] for s in info["seats"]]))

        poller = threading.Thread(target=poll)
        try:
            on_b.wait_state()
            poller.start()
            _deadline_now(url, gid)  # a owns the game (it made it): a fires the fill
            st = on_a.wait_state(lambda s: not s.get("waiting") and (bool(s.get("legal")) or s["moves"] > 0), 60)
            if st.get("legal"):  # Ann moves first: her move is the first news b hears after the fill
                assert on_a.move(st["legal"][0])["type"] == "ack"
            on_b.wait_state(lambda s: s["moves"] > 0 and "open" not in [p["kind"] for p in s["seats"]], 60)
        finally:
            stop.set()
            if poller.is_alive():
                poller.join(waits.scaled(30))
            on_a.close()
            on_b.close()
        states = [(("waiting" if m.get("waiting") else "started"), [p["kind"] for p in m["seats"]])
                  for m in on_b.messages if m.get("type") == "state"]
        assert all(_consistent(*s) for s in states), states
        assert all(_consistent(*s) for s in seen), [s for s in seen if not _consistent(*s)]
        fired = f"game {gid}: open seats given to bots"
        assert (a.log().count(fired), b.log().count(fired)) == (1, 0)  # once, by the lease holder
