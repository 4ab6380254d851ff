"""Tutorial games (tracklayer/server/tutorial.py): the lesson's seed, the bot's seed, unrated, and a lesson that
replays move for move (the guide's situations come back for every learner who plays the same moves)."""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

import tracklayer
from tests.server.helpers import database_url
from tracklayer.bots import Budget, make_bot
from tracklayer.server.accounts.store import would_rate
from tracklayer.server.app import Settings, create_app
from tracklayer.server.db import make_engine
from tracklayer.server.tutorial import LESSONS


@pytest.fixture
def url(tmp_path: Path) -> str:
    return database_url(tmp_path)


@pytest.fixture
def client(url: str) -> Iterator[TestClient]:
    settings = Settings(database_url=url, bot_delay=0.0, tune_gc=False, games_per_minute=0, bot_games=0,
                        bot_workers=1)
    with TestClient(create_app(settings), client=(f"testclient-{secrets.token_hex(6)}", 50000)) as c:
        yield c


def stored_seats(url: str, game_id: str) -> tuple[dict, list[dict]]:
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            row = conn.execute(sa.text("SELECT setup, seats, private FROM games WHERE id = :i"),
                               {"i": game_id}).one()
    finally:
        engine.dispose()
    assert row.private
    return json.loads(row.setup), json.loads(row.seats)


def test_a_tutorial_has_the_lessons_seed_and_stays_unrated_for_a_logged_in_player(client: TestClient,
                                                                                  url: str) -> None:
    user = f"tut_{secrets.token_hex(4)}"
    r = client.post("/api/register", json={"username": user, "password": "correct horse battery"})
    assert r.status_code == 201, r.text
    csrf = r.json()["csrf"]
    r = client.post("/api/tutorial", json={"game": "ttr-europe", "name": "Ann", "bot_name": "Lehrer"},
                    headers={"X-CSRF-Token": csrf})
    assert r.status_code == 201, r.text
    out = r.json()
    assert out["link"] == f"/game/{out['id']}#{out['token']}"
    setup, seats = stored_seats(url, out["id"])
    lesson = LESSONS["ttr-europe"]
    room = client.app.state.rooms.rooms[out["id"]]  # type: ignore[attr-defined]
    assert room.bots[1].seed == lesson.bot_seed and room.bots[1].name == lesson.bot
    assert setup["seed"] == lesson.seed and setup["options"]["first_player"] == 0
    assert seats[0]["lesson"] == "ttr-europe" and seats[0]["name"] == "Ann" and "account" not in seats[0]
    assert seats[1] | {"name": "Lehrer", "kind": "bot", "bot": lesson.bot, "seed": lesson.bot_seed} == seats[1]
    with client.websocket_connect(f"/ws/{out['id']}") as ws:  # the logged-in player opens the link
        ws.send_text(json.dumps({"type": "hello", "token": out["token"]}))
        state = ws.receive_json()
        assert state["type"] == "state" and state["seats"][0]["lesson"] == "ttr-europe"
        assert state["view"]["market"] == tracklayer.new_game(
            "ttr-europe", ["Ann", "Lehrer"], seed=lesson.seed, first_player=0).view(0)["market"]
    _, seats = stored_seats(url, out["id"])
    assert "account" not in seats[0] and not would_rate("ttr-europe", seats)
    assert client.get(f"/api/users/{user}").json()["games"] == []  # not in the profile's (rated) history


def test_unknown_tutorial_is_refused(client: TestClient) -> None:
    r = client.post("/api/tutorial", json={"game": "ttr-mars"})
    assert r.status_code == 400 and "no tutorial" in r.text


@pytest.mark.parametrize("game", sorted(LESSONS))
def test_a_lesson_replays_move_for_move(game: str) -> None:
    """The lesson's seed and the same learner's moves give the same game, the seeded bot's answers included."""
    lesson = LESSONS[game]

    def play() -> list[str]:
        g = tracklayer.new_game(game, ["Ann", "Tutor"], seed=lesson.seed, first_player=0)
        bot = make_bot(lesson.bot, lesson.bot_seed)
        moves: list[str] = []
        while not g.is_over and len(moves) < 60:
            legal = g.legal_actions()
            if g.current_player == 1:
                move = bot.choose(g.view(1), legal, Budget(seconds=30, iterations=50))
            else:  # a learner: a claim or a rail when there is one, else the first choice
                move = next((a for a in legal if str(a).startswith(("claim", "rail"))), legal[0])
            moves.append(str(move))
            g.apply(move)
        replayed = tracklayer.load_game({**g.setup(), "moves": moves})
        assert replayed.view(0) == g.view(0)
        return moves

    assert play() == play()
