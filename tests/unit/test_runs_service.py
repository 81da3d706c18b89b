"""The run service in-process (server/runs/service.py, run.py, store.py): a run's life from its spec
to its merged result, with the ranks' events fed in as they send them (in_process.py builds them
from the protocol), over the real dispatcher and cluster, a recorded `tell`, a SQLite file in
tmp_path, and a record of what the fan-out would send (its neighbour)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import warnings
from collections import defaultdict
from pathlib import Path

import pytest
from fake_clock import FakeClock
from in_process import Told, cancelled, error, finished, hello, started, step

from ringside.server.cluster.cluster import Cluster
from ringside.server.cluster.metrics import Metrics
from ringside.server.db.database import Database
from ringside.server.dispatch.dispatcher import Dispatcher
from ringside.server.dispatch.job import JobState
from ringside.server.model import costs
from ringside.server.runs.run import Run, new_run
from ringside.server.runs.service import Runs
from ringside.server.runs.store import RunStore
from ringside.worker_agent.core.protocol import PROTOCOL_VERSION, Cancel, RunCommand, RunSpec

SMALL = {"collective": "all_reduce", "algorithm": "ring", "count": 8}


class Heard:
    """What the fan-out would send every viewer (its `publish`), in order, as JSON written when it
    is published (a message holds the live run, which goes on changing)."""

    def __init__(self):
        self.messages: list[dict] = []

    def publish(self, message) -> None:
        self.messages.append(json.loads(message.model_dump_json()))

    def about(self, run_id: str) -> list[dict]:
        """The messages about one run."""
        return [m for m in self.messages if m.get("run_id", m.get("run", {}).get("id")) == run_id]


class Service:
    """The run service as the app builds it (app.build), over `ranks` ranks that have said hello."""

    def __init__(self, db: Path, ranks: int, **hello_fields):
        self.clock = FakeClock()
        self.cluster = Cluster(lost_after=5, clock=self.clock.now)
        self.told = Told()
        self.dispatcher = Dispatcher(self.cluster, self.told, self.clock)
        self.database = Database(db)
        self.store = RunStore(self.database)
        self.heard = Heard()
        self.metrics = Metrics(self.store.last_busbw())
        self.fit = costs.Fit(self.store.fit_rows(costs.FIT_WINDOW))
        self.runs = Runs(
            self.store, self.dispatcher, self.cluster, self.heard, self.fit, self.metrics, elsewhere=no_run
        )
        self.endings: dict[str, asyncio.Event] = defaultdict(asyncio.Event)
        self.runs.on_end.append(lambda run: self.endings[run.id].set())
        for r in range(ranks):
            self.cluster.join(hello(r, ranks, **hello_fields))

    async def submit(self, **spec) -> str:
        return (await self.runs.submit(RunSpec(**{**SMALL, **spec}))).id

    async def command(self) -> RunCommand:
        command = await self.told.next()
        assert isinstance(command, RunCommand), command
        return command

    def feed(self, *events) -> None:
        """Events from the ranks, as the worker socket hands them on (cluster/socket.py)."""
        for event in events:
            self.cluster.seen(event.rank)
            self.dispatcher.on_event(event)

    async def ended(self, run_id: str) -> Run:
        await asyncio.wait_for(self.endings[run_id].wait(), 10)
        return self.runs.find(run_id)

    def stored(self, run_id: str) -> dict:
        """The run as the file holds it, read by a store of its own (as a restarted server reads it)."""
        self.database.flush()
        again = Database(self.database.writer.path)
        try:
            found = RunStore(again).read(run_id)
            return json.loads(found[1]) if found else {}
        finally:
            again.close()


def no_run(run_id: str) -> None:
    return None  # no other feature makes runs here (a training's syncs)


@contextlib.asynccontextmanager
async def service(tmp_path: Path, ranks: int = 2, **hello_fields):
    s = Service(tmp_path / "runs.db", ranks, **hello_fields)
    s.dispatcher.start()
    try:
        yield s
    finally:
        await s.dispatcher.shutdown()
        s.database.close()


def test_a_run_merges_every_rank_and_reports_the_slowest(tmp_path):
    async def scenario():
        async with service(tmp_path) as s:
            run_id = await s.submit(iterations=3)
            command = await s.command()
            assert command.run_id == run_id and command.spec.iterations == 3
            for rank, seconds in ((0, 0.002), (1, 0.004)):
                s.feed(started(command, rank), step(command, rank, 0), finished(command, rank, seconds))
            run = await s.ended(run_id)
            assert run.state == JobState.DONE and run.verified is True
            assert run.time == pytest.approx(0.004)  # the slowest rank's median
            assert run.algbw == pytest.approx(8 * 4 / 0.004)
            assert run.busbw == pytest.approx(run.algbw * 2 * (2 - 1) / 2)
            assert sorted(run.steps[0].ranks) == ["0", "1"]
            assert s.stored(run_id) == json.loads(run.model_dump_json()), "stored as it ended"

    asyncio.run(scenario())


def test_a_run_that_a_rank_never_finishes_fails_naming_that_rank(tmp_path):
    async def scenario():
        async with service(tmp_path) as s:
            run_id = await s.submit(timeout=1)  # 1 s a step, for its iteration and two more: 3 s
            command = await s.command()
            s.feed(started(command, 0), finished(command, 0))
            s.cluster.seen(1)  # rank 1 keeps beating but never finishes
            s.clock.advance(3)
            run = await s.ended(run_id)
            assert run.state == JobState.FAILED
            assert "ranks [1] did not finish within 3 s" in run.error, run.error

    asyncio.run(scenario())


def test_an_error_from_a_rank_fails_the_run_with_its_words(tmp_path):
    async def scenario():
        async with service(tmp_path, ranks=1) as s:
            run_id = await s.submit()
            await s.command()
            s.feed(error(run_id, 0, "scripted refusal", field="count"))
            s.clock.run_free()  # no rank is lost in the grace the dispatcher gives one
            run = await s.ended(run_id)
            assert run.state == JobState.FAILED and run.error == "count: scripted refusal"
            assert s.stored(run_id)["error"] == "count: scripted refusal"

    asyncio.run(scenario())


def test_cancel_a_queued_run_now_and_a_running_one_once_its_ranks_stop(tmp_path):
    async def scenario():
        async with service(tmp_path) as s:
            running, queued = await s.submit(iterations=100), await s.submit()
            command = await s.command()
            assert command.run_id == running
            answer = s.runs.cancel(queued)
            assert answer.state == JobState.CANCELLED and s.stored(queued)["state"] == "cancelled"
            answer = s.runs.cancel(running)
            assert answer.state == JobState.RUNNING and answer.cancel_requested is True
            assert await s.told.next() == Cancel(v=PROTOCOL_VERSION, run_id=running)
            s.runs.cancel(running)  # asked twice, told once
            s.feed(started(command, 0), cancelled(running, 0))
            assert s.runs.find(running).cancelled_ranks == [0]
            assert s.runs.find(running).state == JobState.RUNNING, "rank 1 has not stopped yet"
            s.feed(cancelled(running, 1))
            run = await s.ended(running)
            assert run.state == JobState.CANCELLED and sorted(run.cancelled_ranks) == [0, 1]
            assert run.results == {}
            assert s.told.left() == [], "the second cancel sent nothing"
            assert s.runs.cancel("r-424242") is None  # nothing has that id (404)

    asyncio.run(scenario())


def test_viewers_hear_a_run_start_once_every_rank_has_and_then_each_step(tmp_path):
    async def scenario():
        async with service(tmp_path) as s:
            run_id = await s.submit()
            command = await s.command()
            s.feed(started(command, 0, inputs=[{"chunk": 0, "preview": [1, 2]}]), step(command, 0, 0))
            assert "0" in s.runs.find(run_id).steps[0].ranks, "merged"
            assert [m["type"] for m in s.heard.about(run_id)] == ["run"], "not yet sent"
            s.feed(started(command, 1), step(command, 1, 0), finished(command, 0), finished(command, 1))
            await s.ended(run_id)
            failing = await s.submit()
            await s.command()
            s.feed(error(failing, 0, "scripted refusal before starting"))
            s.clock.run_free()
            await s.ended(failing)
            return s.heard.about(run_id), s.heard.about(failing)

    ours, theirs = asyncio.run(scenario())
    assert [m["type"] for m in ours] == ["run", "run_started", "step", "run_ended"]
    queued, begun, stepped, done = ours
    assert queued["run"]["state"] == "queued" and "steps" not in queued["run"]  # a summary
    assert begun["run"]["state"] == "running" and begun["run"]["inputs"]["0"][0]["preview"] == [1, 2]
    # rank 0's step came before rank 1 started
    assert [list(s["ranks"]) for s in begun["run"]["steps"]] == [["0"], []]
    assert begun["run"]["steps"][1]["transfers"] and begun["run"]["schedule"]["algorithm"] == "ring"
    assert (stepped["step"], stepped["rank"], stepped["t0"], stepped["t1"]) == (0, 1, 0, 0.5)
    assert done["run"]["state"] == "done" and sorted(done["run"]["steps"][0]["ranks"]) == ["0", "1"]
    assert [m["type"] for m in theirs] == ["run", "run_ended"]
    assert theirs[-1]["run"]["state"] == "failed"
    assert theirs[-1]["run"]["error"] == "scripted refusal before starting"


@pytest.mark.parametrize(
    "spec",
    [
        dict(collective="all_reduce", algorithm="ring", count=8 * 4, dtype="int64", capture="full"),
        dict(collective="broadcast", algorithm="binomial_tree", root=1, count=6, capture="summary"),
    ],
)
def test_a_live_viewer_rebuilds_the_run_without_asking_for_it(tmp_path, spec):
    """From run_started on, a viewer holds the run's plan and inputs; applying each step message
    to it gives every rank's states per step, as GET /api/runs/{id} has them. The ranks report
    out of step with each other: rank 0 runs ahead before the others have started."""
    p = 4

    async def scenario():
        async with service(tmp_path, ranks=p) as s:
            run_id = (await s.runs.submit(RunSpec(**spec))).id
            command = await s.command()
            steps = len(s.runs.find(run_id).steps)
            chunks = len(s.runs.find(run_id).chunk_bounds)
            states = [{"chunk": c, "preview": [c], "sum": c} for c in range(chunks)]
            s.feed(started(command, 0, inputs=states[:1]), step(command, 0, 0, states=states[:1]))
            for rank in range(1, p):
                s.feed(started(command, rank, inputs=states[:1]))
            for number in range(steps):
                for rank in range(p):
                    if (rank, number) != (0, 0):
                        s.feed(step(command, rank, number, states=[states[(rank + number) % chunks]]))
            s.feed(*(finished(command, rank) for rank in range(p)))
            await s.ended(run_id)
            return s.heard.about(run_id), s.stored(run_id)

    seen, stored = asyncio.run(scenario())
    assert [m["type"] for m in seen if m["type"] != "step"] == ["run", "run_started", "run_ended"]
    at = next(i for i, m in enumerate(seen) if m["type"] == "run_started")
    begun = seen[at]["run"]
    rebuilt = json.loads(json.dumps(begun))
    for m in seen[at + 1 :]:
        if m["type"] == "step":
            assert str(m["rank"]) not in rebuilt["steps"][m["step"]]["ranks"], "a step is sent once"
            rebuilt["steps"][m["step"]]["ranks"][str(m["rank"])] = {k: m[k] for k in ("t0", "t1", "states")}
    assert stored["state"] == "done" and stored == seen[-1]["run"]
    assert rebuilt["steps"] == stored["steps"] and len(stored["steps"]) > 1
    assert all(sorted(int(r) for r in step["ranks"]) == list(range(p)) for step in stored["steps"])
    assert begun["state"] == "running" and sorted(int(r) for r in begun["inputs"]) == list(range(p))
    for key in ("schedule", "layout", "chunk_bounds", "inputs", "input_chunks", "op", "group"):
        assert begun[key] == stored[key], key
    assert begun["layout"]["shape"] == stored["schedule"]["layout"]
    assert begun["layout"]["root"] == (1 if spec["collective"] == "broadcast" else None)


def forged(s: Service, run_id: str) -> Run:
    """Let the dispatcher's grace for a lost rank pass, and the run that a forged report failed end."""
    s.clock.run_free()
    return s.ended(run_id)


