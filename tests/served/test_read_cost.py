"""What a server that lives a whole term keeps: reads that do not cost more as 20,000 runs pile up,
what it learns from runs outliving it, and a log that stays quiet when viewers and workers come and
go. Real `ringside serve` processes on loopback, real SQLite files, scripted ranks
(server_helpers.py). (The store's lookups counted in SQLite's instructions, a store from before
figures were kept, run ids across restarts: tests/unit/test_store_reads.py, test_runs_service.py.)"""

from __future__ import annotations

import re
import socket
import sqlite3
import time

import pytest
from seeded import ALPHA, BETA, seed
from server_helpers import WORKER_TOKEN, ScriptedRank, flood, start_serve
from test_server_protocol import StalledViewer
from websockets.sync.client import connect

from ringside.server.model import costs as model
from ringside.worker_agent.rank.local import free_port

STORED = 20_000  # runs seeded


def metric(text: str, line: str, missing: float | None = None) -> float:
    found = re.search(rf"^{re.escape(line)} (\S+)$", text, re.MULTILINE)
    if found is None and missing is not None:  # a series not yet observed
        return missing
    return float(found.group(1))


def run_scripted(server, steps: int = 2) -> dict:
    """One small ring all_reduce on two scripted ranks that each report `steps` steps."""
    ranks = [ScriptedRank(server, r, 2) for r in range(2)]
    try:
        server.wait_ranks(2, timeout=10)
        status, body = server.call(
            "POST", "/api/runs", {"collective": "all_reduce", "algorithm": "ring", "count": 8}
        )
        assert status == 202, body
        for rank in ranks:
            command = rank.command()
            rank.start(command)
            for step in range(steps):
                rank.step(command, step)
            rank.finish(command, seconds=0.004)
        return server.wait(body["id"], timeout=10)
    finally:
        for rank in ranks:
            rank.close()


def test_reads_do_not_read_the_stored_runs(tmp_path):
    port = free_port()
    counts = seed(tmp_path / f"serve-{port}.db", STORED)
    server = start_serve(tmp_path, "--lost-after", "5", port=port)
    try:
        status, text = server.call("GET", "/metrics")
        assert status == 200, text  # before: 500, it parsed the last 500 done runs' bodies
        for (state, collective), n in counts.items():
            assert metric(text, f'ringside_runs{{state="{state}",collective="{collective}"}}') == n
        assert metric(text, 'ringside_last_busbw_bytes_per_second{collective="broadcast"}') == STORED
        status, answer = server.call("GET", "/api/model?collective=all_reduce&algorithm=ring&count=4096")
        assert status == 200, answer  # before: 500, the fit parsed them too
        assert answer["fitted_from_runs"] == model.FIT_WINDOW and answer["alpha"] == pytest.approx(ALPHA)
        assert answer["beta"] == pytest.approx(BETA)
        status, page = server.call("GET", "/api/runs?limit=30")  # summaries, kept apart from the bodies
        assert status == 200 and page["total"] == STORED and page["runs"][0]["id"] == f"r-{STORED:06d}"
        assert (
            page["runs"][0]["busbw"] == STORED
            and server.call("GET", "/api/runs?limit=200&offset=19900")[0] == 200
        )

        # a prediction's input is capped: its schedule would be ~8 M transfers and GBs
        status, refused = server.call(
            "GET", "/api/model?collective=all_reduce&algorithm=ring&world_size=256&chunks=64"
        )
        assert status == 422 and refused["detail"]["field"] == "chunks"
        assert (
            "world_size² × chunks" in refused["detail"]["message"]
            and "at most 2" in refused["detail"]["message"]
        )
        assert server.call("GET", "/api/model?collective=all_reduce&algorithm=ring&world_size=362")[0] == 200
        # a parameter is a number a time can be made of
        for given in ("alpha=inf", "beta=nan", "gamma=1e308"):
            status, refused = server.call("GET", f"/api/model?collective=all_reduce&algorithm=ring&{given}")
            assert status == 422 and refused["detail"]["field"] == given.split("=")[0]

        # a run that ends now counts at once
        before = server.call("GET", "/metrics")[1]
        run = run_scripted(server)
        assert run["state"] == "done" and run["id"] == f"r-{STORED + 1:06d}"
        after = server.call("GET", "/metrics")[1]
        done = 'ringside_runs{state="done",collective="all_reduce"}'
        assert metric(after, done) == metric(before, done) + 1
        steps = 'ringside_step_seconds_count{collective="all_reduce",algorithm="ring",host="scripted"}'
        assert metric(after, steps) == metric(before, steps, 0) + 4
        runs = 'ringside_busbw_bytes_per_second_count{collective="all_reduce",algorithm="ring"}'
        assert metric(after, runs) == metric(before, runs, 0) + 1
        last = 'ringside_last_busbw_bytes_per_second{collective="all_reduce"}'
        assert metric(after, last) == pytest.approx(run["busbw"])
        assert server.call("GET", "/api/runs?limit=1")[1]["total"] == STORED + 1
    finally:
        assert server.stop() == 0
    # what the fit and the gauges read outlives the server
    with sqlite3.connect(tmp_path / f"serve-{port}.db") as db:
        assert db.execute("SELECT COUNT(*) FROM figures WHERE steps IS NOT NULL").fetchone()[0] > STORED // 2
    again = start_serve(tmp_path, port=port)
    try:
        text = again.call("GET", "/metrics")[1]
        last = 'ringside_last_busbw_bytes_per_second{collective="all_reduce"}'
        assert metric(text, last) == pytest.approx(run["busbw"])
        fit = again.call("GET", "/api/model?collective=all_reduce&algorithm=ring")[1]
        assert fit["fitted_from_runs"] == model.FIT_WINDOW
    finally:
        again.stop()


def test_viewers_and_workers_that_go_leave_no_traceback(tmp_path):
    server = start_serve(tmp_path, "--lost-after", "5", "--viewer-queue", "16")
    host, port = server.url.split("//")[1].split(":")
    try:
        for _ in range(3):  # workers that leave during the hello: before the upgrade completes, and after
            with connect(server.ws_url(f"/ws/worker?token={WORKER_TOKEN}")):
                pass
            raw = socket.create_connection((host, int(port)))
            raw.sendall(
                f"GET /ws/worker?token={WORKER_TOKEN} HTTP/1.1\r\nHost: {host}:{port}\r\n"
                "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                "Sec-WebSocket-Key: bGVmdCBkdXJpbmcgaGVsbG8=\r\n"
                "Sec-WebSocket-Version: 13\r\n\r\n".encode()
            )
            raw.close()
        stalled = [StalledViewer(server.url) for _ in range(5)]
        sender, receiver = ScriptedRank(server, 0, 2), ScriptedRank(server, 1, 2)
        try:
            server.wait_ranks(2, timeout=10)
            # ~11 MB to each viewer: more than its kernel buffers and 16 messages hold
            run_id = flood(server, sender, receiver)
            assert server.wait(run_id, timeout=30)["state"] == "done"
            assert stalled[0].close_frame() == (1013, "viewer fell behind; reconnect for a snapshot")
        finally:
            for viewer in stalled:
                viewer.sock.close()
            sender.close()
            receiver.close()
        time.sleep(0.5)
    finally:
        assert server.stop() == 0
    log = (tmp_path / f"serve-{port}.log").read_text()
    for noise in ("Traceback", "Task exception was never retrieved", "Exception in ASGI application"):
        assert noise not in log, log[-3000:]
