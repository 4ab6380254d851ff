"""Bot accounts and their API tokens (tracklayer.server.accounts.bots): outside programs that play
rated games over the network (docs/protocol.md, "Bots over the network").

A person manages their bot accounts and tokens with their session (and its CSRF token, like every
state-changing request the cookie authenticates); an API token manages nothing. A bot then acts with
``Authorization: Bearer <token>`` on quick play, joining and creating games (routers.lobby, .games)
and on ``GET /api/bot``.
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import FileResponse, HTMLResponse

from tracklayer.bots import resolve_bot
from tracklayer.server import responses
from tracklayer.server.accounts import Accounts, check_username
from tracklayer.server.deps import AccountsDep, StaticDep
from tracklayer.server.guard import SafeJSONResponse, clean_name, clean_text, shown
from tracklayer.server.models import JSONBodyRoute, NewBot, NewToken

router = APIRouter(tags=["bots"], route_class=JSONBodyRoute)
DESCRIPTION_MAX = 200  # characters of a bot account's description


async def person(request: Request, acct: Accounts, write: bool) -> dict[str, Any]:
    """The logged-in person (CSRF-checked for a change); 401 for a guest or an API token."""
    who = await (acct.authenticated(request) if write else acct.current(request))
    if who is None:
        raise HTTPException(401, "log in first: bot accounts and their tokens are managed by their owner's "
                                 "session (an API token manages nothing)")
    return who


async def owned(request: Request, acct: Accounts, name: str, write: bool) -> int:
    """The id of the logged-in person's bot account ``name``; 404 for any other name (somebody
    else's bot is not told apart from no bot)."""
    who = await person(request, acct, write)
    bot_id = await asyncio.to_thread(acct.bots.owned_bot, who["account_id"], name) if len(name) <= 64 else None
    if bot_id is None:
        raise HTTPException(404, f"you own no bot account {shown(name)}")
    return bot_id


@router.post("/api/me/bots", status_code=201, response_model=responses.CreatedBot)
async def create_bot(body: NewBot, request: Request, acct: AccountsDep) -> dict[str, Any] | SafeJSONResponse:
    who = await person(request, acct, True)
    name = check_username(body.name)
    description = clean_text(body.description, DESCRIPTION_MAX, "description", "description")
    if resolve_bot(name) is not None:
        raise HTTPException(400, f"{shown(name)} is the name of one of the server's own bots: choose another")
    try:
        bot_id = await asyncio.to_thread(acct.bots.create_bot, who["account_id"], name, description)
    except ValueError as exc:
        raise HTTPException(409, str(exc)) from None
    if bot_id is None:
        holder = await asyncio.to_thread(acct.store.name_holder, name)
        lookalike = holder is not None and not holder[1]
        return SafeJSONResponse({"detail": f"the username {shown(name)} "
                                           + (f"looks like the existing {shown(holder[0])}" if lookalike and holder
                                              else "is taken"),
                                 "code": "username-lookalike" if lookalike else "username-taken"}, status_code=409)
    return {"name": name, "owner": who["username"], "profile": f"/u/{name}"}


@router.get("/api/me/bots", response_model=responses.BotList)
async def my_bots(request: Request, acct: AccountsDep) -> dict[str, Any]:
    who = await person(request, acct, False)
    return {"bots": await asyncio.to_thread(acct.bots.bots_of, who["account_id"])}


@router.delete("/api/me/bots/{name}", response_model=responses.DeletedBot)
async def delete_bot(name: str, request: Request, acct: AccountsDep) -> dict[str, Any]:
    """Delete one's bot account: its tokens stop working at once, its ratings leave the ladder, and its
    name is free again (its past games keep it in their seats)."""
    bot_id = await owned(request, acct, name, True)
    await asyncio.to_thread(acct.bots.delete_bot, bot_id)
    return {"ok": True, "name": name}


@router.post("/api/bots/{name}/tokens", status_code=201, response_model=responses.NewApiToken)
async def create_token(name: str, body: NewToken, request: Request, acct: AccountsDep) -> dict[str, Any]:
    bot_id = await owned(request, acct, name, True)
    label = clean_name(body.label, "token", "label")  # like a player's name: printable, at most 24 characters
    try:
        return await asyncio.to_thread(acct.bots.new_token, bot_id, label)
    except ValueError as exc:
        raise HTTPException(409, str(exc)) from None


@router.get("/api/bots/{name}/tokens", response_model=responses.TokenList)
async def list_tokens(name: str, request: Request, acct: AccountsDep) -> dict[str, Any]:
    bot_id = await owned(request, acct, name, False)
    return {"tokens": await asyncio.to_thread(acct.bots.tokens, bot_id)}


@router.delete("/api/bots/{name}/tokens/{token_id}", response_model=responses.RevokedToken)
async def revoke_token(name: str, token_id: str, request: Request, acct: AccountsDep) -> dict[str, Any]:
    bot_id = await owned(request, acct, name, True)
    if len(token_id) > 32 or not await asyncio.to_thread(acct.bots.revoke, bot_id, token_id):
        raise HTTPException(404, "no such live token")
    return {"ok": True, "id": token_id}


@router.get("/bots", response_class=HTMLResponse)
async def bots_page(static: StaticDep) -> FileResponse:
    """The signed-in person's bot accounts and their tokens (``static/bots.js``, on the API above)."""
    return FileResponse(static / "bots.html", media_type="text/html")


@router.get("/api/bot", response_model=responses.BotWhoami)
async def whoami(request: Request, acct: AccountsDep) -> dict[str, Any]:
    """The bot account an API token acts for, with its ratings: a bot's first check of its token."""
    bot = await acct.api_bot(request)
    if bot is None:
        raise HTTPException(401, "send the bot account's API token as 'Authorization: Bearer tlb_…'",
                            headers={"WWW-Authenticate": "Bearer"})
    profile = await asyncio.to_thread(acct.store.profile, bot["username"]) or {}
    return {"username": bot["username"], "owner": profile.get("owner"), "ratings": profile.get("ratings", {})}