@pytest.mark.parametrize(
    "report,words",
    [
        # within the frame's bound (protocol.MAX_ITERATIONS), past the run's
        (dict(timings={"iterations": [0.001] * 2}), "2 iterations"),
        (dict(timings={"iterations": [-1.0]}), "negative time"),
        # a start per iteration at most
        (dict(timings={"iterations": [0.001], "starts": [0.0, 0.5]}), "1 iterations"),
        (dict(timings={"iterations": [0.001], "starts": [1e300]}), "not a number of seconds"),
        (
            dict(timings={"iterations": [0.001]}, output=[{"chunk": 10**9, "values": [1]}]),
            "ended with a chunk",
        ),
        (dict(timings={"iterations": [0.001]}, bytes_sent=10**30), "outside 0 to 2^64"),
        (dict(timings={"iterations": [0.001]}, checksum=-1), "outside 0 to 2^64"),
    ],
)
def test_a_forged_result_fails_the_run_and_stores_none_of_it(tmp_path, report, words):
    async def scenario():
        async with service(tmp_path) as s:
            run_id = await s.submit(iterations=1)
            command = await s.command()
            s.feed(started(command, 0), finished(command, 0, **report))
            run = await forged(s, run_id)
            assert run.state == JobState.FAILED and words in run.error, run.error
            assert not run.results and run.time is None
            assert not s.stored(run_id)["results"]

    asyncio.run(scenario())


