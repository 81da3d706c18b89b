"""What viewers receive over /ws, in the order a run produces them (each message type lives with
its feature and declares who may hear it: door/audience.py):

- `snapshot` on connect: the cluster, the queue, the run list's newest lines and the run on stage
  (if any) as it stands; a viewer takes that run as if from `run_started` (and a later
  `run_started` for it, sent if not every rank had started yet, replaces it); an audience page's
  ballot, which it votes with (polls/ballots.py);
- `run` (a run's line in the list) when the queue changes: a run is queued, or cancelled while
  queued (runs/messages.py);
- `run_started` (the full Run) once every rank of its group has started: it carries the
  schedule, layout hint, chunks, inputs and step skeletons, and every step reported so far;
- `step`, one rank's step, for every step reported after `run_started`;
- `run_ended` (the full Run) when it ends, with results and figures (a run that fails
  before `run_started` gets only this);
- `runs`, the run list's newest lines, whenever a poll changes what the room may read of them;
- `cluster` once a second (cluster/workers.py);
- `wavefront` while a run with a hang is stuck: each rank's last step, and whom it waits for
  (runs/wavefront.py);
- `training` (a training's summary) whenever a training changes state, and `train_step`
  (one step over every rank) as each step completes (trainings/training.py);
- `presenter`, what the presenter's page shows (run, step, playing, speed, the overlay over
  the stage, the training on its charts, the demo whose result line it says), whenever it
  changes; audience pages that follow the presenter mirror it (the snapshot carries the
  latest, for a late joiner: lecture/presenter.py);
- `shown_run` (the full Run) just before a `presenter` view that opens a run other than the one
  shown (an earlier run): a following page shows it with no GET (runs/messages.py);
- `poll` and `tally`: a poll asked, opened, closed or revealed; how many voted (polls/messages.py).
- `practice`, to the presenter's pages alone: how the phones practising a run did, per step
  (practice/tally.py);
- `job`, `job_collectives`, `job_hang`: a watched job (watched/service.py).

What the room hears of each, while a poll holds runs, is polls/visibility.py's to say. So a
live viewer never needs GET /api/runs/{id}, but for a run a poll held from it, nor GET /api/runs."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import BaseModel

from ringside.server.door.audience import Audience
from ringside.server.lecture.presenter import PresenterMessage
from ringside.server.runs.run import Run, RunSummary


class SnapshotMessage(BaseModel):
    """Made for one page, as it may read it (socket.snapshot asks visibility): never published."""

    audience: ClassVar[Audience] = Audience.PAGE
    type: Literal["snapshot"] = "snapshot"
    role: Literal["viewer", "presenter"]
    cluster: dict
    queue: list[RunSummary]  # the next queued runs (socket.SNAPSHOT_QUEUE at most)
    queued: int = 0  # how many are queued in all
    current: Run | None
    # the run list's newest lines (runs/messages.RECENT), as this page may read them
    recent: list[RunSummary] = []
    presenter: PresenterMessage | None = None
    ballot: str | None = None  # an audience page's: what it votes with while this socket is open
