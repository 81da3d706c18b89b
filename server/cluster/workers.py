"""The hub: the cluster and its workers' sockets, the store, the viewers, and the
dispatcher that runs jobs on the cluster (jobs.py), with each kind of job's own
service (run_jobs.Runs, training_jobs.Trainings). Everything happens on the server's
event loop, so no locks are needed."""

from __future__ import annotations

import asyncio
import logging

from starlette.requests import Request
from starlette.websockets import WebSocket, WebSocketDisconnect

from ringside.server.cluster.cluster import Cluster
from ringside.server.cluster.metrics import Metrics
from ringside.server.config import Settings
from ringside.server.dispatch.dispatcher import TICK_S, Dispatcher
from ringside.server.model import costs as model
from ringside.server.runs.service import Runs
from ringside.server.runs.store import Store
from ringside.server.trainings.service import Trainings
from ringside.server.trainings.store import TrainingStore
from ringside.server.viewers.fanout import Fanout
from ringside.server.viewers.messages import ClusterMessage, SnapshotMessage
from ringside.worker_agent.core.protocol import Heartbeat, Hello

log = logging.getLogger("ringside.server")
SNAPSHOT_QUEUE = 32  # queued runs a joining viewer is told of, the next first; `queued` says how many in all


class Hub:
    def __init__(self, settings: Settings):
        self.settings = settings
        self.cluster = Cluster(settings.lost_after, settings.world_hold)
        self.store = Store(settings.db)
        self.fanout = Fanout(settings.viewer_queue)
        self.workers: dict[int, WebSocket] = {}
        self.dispatcher = Dispatcher(self.cluster, self.tell_workers)
        self.tasks: list[asyncio.Task] = []
        self.restarts = 0  # of the dispatcher, after a failure of its own
        if self.store.new_figures:  # a store from before figures were kept: its last done runs, once
            for run in self.store.finished(model.FIT_WINDOW):
                self.store.add_figures(run, model.row_of(run))
            self.store.flush()  # read back at once, below
        # what /metrics and /api/model read, kept up to date as runs end (run_jobs.RunJob)
        self.metrics = Metrics(self.store.last_busbw())
        self.fit = model.Fit(self.store.fit_rows(model.FIT_WINDOW))
        self.runs = Runs(self)
        self.trainings = Trainings(self, TrainingStore(self.store))
        self.dispatcher.recover([*self.runs.left_unfinished(), *self.trainings.left_unfinished()])

    # --- lifecycle -----------------------------------------------------------

    def start(self) -> None:
        self.tasks = [asyncio.create_task(self._dispatch()), asyncio.create_task(self._tick())]

    async def _dispatch(self) -> None:
        """The dispatcher, started again should it ever fail (a job's own failure costs that job
        only: jobs.py); said in the log and in /api/health."""
        while True:
            try:
                await self.dispatcher.run()
            except Exception:
                self.restarts += 1
                log.exception("the dispatcher failed; starting it again (restart %d)", self.restarts)
                await asyncio.sleep(1)

    def dispatching(self) -> bool:
        return bool(self.tasks) and not self.tasks[0].done()

    async def stop(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        self.dispatcher.stop()
        self.store.close()

    # --- workers -------------------------------------------------------------

    def worker_joined(self, hello: Hello, ws: WebSocket) -> None:
        self.cluster.join(hello)
        self.workers[hello.rank] = ws
        self.dispatcher.changed.set()

    def worker_left(self, rank: int, ws: WebSocket) -> None:
        if self.workers.get(rank) is ws:
            del self.workers[rank]
            self.cluster.leave(rank)
            self.dispatcher.changed.set()

    def on_event(self, event) -> None:
        """One event from a worker: a heartbeat for the cluster, anything else for the job it names."""
        self.cluster.seen(event.rank)
        if isinstance(event, Heartbeat):
            self.cluster.beat(event)
        else:
            self.dispatcher.on_event(event)

    async def tell_workers(self, text: str) -> None:
        for ws in list(self.workers.values()):
            try:
                await ws.send_text(text)
            except (WebSocketDisconnect, RuntimeError, OSError):
                pass  # its loss is noticed by the dispatcher

    async def _tick(self) -> None:
        """Once a second: the cluster to every viewer, and a nudge to notice lost ranks."""
        while True:
            await asyncio.sleep(TICK_S)
            if self.cluster.ranks:
                self.fanout.publish(ClusterMessage(**self.cluster.to_json()))
            self.dispatcher.changed.set()

    def snapshot(self, role: str) -> SnapshotMessage:
        queued = self.runs.queued()
        return SnapshotMessage(
            role=role,
            cluster=self.cluster.to_json(),
            current=self.runs.current(),
            queued=len(queued),
            queue=[r.summary() for r in queued[:SNAPSHOT_QUEUE]],
        )


async def hub_of(request: Request) -> Hub:
    """The app's hub, as a FastAPI dependency (async: resolved on the event loop)."""
    return request.app.state.hub
