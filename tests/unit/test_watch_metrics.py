"""Watched jobs on /metrics (server/watched/job_metrics.py), read by Prometheus' own parser: a job's
collectives seen and missed, hung 0 or 1, and while it hangs whom it names; built from a live job fed
the reports its ranks would send, on a clock the test moves (as test_watch_verdicts.py makes a hang),
and from the service that keeps the last jobs to end."""

from __future__ import annotations

from matched import Clock, joined
from prometheus_client.parser import text_string_to_metric_families

from ringside.server.db.database import Database
from ringside.server.watched import hangs, job_metrics
from ringside.server.watched.job_metrics import ENDED_SHOWN, JobFigures, rank_runs
from ringside.server.watched.live import LiveWatchedJob
from ringside.server.watched.rank_waits import HANG_S
from ringside.server.watched.service import Watching
from ringside.server.watched.store import WatchStore
from ringside.worker_agent.core.watch_protocol import Issued, WatchBye, WatchHello, WatchReport

TICK = HANG_S + 0.2  # more than a hang's time, well less than a silence's


def one(seq: int, count: int = 1000) -> Issued:
    return Issued(group="0", seq=seq, op="allreduce", dtype="float32", count=count, t_ns=5 + seq)


def said(watched: LiveWatchedJob, rank: int, *issued: Issued, **fields) -> None:
    watched.report(WatchReport(rank=rank, t_ns=10, issued=list(issued), **fields))


def scraped(figures: list[JobFigures]) -> dict[str, dict[tuple, float]]:
    """Each sample's value by its name and its labels, as Prometheus' parser reads the lines."""
    found: dict[str, dict[tuple, float]] = {}
    text = "\n".join(job_metrics.render(figures)) + "\n"
    for family in text_string_to_metric_families(text):  # raises on a line it cannot read
        for s in family.samples:
            found.setdefault(s.name, {})[tuple(sorted(s.labels.items()))] = s.value
    return found


def rank_3_stopped(clock: Clock) -> LiveWatchedJob:
    """Four ranks all-reduce #1; ranks 0-2 go on to #3 and wait there a hang's time for rank 3, which
    stopped before it said #2 (a wait: rank 3 late). Rank 1 missed 5 collectives (its ring overwrote
    them unread)."""
    watched = joined(4, clock)
    for rank in range(4):
        said(watched, rank, one(1, count=1), pending={})
    for rank in range(3):
        said(watched, rank, one(2), one(3, count=10), pending={"0": 3}, missed=5 if rank == 1 else 0)
    clock.t += TICK
    for rank in range(3):
        said(watched, rank, pending={"0": 3}, missed=5 if rank == 1 else 0)
    return watched


def test_a_hang_is_hung_1_naming_its_late_and_waiting_ranks_and_0_once_it_caught_up():
    clock = Clock()
    watched = rank_3_stopped(clock)
    job = (("job_id", "j-000001"), ("script", ""))
    before = scraped([JobFigures.of(watched)])
    assert before["ringside_watched_hung"] == {job: 0}, "not checked yet: no hang is held"
    assert before["ringside_watched_collectives_total"] == {job: 3}
    assert before["ringside_watched_collectives_missed_total"] == {job: 5}

    hangs.hang_change(watched)
    during = scraped([JobFigures.of(watched)])
    assert during["ringside_watched_hung"] == {job: 1}
    info = dict(next(iter(during["ringside_watched_hang_info"])))
    assert info == {
        "job_id": "j-000001",
        "script": "",
        "kind": "wait",
        "group": "0",
        "op": "all_reduce",
        "seq": "3",
        "late": "3",
        "waiting": "0-2",
    }
    assert during["ringside_watched_hang_seconds"][job] > 0

    said(watched, 3, one(2), one(3, count=10), pending={})  # SIGCONT: it says #2 and #3, #3 completes
    hangs.hang_change(watched)
    after = scraped([JobFigures.of(watched)])
    assert after["ringside_watched_hung"] == {job: 0}
    assert "ringside_watched_hang_info" not in after and "ringside_watched_hang_seconds" not in after


def test_a_hangs_ranks_are_said_as_runs_a_few_of_them_the_rest_counted():
    assert rank_runs([3]) == "3"
    assert rank_runs([0, 1, 2, 5, 7, 8]) == "0-2,5,7-8"
    assert rank_runs([r for r in range(4096) if r != 2]) == "0-1,3-4095"
    assert rank_runs(list(range(0, 40, 2))) == "0,2,4,6,8,10,12,14,+12"


def ended_job(watching: Watching, key: str) -> None:
    """A job of two ranks that joined, said goodbye with 0 and went."""
    sockets = {}
    for rank in range(2):
        hello = WatchHello(
            job=key, rank=rank, world_size=2, host="h", pid=rank + 1, launcher="torchrun", backend="gloo",
            started_ns=1, script=f"{key}.py",
        )  # fmt: skip
        watched, problem = watching.join(hello, socket=sockets.setdefault(rank, object()))
        assert watched is not None, problem
    for rank in range(2):
        watching.report(watched, WatchBye(rank=rank, exit_code=0))
        watching.left(watched, rank, sockets[rank])


class Heard:
    def publish(self, message) -> None:
        pass


def test_only_the_jobs_watched_now_and_the_last_few_to_end_are_shown(tmp_path):
    database = Database(tmp_path / "runs.db")
    try:
        watching = Watching(WatchStore(database), Heard())
        for n in range(ENDED_SHOWN + 3):
            ended_job(watching, f"k{n}")
            watching.check(summarise=False)
        assert not watching.live
        found = scraped(watching.figures())
        shown = sorted(dict(labels)["script"] for labels in found["ringside_watched_hung"])
        assert shown == sorted(f"k{n}.py" for n in range(3, ENDED_SHOWN + 3))
        assert set(found["ringside_watched_hung"].values()) == {0}
        # a lost job whose ranks came back is live again under its id: said once, as it is now
        hello = WatchHello(job="again", rank=0, world_size=2, host="h", pid=9, launcher="torchrun",
                           backend="gloo", started_ns=1, script="again.py")  # fmt: skip
        again, _ = watching.join(hello, socket=object())
        assert again is not None
        watching.ended.append(JobFigures.of(again))  # as it was when it was lost
        ids = [f.id for f in watching.figures()]
        assert ids.count(again.job.id) == 1
    finally:
        database.close()
