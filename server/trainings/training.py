"""A training run as the server keeps it: what was asked, every step's row (the ranks'
reports merged as the last one arrives), the held-out figures and the chapter's
trade-off at the end. Its state is a JobState, as a collective run's is.

Each step's gradient sync (a rank's SyncCapture) is kept beside it, not in it
(store.py), and becomes a Run on request (`sync_run`), so the stage steps
through it like any collective run: an all_reduce, or a parameter server's pull and push."""

from __future__ import annotations

import re
import time
from typing import ClassVar, Literal

from pydantic import BaseModel

from ringside.server.dispatch.job import JobState
from ringside.server.dispatch.ranked import RankedRecord
from ringside.server.door.audience import Audience
from ringside.server.runs.run import RankResult, RankStep, Run, new_run
from ringside.worker_agent.core.protocol import (
    Real,
    RunSpec,
    SyncCapture,
    Timings,
    TrainFinished,
    TrainSpec,
    TrainStep,
)
from ringside.worker_agent.training.rules import combine_step, methods, parameters, result_of, through_servers


class TrainRank(BaseModel):
    loss: Real | None = None  # Real: a diverged loss (inf, NaN) is kept as the word it crosses JSON as
    accuracy: Real | None = None
    samples: int = 0
    compute_s: Real
    comm_s: Real
    bytes_sent: int | None = None
    bytes_received: int | None = None


class TrainRow(BaseModel):
    """One step over every rank (training.combine_step) and each rank's own report."""

    step: int
    loss: Real
    accuracy: Real
    compute_s: Real
    comm_s: Real
    busiest_link_bytes: int | None
    ranks: dict[str, TrainRank]


class TrainResult(BaseModel):
    step_ms: Real
    comm_share: Real
    busiest_link_bytes: int | None
    final_loss: Real
    test_loss: Real
    test_accuracy: Real


class TrainingSummary(BaseModel):
    id: str
    state: JobState = JobState.QUEUED
    spec: TrainSpec
    world_size: int
    parameters: int
    created_at: float
    finished_at: float | None = None
    error: str | None = None
    cancel_requested: bool = False
    result: TrainResult | None = None


class Training(TrainingSummary, RankedRecord):
    backend: str
    servers: list[int]
    workers: list[int]
    started_at: float | None = None
    steps: list[TrainRow] = []
    evaluation: dict[str, tuple[Real, Real]] = {}  # worker rank -> held-out (loss, accuracy)

    def summary(self) -> TrainingSummary:
        return TrainingSummary(**self.model_dump(include=set(TrainingSummary.model_fields)))

    def on_finished(self, event: TrainFinished) -> None:
        self.finished(event.rank)
        if event.test_loss is not None and event.test_accuracy is not None:
            self.evaluation[str(event.rank)] = (event.test_loss, event.test_accuracy)

    def conclude(self, state: JobState, error: str | None = None) -> None:
        self.ended(state, error)
        if state == JobState.DONE and self.steps and self.evaluation:
            rows = [row.model_dump() for row in self.steps]
            self.result = TrainResult(**result_of(rows, *next(iter(self.evaluation.values()))))


class Pending:
    """The ranks' reports of the steps not yet complete, and every step's sync, while a
    training runs (kept out of the Training: the stage needs the syncs, a chart does not)."""

    def __init__(self, world_size: int):
        self.world_size = world_size
        self.reports: dict[int, dict[int, TrainStep]] = {}
        self.syncs: dict[int, dict[str, SyncCapture]] = {}

    def add(self, training: Training, event: TrainStep) -> TrainRow | None:
        """Take one rank's report; the step's row once every rank has reported it."""
        reports = self.reports.setdefault(event.step, {})
        reports[event.rank] = event
        if event.sync is not None:
            self.syncs.setdefault(event.step, {})[str(event.rank)] = event.sync
        if len(reports) < self.world_size:
            return None
        del self.reports[event.step]
        ranks = [reports[r] for r in range(self.world_size)]
        row = TrainRow(
            **combine_step(event.step, ranks),
            ranks={
                str(r.rank): TrainRank(**r.model_dump(include=set(TrainRank.model_fields))) for r in ranks
            },
        )
        training.steps.append(row)
        return row


def new_training(training_id: str, spec: TrainSpec, backend: str, world_size: int) -> Training:
    servers = list(range(spec.servers)) if through_servers(spec.method) else []
    return Training(
        id=training_id,
        spec=spec,
        world_size=world_size,
        backend=backend,
        parameters=parameters(spec.hidden),
        created_at=time.time(),
        servers=servers,
        workers=[r for r in range(world_size) if r not in servers],
    )


SYNC_ID = re.compile(r"^(t-\d{6,9})-s(\d{1,9})$")  # the id sync_run gives step k's sync of a training


def sync_spec(training: Training) -> RunSpec:
    """The collective a step's gradient sync is: an all_reduce (SUM) of the flat gradients, or
    the parameter_server collective over the model padded to S equal shards (gradient_sync.py)."""
    spec, sync = training.spec, methods()[training.spec.method]
    if through_servers(spec.method):
        padded = spec.servers * -(-training.parameters // spec.servers)
        return RunSpec(
            collective=sync.collective,
            algorithm=sync.name,
            servers=spec.servers,
            count=padded,
            dtype="float32",
            capture="summary",
        )
    return RunSpec(
        collective=sync.collective,
        algorithm=sync.name,
        count=training.parameters,
        dtype="float32",
        capture="summary",
        chunks=1 if sync.reference else spec.chunks,
    )


def sync_run(training: Training, step: int, syncs: dict[str, SyncCapture]) -> Run:
    """Step `step`'s gradient sync as a finished Run: the ranks' gradients before it, the
    chunks every schedule step wrote, the sums after it, and the bytes each rank moved."""
    spec = sync_spec(training)
    run = new_run(f"{training.id}-s{step}", spec, training.backend, training.world_size)
    run.created_at = run.started_at = training.started_at or training.created_at
    row = training.steps[step]
    for rank, sync in syncs.items():
        run.inputs[rank] = sync.inputs
        for s in sync.steps:
            run.steps[s.step].ranks[rank] = RankStep(t0=s.t0, t1=s.t1, states=s.states)
        mine = row.ranks[rank]
        run.results[rank] = RankResult(
            output=sync.output,
            timings=Timings(iterations=[mine.comm_s]),
            bytes_sent=mine.bytes_sent or 0,
            bytes_received=mine.bytes_received or 0,
        )
    run.conclude(JobState.DONE)
    return run


class TrainingMessage(BaseModel):
    """To every viewer whenever a training changes state."""

    audience: ClassVar[Audience] = Audience.EVERYONE
    type: Literal["training"] = "training"
    training: TrainingSummary


class TrainStepMessage(BaseModel):
    """To every viewer once every rank has reported a training step."""

    audience: ClassVar[Audience] = Audience.EVERYONE
    type: Literal["train_step"] = "train_step"
    id: str
    step: TrainRow
