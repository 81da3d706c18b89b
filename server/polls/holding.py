"""What the polls hold (visibility.py asks): a poll holds its runs from the moment it is asked until
its reveal, the earlier runs that answer it where it was asked before its run with fixed inputs (its
rehearsals: fresh.py) and, for a question of which algorithm is faster, every run of the same shape
(their times are the answer)."""

from __future__ import annotations

from ringside.server.door.audience import RunNamed
from ringside.server.polls.book import PollBook
from ringside.server.polls.poll import HOLDING, Poll
from ringside.server.runs.run import Run


class Holding:
    def __init__(self, book: PollBook):
        self.book = book

    def holding(self, run: RunNamed) -> Poll | None:
        """The poll that holds this run, if any: until its reveal, the room reads none of its
        answer. A message that names only the run's id finds a race's run of the shape once its
        start or its line was held."""
        book = self.book
        for record in reversed(book.live.values()):
            poll = record.poll
            if poll.state not in HOLDING:
                continue
            if run.id in (*poll.runs, poll.run_id, *poll.rehearsals) or run.id in book.raced.get(poll.id, ()):
                return poll
            if run.shape is not None and self._races(poll, run.shape):
                book.raced.setdefault(poll.id, set()).add(run.id)
                return poll
        return None

    def holding_run(self, run: Run) -> Poll | None:
        return self.holding(RunNamed(run.id, run.shape()))

    def _races(self, poll: Poll, run_shape: tuple) -> bool:
        """Whether `poll` asks which algorithm is faster at this shape of run."""
        return poll.question == "faster" and self.book.shapes.get(poll.id) == run_shape

    def holding_any(self) -> bool:
        return any(r.poll.state in HOLDING and r.poll.runs for r in self.book.live.values())

    def held_collectives(self) -> set[str]:
        """The collectives of the runs a poll holds: the room's /metrics leaves out their times and counts."""
        book = self.book
        return {
            book.shapes[i][0] for i, r in book.live.items() if r.poll.state in HOLDING and i in book.shapes
        }

    def hides(self, summary: dict) -> Poll | None:
        """The poll that holds the run of this line in a list, if any: its own runs, its rehearsals,
        and for a question of which algorithm is faster, the runs it compares."""
        same = (summary["collective"], summary["count"], summary["dtype"], len(summary["group"]))
        for record in self.book.live.values():
            poll = record.poll
            held = (*poll.runs, *poll.rehearsals)
            if poll.state in HOLDING and (summary["id"] in held or self._races(poll, same)):
                return poll
        return None
