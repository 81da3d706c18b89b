"""A routine pause is not a hang: a rank that pauses at the same place every few steps (a checkpoint)
and went on each time is named once at most, the first time, and a pause is a hang again only once it
lasts clearly longer than those before; a first stop anywhere is still named at the threshold, which
a server or a job may set (hang_after). Driven as the server drives a job: its ranks' reports, and a
hang check four times a second on a clock the test moves (no server, no ranks)."""

from __future__ import annotations

import pytest
from matched import Clock, joined

from ringside.server.watched import hangs
from ringside.server.watched.live import LiveWatchedJob
from ringside.server.watched.pauses import MARGIN, ROUTINE_MOST_S, Pauses
from ringside.server.watched.rank_waits import HANG_S
from ringside.server.watched.words import english
from ringside.worker_agent.core.watch_protocol import Issued, WatchHello, WatchReport

BEAT = 0.25  # the server's hang check, four times a second
PAUSED = 2  # the rank that pauses
CHECKPOINT = "train.py:40"  # the line it pauses at
COLLECTIVE = "train.py:41"  # and the step's all_reduce, after it


class Job:
    """Four ranks all-reducing once a step, rank 2 at times paused before the step's collective; every
    hang check's change is kept as it is said (started: a hang named; ended: what became of it)."""

    def __init__(self, hang_after: float = HANG_S, where_said: bool = True):
        self.clock = Clock()
        self.watched: LiveWatchedJob = joined(4, self.clock)
        self.watched.hang_after = hang_after
        self.where_said = where_said
        self.seq = 0
        self.started: list[str] = []  # each hang named, in English
        self.after: list[float] = []  # and how long it had lasted then
        self.ended: list[str] = []  # what was said as each ended

    def report(self, rank: int, *issued: Issued, pending: dict[str, int], where: str = "train.py:30") -> None:
        self.watched.report(
            WatchReport(
                rank=rank,
                t_ns=10,
                issued=list(issued),
                pending=pending,
                where=where if self.where_said else None,
            )
        )

    def check(self) -> None:
        change = hangs.hang_change(self.watched)
        if change is not None:
            hang, words = change
            said = english(words)
            if hang is None:
                self.ended.append(said)
            else:
                self.started.append(said)
                self.after.append(hang.since_s)

    def step(self, paused_s: float = 0.0, where: str = CHECKPOINT) -> None:
        """One step: the ranks issue all_reduce #seq; rank PAUSED only after `paused_s`, at `where`,
        while the others wait in it and every rank reports each second; then it completes."""
        self.seq += 1
        one = Issued(group="0", seq=self.seq, op="allreduce", dtype="float32", count=1000, t_ns=5 + self.seq)
        for r in range(4):
            if r != PAUSED:
                self.report(r, one, pending={"0": self.seq})
        waited = 0.0
        while waited < paused_s:
            self.clock.t += BEAT
            waited += BEAT
            # a reporter says where its rank is at least every second: here, each beat; rank PAUSED,
            # as it goes on, at the collective's line a beat before it says it issued it
            at = where if waited < paused_s else COLLECTIVE
            for r in range(4):
                self.report(r, pending={"0": self.seq} if r != PAUSED else {}, where=at)
            self.check()
        self.report(PAUSED, one, pending={})
        for r in range(4):
            self.report(r, pending={})
        self.clock.t += BEAT
        self.check()

    def steps(self, n: int, pause_every: int, paused_s: float) -> None:
        for i in range(1, n + 1):
            self.step(paused_s if i % pause_every == 0 else 0.0)


@pytest.mark.parametrize("where_said", [True, False])
def test_a_rank_that_pauses_four_seconds_every_five_steps_is_named_once_at_most(where_said):
    """Six 4 s pauses at one line (or, from a reporter that says no line, in one group's all_reduce):
    the first is a first stop, named after the threshold and caught up; the five like it after are
    routine, and none is named or said to have caught up."""
    job = Job(where_said=where_said)
    job.steps(30, pause_every=5, paused_s=4.0)
    assert len(job.started) <= 1, job.started
    assert job.started and job.started[0].startswith("ranks 0, 1, 3 wait in all_reduce #5 "), job.started
    assert len(job.ended) == 1 and job.ended[0].startswith("rank 2 caught up: all_reduce #5 went on"), (
        job.ended
    )
    assert job.watched.job.hang is None


