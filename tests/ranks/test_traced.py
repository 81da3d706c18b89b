"""Send/recv code that users write, traced on real gloo ranks: its calls are recorded and
rebuilt into steps (a traced ring is the built-in ring), it is verified against native, a
wrong result names the first step where it departed, and a deadlock ends within the
run's timeout naming its wait-for cycle and the lines each rank is stuck at."""

from __future__ import annotations

import time
from datetime import timedelta
from pathlib import Path

import pytest
import torch
import torch.distributed as dist
from distributed import run_ranks, unwrap

from ringside.worker_agent.core.algorithms import algorithm_of, build
from ringside.worker_agent.core.catalog import catalog
from ringside.worker_agent.core.inputs import numpy_input
from ringside.worker_agent.core.protocol import MAX_PHASE, PlanDoc, RunSpec, StepDoc
from ringside.worker_agent.core.provenance import first_departure
from ringside.worker_agent.core.schedule import Schedule
from ringside.worker_agent.core.simulate import initial_buffers, states
from ringside.worker_agent.core.validation import SpecError, validate
from ringside.worker_agent.user.rebuild import _phase, stuck
from ringside.worker_agent.user.user_algorithms import load, traced

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
FILES = [str(EXAMPLES / f) for f in ("tutorial_ring.py", "tutorial_ring_bug.py", "deadlock_ring.py")]


def load_examples() -> None:
    """The examples in this process too (once: a name registers once), as the server loads them."""
    if algorithm_of("all_reduce", "tutorial_ring", None) is None:
        for f in FILES:
            load(f)


def line_of(text: str, path: Path = Path(__file__)) -> int:
    """The number of the line of `path` that holds `text`: what the tracer must name."""
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


# Traced code of the tests' own: the line numbers below are this file's.


@traced("broadcast", "test_flat_blocking", layout="star")
def flat_blocking(buf, rank, size):
    if rank == 0:
        for peer in range(1, size):
            dist.send(buf, peer)  # each send waits for its receiver: one after another
    else:
        dist.recv(buf, 0)


@traced("broadcast", "test_flat_isend", layout="star")
def flat_isend(buf, rank, size):
    if rank == 0:
        works = [dist.isend(buf, peer) for peer in range(1, size)]  # all at once
        for work in works:
            work.wait()
    else:
        dist.recv(buf, 0)


@traced("all_reduce", "test_batched_ring")
def batched_ring(buf, rank, size):
    """The tutorial ring with batch_isend_irecv and P2POp, adding with += into a list of views."""
    chunks = list(buf.chunk(size))
    right, left = (rank + 1) % size, (rank - 1) % size
    for s in range(size - 1):
        incoming = torch.empty_like(chunks[(rank - s - 2) % size])
        ops = [
            dist.P2POp(dist.isend, chunks[(rank - s - 1) % size], right),
            dist.P2POp(dist.irecv, incoming, left),
        ]
        for work in dist.batch_isend_irecv(ops):
            work.wait()
        chunks[(rank - s - 2) % size] += incoming
    for s in range(size - 1):
        ops = [
            dist.P2POp(dist.isend, chunks[(rank - s) % size], right),
            dist.P2POp(dist.irecv, chunks[(rank - s - 1) % size], left),
        ]
        for work in dist.batch_isend_irecv(ops):
            work.wait()


@traced("all_reduce", "test_behind_its_back")
def behind_its_back(buf, rank, size):
    """A ring, then a change through numpy, which no torch call shows."""
    batched_ring(buf, rank, size)
    if rank == 2:
        buf.numpy()[1] += 100


@traced("all_reduce", "test_doubles")
def doubles(buf, rank, size):
    buf.mul_(2)  # no rank sent that: refused, naming this line


def run_traced(world, files, specs):
    """On every rank: load the files, run each spec, keep every event (or the failure's words)."""
    from ringside.worker_agent.rank.runner import Runner

    for f in files:
        load(f)
    out = []
    for i, spec in enumerate(specs):
        events = []
        began = time.monotonic()
        try:
            Runner(world, events.append).run(f"traced-{i}", spec)
        except Exception as e:  # noqa: BLE001 - a failed run is an outcome here
            events.append({"failed": str(e), "seconds": time.monotonic() - began})
        out.append([e if isinstance(e, dict) else e.model_dump() for e in events])
    return out


