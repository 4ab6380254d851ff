"""The request bodies of the JSON API as pydantic models, and the route class that decodes them safely.

A body reaches its model through :func:`tracklayer.server.guard.loads` only (:class:`JSONBodyRoute`):
the same decoder as every other way in, with its limits on depth, numbers and Unicode, whatever
``Content-Type`` the client sent (the ``JSONOnly`` middleware has already refused a cross-site
form). A model says which fields a body has and of what type; what depends on the catalog (a
game's name, its number of players, its variants, its bots) is checked by the route, which answers
with the words the docs give. A body that fails its model is answered **400** with
``{"detail": "field seats[1].kind: Input should be a valid string"}`` (``app.validation_error``).

Fields are strict (``StrictInt``: ``true`` and ``"3"`` are not numbers), and ``Any`` where the
route's own check names the problem better (names, checked by ``guard.clean_name``).
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Annotated, Any

from fastapi import Request, Response
from fastapi.routing import APIRoute
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr

from tracklayer.server.guard import json_body


class DecodedRequest(Request):
    """A request whose body was decoded by the server's own decoder: FastAPI reads that value."""

    def __init__(self, request: Request, raw: bytes, value: Any) -> None:
        headers = [(k, v) for k, v in request.scope["headers"] if k != b"content-type"]
        super().__init__({**request.scope, "headers": [*headers, (b"content-type", b"application/json")]},
                         request.receive)
        self._raw, self._value = raw, value

    async def body(self) -> bytes:
        return self._raw

    async def json(self) -> Any:
        return self._value


