"""A real server with four real gloo workers, watched by real websocket clients: a run as a user
makes one, end to end, and what the server's sockets do. What the server does with the ranks'
events, and its routes, are tested in-process (tests/unit/test_runs_service.py, test_routes.py)."""

from __future__ import annotations

import json
import threading
import time

import pytest
from server_helpers import WORKER_TOKEN, ended, messages
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from ringside.worker_agent.core.collectives import COLLECTIVES

P = 4


pytestmark = pytest.mark.cluster(ranks=P, env={"RINGSIDE_WORKER_TOKEN": WORKER_TOKEN})


class Watcher(threading.Thread):
    """A viewer that records every message until the run `until` ends."""

    def __init__(self, up, until=None):
        super().__init__(daemon=True)
        self.url, self.until = up.ws_url(), until
        self.messages: list[dict] = []
        self.ready, self.done = threading.Event(), threading.Event()
        self.start()
        assert self.ready.wait(30), "no snapshot"

    def run(self):
        with connect(self.url, max_size=None) as ws:
            self.messages.append(json.loads(ws.recv(timeout=10)))
            self.ready.set()
            while self.until is not None:
                batch = messages(ws.recv(timeout=120))
                self.messages.extend(batch)
                if any(ended(m, self.until) for m in batch):
                    break
        self.done.set()

    def of(self, run_id: str) -> list[dict]:
        """The messages about one run."""
        return [m for m in self.messages if m.get("run_id") == run_id or m.get("run", {}).get("id") == run_id]


def live_steps(seen: list[dict]) -> list[tuple[int, int, dict]]:
    """(step, rank, that rank's report of it) as a viewer learns them, in order of arrival:
    those reported before `run_started` come in it, each later one in its `step` message."""
    out = []
    for m in seen:
        if m["type"] == "run_started":
            out += [(s["step"], int(r), v) for s in m["run"]["steps"] for r, v in s["ranks"].items()]
        elif m["type"] == "step":
            out.append((m["step"], m["rank"], {k: m[k] for k in ("t0", "t1", "states")}))
    return out


def test_a_viewer_sees_every_step_of_a_ring_all_reduce_in_order(up):
    watcher = Watcher(up, until="r-pending")
    assert watcher.messages[0]["type"] == "snapshot" and watcher.messages[0]["role"] == "viewer"
    status, body = up.call(
        "POST",
        "/api/runs",
        {
            "collective": "all_reduce",
            "algorithm": "ring",
            "count": 8 * P,
            "dtype": "int64",
            "capture": "full",
        },
    )
    assert status == 202 and body["state"] == "queued"
    watcher.until = body["id"]
    assert watcher.done.wait(120)
    seen = watcher.of(body["id"])
    steps = live_steps(seen)
    for rank in range(P):
        assert [step for step, r, _ in steps if r == rank] == list(range(2 * (P - 1)))
    states = [m["run"]["state"] for m in seen if m["type"] in ("run", "run_started", "run_ended")]
    assert states == ["queued", "running", "done"]
    run = up.wait(body["id"])
    assert run["verified"] is True and run["time"] > 0 and run["busbw"] > 0
    per_rank = 2 * (P - 1) * 8 * P * 8 // P  # 2(P-1)/P * N bytes, N = count * 8
    sent = {r: x["bytes_sent"] for r, x in run["results"].items()}
    assert run["traffic"]["sent"] == {str(r): per_rank for r in range(P)} == sent
    assert run["traffic"]["received"] == {r: x["bytes_received"] for r, x in run["results"].items()}
    assert run["traffic"]["total"] == P * per_rank and run["traffic"]["busiest_link"]["bytes"] == per_rank
    for step in run["steps"]:
        assert sorted(int(r) for r in step["ranks"]) == list(range(P)) and len(step["transfers"]) == P
        assert "right neighbour" in step["caption"]
    last = {int(r): v for r, v in run["steps"][-1]["ranks"].items()}
    # what a viewer saw live is what the stored run says
    live_last = [v["states"] for step, r, v in steps if step == len(run["steps"]) - 1 and r == 0]
    assert live_last == [last[0]["states"]]


def test_a_late_viewer_joins_with_nothing_on_stage(up):
    """Its snapshot, once a run has ended (what it reads of the run: tests/unit/test_routes.py)."""
    up.run(collective="broadcast", algorithm="binomial_tree", root=2, count=6, capture="full")
    snapshot = Watcher(up).messages[0]
    assert snapshot["current"] is None and snapshot["cluster"]["world_size"] == P


