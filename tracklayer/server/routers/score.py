"""The score calculator for a game played on a real table (docs/score-files.md): its page, its
service worker, the tickets of a board and the scoring of a score file."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response

from tracklayer.server import responses
from tracklayer.server.catalog import score_data
from tracklayer.server.creation import bad
from tracklayer.server.deps import StaticDep
from tracklayer.server.routers.games import board_known, cached_json

SCORE_PATH = "/api/score"  # its body is a score file: score_document decodes it, not the body middleware
router = APIRouter(tags=["score"])


@router.get("/score", response_class=HTMLResponse)
async def score_page(static: StaticDep) -> FileResponse:
    return FileResponse(static / "score.html", media_type="text/html")


@router.get("/score-sw.js", response_class=FileResponse)
async def score_worker(static: StaticDep) -> FileResponse:
    """The score page's service worker, served at the root so that it may control ``/score``."""
    return FileResponse(static / "score-sw.js", media_type="text/javascript", headers={"Cache-Control": "no-cache"})


@router.get("/api/boards/{game}/tickets", response_model=responses.BoardTickets)
async def api_board_tickets(game: str) -> Response:
    """The tickets and decks of a board, for the score page's ticket list (public map data)."""
    board_known(game)
    return cached_json(score_data(game))


@router.post(SCORE_PATH, response_model=responses.ScoreReport)
async def api_score(request: Request) -> JSONResponse:
    """Score a table position: the body is a score file; the answer is ``tracklayer score --json``'s."""
    from tracklayer.score_file import ScoreFileError, score_document

    try:  # in a thread: a large file takes ~0.1 s, which must not stall every game's websocket
        return JSONResponse(await asyncio.to_thread(score_document, await request.body()))
    except ScoreFileError as exc:
        raise bad(str(exc)) from None
