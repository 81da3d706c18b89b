"""How the ranks came to be, when a launcher starts one program on every rank: torchrun's ranks join
a real server, say torchrun started them and their local ranks, and run. A script that spawns its
ranks, on the page: tests/page/test_cluster_origin.py."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from launched import launch, stop
from server_helpers import start_serve


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    up = start_serve(tmp_path_factory.mktemp("launcher"))
    yield up
    up.stop()


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
