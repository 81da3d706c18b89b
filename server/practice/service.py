"""A phone practises a run: the cell each step asks about (cells.py), an answer graded against what
the ranks reported and counted once per page and step (tally.py), and the presenter's chart told a
burst of answers at a time. Only a page connected to the lecture answers (its socket's ballot,
polls/ballots.py), and only about a run the room may read whole: never one a poll holds before its
reveal (polls/visibility.py says)."""

from __future__ import annotations

import asyncio

from pydantic import BaseModel, Field, StrictInt
from starlette.requests import HTTPConnection

from ringside.server.dispatch.job import JobState
from ringside.server.door import transport
from ringside.server.door.audience import Feed
from ringside.server.door.errors import Busy, found, refuse
from ringside.server.polls import ballots
from ringside.server.polls.ballots import Ballots
from ringside.server.polls.visibility import Visibility
from ringside.server.practice import cells
from ringside.server.practice.cells import Cell
from ringside.server.practice.tally import PracticeMessage, StepTally, Tally
from ringside.server.runs.run import Run
from ringside.server.runs.service import Runs
from ringside.worker_agent.core.protocol import MAX_STEPS, Strict
from ringside.worker_agent.core.validation import SpecError

TALLY_S = 0.25  # the presenter's chart is told a burst of answers at most this often
ASKED_KEPT = 64  # runs whose asked cells are kept (a done run's never change)


class Answer(Strict):
    ballot: str = Field(pattern=ballots.PATTERN, description="the ballot this page's /ws socket was handed")
    step: StrictInt = Field(ge=0, lt=MAX_STEPS, description="the step predicted (0-based)")
    value: float = Field(allow_inf_nan=False, description="the cell's first value after that step, predicted")


class Graded(BaseModel):
    right: bool
    value: float  # the cell's value, as the rank reported it


class Questions(BaseModel):
    """What a practising page is asked: a cell a step (None: that step asks nothing), and to the
    presenter how the room did."""

    run_id: str
    cells: list[Cell | None]
    tally: list[StepTally] | None = None


class Practice:
    def __init__(self, runs: Runs, ballots: Ballots, visibility: Visibility, fanout: Feed):
        self.runs, self.ballots, self.visibility, self.fanout = runs, ballots, visibility, fanout
        self.tally = Tally()
        self.asked: dict[str, list[Cell | None]] = {}
        self.telling: set[str] = set()  # runs whose tally is due to be told

    def questions(self, run_id: str, presenter: bool) -> Questions:
        run = self._practised(run_id, presenter)
        return Questions(
            run_id=run.id, cells=self._cells(run), tally=self.tally.of(run.id) if presenter else None
        )

    def answer(self, run_id: str, answer: Answer, address: str) -> Graded:
        """A page's prediction, sent from `address`, graded and counted; refused, changing nothing,
        from a ballot no page connected holds, about a run the room may not practise, or a step that
        asks nothing (or from an address past its answers to the step: Tally.add)."""
        if not self.ballots.there(answer.ballot):
            raise refuse(
                403,
                "ballot",
                "this ballot belongs to no page connected to the lecture: an answer comes from the "
                "lecture's page, with the ballot its live socket was handed",
            )
        run = self._practised(run_id, presenter=False)
        asked = self._cells(run)
        if answer.step >= len(asked):
            raise SpecError("step", f"run {run.id} has {len(asked)} steps, numbered from 0")
        cell = asked[answer.step]
        if cell is None:
            raise SpecError(
                "step", f"step {answer.step + 1} of run {run.id} asks nothing: no cell it writes was recorded"
            )
        truth = cells.held(run, cell.rank, cell.chunk, cell.step)
        assert truth is not None  # asked: its value was recorded
        graded = Graded(right=cells.right(answer.value, truth), value=truth)
        most = transport.seen()[2].per_address
        self.tally.add(run.id, answer.step, answer.ballot, graded.right, address, most)
        if run.id not in self.telling:
            self.telling.add(run.id)
            asyncio.get_running_loop().call_later(TALLY_S, self._tell, run.id)
        return graded

    def _practised(self, run_id: str, presenter: bool) -> Run:
        """The run, if this page may practise it: ended done, with steps, and not held."""
        run = found(self.runs.find(run_id), "run", run_id)
        self.visibility.check_practice(run, presenter)
        if run.state is not JobState.DONE:
            raise Busy("run_id", f"run {run.id} is {run.state.value}: practise a run that is done")
        if all(cell is None for cell in self._cells(run)):
            raise SpecError(
                "run_id", f"run {run.id} has no step whose cells were recorded: there is nothing to predict"
            )
        return run

    def _cells(self, run: Run) -> list[Cell | None]:
        if run.id not in self.asked:
            if len(self.asked) >= ASKED_KEPT:
                del self.asked[next(iter(self.asked))]
            self.asked[run.id] = cells.asked(run)
        return self.asked[run.id]

    def _tell(self, run_id: str) -> None:
        self.telling.discard(run_id)
        self.fanout.publish(PracticeMessage(run_id=run_id, steps=self.tally.of(run_id)))


async def practice_of(conn: HTTPConnection) -> Practice:
    return conn.app.state.practice
