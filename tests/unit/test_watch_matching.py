"""A watched job's matching and verdicts, fed the reports its ranks would send (no server, no
ranks): what must agree op by op (torch's Flight Recorder analysis's rules), who waits for whom
in collectives and in sends and receives, and what is said when a hang ends."""

from __future__ import annotations

import pytest
from matched import Clock, joined

from ringside.server.watched import hangs, rank_waits, rules, verdicts, waits
from ringside.server.watched.live import LiveWatchedJob, ending_words
from ringside.server.watched.waits import Wait
from ringside.server.watched.words import english, render
from ringside.worker_agent.core.watch_protocol import Issued, Link, P2PWait, WatchBye, WatchReport


def one(seq: int, op: str, count: int, count_out: int | None = None, dtype: str = "float32", group="0"):
    return Issued(group=group, seq=seq, op=op, dtype=dtype, count=count, count_out=count_out, t_ns=5 + seq)


def said(watched: LiveWatchedJob, rank: int, *issued: Issued, **fields) -> None:
    watched.report(WatchReport(rank=rank, t_ns=10, issued=list(issued), **fields))


# --- what must agree, op by op ----------------------------------------------------------------


def moe_step(rank: int, step: int, world: int = 4) -> tuple[int, int]:
    """Uneven splits that agree across ranks, different every step: rank r sends (r + j + step) % 5
    + 1 elements to rank j, so it takes (j + r + step) % 5 + 1 from it."""
    ins = sum((rank + j + step) % 5 + 1 for j in range(world))
    outs = sum((j + rank + step) % 5 + 1 for j in range(world))
    return ins * 16, outs * 16


@pytest.mark.parametrize("order", [(0, 1, 2, 3), (3, 1, 0, 2)])
def test_a_healthy_moe_job_and_the_seeds_scatter_are_never_a_mismatch(order):
    """all_to_all_single with uneven splits every step (each rank's sizes its own), an all_reduce of the
    loss, the root alone putting data into a scatter and taking it out of a gather: all legal."""
    watched = joined()
    for step in range(6):
        base = 1 + step * 4
        for rank in order:
            ins, outs = moe_step(rank, step)
            back_in, back_out = moe_step(rank, step + 1)
            said(
                watched,
                rank,
                one(base, "all_to_all", ins, outs),
                one(base + 1, "all_to_all", back_in, back_out),
                one(base + 2, "allreduce", 1, 1),
                one(base + 3, "scatter" if step % 2 else "gather", 16 if rank == 0 else 0, 4)
                if step % 2
                else one(base + 3, "gather", 4, 16 if rank == 0 else 0),
            )
    assert watched.agreement.last is None
    assert all(c.complete and not c.mismatch for c in watched.collectives.recent.values())
    assert hangs.hang_change(watched) is None


@pytest.mark.parametrize("order", [[0, 1, 2, 3], [3, 2, 1, 0]])
def test_an_uneven_collectives_size_is_its_largest_part_whichever_rank_reports_first(order):
    watched = joined(4)
    parts = {0: (68, 44), 1: (48, 56), 2: (28, 64), 3: (88, 68)}  # an MoE step's elements in and out
    for rank in order:
        a2a = one(1, "alltoall_base", *parts[rank]).model_copy(update={"bytes": max(parts[rank]) * 4})
        said(watched, rank, a2a, one(2, "scatter", 16 if rank == 0 else 0, 4))
    a2a, scatter = watched.collectives.latest(2)
    assert (a2a.count, a2a.bytes, scatter.count) == (88, 88 * 4, 16)


