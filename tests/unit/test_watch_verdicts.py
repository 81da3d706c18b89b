"""Each kind of verdict on a watched job, as the server checks it four times a second, built from the
reports its ranks would send and a clock the test moves (no server, no ranks): a stopped rank (late
to issue, or silent inside a collective every rank issued), a mismatch, a deadlock, a silence; and
what is said when each ends: caught up, went on past, never completed, over. A rank that talks
reports every second even when it issued nothing new, as a reporter does (`alive`)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from matched import Clock, joined

from ringside.server.watched import hangs, verdicts
from ringside.server.watched.live import LiveWatchedJob
from ringside.server.watched.rank_waits import HANG_S, SILENT_S
from ringside.server.watched.words import english
from ringside.worker_agent.core.watch_protocol import Issued, Link, P2PWait, WatchBye, WatchReport

ROOT = Path(__file__).resolve().parents[2]
TICK = HANG_S + 0.2  # more than a hang's time, well less than a silence's


def one(seq: int, count: int = 1000, op: str = "allreduce") -> Issued:
    return Issued(group="0", seq=seq, op=op, dtype="float32", count=count, t_ns=5 + seq)


def said(watched: LiveWatchedJob, rank: int, *issued: Issued, **fields) -> None:
    watched.report(WatchReport(rank=rank, t_ns=10, issued=list(issued), **fields))


def alive(watched: LiveWatchedJob, ranks, **fields) -> None:
    """`ranks` report, nothing new issued: a reporter says where it is at least every second."""
    for rank in ranks:
        said(watched, rank, **fields)


def checked(watched: LiveWatchedJob) -> tuple:
    """The hang that began or ended, and what was said of it in English (None, "" if nothing changed)."""
    change = hangs.hang_change(watched)
    if change is None:
        return watched.job.hang, ""
    hang, words = change
    return hang, english(words)


# --- a stopped rank ------------------------------------------------------------------------------


@pytest.mark.parametrize("order", [(0, 1, 2, 3), (2, 0, 1, 3), (3, 2, 1, 0)])
def test_the_rank_that_issued_another_collective_is_the_one_named(order):
    """Three ranks all-reduce as #9 while rank 2 broadcasts: rank 2 is named, whichever rank reports first.
    (Was tests/served/test_watch.py, in-process already.)"""
    watched = joined(4, Clock())
    for rank in order:
        said(watched, rank, one(9, op="broadcast" if rank == 2 else "allreduce"))
    hang, text = checked(watched)
    assert hang.kind == "mismatch" and hang.late == [2] and hang.waiting == [0, 1, 2, 3]
    assert "rank 2 broadcast of 1,000 float32; ranks 0, 1, 3 all_reduce of 1,000 float32" in text


def test_a_rank_stopped_inside_a_collective_every_rank_issued_is_named_once_silent_then_caught_up():
    """Rank 3 stops inside all_reduce #2 after every rank issued it: no rank is late to issue, so it is
    named once silent, as the rank the others wait for in #2; let go on, it caught up. (Was
    tests/served/test_watch.py's stopped_inside.py, a real job under torchrun.)"""
    clock = Clock()
    watched = joined(4, clock)
    for rank in range(4):
        said(watched, rank, one(1, count=1), pending={})
    for rank in range(4):
        said(watched, rank, one(2), pending={"0": 2})
    clock.t += TICK
    alive(watched, range(3), pending={"0": 2})
    assert checked(watched) == (None, ""), "every rank inside #2, none silent: it is in flight"
    clock.t += SILENT_S
    alive(watched, range(3), pending={"0": 2})
    hang, text = checked(watched)
    assert (hang.kind, hang.op, hang.seq, hang.waiting, hang.late) == (
        "wait",
        "all_reduce",
        2,
        [0, 1, 2],
        [3],
    )
    assert text.startswith(
        "ranks 0, 1, 2 wait in all_reduce #2 (1,000 float32), which every rank issued; "
        "rank 3 has said nothing for 4.2 s"
    ), text
    alive(watched, range(4), pending={})  # SIGCONT: #2 completes on every rank
    hang, text = checked(watched)
    assert hang is None and text == "rank 3 caught up: all_reduce #2 went on after 4.2 s", text


