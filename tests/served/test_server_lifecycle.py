"""`ringside up` as a person uses it: it stops cleanly, brings a dead rank's
group back, and a restarted server keeps every run."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path

from server_helpers import WORKER_TOKEN, ScriptedRank, start_serve, start_up, wait_gone
from websockets.exceptions import ConnectionClosed

from ringside.worker_agent.clients.harness import CLI
from ringside.worker_agent.rank.launch import LocalWorkers
from ringside.worker_agent.rank.local import free_port


def test_ctrl_c_stops_everything_and_leaves_no_process(tmp_path):
    up = start_up(tmp_path, ranks=3)
    ranks = {r["rank"]: r["pid"] for r in up.wait_ranks(3)["ranks"]}
    started = up.descendants()
    assert set(ranks.values()) <= set(started)
    names = {Path(f"/proc/{pid}/comm").read_text().strip() for pid in ranks.values()}
    assert names == {"ringside-r0", "ringside-r1", "ringside-r2"}
    assert up.stop(signal.SIGINT) == 0
    assert wait_gone(started) == []


def test_a_dead_worker_brings_the_group_back(tmp_path):
    up = start_up(tmp_path, ranks=3)
    try:
        before = {r["rank"]: r["pid"] for r in up.wait_ranks(3)["ranks"]}
        os.kill(before[1], signal.SIGKILL)
        after = {r["rank"]: r["pid"] for r in up.wait_ranks(3, exclude_pids=set(before.values()))["ranks"]}
        assert set(after) == {0, 1, 2} and not set(after.values()) & set(before.values())
        assert wait_gone(list(before.values())) == []
        assert up.run(collective="all_reduce", algorithm="ring", count=6)["verified"] is True
    finally:
        up.stop()


def test_a_forged_rank_of_the_worlds_own_size_takes_no_slot_while_the_group_restarts(tmp_path):
    """The worker token alone does not make a rank of this world: while its ranks restart after
    a kill -9, a hello for rank 0 with the world's size is refused, and the real rank 0 comes back."""
    up = start_up(tmp_path, ranks=3, env={"RINGSIDE_WORKER_TOKEN": WORKER_TOKEN})
    try:
        before = {r["rank"]: r["pid"] for r in up.wait_ranks(3)["ranks"]}
        os.kill(before[1], signal.SIGKILL)
        refusals = []  # tried again and again until the new ranks are all back
        while len(_live_new(up, before.values())) < 3 and len(refusals) < 300:
            refusals.append(_forged_hello(up, rank=0, world_size=3))
        after = {r["rank"]: r["pid"] for r in up.wait_ranks(3, exclude_pids=set(before.values()))["ranks"]}
        assert set(after) == {0, 1, 2} and not set(after.values()) & set(before.values())
        assert None not in refusals, f"a forged rank 0 held a slot: {Counter(refusals)}"
        assert any("world key differs" in r and "restart" in r for r in refusals), Counter(refusals)
        assert up.run(collective="all_reduce", algorithm="ring", count=6)["verified"] is True
    finally:
        up.stop()


def _live_new(up, old_pids) -> list[dict]:
    return [r for r in up.cluster()["ranks"] if r["status"] != "lost" and r["pid"] not in set(old_pids)]


def _forged_hello(up, rank: int, world_size: int) -> str | None:
    """The reason a hello with the worker token but not the world's key is refused; None if it held a slot."""
    forged = ScriptedRank(up, rank, world_size, pid=4242)
    try:
        forged.ws.recv(timeout=0.3)
    except TimeoutError:
        return None
    except ConnectionClosed as closed:
        return closed.rcvd.reason if closed.rcvd else ""
    finally:
        forged.close()
    return None


def test_ctrl_c_during_a_run_marks_it_interrupted_not_failed(tmp_path):
    """The ranks leave with the server, and the run they were in the middle of did not fail."""
    db = tmp_path / "runs.db"
    up = start_up(tmp_path, ranks=2, db=db)
    status, body = up.call(
        "POST", "/api/runs", {"collective": "all_reduce", "count": 1 << 20, "iterations": 10_000}
    )
    while up.call("GET", f"/api/runs/{body['id']}")[1]["state"] != "running":
        time.sleep(0.05)
    pids = up.descendants()
    assert up.stop() == 0 and wait_gone(pids) == []  # Ctrl-C
    again = start_up(tmp_path, ranks=2, db=db)
    try:
        run = again.call("GET", f"/api/runs/{body['id']}")[1]
        assert (
            run["state"] == "interrupted" and run["error"] == "the server stopped before this run finished"
        ), run["error"]
    finally:
        again.stop()


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
    running (workers, watched jobs: they run on unwatched); the banner says how to keep it."""
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
    said = log.read_text()
    token = said.split("RINGSIDE_WORKER_TOKEN=", 1)[1].split()[0]
    assert f"restart it with RINGSIDE_WORKER_TOKEN={token} in its environment" in said, said


def test_a_run_refused_for_the_servers_state_says_why_in_its_log(tmp_path):
    """A 503 is the server's state, not the request: the operator reads why in the log."""
    server = start_serve(tmp_path)
    try:
        status, body = server.call("POST", "/api/runs", {"collective": "all_reduce", "count": 4})
        assert status == 503 and body["detail"]["field"] == "group", body
        deadline = time.monotonic() + 10
        while "refused POST /api/runs (503)" not in server.log_text() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert f"refused POST /api/runs (503): group: {body['detail']['message']}" in server.log_text()
    finally:
        server.stop()
