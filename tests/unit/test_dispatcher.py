"""The dispatcher in-process (server/dispatch/dispatcher.py): the real Dispatcher over the real
Cluster fed ranks' hellos, a recorded `tell` for what the ranks would be sent, a clock that moves
only when the test says, and a job kind of the test's own (the dispatcher's neighbour: a run, a
training and a bench are kinds of job alike). Queue order, cancel, a lost rank, a restart,
deadlines, the queue's bound and a job that does not queue."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import ClassVar

import pytest
from fake_clock import FakeClock
from in_process import Told, cancelled, error, hello

from ringside.server.cluster.cluster import Cluster
from ringside.server.dispatch.dispatcher import LOSS_GRACE_S, MAX_QUEUE, Dispatcher
from ringside.server.dispatch.job import Job, JobState
from ringside.server.dispatch.ranked import RankedRecord
from ringside.server.door.errors import Busy, NotReady, status_of
from ringside.worker_agent.core.protocol import (
    Cancel,
    ErrorEvent,
    Hello,
    RunCancelled,
    RunCommand,
    RunFinished,
    RunSpec,
    Shutdown,
    Timings,
)

P = 3


class Record(RankedRecord):
    id: str
    world_size: int
    state: JobState = JobState.QUEUED
    error: str | None = None
    cancel_requested: bool = False
    finished_at: float | None = None


class Errand(Job):
    """A job of the test's own kind: every rank is told to run a barrier under its id, it takes
    RunFinished, RunCancelled and ErrorEvent, and its ranks are allowed `allowed` seconds."""

    kind = "run"
    events = (RunFinished, RunCancelled, ErrorEvent)
    allowed: ClassVar[float] = 3.0

    def __init__(self, job_id: str, world_size: int = P):
        super().__init__(Record(id=job_id, world_size=world_size))
        self.ended = asyncio.Event()
        self.how: list[tuple[JobState, str | None]] = []  # each end the dispatcher gave it

    def save(self, landed: Callable[[], None]) -> None:
        landed()

    def command(self) -> RunCommand:
        return RunCommand(run_id=self.id, spec=RunSpec(collective="barrier"))

    def allowed_s(self) -> float:
        return self.allowed

    def begin(self) -> None:
        self.record.state = JobState.RUNNING

    def take(self, event) -> None:
        if isinstance(event, RunFinished):
            self.record.finished(event.rank)
        elif isinstance(event, RunCancelled):
            self.record.on_cancelled(event)
        else:
            self.record.on_error(event)

    def end(self, state: JobState, error: str | None) -> None:
        self.how.append((state, error))
        self.record.ended(state, error)
        self.ended.set()

    async def over(self) -> Record:
        await asyncio.wait_for(self.ended.wait(), 10)
        return self.record


class Solo(Errand):
    """A job that does not queue (as a training or a bench)."""

    kind = "bench"
    queues = False


class Cluster3:
    """The dispatcher, started, over a cluster whose P ranks have said hello."""

    def __init__(self, ranks: int = P):
        self.clock = FakeClock()
        self.cluster = Cluster(lost_after=5, clock=self.clock.now)
        self.told = Told()
        self.dispatcher = Dispatcher(self.cluster, self.told, self.clock)
        for r in range(ranks):
            self.join(r)

    def join(self, rank: int) -> None:
        self.join_as(hello(rank, P))

    def join_as(self, said: Hello) -> None:
        self.cluster.join(said)
        self.dispatcher.nudge()  # as the worker socket does (cluster/socket.py)

    def leave(self, rank: int) -> None:
        self.cluster.leave(rank)
        self.dispatcher.nudge()

    def later(self, seconds: float) -> None:
        """`seconds` pass, every connected rank having beaten just before (it stays live)."""
        for r, rank in self.cluster.ranks.items():
            if rank.connected:
                self.cluster.seen(r)
        self.clock.advance(seconds)

    def finish(self, job: Errand, *ranks: int) -> None:
        for r in ranks or range(P):
            timings = Timings(iterations=[0.001])
            self.dispatcher.on_event(RunFinished(run_id=job.id, rank=r, verified=True, timings=timings))

    async def told_to_start(self) -> str:
        """The id of the next job the ranks are told to start."""
        command = await self.told.next()
        assert isinstance(command, RunCommand), command
        return command.run_id


def served(scenario: Callable[[Cluster3], object], ranks: int = P):
    """Run `scenario(c)` with the dispatcher started, and stop it after."""

    async def main():
        c = Cluster3(ranks)
        c.dispatcher.start()
        try:
            return await scenario(c)
        finally:
            await c.dispatcher.shutdown()

    return asyncio.run(main())


def test_jobs_run_one_at_a_time_in_the_order_accepted():
    async def scenario(c: Cluster3):
        jobs = [Errand(f"j-{i}") for i in range(3)]
        for job in jobs:
            await c.dispatcher.submit(job)
        started = []
        for job in jobs:
            started.append(await c.told_to_start())
            assert c.told.left() == [], "one job at a time"
            assert [j.record.state for j in jobs] == [
                JobState.DONE if j.id in started[:-1] else JobState.RUNNING if j is job else JobState.QUEUED
                for j in jobs
            ]
            c.finish(job)
            await job.over()
        assert started == ["j-0", "j-1", "j-2"]
        assert [j.how for j in jobs] == [[(JobState.DONE, None)]] * 3

    served(scenario)


def test_a_job_waits_for_every_rank_of_the_world():
    async def scenario(c: Cluster3):
        c.leave(1)
        job = Errand("j-1")
        with pytest.raises(NotReady) as refused:
            c.dispatcher.check_whole("run")
        assert refused.value.field == "group"
        assert refused.value.message == (
            "ranks [1] of the world are not connected; every rank takes part in every run"
        )
        await c.dispatcher.submit(job)  # taken (the run service checks before), held until the world is whole
        c.join(1)
        assert await c.told_to_start() == "j-1"

    served(scenario)


def test_with_no_rank_nothing_is_taken():
    async def scenario(c: Cluster3):
        with pytest.raises(NotReady) as refused:
            c.dispatcher.check_whole("run")
        assert (refused.value.field, refused.value.message) == ("group", "no ranks are connected")
        assert status_of(refused.value) == 503

    served(scenario, ranks=0)


def test_cancel_a_queued_job_now_and_a_running_one_once_its_ranks_stop():
    async def scenario(c: Cluster3):
        running, queued = Errand("j-1"), Errand("j-2")
        await c.dispatcher.submit(running)
        await c.dispatcher.submit(queued)
        assert await c.told_to_start() == "j-1"
        c.dispatcher.cancel(queued)
        assert queued.how == [(JobState.CANCELLED, None)] and queued not in c.dispatcher.queue
        c.dispatcher.cancel(running)
        assert running.record.cancel_requested and running.record.state == JobState.RUNNING
        c.dispatcher.cancel(running)  # asked twice, told once
        assert await c.told.next() == Cancel(run_id="j-1")
        c.dispatcher.on_event(cancelled("j-1", 0))
        c.dispatcher.on_event(cancelled("j-1", 1))
        c.dispatcher.on_event(cancelled("j-1", 2))
        record = await running.over()
        assert record.state == JobState.CANCELLED and sorted(record.cancelled_ranks) == [0, 1, 2]
        assert c.told.left() == [], "the second cancel sent nothing"

    served(scenario)


def test_a_running_job_cancelled_ends_cancelled_only_once_every_rank_has_stopped():
    async def scenario(c: Cluster3):
        job = Errand("j-1")
        await c.dispatcher.submit(job)
        await c.told_to_start()
        c.dispatcher.cancel(job)
        c.dispatcher.on_event(cancelled("j-1", 0))
        c.finish(job, 1)  # a rank that had finished before it heard the cancel
        follow = Errand("j-2")
        await c.dispatcher.submit(follow)
        await c.told.next()  # the cancel
        assert job.record.state == JobState.RUNNING and c.dispatcher.current is job, "rank 2 has not stopped"
        c.dispatcher.on_event(cancelled("j-1", 2))
        assert (await job.over()).state == JobState.CANCELLED
        assert await c.told_to_start() == "j-2"

    served(scenario)


def test_a_lost_rank_fails_the_job_naming_it_and_the_next_waits_for_its_return():
    async def scenario(c: Cluster3):
        job, after = Errand("j-1"), Errand("j-2")
        await c.dispatcher.submit(job)
        await c.dispatcher.submit(after)
        await c.told_to_start()
        c.finish(job, 0)
        c.leave(2)
        record = await job.over()
        assert record.state == JobState.FAILED
        assert record.error == "rank 2 was lost during the run; ranks [1, 2] did not finish"
        assert after.record.state == JobState.QUEUED and c.told.left() == [], "not without rank 2"
        c.join(2)
        assert await c.told_to_start() == "j-2"

    served(scenario)


def test_the_rank_lost_first_is_named_with_a_survivors_words_and_those_that_gave_up_after():
    async def scenario(c: Cluster3):
        job = Errand("j-1")
        await c.dispatcher.submit(job)
        await c.told_to_start()
        c.cluster.leave(1)
        c.clock.advance(0.1)
        c.cluster.leave(2)  # gave up on rank 1, later
        c.dispatcher.on_event(error("j-1", 0, "connection reset by peer"))  # a survivor's broken connection
        record = await job.over()
        assert record.state == JobState.FAILED
        assert record.error == (
            "rank 1 was lost during the run (then ranks [2], which gave up on it): connection reset by peer"
        )

    served(scenario)


def test_an_error_names_the_rank_lost_soon_after_it_was_heard():
    """A peer's broken connection is often heard before the rank that died is found missing: the
    job waits a grace period to name it."""

    async def scenario(c: Cluster3):
        job = Errand("j-1")
        await c.dispatcher.submit(job)
        await c.told_to_start()
        c.dispatcher.on_event(error("j-1", 0, "peer closed"))
        c.clock.advance(LOSS_GRACE_S / 2)
        c.leave(2)
        record = await job.over()
        assert record.error == "rank 2 was lost during the run: peer closed"

    served(scenario)


def test_an_error_with_no_rank_lost_fails_the_job_with_the_ranks_words():
    async def scenario(c: Cluster3):
        job = Errand("j-1")
        await c.dispatcher.submit(job)
        await c.told_to_start()
        c.dispatcher.on_event(error("j-1", 1, "scripted refusal", field="count"))
        c.clock.run_free()  # the grace for a lost rank passes, none is lost
        record = await job.over()
        assert (record.state, record.error) == (JobState.FAILED, "count: scripted refusal")

    served(scenario)


def test_a_job_whose_rank_never_finishes_fails_at_its_deadline_and_not_before():
    async def scenario(c: Cluster3):
        late, stuck = Errand("j-1"), Errand("j-2")
        for job in (late, stuck):
            await c.dispatcher.submit(job)
        await c.told_to_start()
        c.finish(late, 0, 1)
        c.later(Errand.allowed - 0.1)
        c.finish(late, 2)  # just in time
        assert (await late.over()).state == JobState.DONE
        await c.told_to_start()
        c.finish(stuck, 0, 2)
        c.later(Errand.allowed)
        record = await stuck.over()
        assert (record.state, record.error) == (JobState.FAILED, "ranks [1] did not finish within 3 s")

    served(scenario)


def test_a_silent_rank_is_lost_as_its_connection_closing_is():
    async def scenario(c: Cluster3):
        job = Errand("j-1")
        await c.dispatcher.submit(job)
        await c.told_to_start()
        for r in (0, 2):
            c.cluster.seen(r)
        c.clock.advance(4)
        for r in (0, 2):
            c.cluster.seen(r)
        c.clock.advance(1.5)  # rank 1 silent for 5.5 s: lost (lost_after 5), the others not
        record = await job.over()
        assert record.error == "rank 1 was lost during the run; ranks [0, 1, 2] did not finish"
        assert c.cluster.live() == [0, 2]

    served(scenario)


def test_news_of_a_job_that_ended_or_of_another_kind_is_dropped():
    async def scenario(c: Cluster3):
        first, second = Errand("j-1"), Errand("j-2")
        await c.dispatcher.submit(first)
        await c.dispatcher.submit(second)
        await c.told_to_start()
        c.finish(first)
        await first.over()
        await c.told_to_start()
        c.dispatcher.on_event(error("j-1", 0, "late news"))  # of the job that ended
        c.dispatcher.on_event(Shutdown())  # no job's event at all
        c.finish(second)
        assert (await second.over()).error is None and first.record.error is None

    served(scenario)


def test_a_job_that_does_not_queue_is_refused_while_the_cluster_is_held():
    async def scenario(c: Cluster3):
        run = Errand("r-000001")
        await c.dispatcher.submit(run)
        with pytest.raises(Busy) as refused:
            await c.dispatcher.submit(Solo("b-1"))
        assert status_of(refused.value) == 409 and refused.value.field == "cluster"
        assert refused.value.message == "r-000001 holds the cluster; start a bench when it has ended"
        await c.told_to_start()
        c.finish(run)
        await run.over()
        solo = Solo("b-2")
        await c.dispatcher.submit(solo)  # nothing holds it now
        assert await c.told_to_start() == "b-2"
        await c.dispatcher.submit(Errand("r-000002"))  # a job that queues waits behind it

    served(scenario)


def test_the_queue_is_bounded():
    async def scenario(c: Cluster3):
        c.leave(0)  # nothing starts: every job stays queued
        for i in range(MAX_QUEUE):
            await c.dispatcher.submit(Errand(f"j-{i}"))
        refused = Errand("j-over")
        with pytest.raises(Busy) as busy:
            await c.dispatcher.submit(refused)
        assert status_of(busy.value) == 409 and busy.value.field == "queue"
        assert busy.value.message == f"{MAX_QUEUE} jobs are waiting already; submit again when some have run"
        assert len(c.dispatcher.queue) == MAX_QUEUE and refused.how == []

    served(scenario)


def test_nothing_is_taken_while_the_world_is_resized():
    async def scenario(c: Cluster3):
        c.dispatcher.resizing = 4
        for attempt in (lambda: c.dispatcher.check_whole("run"), lambda: c.dispatcher._check(Errand("j-1"))):
            with pytest.raises(Busy) as busy:
                attempt()
            assert busy.value.message == "the world is being resized to 4 ranks; submit again once it is"

    served(scenario)


def test_what_a_stopped_server_left_unfinished_is_interrupted():
    interrupted = "the server stopped before this run finished"
    left = [Errand("j-1"), Errand("j-2")]
    left[0].record.state = JobState.RUNNING
    Dispatcher(Cluster(lost_after=5), Told()).recover(left)
    assert [j.how for j in left] == [[(JobState.INTERRUPTED, interrupted)]] * 2

    async def scenario(c: Cluster3):
        running, queued = Errand("j-3"), Errand("j-4")
        await c.dispatcher.submit(running)
        await c.dispatcher.submit(queued)
        await c.told_to_start()
        c.dispatcher.on_event(error("j-3", 0, "the ranks go with the server"))
        c.dispatcher.stopping = True  # Ctrl-C: what runs now did not fail
        record = await running.over()
        assert (record.state, record.error) == (JobState.INTERRUPTED, interrupted)
        await c.dispatcher.shutdown()
        assert queued.how == [(JobState.INTERRUPTED, interrupted)] and not c.dispatcher.queue

    served(scenario)


def test_a_job_that_breaks_the_dispatcher_costs_that_job_only(caplog):
    class Broken(Errand):
        def begin(self) -> None:
            raise RuntimeError("a bug in a job kind")

    async def scenario(c: Cluster3):
        broken, next_one = Broken("j-1"), Errand("j-2")
        await c.dispatcher.submit(broken)
        await c.dispatcher.submit(next_one)
        record = await broken.over()
        assert record.state == JobState.FAILED
        assert record.error == "the server failed while running this run (its log says why)"
        assert await c.told_to_start() == "j-2", "the next job runs; the broken one was never told"
        assert c.dispatcher.running() and c.dispatcher.restarts == 0

    served(scenario)
    assert "run j-1: the dispatcher failed" in caplog.text


def test_a_silent_rank_is_lost_and_comes_back_and_a_new_process_takes_its_place():
    async def scenario(c: Cluster3):
        c.later(0)
        c.clock.advance(3)
        for r in (0, 2):
            c.cluster.seen(r)
        c.clock.advance(2.5)  # rank 1 silent for 5.5 s
        assert {r: info["status"] for r, info in enumerate(c.cluster.to_json()["ranks"])} == {
            0: "idle",
            1: "lost",
            2: "idle",
        }
        with pytest.raises(NotReady) as refused:
            c.dispatcher.check_whole("run")
        assert refused.value.message.startswith("ranks [1] of the world are not connected")
        c.cluster.seen(1)  # it beats again
        assert c.cluster.missing() == []
        c.leave(1)  # gone for good; a new process says hello as rank 1
        assert c.cluster.missing() == [1]
        assert c.cluster.conflict(hello(1, P, pid=4242)) is None
        c.join_as(hello(1, P, pid=4242))
        assert c.cluster.missing() == [] and c.cluster.to_json()["ranks"][1]["pid"] == 4242

    served(scenario)
