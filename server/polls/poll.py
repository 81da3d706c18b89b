"""Predict, then reveal: a question about a run, asked before the stage shows it.

The presenter holds a run at its inputs and opens a poll; every page gets the question
and its choices, which are built from the run itself (what a rank holds after a step,
the busiest link's bytes, the rank that moves the most, which algorithm finished first
at this size and P, measured), phones vote once each, every page sees the tally, and
the reveal marks the right choice. The right choice is known when the poll opens and
kept from every page until the reveal. A poll is kept with its run."""

from __future__ import annotations

import random
import time
from enum import Enum
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field, PrivateAttr, StrictInt

from ringside.server.dispatch.job import JobState
from ringside.server.door.errors import Busy
from ringside.server.door.transport import MAX_PER_CLIENT
from ringside.server.runs.run import Run
from ringside.server.trainings.training import SYNC_ID
from ringside.worker_agent.core import vocabulary
from ringside.worker_agent.core.algorithms import algorithms
from ringside.worker_agent.core.collectives import get
from ringside.worker_agent.core.protocol import Strict
from ringside.worker_agent.core.validation import SpecError

if TYPE_CHECKING:
    from ringside.server.runs.store import RunStore

MAX_CHOICES = 6
MAX_VOTERS = 5000  # pages that may vote in one poll: more than any hall holds
# votes one address may cast in a poll: a hall behind one NAT address has as many pages as that
# address may hold connections, and one viewer token cannot fill a poll alone
MAX_PER_ADDRESS = MAX_PER_CLIENT
Question = Literal["holds", "busiest_link", "bottleneck", "faster"]


class PollSpec(Strict):
    run_id: str = Field(max_length=40)
    question: Question
    rank: StrictInt | None = Field(None, ge=0, lt=1 << 16, description="holds: the rank asked about")
    step: StrictInt | None = Field(None, ge=0, lt=1 << 16, description="holds: after which step (0-based)")


class Vote(Strict):
    choice: StrictInt = Field(ge=0, lt=MAX_CHOICES)
    voter: str = Field(
        min_length=8,
        max_length=64,
        pattern=r"^[A-Za-z0-9_-]+$",
        description="the page's own random id, kept across reloads: one vote per page",
    )


class PollState(str, Enum):
    OPEN = "open"
    REVEALED = "revealed"


class Poll(BaseModel):
    """What every page sees; `answers` stay empty until the reveal."""

    id: str
    run_id: str
    question: Question
    rank: int | None = None  # holds: the rank asked about, and after which step (0-based)
    step: int | None = None
    text: str
    choices: list[str]
    state: PollState = PollState.OPEN
    counts: list[int]
    votes: int = 0
    answers: list[int] = []
    created_at: float


class PollRecord(BaseModel):
    """What the server keeps: the poll, its answer and who voted what."""

    poll: Poll
    answers: list[int]
    voters: dict[str, int] = {}
    _addresses: dict[str, int] = PrivateAttr(default_factory=dict)  # votes per address, this server's life

    def public(self) -> Poll:
        shown = self.poll.model_copy(update={"counts": self.counts(), "votes": len(self.voters)})
        if self.poll.state is PollState.REVEALED:
            return shown.model_copy(update={"answers": self.answers})
        return shown

    def counts(self) -> list[int]:
        counts = [0] * len(self.poll.choices)
        for choice in self.voters.values():
            counts[choice] += 1
        return counts

    def vote(self, vote: Vote, address: str) -> None:
        if vote.choice >= len(self.poll.choices):
            raise SpecError("choice", f"this poll has {len(self.poll.choices)} choices, numbered from 0")
        if self.poll.state is not PollState.OPEN:
            raise Busy("poll", "this poll has been revealed: it takes no more votes")
        if vote.voter in self.voters:
            raise Busy("voter", "this page has voted in this poll already")
        if len(self.voters) >= MAX_VOTERS:
            raise Busy("poll", f"this poll has its {MAX_VOTERS} votes")
        if self._addresses.get(address, 0) >= MAX_PER_ADDRESS:
            raise Busy(
                "voter",
                f"{MAX_PER_ADDRESS} votes came from this address already, as many as it may hold pages",
            )
        self.voters[vote.voter] = vote.choice
        self._addresses[address] = self._addresses.get(address, 0) + 1


def ask(poll_id: str, spec: PollSpec, run: Run, store: RunStore) -> PollRecord:
    """The poll a spec asks of a run, its choices shuffled (the same for every page)."""
    if run.state is not JobState.DONE:
        raise Busy("run_id", f"run {run.id} is {run.state.value}: ask about a run that is done")
    if SYNC_ID.match(run.id):  # its bytes and times are in its training's steps, which every page has
        raise SpecError(
            "run_id",
            f"{run.id} is a training step's sync, told to every page as the training "
            "ran: ask about a run of its own",
        )
    text, right, wrong = QUESTIONS[spec.question](spec, run, store)
    wrong = [w for w in dict.fromkeys(wrong) if w != right][: MAX_CHOICES - 1]
    if not wrong:
        raise Busy("question", "this run gives no wrong answer to set beside the right one")
    choices = [right, *wrong]
    random.Random(poll_id).shuffle(choices)
    poll = Poll(
        id=poll_id,
        run_id=run.id,
        question=spec.question,
        rank=spec.rank,
        step=spec.step,
        text=text,
        choices=choices,
        counts=[0] * len(choices),
        created_at=time.time(),
    )
    return PollRecord(poll=poll, answers=[choices.index(right)])


