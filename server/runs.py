"""A run as the server keeps it: what was asked, how it is laid out, what each rank
did and what it cost. One type, `Run`, whose JSON is what viewers, the store, the
trace and `ringside run` read; its state is a `RunState`.

The server plans a run when it is created (schedule, chunks, layout hint, a
skeleton per step), so only the ranks' inputs, steps and results arrive later. Traced
send/recv code has no schedule until it has run: its ranks rebuild one from what the code
did (traced.py) and bring it in their RunStarted, and the run takes it then."""

from __future__ import annotations

import statistics
import time
from enum import Enum
from typing import Literal, Optional

from pydantic import BaseModel, model_validator

from ringside.worker_agent.core import catalog, provenance, simulate
from ringside.worker_agent.core.algorithms import algorithm_of
from ringside.worker_agent.core.collectives import get
from ringside.worker_agent.core.protocol import MAX_STEPS, MAX_TRANSFERS, CallTime, ChunkState, ErrorEvent, RunCancelled, RunFinished, RunSpec, RunStarted, StepEvent, Timings
from ringside.worker_agent.core.schedule import Schedule

from . import stage_data
from .guard import bounded
from .wavefront import Perturbed


class RunState(str, Enum):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"
    INTERRUPTED = "interrupted"

    def __str__(self) -> str:
        return self.value

    @property
    def ended(self) -> bool:
        return self in ENDED_STATES


ENDED_STATES = [RunState.DONE, RunState.FAILED, RunState.CANCELLED, RunState.INTERRUPTED]


class RankStep(BaseModel):
    """One rank's report of one step: when it ran (seconds since the run's start on that
    rank) and the chunks of its buffer that the step changed."""

    t0: float
    t1: float
    states: list[ChunkState] = []


class Step(BaseModel):
    """A step of the schedule (planned at submit) and what each rank reported of it."""

    step: int
    phase: str = ""
    caption: str = ""
    transfers: list[list[int]] = []  # [src, dst, chunk, into, reduce], global ranks
    ranks: dict[str, RankStep] = {}


class RankResult(BaseModel):
    """A rank's RunFinished, less its envelope."""

    output: list[ChunkState] = []
    checksum: Optional[int] = None
    verified: Optional[bool] = None
    max_diff: Optional[float] = None
    tolerance: Optional[float] = None
    mismatches: list[tuple[int, float, float]] = []
    timings: Timings
    bytes_sent: int = 0
    bytes_received: int = 0


class Link(BaseModel):
    src: int
    dst: int
    bytes: int


class Traffic(BaseModel):
    """Bytes per rank (keyed by global rank), in all, and on the busiest link."""

    sent: dict[str, int]
    received: dict[str, int]
    total: int
    busiest_link: Optional[Link]


class Layout(BaseModel):
    """How a viewer places the ranks (catalog.layout_of): global ranks."""

    shape: Literal["ring", "tree", "star", "grid", "servers"] = "ring"
    root: Optional[int] = None
    servers: list[int] = []


class Departure(BaseModel):
    """Where a wrong result began (provenance.first_departure): the step (0-based), the rank
    (global) and the chunk, and the words a viewer reads."""

    step: int
    rank: int
    chunk: int
    words: str


class RunSummary(BaseModel):
    """What a run list shows: no steps, no states."""

    id: str
    state: RunState
    created_at: float
    started_at: Optional[float]
    finished_at: Optional[float]
    error: Optional[str]
    verified: Optional[bool]
    time: Optional[float]
    algbw: Optional[float]
    busbw: Optional[float]
    group: list[int]
    collective: str
    algorithm: str
    count: int
    dtype: str
    purpose: str = "show"  # "sweep": one measurement of many, never put on stage by itself


