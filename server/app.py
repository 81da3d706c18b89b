"""The FastAPI app, assembled: REST under /api (api_runs.py, api_cluster.py), the
websockets (sockets.py) and the page at / (pages.py), around one Hub."""

from __future__ import annotations

from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError

from ringside.worker_agent.core.protocol import PROTOCOL_VERSION
from ringside.worker_agent.core.validation import SpecError

from . import (
    api_bench,
    api_cluster,
    api_compare,
    api_jobs,
    api_lecture,
    api_model,
    api_perturb,
    api_polls,
    api_runs,
    api_training,
    guard,
    sockets,
)
from .api_polls import Polls
from .bench_jobs import Benches
from .config import Settings
from .errors import REFUSALS, invalid_request, spec_refused
from .hub import Hub
from .pages import mount_frontend
from .watching import Watching


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
