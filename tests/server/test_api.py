"""Lobby API, websocket protocol and refusals, against a real uvicorn process."""

from __future__ import annotations

import itertools
import json

import httpx
import pytest
from websockets.exceptions import ConnectionClosed

import tracklayer
from tests.server.helpers import Client, Server
from tracklayer.bots import resolve_bot
from tracklayer.server.catalog import catalog
from tracklayer.server.clocks import parse_standin


def test_pages_and_catalog(server: Server) -> None:
    lobby = httpx.get(server.base + "/")
    assert lobby.status_code == 200 and "text/html" in lobby.headers["content-type"]
    page = httpx.get(server.base + "/game/whatever")
    assert page.status_code == 200 and "<script" in page.text
    cat = httpx.get(server.base + "/api/catalog").json()
    names = [g["name"] for g in cat["games"]]
    assert names == [g for g in tracklayer.games() if g in names]  # only registered games are offered
    assert {"ttr-europe", "ttr-new-york"} <= set(names)
    europe = next(g for g in cat["games"] if g["name"] == "ttr-europe")
    assert europe["max_players"] == 5 and {v["name"] for v in europe["variants"]} >= {"classic", "mega"}
    assert "random" in cat["bots"]
    board = httpx.get(server.base + "/api/boards/ttr-europe").json()
    assert len(board["cities"]) == 47 and any(r["tunnel"] for r in board["routes"])
    assert any(r["ferry"] for r in board["routes"])
    ny = httpx.get(server.base + "/api/boards/ttr-new-york").json()
    assert any(c["attraction"] for c in ny["cities"])
    assert httpx.get(server.base + "/api/boards/nope").status_code == 404
    for static in ("lobby.js", "game.js", "style.css"):
        assert httpx.get(server.base + f"/static/{static}").status_code == 200, static


def test_trans_boards_served_when_registered(server: Server) -> None:
    offered = {g["name"] for g in catalog()["games"]}
    for name in ("trans-europa", "trans-america"):
        r = httpx.get(server.base + f"/api/boards/{name}")
        if name in offered:
            data = r.json()
            assert data["family"] == "trans" and len(data["cities"]) == 35 and data["edges"]
        else:
            assert r.status_code == 404


@pytest.mark.parametrize(("body", "words"), [
    ({"game": "monopoly", "seats": [{}, {}]}, "unknown game"),
    ({"game": "ttr-new-york", "seats": [{}] * 5}, "2 to 4 players"),
    ({"game": "ttr-new-york", "seats": [{}]}, "2 to 4 players"),
    ({"game": "ttr-europe", "seats": [{}, {"kind": "bot", "bot": "skynet"}]}, "unknown bot"),
    ({"game": "ttr-europe", "seats": [{}, {}], "variant": "moon"}, "no variant"),
    ({"game": "ttr-europe", "seats": [{}, {"kind": "robot"}]}, "kind must be"),
    # a bot that cannot play this game is refused before the game starts, not at its first move
    ({"game": "ttr-new-york", "seats": [{}, {}, {"kind": "bot", "bot": "learned"}]}, "seats[2]: the learned bot plays"),
    ({"game": "ttr-europe", "seats": [{}, {"kind": "bot", "bot": "learned"}], "variant": "1912"},
     "not 2-player ttr-europe-1912"),
    ({"game": "trans-europa", "seats": [{}, {"kind": "bot", "bot": "learned"}]}, "not 2-player trans-europa"),
])
def test_create_refusals(server: Server, body: dict, words: str) -> None:
    r = httpx.post(server.base + "/api/games", json=body)
    assert r.status_code == 400 and words in r.json()["detail"], r.text


