"""What viewers hear of a run (viewers/messages.py lists every message in the order a run makes
them): its line in the run list when the queue changes, the whole run once every rank has started
and again when it ends, and each rank's step between. Each is held from the room while a poll holds
its run. And the newest lines of the list, whenever a poll changes what the room may read of them:
a page keeps its run list from these (a run's line from the whole run as it starts and ends)."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import BaseModel

from ringside.server.door.audience import Audience, RunNamed
from ringside.server.runs.run import Run, RunSummary
from ringside.worker_agent.core.protocol import ChunkState

RECENT = 30  # the runs a page lists: the snapshot's, and a `runs` message's


class SummaryMessage(BaseModel):
    """A run's line in the list, when the queue changes: a run queued, or cancelled while queued."""

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


class RecentMessage(BaseModel):
    """The newest RECENT lines of the run list, newest first, told when a poll changes what the room
    may read of them (the room reads each as a run list shows it: polls/visibility.py)."""

    audience: ClassVar[Audience] = Audience.RUN_LINES
    type: Literal["runs"] = "runs"
    runs: list[RunSummary]

    def lines(self) -> list[RunSummary]:
        return self.runs

    def with_lines(self, lines: list[dict]) -> RecentMessage:
        return RecentMessage(runs=[RunSummary.model_validate(line) for line in lines])


class ShownMessage(BaseModel):
    """A run the presenter's page opens (an earlier run, not the one it showed), told just before the
    view that names it: every audience page that follows has it at once, serialised once for all
    (each fetching it was a GET per phone, a hall's behind one address past its cap). Held with its run:
    a page the room may read a held copy of fetches that copy, as it did."""

    audience: ClassVar[Audience] = Audience.HELD
    type: Literal["shown_run"] = "shown_run"
    run: Run

    def concerns(self) -> tuple[RunNamed, ...]:
        return (RunNamed(self.run.id, self.run.shape()),)
