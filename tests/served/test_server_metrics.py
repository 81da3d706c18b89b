"""The server's own state on /metrics (server/cluster/server_metrics.py), as Prometheus' parser
reads it, against what the test did to a real `ringside serve` and what the kernel says of its
process: connections by kind and address, refusals by reason, files, memory, the loop's lag,
the store's writes."""

from __future__ import annotations

import contextlib
import os
import resource
import socket
import time

import psutil
import pytest
from prometheus_client.parser import text_string_to_metric_families
from server_helpers import ScriptedRank, start_serve
from test_read_cost import run_scripted
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

HEADERS_WITHIN_S = 4.0
VIEWERS_FROM, STALLED_FROM = "127.0.0.5", "127.0.0.6"


def scrape(server, token: str | None = "presenter") -> dict[str, dict[tuple, float]]:
    """Each sample's value by its name and its labels, as Prometheus' own parser reads them."""
    status, text = server.call("GET", "/metrics", token=token)
    assert status == 200, text
    found: dict[str, dict[tuple, float]] = {}
    for family in text_string_to_metric_families(text):  # raises on a line it cannot read
        for s in family.samples:
            found.setdefault(s.name, {})[tuple(sorted(s.labels.items()))] = s.value
    return found


def one(found, name: str, **labels) -> float:
    return found[name][tuple(sorted(labels.items()))]


def from_address(server, source: str) -> socket.socket:
    port = int(server.url.rsplit(":", 1)[1])
    return socket.create_connection(("127.0.0.1", port), source_address=(source, 0))


def viewer_from(server, source: str, stack: contextlib.ExitStack):
    return stack.enter_context(connect(server.ws_url("/ws"), sock=from_address(server, source)))


def stalled_from(server, source: str, stack: contextlib.ExitStack) -> socket.socket:
    """A connection that says part of a request's headers and no more."""
    sock = stack.enter_context(from_address(server, source))
    sock.sendall(b"GET /api/health HTTP/1.1\r\n")
    return sock


@pytest.fixture
def server(tmp_path):
    server = start_serve(tmp_path, "--headers-within", str(HEADERS_WITHIN_S))
    yield server
    server.stop()


def test_connections_by_kind_and_address_and_refusals_by_reason(server):
    with contextlib.ExitStack() as stack:
        for _ in range(3):
            viewer_from(server, VIEWERS_FROM, stack)
        for _ in range(2):
            stalled_from(server, STALLED_FROM, stack)
        stack.callback(ScriptedRank(server, 0, 1).close)
        server.wait_ranks(1, timeout=10)
        with connect(server.ws_url("/ws")) as oversized, pytest.raises(ConnectionClosed):
            oversized.send("x" * 5000)  # past a viewer's frame bound
            while True:
                oversized.recv(timeout=10)

        found = scrape(server)
        assert one(found, "ringside_connections_open", kind="viewer") == 3
        assert one(found, "ringside_connections_open", kind="worker") == 1
        assert one(found, "ringside_connections_open", kind="http") >= 3  # the stalled two, this scrape
        assert one(found, "ringside_connections_by_address", address=VIEWERS_FROM) == 3
        assert one(found, "ringside_connections_by_address", address=STALLED_FROM) == 2
        assert one(found, "ringside_client_addresses", holding="2-3") >= 2
        assert one(found, "ringside_connections_per_address_max") >= 3
        assert one(found, "ringside_connections_refused_total", reason="frame_too_large") == 1
        assert one(found, "ringside_connections_refused_total", reason="headers_late") == 0
        limit = one(found, "ringside_connections_limit")
        assert one(found, "ringside_connections_per_address_limit") == min(256, max(limit // 8, 2))

        # a viewer's scrape counts the same, and names no address
        watching = scrape(server, token=None)
        assert "ringside_connections_by_address" not in watching
        assert one(watching, "ringside_connections_open", kind="viewer") == 3

        time.sleep(HEADERS_WITHIN_S + 1)  # the stalled two are closed
        found = scrape(server)
        assert one(found, "ringside_connections_refused_total", reason="headers_late") == 2
        assert (("address", STALLED_FROM),) not in found["ringside_connections_by_address"]
    deadline = time.monotonic() + 10
    while one(scrape(server), "ringside_connections_open", kind="viewer") and time.monotonic() < deadline:
        time.sleep(0.1)
    found = scrape(server)
    assert one(found, "ringside_connections_open", kind="viewer") == 0
    assert one(found, "ringside_connections_open", kind="worker") == 0


def test_files_memory_lag_and_store_writes_as_the_process_has_them(server):
    process = psutil.Process(server.proc.pid)
    before = scrape(server)
    writes = one(before, "ringside_store_write_seconds_count")
    lags = one(before, "ringside_event_loop_lag_seconds_count")
    run_scripted(server)  # a run queued, started and ended: each saved
    time.sleep(2)
    found = scrape(server)
    rss, fds = process.memory_info().rss, len(os.listdir(f"/proc/{server.proc.pid}/fd"))

    assert one(found, "ringside_process_resident_memory_bytes") == pytest.approx(rss, rel=0.2)
    assert abs(one(found, "ringside_process_open_fds") - fds) <= 8
    assert one(found, "ringside_process_max_fds") == process.rlimit(resource.RLIMIT_NOFILE)[0]
    assert one(found, "ringside_process_start_time_seconds") == pytest.approx(process.create_time(), abs=1)
    assert one(found, "ringside_process_cpu_seconds_total") > 0

    assert one(found, "ringside_event_loop_lag_seconds_count") >= lags + 3  # every 0.5 s
    buckets = list(found["ringside_event_loop_lag_seconds_bucket"].values())
    assert buckets == sorted(buckets), "cumulative"
    assert buckets[-1] == one(found, "ringside_event_loop_lag_seconds_count")

    landed = one(found, "ringside_store_write_seconds_count")
    assert landed >= writes + 3  # queued, running, done (and its figures)
    assert one(found, "ringside_store_write_seconds_sum") > 0
    assert one(found, "ringside_store_writes_waiting") == 0
    assert one(found, "ringside_runs_pruned_total") == 0