def of_type(events, kind):
    return [e for e in events if e.get("type") == kind]


SPECS = [
    RunSpec(
        collective="all_reduce", algorithm="tutorial_ring", count=8, dtype="int64", capture="full", timeout=10
    ),
    RunSpec(
        collective="all_reduce",
        algorithm="tutorial_ring",
        count=12,
        dtype="float32",
        op="AVG",
        pattern="random_float",
        iterations=2,
        timeout=10,
    ),
    RunSpec(
        collective="all_reduce",
        algorithm="tutorial_ring_bug",
        count=8,
        dtype="int64",
        capture="full",
        timeout=10,
    ),
    RunSpec(collective="broadcast", algorithm="test_flat_blocking", count=4, timeout=10),
    RunSpec(collective="broadcast", algorithm="test_flat_isend", count=4, timeout=10),
    RunSpec(
        collective="all_reduce",
        algorithm="test_batched_ring",
        count=8,
        dtype="int64",
        capture="none",
        timeout=10,
    ),
    RunSpec(collective="all_reduce", algorithm="test_doubles", count=8, timeout=10),
    RunSpec(collective="all_reduce", algorithm="test_behind_its_back", count=8, dtype="int64", timeout=10),
    RunSpec(collective="send_recv", algorithm="blocking", count=4, root=1, peer=3, timeout=10),
    RunSpec(collective="send_recv", algorithm="isend", count=4, root=1, peer=3, timeout=10),
]


@pytest.fixture(scope="module")
def runs():
    """Every rank's events for every spec of SPECS, run once on four real gloo ranks."""
    results = unwrap(run_ranks(run_traced, 4, FILES, SPECS, timeout=120))
    return [[results[rank][i] for rank in range(4)] for i in range(len(SPECS))]


def schedule_of(events) -> Schedule:
    started = of_type(events, "run_started")[0]
    return Schedule.from_doc(PlanDoc.model_validate(started["schedule"]), 4)


def test_a_traced_ring_is_the_built_in_ring_and_equals_native(runs):
    ring = build("all_reduce", "ring", 4)
    for spec_index in (0, 1, 5):  # isend/irecv; AVG over floats; batch_isend_irecv
        per_rank = runs[spec_index]
        for rank, events in enumerate(per_rank):
            assert of_type(events, "run_finished")[0]["verified"] is True, (spec_index, rank)
            traced_schedule = schedule_of(events)  # every rank brings the same
            assert len(traced_schedule.steps) == len(ring.steps) == 6
            for got, want in zip(traced_schedule.steps, ring.steps):
                assert sorted(got.transfers) == sorted(want.transfers)
            assert traced_schedule.pieces == ring.pieces and traced_schedule.layout == "ring"
    first = runs[0][0]
    sent, added = (
        line_of(text, EXAMPLES / "tutorial_ring.py") for text in ("dist.isend(chunks[send]", "add_(incoming)")
    )
    assert schedule_of(first).steps[0].phase == f"line {sent}"  # the isend of the reduce-scatter
    assert (
        schedule_of(first)
        .steps[0]
        .caption.startswith(
            f"sent at tutorial_ring.py:{sent}, received at "
            f"line {sent}, added in at line "
            f"{added} (rank 3 to rank 0, "
        )
    )


def test_its_steps_carry_the_values_the_ranks_really_held(runs):
    spec = SPECS[0]
    ring = build("all_reduce", "ring", 4)
    buffers = initial_buffers(ring, [numpy_input(spec, r, 4) for r in range(4)], spec.count)
    expected = [b.copy() for b in states(ring, buffers, spec.count)]
    bounds = ring.chunk_bounds(spec.count)
    for rank, events in enumerate(runs[0]):
        steps = sorted(of_type(events, "step"), key=lambda e: e["step"])
        assert [e["step"] for e in steps] == list(range(6)), "every rank reports every step"
        for e in steps:
            assert 0 <= e["t0"] <= e["t1"]
            assert e["states"], f"rank {rank} writes a chunk at every step of a ring"
            for state in e["states"]:
                a, b = bounds[state["chunk"]]
                assert state["values"] == expected[e["step"]][rank, a:b].tolist()
        finished = of_type(events, "run_finished")[0]
        assert finished["bytes_sent"] == finished["bytes_received"] == 6 * 2 * 8  # six messages of two int64
        assert len(finished["timings"]["steps"]) == 6


