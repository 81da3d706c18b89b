"""A run as the server keeps it: what was asked, how it is laid out, what each rank
did and what it cost. One type, `Run`, whose JSON is what viewers, the store, the
trace and `ringside run` read; its state is a `JobState`.

The server plans a run when it is created (schedule, chunks, layout hint, a
skeleton per step), so only the ranks' inputs, steps and results arrive later. Traced
send/recv code has no schedule until it has run: its ranks rebuild one from what the code
did (worker_agent/user/traced_run.py) and bring it in their RunStarted, and the run takes it then."""

from __future__ import annotations

import time
from typing import Annotated

from pydantic import BaseModel, model_validator

from ringside.server.dispatch.job import JobState
from ringside.server.door.audience import ANSWER, Answer, only
from ringside.server.door.guard import bounded
from ringside.server.runs import figures, stage_data
from ringside.server.runs.figures import Departure, RunTraffic
from ringside.server.runs.stage_data import Display
from ringside.server.runs.wavefront import Perturbed
from ringside.worker_agent.core import run_shape
from ringside.worker_agent.core.algorithms import Algorithm, algorithm_of
from ringside.worker_agent.core.collectives import get
from ringside.worker_agent.core.protocol import (
    MAX_CHUNKS,
    MAX_STEPS,
    MAX_TRANSFERS,
    CallTime,
    ChunkState,
    ErrorEvent,
    LayoutName,
    PlanDoc,
    Real,
    RunCancelled,
    RunFinished,
    RunSpec,
    RunStarted,
    StepEvent,
    Timings,
)
from ringside.worker_agent.core.schedule import Schedule


class RankStep(BaseModel):
    """One rank's report of one step: when it ran (seconds since the run's start on that
    rank) and the chunks of its buffer that the step changed."""

    t0: float
    t1: float
    states: list[ChunkState] = []


def _premise(asked, step: RunStep) -> bool:
    """Whether a step's reports are a question's premise, not its answer: a question of what a rank
    holds after step k shows the steps before it."""
    return asked.question == "holds" and asked.step is not None and step.step < asked.step


class RunStep(BaseModel):
    """A step of the schedule (planned at submit) and what each rank reported of it."""

    step: int
    phase: str = ""
    caption: str = ""
    transfers: list[list[int]] = []  # [src, dst, chunk, into, reduce], global ranks
    ranks: Annotated[dict[str, RankStep], Answer(kept=_premise)] = {}


class RankResult(BaseModel):
    """A rank's RunFinished, less its envelope."""

    output: list[ChunkState] = []
    checksum: int | None = None
    verified: bool | None = None
    max_diff: float | None = None
    tolerance: float | None = None
    mismatches: list[tuple[int, float, float]] = []
    timings: Timings
    bytes_sent: int = 0
    bytes_received: int = 0


class Place(BaseModel):
    """Where a rank ran: its host and its local rank there (from the cluster registry as the run began)."""

    host: str
    local_rank: int


class Layout(BaseModel):
    """How a viewer places the ranks (run_shape.layout_of): global ranks."""

    shape: LayoutName = "ring"
    root: int | None = None
    servers: list[int] = []


class Candidate(BaseModel):
    algorithm: str
    chunks: int
    time: Real | None = None  # predicted seconds; None where the model cannot say


class Choice(BaseModel):
    """What `auto` chose (model.resolve): what was asked, what was chosen, why, every candidate's
    predicted time, and the model's parameters it was read with."""

    asked: dict[str, int | str]
    algorithm: str
    chunks: int
    label: str
    why: str
    candidates: list[Candidate] = []
    params: dict = {}


class Prediction(BaseModel):
    """The model's time for a run that ended done, made before its own row joined the fit."""

    time: Real | None = None
    measured: Real | None = None
    error: Real | None = None  # (predicted - measured) / measured
    source: str


class RunSummary(BaseModel):
    """What a run list shows: no steps, no states."""

    id: str
    state: JobState
    created_at: float
    # its times, and when it ran (against another run's, it ranks them as their times do)
    started_at: Annotated[float | None, ANSWER]
    finished_at: Annotated[float | None, ANSWER]
    error: str | None
    verified: Annotated[bool | None, ANSWER]
    time: Annotated[float | None, ANSWER]
    algbw: Annotated[float | None, ANSWER]
    busbw: Annotated[float | None, ANSWER]
    group: list[int]
    collective: str
    algorithm: str
    count: int
    dtype: str
    purpose: str = "show"  # "sweep": one measurement of many, never put on stage by itself

    def shape(self) -> tuple[str, int, str, int]:
        """(collective, count, dtype, ranks): what a question of speed compares across algorithms."""
        return self.collective, self.count, self.dtype, len(self.group)