class Run(BaseModel):
    id: str
    state: RunState = RunState.QUEUED
    spec: RunSpec
    created_at: float
    started_at: Optional[float] = None
    finished_at: Optional[float] = None
    error: Optional[str] = None
    cancel_requested: bool = False
    cancelled_ranks: list[int] = []
    backend: str
    world_size: int
    group: list[int]
    op: Optional[str] = None  # the op its reductions apply (a barrier's own); None: it only moves data
    layout: Optional[Layout] = None  # filled on load for runs stored before layouts were kept
    schedule: Optional[dict] = None  # Schedule.to_json in global ranks; None for native
    chunk_bounds: list[tuple[int, int]] = []
    inputs: dict[str, list[ChunkState]] = {}  # each rank's buffer before step 0, from its RunStarted
    input_chunks: dict[str, list[int]] = {}
    steps: list[Step] = []
    results: dict[str, RankResult] = {}
    verified: Optional[bool] = None
    time: Optional[float] = None  # the slowest rank's median iteration, seconds
    algbw: Optional[float] = None
    busbw: Optional[float] = None
    traffic: Optional[Traffic] = None
    departure: Optional[Departure] = None  # traced code with a wrong result: where it began (_departure)
    calls: dict[str, list[CallTime]] = {}  # traced code: each rank's point-to-point calls, for where it blocked
    perturbed: Optional[Perturbed] = None  # a perturbed run's predicted extra time and hang wavefront (wavefront.py)
    display: Optional[dict] = None  # what the stage draws that differs by collective (stage_data.py)
    choice: Optional[dict] = None  # what `auto` chose (algorithm, chunks), why, and every candidate's predicted time (model.resolve)
    prediction: Optional[dict] = None  # the model's time for it, made when it ended done (model.prediction_of)
    sharing: list = []  # hosts whose ranks outnumbered their cores when it ran: [[ranks], cores] (simulate.Sharing)

    @model_validator(mode="after")
    def _plan_old_run(self) -> "Run":
        """A run stored before runs carried their layout and op gets them when read, so a
        viewer draws every run alike."""
        if self.layout is None:
            self.op = get(self.spec.collective).op(self.spec)
            try:
                self.layout = Layout(**catalog.layout_of(self.spec, self.world_size))
            except ValueError:  # an algorithm this version no longer has
                self.layout = Layout()
        return self

    def summary(self) -> RunSummary:
        spec = self.spec
        return RunSummary(**self.model_dump(include=set(RunSummary.model_fields)), collective=spec.collective,
                          algorithm=spec.algorithm, count=spec.count, dtype=spec.dtype, purpose=spec.purpose)

    # --- what the ranks report ------------------------------------------------

    def started(self) -> bool:
        """Every rank of the group has sent its RunStarted (asked at every step: kept cheap)."""
        return len(self.inputs) == len(self.group)

    def on_started(self, event: RunStarted) -> None:
        if event.rank not in self.group:
            return
        if algorithm_of(self.spec.collective, self.spec.algorithm).traced:
            why = self._learn(event)
            if why is not None:
                self.on_error(ErrorEvent(run_id=self.id, rank=event.rank, message=why))
                return
            self.input_chunks[str(event.rank)] = [c for c in event.input_chunks if 0 <= c < len(self.chunk_bounds)]
            self.calls[str(event.rank)] = event.calls
        if not fits(event.inputs, self.chunk_bounds):
            self.on_error(ErrorEvent(run_id=self.id, rank=event.rank, message=f"rank {event.rank} started with a chunk "
                                                                              "the run's buffer does not have"))
            return
        self.inputs[str(event.rank)] = event.inputs

    def _learn(self, event: RunStarted) -> str | None:
        """Take the schedule that traced code made from the first rank that brings it, with its
        chunks and a skeleton per step; or say why it cannot be taken (and nothing is)."""
        if self.schedule is not None or event.schedule is None:
            return None
        plan, bounds = event.schedule, event.chunk_bounds
        collective = get(self.spec.collective, self.spec.servers)
        values = collective.blocks(len(self.group)) * collective.count(self.spec)
        try:  # every question asked of it inside: a forged plan's `root: [0]` or `pieces: 1e300` is as unreadable
            steps = [Step(step=i, phase=str(s["phase"]), caption=str(s["caption"]), transfers=s["transfers"])
                     for i, s in enumerate(plan["steps"][:MAX_STEPS + 1])]
            blocks, chunks = int(plan["blocks"]), int(plan["blocks"]) * int(plan["pieces"])
            if len(steps) <= MAX_STEPS:  # what the run's figures will read it as (conclude)
                Schedule.from_json(plan, self.world_size)
            ok_bounds = 1 <= len(bounds) == chunks <= catalog.MAX_CHUNKS * blocks and bounds[-1][1] == values and \
                all(a == (bounds[i - 1][1] if i else 0) and a <= b for i, (a, b) in enumerate(bounds))
            known = set(self.group)
            transfers = [t for s in steps for t in s.transfers]
            outside = len(steps) > MAX_STEPS or len(transfers) > MAX_TRANSFERS or not ok_bounds or \
                type(plan["root"]) is not int or plan["root"] not in known or any(
                    len(t) != 5 or t[0] not in known or t[1] not in known or not (0 <= t[2] < chunks and 0 <= t[3] < chunks)
                    for t in transfers)
        except (KeyError, TypeError, ValueError, OverflowError):
            return f"rank {event.rank} sent a traced schedule that cannot be read"
        if outside:
            return f"rank {event.rank} sent a traced schedule outside the run's ranks, chunks or limits"
        self.schedule, self.steps, self.chunk_bounds = plan, steps, [tuple(b) for b in bounds]
        return None

    def on_step(self, event: StepEvent) -> RankStep:
        entry = RankStep(t0=event.t0, t1=event.t1, states=event.states)
        self.steps[event.step].ranks[str(event.rank)] = entry  # a step of the plan (hub.nonsense)
        return entry

    def on_finished(self, event: RunFinished) -> None:
        self.results[str(event.rank)] = RankResult.model_validate(event, from_attributes=True)

    def on_error(self, event: ErrorEvent) -> None:
        if self.error is None:  # cut short: a rank's words are shown to every viewer and kept
            self.error = bounded(event.message if event.field is None else f"{event.field}: {event.message}", 1000)

    def on_cancelled(self, event: RunCancelled) -> None:
        if event.rank not in self.cancelled_ranks:
            self.cancelled_ranks.append(event.rank)

    def unfinished(self) -> list[int]:
        """Group ranks that have neither finished nor stopped on a cancel."""
        return [r for r in self.group if str(r) not in self.results and r not in self.cancelled_ranks]

    # --- its end ---------------------------------------------------------------

    def conclude(self, state: RunState, error: str | None = None) -> None:
        """End the run: its final state, and the figures its results give."""
        self.state = RunState.CANCELLED if self.cancel_requested and state == RunState.DONE else state
        self.finished_at = time.time()
        if error and self.error is None:
            self.error = error
        results = list(self.results.values())
        verdicts = [r.verified for r in results if r.verified is not None]
        self.verified = all(verdicts) if verdicts else None
        per_iteration = [r.timings.iterations for r in results if r.timings.iterations]
        if per_iteration and len({len(t) for t in per_iteration}) == 1:
            self.time = statistics.median(max(ts) for ts in zip(*per_iteration))
            collective, p = get(self.spec.collective, self.spec.servers), len(self.group)
            size = collective.message_bytes(collective.count(self.spec), catalog.ITEMSIZE[collective.dtype(self.spec)], p)
            self.algbw = size / self.time if self.time > 0 else None
            self.busbw = self.algbw * collective.bus_factor(p) if self.algbw is not None else None
        self.traffic = self._traffic()
        self.departure = self._departure()
        self.display = stage_data.measure(
            self.display, self.spec.root, [s.transfers for s in self.steps], self.chunk_bounds,
            {int(r): res.bytes_sent for r, res in self.results.items()}, {int(r): res.bytes_received for r, res in self.results.items()})

    def _departure(self) -> Departure | None:
        """For traced code whose result is wrong: the first step where a rank's buffer departs
        from what the collective requires (provenance.first_departure), in global ranks. Other
        schedules are checked before they run, so their results are never wrong this way."""
        if self.verified is not False or self.schedule is None or \
                not algorithm_of(self.spec.collective, self.spec.algorithm).traced:
            return None
        local = {g: i for i, g in enumerate(self.group)}
        plan = {**self.schedule, "root": local[self.schedule["root"]],
                "steps": [{**s, "transfers": [[local[a], local[b], c, i, r] for a, b, c, i, r in s["transfers"]]}
                          for s in self.schedule["steps"]]}
        peer = local[catalog.peer_of(self.spec, self.group)]
        found = provenance.first_departure(Schedule.from_json(plan, len(self.group)), self.group, peer)
        return None if found is None else Departure(**vars(found))

    def _traffic(self) -> Traffic | None:
        """Counted by the simulator over the run's schedule in global ranks. None for a
        native run: only the backend knows its wires."""
        if self.schedule is None:
            return None
        collective = get(self.spec.collective)
        schedule = Schedule.from_json(self.schedule, self.world_size)
        moved = simulate.traffic(schedule, collective.count(self.spec), catalog.ITEMSIZE[collective.dtype(self.spec)]).to_json()
        return Traffic(sent={str(r): moved["sent"][r] for r in self.group},
                       received={str(r): moved["received"][r] for r in self.group},
                       total=moved["total"], busiest_link=moved["busiest_link"])


