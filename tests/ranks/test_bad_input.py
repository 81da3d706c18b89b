"""Bad specs are refused with an error naming the field, before any rank talks,
so nothing hangs; a rank that dies makes the others fail within the timeout."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest
from distributed import Died, run_ranks, unwrap
from pydantic import ValidationError

from ringside.worker_agent.core.protocol import RunSpec
from ringside.worker_agent.core.validation import SpecError, validate

BAD = [
    (dict(collective="broadcast", root=4), "root", "rank 4 is not in the group"),
    (
        dict(collective="all_reduce", group=[1, 3]),
        "root",
        "(all_reduce has none, but its ranks count from one)",
    ),
    (dict(collective="all_reduce", group=[0, 7]), "group", "rank 7 does not exist"),
    (dict(collective="all_reduce", group=[1, 1]), "group", "names a rank twice"),
    (dict(collective="all_reduce", group=[]), "group", "at least one rank"),
    (dict(collective="all_reduce", count=0), "count", "at least 1"),
    (dict(collective="all_reduce", count=-3), "count", "at least 1"),
    (dict(collective="all_reduce", count=1 << 40), "count", "over the cap"),
    (
        dict(collective="all_reduce", algorithm="bogus"),
        "algorithm",
        "'bogus' is not an algorithm of all_reduce",
    ),
    (dict(collective="all_reduce", op="BAND", dtype="float32"), "op", "BAND needs an integer dtype"),
    (dict(collective="all_reduce", op="AVG", dtype="int32"), "op", "AVG needs a floating dtype"),
    (dict(collective="all_gather", capture="full", count=2000), "capture", "limited to 4096 elements"),
    (dict(collective="all_reduce", algorithm="ring", count=3), "chunks", "more than count=3"),
    (dict(collective="barrier", algorithm="dissemination", chunks=2), "chunks", "chunks must be 1"),
    (dict(collective="send_recv", root=1, peer=1), "peer", "must differ from the root"),
    (dict(collective="send_recv", peer=9), "peer", "rank 9 is not in the group"),
    (dict(collective="all_reduce", iterations=0), "iterations", "between 1 and"),
    (dict(collective="all_reduce", timeout=-1), "timeout", "between 1 and 3600"),
    (dict(collective="all_reduce", timeout=0.001), "timeout", "between 1 and 3600"),
    (dict(collective="all_reduce", timeout=float("nan")), "timeout", "between 1 and 3600"),
    (dict(collective="all_reduce", seed=-1), "seed", "between 0 and"),
    (
        dict(collective="all_reduce", algorithm="ring", chunks=10**9, count=10**6),
        "chunks",
        "between 1 and 1024",
    ),
]


@pytest.mark.parametrize("fields,field,words", BAD)
def test_bad_spec_names_the_field(fields, field, words):
    with pytest.raises(SpecError) as info:
        validate(RunSpec(**fields), 4, "gloo")
    assert info.value.field == field and words in info.value.message


def test_backend_limits():
    with pytest.raises(SpecError, match="op: BXOR is not available on nccl"):
        validate(RunSpec(collective="all_reduce", op="BXOR", dtype="int32"), 2, "nccl")
    with pytest.raises(SpecError, match="backend"):
        validate(RunSpec(collective="all_reduce"), 2, "mpi")
    validate(RunSpec(collective="all_reduce", op="AVG"), 2, "nccl")


def test_malformed_specs_are_refused_by_the_protocol():
    for fields in (
        dict(collective="all_shuffle"),
        dict(collective="all_reduce", dtype="int8"),
        dict(collective="all_reduce", surprise=1),
        dict(algorithm="ring"),
    ):
        with pytest.raises(ValidationError):
            RunSpec(**fields)


def bad_then_good(world):
    from ringside.worker_agent.rank.runner import Runner

    runner = Runner(world, lambda event: None)
    errors = []
    for fields, _, _ in BAD:
        try:
            runner.run("bad", RunSpec(**fields))
        except SpecError as e:
            errors.append(e.field)
    good = runner.run("good", RunSpec(collective="all_reduce", algorithm="ring", count=8, dtype="int64"))
    return errors, good.verified


def test_every_rank_refuses_alike_and_keeps_working():
    for errors, verified in unwrap(run_ranks(bad_then_good, 4, timeout=120)):
        assert errors == [field for _, field, _ in BAD]
        assert verified is True


def long_ring(world, marker_dir):
    from ringside.worker_agent.rank.runner import RunFailed, Runner

    def emit(event):
        if event.type == "step":
            with open(os.path.join(marker_dir, f"rank{world.rank}.pid"), "w") as marker:
                marker.write(str(os.getpid()))

    spec = RunSpec(
        collective="all_reduce", algorithm="ring", count=1 << 20, iterations=1000, capture="none", timeout=5
    )
    started = time.monotonic()
    try:
        Runner(world, emit).run("doomed", spec)
    except RunFailed as e:
        return "failed", str(e), time.monotonic() - started
    return "finished", "", time.monotonic() - started


@pytest.mark.parametrize("how", ["killed", "frozen"])
def test_a_lost_rank_fails_the_others_instead_of_hanging(tmp_path, how):
    """Killed: its sockets close and the others fail at once. Frozen (SIGSTOP): its sockets
    stay open and a rank waiting on it gives up when the run's 5 s timeout runs out; the
    others may then see that rank's sockets close first."""

    def lose_rank_3(procs):
        deadline = time.monotonic() + 90
        while not (tmp_path / "rank3.pid").exists():
            assert time.monotonic() < deadline, "rank 3 never started stepping"
            time.sleep(0.05)
        if how == "killed":
            os.kill(procs[3].pid, signal.SIGKILL)
        else:
            os.kill(procs[3].pid, signal.SIGSTOP)
            threading.Timer(12, os.kill, (procs[3].pid, signal.SIGKILL)).start()

    results = run_ranks(long_ring, 4, str(tmp_path), timeout=120, pg_timeout=5, on_start=lose_rank_3)
    assert isinstance(results[3], Died) and results[3].exitcode == -signal.SIGKILL
    messages = []
    for rank in range(3):
        outcome, message, seconds = results[rank]
        assert outcome == "failed", f"rank {rank} should have failed"
        assert f"rank {rank}: all_reduce/ring failed" in message
        messages.append(message)
        print(f"{how}: rank {rank} failed after {seconds:.1f} s: {message}")
    if how == "frozen":
        assert any("within the run's timeout of 5 s" in m for m in messages), messages


def test_full_capture_is_bounded_over_the_whole_run():
    """Every rank's buffer at every step: a long schedule at full capture would be a run of
    hundreds of megabytes for every viewer and the store."""
    plan = {"pieces": 1, "steps": [{"transfers": [[0, 1, 0, 0, 0], [0, 2, 0, 0, 0], [0, 3, 0, 0, 0]]}] * 512}
    with pytest.raises(SpecError) as info:
        validate(
            RunSpec(collective="broadcast", algorithm="custom", schedule=plan, count=4096, capture="full"),
            4,
            "gloo",
        )
    assert info.value.field == "capture" and "use 'summary'" in info.value.message
    validate(
        RunSpec(collective="broadcast", algorithm="custom", schedule=plan, count=4096, capture="summary"),
        4,
        "gloo",
    )
