"""The hub: the cluster, the run queue and its dispatcher, the store and the viewers.

Runs execute one at a time, in the order accepted, on every rank (ranks
outside a run's group still take the command: torch makes every rank build
every subgroup). A run ends when every rank of its group has finished, when
one reports an error, when a rank of the world is lost, or at its deadline.
Everything happens on the server's event loop, so no locks are needed.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque

from starlette.requests import Request
from starlette.websockets import WebSocket, WebSocketDisconnect

from ringside.worker_agent.catalog import SpecError, validate
from ringside.worker_agent.protocol import (Cancel, ErrorEvent, Heartbeat, Hello, RunCancelled, RunCommand, RunFinished, RunSpec,
                                            RunStarted, StepEvent)

from . import model
from .config import Settings
from .fanout import Fanout
from .messages import ClusterMessage, EndedMessage, SnapshotMessage, StartedMessage, StepMessage, SummaryMessage
from .metrics import Metrics
from .registry import Cluster
from .runs import Run, RunState, new_run
from .store import Store

TICK_S = 1.0
MAX_SECONDS = 1e7  # a reported time (115 days); beyond it, microseconds in a trace overflow to infinity
log = logging.getLogger("ringside.server")


class Hub:
    def __init__(self, settings: Settings):
        self.settings = settings
        self.cluster = Cluster(settings.lost_after)
        self.store = Store(settings.db)
        self.fanout = Fanout(settings.viewer_queue)
        self.workers: dict[int, WebSocket] = {}
        self.queue: deque[Run] = deque()
        self.current: Run | None = None
        self.changed = asyncio.Event()  # something the dispatcher may be waiting for happened
        self.next_id = self.store.last_number() + 1
        self.tasks: list[asyncio.Task] = []
        self.telling: set[asyncio.Task] = set()
        for run in self.store.unfinished():  # what a previous server left running or queued
            run.conclude(RunState.INTERRUPTED, "the server stopped before this run finished")
            self.store.save(run)
        if self.store.new_figures:  # a store from before figures were kept: its last done runs, once
            for run in self.store.finished(model.FIT_WINDOW):
                self.store.add_figures(run, model.row_of(run))
        # what /metrics and /api/model read, kept up to date as runs end (_save_ended)
        self.metrics = Metrics(self.store.last_busbw())
        self.fit = model.Fit(self.store.fit_rows(model.FIT_WINDOW))

    # --- lifecycle -----------------------------------------------------------

    def start(self) -> None:
        self.tasks = [asyncio.create_task(self._dispatch()), asyncio.create_task(self._tick())]

    async def stop(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        for run in ([self.current] if self.current else []) + list(self.queue):
            run.conclude(RunState.INTERRUPTED, "the server stopped before this run finished")
            self.store.save(run)
        self.store.close()

    # --- runs ----------------------------------------------------------------

    def submit(self, spec: RunSpec) -> Run:
        """Queue a run, or raise SpecError naming what is wrong (and change nothing)."""
        if not self.cluster.live():
            raise SpecError("group", "no ranks are connected")
        missing = self.cluster.missing()
        if missing:
            raise SpecError("group", f"ranks {missing} of the world are not connected; every rank takes part in every run")
        validate(spec, self.cluster.world_size, self.cluster.backend)
        run = new_run(f"r-{self.next_id:06d}", spec, self.cluster.backend, self.cluster.world_size)
        self.next_id += 1
        self.queue.append(run)
        self.store.save(run)
        self.fanout.publish(SummaryMessage(run=run.summary()))
        self.changed.set()
        return run

    def find(self, run_id: str) -> Run | None:
        if self.current is not None and self.current.id == run_id:
            return self.current
        return next((r for r in self.queue if r.id == run_id), None) or self.store.get(run_id)

    def live(self) -> dict[str, Run]:
        """The runs not yet ended, by id: newer than what the store holds of them."""
        return {r.id: r for r in [self.current, *self.queue] if r is not None}

    def cancel(self, run_id: str) -> Run | None:
        """Queued: cancelled now. Running: the ranks are told, stop together at their next
        check between iterations (runner.py), and the run is marked cancelled when they have
        (or have finished: a single iteration is never cut short)."""
        run = self.find(run_id)
        if run is None or run.state.ended:
            return run
        if run.state == RunState.QUEUED:
            self.queue.remove(run)
            run.conclude(RunState.CANCELLED)
            self.store.save(run)
            self.fanout.publish(SummaryMessage(run=run.summary()))
        elif not run.cancel_requested:
            run.cancel_requested = True
            task = asyncio.create_task(self._tell_workers(Cancel(run_id=run_id).model_dump_json()))
            self.telling.add(task)  # held until done: the loop keeps only weak references
            task.add_done_callback(self.telling.discard)
        return run

    async def _tell_workers(self, text: str) -> None:
        for ws in list(self.workers.values()):
            try:
                await ws.send_text(text)
            except (WebSocketDisconnect, RuntimeError, OSError):
                pass  # its loss is noticed by _await_ranks

    async def _dispatch(self) -> None:
        while True:
            while not self.queue or self.cluster.missing() or not self.cluster.live():
                self.changed.clear()
                await self.changed.wait()
            run = self.queue.popleft()
            try:
                await self._execute(run)
            except Exception:  # a bug must cost this run, never the dispatcher: every later run would wait forever
                log.exception("run %s: the dispatcher failed", run.id)
                self.current = None
                run.state, run.finished_at = RunState.FAILED, time.time()
                run.error = run.error or "the server failed while running it (its log says why)"
                self.store.save(run)
                self.fanout.publish(EndedMessage(run=run))

    async def _execute(self, run: Run) -> None:
        """Viewers hear of it once every rank has started (on_event), and when it ends."""
        run.state, run.started_at = RunState.RUNNING, time.time()
        self.current = run
        self.store.save(run)
        await self._tell_workers(RunCommand(run_id=run.id, spec=run.spec).model_dump_json())
        state, error = await self._await_ranks(run)
        run.conclude(state, error)
        self.current = None
        self._save_ended(run)
        self.fanout.publish(EndedMessage(run=run))

    def _save_ended(self, run: Run) -> None:
        """Store a run that has ended and, if done, its figures: the counters and the fit
        take it in now, so no read ever goes back over the stored runs."""
        self.store.save(run)
        if run.state == RunState.DONE:
            row = model.row_of(run)
            self.store.add_figures(run, row)
            self.metrics.observe(run)
            if row is not None:
                self.fit.add(row)

    async def _await_ranks(self, run: Run) -> tuple[RunState, str | None]:
        spec = run.spec
        allowed = spec.timeout * (spec.warmup + spec.iterations + 2)
        deadline = time.monotonic() + allowed
        while True:
            if run.error is not None:
                return RunState.FAILED, None
            if not run.unfinished():
                return RunState.DONE, None
            lost = self.cluster.missing()
            if lost:
                return RunState.FAILED, f"ranks {lost} were lost during the run; ranks {run.unfinished()} did not finish"
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return RunState.FAILED, f"ranks {run.unfinished()} did not finish within {allowed:g} s"
            self.changed.clear()
            try:
                await asyncio.wait_for(self.changed.wait(), timeout=min(remaining, TICK_S))
            except asyncio.TimeoutError:
                pass

    # --- workers -------------------------------------------------------------

    def worker_joined(self, hello: Hello, ws: WebSocket) -> None:
        self.cluster.join(hello)
        self.workers[hello.rank] = ws
        self.changed.set()

    def worker_left(self, rank: int, ws: WebSocket) -> None:
        if self.workers.get(rank) is ws:
            del self.workers[rank]
            self.cluster.leave(rank)
            self.changed.set()

    def on_event(self, event) -> None:
        """One event from a worker; everything but a heartbeat belongs to the current run."""
        self.cluster.seen(event.rank)
        if isinstance(event, Heartbeat):
            self.cluster.beat(event)
            return
        run = self.current
        if run is None or getattr(event, "run_id", None) != run.id:
            return  # late news of a run that has ended: nothing to update
        if isinstance(event, RunStarted):
            if not run.started():
                run.on_started(event)
                if run.started():  # the last rank is in: the run goes on stage with what it has so far
                    self.fanout.publish(StartedMessage(run=run))
        elif (why := nonsense(event, run)) is not None:  # the run fails, saying so; nothing of it is taken in
            run.on_error(ErrorEvent(run_id=run.id, rank=event.rank, message=why))
        elif isinstance(event, StepEvent):
            entry = run.on_step(event)
            if run.started():  # steps before that are in run_started's run
                self.fanout.publish(StepMessage(run_id=run.id, step=event.step, rank=event.rank, t0=entry.t0, t1=entry.t1,
                                                states=entry.states))
        elif isinstance(event, RunFinished):
            run.on_finished(event)
        elif isinstance(event, RunCancelled):
            run.on_cancelled(event)
        elif isinstance(event, ErrorEvent):
            run.on_error(event)
        self.changed.set()

    async def _tick(self) -> None:
        """Once a second: the cluster to every viewer, and a nudge to notice lost ranks."""
        while True:
            await asyncio.sleep(TICK_S)
            if self.cluster.ranks:
                self.fanout.publish(ClusterMessage(**self.cluster.to_json()))
            self.changed.set()

    def snapshot(self, role: str) -> SnapshotMessage:
        return SnapshotMessage(role=role, cluster=self.cluster.to_json(), queue=[r.summary() for r in self.queue],
                               current=self.current)


def nonsense(event, run: Run) -> str | None:
    """Why a rank's step or result cannot be taken into the run, or None. Steps and chunks are
    the plan's (a step beyond it would make one small frame allocate a billion); a time that is not a number
    of seconds a run could take (NaN, 1e308) has no place in a trace, a chart or a fit."""
    if isinstance(event, StepEvent):
        if not 0 <= event.step < len(run.steps):
            return f"rank {event.rank} reported step {event.step}, outside the run's {len(run.steps)} planned steps"
        bounds = run.chunk_bounds
        for state in event.states:  # what the plan lets a chunk hold: a forged report must not grow the run
            if not 0 <= state.chunk < len(bounds) or len(state.values or ()) > bounds[state.chunk][1] - bounds[state.chunk][0]:
                return f"rank {event.rank} reported a chunk the run's buffer does not have (step {event.step})"
        if len(event.states) > len(bounds):
            return f"rank {event.rank} reported more chunks than its buffer has (step {event.step})"
        times = (event.t0, event.t1)
    elif isinstance(event, RunFinished):
        times = (*event.timings.iterations, *event.timings.steps)
    else:
        return None
    if not all(-MAX_SECONDS <= t <= MAX_SECONDS for t in times):  # NaN fails both
        return f"rank {event.rank} reported a time that is not a number of seconds within ±{MAX_SECONDS:g}"
    return None


async def hub_of(request: Request) -> Hub:
    """The app's hub, as a FastAPI dependency (async: resolved on the event loop)."""
    return request.app.state.hub
