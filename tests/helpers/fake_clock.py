"""A clock for the dispatcher (server/dispatch/clock.py) that moves only when a test says: a
deadline or a rank's silence is reached by moving it, never by waiting."""

from __future__ import annotations

import asyncio

from ringside.server.dispatch.clock import Clock


class FakeClock(Clock):
    """`advance` moves the time and wakes whatever waits on it, which looks at the time again (as the
    server's tick wakes the dispatcher); `run_free` lets every wait from then on pass at once, the
    time moving on by what it waited for. `now` is also a cluster's clock (Cluster(clock=...))."""

    def __init__(self, start: float = 1000.0):
        self.t = start
        self.free = False
        self.waiting: set[asyncio.Future] = set()

    def now(self) -> float:
        return self.t

    async def wait(self, event: asyncio.Event, seconds: float) -> None:
        if event.is_set():
            return
        if self.free:
            self.t += seconds
            await asyncio.sleep(0)  # a turn for the others, as a wait gives them; no time passes here
            return
        woken = asyncio.get_running_loop().create_future()
        heard = asyncio.ensure_future(event.wait())
        heard.add_done_callback(lambda _: woken.done() or woken.set_result(None))
        self.waiting.add(woken)
        try:
            await woken
        finally:
            self.waiting.discard(woken)
            heard.cancel()

    def advance(self, seconds: float) -> None:
        self.t += seconds
        for woken in self.waiting:
            if not woken.done():
                woken.set_result(None)

    def run_free(self) -> None:
        self.free = True
        self.advance(0)
