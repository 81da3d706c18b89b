"""The server's promises that need real sockets: a real `ringside serve` with scripted ranks (real
websocket clients speaking the worker protocol) and viewers that stall. No torch here, so every
server starts in about a second. What the server does with the ranks' events is tested in-process
(tests/unit/test_runs_service.py, test_dispatcher.py, test_routes.py)."""

from __future__ import annotations

import json
import socket
import time

import psutil
import pytest
from server_helpers import ScriptedRank, flood, messages, start_serve
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect


def serving(tmp_path_factory, ping_every: float):
    server = start_serve(
        tmp_path_factory.mktemp("serve"),
        *("--world-hold", "0", "--viewer-queue", "64", "--ping-every", str(ping_every)),
    )
    yield server
    server.stop()


@pytest.fixture(scope="module")
def serve(tmp_path_factory):
    """A server that pings seldom: a stalled viewer keeps its socket (and the close frame queued on it)
    until the test reads it, however long a loaded machine takes to flood it."""
    yield from serving(tmp_path_factory, 600)


@pytest.fixture(scope="module")
def pinging(tmp_path_factory):
    """A server that pings every 5 s: a viewer that answers none is let go within 10."""
    yield from serving(tmp_path_factory, 5)


def ranks_of(server):
    """ranks(n) -> n scripted ranks of a world of n on `server`, closed after the test."""
    made: list[ScriptedRank] = []

    def make(n: int, **hello) -> list[ScriptedRank]:
        made.extend(ScriptedRank(server, r, n, **hello) for r in range(n))
        server.wait_ranks(n, timeout=10)
        return made[-n:]

    yield make
    for rank in made:
        rank.close()
    deadline = time.monotonic() + 10
    while any(r["status"] != "lost" for r in server.cluster()["ranks"]) and time.monotonic() < deadline:
        time.sleep(0.05)


@pytest.fixture
def ranks(serve):
    yield from ranks_of(serve)


@pytest.fixture
def pinged_ranks(pinging):
    yield from ranks_of(pinging)


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

    def send_text(self, text: str) -> None:
        """A masked text frame, as a client sends one."""
        data, mask = text.encode(), b"\x01\x02\x03\x04"
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
        self.sock.sendall(bytes([0x81, 0x80 | len(data)]) + mask + masked)

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


@pytest.mark.parametrize("sends", [False, True], ids=["silent", "sending"])
def test_a_stalled_viewer_that_answers_no_ping_lets_go_of_its_socket(pinging, pinged_ranks, sends):
    """A viewer that never reads is told to go (1013) and then pinged; it answers nothing. uvicorn then
    closed it gracefully, which waited until it read what was buffered for it: it held its socket, its
    buffer and its handler for as long as it stayed (256 from one address: 53 MB). Now the server lets
    go of it once the ping's answer is overdue (--ping-every: 5 s, and 5 s more). `sending`: it also
    sends what the route refuses, so the route waits to write its close frame while reading waits
    for the route: a late pong is forgiven only while the route takes messages, not for ever."""
    a, b = pinged_ranks(2)
    stalled = StalledViewer(pinging.url)
    port = stalled.sock.getsockname()[1]

    def held() -> bool:
        return any(
            c.raddr and c.raddr.port == port for c in psutil.Process(pinging.proc.pid).net_connections("tcp")
        )

    try:
        deadline = time.monotonic() + 10  # held once accepted (read now: its ping is due in 5 s)
        while not held():
            assert time.monotonic() < deadline, "the server never accepted the stalled viewer"
            time.sleep(0.05)
        run_id = flood(pinging, a, b, 500)  # ~11 MB: more than the kernel buffers hold
        assert pinging.wait(run_id, timeout=30)["state"] == "done"
        for text in ("not a ping", "x", "y", "z") if sends else ():
            stalled.send_text(text)
        deadline = time.monotonic() + 5 + 5 + 30
        while held() and time.monotonic() < deadline:
            time.sleep(1)
        assert not held(), "the server still holds the stalled viewer's socket"
    finally:
        stalled.sock.close()


def test_a_configured_viewer_token_guards_watching(tmp_path):
    """Its socket, with each token (its routes: tests/unit/test_routes.py)."""
    guarded = start_serve(tmp_path, "--viewer-token", "let-me-watch")
    try:
        with pytest.raises(InvalidStatus):
            connect(guarded.ws_url())
        with connect(guarded.ws_url("/ws?token=let-me-watch")) as ws:
            snapshot = json.loads(ws.recv(timeout=10))
        assert snapshot["type"] == "snapshot" and snapshot["role"] == "viewer"
        with connect(guarded.ws_url(f"/ws?token={guarded.presenter}")) as ws:
            assert json.loads(ws.recv(timeout=10))["role"] == "presenter"
    finally:
        assert guarded.stop() == 0
