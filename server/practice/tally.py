"""The room's practice, counted: per run, per step, which pages answered and whether right. Held in
memory, bounded: the newest MAX_RUNS runs practised, MAX_ANSWERS answers a run (a page answers a
step once). What the presenter's chart is told (`practice` over /ws: the presenter's pages alone,
polls/visibility.py)."""

from __future__ import annotations

from collections import Counter, OrderedDict
from typing import ClassVar, Literal

from pydantic import BaseModel

from ringside.server.door.audience import Audience
from ringside.server.door.errors import Busy

MAX_RUNS = 16  # runs whose practice is kept: a lecture's last several
MAX_ANSWERS = 20_000  # answers a run takes: every step of a long run by a hall of phones


class StepTally(BaseModel):
    step: int  # 0-based
    answered: int
    right: int


class PracticeMessage(BaseModel):
    """How the room did on a run's steps, each step answered at least once: the presenter's chart."""

    audience: ClassVar[Audience] = Audience.PRESENTER
    type: Literal["practice"] = "practice"
    run_id: str
    steps: list[StepTally]


class Tally:
    def __init__(self) -> None:
        # run -> step -> ballot -> right; the newest run practised last
        self.runs: OrderedDict[str, dict[int, dict[str, bool]]] = OrderedDict()
        # run -> (step, address) -> answers counted from there
        self.sources: dict[str, Counter[tuple[int, str]]] = {}

    def add(self, run_id: str, step: int, ballot: str, right: bool, address: str, most: int) -> None:
        """A page's answer to a step, sent from `address`; Busy (nothing changes) where it answered
        it already, the run has its answers, or the address has given `most` answers to the step: as
        many as it may keep pages connected (a new page is a new ballot: a script reconnecting for
        each answer would otherwise count as many as it liked)."""
        steps = self.runs.get(run_id, {})
        if ballot in steps.get(step, {}):
            raise Busy("ballot", f"this page has answered step {step + 1} of run {run_id} already")
        if sum(map(len, steps.values())) >= MAX_ANSWERS:
            raise Busy("run_id", f"run {run_id} has its {MAX_ANSWERS} answers")
        sources = self.sources.setdefault(run_id, Counter())
        if sources[step, address] >= most:
            raise Busy(
                "ballot",
                f"this address has answered step {step + 1} {most} times: as many as it may keep pages",
            )
        sources[step, address] += 1
        self.runs[run_id] = steps
        self.runs.move_to_end(run_id)
        steps.setdefault(step, {})[ballot] = right
        while len(self.runs) > MAX_RUNS:
            gone, _ = self.runs.popitem(last=False)
            self.sources.pop(gone, None)

    def of(self, run_id: str) -> list[StepTally]:
        steps = self.runs.get(run_id, {})
        return [StepTally(step=k, answered=len(p), right=sum(p.values())) for k, p in sorted(steps.items())]