def test_create_and_list(server: Server) -> None:
    out = server.create("ttr-europe", [{"name": "Ann"}, {"name": "Ann"}, {"kind": "bot"}], variant="mega",
                        first_player=0, hotseat=True)
    assert [s["kind"] for s in out["seats"]] == ["human", "human", "bot"]
    assert out["seats"][0]["name"] != out["seats"][1]["name"]
    tokens = [s["token"] for s in out["seats"][:2]] + [out["spectator"]["token"], out["hotseat"]["token"]]
    assert len(set(tokens)) == 4 and all(len(t) >= 20 for t in tokens)
    assert out["seats"][0]["link"] == f"/game/{out['id']}#{tokens[0]}"  # token in the fragment only
    listed = httpx.get(server.base + "/api/games").json()["games"]
    mine = next(g for g in listed if g["id"] == out["id"])
    assert mine["variant"] == "mega" and mine["status"] == "open"
    # a public game is listed with its watch link (the spectator token), never with a seat's token
    assert mine["watch"] == f"/game/{out['id']}#{out['spectator']['token']}"
    text = json.dumps(listed).replace(mine["watch"], "")
    assert not any(t in text for t in tokens) and "seed" not in text
    info = httpx.get(server.base + f"/api/games/{out['id']}").json()
    assert "seed" not in json.dumps(info) and not any(t in json.dumps(info) for t in tokens)
    assert httpx.get(server.base + f"/api/games/{out['id']}/view").status_code == 403
    view = httpx.get(server.base + f"/api/games/{out['id']}/view",
                     headers={"Authorization": f"Bearer {tokens[0]}"}).json()
    assert view["seat"] == 0 and "hand" in view["view"]


def test_play_against_a_bot(server: Server) -> None:
    out = server.create("ttr-new-york", [{"name": "Ann"}, {"kind": "bot"}], first_player=0)
    c = server.client(out["id"], out["seats"][0]["token"])
    try:
        s = c.my_turn()
        assert s["seat"] == 0 and s["moves"] == 0 and all(m.startswith("keep") for m in s["legal"])
        ack = c.move(s["legal"][-1])
        assert ack == {"type": "ack", "index": 0, "move": s["legal"][-1]}
        # the bot chooses its tickets, then it is our turn again
        s = c.wait_state(lambda st: st["moves"] >= 2 and bool(st.get("legal")))
        assert s["view"]["current_player"] == 0
        assert "draw deck" in s["legal"]
        ack = c.move("draw deck")
        assert ack["type"] == "ack" and ack["index"] == s["moves"]
        s = c.wait_state(lambda st: st["moves"] == ack["index"] + 1)
        assert s["view"]["log"][-1] == {"player": 0, "move": "draw deck"}
    finally:
        c.close()


def test_play_against_the_learned_bot(server: Server) -> None:
    """The learned bot is offered where it plays (2-player New York and Europe), seated by name, and moves in the
    game."""
    entries = {g["name"]: g for g in httpx.get(server.base + "/api/catalog").json()["games"]}
    assert "learned" in entries["ttr-new-york"]["bots"] and "learned" in entries["ttr-europe"]["bots"]
    assert "learned" not in entries["trans-europa"]["bots"]
    out = server.create("ttr-new-york", [{"name": "Ann"}, {"kind": "bot", "bot": "learned"}], first_player=0)
    assert out["seats"][1]["kind"] == "bot"
    c = server.client(out["id"], out["seats"][0]["token"])
    try:
        s = c.my_turn()
        c.move(s["legal"][-1])
        s = c.wait_state(lambda st: st["moves"] >= 2 and bool(st.get("legal")))  # the bot chose its tickets
        assert s["view"]["current_player"] == 0 and s["view"]["players"][1]["tickets"] >= 1  # kept 1 or 2
    finally:
        c.close()


def test_a_stand_in_plays_any_seat() -> None:
    with pytest.raises(ValueError, match="a bot of this game"):
        parse_standin("learned", "ttr-new-york")
    assert parse_standin("planner", "ttr-new-york") == "planner"


def merged_logs(messages: list[dict]) -> list[tuple[dict, list[dict]]]:
    """Each state with the log the client holds after it (``log_from``: the older entries are kept)."""
    out: list[tuple[dict, list[dict]]] = []
    held: list[dict] = []
    for m in messages:
        if m.get("type") == "state":
            assert m["log_from"] <= len(held), "a state skipped log entries the client never had"
            held = held[:m["log_from"]] + m["view"]["log"]
            out.append((m, held))
    return out


