"""What viewers hear of a run (viewers/messages.py lists every message in the order a run makes
them): its line when the queue changes, the whole run once every rank has started and again when it
ends, and each rank's step between. Each is held from the room while a poll holds its run."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import BaseModel

from ringside.server.door.audience import Audience, RunNamed
from ringside.server.runs.run import Run, RunSummary
from ringside.worker_agent.core.protocol import ChunkState


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
