"""What a job that every rank runs to its end (a training, a bench) keeps of its ranks: who
finished, who stopped on a cancel, the first error a rank told, and how the job ended."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from pydantic import BaseModel

from ringside.server.dispatch.job import JobState
from ringside.server.door.guard import bounded
from ringside.worker_agent.core.protocol import ErrorEvent, RunCancelled


class RankedRecord(BaseModel):
    """A mixin of such a job's record; its class holds world_size, state, error, cancel_requested
    and finished_at where its API shows them."""

    if TYPE_CHECKING:  # the record's own fields, in the order its API shows them
        world_size: int
        state: JobState
        error: str | None
        cancel_requested: bool
        finished_at: float | None

    finished_ranks: list[int] = []
    cancelled_ranks: list[int] = []  # stopped at the same point on a cancel

    def unfinished(self) -> list[int]:
        return [
            r
            for r in range(self.world_size)
            if r not in self.finished_ranks and r not in self.cancelled_ranks
        ]

    def finished(self, rank: int) -> None:
        if rank not in self.finished_ranks:
            self.finished_ranks.append(rank)

    def on_error(self, event: ErrorEvent) -> None:
        if self.error is None:
            self.error = bounded(
                event.message if event.field is None else f"{event.field}: {event.message}", 1000
            )

    def on_cancelled(self, event: RunCancelled) -> None:
        if event.rank not in self.cancelled_ranks:
            self.cancelled_ranks.append(event.rank)

    def ended(self, state: JobState, error: str | None) -> None:
        """Done is cancelled where a cancel was asked; the dispatcher's account of a failure (a
        lost rank) says more than a rank's own words."""
        self.state = JobState.CANCELLED if self.cancel_requested and state == JobState.DONE else state
        self.finished_at = time.time()
        if error:
            self.error = bounded(error, 1000)