def test_ranks_that_finished_what_the_stopped_rank_never_said_wait_in_the_next_one():
    """Rank 3 stops as all_reduce #2 returns, before its reporter says it issued #2 (it reads a poll
    behind): ranks 0-2 finished #2 (their recorders retired it, which needs every rank), so they wait
    in #3, and that is named. (Was tests/served/test_watch.py's stopped_after.py.)"""
    clock = Clock()
    watched = joined(4, clock)
    for rank in range(4):
        said(watched, rank, one(1, count=1), pending={})
    for rank in range(3):
        said(watched, rank, one(2), one(3, count=10), pending={"0": 3})
    clock.t += TICK
    alive(watched, range(3), pending={"0": 3})
    hang, text = checked(watched)
    assert (hang.kind, hang.seq, hang.count, hang.waiting, hang.late) == ("wait", 3, 10, [0, 1, 2], [3]), text
    assert text.startswith("ranks 0, 1, 2 wait in all_reduce #3 (10 float32); rank 3 last reported #1"), text
    said(watched, 3, one(2), one(3, count=10), pending={})
    assert all(c.complete for c in watched.collectives.latest(10))
    hang, text = checked(watched)
    assert hang is None and text.startswith("rank 3 caught up: all_reduce #3 went on after "), text


@pytest.mark.parametrize("pending", [{"0": 5}, {}, None])
def test_a_silent_rank_is_waited_for_only_where_the_others_have_not_finished_what_it_issued(pending):
    """Every rank issued #5 and rank 3 went silent: ranks 0-2 wait in #5 for it if their recorders have
    not retired #5 (pending); if they have, they go on (computing), and rank 3 is only silent; so too
    where their reporters do not say (None: an older reporter). (Was tests/served/test_watch.py.)"""
    clock = Clock()
    watched = joined(4, clock)
    for rank in range(4):
        said(watched, rank, one(5), pending=pending if rank < 3 else {"0": 5})
    clock.t += SILENT_S + 1
    alive(watched, range(3), pending=pending)
    hang, text = checked(watched)
    assert hang.late == [3] and hang.waiting == [0, 1, 2]
    if pending:
        assert (hang.kind, hang.seq) == ("wait", 5)
        assert text.startswith("ranks 0, 1, 2 wait in all_reduce #5 (1,000 float32), which every rank issued")
    else:
        assert hang.kind == "silent" and text.endswith("ranks 0, 1, 2 go on")


# --- a silence -------------------------------------------------------------------------------------


def test_a_rank_that_stops_reporting_while_the_others_go_on_is_silent_until_it_reports_again():
    clock = Clock()
    watched = joined(3, clock)
    for rank in range(3):
        said(watched, rank, one(1), pending={}, where="loop.py:9")
    clock.t += SILENT_S + 0.5
    alive(watched, (0, 2), pending={}, where="loop.py:9")
    hang, text = checked(watched)
    assert (hang.kind, hang.late, hang.waiting, hang.where) == ("silent", [1], [0, 2], {"1": "loop.py:9"})
    assert text == (
        "rank 1 has said nothing for 3.5 s (it last reported #1 in group 0; last seen at loop.py:9); "
        "ranks 0, 2 go on"
    )
    clock.t += 1.0
    alive(watched, (0, 2), pending={}, where="loop.py:9")
    assert checked(watched)[1] == "", "the same silence, longer: nothing new to say"
    assert watched.job.hang.since_s == 4.5
    alive(watched, [1], pending={}, where="loop.py:9")
    hang, text = checked(watched)
    assert hang is None and text == "rank 1 caught up: it reports again after 4.5 s"


# --- a mismatch ---------------------------------------------------------------------------------------


def test_a_mismatch_the_group_went_on_past_is_said_to_have_ended():
    """Rank 2 all-reduced another size as #7: a mismatch, until #8 of the group completes."""
    watched = joined(4, Clock())
    for rank in range(4):
        said(watched, rank, one(7, count=2000 if rank == 2 else 1000))
    hang, text = checked(watched)
    assert (hang.kind, hang.late) == ("mismatch", [2])
    assert text.endswith("(the sizes differ); they wait until the backend's timeout"), text
    assert verdicts.current_hang(watched).late == [2], "it lasts while the group does not go on"
    for rank in range(4):
        said(watched, rank, one(8))
    hang, text = checked(watched)
    assert hang is None and text == "group 0 went on past #7"


# --- a deadlock --------------------------------------------------------------------------------------


def recv_ring(clock: Clock) -> LiveWatchedJob:
    """Four ranks each blocked in a receive from its left, none of which has sent: a deadlock."""
    watched = joined(4, clock)
    for rank in range(4):
        left = (rank - 1) % 4
        wait = P2PWait(peer=left, send=False, nth=1, count=1024, dtype="float32", t_ns=1)
        said(
            watched,
            rank,
            where=f"ring.py:{rank}",
            waits=[wait],
            links=[Link(peer=left, receives_total=1, sends_total=0)],
        )
    hang, _ = checked(watched)
    assert (hang.kind, hang.late, hang.op) == ("deadlock", [0, 1, 2, 3], "recv")
    return watched