@pytest.mark.parametrize(
    ("op", "odd", "why", "words"),
    [
        ("allreduce", one(7, "allreduce", 2000), "sizes", "all_reduce of 2,000 float32"),
        ("broadcast", one(7, "allreduce", 1000), "ops", "all_reduce of 1,000 float32"),
        (
            "allgather",
            one(7, "allgather", 1000, dtype="float16"),
            "dtypes",
            "all_gather of 1,000 float16",
        ),
        ("scatter", one(7, "scatter", 0, 250), "sizes", "scatter into 250 float32"),
        ("gather", one(7, "gather", 500), "sizes", "gather of 500 float32"),
        (
            "all_to_all",
            one(7, "all_to_all", 1000, dtype="bfloat16"),
            "dtypes",
            "all_to_all of bfloat16",
        ),
    ],
)
def test_a_desync_names_the_odd_rank_of_one_collective_and_what_differed(op, odd, why, words):
    """Ranks 0, 1, 3 issue #7 alike (each as its op needs: a scatter's root puts in 4,000, the others
    none; a gather's root takes out 4,000), rank 2 otherwise: rank 2 alone is named, with what differed."""
    watched = joined()
    for rank in range(4):
        root = rank == 0
        alike = {
            "scatter": one(7, "scatter", 4000 if root else 0, 1000),
            "gather": one(7, "gather", 1000, 4000 if root else 0),
            "all_to_all": one(7, "all_to_all", 1000 + 7 * rank, 1000 - rank),
        }.get(op, one(7, op, 1000, 1000))
        said(watched, rank, odd if rank == 2 else alike)
    hang, phrases = hangs.hang_change(watched)
    text = english(phrases)
    assert (hang.kind, hang.seq, hang.late) == ("mismatch", 7, [2])
    assert f"rank 2 {words}" in text and f"(the {why} differ)" in text, text
    assert "ranks 0, 1, 3 " in text, text


def test_the_odd_ones_are_named_whichever_rank_reports_first():
    for first in range(4):
        watched = joined()
        for rank in [first, *(r for r in range(4) if r != first)]:
            said(watched, rank, one(3, "allreduce", 10 if rank == 1 else 20))
        assert verdicts.current_hang(watched).late == [1]


def test_an_all_to_all_whose_ranks_put_in_more_than_they_take_out_is_a_mismatch_of_them_all():
    """Each rank's splits are its own, so no rank's sizes are odd; but the elements all put in must be
    the elements all take out: which rank is wrong the record does not say, so none is singled out."""
    watched = joined()
    for rank in range(4):
        said(watched, rank, one(2, "all_to_all", 100, 100 if rank else 96))
    hang, phrases = hangs.hang_change(watched)
    text = english(phrases)
    assert hang.kind == "mismatch" and hang.late == [0, 1, 2, 3]
    assert "put in 400 elements in all and take out 396" in text, text


def test_the_rules_say_what_each_rank_must_match():
    assert rules.signature("all_to_all", one(1, "all_to_all_single", 10, 12)).words == "all_to_all of float32"
    assert rules.signature("barrier", one(1, "barrier", 0, dtype="")).words == "barrier"
    for op in ("all_gather_v", "reduce_scatter_v", "all_to_all_v_single"):
        assert rules.signature(op, one(1, op, 10, 20)) == rules.signature(op, one(1, op, 30, 5))
    assert rules.signature("scatter", one(1, "scatter", 40, 10)) == rules.signature(
        "scatter", one(1, "scatter", 0, 10)
    )
    assert rules.sides({0: "a", 1: "b", 2: "a", 3: "b"}).odd == [0, 1, 2, 3], "a tie names them all"


# --- who waits for whom ------------------------------------------------------------------------


