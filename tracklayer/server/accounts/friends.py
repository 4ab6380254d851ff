"""Friends: following players, who of them is on the site now, and invitations to a seat.

Decisions (documented in ``docs/server.md``, Friends):

* Following is one-sided and needs no consent (as on Board Game Arena): it only puts the other player in
  one's friends list with their online status. Two accounts that follow each other are *friends*.
* Bot accounts cannot be followed: a bot account is a program acting with API tokens, never "on the site"
  (no session), and it never reads a lobby, so an invitation would wait for ever; a program joins games
  through the API (``POST /api/games/{id}/join``).
* Online: an account is online while its session made a request, or one of its game websockets was open,
  in the last :data:`ONLINE_SECONDS`. Each process writes an account's ``last_seen_at`` at most once per
  :data:`TOUCH_EVERY` for requests, and once per :data:`TOUCH_EVERY` for all its open websockets together
  (one UPDATE), so presence costs a write a minute per active account, not one per request. The game an
  account has a seat websocket open in is stored with it; it is shown only while the account is online,
  with a watch link (the spectator link the lobby lists) when the game is public.
* Invitations: the creator of a game (its creator token, as for the game's links) offers a human seat to
  an account that *follows* them (friends included): nobody gets invitations from strangers. At most
  :data:`INVITES_PER_WINDOW` invitations per inviter in :data:`INVITE_WINDOW` seconds, counted in the
  database with the login limiter's counter (every process counts into one row). The invitation holds no
  token: accepting links the invitee's account to the seat (the first account a seat gets keeps it) and
  only then answers with that seat's own link.
* An invitation is ``waiting``, ``accepted`` or ``declined``: answered ones stay for the game's creator to see
  (``GET /api/games/{id}/invitations``) and only waiting ones are in the invitee's lobby. The creator (the
  creator token, or the inviter's session) cancels one that waits, or clears one that was declined
  (``DELETE /api/invitations/{id}``); an accepted one is the invitee's seat and stays. Inviting a player who
  declined asks them again (the same invitation, waiting again).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Collection, Iterable
from typing import Any

from sqlalchemy import Insert, and_, delete, exists, func, insert, or_, select, update
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError

from tracklayer.server.accounts.tables import account_games, accounts, follows, invitations, presence

ONLINE_SECONDS = 120.0  # active this recently: online
TOUCH_EVERY = 45.0  # a process writes an account's activity at most this often (requests; websockets together)
INVITES_PER_WINDOW = 20  # invitations one account may send per window
INVITE_WINDOW = 600.0  # seconds
MAX_FOLLOWING = 500  # accounts one account may follow (the friends list is read in one query)


class FriendError(Exception):
    """A refused friends request: the HTTP status and why in words (the route answers with them)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _upsert(engine: Engine, values: dict[str, Any], set_: dict[str, Any]) -> Insert:
    """An upsert of an ``account_presence`` row in the database's own SQL."""
    if engine.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        return pg_insert(presence).values(**values).on_conflict_do_update(index_elements=[presence.c.account_id],
                                                                         set_=set_)
    from sqlalchemy.dialects.sqlite import insert as sqlite_insert

    return sqlite_insert(presence).values(**values).on_conflict_do_update(index_elements=[presence.c.account_id],
                                                                         set_=set_)


