"""The run, as a kind of job: one collective on every rank of its group.

Viewers hear of a run when it is queued, once every rank of its group has started
(`run_started`, with its schedule and inputs), at each step after that, and when it
ends. A run that ends done leaves its figures behind (the store's `figures` row, the
counters of /metrics, the model's fit), taken in as it ends, so no read goes back
over the stored runs. A training step's gradient sync is opened as a run too
(trainings/service.py makes it); `Runs.find` knows its id."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from starlette.requests import HTTPConnection

from ringside.server.cluster.cluster import Cluster
from ringside.server.cluster.metrics import Metrics
from ringside.server.dispatch.dispatcher import Dispatcher
from ringside.server.dispatch.job import Job, JobState
from ringside.server.door.audience import Feed
from ringside.server.model import costs
from ringside.server.runs import wavefront
from ringside.server.runs.messages import RECENT, EndedMessage, StartedMessage, StepMessage, SummaryMessage
from ringside.server.runs.run import Choice, Place, Prediction, Run, RunSummary, fits, new_run
from ringside.server.runs.store import RunStore
from ringside.worker_agent.core.preview import input_states
from ringside.worker_agent.core.protocol import (
    Arrived,
    ErrorEvent,
    RunCancelled,
    RunCommand,
    RunFinished,
    RunSpec,
    RunStarted,
    StepEvent,
)
from ringside.worker_agent.core.simulate import Sharing
from ringside.worker_agent.core.validation import validate

PREVIEW = "preview"  # the id of a run that no rank runs (Runs.preview): no run's id looks like it
MAX_SECONDS = 1e7  # a reported time (115 days); beyond it, microseconds in a trace overflow to infinity
MAX_BYTES = 1 << 64  # a rank's bytes moved, or a checksum (a 64-bit word)
PLANNED = "planned"  # the id of a run planned and not yet queued


class RunJob(Job):
    kind = "run"
    events = (RunStarted, StepEvent, Arrived, RunFinished, RunCancelled, ErrorEvent)

    def __init__(self, run: Run, runs: Runs):
        super().__init__(run)
        self.run, self.runs = run, runs
        self.reports: dict[int, str] = {}  # each rank's first error, for a hang's verdict (wavefront.blame)

    def save(self, landed) -> None:
        self.runs.store.save(self.run, landed)

    def command(self) -> RunCommand:
        return RunCommand(run_id=self.run.id, spec=self.run.spec)

    def allowed_s(self) -> float:
        spec = self.run.spec
        return spec.timeout * (spec.warmup + spec.iterations + 2)

    def begin(self) -> None:
        self.run.state, self.run.started_at = JobState.RUNNING, time.time()
        self.run.places = {r: Place(**place) for r, place in self.runs.cluster.places(self.run.group).items()}
        self.runs.store.save(self.run)

    def take(self, event) -> None:
        run, publish = self.run, self.runs.fanout.publish
        shown = run.spec.purpose != "sweep"  # a sweep's steps stay off the stage
        if isinstance(event, RunStarted):
            if not run.started():
                run.on_started(event)
                if run.started() and shown:  # the last rank is in: the run goes on stage
                    publish(StartedMessage(run=run))
        elif (why := nonsense(event, run)) is not None:  # the run fails, saying so; nothing of it is taken in
            run.on_error(ErrorEvent(run_id=run.id, rank=event.rank, message=why))
        elif isinstance(event, StepEvent):
            entry = run.on_step(event)
            if run.started() and shown:  # steps before that are in run_started's run
                publish(
                    StepMessage(
                        run_id=run.id,
                        step=event.step,
                        rank=event.rank,
                        t0=entry.t0,
                        t1=entry.t1,
                        states=entry.states,
                    )
                )
        elif isinstance(event, RunFinished):
            run.on_finished(event)
        elif isinstance(event, RunCancelled):
            run.on_cancelled(event)
        elif isinstance(event, ErrorEvent):
            run.on_error(event)
            self.reports.setdefault(event.rank, event.message)
        # a hang's ranks report steps and arrivals live
        if (front := wavefront.observe(run, event)) is not None:
            publish(wavefront.WavefrontMessage(run_id=run.id, wavefront=front))

    def end(self, state: JobState, error: str | None) -> None:
        run = self.run
        if state == JobState.FAILED:
            # a hang: the run failed on the rank the others waited for
            wavefront.blame(run, error, self.reports)
        run.conclude(state, error)
        self._save_ended()
        # cancelled queued
        ended = EndedMessage(run=run) if run.started_at else SummaryMessage(run=run.summary())
        self.runs.fanout.publish(ended)
        for hear in self.runs.on_end:
            hear(run)

    def _save_ended(self) -> None:
        """Store the run and, if done, its figures: the counters and the fit take it in now."""
        run, runs = self.run, self.runs
        done = run.state == JobState.DONE
        row = costs.row_of(run) if done else None
        if row is not None:  # predicted before its own row joins the fit
            run.prediction = Prediction(**costs.prediction_of(row, runs.fit))
        runs.store.save(run)
        if done:
            runs.store.add_figures(run, row)
            runs.metrics.observe(run)
            if row is not None:
                runs.fit.add(row)


def previewed(spec: RunSpec, backend: str, world_size: int) -> str:
    """Runs.preview's run, made and written out (a resolved, validated spec)."""
    run = new_run(PREVIEW, spec, backend, world_size)
    run.inputs = {str(r): states for r, states in input_states(spec, world_size).items()}
    return run.model_dump_json()