def test_a_cycle_is_a_deadlock_and_a_chain_blames_its_end():
    def w(rank, on, settled=True, sure=True):
        return Wait(rank, on, f"recv from rank {on[0]}" if on else "x", ("p2p", rank), settled, sure)

    ring = {r: [w(r, ((r - 1) % 4,))] for r in range(4)}
    blame = waits.blame(ring)
    assert (blame.kind, blame.late, blame.waiting) == ("deadlock", [0, 1, 2, 3], [])
    chain = {0: [w(0, (1,))], 1: [w(1, (2,))], 3: [w(3, (2,))]}
    blame = waits.blame(chain)
    assert (blame.kind, blame.late, blame.waiting) == ("wait", [2], [0, 1, 3])
    inside = {0: [w(0, (), settled=False)], 1: [w(1, (0,))]}
    assert waits.blame(inside) is None, "waited for, inside something with its peers: no one to blame yet"
    assert waits.blame({0: [w(0, (1,), settled=False, sure=False)]}) is None, "not yet a hang"
    silent = waits.blame({0: [w(0, (1,))], 1: [w(1, (0,))]}, silent={1})
    assert (silent.kind, silent.late, silent.waiting) == ("wait", [1], [0]), "a silent rank is stopped"


def blocked(peer: int, send: bool, nth: int = 1, count: int = 1024) -> P2PWait:
    return P2PWait(peer=peer, send=send, nth=nth, count=count, dtype="float32", t_ns=1)


def totals(peer: int, sends: int, receives: int) -> Link:
    return Link(peer=peer, sends_total=sends, receives_total=receives)


def test_ranks_blocked_in_receives_from_each_other_are_a_deadlock_at_once():
    """Four ranks each blocked in a receive from its left, none of which has sent: named at the first
    check (no second to wait: a blocked receive cannot go on), with each one's line."""
    watched = joined()
    for rank in range(4):
        left = (rank - 1) % 4
        said(
            watched,
            rank,
            where=f"ring.py:{20 + rank}",
            waits=[blocked(left, False)],
            links=[totals(left, 0, 1)],
        )
    hang, phrases = hangs.hang_change(watched)
    text = english(phrases)
    assert (hang.kind, hang.late, hang.waiting) == ("deadlock", [0, 1, 2, 3], [])
    assert text.startswith(
        "ranks 0, 1, 2, 3 wait on each other, and none can go on: rank 0 waits in recv from"
    )
    assert all(f"ring.py:{20 + r}" in text for r in range(4)), text
    assert hang.op == "recv" and hang.count == 1024


def test_a_receive_matched_by_its_peers_send_is_no_wait():
    """Rank 1 is blocked in its second receive from rank 0, which has issued two sends to it: in flight."""
    watched = joined(2)
    said(watched, 0, links=[totals(1, 2, 0)])
    said(watched, 1, waits=[blocked(0, False, nth=2)], links=[totals(0, 0, 2)])
    watched.p2p.wait_seen = {k: v - 10 for k, v in watched.p2p.wait_seen.items()}
    assert verdicts.current_hang(watched) is None


def pipeline(clock: Clock) -> LiveWatchedJob:
    """Stage 2 of four stopped (silent) as stage 1 waits for its gradient and stage 3 for its
    activation; stage 0 waits in a receive from stage 1 that stage 1 has not sent."""
    watched = joined(4, clock)
    said(watched, 0, where="pp.py:10", waits=[blocked(1, False, nth=3)], links=[totals(1, 3, 2)])
    said(
        watched,
        1,
        where="pp.py:11",
        waits=[blocked(2, False, nth=3)],
        links=[totals(0, 2, 3), totals(2, 3, 2)],
    )
    said(watched, 2, where="pp.py:12", links=[totals(1, 2, 3), totals(3, 2, 2)])
    said(watched, 3, where="pp.py:13", waits=[blocked(2, False, nth=3)], links=[totals(2, 2, 3)])
    return watched


