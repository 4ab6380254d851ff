"""E-mail (tracklayer.server.mail): an account's address and switches, verification links, and mailing
a seat's invitation."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Header, HTTPException, Request
from fastapi.responses import FileResponse, HTMLResponse

from tracklayer.server import responses
from tracklayer.server.accounts import username_key
from tracklayer.server.deps import AccountsDep, MailDep, RoomDep, StaticDep, require_creator
from tracklayer.server.guard import SafeJSONResponse
from tracklayer.server.mail import LANGS, Limited, Mail, TokenRefused
from tracklayer.server.models import InviteMail, JSONBodyRoute, MailSettings, VerifyMail
from tracklayer.server.routers.games import client_address

router = APIRouter(tags=["mail"], route_class=JSONBodyRoute)


MAIL_OFF = "this server sends no e-mail (no SMTP server is configured)"


def _off(mail: Mail) -> None:
    if not mail.enabled:
        raise HTTPException(409, MAIL_OFF)


def _state(mail: Mail, current: dict[str, Any]) -> dict[str, Any]:
    return {"enabled": mail.enabled, **current}


@router.get("/api/mail", response_model=responses.MailEnabled)
async def mail_enabled(mail: MailDep) -> dict[str, Any]:
    """Whether this server sends mail (the pages offer mail only then)."""
    return {"enabled": mail.enabled}


@router.get("/api/me/mail", response_model=responses.MailState)
async def mail_settings(request: Request, acct: AccountsDep, mail: MailDep) -> dict[str, Any]:
    """The logged-in account's address (as typed), whether it is verified or a link is on its way, the
    switches, and whether this server sends mail at all (``enabled``)."""
    who = await acct.current(request)
    if who is None:
        raise HTTPException(401, "log in to see your e-mail settings")
    return _state(mail, await asyncio.to_thread(mail.store.settings, who["account_id"]))


@router.put("/api/me/mail", response_model=responses.MailSaved)
async def set_mail(body: MailSettings, request: Request, acct: AccountsDep,
                   mail: MailDep) -> dict[str, Any] | SafeJSONResponse:
    """Change the address (a new one is unverified: a verification link is mailed to it), remove it
    (``null``), or change the switches or the mail's language."""
    who = await acct.authenticated(request)
    if who is None:
        raise HTTPException(401, "log in to change your e-mail settings")
    if body.lang is not None and body.lang not in LANGS:
        raise HTTPException(400, f"field lang: one of {', '.join(LANGS)}")
    account_id = who["account_id"]
    before = await asyncio.to_thread(mail.store.settings, account_id)
    values: dict[str, Any] = {k: v for k, v in (("turn_mail", body.turn_mail), ("invite_mail", body.invite_mail),
                                                ("lang", body.lang)) if v is not None}
    new_address = "email" in body.model_fields_set and body.email != before["email"]
    if new_address:
        if body.email is not None:
            _off(mail)
        values["email"] = body.email
    if values:
        await asyncio.to_thread(mail.store.save, account_id, **values)
    sent = False
    if (new_address and body.email is not None) or (body.resend and before["email"] is not None
                                                     and not before["verified"] and not new_address):
        _off(mail)
        try:
            await asyncio.to_thread(mail.send_verification, account_id, who["username"])
            sent = True
        except Limited as exc:
            return SafeJSONResponse({"detail": str(exc), "code": "rate-limited",
                                     **_state(mail, await asyncio.to_thread(mail.store.settings, account_id))},
                                    status_code=429)
    return {**_state(mail, await asyncio.to_thread(mail.store.settings, account_id)), "sent": sent}


@router.post("/api/mail/verify", response_model=responses.Ok)
async def verify(body: VerifyMail, mail: MailDep) -> dict[str, Any] | SafeJSONResponse:
    """Verify an address with the token of its link (no session needed: the token is the proof); 400
    with ``code`` ``token-invalid``, ``token-expired`` or ``token-used`` otherwise."""
    try:
        await asyncio.to_thread(mail.store.verify, body.token)
    except TokenRefused as exc:
        return SafeJSONResponse({"detail": str(exc), "code": f"token-{exc.code}"}, status_code=400)
    return {"ok": True}


@router.get("/verify-email", response_class=HTMLResponse)
async def verify_page(static: StaticDep) -> FileResponse:
    """The page a verification link opens (verify.js posts the token after ``#``)."""
    return FileResponse(static / "verify.html", media_type="text/html")


@router.post("/api/games/{game_id}/invite-mail", response_model=responses.MailedInvite)
async def invite(body: InviteMail, room: RoomDep, request: Request, acct: AccountsDep, mail: MailDep,
                 authorization: str | None = Header(default=None)) -> dict[str, Any]:
    """Mail a seat's link, with the game's creator token, to ``email`` or to the registered
    player ``username`` (if their account takes invite mail; their address is never shown)."""
    rec = room.record
    require_creator(room, authorization, "invitations are sent by the game's creator")
    _off(mail)
    seat = body.seat
    if not 0 <= seat < len(rec.seats) or not rec.seats[seat].get("token"):
        raise HTTPException(400, "field seat: the number of a seat with a link")
    if room.game.is_over:
        raise HTTPException(409, "the game is over")
    if (body.email is None) == (body.username is None):
        raise HTTPException(400, "send either field email or field username")
    if body.lang not in LANGS:
        raise HTTPException(400, f"field lang: one of {', '.join(LANGS)}")
    who = await acct.current(request)
    target = None
    if body.username is not None:
        target = await asyncio.to_thread(mail.store.account_named, username_key(body.username.strip()))
        if target is None:
            raise HTTPException(404, "field username: no such player")
    others = [s["name"] for i, s in enumerate(rec.seats) if i != seat and s["kind"] == "human"]
    sender_name = who["username"] if who is not None else (others[0] if others else "tracklayer")
    sender = mail.sender_key(who["account_id"] if who is not None else None, client_address(request))
    try:
        await asyncio.to_thread(mail.invite, room, seat, sender, sender_name, body.lang, body.email, target)
    except LookupError as exc:
        raise HTTPException(409, str(exc)) from None
    except Limited as exc:
        raise HTTPException(429, str(exc)) from None
    return {"ok": True, "seat": seat}
