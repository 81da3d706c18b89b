"""What a server that lives a whole term keeps: reads that do not cost more as runs pile
up, run ids that count on across restarts, and a log that stays quiet when viewers and
workers come and go. Real `ringside serve` processes on loopback, real SQLite files,
scripted ranks (server_helpers.py)."""

from __future__ import annotations

import re
import socket
import sqlite3
import time

import pytest
from server_helpers import WORKER_TOKEN, ScriptedRank, flood, start_serve
from test_server_protocol import StalledViewer
from websockets.sync.client import connect

from ringside.server.db.database import Database
from ringside.server.dispatch.job import JobState
from ringside.server.model import costs as model
from ringside.server.runs.run import new_run
from ringside.server.runs.store import RunStore
from ringside.worker_agent.core.protocol import RunSpec
from ringside.worker_agent.rank.local import free_port

ALPHA, BETA = 40e-6, 2e-9
SHAPES = [
    RunSpec(collective="all_reduce", algorithm="ring", count=4096),
    RunSpec(collective="all_reduce", algorithm="tree", count=1024),
    RunSpec(collective="all_gather", algorithm="ring", count=256),
    RunSpec(collective="broadcast", algorithm="native", count=64),
]
STORED = 20_000  # runs seeded


def seed(db, n: int, readable: int = 0) -> dict[tuple[str, str], int]:
    """n runs through the Store API, as a server saves them (done ones with their figures),
    then every body but the newest `readable` made unreadable: a read that parses one of
    them answers 500. Returns the runs by (state, collective)."""
    store, counts = RunStore(Database(db)), {}
    templates = [new_run("r-0", spec, "gloo", 4) for spec in SHAPES]
    for i in range(n):
        run = templates[i % len(templates)].model_copy(update={"id": f"r-{i + 1:06d}"})
        run.state = JobState.FAILED if i % 10 == 3 else JobState.DONE
        if run.state == JobState.DONE:
            steps, nbytes = (
                model.features(run.spec.collective, run.spec.algorithm, 4, 0, 1, run.spec.count, 4)
                if run.schedule
                else (0, 0)
            )
            run.time, run.busbw = steps * ALPHA + nbytes * BETA or 1e-3, float(i + 1)
        store.save(run)
        if run.state == JobState.DONE:
            store.add_figures(run, model.row_of(run))
        shape = (run.state.value, run.spec.collective)
        counts[shape] = counts.get(shape, 0) + 1
    store.database.flush()  # every write in the file before the reads and the raw SQL below
    store.db.execute("UPDATE runs SET body = 'unreadable' WHERE seq <= ?", (n - readable,))
    store.database.close()
    return counts


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


def test_the_newest_run_of_a_shape_is_found_without_walking_the_history(tmp_path):
    """The compare views' lookup (/api/compare, /api/compare/beside): SQLite's own instruction
    count, not a clock, stays flat from 500 stored runs to 5,000."""
    spent = []
    for n in (500, 5000):
        seed(tmp_path / f"{n}.db", n, readable=n)
        store = RunStore(Database(tmp_path / f"{n}.db"))
        ticks = [0]
        store.db.set_progress_handler(lambda ticks=ticks: ticks.__setitem__(0, ticks[0] + 1), 50)
        shaped = store.newest_done("all_reduce", "tree", 1024, "float32", 4)
        newest = store.newest_done("all_gather", "ring")
        store.db.set_progress_handler(None, 50)
        assert (
            shaped.spec.algorithm == "tree"
            and shaped.spec.count == 1024
            and newest.spec.collective == "all_gather"
        )
        assert int(shaped.id[2:]) > n - len(SHAPES) and int(newest.id[2:]) > n - 2 * len(SHAPES)
        assert store.newest_done("all_reduce", "tree", 1024, "float32", 8) is None  # no run of 8 ranks
        spent.append(ticks[0])
        store.database.close()
    assert spent[1] <= spent[0] + 20, spent


def test_runs_of_the_same_bytes_in_another_dtype_are_not_walked_past(tmp_path):
    """The parameter server's compare view asks for the newest run of one count and dtype: runs
    after it with the same bytes per rank but another dtype (count 2048 of float16 beside 1024 of
    float32) cost it nothing, however many there are."""
    spent = []
    for n in (500, 5000):
        store = RunStore(Database(tmp_path / f"{n}.db"))
        wanted = new_run(
            "r-000000", RunSpec(collective="all_reduce", algorithm="tree", count=1024), "gloo", 4
        )
        other = new_run(
            "r-0", RunSpec(collective="all_reduce", algorithm="tree", count=2048, dtype="float16"), "gloo", 4
        )
        for _i, run in enumerate(
            [wanted] + [other.model_copy(update={"id": f"r-{i:06d}"}) for i in range(1, n + 1)]
        ):
            run.state = JobState.DONE
            store.save(run)
            store.add_figures(run, None)
        store.database.flush()
        ticks = [0]
        store.db.set_progress_handler(lambda ticks=ticks: ticks.__setitem__(0, ticks[0] + 1), 50)
        found = store.newest_done("all_reduce", "tree", 1024, "float32", 4)
        store.db.set_progress_handler(None, 50)
        assert found.id == "r-000000"
        spent.append(ticks[0])
        store.database.close()
    assert spent[1] <= spent[0] + 20, spent


def test_a_store_from_before_figures_and_summaries_gets_them(tmp_path):
    port = free_port()
    db = tmp_path / f"serve-{port}.db"
    seed(db, 600, readable=600)
    with sqlite3.connect(db) as conn:  # as the previous version wrote it
        conn.execute("DROP TABLE figures")
        conn.execute("ALTER TABLE runs DROP COLUMN summary")
        conn.execute("PRAGMA user_version = 0")  # it kept no schema version
    conn.close()
    server = start_serve(tmp_path, port=port)
    try:
        page = server.call("GET", "/api/runs?limit=30")[1]
        assert page["total"] == 600 and [r["id"] for r in page["runs"]] == [
            f"r-{i:06d}" for i in range(600, 570, -1)
        ]
        answer = server.call("GET", "/api/model?collective=all_reduce&algorithm=ring")[1]
        newest_done = [i for i in range(599, -1, -1) if i % 10 != 3][: model.FIT_WINDOW]  # seed's pattern
        # the stepwise ones among them
        assert answer["fitted_from_runs"] == sum(i % 4 != 3 for i in newest_done)
        assert answer["alpha"] == pytest.approx(ALPHA) and answer["beta"] == pytest.approx(BETA)
        assert (
            metric(
                server.call("GET", "/metrics")[1],
                'ringside_last_busbw_bytes_per_second{collective="broadcast"}',
            )
            == 600
        )
    finally:
        server.stop()


def test_run_ids_count_on_across_restarts(tmp_path):
    port, ids = free_port(), []
    for _ in range(3):
        server = start_serve(tmp_path, "--lost-after", "5", port=port)
        ranks = [ScriptedRank(server, r, 2) for r in range(2)]
        try:
            server.wait_ranks(2, timeout=10)
            for _ in range(2):  # the first runs (and is interrupted by the stop), the second waits
                status, body = server.call(
                    "POST", "/api/runs", {"collective": "all_reduce", "algorithm": "ring", "count": 8}
                )
                assert status == 202, body
                ids.append(body["id"])
        finally:
            for rank in ranks:
                rank.close()
            assert server.stop() == 0
    # before: r-000001, r-000002, r-000004, ... (seq, not ids)
    assert ids == [f"r-{i:06d}" for i in range(1, 7)]


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
