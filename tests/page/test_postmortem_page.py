"""A job opened from its dumps (`ringside open --server`) in a real Chromium: the link the command
prints opens the Jobs view on it, shown as a watched job is, its state `dumped` and the hang
banner naming the rank that stopped; the hang's length is the one at the dumps, not a clock."""

from __future__ import annotations

import json
import os
import subprocess
import time

import pytest
from server_helpers import WORKER_TOKEN, start_serve

from ringside.worker_agent.clients.harness import CLI

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    up = start_serve(tmp_path_factory.mktemp("postmortem-page"))
    yield up
    up.stop()


def entry(seq: int, t_ns: int, retired: bool) -> dict:
    """One all_reduce as gloo's recorder writes it in JSON (`_dump_fr_trace_json`)."""
    return {
        "record_id": seq - 1,
        "collective_seq_id": seq,
        "profiling_name": "gloo:all_reduce",
        "process_group": ["0", "default_pg"],
        "time_created_ns": t_ns,
        "input_sizes": [[256]],
        "output_sizes": [[256]],
        "input_dtypes": ["Float"],
        "output_dtypes": ["Float"],
        "is_p2p": False,
        "retired": retired,
        "state": "scheduled",
    }


def test_the_printed_link_opens_the_dumped_job_with_its_hang(server, page_for, tmp_path):
    now = time.time_ns()
    for rank in range(4):  # rank 2 stopped after #2; the others wait in #3, issued 5 s before the dumps
        seqs = [1, 2] if rank == 2 else [1, 2, 3]
        entries = [entry(s, now - (8 - s) * 1_000_000_000, retired=s < 3) for s in seqs]
        (tmp_path / f"fr_{rank}.json").write_text(json.dumps({"version": "2.10", "entries": entries}))
    done = subprocess.run(
        [*CLI, "open", "--server", server.url, str(tmp_path)],
        env={**os.environ, "RINGSIDE_WORKER_TOKEN": WORKER_TOKEN},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1, done.stderr
    link = done.stdout.splitlines()[-1].split(": ", 1)[1]

    page = page_for("about:blank")
    page.clock.install()  # the page's timers on a clock the test moves on (below), time flowing till then
    page.goto(link)
    expect(page.locator("#job")).to_be_visible()
    expect(page.locator("#job-title")).to_contain_text("dumped")
    headline = "Hang: rank 2 late: ranks 0, 1, 3 wait in all_reduce #3 (group 0, 256 × float32)"
    expect(page.locator("#job-hang")).to_contain_text(headline)
    expect(page.locator('#job-ranks [data-rank="2"][data-late]')).to_have_count(1)
    said = page.locator("#job-hang-for").inner_text()
    assert said.startswith(" · for 5")  # as long as it had lasted at the dumps
    page.clock.run_for(2500)  # the page's clock 2.5 s on at once, its 1 s ticks run
    assert page.locator("#job-hang-for").inner_text() == said  # and no longer: the job is not running
