"""Friends (tracklayer.server.accounts.friends): following players, the friends list with who is online, and
invitations to a seat of a new game."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable
from typing import Any, TypeVar

from fastapi import APIRouter, Header, HTTPException, Request

from tracklayer.server import responses
from tracklayer.server.accounts import username_key
from tracklayer.server.accounts.friends import INVITES_PER_WINDOW, FriendError
from tracklayer.server.deps import AccountsDep, MailDep, RoomDep, RoomsDep, is_creator, require_creator
from tracklayer.server.lobby import seat_link
from tracklayer.server.mail import Limited, Mail
from tracklayer.server.models import InviteFriend, JSONBodyRoute
from tracklayer.server.room import Room
from tracklayer.server.routers.games import client_address
from tracklayer.server.routers.mail import MAIL_OFF

router = APIRouter(tags=["friends"], route_class=JSONBodyRoute)


async def signed_in(request: Request, acct: AccountsDep, what: str) -> dict[str, Any]:
    """The CSRF-checked session of a state-changing request; 401 for a guest."""
    who = await acct.authenticated(request)
    if who is None:
        raise HTTPException(401, f"sign in to {what}")
    return who


_T = TypeVar("_T")


async def call(fn: Callable[..., _T], *args: object) -> _T:
    try:
        return await asyncio.to_thread(fn, *args)
    except FriendError as exc:
        raise HTTPException(exc.status, exc.message) from None


@router.post("/api/users/{username}/follow", response_model=responses.Following)
async def follow(username: str, request: Request, acct: AccountsDep) -> dict[str, Any]:
    who = await signed_in(request, acct, "follow players")
    if len(username) > 64:
        raise HTTPException(404, "no such player")
    out: dict[str, Any] = await call(acct.friends.follow, who["account_id"], username)
    return out


@router.post("/api/users/{username}/unfollow", response_model=responses.Following)
async def unfollow(username: str, request: Request, acct: AccountsDep) -> dict[str, Any]:
    who = await signed_in(request, acct, "follow players")
    if len(username) > 64:
        raise HTTPException(404, "no such player")
    out: dict[str, Any] = await call(acct.friends.unfollow, who["account_id"], username)
    return out


@router.get("/api/friends", response_model=responses.FriendsList, response_model_exclude_unset=True)
async def friends(request: Request, acct: AccountsDep, mail: MailDep) -> dict[str, Any]:
    """The signed-in account's friends list (who it follows, with their status; who follows it, and whether an
    invitation can also reach them by mail) and its invitations. The lobby asks every few seconds: that request
    also keeps the account online."""
    who = await acct.current(request)
    if who is None:
        raise HTTPException(401, "sign in to see your friends")
    out: dict[str, Any] = await asyncio.to_thread(acct.friends.friends, who["account_id"])
    names = [f["username"] for f in out["followers"]]
    mailable = await asyncio.to_thread(mail.store.invitable, names) if mail.enabled else set()
    for f in out["followers"]:
        f["invite_mail"] = f["username"] in mailable
    out["invitations"] = await asyncio.to_thread(acct.friends.invitations, who["account_id"])
    return out


@router.post("/api/games/{game_id}/invite", status_code=201, response_model=responses.Invited)
async def invite(body: InviteFriend, request: Request, room: RoomDep, acct: AccountsDep, mail: MailDep,
                 authorization: str | None = Header(default=None)) -> dict[str, Any]:
    """Offer a human seat of the game to an account that follows the signed-in creator (the creator token in
    ``Authorization``, as for the game's links): it appears in that account's lobby. With ``mail`` the seat's
    link also goes to them by e-mail, in their language, if their account takes invite mail (the invitation
    stands either way; ``mail_refused`` says why no mail went)."""
    who = await signed_in(request, acct, "invite friends")
    rec = room.record
    require_creator(room, authorization, "seats are offered by the game's creator")
    seat = body.seat
    if not 0 <= seat < len(rec.seats) or rec.seats[seat]["kind"] != "human" or not rec.seats[seat].get("token"):
        raise HTTPException(400, "'seat' must be the number of a human seat")
    if rec.seats[seat].get("account") is not None or room.game.is_over:
        raise HTTPException(409, "that seat is taken: its player has joined")
    count, started = await asyncio.to_thread(acct.invite_counter.count, "invite", str(who["account_id"]))
    if count > INVITES_PER_WINDOW:
        retry = max(1, math.ceil(started + acct.invite_counter.window - acct.invite_counter.clock()))
        raise HTTPException(429, f"at most {INVITES_PER_WINDOW} invitations in {acct.invite_counter.window / 60:g} "
                                 f"minutes; try again in {retry} s", headers={"Retry-After": str(retry)})
    out: dict[str, Any] = await call(acct.friends.invite, who["account_id"], rec.id, seat, body.username)
    out |= {"seat": seat, "mailed": False}
    if body.mail:
        out["mail_refused"] = await mail_invitation(mail, room, seat, who, out["username"], request)
        out["mailed"] = out["mail_refused"] is None
    return out


async def mail_invitation(mail: Mail, room: Room, seat: int, who: dict[str, Any], username: str,
                          request: Request) -> str | None:
    """Mail seat ``seat``'s link to the account ``username`` (invite mail's rules and limits); why not, or None."""
    if not mail.enabled:
        return MAIL_OFF
    target = await asyncio.to_thread(mail.store.account_named, username_key(username))
    sender = mail.sender_key(who["account_id"], client_address(request))
    try:
        await asyncio.to_thread(mail.invite, room, seat, sender, who["username"], "en", None, target)
    except (LookupError, Limited) as exc:
        return str(exc)
    return None


@router.get("/api/games/{game_id}/invitations", response_model=responses.SentInvitations)
async def sent(room: RoomDep, request: Request, acct: AccountsDep,
               authorization: str | None = Header(default=None)) -> dict[str, Any]:
    """The game's invitations with their state (waiting, accepted, declined): all of them for the creator token
    in ``Authorization``, those the signed-in account sent otherwise; 403 for anybody else."""
    rec = room.record
    if is_creator(room, authorization):
        return {"invitations": await asyncio.to_thread(acct.friends.sent, rec.id)}
    who = await acct.current(request)
    if who is None:
        raise HTTPException(403, "a game's invitations are for its creator: send the creator token as "
                                 "'Authorization: Bearer TOKEN', or sign in as the player who sent them")
    return {"invitations": await asyncio.to_thread(acct.friends.sent, rec.id, who["account_id"])}


@router.delete("/api/invitations/{invitation_id}", response_model=responses.Ok)
async def cancel(invitation_id: str, request: Request, rooms: RoomsDep, acct: AccountsDep,
                 authorization: str | None = Header(default=None)) -> dict[str, Any]:
    """Withdraw an invitation that waits (or clear one that was declined): the game's creator token in
    ``Authorization``, or the session of the account that sent it. An accepted one is the invitee's seat: 409."""
    found = await asyncio.to_thread(acct.friends.get, invitation_id)
    if found is None:
        raise HTTPException(404, "no such invitation")
    room = await rooms.get(found.game_id)
    creator = room is not None and is_creator(room, authorization)
    if not creator:
        who = await acct.authenticated(request)
        if who is None or who["account_id"] != found.inviter_id:
            raise HTTPException(403, "an invitation is cancelled by the game's creator: send the creator token as "
                                     "'Authorization: Bearer TOKEN', or sign in as the player who sent it")
    if found.state == "accepted" or not await asyncio.to_thread(acct.friends.cancel, found.id):
        raise HTTPException(409, "this invitation was accepted: the seat is its player's")
    return {"ok": True}


