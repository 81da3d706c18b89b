"""Asking a poll. The presenter asks a question with the run it is about: the run is planned, the
question checked against its plan, and the run queued held (a `faster` question queues one run per
algorithm at that shape, a race); opening.py opens the question once they have run. Or the question
is about a run there already, and opens at once. The presenter is told of earlier runs every page
has seen that answer it already; a question asked before its run draws fresh inputs instead, or holds
those runs from the room until the reveal where its inputs are fixed (fresh.py)."""

from __future__ import annotations

import time

from ringside.server.dispatch.job import JobState
from ringside.server.door.errors import Busy, found
from ringside.server.polls import custom, fresh, questions
from ringside.server.polls.book import PollBook
from ringside.server.polls.custom import TextWords
from ringside.server.polls.holding import Holding
from ringside.server.polls.opening import answer
from ringside.server.polls.poll import Poll, PollRecord, PollState
from ringside.server.polls.questions import MAX_CHOICES, PollSpec
from ringside.server.polls.voting import Voting
from ringside.server.runs.run import Run
from ringside.server.runs.service import Runs
from ringside.server.trainings.training import SYNC_ID
from ringside.worker_agent.core.algorithms import algorithms
from ringside.worker_agent.core.protocol import RunSpec
from ringside.worker_agent.core.validation import SpecError

ALIKE = 20  # earlier runs of a shape looked through for one that answers a question already


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
    inputs = ("op", "pattern", "seed", "inputs", "root", "peer", "servers")
    return plan and all(getattr(a.spec, f) == getattr(b.spec, f) for f in inputs)


class Asking:
    def __init__(self, book: PollBook, runs: Runs, holding: Holding, voting: Voting):
        """`runs`: the runs a question is asked of, made for it, and compared by a `faster` one."""
        self.book, self.runs, self.holding, self.voting = book, runs, holding, voting

    async def ask(self, spec: PollSpec) -> Poll:
        """A question with its run: `run`, made now and held (the question opens when it has run),
        or `run_id`, a run there already (open at once); a custom question may have neither (open
        at once). SpecError or Busy: nothing changes."""
        custom.check(spec.question, spec, spec.numeric)
        if custom.own(spec.question) and spec.run is None and spec.run_id is None:
            return self._own(spec)
        if (spec.run is None) == (spec.run_id is None):
            raise SpecError("run", "give the run to make (run) or a run there already (run_id), one of them")
        if spec.run is not None:
            return await self._seal(spec, spec.run)
        assert spec.run_id is not None
        return self._about(spec, found(self.runs.find(spec.run_id), "run", spec.run_id))

    def _new(self, spec: PollSpec, run: Run | None, held: list[Run], text: str | TextWords) -> PollRecord:
        poll = Poll(
            id=self.book.next_id(),
            run_id=run.id if run is not None else "",
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
        record = PollRecord(poll=poll)
        if custom.own(spec.question):  # its answer, the record's alone until the reveal
            poll.choices = list(spec.choices or [])
            record.answers = [] if spec.answer is None else [spec.answer]
            record.number = spec.number
            record.tolerance = (spec.tolerance or 0.0) if spec.numeric else None
        return record

    def _own(self, spec: PollSpec) -> Poll:
        """A custom question with no run behind it: asked and opened at once."""
        record = self._new(spec, None, [], questions.premise(spec, None))
        answer(record, None, {})
        self.book.add(record, None)
        self.voting.opened(record)
        return record.shown()

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
        if custom.own(spec.question):  # the lecturer's answer, not the run's: no run answers it already
            record.poll.answered_by = []
            answer(record, run, {})
            self.book.add(record, run)
            self.voting.opened(record)
            return record.shown()
        compared = self._stored_race(run) if spec.question == "faster" else []
        measured = {r.spec.algorithm: r.time for r in compared if r.time is not None}
        answer(record, run, measured)  # before it is kept: a question with no answer changes nothing
        seen = [run.id] if self.holding.holding_run(run) is None else []
        others = [r.id for r in compared if r.id != run.id and self.holding.holding_run(r) is None]
        record.poll.answered_by = seen + others
        self.book.add(record, run)
        self.voting.opened(record)
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
        main, answered, rehearsals = self._rehearsed(spec, main, race)
        held = [main, *race]
        for run in held:
            self.runs.name(run)
        record = self._new(spec, main, held, text)
        record.poll.answered_by, record.poll.rehearsals = answered, rehearsals
        if main.spec.seed != asked.seed:
            record.poll.fresh_seed = main.spec.seed
        self.book.add(record, main)  # held from here: what the queue says of its runs too
        self.book.save(record)
        self.book.tell(record)
        try:
            for run in held:
                await self.runs.queue(run)
        except SpecError as e:
            self.book.fail(record, f"its runs could not be queued: {e.message}")
            for run in held:
                self.runs.cancel(run.id)
            raise
        return record.shown()

    def _rehearsed(self, spec: PollSpec, main: Run, race: list[Run]) -> tuple[Run, list[str], list[str]]:
        """The sealed run, and the earlier runs every page saw that answer its question: told (a
        race's: it holds their shape whole) or held until the reveal. A question of a rank's values
        whose inputs a seed draws is asked of a fresh seed instead, where one reads another answer;
        the lecturer's own never is (their answer is of the inputs they gave), and holds the runs of
        the same plan and inputs (it may ask anything of their values)."""
        if custom.own(spec.question):
            return main, [], self._answered("holds", main, race)
        answered = self._answered(spec.question, main, race)
        if spec.question == "faster":
            return main, answered, []
        if answered and spec.question == "holds" and fresh.seeded(main.spec):
            redrawn = fresh.drawn(spec, main, self._seeds(main), self.runs.plan)
            if redrawn is not None:
                main, answered = redrawn, self._answered(spec.question, redrawn, race)
        return main, [], answered

    def _seeds(self, run: Run) -> set[int]:
        """The seeds runs of this run's shape and algorithm had, done or on their way."""
        s, p = run.spec, len(run.group)
        done = self.runs.store.done_of_shape(s.collective, s.algorithm, s.count, s.dtype, p, ALIKE)
        return {r.spec.seed for r in (*done, *self.runs.live().values())}

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
            seen = [self._seen_alike(run, lambda a, b: a.shape() == b.shape()) for run in (main, *race)]
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
        return [
            r.id for r in (*reversed(coming), *done) if alike(r, run) and self.holding.holding_run(r) is None
        ]
