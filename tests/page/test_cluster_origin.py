"""How the ranks came to be, the seeds' first lesson: the cluster names every rank by node,
global rank, local rank, world size, backend, MASTER_ADDR:PORT and what started it, for both
ways the seeds teach (a script that spawns its ranks, a launcher that starts one program on
every rank), each joining a real server."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from server_helpers import WORKER_TOKEN, start_serve

EXAMPLE = Path(__file__).parents[2] / "examples" / "spawn_workers.py"


def launch(*cmd: str) -> subprocess.Popen:
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


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    # each test's ranks are a world of their own: one whose ranks have all gone is not held for
    # them to come back (`--world-hold`, 30 s by default), which would refuse the next test's
    up = start_serve(tmp_path_factory.mktemp("origin"), "--world-hold", "0")
    yield up
    up.stop()


def test_a_spawning_script_names_its_ranks(server, page_for):
    ranks = launch(sys.executable, str(EXAMPLE), "--server", server.url, "-n", "2")
    try:
        cluster = server.wait_ranks(2)
        assert [(r["rank"], r["local_rank"], r["local_world_size"]) for r in cluster["ranks"]] == [
            (0, 0, 2),
            (1, 1, 2),
        ]
        assert {r["launcher"] for r in cluster["ranks"]} == {"torch.multiprocessing.spawn"}
        master = cluster["ranks"][0]["master"]
        assert master.startswith("127.0.0.1:") and all(r["master"] == master for r in cluster["ranks"])
        page = page_for(server.url)  # its console's errors, if any, fail the test and are shown
        page.wait_for_function("document.querySelectorAll('#cluster .rank-row').length === 2", timeout=60_000)
        text = page.locator("#cluster").inner_text()
        for words in (
            "world size 2",
            "gloo",
            f"MASTER_ADDR:PORT {master}",
            "started by torch.multiprocessing.spawn",
            "local 1/2",
        ):
            assert words in text, (words, text)
    finally:
        stop(ranks, server)


@pytest.mark.skipif(
    shutil.which("torchrun") is None and not (Path(sys.executable).parent / "torchrun").exists(),
    reason="torchrun is not installed",
)
def test_a_launcher_names_its_ranks(server):
    torchrun = shutil.which("torchrun") or str(Path(sys.executable).parent / "torchrun")
    ranks = launch(
        torchrun, "--standalone", "--nproc-per-node=2", "-m", "ringside.worker_agent", "--server", server.url
    )
    try:
        cluster = server.wait_ranks(2)
        live = [r for r in cluster["ranks"] if r["status"] != "lost"]
        assert {r["launcher"] for r in live} == {"torchrun"}
        assert sorted(r["local_rank"] for r in live) == [0, 1]
        run = server.run(collective="all_reduce", algorithm="ring", count=4)
        assert run["state"] == "done" and run["verified"] is True
    finally:
        stop(ranks, server)
