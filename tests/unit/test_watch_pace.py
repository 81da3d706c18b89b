"""When the reporter reads the recorder (worker_agent/watch/pace.py), on a clock the test turns."""

import pytest

from ringside.worker_agent.core.watch_protocol import calm_interval_s
from ringside.worker_agent.watch import pace as pace_module
from ringside.worker_agent.watch.pace import MIN_INTERVAL_S, SETTLE_S, SOONEST_S, UNSEEN_S, Pace


@pytest.fixture
def clock(monkeypatch):
    now = [100.0]
    monkeypatch.setattr(pace_module.time, "monotonic", lambda: now[0])
    return now


def polls(pace: Pace, clock: list[float], seconds: float, step: float = 0.2) -> int:
    """Reads made while the clock runs `seconds`, a poll every `step`."""
    reads = 0
    for _ in range(round(seconds / step)):
        clock[0] += step
        if pace.due(open_=False):
            pace.was_read(0)
            reads += 1
    return reads


def test_a_rank_that_stops_is_read_once_more_after_its_count_settles(clock):
    """A group counts a collective before the recorder holds it: a read in between found nothing new,
    and the rank, waiting in that collective, issues no more to prompt another."""
    count = [0]
    pace = Pace(ring=2048, count=lambda: count[0])
    polls(pace, clock, 2.0)
    count[0] = 7  # the rank issues, then waits in its last
    assert polls(pace, clock, 0.4) == 1, "the first still poll reads"
    assert polls(pace, clock, SETTLE_S) == 1, "and one more, once the count has settled"
    assert polls(pace, clock, 10.0) == 5, "then one every READ_EVERY_S while it waits"


def test_a_rank_that_issues_steadily_is_read_when_half_the_ring_is_new(clock):
    count = [0]
    pace = Pace(ring=100, count=lambda: count[0])
    reads = 0
    for _ in range(20):
        count[0] += 10
        clock[0] += 0.01
        if pace.due(open_=False):
            pace.was_read(0)
            reads += 1
    assert reads == 4, "every 50 collectives: half the ring"


def test_a_read_the_reporter_is_told_to_make_counts_what_was_issued_before_it(clock):
    """A script's poll reads at once (an async all-reduce, then a stop): the poll
    after it must not take the rank to have moved past what that read found open, or the reporter says
    the rank waits in nothing (it clears what it last found open when the rank has moved on)."""
    count = [0]
    pace = Pace(ring=2048, count=lambda: count[0])
    polls(pace, clock, 2.0)
    count[0] = 2  # issued, not completed, and the script polls
    clock[0] += 0.05
    assert pace.due(open_=False, told=True)
    pace.was_read(1)
    clock[0] += 0.2
    assert pace.due(open_=True), "what the told read found open is read again"
    assert not pace.moved, "the rank issued nothing since that read"


def test_a_rank_of_thousands_polls_as_seldom_as_its_job_needs_unless_the_ring_fills():
    """One server reads every rank's reports: 4,096 ranks polling every 0.2 s would send it 20,000 a
    second. Each polls at most once a second then, JOB_REPORTS_S in all; the ring still rules."""
    assert [calm_interval_s(w) for w in (4, 2000, 4096, 65536)] == [0.001, 0.5, 1.0, 1.0]
    pace = Pace(ring=2000)
    pace.rate = 1.0  # collectives a second, seen
    assert pace.interval(cost=0.0) == MIN_INTERVAL_S, "a small job's rank polls as soon as its cost allows"
    pace.calm_s = max(MIN_INTERVAL_S, calm_interval_s(4096))
    assert pace.interval(cost=0.0) == 1.0
    pace.rate = 4000.0  # collectives a second: half the ring is new in 0.25 s
    assert pace.interval(cost=0.0) == pytest.approx(0.25, abs=0.01), "sooner: the ring overwrites unread"


def test_a_rank_polls_soon_till_its_first_collective_shows_the_rate_the_ring_fills_at():
    """A job that floods from its first collective filled half a 2,048-entry ring before a first poll
    0.2 s in; once a rate is seen, the ring rules."""
    pace = Pace(ring=2048, count=lambda: 0)
    assert pace.interval(cost=0.0) == UNSEEN_S < MIN_INTERVAL_S
    pace.rate = 100.0
    assert pace.interval(cost=0.0) == MIN_INTERVAL_S


def test_the_next_poll_is_timed_from_the_last_ones_count_not_its_end(clock):
    """A read of a full ring, starved of the CPU, took a quarter of a second: the ring filled on
    meanwhile, and a poll timed from the read's end came after half of it was new."""
    count = [0]
    pace = Pace(ring=2000, count=lambda: count[0])
    count[0] = 1000
    clock[0] += 0.1  # 10,000 a second
    assert pace.due(open_=False), "half the ring is new"
    clock[0] += 0.06  # the read and its report
    pace.was_read(1000)
    assert pace.interval(cost=0.0) == pytest.approx(0.04), "half the ring again, 0.1 s from the count"
    clock[0] += 0.5
    assert pace.interval(cost=0.0) == SOONEST_S


def test_a_rank_of_thousands_says_where_it_is_no_more_often_than_its_calm_interval(monkeypatch):
    """Before its first collective a rank polls every UNSEEN_S; what it says with nothing new (where it
    is) still comes at most every HEARTBEAT_S, or its calm interval where that is longer."""
    from ringside.worker_agent.core.watch_protocol import WatchReport
    from ringside.worker_agent.watch import reporter as reporter_module
    from ringside.worker_agent.watch.reporter import HEARTBEAT_S, Reporter

    now = [100.0]
    monkeypatch.setattr(reporter_module.time, "monotonic", lambda: now[0])
    reporter = Reporter("http://127.0.0.1:9", None)
    reporter.said_at, reporter.said_state = now[0], ({}, False)
    quiet = [WatchReport(rank=0, t_ns=1, where="train.py:9", pending={})]
    now[0] += HEARTBEAT_S + 0.1
    assert not reporter._nothing_to_say(quiet), "a small job's rank says where it is every HEARTBEAT_S"
    reporter.pace.calm_s = 1.0  # 4,096 ranks
    assert reporter._nothing_to_say(quiet)
    now[0] += 0.5
    assert not reporter._nothing_to_say(quiet)