def test_states_carry_only_the_new_log_entries(server: Server) -> None:
    out = server.create("ttr-new-york", [{"name": "Ann"}, {"kind": "bot"}], first_player=0)
    token = out["seats"][0]["token"]
    c = server.client(out["id"], token)
    try:
        for _ in range(6):
            s = c.my_turn()
            if s["over"]:
                break
            assert c.move(s["legal"][0])["type"] == "ack"
            c.wait_state(lambda st, n=s["moves"]: st["moves"] > n)
        c.send({"type": "sync"})
        synced = c.wait(lambda m: m.get("type") == "state" and m["log_from"] == 0 and m["moves"] >= 6)
        full = httpx.get(server.base + f"/api/games/{out['id']}/view",
                         headers={"Authorization": f"Bearer {token}"}).json()
        states = merged_logs(c.messages)
        assert states[0][0]["log_from"] == 0  # the first state has the whole log
        assert any(m["log_from"] > 0 for m, _ in states)  # later ones only what is new
        for m, held in states:
            assert len(held) == m["moves"]  # one entry per move, none missing, none twice
        assert states[-1][1] == synced["view"]["log"] == full["view"]["log"]
        assert full["log_from"] == 0
    finally:
        c.close()


def test_refusals_change_nothing(server: Server) -> None:
    out = server.create("ttr-europe", [{"name": "Ann"}, {"name": "Bob"}], first_player=0)
    gid = out["id"]
    ann = server.client(gid, out["seats"][0]["token"])
    bob = server.client(gid, out["seats"][1]["token"])
    spec = server.client(gid, out["spectator"]["token"])
    try:
        ann.my_turn()
        bob.wait_state()
        spec.wait_state()
        err = ann.move("claim Paris-Frankfurt/white: 3 white")
        assert err["type"] == "error" and err["code"] == "illegal"
        err = ann.move("fly to the moon")
        assert err["code"] == "illegal" and "unknown move" in err["message"]
        err = ann.move("keep all", expect=5)
        assert err["code"] == "stale"
        err = bob.move("keep all", expect=0)  # Ann chooses first
        assert err["code"] == "turn" and "Ann" in err["message"]
        err = spec.move("keep all", expect=0)  # a spectator moves for nobody
        assert err["code"] == "turn"
        for bad, code in ([{"type": "move", "move": 3, "expect": 0}, "bad-move"],
                          [{"type": "move", "move": "keep all", "expect": "0"}, "bad-move"],
                          [{"type": "move", "move": "x" * 1000, "expect": 0}, "bad-move"],
                          [{"type": "launch"}, "bad-type"],
                          ["not json", "bad-json"],
                          [[1, 2], "bad-json"],
                          [{"type": "move", "move": "draw deck " + "y" * 5000, "expect": 0}, "size"]):
            ann.send(bad)
            err = ann.wait(lambda m: m.get("type") == "error")
            assert err["code"] == code, (bad, err)
        info = httpx.get(server.base + f"/api/games/{gid}").json()
        assert info["moves"] == 0  # nothing of that changed the game
        assert ann.move("keep all")["type"] == "ack"
    finally:
        for c in (ann, bob, spec):
            c.close()


def test_bad_token_is_refused(server: Server) -> None:
    out = server.create("ttr-new-york", [{"name": "Ann"}, {"name": "Bob"}])
    c = Client(server.ws_base + f"/ws/{out['id']}", "forged-token")
    msg = c.recv()
    assert msg["type"] == "error" and msg["code"] == "auth"
    c.close()
    c = Client(server.ws_base + "/ws/no-such-game", None, hello=False)
    assert c.recv()["code"] == "no-game"
    c.close()


def test_rate_limit(server: Server) -> None:
    out = server.create("ttr-new-york", [{"name": "Ann"}, {"name": "Bob"}])
    c = server.client(out["id"], out["seats"][0]["token"])
    try:
        c.wait_state()
        for _ in range(80):
            c.send({"type": "ping"})
        codes = []
        for _ in range(80):
            m = c.wait(lambda m: m.get("type") in ("pong", "error"))
            codes.append(m.get("code", "pong"))
        assert "rate" in codes and "pong" in codes
    finally:
        c.close()


