"""The API describes itself: /openapi.json lists every router's paths with their request bodies'
schemas, /docs is Swagger UI served from this server's own files, and a body that does not fit its
model is a 400 naming the field."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.server.helpers import database_url
from tracklayer.server import Settings, create_app


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
