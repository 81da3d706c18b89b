"""What a run reports: events in order, the bytes each step moves, chunk states at
every capture level, and timings."""

from __future__ import annotations

from distributed import run_ranks, unwrap

from worker_agent.algorithms import build
from worker_agent.inputs import numpy_input
from worker_agent.protocol import RunSpec
from worker_agent.simulate import initial_buffers, states, traffic


def record(world, specs):
    from worker_agent.runner import Runner

    out = []
    for spec in specs:
        events = []
        Runner(world, events.append).run("r", spec)
        out.append(events)
    return out


def test_events_bytes_and_states_follow_the_schedule():
    p, count = 4, 10
    full = RunSpec(collective="all_reduce", algorithm="ring", count=count, dtype="int64", capture="full", iterations=3, warmup=1)
    summary = RunSpec(**{**full.model_dump(), "capture": "summary", "pattern": "random_float", "dtype": "float32"})
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
        assert [c.values for c in started.inputs] == [numpy_input(full, rank, p)[a:b].tolist() for a, b in bounds]
        for i, step in enumerate(steps):
            assert step.step == i and step.t0 <= step.t1
            assert {tuple(t[:2]) for t in step.transfers} == {(rank, (rank + 1) % p), ((rank - 1) % p, rank)}
            for state in step.states:  # what the rank holds after step i equals the simulation
                a, b = bounds[state.chunk]
                assert state.values == expected[i][rank, a:b].tolist()
        assert sum(s.bytes_sent for s in steps) == finished.bytes_sent == moved.sent[rank]
        assert len(finished.timings.iterations) == 3 and len(finished.timings.steps) == 6
        assert finished.checksum == int(expected[-1][rank].sum())

        summarised = runs[rank][1]
        for state in (s for e in summarised[1:-1] for s in e.states):
            assert state.values is None and len(state.preview) <= 4
            assert state.min <= state.preview[0] <= state.max and state.checksum is not None
        assert all(not e.states for e in runs[rank][2][1:-1]) and runs[rank][2][0].inputs == []
        assert runs[rank][2][-1].verified is True


def test_only_the_groups_rank_zero_sends_the_schedule_in_global_ranks():
    spec = RunSpec(collective="broadcast", algorithm="binomial_tree", group=[1, 2, 3], root=3, count=4)
    runs = unwrap(run_ranks(record, 4, [spec]))
    assert runs[0][0] == []  # rank 0 is not in the group: it says nothing
    schedules = [runs[r][0][0].schedule for r in (1, 2, 3)]
    assert schedules[1] is None and schedules[2] is None
    doc = schedules[0]
    assert doc["root"] == 3 and {t[0] for s in doc["steps"] for t in s["transfers"]} <= {1, 2, 3}
    assert doc["steps"][0]["transfers"][0][0] == 3