def test_a_forged_start_fails_the_run(tmp_path):
    async def scenario():
        async with service(tmp_path) as s:
            run_id = await s.submit()
            s.feed(started(await s.command(), 0, inputs=[{"chunk": 300, "values": [1] * 4}]))
            run = await forged(s, run_id)
            assert run.state == JobState.FAILED and "started with a chunk" in run.error and not run.inputs

    asyncio.run(scenario())


@pytest.mark.parametrize(
    "report,words",
    [
        (dict(number=10**6), "outside the run's 2 planned steps"),
        (dict(number=0, states=[{"chunk": 99, "preview": [1]}]), "a chunk the run's buffer does not have"),
        (
            dict(number=0, states=[{"chunk": 0, "values": list(range(4000))}]),
            "a chunk the run's buffer does not have",
        ),
    ],
)
def test_a_forged_step_fails_the_run_and_grows_nothing(tmp_path, report, words):
    async def scenario():
        async with service(tmp_path) as s:
            run_id = await s.submit()  # a ring of two: two planned steps, chunks of four elements
            command = await s.command()
            s.feed(started(command, 0), step(command, 0, **report))
            run = await forged(s, run_id)
            assert run.state == JobState.FAILED and words in run.error, run.error
            assert len(run.steps) == 2 and not any(s.ranks for s in run.steps)

    asyncio.run(scenario())