class Run(BaseModel):
    id: str
    state: JobState = JobState.QUEUED
    spec: RunSpec
    created_at: float
    # marked Answer: what a room reads blank while a poll holds the run (door/audience.py); its
    # wall-clock span too: run against another's, it ranks them as their times do
    started_at: Annotated[float | None, ANSWER] = None
    finished_at: Annotated[float | None, ANSWER] = None
    error: str | None = None
    cancel_requested: bool = False
    cancelled_ranks: list[int] = []
    backend: str
    world_size: int
    group: list[int]
    op: str | None = None  # the op its reductions apply (a barrier's own); None: it only moves data
    layout: Layout | None = None  # filled on load for runs stored before layouts were kept
    schedule: PlanDoc | None = None  # in global ranks; None for native (and traced code, until it starts)
    chunk_bounds: list[tuple[int, int]] = []
    inputs: dict[str, list[ChunkState]] = {}  # each rank's buffer before step 0, from its RunStarted
    input_chunks: dict[str, list[int]] = {}
    steps: list[RunStep] = []
    results: Annotated[dict[str, RankResult], ANSWER] = {}
    verified: Annotated[bool | None, ANSWER] = None
    time: Annotated[float | None, ANSWER] = None  # the slowest rank's median iteration, seconds
    algbw: Annotated[float | None, ANSWER] = None
    busbw: Annotated[float | None, ANSWER] = None
    traffic: Annotated[RunTraffic | None, ANSWER] = None
    # traced code with a wrong result: where it began (_departure), read from the results
    departure: Annotated[Departure | None, ANSWER] = None
    # traced code: each rank's point-to-point calls, for where it blocked
    calls: Annotated[dict[str, list[CallTime]], ANSWER] = {}
    # a perturbed run's predicted extra time and hang wavefront (wavefront.py)
    perturbed: Annotated[Perturbed | None, only("faster")] = None
    display: Display | None = None  # what the stage draws that differs by collective (stage_data.py)
    # what `auto` chose, when the run asked it to choose (each candidate's predicted time)
    choice: Annotated[Choice | None, only("faster")] = None
    # the model's time for it, made when it ended done (it carries the measured time)
    prediction: Annotated[Prediction | None, ANSWER] = None
    # hosts whose ranks outnumbered their cores when it ran: [[ranks], cores] (simulate.Sharing)
    sharing: list[tuple[list[int], int]] = []
    # each rank's host and local rank as the run began (traces and metrics name them)
    places: dict[str, Place] = {}

    @model_validator(mode="after")
    def _plan_old_run(self) -> Run:
        """A run stored before runs carried their layout and op gets them when read, so a
        viewer draws every run alike."""
        if self.layout is None:
            self.op = get(self.spec.collective).op(self.spec)
            try:
                self.layout = Layout(**run_shape.layout_of(self.spec, self.world_size))
            except ValueError:  # an algorithm this version no longer has
                self.layout = Layout()
        return self

    def shape(self) -> tuple[str, int, str, int]:
        """As RunSummary.shape."""
        return self.spec.collective, self.spec.count, self.spec.dtype, len(self.group)

    @property
    def algorithm(self) -> Algorithm:
        """Its algorithm's record: what a run is asked about its kind (whether it runs as code, has
        steps planned) is the record's to answer."""
        return algorithm_of(self.spec.collective, self.spec.algorithm)

    def stepwise(self, in_group: bool = False) -> Schedule | None:
        """Its steps as the simulator reads them, in global ranks (group ranks with `in_group`); None
        where it has none: the backend's own call (only the backend knows what it moved), and traced
        code before its ranks brought the schedule they rebuilt."""
        if self.schedule is None:
            return None
        if in_group:
            return Schedule.from_doc(self.schedule, len(self.group), ranks=self.group)
        return Schedule.from_doc(self.schedule, self.world_size)

    def summary(self) -> RunSummary:
        spec = self.spec
        return RunSummary(
            **self.model_dump(include=set(RunSummary.model_fields)),
            collective=spec.collective,
            algorithm=spec.algorithm,
            count=spec.count,
            dtype=spec.dtype,
            purpose=spec.purpose,
        )

    # --- what the ranks report ------------------------------------------------

    def started(self) -> bool:
        """Every rank of the group has sent its RunStarted (asked at every step: kept cheap)."""
        return len(self.inputs) == len(self.group)

    def on_started(self, event: RunStarted) -> None:
        if event.rank not in self.group:
            return
        if self.algorithm.traced:
            why = self._learn(event)
            if why is not None:
                self.on_error(ErrorEvent(run_id=self.id, rank=event.rank, message=why))
                return
            self.input_chunks[str(event.rank)] = [
                c for c in event.input_chunks if 0 <= c < len(self.chunk_bounds)
            ]
            self.calls[str(event.rank)] = event.calls
        if not fits(event.inputs, self.chunk_bounds):
            self.on_error(
                ErrorEvent(
                    run_id=self.id,
                    rank=event.rank,
                    message=f"rank {event.rank} started with a chunk the run's buffer does not have",
                )
            )
            return
        self.inputs[str(event.rank)] = event.inputs

    def _learn(self, event: RunStarted) -> str | None:
        """Take the schedule that traced code made from the first rank that brings it, with its
        chunks and a skeleton per step; or say why it cannot be taken (and nothing is). Its form
        (PlanDoc) was checked where the rank's frame was parsed; here, whether it is this run's: its
        ranks, the chunks its bounds cut, and no larger than a schedule sent as data may be."""
        if self.schedule is not None or event.schedule is None:
            return None
        plan, bounds = event.schedule, event.chunk_bounds
        collective = get(self.spec.collective, self.spec.servers)
        values = collective.blocks(len(self.group)) * collective.count(self.spec)
        chunks, known = plan.blocks * plan.pieces, set(self.group)
        transfers = [t for s in plan.steps for t in s.transfers]
        ok_bounds = (
            1 <= len(bounds) == chunks <= MAX_CHUNKS * plan.blocks
            and bounds[-1][1] == values
            and all(a == (bounds[i - 1][1] if i else 0) and a <= b for i, (a, b) in enumerate(bounds))
        )
        if (
            len(plan.steps) > MAX_STEPS
            or len(transfers) > MAX_TRANSFERS
            or not ok_bounds
            or plan.root not in known
            or any(
                t[0] not in known or t[1] not in known or t[2] >= chunks or t[3] >= chunks for t in transfers
            )
        ):
            return f"rank {event.rank} sent a traced schedule outside the run's ranks, chunks or limits"
        self.schedule, self.chunk_bounds = plan, [(b[0], b[1]) for b in bounds]
        self.steps = [
            RunStep(step=i, phase=s.phase, caption=s.caption, transfers=s.transfers)
            for i, s in enumerate(plan.steps)
        ]
        return None

    def on_step(self, event: StepEvent) -> RankStep:
        entry = RankStep(t0=event.t0, t1=event.t1, states=event.states)
        self.steps[event.step].ranks[str(event.rank)] = entry  # a step of the plan (service.nonsense)
        return entry

    def on_finished(self, event: RunFinished) -> None:
        self.results[str(event.rank)] = RankResult.model_validate(event, from_attributes=True)

    def on_error(self, event: ErrorEvent) -> None:
        if self.error is None:  # cut short: a rank's words are shown to every viewer and kept
            message = event.message if event.field is None else f"{event.field}: {event.message}"
            self.error = bounded(message, 1000)

    def on_cancelled(self, event: RunCancelled) -> None:
        if event.rank not in self.cancelled_ranks:
            self.cancelled_ranks.append(event.rank)

    def unfinished(self) -> list[int]:
        """Group ranks that have neither finished nor stopped on a cancel."""
        return [r for r in self.group if str(r) not in self.results and r not in self.cancelled_ranks]

    # --- its end ---------------------------------------------------------------

    def conclude(self, state: JobState, error: str | None = None) -> None:
        """End the run: its final state, and the figures its results give (figures.py)."""
        self.state = JobState.CANCELLED if self.cancel_requested and state == JobState.DONE else state
        self.finished_at = time.time()
        if error and self.error is None:
            self.error = error
        figures.fill(self)


