"""The questions a poll asks of a run. Each is asked before the run has run: from its plan
alone a question says what it asks, or why this run cannot answer it (so a sealed run is not
run for nothing); once the run has run, its right choice, the wrong ones a student could
make beside it, and the number a student may type instead (a byte count, a value, a rank)."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Protocol

from pydantic import Field, StrictBool, StrictInt

from ringside.server.door.errors import Busy
from ringside.server.polls import custom, mistakes
from ringside.server.polls.custom import CustomFields, TextWords
from ringside.server.polls.mistakes import Mistake, buffer_after
from ringside.server.runs import figures
from ringside.server.runs.run import Run
from ringside.worker_agent.core import vocabulary
from ringside.worker_agent.core.collectives import get
from ringside.worker_agent.core.protocol import RunSpec
from ringside.worker_agent.core.validation import SpecError

if TYPE_CHECKING:
    from ringside.server.runs.figures import RunTraffic

MAX_CHOICES = 6
MIN_SECONDS, MAX_SECONDS = 5, 3600
Question = Literal["holds", "busiest_link", "bottleneck", "faster", "custom"]


class PollSpec(CustomFields):
    """A question, and the run it is asked of: `run`, made now and held from the room until the
    reveal (the question is asked before it runs), or `run_id`, a run there already (a custom
    question may be asked of neither: custom.py)."""

    question: Question
    run: RunSpec | None = Field(None, description="the run to make, held from every page but the presenter's")
    run_id: str | None = Field(None, max_length=40, description="or a run there already")
    rank: StrictInt | None = Field(None, ge=0, lt=1 << 16, description="holds: the rank asked about")
    step: StrictInt | None = Field(None, ge=0, lt=1 << 16, description="holds: after which step (0-based)")
    numeric: StrictBool = Field(
        False, description="a student may type a number instead of choosing: the bytes, the value, the rank"
    )
    element: StrictInt = Field(
        0, ge=0, lt=1 << 24, description="holds, numeric: the element of the buffer typed"
    )
    seconds: StrictInt | None = Field(
        None, ge=MIN_SECONDS, le=MAX_SECONDS, description="voting closes this long after the question opens"
    )


class Asked(Protocol):
    """What a question needs of the poll that asks it (a PollSpec, or the Poll made of one)."""

    @property
    def question(self) -> Question: ...
    @property
    def rank(self) -> int | None: ...
    @property
    def step(self) -> int | None: ...
    @property
    def numeric(self) -> bool: ...
    @property
    def element(self) -> int: ...


@dataclass
class Answer:
    right: str
    wrong: list[str]
    number: float | None = None  # what a student may type instead, where the question takes one
    mistakes: list[Mistake | None] = field(default_factory=list)  # what each wrong one got wrong, if named


# --- what each question asks, from the plan ------------------------------------------------------


def premise(spec: PollSpec, run: Run | None) -> str | TextWords:
    """The question's words, from the run's plan; or SpecError / Busy naming why this run cannot
    answer it."""
    if custom.own(spec.question):
        assert spec.text is not None  # custom.check: it has its text
        return spec.text
    if spec.numeric and spec.question == "faster":
        raise SpecError("numeric", "which algorithm finishes first is a name: there is no number to type")
    assert run is not None  # a built-in question is asked of a run (Asking.ask)
    return PREMISES[spec.question](spec, run)


def _holds_premise(spec: PollSpec, run: Run) -> str:
    rank, step = spec.rank, spec.step
    if rank is None or step is None:
        raise SpecError("rank", "a question of what a rank holds names the rank and the step")
    if rank not in run.group:
        raise SpecError("rank", f"rank {rank} is not in the run's group {run.group}")
    if step >= len(run.steps):
        raise SpecError("step", f"the run has {len(run.steps)} steps, numbered from 0")
    if run.spec.capture != "full":
        raise SpecError(
            "run_id" if spec.run_id else "run",
            "run it with capture full (the lecture data) to ask what a rank holds",
        )
    size = run.chunk_bounds[-1][1] - run.chunk_bounds[0][0] if run.chunk_bounds else 0
    if spec.numeric and spec.element >= size:
        raise SpecError("element", f"a rank's buffer holds {size} elements, numbered from 0")
    return f"What does rank {rank} hold after step {step + 1}?"


def _planned_traffic(run: Run) -> RunTraffic:
    """What crosses each link, counted by the simulator over the plan (the run's own once it ran)."""
    traffic = run.traffic or figures.traffic(run)
    if traffic is None or traffic.busiest_link is None:
        raise Busy(
            "run", "only a stepwise run says what crosses each link (native's wires are the backend's)"
        )
    return traffic


def _buffer_bytes(run: Run) -> int:
    """N: the bytes of one rank's buffer, as the seed's formulas count it."""
    collective = get(run.spec.collective)
    return collective.count(run.spec) * vocabulary.ITEMSIZE[collective.dtype(run.spec)]


def _busiest_link_premise(spec: PollSpec, run: Run) -> str:
    _planned_traffic(run)
    return (
        f"How many bytes cross the busiest link ({run.spec.collective} by {run.spec.algorithm}, "
        f"P={len(run.group)}, N={_bytes(_buffer_bytes(run))})?"
    )


def _moved(traffic: RunTraffic) -> dict[int, int]:
    return {int(r): traffic.sent[r] + traffic.received[r] for r in traffic.sent}


def _bottleneck_premise(spec: PollSpec, run: Run) -> str:
    moved = _moved(_planned_traffic(run))
    heaviest = [r for r, b in moved.items() if b == max(moved.values())]
    if len(heaviest) > 1:
        raise Busy("question", f"ranks {heaviest} move the same bytes: there is no one bottleneck")
    return "Which rank moves the most bytes?"


def _faster_premise(spec: PollSpec, run: Run) -> str:
    s = run.spec
    return f"Which finishes first: {s.collective} of {_bytes(_buffer_bytes(run))} on {len(run.group)} ranks?"


PREMISES = {
    "holds": _holds_premise,
    "busiest_link": _busiest_link_premise,
    "bottleneck": _bottleneck_premise,
    "faster": _faster_premise,
}


# --- the answer, once the run has run --------------------------------------------------------------


def answer(spec: Asked, run: Run, measured: dict[str, float]) -> Answer:
    """The right choice, wrong ones and the number; `measured`: a `faster` question's times by
    algorithm. Busy where the run, as it ran, gives no answer."""
    found = ANSWERS[spec.question](spec, run, measured)
    named = dict(itertools.zip_longest(found.wrong, found.mistakes))
    found.wrong = [w for w in named if w != found.right][: MAX_CHOICES - 1]
    found.mistakes = [named[w] for w in found.wrong]
    if not found.wrong:
        raise Busy("question", "this run gives no wrong answer to set beside the right one")
    if not spec.numeric:
        found.number = None
    return found


def _holds(spec: Asked, run: Run, measured: dict[str, float]) -> Answer:
    rank, step = spec.rank or 0, spec.step or 0
    right = buffer_after(run, rank, step)
    if right is None:
        raise Busy("run_id", "run it with capture full (the lecture data) to ask what a rank holds")
    picked = mistakes.wrong_choices(right, mistakes.found(run, rank, step, right))
    value = right[spec.element] if spec.element < len(right) else None
    return Answer(
        mistakes.shown(right),
        [words for words, _ in picked],
        float(value) if isinstance(value, int | float) else None,
        [mistake for _, mistake in picked],
    )


def _bytes(n: int) -> str:
    for unit, size in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size and n % (size // 16) == 0:
            return f"{n / size:g} {unit}"
    return f"{n:,} B"


def _busiest_link(spec: Asked, run: Run, measured: dict[str, float]) -> Answer:
    link = _planned_traffic(run).busiest_link
    assert link is not None  # _planned_traffic says why there is none
    p, n = len(run.group), _buffer_bytes(run)
    # the seed's counts, one of which is right
    formulas = [n, 2 * (p - 1) * n // p, (p - 1) * n, n // p, 2 * n]
    return Answer(_bytes(link.bytes), [_bytes(w) for w in formulas if w > 0], float(link.bytes))


def _bottleneck(spec: Asked, run: Run, measured: dict[str, float]) -> Answer:
    moved = _moved(_planned_traffic(run))
    heaviest = [r for r, b in moved.items() if b == max(moved.values())]
    if len(heaviest) > 1:
        raise Busy("question", f"ranks {heaviest} move the same bytes: there is no one bottleneck")
    ranks = sorted(moved)[:MAX_CHOICES]
    if heaviest[0] not in ranks:
        ranks[-1] = heaviest[0]
    return Answer(f"rank {heaviest[0]}", [f"rank {r}" for r in ranks if r != heaviest[0]], float(heaviest[0]))


def _faster(spec: Asked, run: Run, measured: dict[str, float]) -> Answer:
    s = run.spec
    if len(measured) < 2:
        raise Busy(
            "question",
            f"run {s.collective} by two algorithms or more at count {s.count}, {s.dtype}, "
            f"{len(run.group)} ranks first: the answer is what they measured",
        )
    fastest = min(measured, key=measured.__getitem__)
    return Answer(fastest, [a for a in measured if a != fastest])


ANSWERS = {"holds": _holds, "busiest_link": _busiest_link, "bottleneck": _bottleneck, "faster": _faster}


def same_number(typed: float, right: float) -> bool:
    """Whether a typed number is the right one: as printed, a float run's value is rounded."""
    return math.isclose(typed, right, rel_tol=1e-6, abs_tol=1e-9)
