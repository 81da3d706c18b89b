"""Every schedule, simulated in numpy, equals its collective's definition, for any
world size, root, count (divisible or not) and number of chunks."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ringside.worker_agent.core.algorithms import algorithms, build
from ringside.worker_agent.core.collectives import COLLECTIVES, get
from ringside.worker_agent.core.collectives.barrier import BARRIER
from ringside.worker_agent.core.protocol import MAX_CAPTION, MAX_PLANNED_CAPTION, MAX_WORLD, PlanDoc, StepDoc
from ringside.worker_agent.core.schedule import Schedule, ScheduleError, Step, Transfer, check
from ringside.worker_agent.core.simulate import simulate

PAIRS = [(a.collective, a.name) for a in algorithms() if a.built]
OPS_FOR_INTS = ("SUM", "MAX", "BXOR", "PRODUCT")


def run_case(collective, algorithm, p, root, chunks, extra, op, seed):
    schedule = build(collective, algorithm, p, root, chunks)
    count = 1 if collective == "barrier" else schedule.pieces + extra
    if collective == "barrier":
        op = BARRIER.OP
    rng = np.random.default_rng(seed)
    inputs = [rng.integers(-9, 10, len(get(collective).input_blocks(r, p, root)) * count) for r in range(p)]
    if collective == "barrier":
        inputs = [np.array([1 << r]) for r in range(p)]
    peer = (root + 1) % p
    got = simulate(schedule, inputs, count, op, peer)
    want = get(collective).reference(inputs, op, root, peer)
    for r, (a, b) in enumerate(zip(got, want)):
        assert (a is None) == (b is None), f"rank {r}: output presence differs"
        if a is not None:
            np.testing.assert_array_equal(
                a, b, err_msg=f"{collective}/{algorithm} P={p} root={root} rank {r}"
            )


@pytest.mark.parametrize("collective,algorithm", PAIRS)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_simulation_equals_definition(collective, algorithm, data):
    p = data.draw(st.integers(1, 16), label="P")
    root = data.draw(st.integers(0, p - 1), label="root")
    chunks = 1 if collective == "barrier" else data.draw(st.integers(1, 3), label="chunks")
    extra = data.draw(st.integers(0, 2 * p + 1), label="extra elements")
    op = data.draw(st.sampled_from(OPS_FOR_INTS), label="op")
    run_case(collective, algorithm, p, root, chunks, extra, op, data.draw(st.integers(0, 2**16)))


@pytest.mark.parametrize("collective,algorithm", PAIRS)
def test_every_world_size_small(collective, algorithm):
    """Exhaustive over the small worlds where off-by-one errors live."""
    for p in range(1, 10):
        for root in {0, p // 2, p - 1}:
            run_case(collective, algorithm, p, root, 1, 1, "SUM", p)


@pytest.mark.parametrize("collective,algorithm", PAIRS)
def test_schedules_are_well_formed_and_captioned(collective, algorithm):
    s = build(collective, algorithm, 7, 3, 1)
    check(s)
    doc = s.to_json(ranks=[10, 11, 12, 13, 14, 15, 16])
    assert doc["root"] == 13
    for step in doc["steps"]:
        assert step["phase"] and step["caption"] and "{" not in step["caption"]
        assert all(10 <= t[0] <= 16 and 10 <= t[1] <= 16 for t in step["transfers"])


def test_captions_name_the_ranks_only_when_few_talk():
    tree = build("all_reduce", "tree", 3, 0).to_json(ranks=[10, 11, 12])["steps"]
    assert tree[0]["caption"].endswith(
        "which combines it with its own (rank 11 to rank 10 and rank 12 to rank 10)"
    )
    assert tree[1]["caption"].endswith("(rank 10 to rank 11 and rank 10 to rank 12)")
    fold = build("all_reduce", "recursive_doubling", 5).to_json()["steps"][0]
    assert fold["phase"] == "fold" and fold["caption"].endswith("(rank 4 to rank 0)")
    big = build("all_reduce", "ring", 8).to_json()["steps"][0]["caption"]
    assert big == "every rank sends one chunk to its right neighbour, which combines it with its own"


@pytest.mark.parametrize("collective,algorithm", PAIRS)
def test_every_schedule_fits_the_form_a_run_carries_it_in(collective, algorithm):
    """At several world sizes, roots and chunks, in rank numbers as long as a world's get: the
    schedule's doc reads back through JSON as a PlanDoc (its bounds hold), and at one piece every
    step's words would fit a schedule sent as data (StepDoc)."""
    with_servers = get(collective).has_servers
    for p in (2, 3, 5, 8, 16, 33):
        widest = list(range(MAX_WORLD - p, MAX_WORLD))
        for chunks in (1,) if collective == "barrier" else (1, 4):  # a barrier moves one token
            for root, servers in {(0, None), (p - 1, None)} | (
                {(0, p // 2)} if with_servers and p > 2 else set()
            ):
                doc = build(collective, algorithm, p, root, chunks, servers).to_doc(widest)
                doc = PlanDoc.model_validate_json(doc.model_dump_json())
                if chunks == 1:
                    for step in doc.steps:
                        StepDoc(phase=step.phase, caption=step.caption, transfers=[])


def test_a_pipelined_caption_names_every_piece_in_flight_within_a_runs_bound():
    schedule = build("broadcast", "ring", 32, 0, 64)  # a chain: 31 pieces in flight at once
    doc = PlanDoc.model_validate_json(schedule.to_doc(range(MAX_WORLD - 32, MAX_WORLD)).model_dump_json())
    longest = max(doc.steps, key=lambda s: len(s.caption)).caption
    assert MAX_CAPTION < len(longest) <= MAX_PLANNED_CAPTION and longest.count("piece ") == 31


@pytest.mark.parametrize("collective,algorithm", PAIRS)
def test_one_rank_has_nothing_to_send(collective, algorithm):
    steps = build(collective, algorithm, 1, 0, 1).steps
    if collective == "all_to_all":
        assert [step.transfers for step in steps] == [(Transfer(0, 0, 0, 1, False),)]
    else:
        assert steps == ()


def test_every_collective_has_native_and_a_schedule():
    for collective in COLLECTIVES:
        names = [a.name for a in algorithms(collective) if a.reference or a.built]
        assert names[0] == "native" and len(names) >= 2, collective


def test_unknown_algorithm_and_bad_chunks_are_refused():
    with pytest.raises(ValueError, match="no stepwise algorithm 'bogus' for 'all_reduce'"):
        build("all_reduce", "bogus", 4)
    with pytest.raises(ValueError, match="chunks must be at least 1"):
        build("all_reduce", "ring", 4, 0, 0)
    with pytest.raises(ValueError, match="chunks must be 1, not 2"):
        build("barrier", "dissemination", 4, 0, 2)
    with pytest.raises(ValueError, match=r"root must be a rank of the group, 0\.\.3, not 4"):
        build("broadcast", "flat", 4, 4)
    with pytest.raises(ValueError, match="world_size must be at least 1"):
        build("all_reduce", "ring", 0)


def _sched(steps, p=2, pieces=2):
    return Schedule("all_reduce", "x", p, 0, 1, pieces, tuple(Step("p", "c", tuple(t)) for t in steps))


def test_check_catches_races():
    def sched(*transfers):
        return _sched([transfers])

    with pytest.raises(ScheduleError, match="copies into chunk 0 while sending it"):
        check(sched(Transfer(0, 1, 0, 0, False), Transfer(1, 0, 0, 0, False)))
    with pytest.raises(ScheduleError, match="written twice"):
        check(sched(Transfer(0, 1, 0, 1, False), Transfer(0, 1, 1, 1, False)))
    with pytest.raises(ScheduleError, match="chunk 1 of rank 1 is written twice"):  # a copy beside a reduce
        check(sched(Transfer(0, 1, 0, 1, True), Transfer(0, 1, 1, 1, False)))
    with pytest.raises(ScheduleError, match="outside"):
        check(sched(Transfer(0, 2, 0, 0, False)))
    with pytest.raises(ScheduleError, match="outside"):
        check(sched(Transfer(0, 1, -1, 0, False)))
    with pytest.raises(ScheduleError, match="reduces a chunk into itself"):
        check(sched(Transfer(1, 1, 0, 1, True)))
    check(sched(Transfer(0, 1, 0, 0, True), Transfer(1, 0, 0, 0, True)))  # reductions may cross
    check(sched(Transfer(0, 1, 0, 0, True), Transfer(0, 1, 1, 0, True)))  # and pile up
    check(_sched([]))


def test_check_judges_each_step_on_its_own():
    """What races within one step is fine across two: the (step, rank, chunk) keys must not collide."""
    check(_sched([[Transfer(0, 1, 0, 0, False)], [Transfer(1, 0, 0, 0, False)]]))
    check(_sched([[Transfer(0, 1, 0, 1, False)], [Transfer(0, 1, 0, 1, False)]]))
    with pytest.raises(ScheduleError, match="step 1: chunk 1 of rank 1 is written twice"):
        check(
            _sched(
                [[Transfer(0, 1, 0, 1, False)], [Transfer(0, 1, 0, 1, False), Transfer(0, 1, 1, 1, False)]]
            )
        )


def _races(schedule):
    """The rules of schedule.py, transfer by transfer: the plain reading check() must agree with."""
    for step in schedule.steps:
        writes = {}
        for t in step.transfers:
            writes.setdefault((t.dst, t.into), []).append(t.reduce)
        reads = {(t.src, t.chunk) for t in step.transfers}
        if any(t.src == t.dst and t.reduce for t in step.transfers):
            return True
        for cell, kinds in writes.items():
            copied = not all(kinds)
            if copied and (len(kinds) > 1 or cell in reads):
                return True
    return False


transfers = st.tuples(
    st.integers(0, 2), st.integers(0, 2), st.integers(0, 3), st.integers(0, 3), st.booleans()
)


@settings(max_examples=300, deadline=None)
@given(steps=st.lists(st.lists(transfers.map(lambda t: Transfer(*t)), max_size=5), max_size=3))
def test_check_agrees_with_the_rules_read_plainly(steps):
    schedule = _sched(steps, p=3, pieces=4)
    try:
        check(schedule)
        raised = False
    except ScheduleError:
        raised = True
    assert raised == _races(schedule)


@pytest.mark.parametrize(
    "collective,algorithm",
    [("all_reduce", "ring"), ("broadcast", "binomial_tree"), ("all_to_all", "pairwise")],
)
def test_a_schedule_read_back_from_its_json_is_the_same_in_global_ranks(collective, algorithm):
    # group ranks 0, 1, 2 are global 2, 5, 7
    schedule, ranks = build(collective, algorithm, 3, 1, 2), [2, 5, 7]
    doc = PlanDoc.model_validate_json(schedule.to_doc(ranks).model_dump_json())
    back = Schedule.from_doc(doc, world_size=8)
    assert (back.collective, back.algorithm, back.world_size, back.root) == (collective, algorithm, 8, 5)
    assert (back.blocks, back.pieces, len(back.steps)) == (
        schedule.blocks,
        schedule.pieces,
        len(schedule.steps),
    )
    for ours, theirs in zip(schedule.steps, back.steps):
        g = np.array(ranks)
        assert (theirs.table[:, :2] == g[ours.table[:, :2]]).all() and (
            theirs.table[:, 2:] == ours.table[:, 2:]
        ).all()
        assert theirs.phase == ours.phase
    mine = Schedule.from_doc(doc, 3, ranks=ranks)  # and in group ranks, as it was built
    assert mine.root == schedule.root and all(
        (a.table == b.table).all() for a, b in zip(mine.steps, schedule.steps)
    )