def test_ranks_that_outnumber_their_cores_are_recorded_sharing_them(tmp_path):
    """Three ranks on one host with one core: each says so in its hello, and the run records it,
    stored as its type says (a list where the type has a tuple made pydantic warn at each save)."""

    async def scenario():
        async with service(tmp_path, ranks=3, cores=1) as s:
            assert [r["cores"] for r in s.cluster.to_json()["ranks"]] == [1, 1, 1]
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                run_id = await s.submit()
            return s.stored(run_id)

    assert asyncio.run(scenario())["sharing"] == [[[0, 1, 2], 1]]


def test_a_run_that_ends_counts_at_once_in_the_metrics_and_the_fit(tmp_path):
    async def scenario():
        async with service(tmp_path) as s:
            run_id = await s.submit()
            command = await s.command()
            for rank in (0, 1):
                s.feed(started(command, rank), step(command, rank, 0), step(command, rank, 1))
                s.feed(finished(command, rank, seconds=0.004))
            run = await s.ended(run_id)
            return run, s

    run, s = asyncio.run(scenario())
    assert run.state == JobState.DONE and run.id == "r-000001"
    assert s.store.counts() == {("done", "all_reduce"): 1}
    steps = s.metrics.steps[("all_reduce", "ring", "in-process")]
    assert sum(steps.counts) == 4, "every rank's every step, by the host its hello named"
    assert sum(s.metrics.busbw[("all_reduce", "ring")].counts) == 1
    assert s.metrics.last_busbw["all_reduce"] == pytest.approx(run.busbw)
    assert run.prediction is not None and list(s.fit.stepwise) == [costs.row_of(run)], "fitted"


