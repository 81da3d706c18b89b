"""The polls of a lecture built in-process as app.py builds them, over small fakes of their neighbours:
the runs (fake_runs.py), a feed that records what it is told, a clock whose timers the test runs; the
ballots and the poll store are the real ones, over a SQLite file of the test's."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from fake_runs import FakeRuns
from pydantic import BaseModel

from ringside.server.db.database import Database
from ringside.server.polls.ballots import Ballots
from ringside.server.polls.poll import Poll
from ringside.server.polls.questions import PollSpec
from ringside.server.polls.service import Polls
from ringside.server.polls.store import PollStore
from ringside.server.polls.visibility import Visibility

ADDRESS = "10.0.0.1"  # where a test's pages connect and vote from, unless it says


class RecordedFeed:
    """The fan-out, as a service publishes to it: every message kept, in order."""

    def __init__(self) -> None:
        self.published: list[BaseModel] = []

    def publish(self, message: BaseModel) -> None:
        self.published.append(message)

    def of(self, kind: str) -> list:
        return [m for m in self.published if m.type == kind]


@dataclass
class Due:
    delay: float
    then: Callable
    args: tuple
    cancelled: bool = False

    def cancel(self) -> None:
        self.cancelled = True


@dataclass
class Clock:
    """The event loop's timers in the test's hands: what was asked to run, after how long, run when
    the test says (nothing waits on the clock)."""

    due: list[Due] = field(default_factory=list)

    def later(self, delay: float, then: Callable, *args) -> Due:
        self.due.append(Due(delay, then, args))
        return self.due[-1]

    def pending(self) -> list[Due]:
        return [d for d in self.due if not d.cancelled]

    def run(self) -> None:
        """Every timer set so far goes off (those they set wait for the next run)."""
        now, self.due = self.due, []
        for d in now:
            if not d.cancelled:
                d.then(*d.args)


class Lecture:
    """Polls, visibility and their neighbours, as one server holds them."""

    def __init__(self, db: Path, runs: FakeRuns | None = None):
        self.database = Database(db)
        self.store = PollStore(self.database)
        self.runs = runs or FakeRuns()
        self.feed, self.clock = RecordedFeed(), Clock()
        self.ballots = Ballots(self.store.ballot_key())
        self.retold = 0
        self.polls = Polls(self.store, self.runs, self.feed, self.ballots, self.retell, self.clock.later)
        self.visibility = Visibility(self.polls.holding, self.polls.book)

    def retell(self) -> None:
        self.retold += 1

    def ask(self, **spec) -> Poll:
        return asyncio.run(self.polls.asking.ask(PollSpec.model_validate(spec)))

    def page(self, kept: str | None = None, at: str = ADDRESS) -> str:
        """A page connects to the lecture from address `at`: the ballot its socket holds."""
        return self.ballots.take(kept, at)

    def stop(self) -> None:
        self.polls.voting.flush()
        self.database.close()