def test_a_wrong_chunk_index_is_caught_at_its_first_step(runs):
    for events in runs[2]:
        finished = of_type(events, "run_finished")[0]
        assert finished["verified"] is False and finished["mismatches"]
    schedule = schedule_of(runs[2][0])
    departure = first_departure(schedule)
    # in step 1 rank 0 sent its chunk 3, received rank 3's chunk 2, and added it into chunk 3 (the one it
    # sent)
    assert (departure.step, departure.rank, departure.chunk) == (0, 0, 3)
    assert departure.words == (
        "after step 1, rank 0's chunk 3 holds rank 3's chunk 2, which does not belong there"
    )
    assert first_departure(build("all_reduce", "ring", 4)) is None


def test_what_happened_before_what_makes_the_steps(runs):
    blocking, at_once = schedule_of(runs[3][0]), schedule_of(runs[4][0])
    assert [s.transfers for s in blocking.steps] == [((0, r, 0, 0, False),) for r in (1, 2, 3)]
    assert blocking.steps[0].phase == f"line {line_of('dist.send(buf, peer)')}"
    assert [sorted(s.transfers) for s in at_once.steps] == [[(0, r, 0, 0, False) for r in (1, 2, 3)]]
    assert blocking.layout == at_once.layout == "star"
    for events in runs[3] + runs[4]:
        assert of_type(events, "run_finished")[0]["verified"] is True


def test_every_rank_brings_its_schedule_in_the_form_a_run_carries_it_in(runs):
    brought = [
        started["schedule"]
        for events in runs
        for rank_events in events
        for started in of_type(rank_events, "run_started")
    ]
    assert brought and all(PlanDoc.model_validate(plan).algorithm for plan in brought)
    for plan in brought:  # and its words would fit a schedule sent as data
        for s in plan["steps"]:
            StepDoc(phase=s["phase"], caption=s["caption"], transfers=[])


def test_a_phase_names_as_many_lines_as_it_holds():
    lines = {(f"ring.py:{n}", "ring.py:1", "ring.py:1", False): None for n in range(100, 120)}
    assert _phase(dict(list(lines.items())[:2])) == "lines 100, 101"
    assert _phase(lines) == "lines 100, 101, 102, 103, 104, 105, …" and len(_phase(lines)) <= MAX_PHASE


def test_a_change_the_tracer_cannot_see_is_caught_by_replaying_the_steps(runs):
    for rank, events in enumerate(runs[7]):
        assert events[-1]["failed"] == (
            f"rank {rank}: all_reduce/test_behind_its_back failed: the recorded "
            "calls do not explain rank 2's buffer: at element 1 it holds 152 "
            "where the rebuilt steps give 52; the code changed it in a way "
            "Ringside does not follow"
        )
    assert all(not of_type(events, "run_started") for events in runs[7]), (
        "nothing is shown of steps that are not true"
    )


def test_capture_none_reports_steps_without_values(runs):
    for events in runs[5]:
        steps = of_type(events, "step")
        assert len(steps) == 6 and all(e["states"] == [] for e in steps)