def test_with_hang_after_ten_seconds_no_four_second_pause_is_a_hang():
    job = Job(hang_after=10.0)
    job.steps(30, pause_every=5, paused_s=4.0)
    assert (job.started, job.ended) == ([], [])
    assert not any("caught up" in e.text or "wait in" in e.text for e in job.watched.job.events)


def test_a_first_stop_is_named_after_the_threshold_and_not_before():
    job = Job(hang_after=2.0)
    job.steps(4, pause_every=5, paused_s=0.0)
    job.step(paused_s=2.0 - BEAT)
    assert job.started == [], "a wait shorter than the threshold is no hang"
    job.step(paused_s=2.0 + BEAT)
    assert len(job.started) == 1 and "rank 2 last reported #5, last seen at train.py:40" in job.started[0], (
        job.started
    )


def test_a_stop_at_another_place_than_the_routine_pauses_is_named_after_the_threshold():
    job = Job()
    job.steps(15, pause_every=5, paused_s=4.0)
    named = len(job.started)
    job.step(paused_s=HANG_S + 2 * BEAT, where="train.py:55")
    assert len(job.started) == named + 1 and "last seen at train.py:55" in job.started[-1], job.started


def test_a_pause_twice_as_long_as_those_before_it_at_its_place_is_named():
    """After 4 s pauses, one of 8 s at the same line: named once it outlasts 1.5 times the longest
    (6 s), not before; and its end is said."""
    job = Job()
    job.steps(15, pause_every=5, paused_s=4.0)
    named, ended = len(job.started), len(job.ended)
    job.step(paused_s=8.0)
    assert len(job.started) == named + 1 and job.started[-1].startswith("ranks 0, 1, 3 wait in all_reduce")
    assert 6.0 <= job.after[-1] < 6.0 + 2 * BEAT, job.after
    assert len(job.ended) == ended + 1 and "rank 2 caught up" in job.ended[-1], job.ended


def test_a_job_hello_sets_its_own_threshold_over_the_servers():
    hello = WatchHello(
        job="k",
        rank=0,
        world_size=2,
        host="h",
        pid=1,
        launcher="torchrun",
        backend="gloo",
        started_ns=1,
        hang_after_s=10.0,
    )
    watched = LiveWatchedJob.start("j-000001", hello, clock=Clock(), hang_after=3.0)
    assert watched.hang_after == 3.0
    watched.joined(hello)
    assert watched.hang_after == 10.0
    watched.joined(hello.model_copy(update={"rank": 1, "hang_after_s": None}))
    assert watched.hang_after == 10.0, "a rank that says none leaves the job's as it is"


def paused(pauses: Pauses, seq: int, seconds: float, place: tuple[str, ...]) -> bool:
    """Rank 2 waited for `seconds` at `place` in #seq, then went on: whether the wait was over its bar."""
    over = pauses.overdue((2,), "0", seq, seconds, {2: place}, 1.0)
    pauses.checked(lambda *waited: True)  # seen at this check
    pauses.checked(lambda *waited: True)  # gone at the next: it went on
    return bool(over)


def test_pauses_that_creep_up_or_a_stall_that_recovered_cannot_teach_the_watch_to_wait_for_ever():
    pauses, line = Pauses(), ("line", "train.py:40")
    creeping = [paused(pauses, seq, 4 * 1.45**seq, line) for seq in range(10)]
    assert pauses.bar(2, line, 1.0) == MARGIN * MARGIN * 4, (
        "at most MARGIN times the first learnt, then MARGIN"
    )
    assert creeping[0] and any(creeping[3:]), "the first pause, and creeping ones past the bar, are named"
    stalled = ("line", "train.py:87")
    assert paused(pauses, 20, ROUTINE_MOST_S * 5, stalled)
    assert pauses.bar(2, stalled, 1.0) == 1.0, "a 10-minute stall that recovered is no routine"
