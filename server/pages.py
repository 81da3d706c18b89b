"""The page: the frontend's static files at /, plotly.js from the installed `plotly`
package, and the API's docs at /docs with Swagger UI from the installed
`swagger_ui_bundle` (no build step, no CDN: a lecture hall may have no internet). The docs
and their schema take the viewer's token where watching does."""

from __future__ import annotations

import html
from pathlib import Path
from urllib.parse import quote

from fastapi import Depends, FastAPI, Request
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from swagger_ui_bundle import swagger_ui_path

from ringside.server.config import frontend_dir
from ringside.server.door.auth import need_viewer

SCHEMA = "/openapi.json"
# Swagger UI's page with no inline script (the Content-Security-Policy allows none but the
# page's import map): it is started by js/docs/docs.js
DOCS = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/vendor/swagger/swagger-ui.css">
<link rel="icon" href="/vendor/swagger/favicon-32x32.png"></head>
<body><div id="swagger-ui"></div>
<script src="/vendor/swagger/swagger-ui-bundle.js"></script>
<script src="/js/docs/docs.js" data-schema="{schema}"></script>
</body></html>"""


def mount_frontend(app: FastAPI) -> None:
    """Last of all routes: the mount at / answers whatever the API does not."""
    import plotly  # only to find its bundle

    plotly_js = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"

    @app.get("/vendor/plotly.min.js", include_in_schema=False)
    def plotly_bundle() -> FileResponse:
        return FileResponse(
            plotly_js, media_type="text/javascript", headers={"Cache-Control": "max-age=86400"}
        )

    app.mount("/vendor/swagger", StaticFiles(directory=swagger_ui_path), name="swagger")

    @app.get(SCHEMA, include_in_schema=False, dependencies=[Depends(need_viewer)])
    def schema() -> JSONResponse:
        return JSONResponse(app.openapi())

    @app.get("/docs", include_in_schema=False, dependencies=[Depends(need_viewer)])
    def docs(request: Request) -> HTMLResponse:
        token = request.query_params.get("token")  # the page's own: Swagger UI asks for the schema with it
        url = SCHEMA + (f"?token={quote(token, safe='')}" if token else "")
        return HTMLResponse(DOCS.format(title=f"{app.title}: the API", schema=html.escape(url)))

    root = frontend_dir()
    if (root / "index.html").exists():
        app.mount("/", StaticFiles(directory=root, html=True), name="frontend")
