"""`ringside open` on each hostile input found (issue 40), as a user runs it: under a 1 GiB address
space and 15 s of CPU, the command refuses every one with exit status 2 (never 1, which says a hang
was found) and one line on stderr naming the file, never a traceback. Here rather than in unit/:
each is a process of its own that imports torch (about 650 MB of address space and 3 s of CPU
before it reads a byte), so the limits are the kernel's, on the whole command."""

from __future__ import annotations

import json
import pickle
import resource
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from fake_debug_server import FakeServer, page

from ringside.worker_agent.clients.harness import CLI

MEMORY = 1 << 30
CPU_S = 15
# a hang guard only: the bound is CPU_S, the kernel's; on a loaded machine the wall clock is not
WALL_S = 180


def entry(record: int = 0, seq: int = 1, **more) -> dict:
    return {
        "record_id": record,
        "collective_seq_id": seq,
        "profiling_name": "gloo:all_reduce",
        "process_group": ["0", "default_pg"],
        "time_created_ns": 1_000_000_000 + record,
        "input_sizes": [[4]],
        "output_sizes": [[4]],
        "input_dtypes": ["Float"],
        **more,
    }


def as_json(*entries: dict) -> bytes:
    return json.dumps({"entries": list(entries)}).encode()


def beside_rank_0(folder: Path, name: str, data: bytes) -> Path:
    """A folder of a good rank 0's dump and the hostile file: the file named in the refusal."""
    (folder / "nccl_trace_rank_0").write_bytes(pickle.dumps({"entries": [entry()]}, protocol=2))
    (folder / name).write_bytes(data)
    return folder / name


def shared_dict(folder: Path) -> Path:
    """6 KB: 1,000 entries that are one dict, its sizes 500 references to one list of 500."""
    one = entry(input_sizes=[[7] * 500] * 500)
    return beside_rank_0(folder, "nccl_trace_rank_1", pickle.dumps({"entries": [one] * 1000}, protocol=2))


def two_million_references(folder: Path) -> Path:
    data = pickle.dumps({"entries": [entry()] * 2_000_000}, protocol=2)
    return beside_rank_0(folder, "nccl_trace_rank_1", data)


HOSTILE: dict[str, Callable[[Path], Path]] = {
    "a rank named 99999999999": lambda d: beside_rank_0(d, "nccl_trace_rank_99999999999", as_json(entry())),
    "a pickle of 1,000 entries that are one dict": shared_dict,
    "a pickle of 2 million references": two_million_references,
    "a memo index of 2^32": lambda d: beside_rank_0(d, "nccl_trace_rank_1", b"\x80\x02]r\xff\xff\xff\xff."),
    "JSON nested 100,000 deep": lambda d: beside_rank_0(
        d, "nccl_trace_rank_1", b'{"entries": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    ),
    "a record_id of 4,000 digits": lambda d: beside_rank_0(
        d, "nccl_trace_rank_1", as_json(entry(record=int("9" * 4000)))
    ),
    "an input size of 10^300": lambda d: beside_rank_0(
        d, "nccl_trace_rank_1", as_json(entry(input_sizes=[[10**300]]))
    ),
    "a negative sequence number": lambda d: beside_rank_0(d, "nccl_trace_rank_1", as_json(entry(seq=-1))),
    "a profiling_name of 20 MB": lambda d: beside_rank_0(
        d, "nccl_trace_rank_1", as_json(entry(profiling_name="gloo:" + "x" * (20 << 20)))
    ),
    "a profiling_name of 50 MB": lambda d: beside_rank_0(
        d, "nccl_trace_rank_1", as_json(entry(profiling_name="gloo:" + "x" * (50 << 20)))
    ),
}


def limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_S, CPU_S))


def ringside_open(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*CLI, "open", "--print", *args],
        preexec_fn=limited,
        capture_output=True,
        text=True,
        timeout=WALL_S,
    )


def assert_refused_in_one_line(done: subprocess.CompletedProcess, naming: str) -> None:
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    assert done.returncode == 2, done.stderr[-3000:]  # SIGXCPU past 15 s of CPU; MemoryError's 1
    assert done.stdout == ""
    assert done.stderr.startswith("ringside open: error: ") and done.stderr.count("\n") == 1, done.stderr
    assert naming in done.stderr


@pytest.mark.parametrize("hostile", HOSTILE, ids=list(HOSTILE))
def test_a_hostile_file_is_refused_in_one_line_within_a_gib_and_15_s(hostile, tmp_path):
    file = HOSTILE[hostile](tmp_path)
    assert_refused_in_one_line(ringside_open(str(tmp_path)), naming=str(file))


def test_a_debug_page_listing_rank_999999999999_is_refused_in_one_line_within_a_gib_and_15_s():
    worker = "http://127.0.0.1:1"
    debug = FakeServer("127.0.0.1", {"/tcpstore": page((0, worker), (999999999999, worker))})
    try:
        done = ringside_open(debug.url)
    finally:
        debug.stop()
    assert_refused_in_one_line(done, naming=f"{debug.url}: its page lists rank 999999999999, past the")
    assert debug.asked == [("GET", "/tcpstore")]
