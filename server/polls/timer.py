"""Polls that close at a time: one timer each on the event loop, from when voting opens (or, on a
restarted server, at the time it was due), stopped when voting closes first."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from ringside.server.polls.poll import Poll, PollState

# what schedules a call: the loop's call_later, or a test's clock
Later = Callable[..., Any]


def on_the_loop(delay: float, then: Callable[..., None], *args: Any) -> asyncio.TimerHandle:
    return asyncio.get_running_loop().call_later(delay, then, *args)


class Timer:
    def __init__(self, later: Later = on_the_loop):
        self.later = later
        self.handles: dict[str, Any] = {}  # poll id -> its timer (anything with cancel())

    def start(self, poll: Poll, then: Callable[[str], None]) -> None:
        """An open poll with a time: `then(poll id)` once it is up."""
        if poll.state is PollState.OPEN and poll.closes_at is not None and poll.id not in self.handles:
            wait = max(0.0, poll.closes_at - time.time())
            self.handles[poll.id] = self.later(wait, self._up, poll.id, then)

    def _up(self, poll_id: str, then: Callable[[str], None]) -> None:
        self.handles.pop(poll_id, None)
        then(poll_id)

    def stop(self, poll_id: str) -> None:
        if (handle := self.handles.pop(poll_id, None)) is not None:
            handle.cancel()

    def stop_all(self) -> None:
        for handle in self.handles.values():
            handle.cancel()
        self.handles.clear()
