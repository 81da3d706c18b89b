"""The FastAPI app: REST under /api, websockets for viewers (/ws) and workers
(/ws/worker), the frontend at /. Bad input gets a 4xx whose body names the
field, or a close code with a reason; it never reaches the hub."""

from __future__ import annotations

import asyncio
import json
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated

from fastapi import Depends, FastAPI, HTTPException, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse
from fastapi.staticfiles import StaticFiles
from pydantic import ValidationError
from starlette.websockets import WebSocket, WebSocketDisconnect

from ringside.worker_agent.catalog import SpecError, catalog
from ringside.worker_agent.protocol import EVENT, PROTOCOL_VERSION, Hello, RunSpec

from . import metrics, model, trace
from .auth import origin_allowed, presenter_dependency, role_of, viewer_dependency
from .config import Settings, frontend_dir
from .hub import Hub
from .runs import summary

HELLO_TIMEOUT_S = 10.0
POLICY, UNSUPPORTED, INVALID, CONFLICT = 1008, 1003, 1007, 4409


def create_app(settings: Settings) -> FastAPI:
    @asynccontextmanager
    async def lifespan(app: FastAPI):
        app.state.hub = Hub(settings)
        app.state.hub.start()
        yield
        await app.state.hub.stop()

    app = FastAPI(title="Ringside", version=str(PROTOCOL_VERSION), lifespan=lifespan,
                  description="Real torch.distributed collectives, step by step.")
    watch, present = Depends(viewer_dependency(settings)), Depends(presenter_dependency(settings))

    def hub() -> Hub:
        return app.state.hub

    # Endpoints that touch the hub are async: they run on the event loop, like the hub
    # itself, and never see a run half-updated. /api/model only reads the store.

    @app.exception_handler(RequestValidationError)
    async def invalid_body(request: Request, exc: RequestValidationError):
        return JSONResponse(status_code=422, content={"detail": first_error(exc.errors())})

    @app.get("/api/health")
    async def health() -> dict:
        cluster = hub().cluster
        return {"status": "ok", "protocol": PROTOCOL_VERSION, "world_size": cluster.world_size, "live_ranks": len(cluster.live())}

    @app.get("/api/cluster", dependencies=[watch])
    async def get_cluster() -> dict:
        return hub().cluster.to_json()

    @app.get("/api/catalog", dependencies=[watch])
    async def get_catalog() -> dict:
        cluster = hub().cluster
        return catalog(cluster.backend or "gloo", cluster.world_size)

    @app.post("/api/runs", status_code=202, dependencies=[present])
    async def post_run(spec: RunSpec) -> dict:
        try:
            run = hub().submit(spec)
        except SpecError as e:
            status = 503 if "connected" in e.message else 422
            raise HTTPException(status, {"field": e.field, "message": e.message}) from None
        return {"id": run["id"], "state": run["state"]}

    @app.get("/api/runs", dependencies=[watch])
    async def list_runs(limit: int = Query(20, ge=1, le=200), offset: int = Query(0, ge=0, le=1_000_000_000)) -> dict:
        rows, total = hub().store.page(limit, offset)
        live = {r["id"]: r for r in [hub().current, *hub().queue] if r is not None}
        return {"runs": [summary(live.get(r["id"], r)) for r in rows], "total": total}

    @app.get("/api/runs/{run_id}", dependencies=[watch])
    async def get_run(run_id: str) -> dict:
        return found(hub().find(run_id), run_id)

    @app.post("/api/runs/{run_id}/cancel", dependencies=[present])
    async def cancel_run(run_id: str) -> dict:
        run = found(hub().cancel(run_id), run_id)
        return {"id": run["id"], "state": run["state"], "cancel_requested": run["cancel_requested"]}

    @app.get("/api/runs/{run_id}/trace", dependencies=[watch])
    async def get_trace(run_id: str) -> JSONResponse:
        run = found(hub().find(run_id), run_id)
        return JSONResponse(trace.chrome_trace(run), headers={"Content-Disposition": f'attachment; filename="{run_id}.trace.json"'})

    @app.get("/api/model", dependencies=[watch])
    def get_model(query: Annotated[model.ModelQuery, Query()]) -> dict:
        try:
            return model.predict(query, hub().store.finished())
        except SpecError as e:
            raise HTTPException(422, {"field": e.field, "message": e.message}) from None

    @app.get("/metrics", response_class=PlainTextResponse, dependencies=[watch])
    async def get_metrics() -> str:
        return metrics.render(hub())

    @app.websocket("/ws")
    async def viewer_socket(ws: WebSocket):
        role = role_of(ws, settings)
        if role is None or not origin_allowed(ws, settings):
            await ws.close(POLICY, "a viewer token is needed" if role is None else "origin not allowed")
            return
        await ws.accept()
        viewer = hub().fanout.add(ws)
        viewer.offer(json.dumps(hub().snapshot("presenter" if role == "presenter" else "viewer")))
        pump = asyncio.create_task(viewer.pump())
        try:
            while True:
                message = await ws.receive()
                if message["type"] == "websocket.disconnect":
                    break
                if message.get("text") not in ('{"type":"ping"}', '{"type": "ping"}'):
                    await ws.close(UNSUPPORTED, "viewers only listen (send nothing, or {\"type\":\"ping\"})")
                    break
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            hub().fanout.remove(viewer)
            viewer.offer_stop()
            await asyncio.gather(pump, return_exceptions=True)

    @app.websocket("/ws/worker")
    async def worker_socket(ws: WebSocket):
        if role_of(ws, settings) != "worker" or not origin_allowed(ws, settings):
            await ws.close(POLICY, "the worker token is needed")
            return
        await ws.accept()
        hello = await receive_hello(ws)
        if hello is None:
            return
        problem = hub().cluster.conflict(hello)
        if problem:
            await ws.close(CONFLICT, problem)
            return
        hub().worker_joined(hello, ws)
        try:
            while True:
                message = await ws.receive()
                if message["type"] == "websocket.disconnect":
                    break
                event, why = parse_event(message)
                if event is not None and event.rank != hello.rank:
                    why = f"rank {hello.rank} sent an event as rank {event.rank}"
                if why:
                    await ws.close(INVALID if "malformed" in why else POLICY, why[:120])
                    break
                hub().on_event(event)
                await asyncio.sleep(0)  # let the viewers' senders run between events: a burst from a rank must not starve them
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            hub().worker_left(hello.rank, ws)

    mount_frontend(app)
    return app