def test_a_flood_is_closed_with_1008_and_a_reason(server: Server) -> None:
    """Past the rate limit a client that keeps sending is closed with a close frame that says why
    (1008, policy violation), not dropped (which a browser reports as 1006, reason unknown)."""
    out = server.create("ttr-new-york", [{"name": "Ann"}, {"name": "Bob"}])
    c = server.client(out["id"], out["seats"][0]["token"])
    try:
        c.wait_state()
        with pytest.raises(ConnectionClosed) as closed:
            for _ in range(2000):  # the budget is 30 at once and 10 a second: 200 refusals close it
                c.send({"type": "ping"})
            while True:
                c.recv()
        frame = closed.value.rcvd
        assert frame is not None, "no close frame: the server dropped the connection"
        assert frame.code == 1008 and frame.reason.startswith("rate:"), frame
    finally:
        c.close()


def test_two_tabs_race_for_one_move(server: Server) -> None:
    out = server.create("ttr-new-york", [{"name": "Ann"}, {"name": "Bob"}], first_player=0)
    tok = out["seats"][0]["token"]
    tab1, tab2 = server.client(out["id"], tok), server.client(out["id"], tok)
    try:
        s1, s2 = tab1.my_turn(), tab2.my_turn()
        assert s1["moves"] == s2["moves"] == 0
        first, second = s1["legal"][0], s1["legal"][-1]
        tab1.send({"type": "move", "move": first, "expect": 0})
        tab2.send({"type": "move", "move": second, "expect": 0})
        r1 = tab1.wait(lambda m: m.get("type") in ("ack", "error"))
        r2 = tab2.wait(lambda m: m.get("type") in ("ack", "error"))
        assert sorted([r1["type"], r2["type"]]) == ["ack", "error"]
        loser = r1 if r1["type"] == "error" else r2
        assert loser["code"] == "stale"
        info = httpx.get(server.base + f"/api/games/{out['id']}").json()
        assert info["moves"] == 1
    finally:
        tab1.close()
        tab2.close()


def test_hotseat_shows_only_the_player_to_move(server: Server) -> None:
    out = server.create("ttr-new-york", [{"name": "Ann"}, {"name": "Bob"}, {"kind": "bot"}], first_player=0,
                        hotseat=True)
    table = server.client(out["id"], out["hotseat"]["token"])
    try:
        s = table.my_turn()
        assert s["role"] == "table" and s["seat"] == 0 and s["controls"] == [0, 1]
        assert table.move(s["legal"][0])["type"] == "ack"
        s = table.wait_state(lambda st: st["moves"] == 1)
        assert s["seat"] == 1 and s["view"]["seat"] == 1 and s.get("legal")
        assert table.move(s["legal"][0])["type"] == "ack"
        s = table.wait_state(lambda st: (st["moves"] >= 2 and st["seat"] is None) or st["moves"] >= 3)
        # a log written for one player's eyes is never extended for another's: the whole log comes again
        states = merged_logs(table.messages)
        for (before, _), (after, _) in itertools.pairwise(states):
            if after["seat"] != before["seat"]:
                assert after["log_from"] == 0, (before["seat"], after["seat"])
    finally:
        table.close()


@pytest.mark.parametrize(("game", "bot"), [("ttr-europe", "planner"), ("trans-europa", "routes")])
def test_any_offered_bot_keeps_the_game_moving(server: Server, game: str, bot: str) -> None:
    offered = {g["name"] for g in catalog()["games"]}
    if game not in offered or resolve_bot(bot) is None:
        pytest.skip(f"{game} or bot {bot} is not registered")
    # a bot that cannot be built or fails on this game is replaced by random moves: the game goes on
    out = server.create(game, [{"kind": "bot", "bot": bot}, {"kind": "bot", "bot": "random"}])
    spec = server.client(out["id"], out["spectator"]["token"])
    try:
        st = spec.wait_state(lambda s: s["moves"] >= 6 or s["over"], timeout=60)
        assert st["moves"] >= 6 or st["over"]
    finally:
        spec.close()