class Runs:
    """Submitting, finding and cancelling runs."""

    def __init__(
        self,
        store: RunStore,
        dispatcher: Dispatcher,
        cluster: Cluster,
        fanout: Feed,
        fit: costs.Fit,
        metrics: Metrics,
        elsewhere: Callable[[str], Run | None],
    ):
        """`elsewhere`: a run that another feature makes (a training step's sync), by id."""
        self.store, self.dispatcher, self.cluster, self.fanout = store, dispatcher, cluster, fanout
        self.fit, self.metrics, self.elsewhere = fit, metrics, elsewhere
        self.next_id = store.last_number() + 1
        self.on_end: list[Callable[[Run], None]] = []  # told of each run that ends, once it is saved
        self.previewing = asyncio.Lock()  # one preview made at a time: what they hold is one's buffers

    def left_unfinished(self) -> list[RunJob]:
        return [RunJob(run, self) for run in self.store.unfinished()]

    async def submit(self, spec: RunSpec) -> Run:
        """Queue a run, or raise SpecError naming what is wrong (and queue nothing)."""
        return await self.queue(self.plan(spec))

    def plan(self, spec: RunSpec) -> Run:
        """The run a spec asks for, planned but not queued (its id comes with `queue`), or
        SpecError naming what is wrong."""
        self.dispatcher.check_whole("run")
        cluster = self.cluster
        placement = cluster.placement()
        # `auto` made concrete
        backend = cluster.backend or "gloo"  # a whole world is connected (check_whole): it has one
        spec, choice = costs.resolve(spec, cluster.world_size, backend, self.fit, placement)
        validate(spec, cluster.world_size, backend)
        run = new_run(PLANNED, spec, backend, cluster.world_size)
        run.choice = Choice(**choice) if choice is not None else None
        # as the field's type holds it (a host a tuple): a list there makes pydantic warn at each save
        run.sharing = [(list(ranks), cores) for ranks, cores in Sharing.of(placement).hosts]
        run.perturbed = wavefront.record(run)
        return run

    def name(self, run: Run) -> str:
        """Give a planned run the next id (before it is queued: a poll holds it by that id)."""
        if run.id == PLANNED:
            run.id = f"r-{self.next_id:06d}"
            self.next_id += 1
        return run.id

    async def queue(self, run: Run) -> Run:
        """Queue a planned run (under the next id, unless named already); Busy or NotReady: it is not
        queued."""
        self.name(run)
        await self.dispatcher.submit(RunJob(run, self))
        self.fanout.publish(SummaryMessage(run=run.summary()))
        return run

    async def preview(self, spec: RunSpec) -> str:
        """The run `spec` asks for as it would start, run by nobody, as JSON: planned, and every
        rank's inputs made as the ranks make them (the page's first screen). SpecError as submit's.
        Any page may ask, and a buffer of 64 MiB a rank takes a second or more to make: so it is
        made in a thread, one preview at a time, and the loop serves everyone else meanwhile."""
        cluster = self.cluster
        backend = cluster.backend or "gloo"
        spec, _ = costs.resolve(spec, cluster.world_size, backend, self.fit, cluster.placement())
        validate(spec, cluster.world_size, backend)
        async with self.previewing:
            return await asyncio.to_thread(previewed, spec, backend, cluster.world_size)

    def find(self, run_id: str) -> Run | None:
        """A run by id: one not yet ended (newer than the store's), a training step's sync, or a stored
        one."""
        read = self.read(run_id)
        return read[0] if read else None

    def read(self, run_id: str) -> tuple[Run, str | None] | None:
        """find's run, and its JSON where it is stored (None: made in memory, written out on demand)."""
        job = self.dispatcher.find(run_id)
        if isinstance(job, RunJob):
            return job.run, None
        made = self.elsewhere(run_id)
        return (made, None) if made is not None else self.store.read(run_id)

    def lines(self, limit: int, offset: int = 0) -> tuple[list[str], int]:
        """The newest runs' lines in the list (RunSummary JSON, as stored: none parsed), newest first, a
        run not yet ended as the service has it (newer than the store's); and how many are stored."""
        rows, total = self.store.page(limit, offset)
        live = self.live()
        return [live[i].summary().model_dump_json() if i in live else line for i, line in rows], total

    def recent(self) -> list[RunSummary]:
        """The lines a page lists: what a joining page and a poll's change tell it."""
        return [RunSummary.model_validate_json(line) for line in self.lines(RECENT)[0]]

    def live(self) -> dict[str, Run]:
        """The runs not yet ended, by id: newer than what the store holds of them."""
        dispatcher = self.dispatcher
        return {j.id: j.run for j in [dispatcher.current, *dispatcher.queue] if isinstance(j, RunJob)}

    def queued(self) -> list[Run]:
        return [j.run for j in self.dispatcher.queue if isinstance(j, RunJob)]

    def current(self) -> Run | None:
        job = self.dispatcher.current
        return job.run if isinstance(job, RunJob) else None

    def cancel(self, run_id: str) -> Run | None:
        """Cancel a run queued or running (Dispatcher.cancel: the ranks stop between iterations,
        runner.py)."""
        job = self.dispatcher.find(run_id)
        if not isinstance(job, RunJob):
            return self.find(run_id)  # ended, or none: nothing to cancel
        self.dispatcher.cancel(job)
        return job.run


