"""`python -m ringside.worker_agent` under torchrun: real ranks, events as JSON lines."""

from __future__ import annotations

import json
import subprocess
import sys

from ringside.worker_agent.core.protocol import EVENT


def torchrun(n: int, *args: str) -> subprocess.CompletedProcess:
    # --standalone: torchrun picks a free rendezvous port itself, with no window for another process to take
    # it
    cmd = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--standalone",
        f"--nproc-per-node={n}",
        "-m",
        "ringside.worker_agent",
        *args,
    ]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180)


def test_torchrun_ring_all_reduce_writes_every_event(tmp_path):
    done = torchrun(
        3,
        "--collective",
        "all_reduce",
        "--algorithm",
        "ring",
        "--count",
        "8",
        "--dtype",
        "int64",
        "--capture",
        "full",
        "--out",
        str(tmp_path / "rank{rank}.jsonl"),
    )
    assert done.returncode == 0, done.stderr[-2000:]
    run_ids = set()
    for rank in range(3):
        events = [
            EVENT.validate_json(line) for line in (tmp_path / f"rank{rank}.jsonl").read_text().splitlines()
        ]
        assert [e.type for e in events] == ["run_started"] + ["step"] * 4 + ["run_finished"]
        assert [e.step for e in events[1:-1]] == [0, 1, 2, 3]
        assert all(e.rank == rank for e in events)
        assert (events[0].schedule is not None) == (rank == 0)
        finished = events[-1]
        assert finished.verified is True
        values = [v for s in finished.output for v in s.values]
        assert values == [sum(r * 8 + i for r in range(3)) for i in range(8)]  # the `index` pattern, summed
        run_ids |= {e.run_id for e in events}
    assert len(run_ids) == 1, "every rank's events carry the same run id"


def test_bad_spec_exits_2_on_every_rank_naming_the_field():
    done = torchrun(2, "--collective", "all_reduce", "--op", "BAND", "--dtype", "float32")
    assert done.returncode != 0
    assert done.stderr.count("error: op: BAND needs an integer dtype, not float32") == 2


def test_malformed_spec_is_refused_before_joining():
    done = subprocess.run(
        [sys.executable, "-m", "ringside.worker_agent", "--spec", json.dumps({"collective": "all_shuffle"})],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "error: collective:" in done.stderr


def test_an_output_file_that_cannot_be_written_is_refused_before_joining(tmp_path):
    done = torchrun(2, "--collective", "barrier", "--out", str(tmp_path / "missing" / "rank{rank}.jsonl"))
    assert done.returncode != 0
    assert "error: --out: No such file or directory" in done.stderr
    assert "]: Traceback" not in done.stderr, "no rank's traceback (torchrun prints its own)"


def test_torchrun_runs_a_users_algorithm_from_a_file(tmp_path):
    done = torchrun(
        4,
        "--algorithms",
        "examples/double_binary_tree.py",
        "--collective",
        "all_reduce",
        "--algorithm",
        "double_binary_tree",
        "--count",
        "6",
        "--dtype",
        "int64",
        "--out",
        str(tmp_path / "r{rank}.jsonl"),
    )
    assert done.returncode == 0, done.stderr[-2000:]
    finished = [
        EVENT.validate_json((tmp_path / f"r{r}.jsonl").read_text().splitlines()[-1]) for r in range(4)
    ]
    assert all(f.type == "run_finished" and f.verified is True for f in finished)


def test_a_users_file_that_does_not_load_is_refused_before_joining(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("raise RuntimeError('half written')\n")
    done = subprocess.run(
        [sys.executable, "-m", "ringside.worker_agent", "--algorithms", str(bad), "--collective", "barrier"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "error: --algorithms: RuntimeError: half written" in done.stderr