def fits(states: list[ChunkState], bounds: list) -> bool:
    """What the plan lets a buffer hold: a forged report must not grow the run (a chunk past the
    end, or more values than a chunk has, would make one small frame allocate a billion)."""
    return len(states) <= len(bounds) and all(
        0 <= s.chunk < len(bounds) and len(s.values or ()) <= bounds[s.chunk][1] - bounds[s.chunk][0] for s in states)


def new_run(run_id: str, spec: RunSpec, backend: str, world_size: int) -> Run:
    """A queued run, planned: its schedule, chunks, layout and a skeleton per step. The spec
    must be valid (catalog.validate)."""
    plan = catalog.plan(spec, world_size)
    steps = [Step(step=i, phase=s["phase"], caption=s["caption"], transfers=s["transfers"])
             for i, s in enumerate(plan["steps"] if plan else [])]
    return Run(
        id=run_id, spec=spec, created_at=time.time(), backend=backend, world_size=world_size,
        group=catalog.group_of(spec, world_size), op=get(spec.collective).op(spec),
        layout=catalog.layout_of(spec, world_size), schedule=plan,
        chunk_bounds=catalog.chunk_bounds(spec, world_size),
        input_chunks={str(r): chunks for r, chunks in catalog.input_chunks(spec, world_size).items()},
        steps=steps, display=stage_data.display(spec, world_size),
    )
