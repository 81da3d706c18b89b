"""What a client can make a real server hold or take, below the routes (transport.py, guard.py) and
at them: bodies that no route reads, unfinished websocket frames, requests whose headers never end,
more connections than an address may keep, pings never read, a large message to viewers that read
nothing; a forged hello, a full queue, a worker frame past its bound. A real server, raw sockets,
its real RSS; scripted ranks where a run is needed. What a request's body may say:
tests/unit/test_run_requests_refused.py."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import socket
import struct
import time

import psutil
import pytest
from server_helpers import PRESENTER_TOKEN, WORKER_TOKEN, ScriptedRank, messages, start_serve
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from ringside.server.dispatch.dispatcher import MAX_QUEUE
from ringside.server.door.transport import MAX_PER_CLIENT
from ringside.server.viewers.socket import SNAPSHOT_QUEUE
from ringside.worker_agent.core.protocol import MAX_RANK_CHUNKS, PROTOCOL_VERSION

MiB = 1 << 20


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    # deadlines shorter than the defaults (10 and 30 s), so the tests of them wait less
    up = start_serve(
        tmp_path_factory.mktemp("edges"),
        "--headers-within",
        str(HEADERS_WITHIN_S),
        "--message-within",
        str(MESSAGE_WITHIN_S),
    )
    yield up
    up.stop()


HEADERS_WITHIN_S, MESSAGE_WITHIN_S = 3.0, 5.0


# another address is answered within this, under the stalled ones' deadline: a server they held up
# would answer only once they are cut off (on a busy machine a health check may take a second)
SERVED_WITHIN_S = 2.5


def port_of(server) -> int:
    return int(server.url.rsplit(":", 1)[1])


def rss(server) -> int:
    return psutil.Process(server.proc.pid).memory_info().rss


def connect_from(server, source: str) -> socket.socket:
    """A connection from `source`, one of loopback's addresses (127.0.0.0/8): each is a client address of its
    own."""
    return socket.create_connection(("127.0.0.1", port_of(server)), timeout=10, source_address=(source, 0))


def health_within(server, seconds: float) -> bool:
    began = time.monotonic()
    with socket.create_connection(("127.0.0.1", port_of(server)), timeout=seconds) as sock:
        sock.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        answer = sock.recv(4096)
    return answer.startswith(b"HTTP/1.1 200") and time.monotonic() - began < seconds


def accepted_from(server, source: str) -> int:
    """The server's connections from `source`: accepted, not only queued by the kernel."""
    return sum(
        bool(c.raddr) and c.raddr.ip == source for c in psutil.Process(server.proc.pid).net_connections("tcp")
    )


def served_from(server, source: str) -> bool:
    with connect_from(server, source) as sock:
        sock.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        try:
            return sock.recv(4096).startswith(b"HTTP/1.1 200")
        except ConnectionResetError:
            return False


