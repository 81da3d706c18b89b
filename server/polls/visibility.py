"""What a viewer may see while a poll is open: every route and socket that shows a run, its
line in a list, its trace, its figures or the metrics asks here, so the rule is kept once.
The presenter sees everything. An open poll holds its own run and, for a question of which
algorithm is faster, every run of the same shape (their times are the answer); until its
reveal a viewer reads a held run's plan and inputs and none of its answer."""

from __future__ import annotations

from starlette.requests import HTTPConnection

from ringside.server.door.errors import Busy
from ringside.server.polls.poll import Poll
from ringside.server.polls.service import Polls
from ringside.server.runs.run import Run


class Visibility:
    def __init__(self, polls: Polls):
        self.polls = polls

    def run(self, run: Run, presenter: bool) -> Run | dict:
        """The run as this page may read it: whole, or withheld while a poll holds it."""
        poll = None if presenter else self.polls.holding(run)
        return run if poll is None else withheld(run, poll)

    def on_stage(self, run: Run | None, presenter: bool) -> Run | None:
        """The run a joining page is shown on the stage: none while a poll holds it (the page
        reads it as GET /api/runs/{id} gives it)."""
        if run is None or presenter or self.polls.holding(run) is None:
            return run
        return None

    def readable(self, run: Run | None, presenter: bool) -> bool:
        """Whether this page may read the run's figures (compare, formulas)."""
        return run is None or presenter or self.polls.holding(run) is None

    def check_trace(self, run: Run, presenter: bool) -> None:
        if not self.readable(run, presenter):
            raise Busy("run_id", f"run {run.id} is held for a poll: its trace comes with the reveal")

    def summaries(self, summaries: list[dict], presenter: bool) -> list[dict]:
        """Runs' lines in a list, their times left out where a poll holds them."""
        if presenter or not self.polls.holding_any():
            return summaries
        return [withheld_summary(s) if self.polls.hides_times(s) else s for s in summaries]

    def holding_any(self, presenter: bool) -> bool:
        return not presenter and self.polls.holding_any()

    def withheld_collectives(self, presenter: bool) -> set[str]:
        """Collectives whose times and bandwidths /metrics leaves out for this page."""
        return set() if presenter else self.polls.held_collectives()


def withheld(run: Run, poll: Poll) -> dict:
    """What a viewer may read of a run while a poll about it is open: its plan and inputs, and no
    answer: no rank's report of the step asked about or any later one (of any step, for a question
    of bytes or speed, asked at the inputs), no outputs, traffic, measured bytes nor times (nor the
    model's account of the run, which carries its measured time, nor traced code's timed calls).
    `held_for` names the poll: after its reveal the page reads the run again."""
    keep = poll.step if poll.question == "holds" and poll.step is not None else 0
    steps = [step if i < keep else step.model_copy(update={"ranks": {}}) for i, step in enumerate(run.steps)]
    display = run.display
    if display is not None and display.formula is not None:
        formula = display.formula.model_copy(update={"measured": None})
        display = display.model_copy(update={"formula": formula})
    # its wall-clock span too: run against another's, it ranks them as their times do
    shown = run.model_copy(
        update={
            "steps": steps,
            "results": {},
            "traffic": None,
            "time": None,
            "started_at": None,
            "finished_at": None,
            "algbw": None,
            "busbw": None,
            "verified": None,
            "display": display,
            "prediction": None,
            "calls": {},
        }
    )
    return {**shown.model_dump(mode="json"), "held_for": poll.id}


def withheld_summary(summary: dict) -> dict:
    """A run's line in a list while a poll holds it: no times (the answer to which is faster), nor
    when it started and finished."""
    return {
        **summary,
        "time": None,
        "algbw": None,
        "busbw": None,
        "verified": None,
        "started_at": None,
        "finished_at": None,
    }


async def visibility_of(conn: HTTPConnection) -> Visibility:
    return conn.app.state.visibility
