"""What a run reports: events in order, the bytes each step moves, chunk states at
every capture level, and timings."""

from __future__ import annotations

import numpy as np
import torch
from distributed import run_ranks, unwrap

from ringside.worker_agent.core.algorithms import build
from ringside.worker_agent.core.collectives import get
from ringside.worker_agent.core.inputs import numpy_input
from ringside.worker_agent.core.protocol import RunSpec
from ringside.worker_agent.core.simulate import initial_buffers, states, traffic
from ringside.worker_agent.rank import capture


def record(world, specs):
    from ringside.worker_agent.rank.runner import Runner

    out = []
    for spec in specs:
        events = []
        Runner(world, events.append).run("r", spec)
        out.append(events)
    return out


def test_events_bytes_and_states_follow_the_schedule():
    p, count = 4, 10
    full = RunSpec(
        collective="all_reduce",
        algorithm="ring",
        count=count,
        dtype="int64",
        capture="full",
        iterations=3,
        warmup=1,
    )
    summary = RunSpec(**{**full.model_dump(), "capture": "summary"})
    none = RunSpec(**{**full.model_dump(), "capture": "none"})
    runs = unwrap(run_ranks(record, p, [full, summary, none]))
    schedule = build("all_reduce", "ring", p)
    moved = traffic(schedule, count, 8)
    buffers = initial_buffers(schedule, [numpy_input(full, r, p) for r in range(p)], count)
    expected = [b.copy() for b in states(schedule, buffers, count)]
    bounds = schedule.chunk_bounds(count)
    for rank in range(p):
        events = runs[rank][0]
        assert [e.type for e in events] == ["run_started"] + ["step"] * 6 + ["run_finished"]
        started, steps, finished = events[0], events[1:-1], events[-1]
        assert [c.values for c in started.inputs] == [
            numpy_input(full, rank, p)[a:b].tolist() for a, b in bounds
        ]
        for i, step in enumerate(steps):
            assert step.step == i and step.t0 <= step.t1
            # the chunks a rank reports are the ones its ring neighbour sent it in that step
            received = [t for t in schedule.steps[i].transfers if t.dst == rank]
            assert {t.src for t in received} == {(rank - 1) % p} and [s.chunk for s in step.states] == [
                t.into for t in received
            ]
            for state in step.states:  # what the rank holds after step i equals the simulation
                a, b = bounds[state.chunk]
                assert state.values == expected[i][rank, a:b].tolist()
        assert finished.bytes_sent == moved.sent[rank] and finished.bytes_received == moved.received[rank]
        assert len(finished.timings.iterations) == 3 and len(finished.timings.steps) == 6
        assert finished.checksum == int(expected[-1][rank].sum())

        for i, step in enumerate(runs[rank][1][1:-1]):
            for state in step.states:
                a, b = bounds[state.chunk]
                values = expected[i][rank, a:b]
                assert state.values is None and state.preview == values[:4].tolist()
                assert (state.min, state.max, state.sum) == (values.min(), values.max(), values.sum())
                assert state.checksum == int(values.astype(np.uint64).sum())  # int64 words, wrapping
        assert all(not e.states for e in runs[rank][2][1:-1]) and runs[rank][2][0].inputs == []
        assert runs[rank][2][-1].verified is True


def test_only_the_groups_rank_zero_sends_the_schedule_in_global_ranks():
    spec = RunSpec(collective="broadcast", algorithm="binomial_tree", group=[1, 2, 3], root=3, count=4)
    runs = unwrap(run_ranks(record, 4, [spec]))
    assert runs[0][0] == []  # rank 0 is not in the group: it says nothing
    schedules = [runs[r][0][0].schedule for r in (1, 2, 3)]
    assert schedules[1] is None and schedules[2] is None
    doc = schedules[0]
    assert doc.root == 3 and {t[0] for s in doc.steps for t in s.transfers} <= {1, 2, 3}
    assert doc.steps[0].transfers[0][0] == 3


def replay_cases(p: int) -> list[RunSpec]:
    from ringside.worker_agent.core.algorithms import algorithms

    specs = []
    for i, (collective, algorithm) in enumerate((a.collective, a.name) for a in algorithms() if a.built):
        for chunks in (1, 2):
            try:
                pieces = build(collective, algorithm, p, i % p, chunks).pieces
            except ValueError:  # the algorithm takes one chunk only
                continue
            specs.append(
                RunSpec(
                    collective=collective,
                    algorithm=algorithm,
                    root=i % p,
                    chunks=chunks,
                    count=2 * pieces + 1,
                    dtype="int64",
                    op=("SUM", "MAX", "BXOR")[i % 3] if get(collective).reduces else "SUM",
                    pattern="random_int",
                    seed=i,
                    capture="full",
                )
            )
    return specs


