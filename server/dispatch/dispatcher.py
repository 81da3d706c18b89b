"""The one dispatcher that runs jobs (job.py) on the whole cluster.

A job holds the cluster for a while: a run, a training, a bench. Its kind (runs/service.py,
trainings/service.py, benches/service.py) says what the ranks are sent, which of their events are its
own, what is unfinished, how it ends and what it stores. The dispatcher owns what every kind
shares, once: the queue, cancelling, the wait for the ranks, lost ranks, the deadline, a
stopping server, and the rule that what a stopped server left unfinished is interrupted.

Jobs run one at a time, in the order accepted, on every rank. A kind that `queues`
waits its turn; one that does not is refused (409) while anything holds the cluster.
Everything happens on the server's event loop, so no locks are needed."""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable, Coroutine, Iterable
from typing import Any

from starlette.requests import HTTPConnection

from ringside.server.cluster.cluster import Cluster
from ringside.server.db.writer import landed_within
from ringside.server.dispatch.clock import Clock
from ringside.server.dispatch.job import Job, JobState
from ringside.server.door.errors import Busy, NotReady
from ringside.worker_agent.core.protocol import Cancel

TICK_S = 1.0  # the longest a waiting job goes without looking at its ranks
LOSS_GRACE_S = 1.5  # how long a failed job waits to see whether a rank died, to name it
LOSS_LOOK_S = 0.05  # how often it looks meanwhile (a rank gone silent says nothing)
STOPPED = "the server stopped before this {} finished"
STORE_WITHIN_S = 10.0  # how long a job's submission waits for its record to be stored
MAX_QUEUE = 256  # jobs waiting: each queued run holds its planned schedule (tens of KB)
log = logging.getLogger("ringside.server")


