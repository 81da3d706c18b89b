"""How the ranks came to be, the seeds' first lesson, on the page: a script that spawns its ranks
joins a real server, and the cluster names every rank by node, global rank, local rank, world size,
backend, MASTER_ADDR:PORT and what started it. The other way the seeds teach (a launcher that starts
one program on every rank): tests/served/test_launcher_served.py."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from launched import launch, stop
from server_helpers import start_serve

EXAMPLE = Path(__file__).parents[2] / "examples" / "spawn_workers.py"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    up = start_serve(tmp_path_factory.mktemp("origin"))
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