# --- the questions: (text, the right choice, wrong ones), each from the run ----------------------


def buffer_after(run: Run, rank: int, step: int) -> list | None:
    """Rank `rank`'s whole buffer after step `step` (-1: its inputs): a step reports only the
    chunks it changed, laid over what the rank held before. None unless captured in full."""
    chunks = {c.chunk: c.values for c in run.inputs.get(str(rank), [])}
    for done in run.steps[: step + 1]:
        mine = done.ranks.get(str(rank))
        chunks.update({c.chunk: c.values for c in (mine.states if mine else [])})
    whole = [values for _, values in sorted(chunks.items()) if values is not None]
    if not chunks or len(whole) < len(chunks):
        return None
    return [v for values in whole for v in values]


def _shown(values: list) -> str:
    words = [f"{v:g}" if isinstance(v, float) else str(v) for v in values[:8]]
    return " · ".join(words) + (" …" if len(values) > 8 else "")


def holds(spec: PollSpec, run: Run, store) -> tuple[str, str, list[str]]:
    rank, step = spec.rank, spec.step
    if rank is None or step is None:
        raise SpecError("rank", "a question of what a rank holds names the rank and the step")
    if rank not in run.group:
        raise SpecError("rank", f"rank {rank} is not in run {run.id}'s group {run.group}")
    if step >= len(run.steps):
        raise SpecError("step", f"run {run.id} has {len(run.steps)} steps, numbered from 0")

    right = buffer_after(run, rank, step)
    if right is None:
        raise Busy("run_id", "run it with capture full (the lecture data) to ask what a rank holds")
    # the wrong choices a student could make: a step too early or too late, the end, another rank
    nearby = [
        (rank, step - 1),
        (rank, step + 1),
        (rank, len(run.steps) - 1),
        *((r, step) for r in run.group if r != rank),
    ]
    others = [buffer_after(run, r, s) for r, s in nearby if s < len(run.steps)]
    return (
        f"What does rank {rank} hold after step {step + 1}?",
        _shown(right),
        [_shown(v) for v in others if v is not None],
    )


def _bytes(n: int) -> str:
    for unit, size in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size and n % (size // 16) == 0:
            return f"{n / size:g} {unit}"
    return f"{n:,} B"


def _buffer_bytes(run: Run) -> int:
    """N: the bytes of one rank's buffer, as the seed's formulas count it."""
    collective = get(run.spec.collective)
    return collective.count(run.spec) * vocabulary.ITEMSIZE[collective.dtype(run.spec)]


def busiest_link(spec: PollSpec, run: Run, store) -> tuple[str, str, list[str]]:
    link = run.traffic.busiest_link if run.traffic else None
    if link is None:
        raise Busy(
            "run_id", "only a stepwise run says what crosses each link (native's wires are the backend's)"
        )
    p, n = len(run.group), _buffer_bytes(run)
    # the seed's counts, one of which is right
    formulas = [n, 2 * (p - 1) * n // p, (p - 1) * n, n // p, 2 * n]
    text = (
        f"How many bytes cross the busiest link ({run.spec.collective} by {run.spec.algorithm}, "
        f"P={p}, N={_bytes(n)})?"
    )
    return text, _bytes(link.bytes), [_bytes(w) for w in formulas if w > 0]


def bottleneck(spec: PollSpec, run: Run, store) -> tuple[str, str, list[str]]:
    if run.traffic is None:
        raise Busy("run_id", "only a stepwise run says what each rank moves")
    moved = {int(r): run.traffic.sent[r] + run.traffic.received[r] for r in run.traffic.sent}
    most = max(moved.values())
    heaviest = [r for r, b in moved.items() if b == most]
    if len(heaviest) > 1:
        raise Busy("question", f"ranks {heaviest} move the same bytes: there is no one bottleneck")
    ranks = sorted(moved)[:MAX_CHOICES]
    if heaviest[0] not in ranks:
        ranks[-1] = heaviest[0]
    return (
        "Which rank moves the most bytes?",
        f"rank {heaviest[0]}",
        [f"rank {r}" for r in ranks if r != heaviest[0]],
    )


def faster(spec: PollSpec, run: Run, store: RunStore) -> tuple[str, str, list[str]]:
    s = run.spec
    measured = {}
    for algorithm in algorithms(s.collective):
        done = store.newest_done(s.collective, algorithm.name, s.count, s.dtype, len(run.group))
        if done is not None and done.time is not None:
            measured[algorithm.name] = done.time
    if len(measured) < 2:
        raise Busy(
            "question",
            f"run {s.collective} by two algorithms or more at count {s.count}, {s.dtype}, "
            f"{len(run.group)} ranks first: the answer is what they measured",
        )
    fastest = min(measured, key=measured.__getitem__)
    return (
        f"Which finishes first: {s.collective} of {_bytes(_buffer_bytes(run))} on {len(run.group)} ranks?",
        fastest,
        [a for a in measured if a != fastest],
    )


QUESTIONS = {"holds": holds, "busiest_link": busiest_link, "bottleneck": bottleneck, "faster": faster}