class Dispatcher:
    """The queue of jobs and the loop that runs them on the whole cluster."""

    def __init__(
        self, cluster: Cluster, tell: Callable[[str], Coroutine[Any, Any, None]], clock: Clock | None = None
    ):
        """`tell`: sends a command's JSON to every rank; `clock`: the time deadlines are kept in."""
        self.cluster, self.tell, self.clock = cluster, tell, clock or Clock()
        self.queue: deque[Job] = deque()
        self.current: Job | None = None
        self.stopping = False  # Ctrl-C or SIGTERM (serve.Server): what is cut short now is interrupted
        self.changed = asyncio.Event()  # something a waiting job may care about happened
        # cancels on their way to the ranks (the loop keeps weak references)
        self.telling: set[asyncio.Task[None]] = set()
        self.task: asyncio.Task | None = None
        self.restarts = 0  # of its loop, after a failure of its own
        self.resizing: int | None = None  # the world size the world is being resized to (cluster/resize.py)

    def start(self) -> None:
        self.task = asyncio.create_task(self._supervised())

    async def _supervised(self) -> None:
        """The loop, started again should it ever fail (a job's own failure costs that job only);
        said in the log and in /api/health."""
        while True:
            try:
                await self.run()
            except Exception:
                self.restarts += 1
                log.exception("the dispatcher failed; starting it again (restart %d)", self.restarts)
                await asyncio.sleep(1)

    def running(self) -> bool:
        return self.task is not None and not self.task.done()

    async def shutdown(self) -> None:
        """The server stops: the loop ends and whatever runs or waits is interrupted."""
        if self.task is not None:
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)
        self.stop()

    def nudge(self) -> None:
        """Something a waiting job may care about happened (a rank came or went, a tick)."""
        self.changed.set()

    def recover(self, left: Iterable[Job]) -> None:
        """What a previous server left running or queued: interrupted, never lost, never silent."""
        for job in left:
            job.end(JobState.INTERRUPTED, STOPPED.format(job.kind))

    def check_whole(self, kind: str) -> None:
        """Every rank of the world takes part in every job: all must be here."""
        self._not_resizing()
        if not self.cluster.live():
            raise NotReady("group", "no ranks are connected")
        missing = self.cluster.missing()
        if missing:
            raise NotReady(
                "group",
                f"ranks {missing} of the world are not connected; every rank takes part in every {kind}",
            )

    def _not_resizing(self) -> None:
        if self.resizing is not None:
            why = f"the world is being resized to {self.resizing} ranks; submit again once it is"
            raise Busy("cluster", why)

    def _check(self, job: Job) -> None:
        """Raise Busy if the job would not be queued now: one that does not queue while anything
        holds the cluster, any while the queue is full or the world is being resized."""
        self._not_resizing()
        held = self.holder()
        if not job.queues and held is not None:
            raise Busy("cluster", f"{held.id} holds the cluster; start a {job.kind} when it has ended")
        if len(self.queue) >= MAX_QUEUE:
            raise Busy("queue", f"{MAX_QUEUE} jobs are waiting already; submit again when some have run")

    async def submit(self, job: Job) -> None:
        """Queue a job whose record is made, once its record is in the store: a job the server took
        is never lost. Raises Busy (see _check), or NotReady if the store cannot be written in time."""
        self._check(job)
        if not await landed_within(job.save, STORE_WITHIN_S, late=lambda: self._never_queued(job)):
            raise NotReady(
                "store",
                f"the store could not be written within {STORE_WITHIN_S:g} s "
                "(does another process hold it locked?); nothing was queued",
            )
        try:
            self._check(job)  # the queue may have changed while the record was written
        except Busy as e:
            self._never_queued(job, e.message)
            raise
        self.queue.append(job)
        self.changed.set()

    def holder(self) -> Job | None:
        """The job that holds the cluster: the one running, else the next queued."""
        return self.current or (self.queue[0] if self.queue else None)

    def find(self, job_id: str) -> Job | None:
        """A job not yet ended."""
        if self.current is not None and self.current.id == job_id:
            return self.current
        return next((j for j in self.queue if j.id == job_id), None)

    def _never_queued(self, job: Job, why: str = "the store was locked when it was submitted") -> None:
        job.end(JobState.CANCELLED, f"it was never queued: {why}")

    def cancel_queued(self, job: Job) -> None:
        self.queue.remove(job)
        job.end(JobState.CANCELLED, None)

    def cancel(self, job: Job) -> None:
        """Queued: cancelled now. Running: the ranks are told, stop together at their next check
        (between a run's iterations, a training's steps), and the job ends cancelled once they
        have (or have finished: what they are doing is never cut short)."""
        if job.record.state == JobState.QUEUED:
            self.cancel_queued(job)
        elif not job.record.cancel_requested:
            job.record.cancel_requested = True
            task = asyncio.create_task(self.tell(Cancel(run_id=job.id).model_dump_json()))
            self.telling.add(task)
            task.add_done_callback(self.telling.discard)

    def on_event(self, event: object) -> None:
        """A rank's event: the current job's own, or late news of one that has ended (dropped)."""
        job = self.current
        if job is not None and isinstance(event, job.events) and event.run_id == job.id:
            job.take(event)
            self.changed.set()

    async def run(self) -> None:
        while True:
            while not self.queue or self.cluster.missing() or not self.cluster.live():
                self.changed.clear()
                await self.changed.wait()
            await self._execute(self.queue.popleft())

    def stop(self) -> None:
        """The server stops: whatever runs or waits is interrupted (call once the loop is cancelled)."""
        for job in ([self.current] if self.current else []) + list(self.queue):
            job.end(JobState.INTERRUPTED, STOPPED.format(job.kind))
        self.current = None
        self.queue.clear()

    async def _execute(self, job: Job) -> None:
        self.current = job
        try:
            job.begin()
            await self.tell(job.command().model_dump_json())
            state, error = await self._await(job)
            job.end(state, error)
        except asyncio.CancelledError:
            raise  # the server stops: stop() interrupts it
        except Exception:  # a bug costs this job, never the dispatcher: every later job would wait forever
            log.exception("%s %s: the dispatcher failed", job.kind, job.id)
            why = f"the server failed while running this {job.kind} (its log says why)"
            job.record.error = job.record.error or why
            try:
                job.end(JobState.FAILED, None)
            except Exception:
                log.exception("%s %s: could not be concluded", job.kind, job.id)
        self.current = None
        self.changed.set()

    async def _await(self, job: Job) -> tuple[JobState, str | None]:
        """Until every rank has finished, or one is lost or fails, or the time allowed passes,
        or the server stops: its end state and, if failed, why."""
        record, allowed = job.record, job.allowed_s()
        deadline = self.clock.now() + allowed
        while True:
            if self.stopping:  # Ctrl-C: the ranks go with the server, and what they were doing did not fail
                record.error = None
                return JobState.INTERRUPTED, STOPPED.format(job.kind)
            lost = self.cluster.missing_in_order()
            if record.error is not None or lost:  # a peer's broken connection is often heard before its loss
                lost = lost or await self._lost_within(LOSS_GRACE_S)
                if not lost:
                    return JobState.FAILED, None
                said, record.error = record.error, None  # the rank that died first; then what a survivor said
                return JobState.FAILED, lost_words(lost, job.kind) + (
                    f": {said}" if said else f"; ranks {record.unfinished()} did not finish"
                )
            if not record.unfinished():
                return JobState.DONE, None
            remaining = deadline - self.clock.now()
            if remaining <= 0:
                return JobState.FAILED, f"ranks {record.unfinished()} did not finish within {allowed:g} s"
            await self._nudged(min(remaining, TICK_S))

    async def _nudged(self, seconds: float) -> None:
        """Until something a waiting job may care about happens, or `seconds` pass."""
        self.changed.clear()
        await self.clock.wait(self.changed, seconds)

    async def _lost_within(self, seconds: float) -> list[int]:
        """The ranks of the world found missing within `seconds` (at once, if any are), first lost first."""
        deadline = self.clock.now() + seconds
        while not (lost := self.cluster.missing_in_order()) and (left := deadline - self.clock.now()) > 0:
            await self._nudged(min(left, LOSS_LOOK_S))  # a rank's socket that closes says so at once
        return lost


def lost_words(lost: list[int], kind: str) -> str:
    then = f" (then ranks {lost[1:]}, which gave up on it)" if lost[1:] else ""
    return f"rank {lost[0]} was lost during the {kind}{then}"


async def dispatcher_of(conn: HTTPConnection) -> Dispatcher:
    return conn.app.state.dispatcher
