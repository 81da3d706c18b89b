"""A watched job's reporter cannot grow the server without bound: one rank with the worker token
sending reports as fast as it may, each naming 1,024 collectives in new group and op names and
1,024 new peers, leaves the server's memory and the job's GET bounded. What the job keeps of them
and says it dropped is tests/unit/test_watch_at_scale.py's (the job in-process)."""

from __future__ import annotations

import json
import time

import psutil
import pytest
from server_helpers import WORKER_TOKEN, start_serve
from websockets.sync.client import connect

from ringside.worker_agent.core.protocol import PROTOCOL_VERSION

REPORTS = 300  # 307,200 collectives in as many new names: 30 s at 10 a second
GROWTH_MB = 50


@pytest.fixture
def serve(tmp_path):
    up = start_serve(tmp_path)
    yield up
    up.stop()


def report(n: int, t_ns: int) -> str:
    """A report naming 1,024 collectives, each in a group and an op of its own, and 1,024 peers."""
    issued = [
        {"group": f"g{n}-{i}", "seq": 0, "op": f"op{n}-{i}", "count": 1, "t_ns": t_ns} for i in range(1024)
    ]
    links = [{"peer": (n * 1024 + i) % 65536, "sent": 8, "sends": 1} for i in range(1024)]
    return json.dumps(
        {
            "type": "watch_report",
            "v": PROTOCOL_VERSION,
            "rank": 0,
            "t_ns": t_ns,
            "issued": issued,
            "links": links,
        }
    )


def test_a_reporter_naming_new_groups_ops_and_peers_keeps_the_server_bounded(serve):
    rss = psutil.Process(serve.proc.pid).memory_info
    before = rss().rss / 2**20
    hello = {"type": "watch_hello", "v": PROTOCOL_VERSION, "job": "flood", "rank": 0, "world_size": 2}
    hello |= {"host": "h", "pid": 1, "launcher": "script", "backend": "gloo", "started_ns": time.time_ns()}
    with connect(serve.ws_url(f"/ws/watch?token={WORKER_TOKEN}"), max_size=None) as ws:
        ws.send(json.dumps(hello))
        for n in range(REPORTS):
            ws.send(report(n, time.time_ns()))
        last = {
            "type": "watch_report",
            "v": PROTOCOL_VERSION,
            "rank": 0,
            "t_ns": time.time_ns(),
            "where": "x.py:9",
        }
        ws.send(json.dumps(last))  # once its line is the rank's, the server has read every report
        deadline, job_id = time.monotonic() + 120, None
        while time.monotonic() < deadline:
            jobs = serve.call("GET", "/api/watched")[1]["jobs"]
            job_id = jobs[0]["id"] if jobs else None
            if job_id and serve.call("GET", f"/api/watched/{job_id}")[1]["ranks"][0]["where"] == "x.py:9":
                break
            time.sleep(0.5)
        grew = rss().rss / 2**20 - before
    status, body = serve.call("GET", f"/api/watched/{job_id}")
    size = len(json.dumps(body))
    assert status == 200 and size < 5 << 20, f"the job's GET is {size} bytes"
    assert grew < GROWTH_MB, f"the server grew by {grew:.0f} MB"
