"""A watched job's matching as the server holds it, without a server: its ranks said hello, on a
clock the test turns by hand (hangs.py's checks read it)."""

from __future__ import annotations

from ringside.server.watched.matching import Matching
from ringside.worker_agent.core.watch_protocol import WatchHello


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def joined(world: int = 4, clock: Clock | None = None) -> Matching:
    """A job's matching with every rank said hello."""
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
        watched = watched or Matching.start("j-000001", hello, clock=clock or Clock())
        watched.joined(hello)
    assert watched is not None
    return watched
