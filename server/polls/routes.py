"""/api/polls: the presenter opens a poll about a run and reveals it; any page that may
watch reads it and votes once; every page hears the poll and its tally over /ws
(polls.py says what is asked). Polls are kept in the runs' file, with their run."""

from __future__ import annotations

import asyncio
import re
from typing import Literal

from fastapi import APIRouter, Depends, Path, Query, Request
from pydantic import BaseModel

from ringside.server.cluster.workers import Hub, hub_of
from ringside.server.door.auth import need_presenter, need_viewer
from ringside.server.door.errors import Busy, found
from ringside.server.polls.poll import Poll, PollRecord, PollSpec, PollState, Vote, ask
from ringside.server.runs.run import Run
from ringside.server.runs.store import Store
from ringside.server.viewers.fanout import Fanout

router = APIRouter(prefix="/api/polls")
watch, present = Depends(need_viewer), Depends(need_presenter)
PollId = Path(max_length=40)
Voter = Query(None, min_length=8, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")
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
    def __init__(self, store: Store, fanout: Fanout):
        self.db, self.writer, self.fanout = store.db, store.writer, fanout
        # polls opened since the server started: read from here, not the file
        self.live: dict[str, PollRecord] = {}
        self.current: str | None = None  # the newest, what a page that (re)loads is shown
        self.telling: set[str] = set()  # polls whose tally is due to be told
        # each live poll's run's shape (collective, count, dtype, P): a `faster` poll holds every run of it
        self.shapes: dict[str, tuple] = {}
        row = self.db.execute("SELECT id FROM polls ORDER BY rowid DESC LIMIT 1").fetchone()
        self.number = int(re.search(r"(\d+)$", row[0]).group(1)) if row else 0
        self._carry_on(store)

    def _carry_on(self, store: Store) -> None:
        """A restarted server carries on with the newest polls left open: they hold their runs,
        take votes and are revealed as before (else a poll was open for ever and its run read whole)."""
        rows = self.db.execute("SELECT body FROM polls ORDER BY rowid DESC LIMIT ?", (MAX_LIVE,)).fetchall()
        for record in reversed([PollRecord.model_validate_json(r[0]) for r in rows]):
            run = store.get(record.poll.run_id)
            if record.poll.state is PollState.OPEN and run is not None:
                self.live[record.poll.id], self.current = record, record.poll.id
                self.shapes[record.poll.id] = shape(run)

    def open(self, spec: PollSpec, hub: Hub) -> Poll:
        run = found(hub.runs.find(spec.run_id), "run", spec.run_id)
        record = ask(f"p-{self.number + 1:06d}", spec, run, hub.store)
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

    def find(self, poll_id: str) -> PollRecord | None:
        """A poll of this server (in memory) or of an earlier one (in the file)."""
        if poll_id in self.live:
            return self.live[poll_id]
        row = self.db.execute("SELECT body FROM polls WHERE id = ?", (poll_id,)).fetchone()
        return PollRecord.model_validate_json(row[0]) if row else None

    def of_run(self, run_id: str) -> list[Poll]:
        rows = self.db.execute(
            "SELECT id FROM polls WHERE run_id = ? ORDER BY rowid LIMIT 100", (run_id,)
        ).fetchall()
        ids = dict.fromkeys(
            [r[0] for r in rows] + [p for p, r in self.live.items() if r.poll.run_id == run_id]
        )
        return [self.find(i).public() for i in ids]

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
        self.writer.put(
            [
                (
                    "INSERT INTO polls (id, run_id, body) VALUES (?, ?, ?) ON CONFLICT(id) DO UPDATE "
                    "SET body = excluded.body",
                    (record.poll.id, record.poll.run_id, record.model_dump_json()),
                )
            ]
        )


async def polls_of(request: Request) -> Polls:
    return request.app.state.polls


def voted(record: PollRecord, voter: str | None) -> int | None:
    return record.voters.get(voter) if voter else None


@router.post("", status_code=201, dependencies=[present])
async def open_poll(spec: PollSpec, hub: Hub = Depends(hub_of), polls: Polls = Depends(polls_of)) -> Poll:
    return polls.open(spec, hub)


@router.get("", dependencies=[watch])
async def list_polls(run_id: str = Query(max_length=40), polls: Polls = Depends(polls_of)) -> dict:
    return {"polls": polls.of_run(run_id)}


@router.get("/current", dependencies=[watch])
async def current_poll(voter: str | None = Voter, polls: Polls = Depends(polls_of)) -> dict:
    """The newest poll, and this page's vote in it: what a page that (re)loads shows."""
    record = polls.live.get(polls.current) if polls.current else None
    return {"poll": record.public() if record else None, "voted": voted(record, voter) if record else None}


@router.get("/{poll_id}", dependencies=[watch])
async def get_poll(
    poll_id: str = PollId, voter: str | None = Voter, polls: Polls = Depends(polls_of)
) -> dict:
    record = found(polls.find(poll_id), "poll", poll_id)
    return {"poll": record.public(), "voted": voted(record, voter)}


@router.post("/{poll_id}/votes", status_code=202, dependencies=[watch])
async def vote(request: Request, vote: Vote, poll_id: str = PollId, polls: Polls = Depends(polls_of)) -> dict:
    record = polls.vote(poll_id, vote, request.client.host if request.client else "")
    return {"counted": True, "votes": len(record.voters)}


@router.post("/{poll_id}/reveal", dependencies=[present])
async def reveal(poll_id: str = PollId, polls: Polls = Depends(polls_of)) -> Poll:
    return polls.reveal(poll_id)
