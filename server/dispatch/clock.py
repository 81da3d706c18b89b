"""The dispatcher's time: what it is now, and a wait for something to happen that gives up after a
while. One object handed to the dispatcher, so that a test's clock, which moves only when the test
says, can stand in for the machine's."""

from __future__ import annotations

import asyncio
import contextlib
import time


class Clock:
    def now(self) -> float:
        """Seconds on a clock that never goes back (deadlines are measured on it)."""
        return time.monotonic()

    async def wait(self, event: asyncio.Event, seconds: float) -> None:
        """Until `event` is set or `seconds` have passed, whichever comes first."""
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(event.wait(), timeout=seconds)
