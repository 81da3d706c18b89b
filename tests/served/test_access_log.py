"""The access log (server/operate/access.py) of a real `ringside up` and `serve`: a line for each
request that changes something and each socket, who by the kind of token, from where, what and
its outcome; never a token; rotated by size."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from server_helpers import PRESENTER_TOKEN, WORKER_TOKEN, messages, start_serve
from websockets.sync.client import connect

VIEWER = "viewer-token-for-the-access-log"
pytestmark = pytest.mark.cluster(ranks=2, flags=["--viewer-token", VIEWER])
LINE = re.compile(
    r"^(?P<when>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d) (?P<address>\S+) (?P<who>\S+) "
    r"(?P<method>\S+) (?P<path>\S+) (?P<outcome>\S+) (?P<took>\d+\.\d{3})s$"
)


def entries(path: Path, until=lambda found: True, within: float = 10.0) -> list[dict]:
    """The log's lines, parsed (each must parse), once `until` holds of them or `within` has passed
    (a thread writes them)."""
    deadline = time.monotonic() + within
    while True:
        lines = path.read_text().splitlines() if path.exists() else []
        parsed = [LINE.match(line) for line in lines]
        if until([m.groupdict() for m in parsed if m]) or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert all(parsed), [line for line, m in zip(lines, parsed) if not m]
    return [m.groupdict() for m in parsed if m]


def said(found: list[dict], who: str, method: str, path: str, outcome: str) -> bool:
    return any(
        (e["address"], e["who"], e["method"], e["path"], e["outcome"])
        == ("127.0.0.1", who, method, path, outcome)
        for e in found
    )


def workers(found: list[dict]) -> int:
    """The ranks' sockets the log has a line for."""
    return sum(1 for e in found if e["method"] == "WS" and e["path"] == "/ws/worker" and e["who"] == "worker")


def test_runs_cancels_polls_votes_joins_and_sockets_each_a_line(up):
    log = up.db.with_name("runs-access.log")  # beside the store, by default
    run = up.run(collective="all_reduce", algorithm="ring", count=8, capture="full")
    status, _ = up.call("POST", f"/api/runs/{run['id']}/cancel")
    assert status == 200
    status, poll = up.call(
        "POST", "/api/polls", {"run_id": run["id"], "question": "holds", "rank": 1, "step": 0}
    )
    assert status == 201, poll
    votes = f"/api/polls/{poll['id']}/votes"
    with connect(up.ws_url(f"/ws?token={VIEWER}")) as viewer:
        snapshot = next(m for m in messages(viewer.recv(timeout=10)) if m["type"] == "snapshot")
        vote = {"choice": 0, "ballot": snapshot["ballot"]}  # the vote of the page this socket is
        assert up.call("POST", votes, vote, token=VIEWER)[0] == 202
        assert up.call("POST", votes, vote, token=None)[0] == 401
        assert up.call("POST", votes, vote, token="guess")[0] == 403
    up.call("GET", "/api/runs")  # a read: not logged (were it, its line would come before the reveal's)
    assert up.call("POST", f"/api/polls/{poll['id']}/reveal")[0] == 200

    lines = [
        ("presenter", "POST", "/api/runs", "202"),
        ("presenter", "POST", f"/api/runs/{run['id']}/cancel", "200"),
        ("presenter", "POST", "/api/polls", "201"),
        ("viewer", "POST", votes, "202"),
        ("none", "POST", votes, "401"),
        ("wrong", "POST", votes, "403"),
        ("presenter", "POST", f"/api/polls/{poll['id']}/reveal", "200"),
        ("viewer", "WS", "/ws", "101"),
        ("viewer", "WS-CLOSE", "/ws", "1000"),
    ]
    found = entries(log, until=lambda found: workers(found) >= 2 and all(said(found, *w) for w in lines))
    assert workers(found) >= 2
    for w in lines:
        assert said(found, *w), w
    assert not any(e["method"] == "GET" for e in found)
    text = log.read_text()
    assert not any(token in text for token in (PRESENTER_TOKEN, WORKER_TOKEN, VIEWER, up.presenter))


def test_the_log_rotates_at_its_size_keeping_as_many_files_as_asked(tmp_path):
    log = tmp_path / "access" / "ringside.log"
    server = start_serve(
        tmp_path, "--access-log", str(log), "--access-log-bytes", "2000", "--access-log-keep", "2"
    )
    try:
        for i in range(100):  # ~80 bytes a line: 8,000 bytes in all
            assert server.call("POST", f"/api/runs/r-{i:06d}/cancel")[0] == 404
        deadline = time.monotonic() + 10
        while "r-000099" not in (log.read_text() if log.exists() else "") and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        server.stop()
    rotated = sorted(p.name for p in log.parent.iterdir())
    assert rotated == ["ringside.log", "ringside.log.1", "ringside.log.2"]
    assert all(p.stat().st_size <= 2000 for p in log.parent.iterdir())
    assert "r-000099" in log.read_text()  # the newest line is in the file itself
    assert "r-000000" not in "".join(p.read_text() for p in log.parent.iterdir())  # the oldest rotated out
    lines = entries(log) + entries(log.with_name("ringside.log.1")) + entries(log.with_name("ringside.log.2"))
    assert all(e["who"] == "presenter" and e["outcome"] == "404" for e in lines)


def test_the_log_can_go_to_stderr(tmp_path):
    server = start_serve(tmp_path, "--access-log", "-")
    try:
        assert server.call("POST", "/api/runs/r-000042/cancel", token=None)[0] == 401
        deadline = time.monotonic() + 10
        while "POST /api/runs/r-000042/cancel" not in server.log_text() and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        server.stop()
    assert re.search(
        r" 127\.0\.0\.1 none POST /api/runs/r-000042/cancel 401 \d+\.\d{3}s$", server.log_text(), re.M
    )
    assert not list(tmp_path.glob("*access.log"))


def test_a_client_is_logged_by_its_own_address_whatever_address_it_claims(up):
    """No proxy is trusted to name the client: a script on this machine that said another address in
    X-Forwarded-For was logged, and its votes counted, as that address."""
    log = up.db.with_name("runs-access.log")
    before = len(entries(log))
    claimed = {"X-Forwarded-For": "203.0.113.9", "X-Forwarded-Proto": "https"}
    status, _ = up.call("POST", "/api/runs/r-claimed/cancel", headers=claimed)
    assert status == 404
    found = entries(log, until=lambda found: len(found) > before)
    assert said(found, "presenter", "POST", "/api/runs/r-claimed/cancel", "404"), found[before:]
    assert not any(e["address"] == "203.0.113.9" for e in found)
