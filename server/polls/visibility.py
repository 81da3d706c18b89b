"""What the room may see while a poll holds runs: every route and socket that shows a run, its
line in a list, its trace, its figures, the model, the metrics, a message of the live feed or
the presenter's view asks here, so the rule is kept once. The presenter sees everything.

A poll holds its runs (its own, and a race's others) from the moment it is asked until its
reveal, a question of which algorithm is faster every run of the same shape too (their times
are the answer), and one asked before its run with fixed inputs the earlier runs that answer it
(its rehearsals: fresh.py). While its runs run, the room hears nothing of them at all: no line
in a list, no message, not the presenter's view of them, not even when they end (that is a
time); a rehearsal's line and copy are withheld then as once the question is open.
Once the question is open, the room reads a held run's plan and inputs and none of its answer;
the tally waits until voting closes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel
from starlette.requests import HTTPConnection

from ringside.server.dispatch.job import JobState
from ringside.server.door.audience import Audience, declared, held_copy, marked
from ringside.server.door.auth import is_presenter
from ringside.server.door.errors import Busy
from ringside.server.polls.book import PollBook
from ringside.server.polls.holding import Holding
from ringside.server.polls.poll import Poll, PollRecord, PollState
from ringside.server.runs.run import Run, RunSummary

if TYPE_CHECKING:
    from ringside.server.lecture.presenter import PresenterMessage


class Visibility:
    def __init__(self, holding: Holding, book: PollBook):
        """`holding`: what the polls hold; `book`: the polls, whose newest a lesson's printed output
        waits for."""
        self.polls, self.book = holding, book

    # --- runs ---------------------------------------------------------------------------------

    def run(self, run: Run, presenter: bool) -> Run | dict:
        """The run as this page may read it: whole, or withheld while a poll holds it (Busy while
        its poll's runs run: even its state would tell when it ends; a rehearsal, which ended before
        the poll was asked, withheld then too)."""
        poll = None if presenter else self.polls.holding_run(run)
        if poll is None:
            return run
        if poll.state is PollState.RUNNING and run.id not in poll.rehearsals:
            raise Busy("run_id", f"run {run.id} is held for a question: the room sees it when it opens")
        return withheld(run, poll)

    def on_stage(self, run: Run | None, presenter: bool) -> Run | None:
        """The run a joining page is shown on the stage: none while a poll holds it (the page
        reads it as GET /api/runs/{id} gives it)."""
        if run is None or presenter or self.polls.holding_run(run) is None:
            return run
        return None

    def readable(self, run: Run | None, presenter: bool) -> bool:
        """Whether this page may read the run's figures."""
        return run is None or presenter or self.polls.holding_run(run) is None

    def check_trace(self, run: Run, presenter: bool) -> None:
        if not self.readable(run, presenter):
            raise Busy("run_id", f"run {run.id} is held for a poll: its trace comes with the reveal")

    def summaries(self, summaries: list[dict], presenter: bool) -> list[dict]:
        """Runs' lines in a list: their times left out where a poll holds them, and left out
        whole while they could still change (a held run's end is a time)."""
        if presenter or not self.polls.holding_any():
            return summaries
        shown = []
        for summary in summaries:
            poll = self.polls.hides(summary)
            if poll is None:
                shown.append(summary)
            elif JobState(summary["state"]).ended and not (
                poll.state is PollState.RUNNING and summary["id"] in poll.runs
            ):
                shown.append(withheld_summary(summary))
        return shown

    def holding_any(self, presenter: bool) -> bool:
        return not presenter and self.polls.holding_any()

    def queue(self, queued: list[Run], presenter: bool) -> list[Run]:
        """The queued runs this page hears of."""
        return queued if presenter else [r for r in queued if self.polls.holding_run(r) is None]

    def check_practice(self, run: Run, presenter: bool) -> None:
        """A page practises a run only where it reads it whole: never one a poll holds, before its
        reveal (each step's cell, graded, is the answer)."""
        if not self.readable(run, presenter):
            raise Busy("run_id", f"run {run.id} is held for a question: it is practised after the reveal")

    # --- figures: the metrics, the compare view, the model ---------------------------------------

    def withheld_collectives(self, presenter: bool) -> set[str]:
        """Collectives whose runs' counts, times and bandwidths /metrics leaves out for this page."""
        return set() if presenter else self.polls.held_collectives()

    def check_figures(self, collectives: tuple[str, ...], presenter: bool) -> None:
        """The compare view's bytes and measured points: not while a poll holds runs of these."""
        held = set() if presenter else self.polls.held_collectives() & set(collectives)
        if held:
            raise Busy(
                "run", f"a question about {min(held)} holds its runs: their figures come with the reveal"
            )

    def check_model(self, presenter: bool) -> None:
        """The model's fit takes in each run that ends (its time): not while a poll holds runs."""
        if not presenter and self.polls.holding_any():
            raise Busy(
                "run", "a question holds its runs: the model, fit to their times, waits for the reveal"
            )

    # --- a lesson's printed output ---------------------------------------------------------------

    def check_prints(
        self, stage: int, asks: bool, view: PresenterMessage | None, since: float, presenter: bool
    ) -> None:
        """What a lesson's stage prints answers its question: the room reads it only for the stage
        on the presenter's stage (since `since`), once a question asked since then is revealed."""
        if presenter or not asks:
            return
        if view is None or view.lesson != stage:
            raise Busy(
                "stage", f"stage {stage + 1} asks the room first: its output comes once it is on stage"
            )
        newest = self.book.newest(presenter=True)
        poll = newest.poll if newest is not None else None
        if (
            poll is None
            or poll.created_at < since
            or poll.state is not PollState.REVEALED
            or self.polls.holding_any()
        ):
            raise Busy("stage", f"stage {stage + 1}'s output answers its question: it comes with the reveal")

    # --- polls ---------------------------------------------------------------------------------

    def poll(self, record: PollRecord, presenter: bool) -> Poll:
        shown = record.shown()
        if presenter:
            return shown
        room = shown.for_room()
        if room is None:
            raise Busy("poll", f"poll {shown.id} is not asked yet: its run is running, held from the room")
        return room

    # --- the live feed ---------------------------------------------------------------------------

    def message(self, message: BaseModel) -> BaseModel | None:
        """What the room hears of a message the presenter hears (None: nothing), by the audience
        its type declares (door/audience.py)."""
        audience = declared(type(message))
        if audience is Audience.EVERYONE:
            return message
        if audience in (Audience.PRESENTER, Audience.PAGE):
            return None
        said: Any = message  # declared() checked that it has what its audience needs
        if audience is Audience.ROOM_COPY:
            return said.for_room()
        if audience is Audience.RUN_LINES:
            lines = [line.model_dump(mode="json") for line in said.lines()]
            return said.with_lines(self.summaries(lines, presenter=False))
        poll = next((p for named in said.concerns() if (p := self.polls.holding(named)) is not None), None)
        if poll is None or (audience is Audience.HELD_WHILE_RUNNING and poll.state is not PollState.RUNNING):
            return message
        return None

    def view(self, view: PresenterMessage | None) -> PresenterMessage | None:
        """The presenter's view as the room hears it: none of a run whose poll's runs still run
        (when it came on stage would tell when a run before it ended)."""
        return None if view is None else self.message(view)  # type: ignore[return-value]


def withheld(run: Run, poll: Poll) -> dict:
    """What the room may read of a run while a poll about it is open: its plan and inputs, and no
    answer: every field marked as one where it is defined (runs/run.py: no rank's report of the step
    asked about or any later one, no outputs, traffic, measured bytes nor times, nor its wall-clock
    span; for a question of bytes not the formula's count, for one of speed not auto's predicted
    times). `held_for` names the poll: after its reveal the page reads the run again."""
    return {**held_copy(run, poll).model_dump(mode="json"), "held_for": poll.id}


def withheld_summary(summary: dict) -> dict:
    """A run's line in a list while a poll holds it: no field marked as an answer (its times, nor
    when it started and finished)."""
    return {**summary, **dict.fromkeys(marked(RunSummary) & summary.keys())}


async def visibility_of(conn: HTTPConnection) -> Visibility:
    return conn.app.state.visibility


async def model_readable(conn: HTTPConnection) -> None:
    """A route's dependency, on the event loop where the polls change: the model's routes run in
    threads."""
    conn.app.state.visibility.check_model(await is_presenter(conn))
