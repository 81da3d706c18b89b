"""The polls of a lecture. The presenter asks a question with the run it is about: the run is
planned, the question checked against its plan, and the run queued held (a `faster` question
queues one run per algorithm at that shape, a race); when every run it holds has ended done
the question opens, its choices built from the runs. Pages connected to the lecture vote (a
ballot each), the tally is told a burst of votes at a time, voting closes (the presenter, a
timer or the reveal), and the reveal marks the answer. The newest MAX_LIVE polls are held in
memory with their votes; older ones are read from the file and take no votes."""

from __future__ import annotations

import asyncio
import secrets
import time
from typing import Literal

from pydantic import BaseModel
from starlette.requests import HTTPConnection

from ringside.server.dispatch.job import JobState
from ringside.server.door import transport
from ringside.server.door.errors import Busy, found, refuse
from ringside.server.polls import questions
from ringside.server.polls.ballots import Ballots
from ringside.server.polls.poll import HOLDING, Poll, PollRecord, PollState, Vote
from ringside.server.polls.questions import MAX_CHOICES, PollSpec
from ringside.server.polls.store import PollStore
from ringside.server.runs.run import Run
from ringside.server.runs.service import Runs
from ringside.server.trainings.training import SYNC_ID
from ringside.server.viewers.fanout import Fanout
from ringside.worker_agent.core.algorithms import algorithms
from ringside.worker_agent.core.protocol import RunSpec
from ringside.worker_agent.core.validation import SpecError

TALLY_S = 0.25  # a burst of votes is told to the pages at most this often
MAX_LIVE = 64  # polls held in memory (their votes too); older ones are read from the file and take no votes
ALIKE = 20  # earlier runs of a shape looked through for one that answers a question already
SHUFFLE = secrets.SystemRandom()  # the choices' order: nothing a page reads can replay it


class PollMessage(BaseModel):
    type: Literal["poll"] = "poll"
    poll: Poll


class TallyMessage(BaseModel):
    """How many voted; what for, and how many pages are connected, to the presenter alone
    until voting closes (visibility.for_room)."""

    type: Literal["tally"] = "tally"
    poll_id: str
    votes: int
    counts: list[int] | None = None
    typed: list[tuple[float, int]] | None = None
    pages: int | None = None


def shape(run: Run) -> tuple:
    """What a `faster` question compares across algorithms: (collective, count, dtype, P)."""
    return run.spec.collective, run.spec.count, run.spec.dtype, len(run.group)


def same_answer(question: str, a: Run, b: Run) -> bool:
    """Whether run `a` answers `question` as run `b` will: the same plan over the same bytes
    (and, for what a rank holds, the same inputs and op)."""
    plan = (a.schedule, a.chunk_bounds, a.group, a.spec.count, a.spec.dtype) == (
        b.schedule,
        b.chunk_bounds,
        b.group,
        b.spec.count,
        b.spec.dtype,
    )
    if question != "holds":
        return plan
    inputs = ("op", "pattern", "seed", "root", "peer", "servers")
    return plan and all(getattr(a.spec, f) == getattr(b.spec, f) for f in inputs)


def cut_short(run: Run) -> str:
    """Why a poll fails with a run that did not end done."""
    return f"run {run.id} {run.state.value}" + (f": {run.error}" if run.error else "")