def test_a_stopped_pipeline_stage_is_the_one_named_while_the_others_wait_in_receives():
    clock = Clock()
    watched = pipeline(clock)
    clock.t += rank_waits.HANG_S + 0.5  # rank 2 computes, or is stopped: a second is a hang
    for rank in (0, 1, 3):
        watched.presence.heard[rank] = clock.t
    hang = verdicts.current_hang(watched)
    assert (hang.kind, hang.late, hang.waiting) == ("wait", [2], [0, 1, 3]), hang.text
    assert hang.text.startswith(
        "rank 1 waits in recv from rank 2 (1,024 float32); rank 3 waits in recv from rank 2"
    )
    assert "rank 0 waits in recv from rank 1" in hang.text and "rank 2 last seen at pp.py:12" in hang.text
    clock.t += rank_waits.SILENT_S + 0.1  # and it says nothing: stopped
    for rank in (0, 1, 3):
        watched.presence.heard[rank] = clock.t
    hang = verdicts.current_hang(watched)
    assert (hang.kind, hang.late, hang.waiting) == ("wait", [2], [0, 1, 3])
    assert "rank 2 has said nothing for" in hang.text, hang.text


@pytest.mark.parametrize("said_it", [True, False], ids=["rank 2 said #4", "rank 2 stopped before saying #4"])
def test_a_rank_waiting_inside_the_stopped_ranks_collective_is_not_blamed_beside_it(said_it):
    """Rank 2 stopped inside all_reduce #4, which rank 3 is still in (its recorder has not retired it);
    ranks 0 and 1 finished #4 and wait in #5, which neither 2 nor 3 has issued. Rank 3 waits on rank 2:
    rank 2 alone is named, and every other rank waits. Where rank 2's reporter last read #3 (it reads
    a poll behind the rank, and a stopped one reads no more), rank 2 never says it issued #4, yet it
    did: ranks 0 and 1 could not have finished it otherwise."""
    clock = Clock()
    watched = joined(4, clock)
    for rank in range(4):
        said(watched, rank, one(3, "allreduce", 1000), pending={})
    for rank in range(4) if said_it else (0, 1, 3):
        said(watched, rank, one(4, "allreduce", 1000), pending={"0": 4})
    for rank in (0, 1):
        said(watched, rank, one(5, "allreduce", 1000), pending={"0": 5})
    clock.t += rank_waits.HANG_S + 0.5
    for rank in range(4):
        watched.presence.heard[rank] = clock.t
    hang = verdicts.current_hang(watched)
    if said_it:
        assert hang is None, "ranks 2 and 3 are inside #4: no one to blame yet"
    else:  # rank 2 is late to #4 as far as it said: ranks 0 and 1 wait on it, and rank 3 may yet
        assert (hang.late, hang.waiting) == ([2], [0, 1]), hang.text
    clock.t += rank_waits.SILENT_S + 0.1
    for rank in (0, 1, 3):
        watched.presence.heard[rank] = clock.t
    hang = verdicts.current_hang(watched)
    assert (hang.kind, hang.late, hang.waiting) == ("wait", [2], [0, 1, 3]), hang.text
    assert hang.text.startswith(
        "rank 3 waits in all_reduce #4 (1,000 float32), which every rank issued; "
        "ranks 0, 1 wait in all_reduce #5"
    ), hang.text
    assert "; rank 2 has said nothing for " in hang.text, hang.text


def test_ranks_inside_an_uneven_all_to_all_one_rank_finished_wait_on_a_stopped_rank_that_never_said_it():
    """The MoE job's stopped rank, as its ranks' recorders held it (dumped under load): rank 2's reporter
    last read #2 (it reads a ring every two seconds while little is new, and it was stopped before the
    next); ranks 0 and 3 are inside all_to_all #5, their entries read and not retired, for rank 2 sent
    them nothing yet; rank 1 had all it needed, finished #5 and waits in #6. Rank 1 finishing an
    all_to_all proves every rank issued it: rank 2 alone is late, never ranks 0 and 3."""
    clock = Clock()
    watched = joined(4, clock)
    ins, outs = moe_step(0, 0), moe_step(0, 1)
    for rank in range(4):
        said(watched, rank, one(1, "all_to_all", *ins), one(2, "all_to_all", *outs), pending={})
    for rank in (0, 1, 3):
        said(watched, rank, one(3, "allreduce", 1), one(4, "allreduce", 1), pending={})
    for rank in (0, 3):
        said(watched, rank, one(5, "all_to_all", *moe_step(rank, 2)), pending={"0": 5})
    said(watched, 1, one(5, "all_to_all", *moe_step(1, 2)), one(6, "all_to_all", 64, 64), pending={"0": 6})
    clock.t += rank_waits.HANG_S + rank_waits.SILENT_S + 0.1
    for rank in (0, 1, 3):
        watched.presence.heard[rank] = clock.t
    hang = verdicts.current_hang(watched)
    assert (hang.kind, hang.late, hang.waiting) == ("wait", [2], [0, 1, 3]), hang.text