class JSONBodyRoute(APIRoute):
    """A route whose body model is filled from :func:`guard.json_body` (400 with the reason for a body
    that is not acceptable JSON, an empty one included) instead of FastAPI's ``json.loads``."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()
        if self.body_field is None:
            return handler

        async def decoded(request: Request) -> Response:
            value = await json_body(request)
            return await handler(DecodedRequest(request, await request.body(), value))

        return decoded


class Body(BaseModel):
    """A request body: unknown fields are ignored (clients of other versions may send more)."""

    model_config = ConfigDict(extra="ignore")


class Strict(Body):
    """A request body whose unknown fields are refused: a misspelt field must not be silently dropped."""

    model_config = ConfigDict(extra="forbid")


class SeatIn(Body):
    kind: StrictStr = Field("human", description="human, bot or open (a seat anyone may claim from the lobby)")
    name: Any = Field(None, description="a player's name (at most 24 characters); none: 'Player N'")
    bot: Any = Field(None, description="a bot's name or level (GET /api/catalog lists them); bot seats only")


class CreateGame(Body):
    """``POST /api/games``: the game, its seats and its options (docs/server.md)."""

    game: StrictStr = Field(description="a game's name from GET /api/catalog, e.g. ttr-europe")
    seats: Annotated[list[SeatIn], Field(min_length=1, max_length=16)]
    variant: StrictStr | None = None
    options: dict[str, Any] | None = None
    first_player: StrictInt | None = Field(None, description="the seat that moves first; none: drawn")
    hotseat: Any = Field(None, description="true: one more link that plays every human seat on one screen")
    private: StrictBool = Field(False, description="true: not listed in the lobby")
    clock: Any = Field(None, description="a preset name's object or turn_seconds/bank_seconds (docs/server.md)")
    standin: Any = Field(None, description="the bot that plays a seat whose time ran out (a bot or level)")


class CreateTutorial(Body):
    """``POST /api/tutorial``: a tutorial game of one game against a bot (tracklayer/server/tutorial.py)."""

    game: StrictStr = Field(description="a game with a lesson: ttr-europe, ttr-new-york, trans-europa, trans-america")
    name: Any = Field(None, description="the player's name")
    bot_name: Any = Field(None, description="the bot's name, in the player's language")


class Credentials(Body):
    """``POST /api/register`` and ``POST /api/login``."""

    username: Any = Field(description="3 to 24 letters, digits, '_', '.' or '-'")
    password: Any = Field(description="8 to 256 characters")


class JoinGame(Body):
    """``POST /api/games/{id}/join``: claim an open seat."""

    name: Any = None


class QuickPlay(Body):
    """``POST /api/quickplay``: a seat in a waiting public game of this map and size, or a new one."""

    game: StrictStr
    players: StrictInt
    wait: StrictInt = Field(30, description="seconds before bots take the open seats: 30, 120 or 600")
    name: Any = None
    avoid: Annotated[list[StrictStr], Field(max_length=500, description="ids of games this browser has a seat in")] = []


class StatusRequest(Body):
    """``POST /api/games/status``: per (game, token), what that token grants there and whose turn it is."""

    items: Annotated[list[Any], Field(max_length=100)]


class NewBot(Body):
    """``POST /api/me/bots``: a bot account owned by the logged-in person."""

    name: Any = Field(description="the bot account's username: 3 to 24 letters, digits, '_', '.' or '-'")
    description: Any = Field(None, description="what the program is, at most 200 characters (shown on its profile)")


class NewToken(Body):
    """``POST /api/bots/{name}/tokens``: an API token of a bot account (its secret is shown once)."""

    label: Any = Field(None, description="what the token is for, at most 24 characters (none: 'token')")


class InviteFriend(Body):
    """``POST /api/games/{id}/invite``: offer a human seat to an account that follows you."""

    seat: StrictInt = Field(description="the number of a human seat nobody has taken")
    username: StrictStr = Field(min_length=1, max_length=64, description="the account to invite: it must follow you")
    mail: StrictBool = Field(False, description="also mail them the seat's link, if their account takes invite mail")
def _email(value: Any) -> str:
    """An e-mail address as people type one: ``local@domain``, the domain a host name with a dot. The
    check is deliberately simple (the verification mail is the real test): no spaces or control
    characters, one ``@``, at most 254 characters, a local part of at most 64."""
    if not isinstance(value, str):
        raise ValueError("an e-mail address is text, e.g. ann@example.org")
    text = value.strip()
    local, at, domain = text.rpartition("@")
    labels = domain.rstrip(".").split(".")
    if not at or not local or len(text) > 254 or len(local) > 64 or "@" in local \
            or any(c.isspace() or not c.isprintable() or c in '<>(),;:\\"[]' for c in text) \
            or len(labels) < 2 or not all(labels) \
            or any(len(x) > 63 or x.startswith("-") or x.endswith("-") for x in labels):
        raise ValueError("not an e-mail address (name@example.org)")
    return text


Email = Annotated[Any, AfterValidator(_email)]


class MailSettings(Strict):
    """``PUT /api/me/mail``: the account's address (null: none) and its switches; fields left out stay."""

    email: Email | None = Field(None, description="an e-mail address, or null to remove it")
    turn_mail: StrictBool | None = Field(None, description="mail when it is your turn in a turn-based game")
    invite_mail: StrictBool | None = Field(None, description="other players may mail you a seat's invitation")
    lang: StrictStr | None = Field(None, description="the language of your mail: en, de, it, fr or nl")
    resend: StrictBool = Field(False, description="true: mail a new verification link")


class VerifyMail(Body):
    """``POST /api/mail/verify``: the token of a verification link (after its ``#``)."""

    token: StrictStr


class InviteMail(Body):
    """``POST /api/games/{id}/invite-mail``: mail a seat's link (creator token) to an address or to a
    registered player who takes invite mail."""

    seat: StrictInt = Field(description="the seat whose link is sent")
    email: Email | None = Field(None, description="the address to mail the seat's link to")
    username: StrictStr | None = Field(None, description="or a registered player's name")
    lang: StrictStr = Field("en", description="the language of a mail to an address: en, de, it, fr or nl")
