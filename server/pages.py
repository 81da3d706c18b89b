"""The page: the frontend's static files at /, and plotly.js from the installed
`plotly` package (no build step, no CDN)."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

from .config import frontend_dir


def mount_frontend(app: FastAPI) -> None:
    """Last of all routes: the mount at / answers whatever the API does not."""
    import plotly  # only to find its bundle

    plotly_js = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"

    @app.get("/vendor/plotly.min.js", include_in_schema=False)
    def plotly_bundle() -> FileResponse:
        return FileResponse(plotly_js, media_type="text/javascript", headers={"Cache-Control": "max-age=86400"})

    root = frontend_dir()
    if (root / "index.html").exists():
        app.mount("/", StaticFiles(directory=root, html=True), name="frontend")
