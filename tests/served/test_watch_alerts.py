"""Alerts on a watched job's hang, end to end: a real `ringside serve --notify URL` with a webhook's
receiver on a loopback port, and a real job (gloo, two ranks under torchrun) whose rank 1 never
issues the all_reduce rank 0 waits in (tests/fixtures/blocked.py). The receiver is sent a hang event
naming rank 1, and /metrics, read by Prometheus' own parser, says the job hangs."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from distributed import free_port, stop_torchrun
from prometheus_client.parser import text_string_to_metric_families
from server_helpers import start_serve
from watched import FIXTURES, jobs, newest_job, torchrun, wait_for


class Receiver(ThreadingHTTPServer):
    """A webhook's receiver on a free loopback port: keeps each event POSTed to /hook."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", free_port()), Hook)
        self.events: list[dict] = []


class Hook(BaseHTTPRequestHandler):
    server: Receiver

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        if self.path == "/hook":
            self.server.events.append(json.loads(body))
        self.send_response(204 if self.path == "/hook" else 404)
        self.end_headers()

    def log_message(self, *args) -> None:  # the test's output is not the place
        pass


def hung_series(server, job_id: str) -> tuple[float, dict[str, str]]:
    """The job's ringside_watched_hung value, and its hang_info sample's labels (empty if none)."""
    status, text = server.call("GET", "/metrics")
    assert status == 200, text
    hung, info = None, {}
    for family in text_string_to_metric_families(text):  # raises on a line it cannot read
        for s in family.samples:
            if s.labels.get("job_id") == job_id and s.name == "ringside_watched_hung":
                hung = s.value
            if s.labels.get("job_id") == job_id and s.name == "ringside_watched_hang_info":
                info = s.labels
    assert hung is not None, f"no ringside_watched_hung for {job_id}"
    return hung, info


def test_a_hang_is_posted_to_the_notify_url_naming_the_late_rank_and_on_metrics_as_hung(tmp_path):
    receiver = Receiver()
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    server = start_serve(tmp_path, "--notify", f"http://127.0.0.1:{receiver.server_port}/hook")
    proc = None
    try:
        before = {j["id"] for j in jobs(server)}
        proc = torchrun(server.url, FIXTURES / "blocked.py", nproc=2)
        found = wait_for(lambda: (j := newest_job(server, "blocked.py", before)) and j["hang"] and j)
        event = wait_for(lambda: next((e for e in receiver.events if e["kind"] == "hang"), None), timeout=30)
        hung, info = hung_series(server, found["id"])
    finally:
        if proc is not None:
            stop_torchrun(proc)
        server.stop()
        receiver.shutdown()
        receiver.server_close()
    assert (event["job"], event["ranks"], event["waiting"]) == (found["id"], [1], [0]), event
    assert event["collective"]["op"] == "all_reduce", event
    assert event["link"] == f"{server.url}/?job={found['id']}"
    assert event["lines"][0].startswith("rank 0 waits in all_reduce #"), event["lines"]
    assert hung == 1
    assert (info["script"], info["late"], info["waiting"]) == ("blocked.py", "1", "0")
    assert info["op"] == "all_reduce"