MESH = {"1": [0, 2], "2": [1, 3], "3": [0, 1], "4": [2, 3]}  # a 2x2 DeviceMesh: dp groups 1, 2; tp 3, 4


def mesh_with_rank_2_stopped(clock: Clock) -> LiveWatchedJob:
    """Rank 2 stopped; rank 3 is blocked in its tp group's all_reduce with rank 2, which its recorder has
    not been read for yet (it said one call unread); ranks 0 and 1 wait in their dp groups' all_gather
    #1, rank 0 for rank 2, rank 1 for rank 3."""
    watched = joined(4, clock)
    for rank in range(4):
        said(watched, rank, groups=MESH)
    said(watched, 0, one(1, "allgather", 50, group="1"), pending={"1": 1})
    said(watched, 1, one(1, "allgather", 50, group="2"), pending={"2": 1})
    said(watched, 3, unread=1)
    clock.t += rank_waits.HANG_S + 0.5
    for rank in (0, 1, 3):
        watched.presence.heard[rank] = clock.t
    return watched


def test_on_a_2d_mesh_a_rank_blocked_in_what_it_has_not_said_is_not_blamed_beside_the_stopped_one():
    clock = Clock()
    watched = mesh_with_rank_2_stopped(clock)
    hang = verdicts.current_hang(watched)
    assert (hang.late, hang.waiting) == ([2], [0]), hang.text
    said(watched, 3, one(1, "allreduce", 50, group="4"), pending={"4": 1})  # its read comes
    clock.t += rank_waits.HANG_S + 0.5
    for rank in (0, 1, 3):
        watched.presence.heard[rank] = clock.t
    hang = verdicts.current_hang(watched)
    assert (hang.late, hang.waiting) == ([2], [0, 1, 3]), hang.text


def test_a_rank_that_keeps_issuing_unsaid_calls_is_blamed_once_the_wait_on_it_has_lasted():
    """Rank 3 runs elsewhere, issuing calls its reports do not say yet: the wait on it is a wait."""
    clock = Clock()
    watched = mesh_with_rank_2_stopped(clock)
    clock.t += rank_waits.UNSAID_S
    for rank in range(4):
        said(watched, rank, unread=5 * (rank == 3))
    hang = verdicts.current_hang(watched)
    assert (hang.late, hang.waiting) == ([2, 3], [0, 1]), hang.text
    assert "rank 3 last reported nothing in this group" in hang.text, hang.text


def test_a_stopped_rank_whose_last_report_said_calls_unread_is_blamed_when_it_goes_quiet():
    clock = Clock()
    watched = mesh_with_rank_2_stopped(clock)
    said(watched, 2, one(7, "allreduce", 1, group="4"), unread=30)
    watched.presence.heard[2] = clock.t - rank_waits.FRESH_S - 0.1
    hang = verdicts.current_hang(watched)
    assert hang.late == [2], hang.text
    assert "rank 2 last reported nothing in this group (then 30 more calls, not yet read)" in hang.text, (
        hang.text
    )