@pytest.mark.parametrize(
    ("ending", "words"),
    [
        ("timed out", "ranks 0, 1, 2, 3 ended in the deadlock"),
        ("killed", "ranks 0, 1, 2, 3 went in the deadlock"),
        ("sent", "the deadlock of ranks 0, 1, 2, 3 is over"),
    ],
)
def test_a_deadlock_ends_as_it_truly_did(ending, words):
    """The backend's timeout ends each rank (each says goodbye), or they are killed (none does), or
    each left neighbour sends after all (their waits go)."""
    watched = recv_ring(Clock())
    for rank in range(4):
        if ending == "timed out":
            watched.bye(
                WatchBye(rank=rank, exit_code=1, error="RuntimeError: Timed out waiting 4000ms for recv")
            )
        if ending == "sent":
            said(watched, rank, links=[Link(peer=(rank + 1) % 4, sends_total=1, receives_total=1)])
        else:
            watched.left(rank)
    hang, text = checked(watched)
    assert hang is None and text == words, text


# --- catching up -------------------------------------------------------------------------------------


def issue(watched: LiveWatchedJob, clock: Clock, ranks, seq: int) -> None:
    """`ranks` issue all-reduce #seq of the world group; a hang's time later every rank has reported."""
    for rank in ranks:
        said(watched, rank, one(seq))
    clock.t += TICK
    alive(watched, range(4))


def test_a_rank_that_catches_up_is_said_to_even_as_another_is_late_to_the_next():
    """Rank 2, let go on, issues #5 and #6; rank 0 is then a second late to #6. That #5 went on is said
    with rank 0's wait, not lost under it; fewer ranks late to one collective are said by its own words.
    (Was tests/served/test_watch.py, in-process already.)"""
    clock = Clock()
    watched = joined(4, clock)
    issue(watched, clock, [0, 1, 3], 5)
    issue(watched, clock, [1, 3], 6)
    assert checked(watched)[0].late == [2]  # rank 0 is not late to #6 while it waits in #5
    issue(watched, clock, [2], 5)
    issue(watched, clock, [2], 6)
    hang, text = checked(watched)
    assert (hang.seq, hang.late, hang.waiting) == (6, [0], [1, 2, 3]), text
    assert text.startswith("rank 2 caught up: all_reduce #5 went on after ") and text.endswith(hang.text)
    assert watched.job.events[-1].text == text
    issue(watched, clock, [0], 6)
    hang, text = checked(watched)
    assert hang is None and text.startswith("rank 0 caught up: all_reduce #6 went on")


def test_fewer_ranks_late_to_the_same_collective_are_named_without_a_catching_up():
    clock = Clock()
    watched = joined(4, clock)
    issue(watched, clock, [1, 3], 5)
    assert checked(watched)[0].late == [0, 2]
    issue(watched, clock, [0], 5)
    hang, text = checked(watched)
    assert hang.late == [2] and text == hang.text and "caught up" not in text


def test_a_collective_some_ranks_report_lost_is_kept_unseen_not_called_a_hang():
    """Rank 1's recorder overwrote #2 before its reporter read it: it says #1 and #3. #2 is kept
    incomplete, saying whose report lost it, and no one waits in it (test_watch.py's served test of a
    16-entry ring sees this happen to a real job)."""
    clock = Clock()
    watched = joined(2, clock)
    said(watched, 0, one(1), one(2), one(3), pending={})
    said(watched, 1, one(1), one(3), pending={}, missed=1)
    clock.t += TICK
    alive(watched, range(2), pending={})
    assert checked(watched) == (None, "")
    lost = watched.collectives.collective("0", 2)
    assert (lost.complete, lost.unseen) == (False, [1])
    assert [c.seq for c in watched.left_open()] == [2], "what never completed, at the job's end"


def test_the_overhead_bench_times_the_hang_that_names_the_stopped_rank():
    """bench/watch_overhead.py times SIGSTOP to the hang naming that rank, not to any straggler's.
    (Was tests/served/test_watch.py, in-process already.)"""
    spec = importlib.util.spec_from_file_location("watch_overhead", ROOT / "bench" / "watch_overhead.py")
    overhead = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(overhead)
    straggler = {"type": "watched_hang", "job_id": "j-000001", "hang": {"late": [1], "waiting": [0, 2, 3]}}
    stopped = {**straggler, "hang": {"late": [3], "waiting": [0, 1, 2]}}
    assert not overhead.names(straggler, 3) and overhead.names(stopped, 3)
    assert not overhead.names({"type": "watched_hang", "job_id": "j-000001", "hang": None}, 3)
