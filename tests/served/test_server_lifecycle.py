"""`ringside up` and `serve` as a person uses them: Ctrl-C stops everything, a restarted server keeps
every run, ranks rejoin a server that comes back. (A rank killed during a run: test_server_more.py;
what the dispatcher does when the server stops or restarts: tests/unit/test_runs_service.py.)"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

from server_helpers import WORKER_TOKEN, start_serve, start_up, wait_gone

from ringside.server.operate.tokens import WORKER, read
from ringside.worker_agent.clients.harness import CLI
from ringside.worker_agent.rank.launch import LocalWorkers
from ringside.worker_agent.rank.local import free_port


def test_ctrl_c_during_a_run_stops_everything_and_the_run_is_interrupted_not_failed(tmp_path):
    """The ranks leave with the server, no process is left, and the run they were in the middle of did
    not fail: the stopped server stored it interrupted."""
    db = tmp_path / "runs.db"
    up = start_up(tmp_path, ranks=3, db=db)
    ranks = {r["rank"]: r["pid"] for r in up.wait_ranks(3)["ranks"]}
    status, body = up.call(
        "POST", "/api/runs", {"collective": "all_reduce", "count": 1 << 20, "iterations": 10_000}
    )
    assert status == 202, body
    while up.call("GET", f"/api/runs/{body['id']}")[1]["state"] != "running":
        time.sleep(0.05)
    started = up.descendants()
    assert set(ranks.values()) <= set(started)
    names = {Path(f"/proc/{pid}/comm").read_text().strip() for pid in ranks.values()}
    assert names == {"ringside-r0", "ringside-r1", "ringside-r2"}
    assert up.stop(signal.SIGINT) == 0
    assert wait_gone(started) == []
    with contextlib.closing(sqlite3.connect(db)) as stored:
        run = json.loads(stored.execute("SELECT body FROM runs WHERE id = ?", (body["id"],)).fetchone()[0])
    assert (run["state"], run["error"]) == ("interrupted", "the server stopped before this run finished")


def test_a_restarted_server_keeps_history_and_marks_the_interrupted_run(tmp_path):
    db = tmp_path / "runs.db"
    up = start_up(tmp_path, ranks=2, db=db)
    finished = up.run(collective="all_gather", algorithm="ring", count=4)
    status, body = up.call(
        "POST", "/api/runs", {"collective": "all_reduce", "count": 1 << 20, "iterations": 10_000}
    )
    assert status == 202
    while up.call("GET", f"/api/runs/{body['id']}")[1]["state"] != "running":
        time.sleep(0.05)
    pids = up.descendants()
    up.proc.kill()  # no goodbye: the run is left `running` in the file
    up.proc.wait()
    assert wait_gone(pids, timeout=30) == [], "orphaned workers must leave by themselves"
    again = start_up(tmp_path, ranks=2, db=db)
    try:
        assert again.call("GET", f"/api/runs/{finished['id']}")[1] == finished
        interrupted = again.call("GET", f"/api/runs/{body['id']}")[1]
        assert interrupted["state"] == "interrupted" and "server stopped" in interrupted["error"]
        new = again.run(collective="barrier", algorithm="dissemination")
        assert new["id"] > body["id"] and new["state"] == "done"
    finally:
        pids = again.descendants()
        assert again.stop(signal.SIGTERM) == 0  # SIGTERM stops it as cleanly as Ctrl-C
    assert wait_gone(pids) == []


def test_workers_rejoin_a_server_that_comes_back(tmp_path):
    port = free_port()
    first = start_serve(tmp_path, port=port)
    workers = LocalWorkers(2, first.url, WORKER_TOKEN)
    workers.start()
    try:
        pids = sorted(r["pid"] for r in first.wait_ranks(2)["ranks"])
        run = first.run(collective="all_gather", algorithm="ring", count=4)
        assert first.stop() == 0
        second = start_serve(tmp_path, port=port)
        try:
            # the same processes
            assert sorted(r["pid"] for r in second.wait_ranks(2, timeout=30)["ranks"]) == pids
            assert second.call("GET", f"/api/runs/{run['id']}")[1] == run
            assert second.run(collective="all_reduce", algorithm="ring", count=4)["verified"] is True
        finally:
            second.stop()
    finally:
        workers.stop()
    assert wait_gone(pids) == []


def test_serve_says_how_a_restart_keeps_the_worker_token(tmp_path):
    """A token made fresh at start is made fresh again by a restart, which refuses the ranks already
    running (workers, watched jobs: they run on unwatched); the banner says how to keep it (its
    output is no terminal: the tokens are in their file, which the banner names)."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "RINGSIDE_WORKER_TOKEN"}
    log = tmp_path / "serve.log"
    with open(log, "w") as out:  # the server writes on to its own copy
        proc = subprocess.Popen(
            [*CLI, "serve", "--port", str(port), "--db", str(tmp_path / "runs.db")],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
        )
    try:
        deadline = time.monotonic() + 60
        while "runs kept in" not in log.read_text() and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
    said, kept = (
        log.read_text(),
        tmp_path / "runs-tokens.env",
    )  # output to a file: the tokens beside the store
    token = read(kept)[WORKER]
    assert f"restart it with the tokens in {kept} in its environment" in said and token not in said, said
