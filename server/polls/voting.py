"""Voting on an open poll: pages connected to the lecture vote (a ballot each, ballots.py), the tally
is told a burst of votes at a time, and voting closes (the presenter, the poll's timer, or the
reveal, which marks the answer)."""

from __future__ import annotations

from ringside.server.door.errors import Busy, found, refuse
from ringside.server.polls import custom
from ringside.server.polls.ballots import Ballots
from ringside.server.polls.book import PollBook
from ringside.server.polls.messages import TallyMessage
from ringside.server.polls.poll import Poll, PollRecord, PollState, Vote
from ringside.server.polls.timer import Later, Timer, on_the_loop

TALLY_S = 0.25  # a burst of votes is told to the pages at most this often


class Voting:
    def __init__(self, book: PollBook, ballots: Ballots, timer: Timer, later: Later = on_the_loop):
        """`later`: what tells a tally TALLY_S after the vote that made it due."""
        self.book, self.ballots, self.timer, self.later = book, ballots, timer, later
        self.telling: set[str] = set()  # polls whose tally is due to be told

    def opened(self, record: PollRecord) -> None:
        """Its question opened (PollRecord.open): saved, timed and told."""
        self.book.save(record)
        self.timed(record)
        self.book.tell(record)

    def timed(self, record: PollRecord) -> None:
        """An open poll with a time: voting closes then."""
        self.timer.start(record.poll, self._time_up)

    def vote(self, poll_id: str, vote: Vote, address: str) -> PollRecord:
        """Count a page's vote, sent from `address` (PollRecord.vote says how many one address casts)."""
        if not self.ballots.there(vote.ballot):
            raise refuse(
                403,
                "ballot",
                "this ballot belongs to no page connected to the lecture: a vote comes from the "
                "lecture's page, with the ballot its live socket was handed",
            )
        record = self.book.live.get(poll_id)
        if record is None:
            found(self.book.find(poll_id), "poll", poll_id)
            # an old one, or an earlier server's
            raise Busy("poll", "this poll is closed: it takes no more votes")
        record.vote(vote, address, self.ballots.most(poll_id, address))
        if poll_id not in self.telling:
            self.telling.add(poll_id)
            self.later(TALLY_S, self._tell, poll_id)
        return record

    def close(self, poll_id: str) -> Poll:
        """Voting closes: the room sees the tally (the answer waits for the reveal)."""
        record = found(self.book.find(poll_id), "poll", poll_id)
        if record.poll.state is PollState.OPEN:
            self._end_voting(record, PollState.CLOSED)
        elif record.poll.state is not PollState.CLOSED:
            raise Busy("poll", f"this poll is {record.poll.state.value}: there is no voting to close")
        return record.shown()

    def reveal(self, poll_id: str) -> Poll:
        # one no longer live (64 newer ones opened) takes no votes, but its answer is still shown
        record = self.book.live.get(poll_id) or found(self.book.find(poll_id), "poll", poll_id)
        state = record.poll.state
        if state is PollState.RUNNING:
            raise Busy("poll", "its run is still running: the question has not opened yet")
        if state is PollState.FAILED:
            raise Busy("poll", f"this poll was never asked: {record.poll.why}")
        self._end_voting(record, PollState.REVEALED)
        return record.shown()

    def _end_voting(self, record: PollRecord, state: PollState) -> None:
        self.timer.stop(record.poll.id)
        record.poll.state = state
        self.book.save(record)
        self.book.tell(record)

    def _time_up(self, poll_id: str) -> None:
        record = self.book.live.get(poll_id)
        if record is not None and record.poll.state is PollState.OPEN:
            self._end_voting(record, PollState.CLOSED)

    def _tell(self, poll_id: str) -> None:
        self.telling.discard(poll_id)
        record = self.book.live.get(poll_id)
        if record is None:  # closed meanwhile: its last tally was saved then
            return
        self.book.save(record)
        poll = record.poll
        self.book.feed.publish(
            TallyMessage(
                poll_id=poll_id,
                votes=record.votes(),
                counts=record.counts(),
                typed=record.typed_tally() if poll.numeric else None,
                median=custom.median(list(record.typed.values())) if poll.numeric else None,
                pages=self.ballots.pages(),
            )
        )

    def flush(self) -> None:
        """Save the votes not yet told (the server stops): they would be lost with the timer."""
        for poll_id in self.telling:
            if (record := self.book.live.get(poll_id)) is not None:
                self.book.save(record)
        self.telling.clear()
        self.timer.stop_all()