async def runs_of(conn: HTTPConnection) -> Runs:
    return conn.app.state.runs


def nonsense(event, run: Run) -> str | None:
    """Why a rank's step or result cannot be taken into the run, or None. Steps and chunks are
    the plan's (a step beyond it would make one small frame allocate a billion); a time that is not a number
    of seconds a run could take (NaN, 1e308) has no place in a trace, a chart or a fit."""
    if isinstance(event, StepEvent):
        if not 0 <= event.step < len(run.steps):
            return (
                f"rank {event.rank} reported step {event.step}, "
                f"outside the run's {len(run.steps)} planned steps"
            )
        if not fits(event.states, run.chunk_bounds):
            return f"rank {event.rank} reported a chunk the run's buffer does not have (step {event.step})"
        times: tuple[float, ...] = (event.t0, event.t1)
    elif isinstance(event, RunFinished):
        if not fits(event.output, run.chunk_bounds):
            return f"rank {event.rank} ended with a chunk the run's buffer does not have"
        timings = event.timings
        if (
            len(timings.iterations) > run.spec.iterations
            or len(timings.steps) > len(run.steps)
            or len(timings.starts) > len(timings.iterations)
        ):
            return (
                f"rank {event.rank} reported {len(timings.iterations)} iterations "
                f"and {len(timings.steps)} steps; "
                f"the run has {run.spec.iterations} and {len(run.steps)}"
            )
        if not all(
            0 <= n <= MAX_BYTES for n in (event.bytes_sent, event.bytes_received, event.checksum or 0)
        ):
            return f"rank {event.rank} reported bytes or a checksum outside 0 to 2^64"
        if not all(t >= 0 for t in timings.iterations):
            return f"rank {event.rank} reported an iteration that took negative time"
        times = (*timings.iterations, *timings.steps, *timings.starts)
    else:
        return None
    if not all(-MAX_SECONDS <= t <= MAX_SECONDS for t in times):  # NaN fails both
        return f"rank {event.rank} reported a time that is not a number of seconds within ±{MAX_SECONDS:g}"
    return None
