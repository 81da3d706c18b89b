"""The FastAPI app, assembled: every service built in one place (the lifespan, on the server's
event loop) and handed the narrow things it uses; each feature's routes; the page at /; the
front door around it all."""

from __future__ import annotations

import asyncio
import contextlib
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from starlette.datastructures import State

from ringside.server.benches import routes as bench_routes
from ringside.server.benches.service import Benches
from ringside.server.cluster import routes as cluster_routes
from ringside.server.cluster import socket as worker_socket
from ringside.server.cluster.cluster import Cluster
from ringside.server.cluster.metrics import Metrics
from ringside.server.cluster.resize import Resizer
from ringside.server.cluster.server_metrics import ServerMetrics
from ringside.server.cluster.workers import Workers, announce
from ringside.server.compare import routes as compare_routes
from ringside.server.config import Settings
from ringside.server.db.database import Database
from ringside.server.dispatch.dispatcher import Dispatcher
from ringside.server.door import guard, reclaim
from ringside.server.door.errors import REFUSALS, invalid_request, spec_refused
from ringside.server.lecture import routes as lecture_routes
from ringside.server.lecture.presenter import PresenterView
from ringside.server.lessons import routes as lesson_routes
from ringside.server.lessons.reading import load as load_lesson
from ringside.server.lessons.reading import seed as seed_lesson
from ringside.server.model import costs
from ringside.server.model import routes as model_routes
from ringside.server.operate.access import Access, AccessLog
from ringside.server.operate.retention import Keep, Pruner
from ringside.server.pages import mount_frontend
from ringside.server.polls import routes as poll_routes
from ringside.server.polls.ballots import Ballots
from ringside.server.polls.service import Polls
from ringside.server.polls.store import PollStore
from ringside.server.polls.visibility import Visibility
from ringside.server.postmortem import routes as postmortem_routes
from ringside.server.practice import routes as practice_routes
from ringside.server.practice.service import Practice
from ringside.server.runs import perturb_routes, run_routes
from ringside.server.runs.service import Runs
from ringside.server.runs.store import RunStore
from ringside.server.trainings import routes as training_routes
from ringside.server.trainings.service import Trainings
from ringside.server.trainings.store import TrainingStore
from ringside.server.viewers import socket as viewer_socket
from ringside.server.viewers.fanout import Fanout
from ringside.server.watched import routes as watched_routes
from ringside.server.watched.notify import Notifier
from ringside.server.watched.service import Watching
from ringside.server.watched.store import WatchStore
from ringside.worker_agent.core.protocol import PROTOCOL_VERSION
from ringside.worker_agent.core.validation import SpecError

if TYPE_CHECKING:
    from ringside.worker_agent.rank.launch import LocalWorkers

ROUTERS = (
    bench_routes, cluster_routes, run_routes, compare_routes, perturb_routes, model_routes, training_routes,
    watched_routes, postmortem_routes, poll_routes, practice_routes, lecture_routes, lesson_routes,
    viewer_socket, worker_socket,
)  # fmt: skip