STOPPED = "the server stopped before this run finished"


def test_a_restarted_server_keeps_history_and_marks_what_was_left_unfinished_interrupted(tmp_path):
    """A server killed (no goodbye) leaves a run `running` and one `queued` in the file; the next
    one started on the file marks both interrupted, keeps the finished run as it was, and counts
    its run ids on."""

    async def killed():
        s = Service(tmp_path / "runs.db", 2)
        s.dispatcher.start()
        done = await s.submit()
        command = await s.command()
        s.feed(*(e for r in (0, 1) for e in (started(command, r), finished(command, r))))
        kept = (await s.ended(done)).model_dump(mode="json")
        running, queued = await s.submit(iterations=100), await s.submit()
        await s.command()
        s.dispatcher.task.cancel()  # killed: nothing of it runs on, nothing is concluded
        await asyncio.gather(s.dispatcher.task, return_exceptions=True)
        s.database.close()  # what was given to the store is in the file, as it is at a kill
        return kept, running, queued

    async def restarted(kept, running, queued):
        async with service(tmp_path) as s:
            s.dispatcher.recover(s.runs.left_unfinished())  # as app.build does
            for run_id in (running, queued):
                stored = s.stored(run_id)
                assert (stored["state"], stored["error"]) == ("interrupted", STOPPED), stored
            assert s.stored(kept["id"]) == kept
            assert await s.submit() == "r-000004"

    asyncio.run(restarted(*asyncio.run(killed())))


def test_ctrl_c_during_a_run_marks_it_interrupted_not_failed(tmp_path):
    """The ranks leave with the server, and the run they were in the middle of did not fail
    (serve.Server.handle_exit says the server is stopping before the ranks' sockets close)."""

    async def scenario():
        async with service(tmp_path) as s:
            run_id = await s.submit(iterations=10_000)
            command = await s.command()
            s.feed(started(command, 0), started(command, 1))
            s.dispatcher.stopping = True
            s.cluster.leave(0)
            s.dispatcher.on_event(error(run_id, 1, "connection closed by peer"))
            run = await s.ended(run_id)
            assert (run.state, run.error) == (JobState.INTERRUPTED, STOPPED)
            return s.stored(run_id)

    stored = asyncio.run(scenario())
    assert (stored["state"], stored["error"]) == ("interrupted", STOPPED)


def test_run_ids_count_on_across_restarts(tmp_path):
    async def one_server() -> list[str]:
        async with service(tmp_path) as s:
            # the first runs (and is interrupted by the stop), the second waits
            return [await s.submit(), await s.submit()]

    ids = [run_id for _ in range(3) for run_id in asyncio.run(one_server())]
    # before: r-000001, r-000002, r-000004, ... (seq, not ids)
    assert ids == [f"r-{i:06d}" for i in range(1, 7)]


def test_a_run_stored_before_layouts_were_kept_gets_its_layout_and_op_when_read():
    run = new_run(
        "r-1", RunSpec(collective="broadcast", algorithm="binomial_tree", root=2, count=4), "gloo", 4
    )
    old = run.model_dump(mode="json", exclude={"layout", "op"})
    again = Run.model_validate_json(json.dumps(old))
    assert again.layout == run.layout and again.layout.root == 2 and again.layout.shape == run.schedule.layout
    assert (
        again.op is None
        and Run.model_validate(
            new_run("r-2", RunSpec(collective="barrier"), "gloo", 4).model_dump(exclude={"layout", "op"})
        ).op
        == "BOR"
    )
