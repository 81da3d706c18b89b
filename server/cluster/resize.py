"""The world's size, set from the page (POST /api/cluster/size, a lesson's stage): the ranks that
`ringside up` started grow or shrink in place (LocalWorkers.resize), with the same world key and
tokens, while every page stays connected. A world the server did not start (ranks under torchrun,
a spawning script) is never resized: its launcher owns it.

One resize at a time (the others wait their turn). It waits for the job that holds the cluster
(RESIZE_WAIT_S at most, then it is refused), and the dispatcher takes no new job meanwhile: every
job is planned for the world it runs on."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

from starlette.requests import HTTPConnection

from ringside.server.cluster.cluster import Cluster
from ringside.server.cluster.workers import ClusterMessage, Workers
from ringside.server.dispatch.dispatcher import Dispatcher
from ringside.server.door.audience import Feed
from ringside.server.door.errors import Busy, NotReady
from ringside.worker_agent.core.validation import SpecError

if TYPE_CHECKING:
    from ringside.worker_agent.rank.launch import LocalWorkers

RESIZE_WAIT_S = 30.0  # how long a resize waits for the job that holds the cluster
WHOLE_WITHIN_S = 60.0  # how long the resized world has to say hello, every rank
LOOK_S = 0.05  # how often a waiting resize looks again
NOT_OURS = (
    "this server did not start its ranks (they joined with the worker token: torchrun, a script), "
    "so it cannot resize their world: start them again with the number of ranks you want"
)


class Resizer:
    def __init__(
        self,
        cluster: Cluster,
        workers: Workers,
        dispatcher: Dispatcher,
        fanout: Feed,
        local: LocalWorkers | None,
    ):
        self.cluster, self.workers, self.dispatcher, self.local = cluster, workers, dispatcher, local
        self.fanout = fanout
        self.lock = asyncio.Lock()
        self.retiring: set[asyncio.Task[None]] = set()  # ranks beyond a shrunk world, stopping

    @property
    def max_ranks(self) -> int | None:
        """The most ranks the world may grow to; None where the server does not own it."""
        return self.local.max_ranks if self.local is not None else None

    def refusal(self, n: int) -> str | None:
        """Why the world cannot be resized to n ranks, whatever it is doing, or None."""
        if self.local is None:
            return NOT_OURS
        if not 1 <= n <= self.local.max_ranks:
            return f"must be 1 to {self.local.max_ranks} (ringside up --max-ranks), not {n}"
        return self.local.splits(n)

    async def resize(self, n: int) -> None:
        """The world of n ranks, whole, once this returns. Raises SpecError (422: it cannot be),
        Busy (409: a job held the cluster too long) or NotReady (503: the world is not whole)."""
        problem = self.refusal(n)
        if problem:
            raise SpecError("ranks", problem)
        async with self.lock:
            if self._whole(n):
                return
            missing = self.cluster.missing()
            if missing or not self.cluster.live():
                why = f"ranks {missing} are not connected; resize once the world is whole"
                raise NotReady("cluster", why)
            self.dispatcher.resizing = n  # no new job meanwhile
            try:
                await self._idle()
                await self._regroup(n)
                # every page sees the new world at once, not at the next tick (workers.announce)
                self.fanout.publish(ClusterMessage(**self.cluster.to_json()))
            finally:
                self.dispatcher.resizing = None
                self.dispatcher.nudge()

    async def _idle(self) -> None:
        """Until no job holds the cluster; Busy if one still does after RESIZE_WAIT_S."""
        deadline = time.monotonic() + RESIZE_WAIT_S
        while (held := self.dispatcher.holder()) is not None:
            if time.monotonic() > deadline:
                raise Busy("cluster", f"{held.id} holds the cluster; resize once it has ended")
            await asyncio.sleep(LOOK_S)

    async def _regroup(self, n: int) -> None:
        """Start the ranks the world lacks, tell each running rank its place (or to leave), and wait
        for the new world to be whole."""
        assert self.local is not None
        orders, leaving = await asyncio.to_thread(self.local.resize, n)
        self.cluster.resize(n)
        for rank, order in orders.items():
            await self.workers.tell_rank(rank, order.model_dump_json())
        if leaving:
            task = asyncio.create_task(asyncio.to_thread(self.local.retire, leaving))
            self.retiring.add(task)
            task.add_done_callback(self.retiring.discard)
        deadline = time.monotonic() + WHOLE_WITHIN_S
        while not self._whole(n):
            if time.monotonic() > deadline:
                raise NotReady(
                    "cluster",
                    f"the world of {n} ranks was not whole within {WHOLE_WITHIN_S:g} s; ringside up "
                    "restarts its ranks (the cluster view shows them come back)",
                )
            await asyncio.sleep(LOOK_S)

    def _whole(self, n: int) -> bool:
        return self.cluster.world_size == n and self.cluster.complete and not self.cluster.missing()


async def resizer_of(conn: HTTPConnection) -> Resizer:
    return conn.app.state.resizer
