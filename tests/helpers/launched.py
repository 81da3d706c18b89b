"""Ranks started as a user starts them (a script that spawns them, or a launcher), each joining a
test's server with the worker token, and stopped with the server seeing them gone."""

from __future__ import annotations

import os
import signal
import subprocess
import time

from server_helpers import WORKER_TOKEN


def launch(*cmd: str) -> subprocess.Popen:
    """`cmd` in a session of its own, its ranks joining with the worker token."""
    env = {**os.environ, "RINGSIDE_WORKER_TOKEN": WORKER_TOKEN, "OMP_NUM_THREADS": "1"}
    return subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, start_new_session=True)


def stop(proc: subprocess.Popen, server) -> None:
    """The launcher and its ranks gone, and the server seeing them gone: the next test's ranks
    would otherwise be refused as ranks already connected."""
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(20)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    deadline = time.monotonic() + 30
    while any(r["status"] != "lost" for r in server.cluster()["ranks"]) and time.monotonic() < deadline:
        time.sleep(0.1)
