"""A poll's question opens once every run it holds has ended done: its choices are built from the runs
(questions.py) and shuffled, and voting opens; a run cut short fails the poll, saying why. A
restarted server carries on with the polls left holding their runs."""

from __future__ import annotations

import itertools
import secrets
from collections.abc import Callable

from ringside.server.dispatch.job import JobState
from ringside.server.polls import custom, questions
from ringside.server.polls.book import MAX_LIVE, PollBook
from ringside.server.polls.poll import HOLDING, PollRecord, PollState
from ringside.server.polls.voting import Voting
from ringside.server.runs.run import Run
from ringside.server.runs.service import Runs
from ringside.worker_agent.core.validation import SpecError

SHUFFLE = secrets.SystemRandom()  # the choices' order: nothing a page reads can replay it


def cut_short(run: Run) -> str:
    """Why a poll fails with a run that did not end done."""
    return f"run {run.id} {run.state.value}" + (f": {run.error}" if run.error else "")


def answer(record: PollRecord, run: Run | None, measured: dict[str, float]) -> None:
    """The question's choices, shuffled once (kept with the poll: the same for every page), and
    voting opens. Shuffled from the system's randomness: seeded with anything a page reads (the
    poll's id), a page could replay the shuffle and find the right choice before the reveal. A
    custom question's choices and answer are its lecturer's, kept in the order they wrote them."""
    if custom.own(record.poll.question):
        right = record.answers[0] if record.answers else None
        return record.open(record.poll.choices, right, record.number, (), record.tolerance)
    assert run is not None  # a built-in question is asked of a run
    found = questions.answer(record.poll, run, measured)
    named = [(found.right, None), *itertools.zip_longest(found.wrong, found.mistakes)]
    SHUFFLE.shuffle(named)
    choices = [words for words, _ in named]
    record.open(choices, choices.index(found.right), found.number, [mistake for _, mistake in named])


class Opening:
    def __init__(self, book: PollBook, runs: Runs, voting: Voting, retell: Callable[[], None]):
        """`retell`: every page hears the presenter's view again (the room may now, where it could not)."""
        self.book, self.runs, self.voting, self.retell = book, runs, voting, retell
        runs.on_end.append(self._ended)

    def carry_on(self) -> None:
        """A restarted server carries on with the newest polls left holding their runs: they hold
        them, take votes, close at their time and are revealed as before (else a poll was open for
        ever and its run read whole). One whose runs were cut short by the stop fails then."""
        for record in self.book.store.newest(MAX_LIVE):
            run = self.runs.store.get(record.poll.run_id) if record.poll.run_id else None
            if record.poll.state in HOLDING and (run is not None or not record.poll.runs):
                self.book.keep(record, run)
                self.voting.timed(record)
        for record in list(self.book.live.values()):
            if record.poll.state is PollState.RUNNING:
                self._settle(record)

    def _ended(self, run: Run) -> None:
        for record in list(self.book.live.values()):
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
            return self.book.fail(
                record, f"run {missing[0]} was never queued" if missing else cut_short(short[0])
            )
        runs = [r for r in ran.values() if r is not None]
        measured = {r.spec.algorithm: r.time for r in runs if r.time is not None}
        try:
            answer(record, runs[0], measured)
        except SpecError as e:
            return self.book.fail(record, e.message)
        self.voting.opened(record)
        self.retell()  # the presenter's view of the run, held from the room until now