def build(s: State, settings: Settings, local: LocalWorkers | None = None) -> None:
    """Every service, on `s` (the app's state, where each feature's `*_of` dependency finds it);
    `local`: the ranks `ringside up` started, whose world the server may resize."""
    s.server_metrics = ServerMetrics()  # first: the store's writer times its writes for it
    s.database = Database(settings.db, s.server_metrics.store_writes.observe)
    s.fanout = Fanout(settings.viewer_queue)
    s.presenter_view = PresenterView(s.fanout)
    s.cluster = Cluster(settings.lost_after, settings.world_hold)
    s.workers = Workers(s.cluster)
    s.dispatcher = Dispatcher(s.cluster, s.workers.tell)
    s.resizer = Resizer(s.cluster, s.workers, s.dispatcher, s.fanout, local)
    s.run_store = RunStore(s.database)
    # what /metrics and /api/model read, kept up to date as runs end
    s.metrics = Metrics(s.run_store.last_busbw())
    s.fit = costs.Fit(s.run_store.fit_rows(costs.FIT_WINDOW))
    s.trainings = Trainings(TrainingStore(s.database), s.dispatcher, s.cluster, s.fanout)
    s.runs = Runs(s.run_store, s.dispatcher, s.cluster, s.fanout, s.fit, s.metrics, s.trainings.find_sync_run)
    s.benches = Benches(s.dispatcher, s.cluster)
    s.watching = Watching(WatchStore(s.database), s.fanout, settings.hang_after)
    poll_store = PollStore(s.database)
    s.ballots = Ballots(poll_store.ballot_key())
    s.polls = Polls(poll_store, s.runs, s.fanout, s.ballots, s.presenter_view.retell)
    s.visibility = Visibility(s.polls.holding, s.polls.book)
    s.practice = Practice(s.runs, s.ballots, s.visibility, s.fanout)
    s.access_log = AccessLog(settings.access_log_path, settings.access_log_bytes, settings.access_log_keep)
    keep = Keep(settings.keep_runs, settings.keep_days)
    s.pruner = Pruner(
        keep, s.database.writer, s.run_store, lambda: s.polls.book.runs_asked() | s.presenter_view.shown()
    )
    s.fanout.screen = s.visibility.message  # what the room hears of each message
    s.notifier = Notifier(settings.notify, settings.page_url) if settings.notify else None
    s.watching.hang_changed = s.notifier.hang_changed if s.notifier else None
    s.dispatcher.recover([*s.runs.left_unfinished(), *s.trainings.left_unfinished()])


async def cancelled(task: asyncio.Task[None]) -> None:
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


def create_app(settings: Settings, local: LocalWorkers | None = None, tune_process: bool = True) -> FastAPI:
    """`local`: the ranks `ringside up` started (None: the server's ranks join it from outside);
    `tune_process`: its start tunes the process's collector for a server (door/reclaim.py), which a
    test that builds apps in its own process does without."""

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        s = app.state
        # each service is stopped in the reverse order it started, every one even if another fails:
        # no vote, run or write is left unsaved
        async with contextlib.AsyncExitStack() as stopping:
            build(s, settings, local)  # here: the services need the server's event loop
            if tune_process:
                reclaim.freeze()
                reclaim.collect_young_seldom()
            stopping.callback(s.database.close)
            stopping.callback(s.access_log.close)
            s.dispatcher.start()
            stopping.push_async_callback(s.dispatcher.shutdown)
            stopping.callback(s.polls.voting.flush)
            ticking = asyncio.create_task(announce(s.cluster, s.fanout, s.dispatcher.nudge))
            stopping.push_async_callback(cancelled, ticking)
            s.watching.start()
            stopping.push_async_callback(s.watching.stop)
            if s.notifier is not None:
                stopping.push_async_callback(s.notifier.close)
                stopping.push_async_callback(cancelled, asyncio.create_task(s.notifier.run()))
            for task in (s.server_metrics.watch_lag(), s.pruner.run()):
                stopping.push_async_callback(cancelled, asyncio.create_task(task))
            yield

    app = FastAPI(
        title="Ringside",
        version=str(PROTOCOL_VERSION),
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        openapi_url=None,  # pages.py serves the schema, under the viewer's token
        responses=REFUSALS,
        description="Real torch.distributed collectives, step by step.",
    )
    app.state.settings = settings
    app.state.lesson = load_lesson(settings.lesson) if settings.lesson else seed_lesson()  # LessonError
    app.add_exception_handler(RequestValidationError, invalid_request)
    app.add_exception_handler(SpecError, spec_refused)  # NotReady and Busy too: errors.status_of
    for module in ROUTERS:
        app.include_router(module.router)
    mount_frontend(app)
    guard.install(app, settings)
    app.add_middleware(Access, settings=settings)  # outside the guard: its refusals are logged too
    return app
