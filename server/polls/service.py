"""The polls of a lecture: opened by the presenter about a run, voted on by the pages that
may watch, revealed; every page hears each poll and, a burst of votes at a time, its tally.
The newest MAX_LIVE polls are held in memory with their votes; older ones are read from the
file and take no votes."""

from __future__ import annotations

import asyncio
from typing import Literal

from pydantic import BaseModel
from starlette.requests import HTTPConnection

from ringside.server.door.errors import Busy, found
from ringside.server.polls.poll import Poll, PollRecord, PollSpec, PollState, Vote, ask
from ringside.server.polls.store import PollStore
from ringside.server.runs.run import Run
from ringside.server.runs.store import RunStore
from ringside.server.viewers.fanout import Fanout

TALLY_S = 0.25  # a burst of votes is told to the pages at most this often
MAX_LIVE = 64  # polls held in memory (their votes too); older ones are read from the file and take no votes


class PollMessage(BaseModel):
    type: Literal["poll"] = "poll"
    poll: Poll


class TallyMessage(BaseModel):
    type: Literal["tally"] = "tally"
    poll_id: str
    counts: list[int]
    votes: int


def shape(run: Run) -> tuple:
    """What a `faster` question compares across algorithms: (collective, count, dtype, P)."""
    return run.spec.collective, run.spec.count, run.spec.dtype, len(run.group)


class Polls:
    def __init__(self, store: PollStore, run_store: RunStore, fanout: Fanout):
        """`run_store`: the stored runs a question is asked of (and that a `faster` one compares)."""
        self.store, self.run_store, self.fanout = store, run_store, fanout
        # polls opened since the server started: read from here, not the file
        self.live: dict[str, PollRecord] = {}
        self.current: str | None = None  # the newest, what a page that (re)loads is shown
        self.telling: set[str] = set()  # polls whose tally is due to be told
        # each live poll's run's shape (collective, count, dtype, P): a `faster` poll holds every run of it
        self.shapes: dict[str, tuple] = {}
        self.number = store.last_number()
        self._carry_on()

    def _carry_on(self) -> None:
        """A restarted server carries on with the newest polls left open: they hold their runs,
        take votes and are revealed as before (else a poll was open for ever and its run read whole)."""
        for record in self.store.newest(MAX_LIVE):
            run = self.run_store.get(record.poll.run_id)
            if record.poll.state is PollState.OPEN and run is not None:
                self.live[record.poll.id], self.current = record, record.poll.id
                self.shapes[record.poll.id] = shape(run)

    def open(self, spec: PollSpec, run: Run) -> Poll:
        record = ask(f"p-{self.number + 1:06d}", spec, run, self.run_store)
        self.number += 1
        self.live[record.poll.id], self.current = record, record.poll.id
        self.shapes[record.poll.id] = shape(run)
        while len(self.live) > MAX_LIVE:  # the oldest is closed, its last votes saved
            closed = self.live.pop(next(iter(self.live)))
            self.shapes.pop(closed.poll.id, None)
            self._save(closed)
        self._save(record)
        self.fanout.publish(PollMessage(poll=record.public()))
        return record.public()

    def newest(self) -> PollRecord | None:
        """The newest poll: what a page that (re)loads is shown."""
        return self.live.get(self.current) if self.current else None

    def holding_any(self) -> bool:
        return any(r.poll.state is PollState.OPEN for r in self.live.values())

    def holding(self, run: Run) -> Poll | None:
        """The open poll that holds this run, if any: until its reveal, viewers read none of its
        answer. A poll holds its own run and, for a question of which algorithm is faster, every
        run of the same shape (its times are the answer)."""
        for record in reversed(self.live.values()):
            poll = record.poll
            if poll.state is PollState.OPEN and (poll.run_id == run.id or self._races(poll, shape(run))):
                return poll
        return None

    def _races(self, poll: Poll, run_shape: tuple) -> bool:
        """Whether `poll` asks which algorithm is faster at this shape of run."""
        return poll.question == "faster" and self.shapes.get(poll.id) == run_shape

    def held_collectives(self) -> set[str]:
        """The collectives an open poll asks about: /metrics leaves out their times for viewers."""
        return {self.shapes[i][0] for i, r in self.live.items() if r.poll.state is PollState.OPEN}

    def hides_times(self, summary: dict) -> bool:
        """Whether a run's times stay off the list while a poll is open: the held run's, and for
        a question of which algorithm is faster, those of the runs it compares."""
        same = (summary["collective"], summary["count"], summary["dtype"], len(summary["group"]))
        return any(
            r.poll.state is PollState.OPEN and (summary["id"] == r.poll.run_id or self._races(r.poll, same))
            for r in self.live.values()
        )

    def runs_asked(self) -> set[str]:
        """The runs that polls held in memory ask about, and the newest stored poll's: retention keeps
        them (a live poll still takes votes about its run; the newest poll's number continues the ids)."""
        newest = self.store.newest(1)
        return {r.poll.run_id for r in [*self.live.values(), *newest]}

    def find(self, poll_id: str) -> PollRecord | None:
        """A poll of this server (in memory) or of an earlier one (in the file)."""
        if poll_id in self.live:
            return self.live[poll_id]
        return self.store.get(poll_id)

    def of_run(self, run_id: str) -> list[Poll]:
        ids = dict.fromkeys(
            self.store.ids_of_run(run_id) + [p for p, r in self.live.items() if r.poll.run_id == run_id]
        )
        return [record.public() for i in ids if (record := self.find(i)) is not None]

    def vote(self, poll_id: str, vote: Vote, address: str) -> PollRecord:
        record = self.live.get(poll_id)
        if record is None:
            found(self.find(poll_id), "poll", poll_id)
            # an old one, or an earlier server's
            raise Busy("poll", "this poll is closed: it takes no more votes")
        record.vote(vote, address)
        if poll_id not in self.telling:
            self.telling.add(poll_id)
            asyncio.get_running_loop().call_later(TALLY_S, self._tell, poll_id)
        return record

    def reveal(self, poll_id: str) -> Poll:
        # one no longer live (64 newer ones opened) takes no votes, but its answer is still shown
        record = self.live.get(poll_id) or found(self.find(poll_id), "poll", poll_id)
        record.poll.state = PollState.REVEALED
        self._save(record)
        self.fanout.publish(PollMessage(poll=record.public()))
        return record.public()

    def flush(self) -> None:
        """Save the votes not yet told (the server stops): they would be lost with the timer."""
        for poll_id in self.telling:
            if (record := self.live.get(poll_id)) is not None:
                self._save(record)
        self.telling.clear()

    def _tell(self, poll_id: str) -> None:
        self.telling.discard(poll_id)
        record = self.live.get(poll_id)
        if record is None:  # closed meanwhile: its last tally was saved then
            return
        self._save(record)
        self.fanout.publish(TallyMessage(poll_id=poll_id, counts=record.counts(), votes=len(record.voters)))

    def _save(self, record: PollRecord) -> None:
        self.store.save(record)


async def polls_of(conn: HTTPConnection) -> Polls:
    return conn.app.state.polls
