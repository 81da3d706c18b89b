"""A real gloo job that hangs and leaves its ranks' Flight Recorder dumps (fixtures/fr_hang.py), and
the same dumps made readable to torch's own analyzer (fr_trace), which crashes on gloo's as torch
writes them: gloo records no process group's ranks (pg_config is empty), so fr_trace's lookup of
the group fails (KeyError: ('0', 3)). The rewrite is for fr_trace only; Ringside reads them raw."""

from __future__ import annotations

import os
import pickle
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from distributed import stop_torchrun

FIXTURE = Path(__file__).parents[1] / "fixtures" / "fr_hang.py"
PREFIX = "nccl_trace_rank_"  # torch's default TORCH_FR_DUMP_TEMP_FILE, in a folder of the test's
RANKS = 4


@dataclass
class Dumps:
    pickled: Path  # one file per rank, PREFIX and the rank
    json: Path
    stopped: int
    waiting_line: int  # fr_hang.py's line where the others wait
    stopped_line: int  # its last collective's (the barrier)


def line_of(marker: str) -> int:
    return next(i for i, line in enumerate(FIXTURE.read_text().splitlines(), 1) if marker in line)


def hung_job(tmp: Path, stopped: int = 2, skip: bool = False, timeout: float = 120) -> Dumps:
    """The dumps of fr_hang.py's job: rank `stopped` stops before the others' all_reduce, or skips it."""
    pickled, as_json = tmp / "pickled", tmp / "json"
    pickled.mkdir()
    as_json.mkdir()
    env = {
        **os.environ,
        "TORCH_FR_DUMP_TEMP_FILE": str(pickled / PREFIX),
        "TORCH_FR_BUFFER_SIZE": "2000",
        "OMP_NUM_THREADS": "1",
    }
    cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc-per-node={RANKS}"]
    proc = subprocess.Popen(
        [*cmd, str(FIXTURE), str(as_json), str(stopped), *["skip"] * skip],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + timeout
        while len(list(pickled.glob(f"{PREFIX}[0-9]"))) + len(list(as_json.glob("*.json"))) < 2 * RANKS:
            if proc.poll() is not None:
                raise RuntimeError(
                    f"the job ended ({proc.returncode}) before its dumps:\n{proc.stderr.read()}"
                )
            if time.monotonic() > deadline:
                raise TimeoutError("the job left no dumps in time")
            time.sleep(0.1)
    finally:
        stop_torchrun(proc)
    return Dumps(pickled, as_json, stopped, line_of("WHERE THE OTHERS WAIT"), line_of("dist.barrier()"))


def for_fr_trace(pickled: Path, to: Path, world: int = RANKS) -> Path:
    """A copy of gloo's dumps with pg_config written as NCCL's is: each group's ranks (the default
    group's, every rank of the world; another's, the ranks that issued in it)."""
    to.mkdir()
    dumps = {int(f.name[len(PREFIX) :]): pickle.loads(f.read_bytes()) for f in pickled.glob(f"{PREFIX}*")}
    groups: dict[str, tuple[str, set[int]]] = {}
    for rank, dump in dumps.items():
        for entry in dump["entries"]:
            name, desc = entry["process_group"]
            groups.setdefault(name, (desc, set()))[1].add(rank)
    for rank, dump in dumps.items():
        dump["pg_config"] = {
            name: {
                "name": name,
                "desc": desc,
                "ranks": str(list(range(world)) if desc == "default_pg" else sorted(rs)),
            }
            for name, (desc, rs) in groups.items()
        }
        (to / f"{PREFIX}{rank}").write_bytes(pickle.dumps(dump))
    return to


@dataclass
class Finding:
    seq: int
    group: str
    missing: list[int]  # the ranks it says did not join, or the culprit of a mismatch
    error: str = ""  # the mismatch's type (COLLECTIVE_TYPE_MISMATCH, ...)


def fr_trace(folder: Path, *flags: str) -> tuple[str, list[Finding]]:
    """torch's analyzer on `folder`: its output, and each collective it says not all ranks joined or
    found a culprit in."""
    done = subprocess.run(
        [sys.executable, "-m", "torch.distributed.flight_recorder.fr_trace", *flags, str(folder)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    said = done.stdout + done.stderr
    found = [
        Finding(int(seq), group, sorted(int(r) for r in re.findall(r"\d+", missing)))
        for seq, group, missing in re.findall(
            r"Not all ranks joining collective, sequence number: (\d+).*?group info: ([^:\s]+):.*?"
            r"missing ranks: \{([^}]*)\}",
            said,
            re.S,
        )
    ]
    found += [
        Finding(int(seq), group, [int(culprit)], error)
        for seq, group, culprit, error in re.findall(
            r"Collective sequence number: (\d+) has errors.*?group info: ([^:\s]+):.*?"
            r"Culprit rank (\d+); Error type: (\w+)",
            said,
            re.S,
        )
    ]
    return said, found
