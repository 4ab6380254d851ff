"""The API's documentation: the OpenAPI schema is ``/openapi.json`` (FastAPI's), and ``/docs`` is
Swagger UI on it, its scripts and styles served by this server from the ``swagger-ui-bundle``
package (a self-hosted server may have no internet, and the page then needs no CDN). The websocket
protocol is not HTTP and not in the schema: docs/protocol.md describes it."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles
from swagger_ui_bundle import swagger_ui_path  # type: ignore[import-untyped]

ASSETS = "/docs/assets"
router = APIRouter(include_in_schema=False)


def assets() -> StaticFiles:
    """The Swagger UI files, for ``app.mount(ASSETS, ...)``."""
    return StaticFiles(directory=str(swagger_ui_path))


@router.get("/docs", response_class=HTMLResponse)
async def swagger_ui() -> HTMLResponse:
    return get_swagger_ui_html(openapi_url="/openapi.json", title="tracklayer API",
                               swagger_js_url=f"{ASSETS}/swagger-ui-bundle.js",
                               swagger_css_url=f"{ASSETS}/swagger-ui.css",
                               swagger_favicon_url="/favicon.ico")
