"""The polls this server holds: the newest MAX_LIVE in memory with their votes (older ones are read
from the file and take no votes), each saved whenever it changes and told to every page, and the
shape of each one's run (a question of speed holds every run of that shape: holding.py)."""

from __future__ import annotations

from collections.abc import Callable

from ringside.server.door.audience import Feed
from ringside.server.polls.messages import PollMessage
from ringside.server.polls.poll import PollRecord, PollState
from ringside.server.polls.store import PollStore
from ringside.server.polls.timer import Timer
from ringside.server.runs.messages import RecentMessage
from ringside.server.runs.run import Run, RunSummary

MAX_LIVE = 64  # polls held in memory (their votes too); older ones are read from the file and take no votes


class PollBook:
    def __init__(self, store: PollStore, feed: Feed, timer: Timer, listed: Callable[[], list[RunSummary]]):
        """`timer`: the polls that close at a time (a poll no longer held takes no votes, nor closes);
        `listed`: the run list's newest lines (runs.service.Runs.recent)."""
        self.store, self.feed, self.timer, self.listed = store, feed, timer, listed
        # polls opened since the server started: read from here, not the file
        self.live: dict[str, PollRecord] = {}
        self.current: str | None = None  # the newest, what a page that (re)loads is shown
        # each live poll's run's shape (collective, count, dtype, P): a `faster` poll holds every run of it
        self.shapes: dict[str, tuple] = {}
        self.raced: dict[str, set[str]] = {}  # a `faster` poll's runs of its shape made while it holds
        self.number = store.last_number()

    def next_id(self) -> str:
        return f"p-{self.number + 1:06d}"

    def add(self, record: PollRecord, run: Run | None) -> None:
        """A new poll (named by next_id), about `run` (a custom question may have none): held from here."""
        self.number += 1
        self.keep(record, run)

    def keep(self, record: PollRecord, run: Run | None) -> None:
        self.live[record.poll.id], self.current = record, record.poll.id
        if run is not None:
            self.shapes[record.poll.id] = run.shape()
        while len(self.live) > MAX_LIVE:  # the oldest is closed, its last votes saved
            closed = self.live.pop(next(iter(self.live)))
            self.shapes.pop(closed.poll.id, None)
            self.raced.pop(closed.poll.id, None)
            self.timer.stop(closed.poll.id)
            self.save(closed)

    def save(self, record: PollRecord) -> None:
        self.store.save(record)

    def tell(self, record: PollRecord) -> None:
        """Every page hears the poll as it is now (the room as Poll.for_room says), and the run list
        again: what the room may read of its lines changes with the poll."""
        self.feed.publish(PollMessage(poll=record.shown()))
        self.feed.publish(RecentMessage(runs=self.listed()))

    def fail(self, record: PollRecord, why: str) -> None:
        record.fail(why)
        self.save(record)
        self.tell(record)

    # --- what a page reads ------------------------------------------------------------------------

    def find(self, poll_id: str) -> PollRecord | None:
        """A poll of this server (in memory) or of an earlier one (in the file)."""
        if poll_id in self.live:
            return self.live[poll_id]
        return self.store.get(poll_id)

    def newest(self, presenter: bool) -> PollRecord | None:
        """The newest poll this page may see: what a page that (re)loads is shown (the room's
        skips one whose run is running, and one that failed there)."""
        if presenter:
            return self.live.get(self.current) if self.current else None
        hidden = (PollState.RUNNING, PollState.FAILED)
        return next((r for r in reversed(self.live.values()) if r.poll.state not in hidden), None)

    def of_run(self, run_id: str) -> list[PollRecord]:
        ids = dict.fromkeys(
            self.store.ids_of_run(run_id) + [p for p, r in self.live.items() if r.poll.run_id == run_id]
        )
        return [record for i in ids if (record := self.find(i)) is not None]

    def runs_asked(self) -> set[str]:
        """The runs that polls held in memory ask about, and the newest stored poll's: retention keeps
        them (a live poll still takes votes about its run; the newest poll's number continues the ids)."""
        newest = self.store.newest(1)
        return {i for r in [*self.live.values(), *newest] for i in [r.poll.run_id, *r.poll.runs] if i}
