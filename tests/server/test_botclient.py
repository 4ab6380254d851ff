"""Bots over the network: bot accounts, API tokens and their limits, and tracklayer.client playing
rated games against a real server process (docs/protocol.md, "Bots over the network").

Every name is unique per test (on PostgreSQL the database is shared); each test's requests come from
an address of their own (``X-Forwarded-For``, believed from 127.0.0.1 here), so the login limits
counted in the database never mix tests.
"""

from __future__ import annotations

import runpy
import secrets
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests import waits
from tests.server.helpers import NO_LIMITS, ROOT, Server, database_url, running
from tracklayer.client import ApiError, BotClient, MoveRefused, Result

API_REQUESTS = 5  # a token's requests a minute on this server: the rate test goes past it
EXAMPLE = runpy.run_path(str(ROOT / "examples" / "network_bot.py"))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    tmp = tmp_path_factory.mktemp("botclient")
    with running(database_url(tmp), tmp / "server.log", bot_delay=0.0,
                 extra=(*NO_LIMITS, "--forwarded-allow-ips", "127.0.0.1"),
                 env={"TRACKLAYER_API_REQUESTS": str(API_REQUESTS)}) as srv:
        yield srv


def unique(prefix: str) -> str:
    return f"{prefix}_{secrets.token_hex(4)}"


class Person:
    """A registered person's HTTP session (cookie and CSRF token), from an address of their own."""

    def __init__(self, server: Server) -> None:
        self.name = unique("owner")
        self.http = httpx.Client(base_url=server.base, timeout=waits.scaled(10),
                                 headers={"X-Forwarded-For": f"10.9.{secrets.randbelow(250)}.{secrets.randbelow(250)}"})
        r = self.http.post("/api/register", json={"username": self.name, "password": "correct horse battery"})
        assert r.status_code == 201, r.text
        self.csrf = r.json()["csrf"]

    def post(self, path: str, body: Any = None) -> httpx.Response:
        return self.http.post(path, json=body or {}, headers={"X-CSRF-Token": self.csrf})

    def bot(self, name: str | None = None) -> str:
        name = name or unique("bot")
        r = self.post("/api/me/bots", {"name": name})
        assert r.status_code == 201, r.text
        assert r.json() == {"name": name, "owner": self.name, "profile": f"/u/{name}"}
        return name

    def token(self, bot: str, label: str = "test") -> str:
        r = self.post(f"/api/bots/{bot}/tokens", {"label": label})
        assert r.status_code == 201, r.text
        return str(r.json()["token"])


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def ladder_entry(server: Server, name: str, **query: str) -> dict[str, Any] | None:
    players = httpx.get(server.base + "/api/leaderboard", params={"game": "ttr", **query}).json()["players"]
    return next((p for p in players if p["name"] == name), None)


def rated(server: Server, name: str, games: int = 1) -> dict[str, Any]:
    """The bot account's ladder entry once it has ``games`` rated games (the rating follows the last move)."""
    return waits.until(lambda: (e := ladder_entry(server, name)) and e["games"] >= games and e, 30,
                       f"{name} rated on the ladder")


def test_example_bot_plays_a_whole_rated_game(server: Server) -> None:
    owner = Person(server)
    bot = owner.bot()
    token = owner.token(bot)
    result: Result = EXAMPLE["run"](server.base, token, "ttr-new-york", 2, 30, "greedy")
    assert result.state["over"] and result.rank in (1, 2)
    assert result.state["seats"][result.seat.seat]["name"] == bot
    assert result.moves_played > 5
    entry = rated(server, bot)
    assert entry["kind"] == "bot" and entry["account"] is True and entry["owner"] == owner.name
    assert entry["rating"] != 0.0 and "level" not in entry  # moved from openskill's first ordinal (0)
    assert ladder_entry(server, bot, kind="bot") is not None
    assert ladder_entry(server, bot, kind="human") is None  # the people-only ladder leaves bot accounts out
    profile = httpx.get(server.base + f"/api/users/{bot}").json()
    assert profile["bot"] is True and profile["owner"] == owner.name
    assert [g["id"] for g in profile["games"]] == [result.seat.game_id] and profile["games"][0]["rated"]
    assert BotClient(server.base, token).me()["ratings"]["ttr"]["games"] == 1