@pytest.mark.parametrize("collective", COLLECTIVES)
def test_every_collective_runs_and_verifies_through_the_server(up, collective):
    _, catalog = up.call("GET", "/api/catalog")
    entry = next(c for c in catalog["collectives"] if c["name"] == collective)
    algorithm = entry["algorithms"][-1]
    run = up.run(
        collective=collective, algorithm=algorithm, count=8, dtype="int32", capture="summary", root=1
    )
    assert run["state"] == "done", run["error"]
    assert run["verified"] is True
    assert len(run["results"]) == P and run["steps"] and run["schedule"]["algorithm"] == algorithm
    # simulated = counted
    assert run["traffic"]["sent"] == {r: x["bytes_sent"] for r, x in run["results"].items()}


def test_sockets_check_tokens_and_origins(up):
    """The sockets' checks (the routes': tests/unit/test_routes.py)."""
    with pytest.raises(InvalidStatus) as refused:
        connect(up.ws_url(), origin="http://evil.example")
    assert refused.value.response.status_code == 403
    with pytest.raises(InvalidStatus):
        connect(up.ws_url("/ws/worker"))
    with pytest.raises(InvalidStatus):
        connect(up.ws_url("/ws/worker") + f"?token={up.presenter}")
    with connect(up.ws_url(), origin=up.url) as ws:  # the page's own origin is welcome
        assert messages(ws.recv(timeout=10))[0]["type"] == "snapshot"


def close_code(url: str, *frames) -> tuple[int, str]:
    """Send frames on a fresh socket; the code and reason the server closes it with."""
    with connect(url, max_size=None) as ws:
        try:
            for frame in frames:
                ws.send(frame)
            while True:
                ws.recv(timeout=10)
        except ConnectionClosed as e:
            return e.rcvd.code, e.rcvd.reason
    raise AssertionError("the server did not close the socket")


HELLO = {
    "type": "hello",
    "v": 1,
    "rank": 0,
    "world_size": P,
    "host": "h",
    "pid": 1,
    "backend": "gloo",
    "device": "cpu",
    "torch_version": "x",
}


@pytest.mark.parametrize(
    "frames,code,words",
    [
        (["not json"], 1007, "not JSON"),
        ([b"\x00binary"], 1007, "JSON text"),
        ([json.dumps({"type": "heartbeat", "v": 1, "rank": 0})], 1008, "first message must be a hello"),
        ([json.dumps({**HELLO, "v": 99})], 1008, "protocol version 99"),
        ([json.dumps({"type": "hello", "v": 1, "rank": 0})], 1007, "malformed event"),
        ([json.dumps({"type": "surprise", "v": 1})], 1007, "malformed event"),
        ([json.dumps(HELLO)], 4409, "rank 0 is already connected"),
        ([json.dumps({**HELLO, "rank": 0, "world_size": 9})], 4409, "already connected"),
        (["x" * (17 << 20)], 1009, ""),
    ],
)
def test_malformed_worker_frames_close_only_that_connection(up, frames, code, words):
    before = {r["rank"]: r["pid"] for r in up.cluster()["ranks"]}
    got, reason = close_code(up.ws_url("/ws/worker") + f"?token={WORKER_TOKEN}", *frames)
    assert got == code and words in reason
    assert {r["rank"]: r["pid"] for r in up.cluster()["ranks"]} == before == {r: before[r] for r in range(P)}


def test_garbage_from_a_viewer_closes_only_that_viewer(up):
    assert close_code(up.ws_url(), "this is not JSON")[0] == 1003
    native = up.run(collective="all_reduce", count=4)
    # only the backend knows a native op's wires
    assert native["state"] == "done" and native["traffic"] is None


def test_a_running_run_stops_on_cancel_and_the_ranks_go_on(up):
    long = {
        "collective": "all_reduce",
        "algorithm": "ring",
        "count": 1 << 16,
        "iterations": 5000,
        "capture": "none",
    }
    pids = {r["pid"] for r in up.cluster()["ranks"]}
    run_id = up.call("POST", "/api/runs", long)[1]["id"]
    while up.call("GET", f"/api/runs/{run_id}")[1]["state"] == "queued":
        time.sleep(0.01)
    assert up.call("POST", f"/api/runs/{run_id}/cancel")[1]["cancel_requested"] is True
    run = up.wait(run_id)
    assert run["state"] == "cancelled" and sorted(run["cancelled_ranks"]) == list(range(P))
    assert run["results"] == {}, "every rank stopped before its last iteration"
    assert up.run(collective="all_reduce", algorithm="ring", count=4)["verified"] is True
    assert {r["pid"] for r in up.cluster()["ranks"]} == pids, "no rank was restarted"