def fits(states: list[ChunkState], bounds: list) -> bool:
    """What the plan lets a buffer hold: a forged report must not grow the run (a chunk past the
    end, or more values than a chunk has, would make one small frame allocate a billion)."""
    return len(states) <= len(bounds) and all(
        0 <= s.chunk < len(bounds) and len(s.values or ()) <= bounds[s.chunk][1] - bounds[s.chunk][0]
        for s in states
    )


def new_run(run_id: str, spec: RunSpec, backend: str, world_size: int) -> Run:
    """A queued run, planned: its schedule, chunks, layout and a skeleton per step. The spec
    must be valid (validation.validate)."""
    plan = run_shape.plan(spec, world_size)
    steps = [
        RunStep(step=i, phase=s.phase, caption=s.caption, transfers=s.transfers)
        for i, s in enumerate(plan.steps if plan else [])
    ]
    return Run(
        id=run_id,
        spec=spec,
        created_at=time.time(),
        backend=backend,
        world_size=world_size,
        group=run_shape.group_of(spec, world_size),
        op=get(spec.collective).op(spec),
        layout=run_shape.layout_of(spec, world_size),
        schedule=plan,
        chunk_bounds=run_shape.chunk_bounds(spec, world_size),
        input_chunks={str(r): chunks for r, chunks in run_shape.input_chunks(spec, world_size).items()},
        steps=steps,
        display=stage_data.display(spec, world_size),
    )