class Polls:
    def __init__(self, store: PollStore, runs: Runs, fanout: Fanout, ballots: Ballots):
        """`runs`: the runs a question is asked of, made for it, and compared by a `faster` one."""
        self.store, self.runs, self.fanout, self.ballots = store, runs, fanout, ballots
        # polls opened since the server started: read from here, not the file
        self.live: dict[str, PollRecord] = {}
        self.current: str | None = None  # the newest, what a page that (re)loads is shown
        self.telling: set[str] = set()  # polls whose tally is due to be told
        # each live poll's run's shape (collective, count, dtype, P): a `faster` poll holds every run of it
        self.shapes: dict[str, tuple] = {}
        self.raced: dict[str, set[str]] = {}  # a `faster` poll's runs of its shape made while it holds
        self.timers: dict[str, asyncio.TimerHandle] = {}  # polls that close at a time
        self.number = store.last_number()
        runs.on_end.append(self._ended)
        self._carry_on()

    def _carry_on(self) -> None:
        """A restarted server carries on with the newest polls left holding their runs: they hold
        them, take votes, close at their time and are revealed as before (else a poll was open for
        ever and its run read whole). One whose runs were cut short by the stop fails then."""
        for record in self.store.newest(MAX_LIVE):
            run = self.runs.store.get(record.poll.run_id)
            if record.poll.state in HOLDING and run is not None:
                self._keep(record, run)
                self._time(record)
        for record in list(self.live.values()):
            if record.poll.state is PollState.RUNNING:
                self._settle(record)

    # --- asking ------------------------------------------------------------------------------

    async def ask(self, spec: PollSpec) -> Poll:
        """A question with its run: `run`, made now and held (the question opens when it has run),
        or `run_id`, a run there already (open at once). SpecError or Busy: nothing changes."""
        if (spec.run is None) == (spec.run_id is None):
            raise SpecError("run", "give the run to make (run) or a run there already (run_id), one of them")
        if spec.run is not None:
            return await self._seal(spec, spec.run)
        assert spec.run_id is not None
        return self._about(spec, found(self.runs.find(spec.run_id), "run", spec.run_id))

    def _new(self, spec: PollSpec, run: Run, held: list[Run], text: str) -> PollRecord:
        poll = Poll(
            id=f"p-{self.number + 1:06d}",
            run_id=run.id,
            runs=[r.id for r in held],
            question=spec.question,
            rank=spec.rank,
            step=spec.step,
            numeric=spec.numeric,
            element=spec.element,
            text=text,
            state=PollState.RUNNING,
            seconds=spec.seconds,
            created_at=time.time(),
        )
        return PollRecord(poll=poll)

    def _about(self, spec: PollSpec, run: Run) -> Poll:
        """A question about a run there already: asked and opened at once."""
        if run.state is not JobState.DONE:
            raise Busy("run_id", f"run {run.id} is {run.state.value}: ask about a run that is done")
        if SYNC_ID.match(run.id):  # its bytes and times are in its training's steps, which every page has
            raise SpecError(
                "run_id",
                f"{run.id} is a training step's sync, told to every page as the training "
                "ran: ask about a run of its own",
            )
        record = self._new(spec, run, [run], questions.premise(spec, run))
        compared = self._stored_race(run) if spec.question == "faster" else []
        measured = {r.spec.algorithm: r.time for r in compared if r.time is not None}
        self._answer(record, run, measured)  # before it is kept: a question with no answer changes nothing
        seen = [run.id] if self.holding(run) is None else []
        others = [r.id for r in compared if r.id != run.id and self.holding(r) is None]
        record.poll.answered_by = seen + others
        self.number += 1
        self._keep(record, run)
        self._save(record)
        self._time(record)
        self.fanout.publish(PollMessage(poll=record.shown()))
        return record.shown()

    async def _seal(self, spec: PollSpec, asked: RunSpec) -> Poll:
        """The question asked before its run: the run planned, checked, named and held, then queued."""
        main = self.runs.plan(asked)
        text = questions.premise(spec, main)
        race = self._race(asked, main) if spec.question == "faster" else []
        if spec.question == "faster" and not race:
            raise Busy(
                "question", f"only one algorithm of {main.spec.collective} runs at this shape: no race"
            )
        answered = self._answered(spec.question, main, race)
        held = [main, *race]
        for run in held:
            self.runs.name(run)
        record = self._new(spec, main, held, text)
        record.poll.answered_by = answered
        self.number += 1
        self._keep(record, main)  # held from here: what the queue says of its runs too
        self._save(record)
        self.fanout.publish(PollMessage(poll=record.shown()))
        try:
            for run in held:
                await self.runs.queue(run)
        except SpecError as e:
            self._fail(record, f"its runs could not be queued: {e.message}")
            for run in held:
                self.runs.cancel(run.id)
            raise
        return record.shown()

    def _race(self, asked: RunSpec, main: Run) -> list[Run]:
        """A `faster` question's other runners: the collective by each other algorithm that runs at
        this shape (as sweeps: off every stage)."""
        others: list[Run] = []
        for algorithm in algorithms(main.spec.collective):
            if algorithm.name == main.spec.algorithm or algorithm.chosen or len(others) + 1 >= MAX_CHOICES:
                continue
            try:
                runner = asked.model_copy(update={"algorithm": algorithm.name, "purpose": "sweep"})
                others.append(self.runs.plan(runner))
            except SpecError:  # this algorithm does not run at this shape
                continue
        return others

    def _stored_race(self, run: Run) -> list[Run]:
        """A `faster` question about a run there already: the newest done run of each algorithm at
        its shape."""
        s, p, store = run.spec, len(run.group), self.runs.store
        newest = [
            store.newest_done(s.collective, a.name, s.count, s.dtype, p) for a in algorithms(s.collective)
        ]
        return [r for r in newest if r is not None and r.time is not None]

    def _answered(self, question: str, main: Run, race: list[Run]) -> list[str]:
        """Earlier runs every page has seen (none of an open poll's held ones) that answer the question
        already: the same plan and inputs, or for a race, the times of two of its runners."""
        if question == "faster":
            seen = [self._seen_alike(run, lambda a, b: shape(a) == shape(b)) for run in (main, *race)]
            ids = [found[0] for found in seen if found]
            return ids if len(ids) >= 2 else []
        return self._seen_alike(main, lambda a, b: same_answer(question, a, b))

    def _seen_alike(self, run: Run, alike) -> list[str]:
        """Runs of this run's shape and algorithm, done or on their way, that no poll holds and
        `alike(them, run)`, newest first."""
        s = run.spec
        p = len(run.group)
        done = self.runs.store.done_of_shape(s.collective, s.algorithm, s.count, s.dtype, p, ALIKE)
        coming = [r for r in self.runs.live().values() if r.spec.algorithm == s.algorithm]
        return [r.id for r in (*reversed(coming), *done) if alike(r, run) and self.holding(r) is None]

    def _keep(self, record: PollRecord, run: Run) -> None:
        self.live[record.poll.id], self.current = record, record.poll.id
        self.shapes[record.poll.id] = shape(run)
        while len(self.live) > MAX_LIVE:  # the oldest is closed, its last votes saved
            closed = self.live.pop(next(iter(self.live)))
            self.shapes.pop(closed.poll.id, None)
            self.raced.pop(closed.poll.id, None)
            self._stop_timer(closed.poll.id)
            self._save(closed)

    # --- its runs end: the question opens -------------------------------------------------------

    def _ended(self, run: Run) -> None:
        for record in list(self.live.values()):
            if record.poll.state is PollState.RUNNING and run.id in record.poll.runs:
                self._settle(record)

    def _settle(self, record: PollRecord) -> None:
        """Once every run it holds has ended: the question opens, or fails saying why."""
        ran = {i: self.runs.find(i) for i in record.poll.runs}
        if any(r is not None and not r.state.ended for r in ran.values()):
            return
        missing = [i for i, r in ran.items() if r is None]
        short = [r for r in ran.values() if r is not None and r.state is not JobState.DONE]
        if missing or short:
            return self._fail(
                record, f"run {missing[0]} was never queued" if missing else cut_short(short[0])
            )
        runs = [r for r in ran.values() if r is not None]
        measured = {r.spec.algorithm: r.time for r in runs if r.time is not None}
        try:
            self._answer(record, runs[0], measured)
        except SpecError as e:
            return self._fail(record, e.message)
        self._save(record)
        self._time(record)
        self.fanout.publish(PollMessage(poll=record.shown()))
        self.fanout.retell()  # the presenter's view of the run, held from the room until now

    def _answer(self, record: PollRecord, run: Run, measured: dict[str, float]) -> None:
        """The question's choices, shuffled once (kept with the poll: the same for every page), and
        voting opens. Shuffled from the system's randomness: seeded with anything a page reads (the
        poll's id), a page could replay the shuffle and find the right choice before the reveal."""
        poll = record.poll
        found = questions.answer(poll, run, measured)
        choices = [found.right, *found.wrong]
        SHUFFLE.shuffle(choices)
        record.open(choices, choices.index(found.right), found.number)

    def _fail(self, record: PollRecord, why: str) -> None:
        record.fail(why)
        self._save(record)
        self.fanout.publish(PollMessage(poll=record.shown()))

    # --- voting, closing, revealing -------------------------------------------------------------

    def runs_asked(self) -> set[str]:
        """The runs that polls held in memory ask about, and the newest stored poll's: retention keeps
        them (a live poll still takes votes about its run; the newest poll's number continues the ids)."""
        newest = self.store.newest(1)
        return {i for r in [*self.live.values(), *newest] for i in [r.poll.run_id, *r.poll.runs] if i}

    def vote(self, poll_id: str, vote: Vote, address: str) -> PollRecord:
        """Count a page's vote, sent from `address` (PollRecord.vote says how many one address casts)."""
        if not self.ballots.there(vote.ballot):
            raise refuse(
                403,
                "ballot",
                "this ballot belongs to no page connected to the lecture: a vote comes from the "
                "lecture's page, with the ballot its live socket was handed",
            )
        record = self.live.get(poll_id)
        if record is None:
            found(self.find(poll_id), "poll", poll_id)
            # an old one, or an earlier server's
            raise Busy("poll", "this poll is closed: it takes no more votes")
        record.vote(vote, address, transport.seen()[2].per_address)
        if poll_id not in self.telling:
            self.telling.add(poll_id)
            asyncio.get_running_loop().call_later(TALLY_S, self._tell, poll_id)
        return record

    def close(self, poll_id: str) -> Poll:
        """Voting closes: the room sees the tally (the answer waits for the reveal)."""
        record = found(self.find(poll_id), "poll", poll_id)
        if record.poll.state is PollState.OPEN:
            self._end_voting(record, PollState.CLOSED)
        elif record.poll.state is not PollState.CLOSED:
            raise Busy("poll", f"this poll is {record.poll.state.value}: there is no voting to close")
        return record.shown()

    def reveal(self, poll_id: str) -> Poll:
        # one no longer live (64 newer ones opened) takes no votes, but its answer is still shown
        record = self.live.get(poll_id) or found(self.find(poll_id), "poll", poll_id)
        state = record.poll.state
        if state is PollState.RUNNING:
            raise Busy("poll", "its run is still running: the question has not opened yet")
        if state is PollState.FAILED:
            raise Busy("poll", f"this poll was never asked: {record.poll.why}")
        self._end_voting(record, PollState.REVEALED)
        return record.shown()

    def _end_voting(self, record: PollRecord, state: PollState) -> None:
        self._stop_timer(record.poll.id)
        record.poll.state = state
        self._save(record)
        self.fanout.publish(PollMessage(poll=record.shown()))

    def _time(self, record: PollRecord) -> None:
        """An open poll with a time: voting closes then."""
        poll = record.poll
        if poll.state is PollState.OPEN and poll.closes_at is not None and poll.id not in self.timers:
            wait = max(0.0, poll.closes_at - time.time())
            self.timers[poll.id] = asyncio.get_running_loop().call_later(wait, self._time_up, poll.id)

    def _time_up(self, poll_id: str) -> None:
        self.timers.pop(poll_id, None)
        record = self.live.get(poll_id)
        if record is not None and record.poll.state is PollState.OPEN:
            self._end_voting(record, PollState.CLOSED)

    def _stop_timer(self, poll_id: str) -> None:
        if (timer := self.timers.pop(poll_id, None)) is not None:
            timer.cancel()

    def flush(self) -> None:
        """Save the votes not yet told (the server stops): they would be lost with the timer."""
        for poll_id in self.telling:
            if (record := self.live.get(poll_id)) is not None:
                self._save(record)
        self.telling.clear()
        for timer in self.timers.values():
            timer.cancel()
        self.timers.clear()

    def _tell(self, poll_id: str) -> None:
        self.telling.discard(poll_id)
        record = self.live.get(poll_id)
        if record is None:  # closed meanwhile: its last tally was saved then
            return
        self._save(record)
        poll = record.poll
        self.fanout.publish(
            TallyMessage(
                poll_id=poll_id,
                votes=record.votes(),
                counts=record.counts(),
                typed=record.typed_tally() if poll.numeric else None,
                pages=self.ballots.pages(),
            )
        )

    def _save(self, record: PollRecord) -> None:
        self.store.save(record)

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

    # --- what a poll holds (visibility.py asks) ------------------------------------------------

    def holding(self, run: Run) -> Poll | None:
        """The poll that holds this run, if any: until its reveal, the room reads none of its
        answer. A poll holds its runs and, for a question of which algorithm is faster, every
        run of the same shape (its times are the answer)."""
        for record in reversed(self.live.values()):
            poll = record.poll
            if poll.state not in HOLDING:
                continue
            if run.id in poll.runs or run.id == poll.run_id:
                return poll
            if self._races(poll, shape(run)):
                self.raced.setdefault(poll.id, set()).add(run.id)
                return poll
        return None

    def holding_id(self, run_id: str) -> Poll | None:
        """The poll that holds the run of this id, by what is known of it (a message names only the
        run: a race's run of its shape is known once its start or its line was held)."""
        for record in reversed(self.live.values()):
            poll = record.poll
            if poll.state in HOLDING and (run_id in poll.runs or run_id in self.raced.get(poll.id, ())):
                return poll
        return None

    def _races(self, poll: Poll, run_shape: tuple) -> bool:
        """Whether `poll` asks which algorithm is faster at this shape of run."""
        return poll.question == "faster" and self.shapes.get(poll.id) == run_shape

    def holding_any(self) -> bool:
        return any(r.poll.state in HOLDING for r in self.live.values())

    def held_collectives(self) -> set[str]:
        """The collectives of the runs a poll holds: the room's /metrics leaves out their times and counts."""
        return {self.shapes[i][0] for i, r in self.live.items() if r.poll.state in HOLDING}

    def hides(self, summary: dict) -> Poll | None:
        """The poll that holds the run of this line in a list, if any: its own runs, and for a
        question of which algorithm is faster, the runs it compares."""
        same = (summary["collective"], summary["count"], summary["dtype"], len(summary["group"]))
        for record in self.live.values():
            poll = record.poll
            if poll.state in HOLDING and (summary["id"] in poll.runs or self._races(poll, same)):
                return poll
        return None


async def polls_of(conn: HTTPConnection) -> Polls:
    return conn.app.state.polls