@router.post("/api/invitations/{invitation_id}/accept", response_model=responses.Accepted)
async def accept(invitation_id: str, request: Request, rooms: RoomsDep, acct: AccountsDep) -> dict[str, Any]:
    """Take the invitation's seat: the account is linked to it and gets that seat's link (no other seat's)."""
    who = await signed_in(request, acct, "answer invitations")
    found = await asyncio.to_thread(acct.friends.find, who["account_id"], invitation_id)
    if found is None:
        raise HTTPException(404, "no such invitation")
    room = await rooms.get(found.game_id)
    seat = int(found.seat)
    s = room.record.seats[seat] if room is not None and 0 <= seat < len(room.record.seats) else None
    if room is None or s is None or not s.get("token") or room.game.is_over or s.get("account") is not None:
        await asyncio.to_thread(acct.friends.drop, [found.id])
        raise HTTPException(409, "this seat is no longer free: the invitation is gone")
    if not await asyncio.to_thread(acct.store.link_seat, who["account_id"], room.id, seat):
        await asyncio.to_thread(acct.friends.drop, [found.id])
        raise HTTPException(409, "this seat is no longer free, or you have a seat in this game already")
    s["account"] = who["account_id"]  # the room in memory too (on_join links nobody else to it)
    await asyncio.to_thread(acct.friends.seat_done, room.id, seat, found.id)
    return {"id": room.id, "game": room.record.game, "seat": seat, "name": s["name"], "token": s["token"],
            "link": seat_link(room.id, s["token"])}


@router.post("/api/invitations/{invitation_id}/decline", response_model=responses.Ok)
async def decline(invitation_id: str, request: Request, acct: AccountsDep) -> dict[str, Any]:
    who = await signed_in(request, acct, "answer invitations")
    if len(invitation_id) > 16 or not await asyncio.to_thread(acct.friends.decline, who["account_id"], invitation_id):
        raise HTTPException(404, "no such invitation")
    return {"ok": True}
