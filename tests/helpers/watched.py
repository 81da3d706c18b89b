"""Watched jobs for the tests: a real torchrun job under Ringside's launcher (gloo), the server's
view of it through /api/watched, and a viewer's messages about it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from server_helpers import WORKER_TOKEN, messages

FIXTURES = Path(__file__).parents[1] / "fixtures"


def torchrun(
    server_url: str,
    script: Path,
    *args: str,
    nproc: int = 4,
    token: str = WORKER_TOKEN,
    launcher=("--ddp-hook",),
    env: dict[str, str] | None = None,
) -> subprocess.Popen:
    """`script ARGS` on `nproc` ranks under torchrun and ringside.watch's launcher."""
    cmd = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        f"--nproc-per-node={nproc}",
        "--standalone",
        "-m",
        "ringside.watch",
        "--server",
        server_url,
        *launcher,
        str(script),
        *args,
    ]
    env = {**os.environ, "RINGSIDE_WORKER_TOKEN": token, "OMP_NUM_THREADS": "1", **(env or {})}
    return subprocess.Popen(
        cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )


def wait_for(what, timeout: float = 60, every: float = 0.1):
    """What `what()` returns once it is truthy."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if value := what():
            return value
        time.sleep(every)
    raise AssertionError(f"not within {timeout} s: {what.__doc__ or what}")


def jobs(server) -> list[dict]:
    return server.call("GET", "/api/watched?limit=200")[1]["jobs"]


def newest_job(server, script: str, after: set[str]) -> dict | None:
    fresh = [j for j in jobs(server) if j["script"] == script and j["id"] not in after]
    return fresh[0] if fresh else None


def job(server, job_id: str, limit: int = 2000) -> dict:
    return server.call("GET", f"/api/watched/{job_id}?limit={limit}")[1]


def drain(viewer) -> list[dict]:
    """The messages a viewer has been sent and not read."""
    said = []
    try:
        while True:
            said += messages(viewer.recv(timeout=0))
    except TimeoutError:
        pass
    return said


def wait_for_message(viewer, match, timeout: float) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            frame = viewer.recv(timeout=max(0.1, deadline - time.monotonic()))
        except TimeoutError:
            break
        for message in messages(frame):
            if match(message):
                return message
    raise AssertionError("no such message")
