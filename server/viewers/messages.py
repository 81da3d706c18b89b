"""What viewers receive over /ws, in the order a run produces them:

- `snapshot` on connect: the cluster, the queue and the run on stage (if any) as it
  stands; a viewer takes that run as if from `run_started` (and a later `run_started`
  for it, sent if not every rank had started yet, replaces it); an audience page's ballot,
  which it votes with (polls/ballots.py);
- `run` (a summary) when the queue changes: a run is queued, or cancelled while queued;
- `run_started` (the full Run) once every rank of its group has started: it carries the
  schedule, layout hint, chunks, inputs and step skeletons, and every step reported so far;
- `step`, one rank's step, for every step reported after `run_started`;
- `run_ended` (the full Run) when it ends, with results and figures (a run that fails
  before `run_started` gets only this);
- `cluster` once a second;
- `wavefront` while a run with a hang is stuck: each rank's last step, and whom it waits for
  (wavefront.py);
- `training` (a training's summary) whenever a training changes state, and `train_step`
  (one step over every rank) as each step completes (trainings/training.py);
- `presenter`, what the presenter's page shows (run, step, playing, speed, the overlay over
  the stage, the training on its charts, the demo whose result line it says), whenever it
  changes; audience pages that follow the presenter mirror it (the snapshot carries the
  latest, for a late joiner);
- `poll` and `tally`: a poll asked, opened, closed or revealed; how many voted (polls/service.py).
- `practice`, to the presenter's pages alone: how the phones practising a run did, per step
  (practice/service.py).

What the room hears of each, while a poll holds runs, is polls/visibility.py's to say. So a
live viewer never needs GET /api/runs/{id}, but for a run a poll held from it."""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, model_serializer

from ringside.server.door.audience import Audience, RunNamed
from ringside.server.lessons.lesson import MAX_STAGES
from ringside.server.runs.run import Run, RunSummary
from ringside.worker_agent.core.protocol import ChunkState

Id = Annotated[str, Field(pattern=r"^[A-Za-z0-9_-]{1,40}$")]


class PresenterMessage(BaseModel):
    """The presenter's view, as its page sends it over /ws (socket.py checks it) and as
    every viewer hears it. step -1: the run's inputs. Ids name what a viewer fetches itself
    (a run, a training): the presenter's page sends no content, only which. The room hears none of
    a run whose poll's runs still run (when it came on stage would tell when a run before it ended)."""

    audience: ClassVar[Audience] = Audience.HELD_WHILE_RUNNING
    model_config = ConfigDict(extra="forbid", strict=True)
    type: Literal["presenter"] = "presenter"
    run_id: Id
    step: int = Field(ge=-1, le=1_000_000)
    playing: bool
    speed: float = Field(ge=0.05, le=20)
    # what covers the stage (keys C, T, J; M: the seed's formulas, counting what each counts,
    # the total, the busiest link), or nothing
    overlay: Literal["compare", "training", "jobs", "formulas", "formulas:total", "formulas:link"] | None = (
        None
    )
    training: Id | None = None  # the training on the charts
    job: Id | None = None  # the watched job open in the jobs view
    demo: list[Id] = Field(default=[], max_length=4)  # the lecture demo's runs (key D): their result line
    lesson: int | None = Field(None, ge=0, lt=MAX_STAGES)  # the lesson's stage shown (key U), 0-based

    @model_serializer(mode="wrap")
    def _unset_left_out(self, write):
        """What is not shown is not said: a frame a phone hears on every step stays short."""
        return {k: v for k, v in write(self).items() if v is not None and v != []}

    def concerns(self) -> tuple[RunNamed, ...]:
        return (RunNamed(self.run_id),)


class SnapshotMessage(BaseModel):
    """Made for one page, as it may read it (socket.snapshot asks visibility): never published."""

    audience: ClassVar[Audience] = Audience.PAGE
    type: Literal["snapshot"] = "snapshot"
    role: Literal["viewer", "presenter"]
    cluster: dict
    queue: list[RunSummary]  # the next queued runs (socket.SNAPSHOT_QUEUE at most)
    queued: int = 0  # how many are queued in all
    current: Run | None
    presenter: PresenterMessage | None = None
    ballot: str | None = None  # an audience page's: what it votes with while this socket is open


class SummaryMessage(BaseModel):
    audience: ClassVar[Audience] = Audience.HELD
    type: Literal["run"] = "run"
    run: RunSummary

    def concerns(self) -> tuple[RunNamed, ...]:
        return (RunNamed(self.run.id, self.run.shape()),)


class StartedMessage(BaseModel):
    audience: ClassVar[Audience] = Audience.HELD
    type: Literal["run_started"] = "run_started"
    run: Run

    def concerns(self) -> tuple[RunNamed, ...]:
        return (RunNamed(self.run.id, self.run.shape()),)


class StepMessage(BaseModel):
    """Each step's arrival is a time: held with its run."""

    audience: ClassVar[Audience] = Audience.HELD
    type: Literal["step"] = "step"
    run_id: str
    step: int
    rank: int
    t0: float
    t1: float
    states: list[ChunkState]

    def concerns(self) -> tuple[RunNamed, ...]:
        return (RunNamed(self.run_id),)


class EndedMessage(BaseModel):
    """A held run's end is a time too: the room hears nothing of it."""

    audience: ClassVar[Audience] = Audience.HELD
    type: Literal["run_ended"] = "run_ended"
    run: Run

    def concerns(self) -> tuple[RunNamed, ...]:
        return (RunNamed(self.run.id, self.run.shape()),)


class ClusterMessage(BaseModel):
    """Cluster.to_json's fields (cluster/cluster.py), whatever it adds besides these."""

    audience: ClassVar[Audience] = Audience.EVERYONE
    model_config = ConfigDict(extra="allow")
    type: Literal["cluster"] = "cluster"
    backend: str | None
    world_size: int
    ranks: list[dict]