def test_the_p2p_lesson_shows_where_a_blocking_send_waits(runs):
    """send_recv by `blocking` and by `isend`: one and the same transfer, but the blocking
    sender waits in its send while the receiver is busy; the isend sender works meanwhile."""
    from ringside.worker_agent.core.algorithms.p2p import BUSY_S

    for spec_index, name in ((8, "send"), (9, "isend")):
        started = [of_type(events, "run_started")[0] for events in runs[spec_index]]
        assert [s["transfers"] for s in schedule_of(runs[spec_index][0]).to_json()["steps"]] == [
            [[1, 3, 0, 0, 0]]
        ]
        assert of_type(runs[spec_index][3], "run_finished")[0]["verified"] is True
        assert (
            [c["name"] for c in started[3]["calls"]] == ["recv"]
            and not started[0]["calls"]
            and not started[2]["calls"]
        )
        (call,) = started[1]["calls"]
        assert (call["name"], call["peer"]) == (name, 3) and call["line"].startswith("p2p.py:")
        assert call["posted"] <= call["waited"] <= call["done"]
        if name == "send":  # blocked from its post until the busy receiver got to its recv
            assert (
                call["done"] - call["waited"] >= BUSY_S / 2 and call["waited"] - call["posted"] < BUSY_S / 2
            )
        else:  # posted, then the sender's own work while the message waited for the receiver
            assert call["waited"] - call["posted"] >= BUSY_S


def test_code_that_writes_what_no_rank_sent_is_refused_saying_where(runs):
    for rank, events in enumerate(runs[6]):
        assert events[-1]["failed"].startswith(
            f"rank {rank}: all_reduce/test_doubles failed: rank 0 "
            "stopped: TraceError: "
            f"test_traced.py:{line_of('buf.mul_(2)')}: the code changes "
            "part [0, 8] of its buffer"
        )


def stall(world):
    """All four ranks run the deadlocking ring with a 2 s timeout, then report how it ended."""
    return run_traced(
        world, FILES, [RunSpec(collective="all_reduce", algorithm="deadlock_ring", count=8, timeout=2)]
    )[0]


def test_a_deadlock_ends_within_its_timeout_naming_its_cycle_and_lines():
    results = unwrap(run_ranks(stall, 4, timeout=60))
    at = f"deadlock_ring.py:{line_of('dist.send(chunks[send], right)', EXAMPLES / 'deadlock_ring.py')}"
    cycle = (
        f"deadlock: rank 0 waits in send to rank 1 ({at}) → rank 1 waits in send to rank 2 ({at}) → "
        f"rank 2 waits in send to rank 3 ({at}) → rank 3 waits in send to rank 0 ({at}) → rank 0"
    )
    for rank, events in enumerate(results):
        assert events[-1]["failed"] == f"rank {rank}: all_reduce/deadlock_ring failed: {cycle}"
        errors = of_type(events, "error")
        assert len(errors) == 1 and errors[0]["message"] == events[-1]["failed"]
        # the timeout, then the other ranks' reports through the store: well under twice the timeout
        assert events[-1]["seconds"] < 2 * 2 + 2


def gloo_send(world):
    """Rank 0 sends twice; rank 1 receives only the first. Returns how each send's wait ended."""
    t = torch.ones(1)
    if world.rank == 1:
        dist.recv(t, 0, tag=1)
        time.sleep(2.5)  # never receives tag 2: rank 0's second send must not complete
        return None
    out = []
    for tag in (1, 2):
        work = dist.isend(t, 1, tag=tag)
        try:
            work.wait(timedelta(seconds=1))
            out.append("completed")
        except RuntimeError as e:
            out.append(str(e))
    return out


def test_a_gloo_send_of_one_element_blocks_until_it_is_matched():
    """So deadlock_ring deadlocks for real: gloo does not buffer small sends."""
    first, second = unwrap(run_ranks(gloo_send, 2, timeout=60))[0]
    assert first == "completed"
    assert "Timed out waiting 1000ms for send operation to complete" in second


def test_the_wait_for_chain_ends_at_a_rank_that_finished_or_failed():
    call = {"kind": "recv", "name": "recv", "peer": 0, "line": "f.py:9", "waited_at": "f.py:9"}
    assert (
        stuck([{"done": {}}, {"blocked": call}], [4, 5])
        == "rank 5 waits in recv from rank 4 (f.py:9), which finished its code without a matching call"
    )
    waiting = {**call, "name": "irecv", "waited_at": "f.py:11"}
    assert stuck([{"raised": "IndexError: x (f.py:3)"}, {"blocked": waiting}], [0, 1]) == (
        "rank 0 stopped: IndexError: x (f.py:3); rank 1 waits in irecv from rank 0 "
        "(f.py:9, waited for at f.py:11)"
    )
    assert stuck([{"done": {}}, {"done": {}}], [0, 1]) is None


