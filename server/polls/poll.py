"""Predict, then reveal: a question about a run, asked before the room sees it.

The presenter picks a question and the run it asks about; the run runs held (visibility.py
keeps every page but the presenter's from anything of it), and when it has run the question
opens: its choices are built from the run itself (questions.py), pages connected to the
lecture vote once each (ballots.py), by a choice or by typing a number, and no page but the
presenter's sees the tally until voting closes (the presenter, a timer, or the reveal). The
reveal marks the right choice and the right number. A poll is kept with its run."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from enum import Enum
from typing import Annotated

from pydantic import BaseModel, Field, PrivateAttr, StrictFloat, StrictInt

from ringside.server.door.audience import ANSWER, held_copy
from ringside.server.door.errors import Busy
from ringside.server.polls import ballots, custom
from ringside.server.polls.custom import ChoiceWords, TextWords
from ringside.server.polls.mistakes import Mistake
from ringside.server.polls.questions import MAX_CHOICES, Question, same_number
from ringside.worker_agent.core.protocol import Strict
from ringside.worker_agent.core.validation import SpecError

# ballots that may vote in one poll: more pages than any hall holds (a ballot is a page there)
MAX_VOTERS = 20_000
TYPED_SHOWN = 8  # the numbers typed most often, in a tally


class Vote(Strict):
    ballot: str = Field(pattern=ballots.PATTERN, description="the ballot this page's /ws socket was handed")
    choice: StrictInt | None = Field(None, ge=0, lt=max(MAX_CHOICES, custom.MAX_CHOICES))
    number: StrictFloat | None = Field(
        None,
        allow_inf_nan=False,
        ge=-custom.MAX_NUMBER,
        le=custom.MAX_NUMBER,
        description="typed instead of a choice",
    )


class PollState(str, Enum):
    RUNNING = "running"  # its runs run, held: the presenter's alone until they end
    OPEN = "open"  # takes votes; the room sees how many, not for what
    CLOSED = "closed"  # takes no more votes; the room sees the tally
    REVEALED = "revealed"
    FAILED = "failed"  # its run did not end done, or gave no answer: `why` says which


HOLDING = (PollState.RUNNING, PollState.OPEN, PollState.CLOSED)  # its runs are held from the room


class Poll(BaseModel):
    """A poll as a page sees it: the presenter whole, the room without the answer, the tally
    until voting closes, or which runs answered it in public (visibility.for_room)."""

    id: str
    run_id: str  # the run on stage
    runs: list[str] = []  # every run it holds till the reveal: its own, and a race's others
    question: Question
    rank: int | None = None  # holds: the rank asked about, and after which step (0-based)
    step: int | None = None
    numeric: bool = False  # a number may be typed beside the choices
    element: int = 0  # holds, numeric: the buffer's element typed
    text: str | TextWords  # a custom question's as its lecturer wrote it (custom.py)
    choices: list[str | ChoiceWords] = []
    state: PollState = PollState.OPEN
    counts: list[int] | None = None  # None: not shown to this page yet
    typed: list[tuple[float, int]] | None = None  # the numbers typed most often, and how often
    votes: int = 0
    median: float | None = None  # numeric: the middle of the numbers typed, shown as the tally is
    # the answer, once revealed (marked: for_room blanks them before, whatever set them)
    answers: Annotated[list[int], ANSWER] = []
    # what each choice got wrong (None: right, or unnamed)
    mistakes: Annotated[list[Mistake | None], ANSWER] = []
    number: Annotated[float | None, ANSWER] = None  # the right number
    tolerance: Annotated[float | None, ANSWER] = None  # custom: how far off a typed number may be
    typed_right: Annotated[int | None, ANSWER] = None  # how many typed it
    seconds: int | None = None  # voting closes this long after it opens
    closes_at: float | None = None  # when (epoch seconds), once it is open
    why: str | None = None  # failed: why
    # earlier runs every page has seen that answer this question: the presenter is told
    answered_by: list[str] = []
    # earlier runs every page saw that answer this question asked before its run, its inputs fixed:
    # held from the room until the reveal, as its own runs are (fresh.py); the presenter is told
    rehearsals: list[str] = []
    fresh_seed: int | None = None  # the seed drawn for its run, where a rehearsal showed the asked one's
    created_at: float

    @property
    def words_unread(self) -> bool:
        return custom.own(self.question)

    def for_room(self) -> Poll | None:
        """The poll as the room sees it: none while its runs run (or if it failed there), the tally
        not until voting closes, never which runs answered it in public nor which it holds for that (the
        presenter's to know)."""
        if self.state in (PollState.RUNNING, PollState.FAILED):
            return None
        update: dict = {"answered_by": [], "rehearsals": [], "fresh_seed": None}
        if self.state is PollState.OPEN:
            update |= {"counts": None, "typed": None, "median": None}
        room = self.model_copy(update=update)
        return room if self.state is PollState.REVEALED else held_copy(room, self)


class PollRecord(BaseModel):
    """What the server keeps: the poll, its answer and who voted what."""

    poll: Poll
    answers: list[int] = []
    mistakes: list[Mistake | None] = []  # each choice's, kept with the answer: they would tell it
    number: float | None = None
    tolerance: float | None = None  # custom, numeric: how far off a typed number is still right
    voters: dict[str, int] = {}  # ballot -> choice
    typed: dict[str, float] = {}  # ballot -> the number it typed
    # votes counted by the address they came from (in memory: a restart forgets it)
    _from: Counter[str] = PrivateAttr(default_factory=Counter)

    def shown(self) -> Poll:
        """The poll whole, as the presenter's page sees it (the room's: visibility.for_room)."""
        poll = self.poll
        update: dict = {"counts": self.counts(), "votes": self.votes()}
        if poll.numeric:
            update |= {"typed": self.typed_tally(), "median": custom.median(list(self.typed.values()))}
        if poll.state is PollState.REVEALED:
            update |= {"answers": self.answers, "number": self.number, "mistakes": self.mistakes}
            update["tolerance"] = self.tolerance
            if poll.numeric and self.number is not None:
                update["typed_right"] = sum(self.right(t) for t in self.typed.values())
        return poll.model_copy(update=update)

    def right(self, typed: float) -> bool:
        """Whether a typed number is right: the lecturer's tolerance, else the run's value as printed."""
        assert self.number is not None
        if self.tolerance is not None:
            return custom.within(typed, self.number, self.tolerance)
        return same_number(typed, self.number)

    def votes(self) -> int:
        return len(self.voters) + len(self.typed)

    def counts(self) -> list[int]:
        counts = [0] * len(self.poll.choices)
        for choice in self.voters.values():
            counts[choice] += 1
        return counts

    def typed_tally(self) -> list[tuple[float, int]]:
        return Counter(self.typed.values()).most_common(TYPED_SHOWN)

    def voted(self, ballot: str | None) -> dict | None:
        """This ballot's vote: {"choice": i} or {"number": x}, or None."""
        if ballot in self.voters:
            return {"choice": self.voters[ballot]}
        if ballot in self.typed:
            return {"number": self.typed[ballot]}
        return None

    def vote(self, vote: Vote, address: str, most: int) -> None:
        """Count a vote from `address`, which may cast `most` in this poll: as many pages as it held
        connected at once (ballots.py). A new page is a new ballot, so without it a script that opened
        a socket, voted and closed it again voted a thousand times a minute from one connection."""
        poll = self.poll
        if (vote.choice is None) == (vote.number is None):
            raise SpecError("choice", "vote with a choice or a number, one of them")
        if vote.number is not None and not poll.numeric:
            raise SpecError("number", "this poll takes a choice, not a number")
        if vote.choice is not None and vote.choice >= len(poll.choices):
            raise SpecError("choice", f"this poll has {len(poll.choices)} choices, numbered from 0")
        if poll.state is not PollState.OPEN:
            raise Busy("poll", f"this poll is {poll.state.value}: it takes no votes")
        if vote.ballot in self.voters or vote.ballot in self.typed:
            raise Busy("ballot", "this page has voted in this poll already")
        if self.votes() >= MAX_VOTERS:
            raise Busy("poll", f"this poll has its {MAX_VOTERS} votes")
        if self._from[address] >= most:
            raise Busy(
                "ballot",
                f"this address has cast {most} votes in this poll: one a page it held connected at once",
            )
        self._from[address] += 1
        if vote.choice is not None:
            self.voters[vote.ballot] = vote.choice
        else:
            assert vote.number is not None
            self.typed[vote.ballot] = vote.number

    def open(
        self,
        choices: Sequence[str | ChoiceWords],
        right: int | None,
        number: float | None,
        mistakes: Sequence[Mistake | None] = (),
        tolerance: float | None = None,
    ) -> None:
        """Its runs have run: the question's choices (and what each wrong one got wrong; `right` None
        where it has none, a number typed), and voting opens (for `seconds`, if set)."""
        poll = self.poll
        poll.choices, poll.state = list(choices), PollState.OPEN
        self.answers, self.number, self.mistakes = [] if right is None else [right], number, list(mistakes)
        self.tolerance = tolerance
        if poll.seconds is not None:
            poll.closes_at = time.time() + poll.seconds

    def fail(self, why: str) -> None:
        self.poll.state, self.poll.why = PollState.FAILED, why
