"""The FastAPI app, assembled: REST under /api (api_runs.py, api_cluster.py), the
websockets (sockets.py) and the page at / (pages.py), around one Hub."""

from __future__ import annotations

from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError

from ringside.server.benches import routes as api_bench
from ringside.server.benches.service import Benches
from ringside.server.cluster import routes as api_cluster
from ringside.server.cluster.workers import Hub
from ringside.server.compare import routes as api_compare
from ringside.server.config import Settings
from ringside.server.door import guard
from ringside.server.door.errors import REFUSALS, invalid_request, spec_refused
from ringside.server.lecture import routes as api_lecture
from ringside.server.model import routes as api_model
from ringside.server.pages import mount_frontend
from ringside.server.polls import routes as api_polls
from ringside.server.polls.routes import Polls
from ringside.server.runs import perturb_routes as api_perturb
from ringside.server.runs import routes as api_runs
from ringside.server.trainings import routes as api_training
from ringside.server.viewers import socket as sockets
from ringside.server.watched import routes as api_jobs
from ringside.server.watched.service import Watching
from ringside.worker_agent.core.protocol import PROTOCOL_VERSION
from ringside.worker_agent.core.validation import SpecError


def create_app(settings: Settings) -> FastAPI:
    @asynccontextmanager
    async def lifespan(app: FastAPI):
        hub = app.state.hub = Hub(settings)  # made here: it needs the server's event loop
        app.state.watching = Watching(hub.store, hub.fanout)
        app.state.polls = Polls(hub.store, hub.fanout)
        app.state.benches = Benches(hub)
        hub.start()
        app.state.watching.start()
        yield
        await app.state.watching.stop()
        app.state.polls.flush()
        await hub.stop()

    app = FastAPI(
        title="Ringside",
        version=str(PROTOCOL_VERSION),
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        responses=REFUSALS,
        description="Real torch.distributed collectives, step by step.",
    )
    app.state.settings = settings
    app.add_exception_handler(RequestValidationError, invalid_request)
    app.add_exception_handler(SpecError, spec_refused)  # NotReady and Busy too: errors.status_of
    for router in (
        api_bench.router,
        api_cluster.router,
        api_runs.router,
        api_compare.router,
        api_perturb.router,
        api_model.router,
        api_training.router,
        api_jobs.router,
        api_polls.router,
        api_lecture.router,
        sockets.router,
    ):
        app.include_router(router)
    mount_frontend(app)
    guard.install(app, settings)
    return app