@pytest.mark.parametrize("op", ["gather", "scatter", "broadcast", "reduce"])
def test_ranks_that_finished_a_rooted_collective_without_the_stopped_rank_do_not_hide_it(op):
    """Rank 2 stopped before #5, a collective rooted at rank 0: ranks 1 and 3 finish their part of it
    without rank 2 (a gather's senders, a scatter's receivers) and wait in #6; the root waits in #5 for
    rank 2. Rank 2 alone is named: the root waits, it is not late."""
    clock = Clock()
    watched = joined(4, clock)
    for rank in range(4):
        said(watched, rank, one(4, "allreduce", 1), pending={})
    said(watched, 0, one(5, op, 16), pending={"0": 5})
    for rank in (1, 3):
        said(watched, rank, one(5, op, 16), one(6, "allreduce", 1), pending={"0": 6})
    clock.t += rank_waits.HANG_S + 0.5
    for rank in range(4):
        watched.presence.heard[rank] = clock.t
    hang = verdicts.current_hang(watched)
    assert (hang.kind, hang.late, hang.waiting) == ("wait", [2], [0, 1, 3]), hang.text
    assert hang.text.startswith(f"rank 0 waits in {op} #5 (16 float32); ranks 1, 3 wait in all_reduce #6"), (
        hang.text
    )


# --- what is said when it ends -----------------------------------------------------------------


def stopped_before_issuing(clock: Clock) -> LiveWatchedJob:
    """Ranks 0-2 wait in all_reduce #3 that rank 3 (stopped) never issued: a hang naming rank 3."""
    watched = joined(4, clock)
    for rank in range(4):
        said(watched, rank, one(2, "allreduce", 10), pending={})
    for rank in range(3):
        said(watched, rank, one(3, "allreduce", 10), pending={"0": 3})
    clock.t += rank_waits.HANG_S + 0.5
    hang, _ = hangs.hang_change(watched)
    assert hang.late == [3] and hang.waiting == [0, 1, 2]
    return watched


def test_after_the_backends_timeout_ends_the_waiting_ranks_no_one_caught_up():
    clock = Clock()
    watched = stopped_before_issuing(clock)
    for rank in range(3):  # gloo's timeout: each raised, inside #3
        watched.bye(WatchBye(rank=rank, exit_code=1, error="RuntimeError: Timed out waiting 4000ms for recv"))
    watched.left(3)  # torchrun kills the stopped one
    hang, phrases = hangs.hang_change(watched)
    text = english(phrases)
    assert hang is None
    assert text == "all_reduce #3 never completed: rank 3 went; ranks 0, 1, 2 ended", text
    events = [e.text for e in watched.job.events]
    assert not [t for t in events if "caught up" in t], events
    assert "rank 0 timed out (exit code 1): RuntimeError: Timed out waiting 4000ms for recv" in events


def test_a_collective_that_went_on_is_said_to_have_caught_up():
    clock = Clock()
    watched = stopped_before_issuing(clock)
    said(watched, 3, one(3, "allreduce", 10), pending={})
    hang, phrases = hangs.hang_change(watched)
    text = english(phrases)
    assert hang is None and text.startswith("rank 3 caught up: all_reduce #3 went on after ")


@pytest.mark.parametrize(
    ("code", "error", "words"),
    [
        (1, "ValueError: boom", "rank 2 raised (exit code 1): ValueError: boom"),
        (143, "SIGTERM", "rank 2 was stopped by SIGTERM (exit code 143)"),
        (0, None, "rank 2 ended with exit code 0"),
        (None, None, "rank 2 ended"),
        (
            1,
            "DistBackendError: Watchdog caught collective operation timeout",
            "rank 2 timed out (exit code 1): ",
        ),
    ],
)
def test_a_ranks_ending_is_said_as_it_happened(code, error, words):
    assert render(ending_words(2, code, error)).startswith(words)


# --- groups torch named ---------------------------------------------------------------------------


