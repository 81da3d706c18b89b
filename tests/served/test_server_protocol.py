"""The server's promises that need ranks to misbehave on demand: a real `ringside serve`
with scripted ranks (real websocket clients speaking the worker protocol). No torch here,
so every server starts in about a second."""

from __future__ import annotations

import json
import socket
import time

import psutil
import pytest
from server_helpers import ScriptedRank, ended, flood, messages, start_serve
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from ringside.worker_agent.core.protocol import PROTOCOL_VERSION

SMALL = {"collective": "all_reduce", "algorithm": "ring", "count": 8}


@pytest.fixture(scope="module")
def serve(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("serve")
    (tmp / "page").mkdir()
    (tmp / "page" / "index.html").write_text("<!doctype html><title>scripted page</title>")
    server = start_serve(
        tmp,
        "--lost-after",
        "3",
        "--world-hold",
        "0",
        "--viewer-queue",
        "64",
        "--ping-every",
        "5",
        env={"RINGSIDE_FRONTEND": str(tmp / "page")},
    )
    yield server
    server.stop()


@pytest.fixture
def ranks(serve):
    """ranks(n) -> n scripted ranks of a world of n, closed after the test."""
    made: list[ScriptedRank] = []

    def make(n: int, **hello) -> list[ScriptedRank]:
        made.extend(ScriptedRank(serve, r, n, **hello) for r in range(n))
        serve.wait_ranks(n, timeout=10)
        return made[-n:]

    yield make
    for rank in made:
        rank.close()
    deadline = time.monotonic() + 10
    while any(r["status"] != "lost" for r in serve.cluster()["ranks"]) and time.monotonic() < deadline:
        time.sleep(0.05)


def submit(serve, **spec) -> str:
    status, body = serve.call("POST", "/api/runs", {**SMALL, **spec})
    assert status == 202, body
    return body["id"]


def test_without_ranks_a_run_is_refused_with_503(serve):
    total = serve.call("GET", "/api/runs")[1]["total"]
    status, body = serve.call("POST", "/api/runs", SMALL)
    assert status == 503 and body["detail"]["field"] == "group" and "connected" in body["detail"]["message"]
    assert serve.call("GET", "/api/runs")[1]["total"] == total


def test_ranks_that_outnumber_their_cores_are_modelled_as_sharing_them(serve, ranks):
    """Three ranks on one host with one core: each says so in its hello, the run records it,
    and the model reads a ring's steps as three ranks taking turns on the core; at a world
    size the cluster does not have, every rank is taken to have a core of its own."""
    ranks(3, cores=1)
    assert [r["cores"] for r in serve.cluster()["ranks"]] == [1, 1, 1]
    run_id = submit(serve)
    assert serve.call("GET", f"/api/runs/{run_id}")[1]["sharing"] == [[[0, 1, 2], 1]]
    assert "PydanticSerializationUnexpectedValue" not in serve.log.read_text(), "stored as its type says"
    query = "/api/model?collective=all_reduce&algorithm=ring&count=12&world_size="
    here, elsewhere = serve.call("GET", query + "3")[1], serve.call("GET", query + "6")[1]
    assert here["sharing"] == [[[0, 1, 2], 1]] and here["terms"]["steps"] == 2 * 2 * 3
    assert elsewhere["sharing"] == [] and elsewhere["terms"]["steps"] == 2 * 5
    _, curves = serve.call("GET", "/api/model/predict?collective=all_reduce&p=3")
    assert curves["sharing"] == [[[0, 1, 2], 1]]


def test_the_model_answers_for_a_parameter_server_and_names_bad_servers(serve):
    query = "/api/model?collective=parameter_server&algorithm=pull_push&world_size=4&count=12"
    status, answer = serve.call("GET", query + "&servers=3")
    # a shard each: pull, then push
    assert status == 200 and answer["count"] == 4 and answer["terms"]["steps"] == 2
    assert serve.call("GET", query)[1]["count"] == 12  # one server by default
    for bad, field in (
        ("&servers=4", "servers"),
        ("&servers=0", "servers"),
        ("&count=13&servers=2", "count"),
    ):
        status, body = serve.call("GET", query + bad)
        assert status == 422 and body["detail"]["field"] == field, (bad, body)
    status, body = serve.call("GET", "/api/model?collective=all_reduce&algorithm=ring&servers=2")
    assert status == 422 and body["detail"]["field"] == "servers"


def test_a_run_merges_every_rank_and_reports_the_slowest(serve, ranks):
    a, b = ranks(2)
    run_id = submit(serve, iterations=3)
    commands = [a.command(), b.command()]
    assert {c["run_id"] for c in commands} == {run_id} and commands[0]["type"] == "run"
    for rank, seconds in ((a, 0.002), (b, 0.004)):
        rank.start(commands[0])
        rank.step(commands[0], 0)
        rank.finish(commands[0], seconds)
    run = serve.wait(run_id, timeout=10)
    assert run["state"] == "done" and run["verified"] is True
    assert run["time"] == pytest.approx(0.004)  # the slowest rank's median
    assert run["algbw"] == pytest.approx(8 * 4 / 0.004) and run["busbw"] == pytest.approx(
        run["algbw"] * 2 * (2 - 1) / 2
    )
    assert sorted(run["steps"][0]["ranks"]) == ["0", "1"]


def test_a_run_that_a_rank_never_finishes_fails_naming_that_rank(serve, ranks):
    a, b = ranks(2)
    run_id = submit(serve, timeout=1)
    command = a.command()
    b.command()
    a.start(command)
    a.finish(command)  # rank 1 keeps beating but never finishes
    run = serve.wait(run_id, timeout=20)
    assert run["state"] == "failed"
    assert "ranks [1] did not finish within 3 s" in run["error"], run["error"]


def test_an_error_from_a_rank_fails_the_run_with_its_words(serve, ranks):
    (a,) = ranks(1)
    run_id = submit(serve)
    a.command()
    a.send(type="error", run_id=run_id, field="count", message="scripted refusal")
    run = serve.wait(run_id, timeout=10)
    assert run["state"] == "failed" and run["error"] == "count: scripted refusal"


def test_cancel_a_queued_run_now_and_a_running_one_once_its_ranks_stop(serve, ranks):
    a, b = ranks(2)
    running, queued = submit(serve, iterations=100), submit(serve)
    command = a.command()
    assert command["run_id"] == running == b.command()["run_id"]
    assert serve.call("POST", f"/api/runs/{queued}/cancel")[1]["state"] == "cancelled"
    answer = serve.call("POST", f"/api/runs/{running}/cancel")[1]
    assert answer["state"] == "running" and answer["cancel_requested"] is True
    assert a.command() == b.command() == {"v": PROTOCOL_VERSION, "type": "cancel", "run_id": running}
    serve.call("POST", f"/api/runs/{running}/cancel")  # asked twice, told once
    a.start(command)
    a.send(type="run_cancelled", run_id=running, done=7, total=100)
    deadline = time.monotonic() + 10
    while (seen := serve.call("GET", f"/api/runs/{running}")[1])["cancelled_ranks"] != [0]:
        assert time.monotonic() < deadline, seen
        time.sleep(0.02)
    assert seen["state"] == "running", "rank 1 has not stopped yet"
    b.send(type="run_cancelled", run_id=running, done=7, total=100)
    run = serve.wait(running, timeout=10)
    assert run["state"] == "cancelled" and sorted(run["cancelled_ranks"]) == [0, 1] and run["results"] == {}
    with pytest.raises(TimeoutError):
        a.command(timeout=0.5)  # the second cancel sent nothing
    assert serve.call("POST", "/api/runs/r-424242/cancel")[0] == 404
    assert serve.call("POST", f"/api/runs/{queued}/cancel", token=None)[0] == 401


def test_viewers_hear_a_run_start_once_every_rank_has_and_then_each_step(serve, ranks):
    a, b = ranks(2)
    with connect(serve.ws_url(), max_size=None) as viewer:
        assert messages(viewer.recv(timeout=10))[0]["type"] == "snapshot"
        run_id = submit(serve)
        command = a.command()
        b.command()
        a.start(command, inputs=[{"chunk": 0, "preview": [1, 2]}])
        a.step(command, 0)
        deadline = time.monotonic() + 10
        # merged, not yet sent
        while "0" not in serve.call("GET", f"/api/runs/{run_id}")[1]["steps"][0]["ranks"]:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        b.start(command)
        b.step(command, 0)
        a.finish(command)
        b.finish(command)
        seen = []
        while not any(ended(m, run_id) for m in seen):
            seen += [m for m in messages(viewer.recv(timeout=10)) if m["type"] != "cluster"]
        failing = submit(serve)
        a.command(), b.command()
        a.send(type="error", run_id=failing, message="scripted refusal before starting")
        while not any(ended(m, failing) for m in seen):
            seen += [m for m in messages(viewer.recv(timeout=10)) if m["type"] != "cluster"]
    ours = [m for m in seen if m.get("run_id", m.get("run", {}).get("id")) == run_id]
    assert [m["type"] for m in ours] == ["run", "run_started", "step", "run_ended"]
    queued, started, step, done = ours
    assert queued["run"]["state"] == "queued" and "steps" not in queued["run"]  # a summary
    assert started["run"]["state"] == "running" and started["run"]["inputs"]["0"][0]["preview"] == [1, 2]
    # rank 0's step came before rank 1 started
    assert [list(s["ranks"]) for s in started["run"]["steps"]] == [["0"], []]
    assert started["run"]["steps"][1]["transfers"] and started["run"]["schedule"]["algorithm"] == "ring"
    assert (step["step"], step["rank"], step["t0"], step["t1"]) == (0, 1, 0, 0.5)
    assert done["run"]["state"] == "done" and sorted(done["run"]["steps"][0]["ranks"]) == ["0", "1"]
    assert [m["type"] for m in seen if m.get("run", {}).get("id") == failing] == ["run", "run_ended"]
    assert (
        seen[-1]["run"]["state"] == "failed"
        and seen[-1]["run"]["error"] == "scripted refusal before starting"
    )


def test_the_catalog_names_the_run_states(serve):
    _, catalog = serve.call("GET", "/api/catalog")
    assert catalog["run_states"] == {
        "all": ["queued", "running", "done", "failed", "cancelled", "interrupted"],
        "ended": ["done", "failed", "cancelled", "interrupted"],
    }


def test_a_silent_rank_is_lost_and_comes_back(serve, ranks):
    a, b = ranks(2)
    b.beating.clear()
    deadline = time.monotonic() + 10
    while {r["rank"]: r["status"] for r in serve.cluster()["ranks"]} != {0: "idle", 1: "lost"}:
        assert time.monotonic() < deadline, serve.cluster()
        time.sleep(0.05)
    refused = serve.call("POST", "/api/runs", SMALL)[1]["detail"]["message"]
    assert refused.startswith("ranks [1] of the world are not connected")
    b.beating.set()
    serve.wait_ranks(2, timeout=10)
    b.close()  # gone for good; a new process reconnects as rank 1
    while next(r for r in serve.cluster()["ranks"] if r["rank"] == 1)["status"] != "lost":
        time.sleep(0.05)
    again = ScriptedRank(serve, 1, 2, pid=4242)
    try:
        assert next(r for r in serve.wait_ranks(2, timeout=10)["ranks"] if r["rank"] == 1)["pid"] == 4242
    finally:
        again.close()


def test_a_rank_may_only_speak_for_itself(serve, ranks):
    a, b = ranks(2)
    b.send(type="heartbeat", rank=0)
    with pytest.raises(ConnectionClosed) as closed:
        b.ws.recv(timeout=10)
    assert closed.value.rcvd.code == 1008 and "rank 1 sent an event as rank 0" in closed.value.rcvd.reason
    assert {r["rank"]: r["status"] for r in serve.cluster()["ranks"]}[0] == "idle"


class StalledViewer:
    """A viewer that shakes hands and then never reads: its socket's buffers fill up."""

    def __init__(self, url: str):
        host, port = url.split("//")[1].split(":")
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        self.sock.connect((host, int(port)))
        self.sock.sendall(
            f"GET /ws HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: "
            "Upgrade\r\nSec-WebSocket-Key: "
            "c3RhbGxlZCB2aWV3ZXIhIQ==\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
        )

    def close_frame(self) -> tuple[int, str]:
        """Read what piled up, frame by frame, to the close frame: its code and reason."""
        self.sock.settimeout(30)
        stream = self.sock.makefile("rb")
        assert stream.readline().startswith(b"HTTP/1.1 101")
        while stream.readline() not in (b"\r\n", b""):
            pass
        while True:
            head = stream.read(2)
            size = head[1] & 127
            if size >= 126:
                size = int.from_bytes(stream.read(2 if size == 126 else 8), "big")
            payload = stream.read(size)
            if head[0] & 0x0F == 0x8:
                return int.from_bytes(payload[:2], "big"), payload[2:].decode()


def test_a_stalled_viewer_is_dropped_and_the_others_get_every_step(serve, ranks):
    a, b = ranks(2)
    stalled = StalledViewer(serve.url)
    steps = 500  # ~11 MB: more than the kernel buffers and the 64-message queue hold
    with connect(serve.ws_url(), max_size=None, max_queue=None) as watcher:  # reads all as it comes
        assert messages(watcher.recv(timeout=10))[0]["type"] == "snapshot"
        run_id = flood(serve, a, b, steps)
        seen: list[int] = []
        while True:
            batch = messages(watcher.recv(timeout=30))
            seen += [m["step"] for m in batch if m["type"] == "step" and m["run_id"] == run_id]
            if any(
                m["type"] == "run_ended" and m["run"]["id"] == run_id and m["run"]["state"] == "done"
                for m in batch
            ):
                break
    assert seen == list(range(steps))
    assert stalled.close_frame() == (1013, "viewer fell behind; reconnect for a snapshot")


def test_a_stalled_viewer_that_answers_no_ping_lets_go_of_its_socket(serve, ranks):
    """A viewer that never reads is told to go (1013) and then pinged; it answers nothing. uvicorn then
    closed it gracefully, which waited until it read what was buffered for it: it held its socket, its
    buffer and its handler for as long as it stayed (256 from one address: 53 MB). Now the server lets
    go of it once the ping's answer is overdue (--ping-every: 5 s, and 5 s more)."""
    a, b = ranks(2)
    stalled = StalledViewer(serve.url)
    port = stalled.sock.getsockname()[1]

    def held() -> bool:
        return any(
            c.raddr and c.raddr.port == port for c in psutil.Process(serve.proc.pid).net_connections("tcp")
        )

    try:
        deadline = time.monotonic() + 10  # held once accepted (read now: its ping is due in 5 s)
        while not held():
            assert time.monotonic() < deadline, "the server never accepted the stalled viewer"
            time.sleep(0.05)
        run_id = flood(serve, a, b, 500)  # ~11 MB: more than the kernel buffers hold
        assert serve.wait(run_id, timeout=30)["state"] == "done"
        deadline = time.monotonic() + 5 + 5 + 30
        while held() and time.monotonic() < deadline:
            time.sleep(1)
        assert not held(), "the server still holds the stalled viewer's socket"
    finally:
        stalled.sock.close()


def test_a_configured_viewer_token_guards_watching(tmp_path):
    guarded = start_serve(tmp_path, "--viewer-token", "let-me-watch")
    try:
        assert guarded.call("GET", "/api/runs", token=None)[0] == 401
        assert guarded.call("GET", "/api/cluster", token="nope")[0] == 403
        assert guarded.call("GET", "/api/runs", token="let-me-watch")[0] == 200
        assert guarded.call("GET", "/api/runs")[0] == 200  # a presenter may watch too
        with pytest.raises(InvalidStatus):
            connect(guarded.ws_url())
        with connect(guarded.ws_url("/ws?token=let-me-watch")) as ws:
            snapshot = json.loads(ws.recv(timeout=10))
        assert snapshot["type"] == "snapshot" and snapshot["role"] == "viewer"
        with connect(guarded.ws_url(f"/ws?token={guarded.presenter}")) as ws:
            assert json.loads(ws.recv(timeout=10))["role"] == "presenter"
        assert guarded.call("GET", "/api/health", token=None)[0] == 200  # liveness stays open
    finally:
        assert guarded.stop() == 0


@pytest.mark.parametrize(
    "report,words",
    [
        # within the frame's bound (protocol.MAX_ITERATIONS), past the run's
        (dict(timings={"iterations": [0.001] * 2}), "2 iterations"),
        (dict(timings={"iterations": [-1.0]}), "negative time"),
        # a start per iteration at most
        (dict(timings={"iterations": [0.001], "starts": [0.0, 0.5]}), "1 iterations"),
        (dict(timings={"iterations": [0.001], "starts": [1e300]}), "not a number of seconds"),
        (
            dict(timings={"iterations": [0.001]}, output=[{"chunk": 10**9, "values": [1]}]),
            "ended with a chunk",
        ),
        (dict(timings={"iterations": [0.001]}, bytes_sent=10**30), "outside 0 to 2^64"),
        (dict(timings={"iterations": [0.001]}, checksum=-1), "outside 0 to 2^64"),
    ],
)
def test_a_forged_result_fails_the_run_and_stores_none_of_it(serve, ranks, report, words):
    a, b = ranks(2)
    run_id = submit(serve, iterations=1)
    commands = [a.command(), b.command()]
    a.start(commands[0])
    a.send(type="run_finished", run_id=run_id, **report)
    run = serve.wait(run_id, timeout=20)
    assert run["state"] == "failed" and words in run["error"], run["error"]
    assert not run["results"] and run["time"] is None


def test_a_forged_start_fails_the_run(serve, ranks):
    a, b = ranks(2)
    run_id = submit(serve)
    a.start(a.command(), inputs=[{"chunk": 300, "values": [1] * 4}])
    run = serve.wait(run_id, timeout=20)
    assert run["state"] == "failed" and "started with a chunk" in run["error"] and not run["inputs"]


def test_a_hello_with_an_impossible_local_world_or_pid_is_refused(serve):
    for fields, words in ((dict(local_world_size=-5), "local world size"), (dict(pid=10**30), "pid")):
        with pytest.raises(ConnectionClosed) as closed:
            rank = ScriptedRank(serve, 0, 1, **fields)
            rank.ws.recv(timeout=10)
        assert closed.value.rcvd.code == 4409 and words in closed.value.rcvd.reason


def test_the_page_and_plotly_are_served(serve):
    status, page = serve.call("GET", "/", token=None)
    assert status == 200 and "scripted page" in page
    status, bundle = serve.call("GET", "/vendor/plotly.min.js", token=None)
    assert status == 200 and "plotly" in bundle[:2000].lower()


@pytest.mark.parametrize(
    "report,words",
    [
        (dict(step=10**6), "outside the run's 2 planned steps"),
        (dict(step=0, states=[{"chunk": 99, "preview": [1]}]), "a chunk the run's buffer does not have"),
        (
            dict(step=0, states=[{"chunk": 0, "values": list(range(4000))}]),
            "a chunk the run's buffer does not have",
        ),
    ],
)
def test_a_forged_step_fails_the_run_and_grows_nothing(serve, ranks, report, words):
    a, b = ranks(2)
    run_id = submit(serve)  # a ring of two: two planned steps, chunks of four elements
    command = a.command()
    b.command()
    a.start(command)
    a.send(type="step", run_id=command["run_id"], t0=0, t1=0.5, **report)
    run = serve.wait(run_id, timeout=20)
    assert run["state"] == "failed" and words in run["error"], run["error"]
    assert len(run["steps"]) == 2 and not any(s["ranks"] for s in run["steps"])
