"""Retention on a real `ringside serve` (`--keep-runs`): the prune at start keeps the newest runs
and counts what it deleted, and the server answers while it prunes. Its first batch is held back
by another process that holds the store's file locked, so the probes land while the prune is
under way, not after it."""

from __future__ import annotations

import re
import sqlite3
import time

from seeded import seed
from server_helpers import start_serve

from ringside.worker_agent.rank.local import free_port

STORED, KEPT = 1000, 100


def scraped(server, line: str) -> float:
    status, text = server.call("GET", "/metrics")
    assert status == 200, text
    found = re.search(rf"^{re.escape(line)} (\S+)$", text, re.MULTILINE)
    assert found, line
    return float(found.group(1))


def test_a_prune_at_start_keeps_the_newest_runs_while_the_server_answers(tmp_path):
    port = free_port()
    db = tmp_path / f"serve-{port}.db"
    seed(db, STORED, readable=STORED)
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # the prune's batches wait for the file
    server = start_serve(tmp_path, "--keep-runs", str(KEPT), port=port)
    try:
        for _ in range(5):
            status, health = server.call("GET", "/api/health")
            assert status == 200 and health["store"]["waiting_writes"] >= 1, health
            assert scraped(server, "ringside_runs_pruned_total") == 0  # under way, nothing deleted yet
            time.sleep(0.2)
        holder.execute("ROLLBACK")
        deadline = time.monotonic() + 30
        while scraped(server, "ringside_runs_pruned_total") < STORED - KEPT and time.monotonic() < deadline:
            time.sleep(0.1)
        assert scraped(server, "ringside_runs_pruned_total") == STORED - KEPT
        status, page = server.call("GET", "/api/runs?limit=200")
        assert status == 200 and page["total"] == KEPT
        assert [r["id"] for r in page["runs"]] == [f"r-{i:06d}" for i in range(STORED, STORED - KEPT, -1)]
        assert server.call("GET", "/api/health")[1]["status"] == "ok"
    finally:
        holder.close()
        server.stop()
    check = sqlite3.connect(db)
    assert check.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == KEPT
    assert (
        check.execute("SELECT COUNT(*) FROM figures WHERE seq NOT IN (SELECT seq FROM runs)").fetchone()[0]
        == 0
    )
    check.close()