def test_a_group_keeps_the_name_torch_gave_it_and_a_desync_in_it_says_so():
    watched = joined()
    said(watched, 0, groups={"3": [0, 2], "4": [0, 1]}, group_descs={"3": "mesh_dp", "4": "mesh_tp"})
    assert watched.job.group_descs == {"3": "mesh_dp", "4": "mesh_tp"}
    said(watched, 0, one(1, "allreduce", 8, group="3"))
    said(watched, 2, one(1, "allreduce", 9, group="3"))
    assert "ranks disagree on #1 of group mesh_dp: " in verdicts.current_hang(watched).text


# --- the Flight Recorder's sends and receives (NCCL records them) -------------------------------


def entry(record: int, name: str, retired: bool, group=("0", "default_pg"), shape=(4, 256)) -> dict:
    """A recorder's entry as torch dumps it."""
    return {
        "record_id": record,
        "process_group": group,
        "collective_seq_id": 0,
        "p2p_seq_id": record + 1,
        "profiling_name": name,
        "input_sizes": [list(shape)],
        "output_sizes": [list(shape)],
        "input_dtypes": ["Float"],
        "output_dtypes": ["Float"],
        "time_created_ns": 1000 + record,
        "retired": retired,
        "is_p2p": True,
        "state": "scheduled",
    }


def test_the_recorders_sends_and_receives_are_kept_numbered_per_peer_and_waited_in_till_done():
    from ringside.worker_agent.watch.flight import FlightReader

    reader = FlightReader(lambda group: {"2": [2, 3]}.get(group))
    first = [
        entry(0, "nccl:send 0->1", True),
        entry(1, "nccl:send 0->1", False),
        entry(2, "nccl:recv 0<-1", False, group=("2", "pp")),  # group rank 1 of [2, 3]: rank 3
    ]
    assert reader.take({"entries": first}) == [], "no collective among them"
    assert [(w.peer, w.send, w.nth, w.count, w.dtype, w.blocked) for w in reader.p2p.waits()] == [
        (1, True, 2, 1024, "float32", False),
        (3, False, 1, 1024, "float32", False),
    ]
    links = {link.peer: link for link in reader.p2p.take()}
    assert (links[1].sends, links[1].sent, links[1].sends_total) == (2, 2 * 4096, 2)
    assert (links[3].receives, links[3].received, links[3].receives_total) == (1, 4096, 1)
    reader.take({"entries": [entry(1, "nccl:send 0->1", True), first[2]]})
    assert [(w.peer, w.nth) for w in reader.p2p.waits()] == [(3, 1)], "the second send is done"
    assert reader.p2p.take() == [], "nothing new"


def test_what_the_ring_overwrote_before_the_first_read_is_counted_missed():
    """The recorder numbers its records from 0: a first read that finds record 540 oldest lost 540."""
    from ringside.worker_agent.watch.flight import FlightReader

    reader = FlightReader()
    ring = [
        {**entry(r, "gloo:allreduce", True), "is_p2p": False, "collective_seq_id": r + 1}
        for r in range(540, 544)
    ]
    assert [one.seq for one in reader.take({"entries": ring})] == [541, 542, 543, 544]
    assert reader.missed == 540
    assert reader.take({"entries": ring[2:]}) == [] and reader.missed == 540, "nothing new, none lost"
    whole = FlightReader()
    whole.take({"entries": [{**e, "record_id": e["record_id"] - 540} for e in ring]})
    assert whole.missed == 0, "a ring that has not wrapped lost none"


def test_a_collectives_sizes_in_and_out_are_both_read():
    from ringside.worker_agent.watch.flight import issued

    scatter = {**entry(0, "gloo:scatter", True), "is_p2p": False, "collective_seq_id": 5, "input_sizes": []}
    one_ = issued({**scatter, "input_dtypes": [], "output_sizes": [[4]]})
    assert (one_.op, one_.count, one_.count_out, one_.dtype) == ("scatter", 0, 4, "float32")
