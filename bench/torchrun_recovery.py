"""A torchrun job (default settings: no restarts) through a run's injected hang: how long
after the hung rank's peers gave up the job is back, its next run verified. Prints the
median of the tries and every try; asserts nothing.

    .venv/bin/python bench/torchrun_recovery.py [--ranks 3] [--tries 5] [--timeout 2]

Per try: a ring all_reduce in which the last rank never arrives at step 1, with the run's
timeout; once it has failed, a plain ring all_reduce. "Back" is from the hang run's post to
that run's end, less the timeout (the time the user chose to wait): the server's wait to
see whether a rank died (jobs.LOSS_GRACE_S), the group built again in every rank, and the
next run. "After the failure" is from the failed run's end, as a client polling sees it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ringside.worker_agent.clients.harness import WORKER_TOKEN, Up, start_serve, stop_torchrun


def torchrun(server: Up, ranks: int, log: Path) -> subprocess.Popen:
    env = {**os.environ, "RINGSIDE_WORKER_TOKEN": WORKER_TOKEN, "OMP_NUM_THREADS": "1"}
    cmd = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--standalone",
        f"--nproc-per-node={ranks}",
        "-m",
        "ringside.worker_agent",
        "--server",
        server.url,
    ]
    return subprocess.Popen(
        cmd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def once(server: Up, ranks: int, timeout: float) -> tuple[float, float]:
    """(back, after the failure) in seconds, for one hang."""
    hang = {
        "collective": "all_reduce",
        "algorithm": "ring",
        "count": 16,
        "timeout": timeout,
        "perturb": {"hang": {"rank": ranks - 1, "step": 1}},
    }
    posted = time.perf_counter()
    status, body = server.call("POST", "/api/runs", hang)
    if status != 202:
        raise RuntimeError(f"the hang run was refused: {body}")
    failed = server.wait(body["id"], timeout=60)
    seen = time.perf_counter()
    if failed["state"] != "failed":
        raise RuntimeError(f"the hang run ended {failed['state']}")
    again = server.run(timeout=60, collective="all_reduce", algorithm="ring", count=16)
    back = time.perf_counter()
    if again["state"] != "done" or again["verified"] is not True:
        raise RuntimeError(f"the run after the hang ended {again['state']}: {again.get('error')}")
    return back - posted - timeout, back - seen


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--ranks", type=int, default=3)
    parser.add_argument("--tries", type=int, default=5)
    parser.add_argument("--timeout", type=float, default=2.0, help="the hang run's timeout, s")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp())
    server = start_serve(tmp)
    job = torchrun(server, args.ranks, tmp / "torchrun.log")
    try:
        pids = {r["pid"] for r in server.wait_ranks(args.ranks)["ranks"]}
        rows = [once(server, args.ranks, args.timeout) for _ in range(args.tries)]
        same = {r["pid"] for r in server.cluster()["ranks"]} == pids and job.poll() is None
    finally:
        stop_torchrun(job)
        server.stop()
    back, after = zip(*rows)
    print(
        f"torchrun --standalone --nproc-per-node={args.ranks} (default settings), {args.tries} hangs "
        f"(run timeout {args.timeout:g} s); the same {args.ranks} rank processes throughout: {same}"
    )
    for words, times in (
        ("back (hang posted -> next run verified, less the timeout)", back),
        ("after the failure (run seen failed -> next run verified)", after),
    ):
        every = ", ".join(f"{t:.2f}" for t in times)
        print(f"  {words}: median {statistics.median(times):.2f} s; all: {every}")


if __name__ == "__main__":
    main()
