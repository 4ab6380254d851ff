"""The API describes itself: /openapi.json lists every router's paths with their request bodies'
schemas, /docs is Swagger UI served from this server's own files, and a body that does not fit its
model is a 400 naming the field."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import BaseModel

from tests.server.helpers import database_url
from tracklayer.server import Settings, create_app, responses


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    url = database_url(Path(tmp_path_factory.mktemp("openapi")))
    with TestClient(create_app(Settings(database_url=url, tune_gc=False, bot_workers=1))) as c:
        yield c


def test_the_schema_lists_every_area_with_its_request_bodies(client: TestClient) -> None:
    doc = client.get("/openapi.json").json()
    paths = doc["paths"]
    for path, method in [("/api/games", "post"), ("/api/games/{game_id}", "get"), ("/api/catalog", "get"),
                         ("/api/games/{game_id}/join", "post"), ("/api/quickplay", "post"),
                         ("/api/games/status", "post"), ("/api/games/{game_id}/seats/{seat}/{what}", "post"),
                         ("/api/games/{game_id}/replay", "get"), ("/api/score", "post"),
                         ("/api/register", "post"), ("/api/login", "post"), ("/api/leaderboard", "get")]:
        assert method in paths.get(path, {}), path
    schemas = doc["components"]["schemas"]
    create = paths["/api/games"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert create == {"$ref": "#/components/schemas/CreateGame"}
    assert {"game", "seats", "first_player", "clock"} <= set(schemas["CreateGame"]["properties"])
    assert set(schemas["CreateGame"]["required"]) == {"game", "seats"}
    assert {"username", "password"} <= set(schemas["Credentials"]["properties"])
    assert "/docs" not in paths and "/ws/{game_id}" not in paths  # the websocket: docs/protocol.md


def test_docs_page_uses_the_servers_own_swagger_files(client: TestClient) -> None:
    r = client.get("/docs")
    assert r.status_code == 200 and "text/html" in r.headers["content-type"]
    assert "/docs/assets/swagger-ui-bundle.js" in r.text and "/openapi.json" in r.text
    assert "cdn" not in r.text.lower()
    js = client.get("/docs/assets/swagger-ui-bundle.js")
    assert js.status_code == 200 and "javascript" in js.headers["content-type"]
    assert client.get("/docs/assets/swagger-ui.css").status_code == 200


@pytest.mark.parametrize(("body", "words"), [
    ({"game": "ttr-europe", "seats": [{}, {"kind": 7}]}, "field seats[1].kind: Input should be a valid string"),
    ({"game": "ttr-europe", "seats": [{}, {}], "first_player": True}, "field first_player:"),
    ({"seats": [{}, {}]}, "field game: Field required"),
    ([1, 2], "the request body: "),
])
def test_a_body_that_does_not_fit_its_model_is_a_400_naming_the_field(client: TestClient, body: object,
                                                                      words: str) -> None:
    r = client.post("/api/games", json=body)
    assert r.status_code == 400 and words in r.json()["detail"], r.text


def test_a_path_parameter_of_the_wrong_type_stays_a_422(client: TestClient) -> None:
    r = client.post("/api/games/nope/seats/first/resign", headers={"Authorization": "Bearer x"})
    assert r.status_code == 422 and "not valid" in r.json()["detail"], r.text


def _json_routes(doc: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, methods in doc["paths"].items():
        if path.startswith("/api/"):
            for method, op in methods.items():
                yield path, method, op


def test_every_api_route_documents_what_it_answers(client: TestClient) -> None:
    """Each JSON route under /api has a 2xx answer whose schema is a named model, and every field of
    those models says what it holds."""
    doc = client.get("/openapi.json").json()
    schemas = doc["components"]["schemas"]
    seen = 0
    for path, method, op in _json_routes(doc):
        ok = [(code, r) for code, r in op["responses"].items() if code.startswith("2")]
        assert ok, (method, path)
        for code, answer in ok:
            schema = answer.get("content", {}).get("application/json", {}).get("schema", {})
            assert set(schema) == {"$ref"}, (method, path, code, schema)
            model = schemas[schema["$ref"].rsplit("/", 1)[1]]
            assert model.get("properties") or model.get("description"), (method, path, model)
            seen += 1
    assert seen >= 40
    ours = {name for name, v in vars(responses).items()
            if isinstance(v, type) and issubclass(v, BaseModel) and v.__module__ == responses.__name__
            and "[" not in name}  # pydantic's own RootModel[...] class lives in the module too
    assert ours <= set(schemas)
    for name in ours & set(schemas):
        for field, prop in schemas[name].get("properties", {}).items():
            assert prop.get("description"), f"{name}.{field} has no description"


def _same(model: type[BaseModel], data: Any) -> None:
    """``data`` fits ``model`` and the model writes it back unchanged: no key dropped, none added."""
    value = model.model_validate(data)
    assert value.model_dump(mode="json", by_alias=True, exclude_unset=True) == data, model.__name__


def test_real_answers_fit_their_models(client: TestClient) -> None:
    _same(responses.Catalog, client.get("/api/catalog").json())
    r = client.post("/api/games", json={"game": "ttr-europe", "clock": {"preset": "blitz"},
                                        "seats": [{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "random"}]})
    assert r.status_code == 201, r.text
    created = r.json()
    _same(responses.CreatedGame, created)
    game_id, seat_token, creator = created["id"], created["seats"][0]["token"], created["creator"]["token"]
    _same(responses.GameList, client.get("/api/games").json())
    _same(responses.GameSummary, client.get(f"/api/games/{game_id}").json())
    view = client.get(f"/api/games/{game_id}/view", headers={"Authorization": f"Bearer {seat_token}"}).json()
    _same(responses.StateMessage, view)
    assert "legal" in view or "waiting" in view or view["seat"] is not None
    _same(responses.GameLinks, client.get(f"/api/games/{game_id}/links",
                                          headers={"Authorization": f"Bearer {creator}"}).json())
    status = client.post("/api/games/status", json={"items": [{"game": game_id, "token": seat_token},
                                                             {"game": game_id, "token": "nope"}, {}]}).json()
    assert [set(i) for i in status["items"][1:]] == [{"game", "error"}, {"error"}]
    _same(responses.StatusBatch, status)
    r = client.post("/api/quickplay", json={"game": "ttr-europe", "players": 3, "name": "Bo"})
    _same(responses.QuickPlayed, r.json())
    _same(responses.Leaderboard, client.get("/api/leaderboard", params={"game": "ttr"}).json())
    _same(responses.MailEnabled, client.get("/api/mail").json())
    session = client.post("/api/register", json={"username": "Schema_Sam", "password": "a long enough password"})
    assert session.status_code == 201, session.text
    _same(responses.Session, session.json())
    me = client.get("/api/me").json()
    _same(responses.Me, me)
    profile = client.get("/api/users/Schema_Sam").json()
    assert profile["relation"] == {"self": True}
    _same(responses.Profile, profile)
    _same(responses.FriendsList, client.get("/api/friends").json())
    csrf = {"X-CSRF-Token": me["csrf"]}
    _same(responses.MailState, client.get("/api/me/mail").json())
    bot = client.post("/api/me/bots", json={"name": "Schema_Bot", "description": "tests"}, headers=csrf)
    assert bot.status_code == 201, bot.text
    _same(responses.CreatedBot, bot.json())
    _same(responses.BotList, client.get("/api/me/bots").json())
    token = client.post("/api/bots/Schema_Bot/tokens", json={"label": "ci"}, headers=csrf).json()
    _same(responses.NewApiToken, token)
    _same(responses.TokenList, client.get("/api/bots/Schema_Bot/tokens").json())
    _same(responses.BotWhoami, client.get("/api/bot", headers={"Authorization": f"Bearer {token['token']}"}).json())
    _same(responses.Ok, client.post("/api/logout", headers=csrf).json())
    assert client.get("/api/me").json() == {"account": None}
