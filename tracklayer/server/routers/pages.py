"""The HTML pages of the web client (tracklayer/web/static), the favicon and the health check."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import FileResponse, HTMLResponse

import tracklayer
from tracklayer.server.deps import StaticDep

router = APIRouter(tags=["pages"])


def page(static: StaticDep, name: str, status_code: int = 200) -> FileResponse:
    return FileResponse(static / name, media_type="text/html", status_code=status_code)


@router.get("/", response_class=HTMLResponse)
async def lobby_page(static: StaticDep) -> FileResponse:
    return page(static, "lobby.html")


@router.get("/game/{game_id}", response_class=HTMLResponse)
async def game_page(game_id: str, static: StaticDep) -> FileResponse:
    return page(static, "game.html")


@router.get("/my", response_class=HTMLResponse)
async def my_page(static: StaticDep) -> FileResponse:
    """The games this browser has links to (lobby.py's status batch)."""
    return page(static, "my.html")


@router.get("/rules/{game}", response_class=HTMLResponse)
async def rules_page(game: str, static: StaticDep) -> FileResponse:
    """A game's rules (rules.js); the page says so itself for a game the server does not have (404)."""
    return page(static, "rules.html", 200 if game in tracklayer.games() else 404)


@router.get("/favicon.ico", response_class=FileResponse)
async def favicon(static: StaticDep) -> FileResponse:
    return FileResponse(static / "favicon.svg", media_type="image/svg+xml")


@router.get("/healthz")
async def healthz() -> dict[str, str]:
    return {"status": "ok"}
