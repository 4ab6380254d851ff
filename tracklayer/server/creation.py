"""A new game from a request body: its stored record and its engine game, or a 400 saying what is
wrong with the body (``POST /api/games`` and quick play build their games here)."""

from __future__ import annotations

import secrets
import time
from typing import Any

from fastapi import HTTPException

import tracklayer
from tracklayer.bots import cannot_play, resolve_bot
from tracklayer.server.catalog import catalog, engine_options, game_entry
from tracklayer.server.db import GameRecord
from tracklayer.server.guard import MAX_NAME, clean_name, shown
from tracklayer.server.lobby import OPEN, open_seat_name


def bad(message: str) -> HTTPException:
    return HTTPException(status_code=400, detail=message)


def new_record(body: dict[str, Any], seed: int | None = None) -> tuple[GameRecord, tracklayer.Game]:
    """The record and engine game ``body`` asks for (the body of ``POST /api/games``, a JSON object);
    ``seed`` fixes the deck (a tutorial's lesson), else it is drawn."""
    name = body.get("game")
    entry = game_entry(name) if isinstance(name, str) and name in tracklayer.games() else None
    if not isinstance(name, str) or entry is None:
        offered = ", ".join(g["name"] for g in catalog()["games"])
        raise bad(f"unknown game {shown(name)}; games: {offered}")
    seats_in = body.get("seats")
    if not isinstance(seats_in, list) or not seats_in:
        raise bad("'seats' must be a list like [{\"kind\": \"human\", \"name\": \"Ann\"}, {\"kind\": \"bot\"}]")
    if not entry["min_players"] <= len(seats_in) <= entry["max_players"]:
        raise bad(f"{entry['title']} is played by {entry['min_players']} to {entry['max_players']} players, "
                   f"not {len(seats_in)}")
    seats: list[dict[str, Any]] = []
    for i, s in enumerate(seats_in):
        if not isinstance(s, dict):
            raise bad(f"seats[{i}] must be an object")
        kind = s.get("kind", "human")
        if kind == "human":
            seats.append({"name": clean_name(s.get("name"), f"Player {i + 1}", f"seats[{i}]"), "kind": "human",
                          "token": secrets.token_urlsafe(18)})
        elif kind == OPEN:  # a seat anyone may claim from the lobby (POST /api/games/{id}/join)
            seats.append({"name": open_seat_name(i), "kind": OPEN})
        elif kind == "bot":
            wanted = s.get("bot") or "bot"
            bot = resolve_bot(wanted) if isinstance(wanted, str) else None
            if bot is None:
                raise bad(f"seats[{i}]: unknown bot {shown(wanted)}; bots: {', '.join(catalog()['bots'])}")
            seats.append({"name": clean_name(s.get("name"), f"Bot {i + 1}", f"seats[{i}]"), "kind": "bot",
                          "bot": bot})
        else:
            raise bad(f"seats[{i}]: kind must be 'human', 'bot' or 'open', not {shown(kind)}")
    names = [s["name"] for s in seats]
    for i, n in enumerate(names):  # names must differ: number repeats
        if names.count(n) > 1:
            names[i] = seats[i]["name"] = f"{n[:MAX_NAME - 3].rstrip()} {i + 1}"
    if len(set(names)) != len(names):
        raise bad("player names must differ")
    variant = body.get("variant") or entry["default_variant"]
    if not isinstance(variant, str) or variant not in {v["name"] for v in entry["variants"]}:
        raise bad(f"{entry['title']} has no variant {shown(variant)}; variants: "
                   f"{', '.join(v['name'] for v in entry['variants'])}")
    for i, s in enumerate(seats):
        refusal = cannot_play(s["bot"], name, variant, len(seats)) if s["kind"] == "bot" else None
        if refusal is not None:
            raise bad(f"seats[{i}]: {refusal}")
    options = body.get("options") or {}
    if not isinstance(options, dict):
        raise bad("'options' must be an object")
    if seed is None:
        seed = secrets.randbits(62)  # secret: it fixes the deck order
    first = secrets.randbelow(len(seats)) if body.get("first_player") is None else body.get("first_player")
    if not isinstance(first, int) or isinstance(first, bool) or not 0 <= first < len(seats):
        raise bad("'first_player' must be a seat number")
    try:
        game = tracklayer.new_game(name, names, seed=seed, first_player=first,
                                   **engine_options(name, variant, options))
    except (tracklayer.TracklayerError, TypeError) as exc:
        raise bad(str(exc)) from None
    humans = sum(1 for s in seats if s["kind"] == "human")
    table = secrets.token_urlsafe(18) if body.get("hotseat") and humans >= 1 else None
    private = body.get("private", False)
    if not isinstance(private, bool):
        raise bad("'private' must be true or false")
    waiting = any(s["kind"] == OPEN for s in seats)
    if waiting and (private or table):
        raise bad("open seats are claimed from the lobby: a private or hot-seat game cannot have them")
    now = time.time()
    rec = GameRecord(id=secrets.token_urlsafe(8), game=name, variant=variant, setup=game.setup(), seats=seats,
                     spectator_token=secrets.token_urlsafe(18), table_token=table,
                     status="waiting" if waiting else "open", created_at=now, updated_at=now,
                     creator_token=secrets.token_urlsafe(18), private=private)
    return rec, game