def test_two_bot_accounts_meet_in_quick_play(server: Server) -> None:
    owner = Person(server)
    ann, bea = owner.bot(), owner.bot()
    a, b = BotClient(server.base, owner.token(ann)), BotClient(server.base, owner.token(bea))
    game = "ttr-new-york"
    first = a.quick_play(game, players=2, wait=600)
    with pytest.raises(ApiError) as again:  # one seat a game for an account
        a.join(first.game_id)
    assert again.value.status == 409
    second = b.quick_play(game, players=2, wait=600)
    assert second.game_id == first.game_id and {first.seat, second.seat} == {0, 1}
    seats = httpx.get(server.base + f"/api/games/{first.game_id}").json()["seats"]
    assert [s["name"] for s in seats] == [ann, bea]  # each token seats its own account, under its name
    results: dict[str, Result] = {}
    errors: list[BaseException] = []

    def play(name: str, client: BotClient) -> None:
        try:
            results[name] = client.play(EXAMPLE["policy"])
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=play, args=(n, c)) for n, c in ((ann, a), (bea, b))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(waits.scaled(120))
    assert not errors and set(results) == {ann, bea}
    assert sorted(r.rank or 0 for r in results.values()) in ([1, 2], [1, 1])
    assert rated(server, ann)["kind"] == rated(server, bea)["kind"] == "bot"


def test_token_lifecycle(server: Server) -> None:
    owner = Person(server)
    bot = owner.bot()
    token = owner.token(bot, "laptop")
    assert httpx.get(server.base + "/api/bot", headers=bearer(token)).json()["username"] == bot
    listed = owner.http.get(f"/api/bots/{bot}/tokens").json()["tokens"]
    assert [(t["label"], t["revoked"]) for t in listed] == [("laptop", False)]
    assert token not in str(listed) and set(listed[0]) == {"id", "label", "created_at", "last_used_at", "revoked"}
    assert owner.http.get("/api/me/bots").json()["bots"][0]["name"] == bot
    r = owner.http.delete(f"/api/bots/{bot}/tokens/{listed[0]['id']}", headers={"X-CSRF-Token": owner.csrf})
    assert r.status_code == 200
    r = httpx.get(server.base + "/api/bot", headers=bearer(token))
    assert r.status_code == 401 and r.headers["WWW-Authenticate"] == "Bearer"
    assert httpx.post(server.base + "/api/quickplay", json={"game": "ttr-new-york", "players": 2},
                      headers=bearer(token)).status_code == 401
    assert owner.http.get(f"/api/bots/{bot}/tokens").json()["tokens"][0]["revoked"] is True


def test_a_bot_with_a_description_is_deleted_with_its_tokens_and_its_name_is_free_again(server: Server) -> None:
    owner, other = Person(server), Person(server)
    bot = unique("bot")
    r = owner.post("/api/me/bots", {"name": bot, "description": "  plays   the longest route\n first "})
    assert r.status_code == 201, r.text
    assert owner.http.get("/api/me/bots").json()["bots"] == [
        {"name": bot, "created_at": owner.http.get("/api/me/bots").json()["bots"][0]["created_at"],
         "description": "plays the longest route first"}]
    profile = httpx.get(f"{server.base}/api/users/{bot}").json()
    assert profile["bot"] is True and profile["description"] == "plays the longest route first"
    assert owner.post("/api/me/bots", {"name": unique("bot"), "description": "x" * 201}).status_code == 400
    assert owner.post("/api/me/bots", {"name": unique("bot"), "description": "a\u202eb"}).status_code == 400
    token = owner.token(bot)
    assert httpx.get(server.base + "/api/bot", headers=bearer(token)).status_code == 200
    # only its owner deletes it, with the session's CSRF token; anybody else is told there is no such bot
    assert other.http.delete(f"/api/me/bots/{bot}", headers={"X-CSRF-Token": other.csrf}).status_code == 404
    assert owner.http.delete(f"/api/me/bots/{bot}").status_code >= 400  # no CSRF token: refused
    assert [b["name"] for b in owner.http.get("/api/me/bots").json()["bots"]] == [bot]
    r = owner.http.delete(f"/api/me/bots/{bot}", headers={"X-CSRF-Token": owner.csrf})
    assert r.status_code == 200, r.text
    assert owner.http.get("/api/me/bots").json()["bots"] == []
    assert httpx.get(server.base + "/api/bot", headers=bearer(token)).status_code == 401
    assert httpx.get(f"{server.base}/api/users/{bot}").status_code == 404
    assert owner.http.delete(f"/api/me/bots/{bot}", headers={"X-CSRF-Token": owner.csrf}).status_code == 404
    assert other.bot(bot) == bot  # the name is free again


