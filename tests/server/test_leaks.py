"""Seat 0 never learns seat 1's hand, tickets or ticket offers, nor the deck order: not over the
websocket, not over HTTP, and the server's log holds no move, ticket, token or seed either."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import httpx

import tracklayer
from tests.server.helpers import database_url, running
from tracklayer.server.db import Store


def _walk(obj: Any, path: str = "") -> list[tuple[str, Any]]:
    out = [(path, obj)]
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += _walk(v, f"{path}.{k}")
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += _walk(v, f"{path}[{i}]")
    return out


def test_no_secret_reaches_another_seat_or_the_log(tmp_path: Path) -> None:
    url = database_url(tmp_path)
    log = tmp_path / "server.log"
    rng = random.Random(5)
    with running(url, log) as srv:
        out = srv.create("ttr-europe", [{"name": "Ann"}, {"name": "Bob"}, {"kind": "bot"}], variant="classic",
                         first_player=0, private=True)  # a public game lists its watch link
        gid = out["id"]
        ann = srv.client(gid, out["seats"][0]["token"])
        bob = srv.client(gid, out["seats"][1]["token"])
        spec = srv.client(gid, out["spectator"]["token"])
        http_texts: list[str] = []
        try:
            for _ in range(40):
                st = ann.wait_state()
                if st["over"]:
                    break
                mover = st["view"]["current_player"]
                if mover == 2:  # the bot
                    ann.wait_state(lambda s, n=st["moves"]: s["moves"] > n)
                    continue
                c = (ann, bob)[mover]
                s = c.wait_state(lambda x, n=st["moves"]: x["moves"] == n and bool(x.get("legal")))
                tickets = [m for m in s["legal"] if m == "tickets"]
                choice = tickets[0] if tickets and rng.random() < 0.3 else rng.choice(s["legal"])
                assert c.move(choice, s["moves"])["type"] == "ack"
                ann.wait_state(lambda x, n=s["moves"]: x["moves"] > n)
                for tok in (out["seats"][0]["token"], out["spectator"]["token"]):
                    r = httpx.get(srv.base + f"/api/games/{gid}/view", headers={"Authorization": f"Bearer {tok}"})
                    http_texts.append(r.text)
            spec.send({"type": "sync"})
            spec.wait_state(lambda s: s["moves"] == ann.state["moves"])
            http_texts += [httpx.get(srv.base + p).text for p in ("/api/games", f"/api/games/{gid}", "/")]
        finally:
            for c in (ann, bob, spec):
                c.close()
    rec = Store(url).load_game(gid)
    assert rec.moves, "the game was played"
    # replay the stored log with the secret seed: every ticket Bob was ever offered or kept, less
    # those Ann saw herself (a ticket she returned goes under the deck and may reach Bob later)
    game = tracklayer.load_game({**rec.setup, "moves": []})
    bob_ids: set[str] = set()
    ann_seen: set[str] = set()
    for text in [*rec.moves, None]:
        v, mine = game.view(1), game.view(0)
        bob_ids |= {t["id"] for t in v["tickets"] + v["offer"]}
        ann_seen |= {t["id"] for t in mine["tickets"] + mine["offer"]}
        if text is not None:
            game.apply(text)
    ann_ids = {t["id"] for t in game.view(0)["tickets"]}
    assert not {t["id"] for t in game.view(1)["tickets"]} & ann_ids  # nobody keeps a ticket twice
    bob_ids -= ann_seen
    assert bob_ids, "Bob held tickets Ann never saw"

    ann_text = "\n".join(ann.raw) + "\n".join(http_texts)
    for tid in bob_ids:
        assert tid not in ann_text, f"Bob's ticket {tid} reached Ann"
    seed = str(rec.setup["seed"])
    server_log = log.read_text(errors="replace")
    for secret in (seed, *bob_ids, out["seats"][0]["token"], out["seats"][1]["token"], out["spectator"]["token"]):
        assert secret not in ann_text or secret == out["seats"][0]["token"]
        assert secret not in server_log, f"{secret} is in the server log"
    for m in rec.moves:  # the log names games, indices and seats, never a move
        if m.startswith(("keep", "claim", "station")):
            assert m not in server_log
    # Ann's messages hold exactly one hand (her own), no offer or ticket list but her own
    for msg in ann.messages:
        if msg.get("type") != "state":
            continue
        assert msg["seat"] == 0 and msg["view"]["seat"] == 0
        for path, _ in _walk(msg):
            if path.endswith((".hand", ".offer")) or (path.endswith(".tickets") and path != ".view.tickets"):
                assert path in (".view.hand", ".view.offer") or path.startswith(".view.players["), path
        assert "deck_order" not in json.dumps(msg) and "seed" not in msg["view"]
    # the spectator sees no hand, tickets or offer at all
    for msg in spec.messages:
        if msg.get("type") == "state":
            assert msg["seat"] is None
            text = json.dumps(msg)
            assert not any(tid in text for tid in bob_ids | ann_seen)
            assert "hand" not in msg["view"] and "offer" not in msg["view"] and "legal" not in msg