def record_both_ways(world, specs):
    """Every spec twice: with the keep buffer (steps reported after the last one) and
    without it (steps that later steps overwrite are reported inside the loop)."""
    from ringside.worker_agent.rank import executor

    with_keep = record(world, specs)
    executor.KEEP_BUDGET = 0
    return with_keep, record(world, specs)


def test_replaying_step_states_gives_the_simulated_buffers():
    p = 5
    specs = replay_cases(p)
    runs = unwrap(run_ranks(record_both_ways, p, specs))
    for n, spec in enumerate(specs):
        schedule = build(spec.collective, spec.algorithm, p, spec.root, spec.chunks)
        count = 1 if spec.collective == "barrier" else spec.count
        op = "BOR" if spec.collective == "barrier" else spec.op
        buffers = initial_buffers(schedule, [numpy_input(spec, r, p) for r in range(p)], count)
        expected = [b.copy() for b in states(schedule, buffers, count, op)]
        bounds = schedule.chunk_bounds(count)
        for way in (0, 1):
            for rank in range(p):
                label = f"{spec.collective}/{spec.algorithm} chunks={spec.chunks} rank {rank} keep={way == 0}"
                events = runs[rank][way][n]
                kinds = ["run_started"] + ["step"] * len(schedule.steps) + ["run_finished"]
                assert [e.type for e in events] == kinds, label
                buffer = [v for s in events[0].inputs for v in s.values]
                for i, (step, event) in enumerate(zip(schedule.steps, events[1:-1])):
                    assert event.step == i, label
                    written = dict.fromkeys(t.into for t in step.transfers if t.dst == rank)
                    assert [s.chunk for s in event.states] == list(written), label
                    for s in event.states:
                        a, b = bounds[s.chunk]
                        buffer[a:b] = s.values
                    assert buffer == expected[i][rank].tolist(), f"{label}: after step {i}"
                assert events[-1].verified in (True, None), label


def test_summary_of_every_float_dtype():
    values = np.array([-3.5, 0.25, 60000.0, 60000.0, 2.0], dtype=np.float32)
    for dtype in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
        t = torch.from_numpy(values).to(dtype)
        state = capture.state(t, 7, "summary")
        exact = t.double()
        assert state.chunk == 7 and state.values is None and state.preview == exact[:4].tolist()
        assert (state.min, state.max) == (-3.5, exact.max().item())
        assert state.sum == exact.sum().item(), f"{dtype}: the sum may not overflow the dtype"
        words = t.view({2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()]).long()
        assert state.checksum == int(words.sum()) % (1 << 8 * t.element_size())
        assert capture.state(t, 7, "full").values == exact.tolist()
    assert capture.states([(0, torch.ones(3))], "none") == []


def cancel_on_one_rank(world, spec, asker):
    """`asker` alone is told to cancel before the run; the group must stop together."""
    from ringside.worker_agent.rank.runner import Runner

    events = []
    runner = Runner(world, events.append, cancellable=True)
    if world.rank == asker:
        runner.cancel("stop-me")
    stopped = runner.run("stop-me", spec)
    after = runner.run("next", RunSpec(collective="all_reduce", algorithm="ring", count=8, dtype="int64"))
    return stopped, [e.type for e in events], after.verified


def test_a_cancel_on_one_rank_stops_the_whole_group_at_the_same_iteration():
    spec = RunSpec(
        collective="all_reduce", algorithm="ring", count=64, iterations=30, warmup=2, capture="none"
    )
    results = unwrap(run_ranks(cancel_on_one_rank, 4, spec, 2))
    for stopped, types, verified in results:
        # the first ask: after one iteration
        assert stopped.type == "run_cancelled" and (stopped.done, stopped.total) == (1, 32)
        assert types[:2] == ["run_started", "run_cancelled"] and "run_finished" not in types[:2]
        assert verified is True, "the group is fine for the next run"


def test_infinities_and_nan_cross_json_and_verify():
    """A float16 product overflows: the infinities travel as words and come back as floats."""
    from ringside.worker_agent.core.protocol import EVENT

    spec = RunSpec(
        collective="all_reduce", algorithm="ring", count=8, dtype="float16", op="PRODUCT", capture="full"
    )
    events = unwrap(run_ranks(record, 4, [spec]))[0][0]
    finished = EVENT.validate_json(events[-1].model_dump_json())
    assert finished.verified is True
    assert any(v == float("inf") for s in finished.output for v in s.values)
    assert '"inf"' in events[-1].model_dump_json()


def test_typed_inputs_run_and_verify_against_the_native_op():
    # the Korean tutorial's reduce: torch.ones(2, 2) * rank on four ranks, summed on rank 0
    spec = RunSpec(
        collective="reduce",
        algorithm="binomial_tree",
        count=4,
        capture="full",
        inputs=[[float(r)] * 4 for r in range(4)],
    )
    runs = unwrap(run_ranks(record, 4, [spec]))
    assert runs[0][0][-1].verified is True
    assert [v for s in runs[0][0][-1].output for v in s.values] == [6.0] * 4