class FriendStore:
    """The friends tables, used from worker threads (synchronous SQLAlchemy like ``AccountStore``)."""

    def __init__(self, engine: Engine, clock: Callable[[], float] = time.time) -> None:
        self.engine = engine
        self.clock = clock

    # ------------------------------------------------------------------ following
    def _target(self, conn: Connection, follower_id: int, username: str) -> Any:
        from tracklayer.server.accounts.names import username_key

        row = conn.execute(select(accounts.c.id, accounts.c.username, accounts.c.bot_owner)
                           .where(accounts.c.username_key == username_key(username))).first()
        if row is None:
            raise FriendError(404, "no such player")
        if row.id == follower_id:
            raise FriendError(400, "you cannot follow yourself")
        return row

    def follow(self, follower_id: int, username: str) -> dict[str, Any]:
        """Follow ``username`` (following twice is following once): ``{"username", "following", "friend"}``."""
        with self.engine.begin() as conn:
            row = self._target(conn, follower_id, username)
            if row.bot_owner is not None:
                raise FriendError(400, f"{row.username} is a bot account: bots cannot be followed")
            already = conn.execute(select(follows.c.follower_id).where(
                follows.c.follower_id == follower_id, follows.c.followee_id == row.id)).first()
            if already is None:
                count = conn.execute(select(func.count()).select_from(follows)
                                     .where(follows.c.follower_id == follower_id)).scalar_one()
                if count >= MAX_FOLLOWING:
                    raise FriendError(409, f"you follow {MAX_FOLLOWING} players already: unfollow one first")
        try:
            with self.engine.begin() as conn:
                if already is None:
                    conn.execute(insert(follows).values(follower_id=follower_id, followee_id=row.id,
                                                        created_at=self.clock()))
        except IntegrityError:
            pass  # a second follow at the same moment: followed once
        return {"username": row.username, **self.relation(follower_id, int(row.id))}

    def unfollow(self, follower_id: int, username: str) -> dict[str, Any]:
        with self.engine.begin() as conn:
            row = self._target(conn, follower_id, username)
            conn.execute(delete(follows).where(follows.c.follower_id == follower_id,
                                               follows.c.followee_id == row.id))
        return {"username": row.username, **self.relation(follower_id, int(row.id))}

    def relation(self, viewer_id: int, other_id: int) -> dict[str, bool]:
        """``following`` (the viewer follows the other), ``follows_you`` and ``friend`` (both)."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(follows.c.follower_id).where(or_(
                and_(follows.c.follower_id == viewer_id, follows.c.followee_id == other_id),
                and_(follows.c.follower_id == other_id, follows.c.followee_id == viewer_id)))).scalars().all()
        following, follows_you = viewer_id in rows, other_id in rows
        return {"following": following, "follows_you": follows_you, "friend": following and follows_you}

    def follows_me(self, account_id: int, other_id: int) -> bool:
        with self.engine.connect() as conn:
            return conn.execute(select(follows.c.follower_id).where(
                follows.c.follower_id == other_id, follows.c.followee_id == account_id)).first() is not None

    # ------------------------------------------------------------------ presence
    def touch(self, account_ids: Collection[int]) -> None:
        """These accounts are active now."""
        if not account_ids:
            return
        now = self.clock()
        with self.engine.begin() as conn:
            for account_id in sorted(account_ids):  # one order: two processes never wait on each other's rows
                conn.execute(_upsert(self.engine, {"account_id": account_id, "last_seen_at": now},
                                     {"last_seen_at": now}))

    def set_game(self, account_id: int, game_id: str | None, only_if: str | None = None) -> None:
        """The account is active now, with a seat websocket open in ``game_id`` (None: in no game). With
        ``only_if``: the game changes only if it is ``only_if`` now (a websocket of that game closed; a later
        one of another game, maybe in another process, stays shown)."""
        now = self.clock()
        values = {"account_id": account_id, "last_seen_at": now, "game_id": game_id}
        with self.engine.begin() as conn:
            if only_if is None:
                conn.execute(_upsert(self.engine, values, {"last_seen_at": now, "game_id": game_id}))
            else:
                conn.execute(_upsert(self.engine, values, {"last_seen_at": now}))
                conn.execute(update(presence).where(presence.c.account_id == account_id,
                                                    presence.c.game_id == only_if).values(game_id=game_id))

    def _presence(self, conn: Connection, ids: Iterable[int]) -> dict[int, dict[str, Any]]:
        """Each account's status: ``online``, ``last_seen`` (None: never seen since friends existed) and, while
        online in a game that has not ended, ``in_game`` with the game's name and ``watch`` link if it is public."""
        from tracklayer.server.db import games

        ids = list(ids)
        out: dict[int, dict[str, Any]] = {i: {"online": False, "last_seen": None} for i in ids}
        if not ids:
            return out
        rows = conn.execute(select(presence.c.account_id, presence.c.last_seen_at, presence.c.game_id,
                                   games.c.game, games.c.status, games.c.private, games.c.spectator_token)
                            .select_from(presence.outerjoin(games, games.c.id == presence.c.game_id))
                            .where(presence.c.account_id.in_(ids))).all()
        now = self.clock()
        for r in rows:
            online = r.last_seen_at >= now - ONLINE_SECONDS
            entry: dict[str, Any] = {"online": online, "last_seen": r.last_seen_at}
            if online and r.game is not None and r.status != "over":
                entry["in_game"] = True
                if r.private is False:  # public: anybody may watch it (the lobby lists the same link)
                    entry["game"] = r.game
                    entry["watch"] = f"/game/{r.game_id}#{r.spectator_token}"
            out[int(r.account_id)] = entry
        return out

    def status(self, account_id: int) -> dict[str, Any]:
        with self.engine.connect() as conn:
            return self._presence(conn, [account_id])[account_id]

    # ------------------------------------------------------------------ the friends list
    def friends(self, account_id: int) -> dict[str, Any]:
        """Who the account follows (each with ``friend``: follows back, and their status), online ones first,
        and who follows it (those it may invite)."""
        with self.engine.connect() as conn:
            followed = conn.execute(select(accounts.c.id, accounts.c.username)
                                    .select_from(follows.join(accounts, accounts.c.id == follows.c.followee_id))
                                    .where(follows.c.follower_id == account_id)).all()
            followers = conn.execute(select(accounts.c.id, accounts.c.username)
                                     .select_from(follows.join(accounts, accounts.c.id == follows.c.follower_id))
                                     .where(follows.c.followee_id == account_id)).all()
            status = self._presence(conn, [int(r.id) for r in followed])
        back = {int(r.id) for r in followers}
        following = [{"username": r.username, "friend": int(r.id) in back, **status[int(r.id)]} for r in followed]
        following.sort(key=lambda e: (not e["online"], -(e["last_seen"] or 0), e["username"].casefold()))
        mine = {int(r.id) for r in followed}
        return {"following": following,
                "followers": sorted(({"username": r.username, "friend": int(r.id) in mine} for r in followers),
                                    key=lambda e: e["username"].casefold())}

    # ------------------------------------------------------------------ invitations
    def invite(self, inviter_id: int, game_id: str, seat: int, username: str) -> dict[str, Any]:
        """Offer ``seat`` of ``game_id`` to ``username``, who must follow the inviter. The caller checked the
        inviter may hand out that seat (the creator token) and that it is free. Inviting again is the same
        invitation: ``{"id", "username"}``."""
        with self.engine.begin() as conn:
            row = self._target(conn, inviter_id, username) if username else None
            if row is None:
                raise FriendError(400, "send {\"seat\": N, \"username\": ...}")
            if row.bot_owner is not None:
                raise FriendError(400, f"{row.username} is a bot account: a bot joins games through the API")
            follower = conn.execute(select(follows.c.follower_id).where(
                follows.c.follower_id == row.id, follows.c.followee_id == inviter_id)).first()
            if follower is None:
                raise FriendError(403, f"{row.username} does not follow you: you can invite the players who "
                                       "follow you (friends are players you follow who follow you back)")
            seated = conn.execute(select(account_games.c.seat).where(account_games.c.game_id == game_id,
                                                                     account_games.c.account_id == row.id)).first()
            if seated is not None:
                raise FriendError(409, f"{row.username} has a seat in this game already")
            found = conn.execute(select(invitations.c.id).where(
                invitations.c.game_id == game_id, invitations.c.seat == seat,
                invitations.c.invitee_id == row.id)).scalar()
            if found is not None:  # asked again after declining: waiting again
                conn.execute(update(invitations).where(invitations.c.id == found, invitations.c.state == "declined")
                             .values(state="waiting", created_at=self.clock()))
        if found is not None:
            return {"id": found, "username": row.username}
        ident = secrets.token_urlsafe(9)
        try:
            with self.engine.begin() as conn:
                conn.execute(insert(invitations).values(id=ident, game_id=game_id, seat=seat, inviter_id=inviter_id,
                                                        invitee_id=row.id, created_at=self.clock()))
        except IntegrityError:  # the same invitation sent twice at once
            with self.engine.connect() as conn:
                ident = conn.execute(select(invitations.c.id).where(
                    invitations.c.game_id == game_id, invitations.c.seat == seat,
                    invitations.c.invitee_id == row.id)).scalar_one()
        return {"id": ident, "username": row.username}

    def invitations(self, account_id: int) -> list[dict[str, Any]]:
        """The account's invitations to seats still free (no account on it, game not over), newest first;
        the others are deleted as they are found. No token: :meth:`take` gives the seat's link."""
        from tracklayer.server.db import games

        inviters = accounts.alias("inviters")
        taken = exists().where(account_games.c.game_id == invitations.c.game_id,
                               account_games.c.seat == invitations.c.seat)
        with self.engine.connect() as conn:
            rows = conn.execute(select(invitations.c.id, invitations.c.game_id, invitations.c.seat,
                                       invitations.c.created_at, inviters.c.username.label("inviter"),
                                       games.c.game, games.c.variant, games.c.status, games.c.seats,
                                       taken.label("taken"))
                                .select_from(invitations.join(games, games.c.id == invitations.c.game_id)
                                             .join(inviters, inviters.c.id == invitations.c.inviter_id))
                                .where(invitations.c.invitee_id == account_id, invitations.c.state == "waiting")
                                .order_by(invitations.c.created_at.desc())).all()
        import json

        out, stale = [], []
        for r in rows:
            seats = json.loads(r.seats)
            if r.taken or r.status == "over" or not 0 <= r.seat < len(seats) or not seats[r.seat].get("token"):
                stale.append(r.id)
                continue
            out.append({"id": r.id, "from": r.inviter, "game_id": r.game_id, "game": r.game, "variant": r.variant,
                        "seat": r.seat, "seat_name": seats[r.seat]["name"],
                        "players": [s["name"] for s in seats], "at": r.created_at})
        if stale:
            self.drop(stale)
        return out

    def drop(self, ids: Collection[str]) -> None:
        with self.engine.begin() as conn:
            conn.execute(delete(invitations).where(invitations.c.id.in_(list(ids))))

    def find(self, account_id: int, invitation_id: str) -> Any:
        """The account's own waiting invitation (game and seat), or None (unknown, answered, or somebody else's)."""
        if not isinstance(invitation_id, str) or len(invitation_id) > 16:
            return None
        with self.engine.connect() as conn:
            return conn.execute(select(invitations.c.id, invitations.c.game_id, invitations.c.seat)
                                .where(invitations.c.id == invitation_id, invitations.c.invitee_id == account_id,
                                       invitations.c.state == "waiting")).first()

    def decline(self, account_id: int, invitation_id: str) -> bool:
        """The invitee says no: the invitation stays, declined, for its sender to see."""
        with self.engine.begin() as conn:
            return bool(conn.execute(update(invitations).where(
                invitations.c.id == invitation_id, invitations.c.invitee_id == account_id,
                invitations.c.state == "waiting").values(state="declined")).rowcount)

    def seat_done(self, game_id: str, seat: int, accepted: str | None = None) -> None:
        """The seat has its account: the invitation it came through (``accepted``) is marked so, the seat's
        other invitations go (to whomever they were sent)."""
        with self.engine.begin() as conn:
            conn.execute(delete(invitations).where(invitations.c.game_id == game_id, invitations.c.seat == seat,
                                                   invitations.c.id != (accepted or "")))
            if accepted is not None:
                conn.execute(update(invitations).where(invitations.c.id == accepted).values(state="accepted"))

    def sent(self, game_id: str, inviter_id: int | None = None) -> list[dict[str, Any]]:
        """A game's invitations (``inviter_id``: only those that account sent), oldest first, each with its
        ``state``. A waiting one whose seat went to somebody else, or whose game is over, is deleted as found."""
        from tracklayer.server.db import games
        invitees = accounts.alias("invitees")
        taken = exists().where(account_games.c.game_id == invitations.c.game_id,
                               account_games.c.seat == invitations.c.seat)
        query = (select(invitations.c.id, invitations.c.seat, invitations.c.state, invitations.c.created_at,
                        invitees.c.username, games.c.status, games.c.seats, taken.label("taken"))
                 .select_from(invitations.join(games, games.c.id == invitations.c.game_id)
                              .join(invitees, invitees.c.id == invitations.c.invitee_id))
                 .where(invitations.c.game_id == game_id)
                 .order_by(invitations.c.created_at, invitations.c.id))
        if inviter_id is not None:
            query = query.where(invitations.c.inviter_id == inviter_id)
        with self.engine.connect() as conn:
            rows = conn.execute(query).all()
        import json
        out, stale = [], []
        for r in rows:
            seats = json.loads(r.seats)
            if r.state == "waiting" and (r.taken or r.status == "over" or not 0 <= r.seat < len(seats)
                                         or not seats[r.seat].get("token")):
                stale.append(r.id)
                continue
            out.append({"id": r.id, "username": r.username, "seat": r.seat,
                        "seat_name": seats[r.seat]["name"] if 0 <= r.seat < len(seats) else None,
                        "state": r.state, "at": r.created_at})
        if stale:
            self.drop(stale)
        return out

    def get(self, invitation_id: str) -> Any:
        """An invitation by its id (game, inviter, state), or None."""
        if not isinstance(invitation_id, str) or len(invitation_id) > 16:
            return None
        with self.engine.connect() as conn:
            return conn.execute(select(invitations.c.id, invitations.c.game_id, invitations.c.inviter_id,
                                       invitations.c.state).where(invitations.c.id == invitation_id)).first()

    def cancel(self, invitation_id: str) -> bool:
        """Withdraw an invitation that is not accepted (waiting, or declined: cleared from the list)."""
        with self.engine.begin() as conn:
            return bool(conn.execute(delete(invitations).where(invitations.c.id == invitation_id,
                                                               invitations.c.state != "accepted")).rowcount)
