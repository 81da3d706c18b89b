"""Hang runs in a row on the ranks `ringside up` runs (LocalWorkers, forked and watched) against a
real server: each fails naming the rank, and none costs a restart."""

from __future__ import annotations

import threading

from server_helpers import WORKER_TOKEN, start_serve

from ringside.worker_agent.rank.launch import RESTARTS_PER_WINDOW, LocalWorkers, RestartBudget


def test_hang_runs_in_a_row_leave_every_rank_connected(tmp_path):
    """More hang runs in a row than a window's restarts of crashes: every one fails naming the
    rank that never arrived, and the ranks build their group again in process: the same
    processes, never lost, none restarted, and the next plain run is done. The ranks are what
    `ringside up` runs (LocalWorkers, forked and watched), with a budget of two restarts a window
    instead of RESTARTS_PER_WINDOW."""
    server = start_serve(tmp_path)
    budget, said, stopping = RestartBudget(allowed=2, window_s=600), [], threading.Event()
    workers = LocalWorkers(2, server.url, WORKER_TOKEN, budget=budget)
    workers.start()
    watcher = threading.Thread(target=workers.watch, args=(stopping, said.append), daemon=True)
    watcher.start()
    try:
        pids = {r["pid"] for r in server.wait_ranks(2, timeout=60)["ranks"]}
        hang = {
            "collective": "all_reduce",
            "algorithm": "ring",
            "count": 4,
            "timeout": 1,
            "perturb": {"hang": {"rank": 1, "step": 0}},
        }
        for _ in range(budget.allowed + 3):
            status, body = server.call("POST", "/api/runs", hang)
            assert status == 202, body
            run = server.wait(body["id"], timeout=60)
            assert run["state"] == "failed" and "rank 1 never arrived at step 0" in run["error"], run["error"]
            ranks = server.cluster()["ranks"]
            assert {r["pid"] for r in ranks} == pids and all(r["status"] != "lost" for r in ranks), ranks
        again = server.run(collective="all_reduce", algorithm="ring", count=4)
        assert again["state"] == "done" and again["verified"] is True
        assert workers.restarts == 0 and not budget.spent and not said, said
    finally:
        stopping.set()
        watcher.join(timeout=10)
        workers.stop()
        server.stop()
    assert RESTARTS_PER_WINDOW == RestartBudget().allowed == 20, (
        "`ringside up`'s budget, which the README states"
    )
