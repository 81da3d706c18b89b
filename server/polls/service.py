"""The polls of a lecture, assembled: the polls this server holds (book.py), what they hold from the
room (holding.py), asking one (asking.py), its question opening once its runs have run (opening.py),
and voting on it until the reveal (voting.py)."""

from __future__ import annotations

from collections.abc import Callable

from starlette.requests import HTTPConnection

from ringside.server.door.audience import Feed
from ringside.server.polls.asking import Asking
from ringside.server.polls.ballots import Ballots
from ringside.server.polls.book import PollBook
from ringside.server.polls.holding import Holding
from ringside.server.polls.opening import Opening
from ringside.server.polls.store import PollStore
from ringside.server.polls.timer import Later, Timer, on_the_loop
from ringside.server.polls.voting import Voting
from ringside.server.runs.service import Runs


class Polls:
    def __init__(
        self,
        store: PollStore,
        runs: Runs,
        feed: Feed,
        ballots: Ballots,
        retell: Callable[[], None],
        later: Later = on_the_loop,
    ):
        """`retell`: every page hears the presenter's view again; `later`: what calls back after a
        while (a poll's time, a burst of votes): the event loop's timers."""
        self.book = PollBook(store, feed, Timer(later), runs.recent)
        self.holding = Holding(self.book)
        self.voting = Voting(self.book, ballots, self.book.timer, later)
        self.opening = Opening(self.book, runs, self.voting, retell)
        self.asking = Asking(self.book, runs, self.holding, self.voting)
        self.opening.carry_on()


async def polls_of(conn: HTTPConnection) -> Polls:
    return conn.app.state.polls
