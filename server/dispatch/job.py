"""What the dispatcher runs: a job holds the cluster for a while (a run, a training, a bench).
Its kind says what the ranks are sent, which of their events are its own, how it ends and
what it stores; every kind's record carries a JobState."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from enum import Enum
from typing import ClassVar, Protocol

from pydantic import BaseModel

from ringside.worker_agent.core.protocol import Message


class JobState(str, Enum):
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


ENDED_STATES = [JobState.DONE, JobState.FAILED, JobState.CANCELLED, JobState.INTERRUPTED]


class JobEvent(Protocol):
    """A rank's event about a job: it names the job (an error may come before any job)."""

    @property
    def run_id(self) -> str | None: ...


class Job(ABC):
    """One job of some kind around its record (a Run, a Training): the record carries its
    id, state, error, cancel_requested and which ranks have not finished; the kind says the rest."""

    kind: ClassVar[str]  # "run", "training": in the words the dispatcher says of it
    queues: ClassVar[bool] = True  # waits behind others; False: refused while the cluster is held
    events: ClassVar[tuple[type[JobEvent], ...]]  # the worker events that belong to a job of this kind

    def __init__(self, record):
        self.record = record

    @property
    def id(self) -> str:
        return self.record.id

    @abstractmethod
    def save(self, landed: Callable[[], None]) -> None:
        """Store the record as it is; `landed` is called once it is in the file (db/writer.py)."""

    @abstractmethod
    def command(self) -> Message:
        """What every rank is sent to start it."""

    @abstractmethod
    def allowed_s(self) -> float:
        """How long its ranks may take before it fails."""

    @abstractmethod
    def begin(self) -> None:
        """It is about to run: mark it running, store it, tell the viewers."""

    @abstractmethod
    def take(self, event) -> None:
        """One event of its own from a rank."""

    @abstractmethod
    def end(self, state: JobState, error: str | None) -> None:
        """It has ended (or was cancelled while queued, or interrupted): conclude, store, tell."""


class CancelAnswer(BaseModel):
    """What a cancel of a job says: it stops at its ranks' next check, or was cancelled at once."""

    id: str
    state: JobState
    cancel_requested: bool
