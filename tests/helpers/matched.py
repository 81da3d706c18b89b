"""A watched job as the server holds it while it is watched, without a server: its ranks said hello,
on a clock the test turns by hand (a hang check reads it)."""

from __future__ import annotations

from ringside.server.watched.live import LiveWatchedJob
from ringside.worker_agent.core.watch_protocol import WatchHello


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def joined(world: int = 4, clock: Clock | None = None) -> LiveWatchedJob:
    """A live watched job with every rank said hello."""
    watched = None
    for rank in range(world):
        hello = WatchHello(
            job="k",
            rank=rank,
            world_size=world,
            host="h",
            pid=rank + 1,
            launcher="torchrun",
            backend="gloo",
            started_ns=1,
        )
        watched = watched or LiveWatchedJob.start("j-000001", hello, clock=clock or Clock())
        watched.joined(hello)
    assert watched is not None
    return watched