def test_traced_code_joins_the_catalog_and_is_checked_like_any():
    load_examples()
    assert algorithm_of("all_reduce", "tutorial_ring").traced
    names = next(c for c in catalog("gloo", 4)["collectives"] if c["name"] == "all_reduce")["algorithms"]
    assert {"tutorial_ring", "tutorial_ring_bug", "deadlock_ring"} <= set(names)
    validate(RunSpec(collective="all_reduce", algorithm="tutorial_ring", count=8), 4, "gloo")
    with pytest.raises(SpecError) as info:
        validate(RunSpec(collective="all_reduce", algorithm="tutorial_ring", count=8, op="MAX"), 4, "gloo")
    assert info.value.field == "op" and "computes SUM, AVG" in info.value.message
    with pytest.raises(ValueError, match="already has"):
        traced("all_reduce", "ring")(lambda buf, rank, size: None)
    with pytest.raises(ValueError, match="already has"):
        traced("send_recv", "blocking")(lambda buf, rank, size, root, peer: None)
    assert {"blocking", "isend"} <= set(
        next(c for c in catalog("gloo", 2)["collectives"] if c["name"] == "send_recv")["algorithms"]
    )


def test_the_server_takes_a_traced_schedule_only_within_the_runs_ranks_chunks_and_limits():
    import json

    from ringside.server.door.frames import INVALID, Refused, parse_event
    from ringside.server.runs.run import new_run
    from ringside.worker_agent.core.protocol import RunStarted

    load_examples()
    spec = RunSpec(collective="all_reduce", algorithm="tutorial_ring", count=8)
    good = build("all_reduce", "ring", 4).to_json()
    bounds = build("all_reduce", "ring", 4).chunk_bounds(8)
    malformed = [  # not a schedule at all: its frame is refused where it is parsed, naming the field
        ({**good, "layout": "blob"}, "schedule.layout"),
        ({**good, "root": [0]}, "schedule.root"),  # not a rank at all
        ({**good, "pieces": 1e300}, "schedule.pieces"),  # a number no buffer is cut into
        (
            {**good, "steps": [{"phase": "", "caption": "", "transfers": [[0, 1, 0, 0]]}]},
            "schedule.steps.0.transfers.0",
        ),
    ]
    for plan, field in malformed:
        frame = {
            "type": "run_started",
            "run_id": "r-1",
            "rank": 2,
            "group_rank": 2,
            "spec": spec.model_dump(mode="json"),
            "schedule": plan,
            "chunk_bounds": bounds,
        }
        with pytest.raises(Refused) as refused:
            parse_event({"text": json.dumps(frame)})
        assert refused.value.code == INVALID and f"run_started.{field}" in refused.value.reason
    forged = [  # a schedule, but not this run's
        # a rank outside the run
        {**good, "steps": [{"phase": "", "caption": "", "transfers": [[0, 9, 0, 0, 1]]}]},
        # too many steps
        {**good, "steps": [{"phase": "", "caption": "", "transfers": [[0, 1, 0, 0, 1]]}] * 600},
        # a chunk outside the run
        {**good, "steps": [{"phase": "", "caption": "", "transfers": [[0, 1, 9, 0, 1]]}]},
        {**good, "root": 7},
    ]
    for plan, chunk_bounds in [(p, bounds) for p in forged] + [(good, [(0, 8)])]:
        run = new_run("r-1", spec, "gloo", 4)
        run.on_started(
            RunStarted(
                run_id="r-1", rank=2, group_rank=2, spec=spec, schedule=plan, chunk_bounds=chunk_bounds
            )
        )
        assert run.schedule is None and run.steps == [] and "traced schedule" in run.error
    run = new_run("r-1", spec, "gloo", 4)
    run.on_started(
        RunStarted(
            run_id="r-1",
            rank=2,
            group_rank=2,
            spec=spec,
            schedule=good,
            chunk_bounds=bounds,
            input_chunks=[0, 1, 2, 3],
        )
    )
    assert (
        run.error is None
        and len(run.steps) == 6
        and run.chunk_bounds == bounds
        and run.input_chunks["2"] == [0, 1, 2, 3]
    )