def first_error(errors) -> dict:
    err = errors[0] if errors else {"loc": ("body",), "msg": "invalid"}
    loc = [str(x) for x in err.get("loc", ()) if x not in ("body", "query", "path")]
    return {"field": ".".join(loc) or "body", "message": err.get("msg", "invalid")}


def found(run: dict | None, run_id: str) -> dict:
    if run is None:
        raise HTTPException(404, {"field": "run_id", "message": f"no run {run_id!r}"})
    return run


async def receive_hello(ws: WebSocket) -> Hello | None:
    try:
        message = await asyncio.wait_for(ws.receive(), HELLO_TIMEOUT_S)
    except asyncio.TimeoutError:
        await ws.close(POLICY, "no hello within 10 s")
        return None
    event, why = parse_event(message)
    if why is None and not isinstance(event, Hello):
        why = "the first message must be a hello"
    if why:
        await ws.close(INVALID if "malformed" in why else POLICY, why[:120])
        return None
    return event


def parse_event(message: dict):
    """(event, None), or (None, why it is refused)."""
    if message["type"] == "websocket.disconnect":
        return None, "disconnected"
    text = message.get("text")
    if text is None:
        return None, "malformed frame: events are JSON text"
    try:
        raw = json.loads(text)
    except ValueError:
        return None, "malformed frame: not JSON"
    if isinstance(raw, dict) and raw.get("v", PROTOCOL_VERSION) != PROTOCOL_VERSION:
        return None, f"protocol version {raw.get('v')!r} is not {PROTOCOL_VERSION}"
    try:
        return EVENT.validate_python(raw), None
    except ValidationError as e:
        err = first_error(e.errors())
        return None, f"malformed event: {err['field']}: {err['message']}"


def mount_frontend(app: FastAPI) -> None:
    import plotly

    plotly_js = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"

    @app.get("/vendor/plotly.min.js", include_in_schema=False)
    def plotly_bundle() -> FileResponse:
        return FileResponse(plotly_js, media_type="text/javascript", headers={"Cache-Control": "max-age=86400"})

    root = frontend_dir()
    if (root / "index.html").exists():
        app.mount("/", StaticFiles(directory=root, html=True), name="frontend")
