"""Accounts (tracklayer.server.accounts): registering, logging in and out, the session, profiles."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, HTTPException, Request, Response
from fastapi.responses import FileResponse, HTMLResponse

from tracklayer.server import responses
from tracklayer.server.accounts import (
    COOKIE,
    PASSWORD_MAX,
    _same_origin,
    check_password,
    check_username,
    hasher,
    username_key,
    verify_password,
)
from tracklayer.server.deps import AccountsDep, StaticDep
from tracklayer.server.guard import SafeJSONResponse, shown
from tracklayer.server.models import Credentials, JSONBodyRoute
from tracklayer.server.routers.games import client_address

router = APIRouter(tags=["accounts"], route_class=JSONBodyRoute)


def credentials(request: Request, body: Credentials) -> tuple[str, str]:
    if not _same_origin(request):
        raise HTTPException(403, "cross-site login refused")
    return check_username(body.username), check_password(body.password)


@router.post("/api/register", status_code=201, response_model=responses.Session)
async def register(body: Credentials, request: Request, response: Response,
                   acct: AccountsDep) -> dict[str, Any] | Response:
    username, password = credentials(request, body)
    # hashing is expensive: registrations count as attempts of the address
    await asyncio.to_thread(acct.limiter.check_address, client_address(request))
    digest = await asyncio.to_thread(hasher.hash, password)
    account_id = await asyncio.to_thread(acct.store.create_account, username, digest)
    if account_id is None:
        holder = await asyncio.to_thread(acct.store.name_holder, username)
        if holder is not None and not holder[1]:
            return SafeJSONResponse({"detail": f"the username {shown(username)} looks like the existing "
                                               f"{shown(holder[0])}: choose another",
                                     "code": "username-lookalike", "existing": holder[0]},
                                    status_code=409)
        return SafeJSONResponse({"detail": f"the username {shown(username)} is taken",
                                 "code": "username-taken"}, status_code=409)
    sid, csrf = await asyncio.to_thread(acct.store.new_session, account_id)
    await acct.seen(account_id)  # online from now (friends.py)
    acct.set_cookie(response, request, sid)
    return {"username": username, "csrf": csrf}


@router.post("/api/login", response_model=responses.Session)
async def login(body: Credentials, request: Request, response: Response, acct: AccountsDep) -> dict[str, Any]:
    if not _same_origin(request):
        raise HTTPException(403, "cross-site login refused")
    name, password = body.username, body.password
    if not isinstance(name, str) or not isinstance(password, str):
        raise HTTPException(400, "send {\"username\": ..., \"password\": ...}")
    if len(name) > 64 or len(password) > PASSWORD_MAX:
        raise HTTPException(401, "wrong username or password")
    key = username_key(name.strip()) if name.isprintable() else "?"
    await asyncio.to_thread(acct.limiter.check, client_address(request), key)
    found = await asyncio.to_thread(acct.store.find_account, name.strip())
    ok = await asyncio.to_thread(verify_password, found.password_hash if found else None, password)
    if not ok or found is None:
        raise HTTPException(401, "wrong username or password")
    await asyncio.to_thread(acct.limiter.succeeded, key)
    if hasher.check_needs_rehash(found.password_hash):  # parameters changed since it was made
        await asyncio.to_thread(acct.store.set_hash, found.id, await asyncio.to_thread(hasher.hash, password))
    sid, csrf = await asyncio.to_thread(acct.store.new_session, int(found.id))
    await acct.seen(int(found.id))  # online from now (friends.py)
    acct.set_cookie(response, request, sid)
    return {"username": found.username, "csrf": csrf}


@router.post("/api/logout", response_model=responses.Ok)
async def logout(request: Request, response: Response, acct: AccountsDep) -> dict[str, Any]:
    who = await acct.authenticated(request)
    if who is not None:
        await asyncio.to_thread(acct.store.end_session, request.cookies[COOKIE])
    response.delete_cookie(COOKIE, path="/")
    return {"ok": True}


@router.get("/api/me", response_model=responses.Me, response_model_exclude_unset=True)
async def me(request: Request, acct: AccountsDep) -> dict[str, Any]:
    who = await acct.current(request)
    if who is None:
        return {"account": None}
    return {"account": {"username": who["username"]}, "csrf": who["csrf"]}


@router.get("/api/users/{username}", response_model=responses.Profile, response_model_exclude_unset=True)
async def user(username: str, request: Request, acct: AccountsDep) -> dict[str, Any]:
    """A player's profile; a person's has their online status (friends.py), and for a signed-in visitor
    whether they follow each other (``relation``; ``"self": true`` on one's own profile)."""
    out = await asyncio.to_thread(acct.store.profile, username) if len(username) <= 64 else None
    if out is None:
        raise HTTPException(404, "no such player")
    if not out.get("bot"):
        found = await asyncio.to_thread(acct.store.find_account, username)
        if found is not None:
            out["presence"] = await asyncio.to_thread(acct.friends.status, int(found.id))
            who = await acct.current(request)
            if who is not None and who["account_id"] == found.id:
                out["relation"] = {"self": True}
            elif who is not None:
                out["relation"] = await asyncio.to_thread(acct.friends.relation, who["account_id"], int(found.id))
    return out


@router.get("/u/{username}", response_class=HTMLResponse)
async def profile_page(username: str, acct: AccountsDep, static: StaticDep) -> FileResponse:
    found = len(username) <= 64 and await asyncio.to_thread(acct.store.find_account, username) is not None
    return FileResponse(static / "profile.html", media_type="text/html", status_code=200 if found else 404)
