"""The page: the frontend's static files at /, plotly.js from the installed `plotly`
package, and the API's docs at /docs with Swagger UI from the installed
`swagger_ui_bundle` (no build step, no CDN: a lecture hall may have no internet)."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse, HTMLResponse
from fastapi.staticfiles import StaticFiles
from swagger_ui_bundle import swagger_ui_path

from ringside.server.config import frontend_dir


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

    openapi_url = app.openapi_url
    if openapi_url is not None:  # as FastAPI's own /docs: none for an app without a schema

        @app.get("/docs", include_in_schema=False)
        def docs() -> HTMLResponse:
            return get_swagger_ui_html(
                openapi_url=openapi_url,
                title=f"{app.title}: the API",
                swagger_js_url="/vendor/swagger/swagger-ui-bundle.js",
                swagger_css_url="/vendor/swagger/swagger-ui.css",
                swagger_favicon_url="/vendor/swagger/favicon-32x32.png",
            )

    root = frontend_dir()
    if (root / "index.html").exists():
        app.mount("/", StaticFiles(directory=root, html=True), name="frontend")