def read_all(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection."""
    data = b""
    while more := sock.recv(65536):
        data += more
    return data


def close_all(socks) -> None:
    for sock in socks:
        sock.close()


def test_a_body_no_route_reads_is_refused_unread(server):
    """1,000 anonymous requests each saying a body of 1 MiB - 1 bytes comes to a path that takes
    none (nor their method: the page's files take GET and HEAD), sending it and stalling: each is
    answered 405 from its headers alone."""
    before, socks = rss(server), []
    try:
        for i in range(1000):
            sock = connect_from(server, f"127.0.0.{10 + i // 200}")
            sock.sendall(
                b"POST /nonexistent HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: %d\r\n\r\n" % (MiB - 1)
            )
            with contextlib.suppress(OSError):  # already refused and closed
                sock.sendall(os.urandom(64 << 10))  # what the kernel takes before the server's answer
            socks.append(sock)
        answer = read_all(socks[-1])
        assert answer.startswith(b"HTTP/1.1 405") and b"takes GET, HEAD, not POST" in answer, answer[:200]
        # unbounded it held their bodies, about 1 GB; bounded, 25-55 MiB (the connections, and the
        # allocator's arenas, which a loaded machine's timing grows)
        assert rss(server) - before < 100 * MiB, f"{(rss(server) - before) / MiB:.0f} MiB held"
    finally:
        close_all(socks)
    status = server.call("POST", "/api/runs", {"collective": "all_reduce"})[0]
    assert status == 503, "a route that reads a body still reads it (503: no ranks are connected)"


def upgrade(server, path: str, source: str = "127.0.0.20") -> tuple[socket.socket, bytes]:
    """A websocket handshake at `path` as a client writes it, and the server's answer's head."""
    sock = connect_from(server, source)
    key = base64.b64encode(os.urandom(16))
    sock.sendall(
        b"GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n" % (path.encode(), key)
    )
    head = b""
    while b"\r\n\r\n" not in head and (more := sock.recv(4096)):
        head += more
    return sock, head


def begin_big_frame(sock: socket.socket) -> None:
    """The header of a 15 MiB text frame and its first MiB."""
    frame = bytes([0x81, 0x80 | 127]) + struct.pack(">Q", 15 * MiB) + os.urandom(4)
    with contextlib.suppress(OSError):
        sock.sendall(frame + os.urandom(MiB))


# the viewers' socket as the router reads it, spelt as a client may: each is accepted, and a frame past
# the viewer's bound is refused by its length alone
VIEWER_SPELLINGS = ["/ws", "/%77s", "/%77%73", "/w%73", "/ws?token=x"]


# refused at the handshake, before any frame: spellings no route reads as a socket, and a rank's
# sockets however spelt without the worker token
NO_SOCKET = ["/WS", "/ws/", "//ws", "/ws/../ws", "/%2577s", "/ws%2F", "/ws/worker/", "/ws/%57orker"]


NO_SOCKET += ["/ws/worker", "/ws/%77orker", "/ws%2Fworker", "/ws/watch", "/%77s/watch"]


@pytest.mark.parametrize("path", VIEWER_SPELLINGS + NO_SOCKET)
def test_every_spelling_of_a_socket_path_meets_the_bound_its_route_has(server, path):
    sock, head = upgrade(server, path)
    try:
        if path in NO_SOCKET:
            assert not head.startswith(b"HTTP/1.1 101"), f"{path} upgraded: {head[:200]!r}"
            return
        assert head.startswith(b"HTTP/1.1 101"), head[:200]
        begin_big_frame(sock)
        assert close_code(sock) == 1009, f"{path}: a 15 MiB frame on the viewers' socket"
    finally:
        sock.close()


def test_an_unfinished_viewer_frame_is_refused_by_its_length(server):
    """150 viewer sockets, reached at /%77s (the router's /ws), each begin a 15 MiB frame: each is
    closed with 1009 (too big) as soon as the frame's header is read, and none of it is kept."""
    before, socks = rss(server), []
    try:
        for _ in range(150):
            sock, head = upgrade(server, "/%77s")
            assert head.startswith(b"HTTP/1.1 101"), head[:200]
            begin_big_frame(sock)  # of its 15 MiB: 150 MiB in all, if it were kept
            socks.append(sock)
        assert close_code(socks[-1]) == 1009
        # unbounded it held their bodies, about 1 GB; bounded, 25-55 MiB (the connections, and the
        # allocator's arenas, which a loaded machine's timing grows)
        assert rss(server) - before < 100 * MiB, f"{(rss(server) - before) / MiB:.0f} MiB held"
    finally:
        close_all(socks)


def close_code(sock: socket.socket) -> int | None:
    """The code of the close frame the server sent, skipping the snapshot before it; None if none came."""
    data = b""
    sock.settimeout(10)
    while True:
        try:
            more = sock.recv(65536)
        except OSError:
            more = b""
        data += more
        while len(data) >= 2:
            opcode, length, start = data[0] & 0x0F, data[1] & 0x7F, 2
            if length == 126:
                length, start = struct.unpack(">H", data[2:4])[0], 4
            elif length == 127:
                length, start = struct.unpack(">Q", data[2:10])[0], 10
            if len(data) < start + length:
                break
            if opcode == 0x8:
                return struct.unpack(">H", data[start : start + 2])[0]
            data = data[start + length :]
        if not more:
            return None


def masked(payload: bytes, opcode: int = 0x1, fin: bool = True) -> bytes:
    """A client's websocket frame (a zero mask: the payload as it is)."""
    n, head = len(payload), bytes([(0x80 if fin else 0) | opcode])
    size = (
        bytes([0x80 | n])
        if n < 126
        else bytes([0x80 | 126]) + struct.pack(">H", n)
        if n < 65536
        else bytes([0x80 | 127]) + struct.pack(">Q", n)
    )
    return head + size + b"\0\0\0\0" + payload


def test_a_websocket_message_never_finished_is_closed_though_its_peer_answers_pings(server):
    """A worker-token socket begins a fragmented message of 8 MiB and never ends it, sending a byte
    more now and then and answering every ping: it held its 8 MiB for as long as it liked (256
    such from one address: 4 GiB). A message must be whole within MESSAGE_WITHIN_S."""
    sock = connect_from(server, "127.0.0.40")
    key = base64.b64encode(os.urandom(16))
    sock.sendall(
        b"GET /ws/watch?token=%s HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
        b"Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n"
        % (WORKER_TOKEN.encode(), key)
    )
    handshake = b""
    while b"\r\n\r\n" not in handshake:
        handshake += sock.recv(4096)
    assert handshake.startswith(b"HTTP/1.1 101"), handshake[:200]
    hello = {
        "type": "watch_hello",
        "job": "k-unfinished",
        "rank": 0,
        "world_size": 1,
        "host": "h",
        "pid": 1,
        "launcher": "script",
        "backend": "gloo",
        "started_ns": 0,
    }
    sock.sendall(masked(json.dumps(hello).encode()) + masked(b"x" * (8 * MiB), fin=False))
    began, closed = time.monotonic(), False
    sock.settimeout(2)
    while not closed and time.monotonic() - began < MESSAGE_WITHIN_S + 30:
        try:
            data = sock.recv(65536)
            closed = data == b""
            if data[:1] == b"\x89":  # a ping: its pong goes between the message's fragments
                sock.sendall(masked(data[2 : 2 + data[1]], opcode=0xA))
        except TimeoutError:
            pass
        try:
            if not closed:
                sock.sendall(masked(b"y", opcode=0x0, fin=False))
        except OSError:
            closed = True
    sock.close()
    assert closed, f"still open after {MESSAGE_WITHIN_S + 30:g} s"
    assert health_within(server, SERVED_WITHIN_S)


def test_a_viewer_that_pings_and_reads_nothing_holds_no_pongs(server):
    """An anonymous viewer sends 96 MiB of pings and reads nothing: every pong was written to a
    buffer that grew by what it sent (600 MB in 40 s), held until it hung up. Now a ping is answered
    only while the peer reads what it is sent."""
    sock = connect_from(server, "127.0.0.45")
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    key = base64.b64encode(os.urandom(16))
    sock.sendall(
        b"GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n" % key
    )
    handshake = b""
    while b"\r\n\r\n" not in handshake:
        handshake += sock.recv(4096)
    assert handshake.startswith(b"HTTP/1.1 101"), handshake[:200]
    before, pings = rss(server), masked(b"p" * 125, opcode=0x9) * 8192
    # each MiB is 8,192 frames the server parses: on a loaded machine a write may wait for it longer
    # than connect_from's 10 s, and what is asserted is what it holds, not how fast it reads
    sock.settimeout(120)
    try:
        for _ in range(96 * MiB // len(pings)):
            sock.sendall(pings)
        assert health_within(server, 5.0)  # every ping before it has been read
        assert rss(server) - before < 32 * MiB, f"{(rss(server) - before) / MiB:.0f} MiB held"
    finally:
        sock.close()


def test_refused_websockets_leave_the_log_quiet(server):
    """A text frame that is not UTF-8 wrote a traceback to the server's log, and a handshake refused for
    its Host an ERROR line: an anonymous client could fill the log, a connection at a time. Both are
    refused as before (1007; 403), and say nothing there."""
    before = server.log_text()
    key = base64.b64encode(os.urandom(16))
    for host, frames in ((b"127.0.0.1", [b"\xff\xfe", b"\xc3"]), (b"evil.example", [])):
        for frame in frames or [b""]:
            with connect_from(server, "127.0.0.46") as sock:
                sock.sendall(
                    b"GET /ws HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    b"Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n" % (host, key)
                )
                if not frames:
                    assert read_all(sock).startswith(b"HTTP/1.1 403")
                    continue
                handshake = b""
                while b"\r\n\r\n" not in handshake:
                    handshake += sock.recv(4096)
                sock.sendall(masked(frame))
                assert close_code(sock) == 1007
    with connect(server.ws_url("/ws"), max_size=None) as ws:  # text across fragments, a character split
        ws.send(iter(['{"type": "pi\u00e9', 'ng"}']))
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                ws.recv(timeout=10)
    assert closed.value.rcvd.code == 1003, "UTF-8 across fragments is read, and refused as any other frame"
    said = server.log_text()[len(before) :]
    assert "Traceback" not in said and "ERROR" not in said, said[:2000]


def test_unparseable_requests_leave_the_log_quiet(server):
    """A request h11 cannot parse (not HTTP, or two Host headers) wrote a WARNING line each: an anonymous
    client could fill the log a line a connection. Each is still answered 400, and says nothing there."""
    before = server.log_text()
    for request in (b"GARBAGE\r\n\r\n", b"GET / HTTP/1.1\r\nHost: localhost\r\nHost: localhost\r\n\r\n"):
        for _ in range(20):
            with connect_from(server, "127.0.0.47") as sock:
                sock.sendall(request)
                assert read_all(sock).startswith(b"HTTP/1.1 400")
    assert health_within(server, 5.0)
    said = server.log_text()[len(before) :]
    assert "Invalid HTTP request" not in said, said[:2000]


def test_requests_whose_headers_never_end_are_closed_and_health_answers_meanwhile(server):
    """2,000 connections that begin a request's headers and stall (from one address): those past
    the address's cap are refused at once, the rest closed at the headers' deadline; a request from
    another address is answered within a second all the while."""
    socks = []
    try:
        for _ in range(2000):
            try:
                sock = connect_from(server, "127.0.0.30")
                sock.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-a: ")
                socks.append(sock)
            except OSError:
                pass  # refused: over the cap
        assert health_within(server, SERVED_WITHIN_S)
        began = time.monotonic()
        held = [s for s in socks if _open(s)]
        assert 0 < len(held) <= MAX_PER_CLIENT
        for sock in held:
            sock.settimeout(HEADERS_WITHIN_S + 10)
            assert sock.recv(4096) == b"", "closed at the deadline, with no answer"
        assert time.monotonic() - began < HEADERS_WITHIN_S + 5
        assert health_within(server, SERVED_WITHIN_S)
    finally:
        close_all(socks)


def _open(sock: socket.socket) -> bool:
    """Whether the server still holds this connection (nothing to read yet, not closed)."""
    sock.setblocking(False)
    try:
        return sock.recv(1) != b""
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        sock.setblocking(True)


def test_an_address_at_its_cap_is_refused_and_served_again_once_it_lets_go(server):
    socks = [connect_from(server, "127.0.0.40") for _ in range(MAX_PER_CLIENT)]
    try:
        deadline = time.monotonic() + HEADERS_WITHIN_S  # the server has taken all of them in
        while accepted_from(server, "127.0.0.40") < MAX_PER_CLIENT and time.monotonic() < deadline:
            time.sleep(0.05)
        extra = connect_from(server, "127.0.0.40")
        extra.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        extra.settimeout(5)
        try:
            refused = extra.recv(4096) == b""
        except ConnectionResetError:
            refused = True
        assert refused, "one connection past the cap is closed unanswered"
        assert health_within(server, SERVED_WITHIN_S), "other addresses are served"
    finally:
        close_all(socks)
    deadline = time.monotonic() + 10  # the server counts the closes as it reads them
    while not served_from(server, "127.0.0.40"):
        assert time.monotonic() < deadline, "the address is served again once it lets go"
        time.sleep(0.1)
    assert server.call("GET", "/api/health", token=PRESENTER_TOKEN)[0] == 200


def test_a_world_whose_ranks_all_went_is_held_for_them(server):
    """While a whole world's ranks restart, a hello of another world size (a worker token's
    holder claiming rank 0 of a world of 1) is refused; the real ranks rejoin."""
    ranks = [ScriptedRank(server, r, 2) for r in range(2)]
    server.wait_ranks(2, timeout=10)
    for rank in ranks:
        rank.close()
    deadline = time.monotonic() + 10
    while server.call("GET", "/api/health")[1]["live_ranks"] and time.monotonic() < deadline:
        time.sleep(0.1)
    with connect(server.ws_url(f"/ws/worker?token={WORKER_TOKEN}")) as hijack:
        hijack.send(
            json.dumps(
                {
                    "v": PROTOCOL_VERSION,
                    "type": "hello",
                    "rank": 0,
                    "world_size": 1,
                    "host": "evil",
                    "pid": 1,
                    "backend": "gloo",
                    "device": "cpu",
                    "torch_version": "x",
                }
            )
        )
        with pytest.raises(ConnectionClosed) as closed:
            hijack.recv(timeout=10)
    assert closed.value.rcvd.code == 4409 and "held while its ranks restart" in closed.value.rcvd.reason
    back = [ScriptedRank(server, r, 2) for r in range(2)]
    try:
        server.wait_ranks(2, timeout=10)
        assert server.call("GET", "/api/cluster")[1]["world_size"] == 2
    finally:
        for rank in back:
            rank.close()


def test_the_queue_has_a_limit_and_a_joining_viewer_hears_its_head(server):
    ranks = [ScriptedRank(server, r, 2) for r in range(2)]
    try:
        server.wait_ranks(2, timeout=10)
        ask = {"collective": "all_reduce", "algorithm": "ring", "count": 8}
        # one runs, the rest wait
        ids = [server.call("POST", "/api/runs", ask)[1]["id"] for _ in range(MAX_QUEUE + 1)]
        status, body = server.call("POST", "/api/runs", ask)
        assert status == 409 and body["detail"]["field"] == "queue", body
        with connect(server.ws_url()) as viewer:
            snapshot = json.loads(viewer.recv(timeout=10))
        assert (
            snapshot["queued"] == MAX_QUEUE
            and [r["id"] for r in snapshot["queue"]] == ids[1 : 1 + SNAPSHOT_QUEUE]
        )
        assert server.call("POST", f"/api/runs/{ids[-1]}/cancel")[0] == 200
        assert server.call("POST", "/api/runs", ask)[0] == 202, "a place freed is a place taken"
    finally:
        for rank in ranks:
            rank.close()


def summaries(chunks: int) -> list[dict]:
    return [{"chunk": c, "preview": [c], "min": c, "max": c, "sum": c, "checksum": c} for c in range(chunks)]


def test_a_worker_frame_past_its_bound_is_refused_naming_the_field_and_the_largest_run_passes(tmp_path):
    """A forged step of one state more than a run may have is closed with 1007 naming `states` (one far
    larger is refused by its size before it is parsed: test_worker_frames); a run cut into as many
    chunks as a run may have (MAX_RANK_CHUNKS) reports them all."""
    server = start_serve(tmp_path)
    p = 8  # all_to_all's 2P blocks of 1024 pieces: the most chunks a rank's buffer may have
    ranks = [ScriptedRank(server, r, p) for r in range(p)]
    try:
        server.wait_ranks(p, timeout=10)
        status, body = server.call(
            "POST",
            "/api/runs",
            {"collective": "all_to_all", "algorithm": "pairwise", "count": 1024, "chunks": 1024},
        )
        assert status == 202, body
        commands = [rank.command() for rank in ranks]
        for rank, command in zip(ranks, commands):
            rank.start(command, inputs=summaries(MAX_RANK_CHUNKS) if rank.rank == 0 else [])
        steps = len(server.call("GET", f"/api/runs/{body['id']}")[1]["steps"])
        for rank, command in zip(ranks, commands):
            for step in range(steps):
                rank.step(
                    command, step, states=summaries(MAX_RANK_CHUNKS) if (rank.rank, step) == (0, 0) else []
                )
            rank.send(
                type="run_finished",
                run_id=command["run_id"],
                verified=True,
                timings={"iterations": [0.001]},
                output=summaries(MAX_RANK_CHUNKS) if rank.rank == 0 else [],
            )
        run = server.wait(body["id"], timeout=30)
        assert run["state"] == "done", run["error"]
        assert len(run["inputs"]["0"]) == len(run["steps"][0]["ranks"]["0"]["states"]) == MAX_RANK_CHUNKS
        forged = {
            "type": "step",
            "run_id": "r-999999",
            "step": 0,
            "t0": 0,
            "t1": 1,
            "states": summaries(MAX_RANK_CHUNKS + 1),
        }
        ranks[1].send(**forged)
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                ranks[1].ws.recv(timeout=10)
        assert closed.value.rcvd.code == 1007 and "states" in closed.value.rcvd.reason, closed.value.rcvd
        assert f"at most {MAX_RANK_CHUNKS}" in closed.value.rcvd.reason
    finally:
        for rank in ranks:
            rank.close()
        server.stop()


def test_viewers_that_read_nothing_hold_no_copy_of_a_large_message_each(tmp_path):
    """64 viewers from one address shake hands and read nothing; then a run goes on stage whose
    `run_started` is 4 MB (a rank reported 200 steps before the other started). Each socket's
    transport took the whole frame, 64 copies held for as long as the viewers stayed (+67 MiB);
    now a large message leaves in fragments, each once the peer has read what came before."""
    server = start_serve(tmp_path)
    sender, receiver = ranks = [ScriptedRank(server, r, 2) for r in range(2)]
    stalled = []
    try:
        server.wait_ranks(2, timeout=10)
        for _ in range(64):
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # before it connects: a small window
            sock.bind(("127.0.0.46", 0))
            sock.connect(("127.0.0.1", port_of(server)))
            stalled.append(sock)
            key = base64.b64encode(os.urandom(16))
            sock.sendall(
                b"GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                b"Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n" % key
            )
        plan = {"pieces": 1, "steps": [{"transfers": [[0, 1, 0, 0, 0]]}] * 200}
        spec = {"collective": "broadcast", "algorithm": "custom", "count": 4000, "schedule": plan}
        status, run = server.call("POST", "/api/runs", spec)
        assert status == 202, run
        with connect(server.ws_url("/ws"), max_size=None) as watcher:
            commands = [rank.command() for rank in ranks]
            receiver.start(commands[1])
            for step in range(200):
                receiver.step(commands[1], step, states=[{"chunk": 0, "values": list(range(4000))}])
            while not server.call("GET", f"/api/runs/{run['id']}")[1]["steps"][-1]["ranks"]:
                time.sleep(0.05)  # the run holds every step: what it holds is not the viewers'
            before = rss(server)
            sender.start(commands[0])
            started = None
            while started is None:
                found = messages(watcher.recv(timeout=30))
                started = next((m for m in found if m["type"] == "run_started"), None)
            assert len(json.dumps(started)) > 4 * MiB
            held = rss(server) - before
        assert held < 16 * MiB, f"{held / MiB:.0f} MiB held for 64 viewers that read nothing"
        for rank, command in zip(ranks, commands):
            rank.finish(command)
        assert server.wait(run["id"], timeout=10)["state"] == "done"
    finally:
        close_all(stalled)
        for rank in ranks:
            rank.close()
        server.stop()