def test_bad_tokens_are_refused(server: Server) -> None:
    for token in ("tlb_" + secrets.token_urlsafe(32), "tlb_", "tlb_\u00e9"):
        r = httpx.get(server.base + "/api/bot", headers={"Authorization": f"Bearer {token}".encode()})
        assert r.status_code == 401, token
    r = httpx.post(server.base + "/api/games", headers=bearer("tlb_nope"),
                   json={"game": "ttr-new-york", "seats": [{"kind": "human"}, {"kind": "bot", "bot": "greedy"}]})
    assert r.status_code == 401  # never a guest's game instead
    assert httpx.get(server.base + "/api/bot").status_code == 401


def test_a_token_acts_for_its_own_account_only(server: Server) -> None:
    owner, other = Person(server), Person(server)
    bot = owner.bot()
    token = owner.token(bot)
    # another person can neither make nor list nor revoke tokens of somebody else's bot
    assert other.post(f"/api/bots/{bot}/tokens").status_code == 404
    assert other.http.get(f"/api/bots/{bot}/tokens").status_code == 404
    token_id = owner.http.get(f"/api/bots/{bot}/tokens").json()["tokens"][0]["id"]
    assert other.http.delete(f"/api/bots/{bot}/tokens/{token_id}",
                             headers={"X-CSRF-Token": other.csrf}).status_code == 404
    # a bot's token manages nothing: no bot accounts, no tokens (its own included)
    anon = httpx.Client(base_url=server.base, headers=bearer(token))
    assert anon.post("/api/me/bots", json={"name": unique("bot")}).status_code == 401
    assert anon.post(f"/api/bots/{bot}/tokens", json={}).status_code == 401
    assert anon.get(f"/api/bots/{bot}/tokens").status_code == 401
    # a bot account cannot log in (it has no password), nor own bots
    r = httpx.post(server.base + "/api/login", json={"username": bot, "password": "correct horse battery"},
                   headers={"X-Forwarded-For": "10.8.0.1"})
    assert r.status_code == 401
    # the seat a token takes is its own account's, whatever name the body asks for
    r = anon.post("/api/games", json={"game": "ttr-new-york", "seats": [
        {"kind": "human", "name": other.name}, {"kind": "bot", "bot": "greedy"}]})
    assert r.status_code == 201 and r.json()["seats"][0]["name"] == bot
    # a bot account's name is never one of the server's own bots
    assert owner.post("/api/me/bots", {"name": "Planner"}).status_code == 400
    assert owner.post("/api/me/bots", {"name": bot.upper()}).json()["code"] == "username-taken"


def test_a_token_past_its_rate_gets_429(server: Server) -> None:
    owner = Person(server)
    token = owner.token(owner.bot())
    answers = [httpx.get(server.base + "/api/bot", headers=bearer(token)) for _ in range(API_REQUESTS + 1)]
    assert [r.status_code for r in answers] == [200] * API_REQUESTS + [429]
    assert 1 <= int(answers[-1].headers["Retry-After"]) <= 60
    with pytest.raises(ApiError) as refused:
        BotClient(server.base, token, rate_waits=0).me()
    assert refused.value.status == 429 and refused.value.retry_after


def test_illegal_moves_and_a_dropped_connection(server: Server) -> None:
    owner = Person(server)
    token = owner.token(owner.bot())
    client = BotClient(server.base, token)
    client.create("ttr-new-york", ["greedy"])
    with pytest.raises(MoveRefused) as refused:
        client.play(lambda view, legal: "claim Nowhere-Elsewhere")
    assert refused.value.code == "illegal" and refused.value.move == "claim Nowhere-Elsewhere"
    asked: list[int] = []
    dropped: list[int] = []

    def policy(view: dict[str, Any], legal: list[str]) -> str:
        asked.append(len(view["log"]))
        if len(asked) == 1:
            return "draw nothing"  # refused: asked again (on_illegal="retry")
        if len(asked) == 4 and client.connection is not None:
            client.connection.close()  # the connection drops: the client opens it again and resumes
            dropped.append(len(asked))
        return str(EXAMPLE["policy"](view, legal))

    result = client.play(policy, on_illegal="retry")
    assert result.state["over"] and dropped == [4]
    assert len(result.view["log"]) >= max(asked)  # the whole log, across the reconnection
