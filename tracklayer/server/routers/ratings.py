"""The ladder: skill ratings per game family (tracklayer.server.accounts), as JSON and as a page."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, HTTPException
from fastapi.responses import FileResponse, HTMLResponse

import tracklayer
from tracklayer.server import responses
from tracklayer.server.accounts import FAMILIES, family_of
from tracklayer.server.deps import AccountsDep, StaticDep
from tracklayer.server.guard import shown

router = APIRouter(tags=["ratings"])


@router.get("/api/leaderboard", response_model=responses.Leaderboard, response_model_exclude_unset=True)
async def leaderboard(acct: AccountsDep, game: str | None = None, kind: str | None = None) -> dict[str, Any]:
    family = family_of(game)
    if family is None:
        raise HTTPException(400, f"'game' is a family ({', '.join(FAMILIES)}) or a game name "
                                 f"({', '.join(tracklayer.games())}), not {shown(game)}")
    if kind not in (None, "human", "bot"):  # human: the people-only ladder, ranked among themselves
        raise HTTPException(400, f"'kind' is human or bot, not {shown(kind)}")
    return {"family": family, "players": await asyncio.to_thread(acct.store.leaderboard, family, 200, kind)}


@router.get("/leaderboard", response_class=HTMLResponse)
async def leaderboard_page(static: StaticDep) -> FileResponse:
    return FileResponse(static / "leaderboard.html", media_type="text/html")
