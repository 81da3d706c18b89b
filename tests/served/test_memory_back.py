"""Memory comes back: after a flood of stalled bodies from five addresses has closed, the
server's resident memory returns within 50 MB of where it was, on the one route anyone may
post to (a vote, whose body is small) and on a path that takes no body."""

from __future__ import annotations

import resource
import socket
import time

import psutil
import pytest
from server_helpers import start_serve

SOURCES = [f"127.0.0.{70 + i}" for i in range(5)]
CONNECTIONS = 1000
BACK_WITHIN_MB = 50


@pytest.fixture
def serve(tmp_path_factory):  # one a test: each measures from a server no flood has grown
    own = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(own[0], 4096), max(own[1], 4096)))
    up = start_serve(tmp_path_factory.mktemp("memory"))
    yield up
    up.proc.terminate()
    up.proc.wait(timeout=30)
    resource.setrlimit(resource.RLIMIT_NOFILE, own)


def rss_mb(up) -> float:
    return psutil.Process(up.proc.pid).memory_info().rss / 2**20


def stall(port: int, path: str, declared: int, sent: int) -> list[socket.socket]:
    """CONNECTIONS requests that declare a body of `declared` bytes, send `sent` of it and stall."""
    head = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {declared}\r\n\r\n"
    ).encode()
    body = b'{"choice": "' + b"a" * sent
    held = []
    for i in range(CONNECTIONS):
        sock = socket.socket()
        sock.settimeout(5)
        sock.bind((SOURCES[i % len(SOURCES)], 0))
        try:
            sock.connect(("127.0.0.1", port))
            sock.sendall(head)
            sock.setblocking(False)
            sock.send(body[:sent])  # as much as the kernel takes now
        except OSError:
            pass  # refused, or its buffers full: it holds what it holds
        held.append(sock)
    return held


@pytest.mark.parametrize(
    "path, declared, sent",
    [("/api/polls/p-1/votes", (1 << 20) - 1, (1 << 20) - 2), ("/api/health", 1 << 16, 1 << 16)],
    ids=["vote", "no-body"],
)
def test_stalled_bodies_give_their_memory_back_once_closed(serve, path, declared, sent):
    port = int(serve.url.rsplit(":", 1)[1])
    before = rss_mb(serve)
    for _ in range(2):  # a second flood's peak is not kept on top of the first's
        held = stall(port, path, declared, sent)
        time.sleep(2)  # the server reads what it will of them
        for sock in held:
            sock.close()
        deadline = time.monotonic() + 20
        while (after := rss_mb(serve)) > before + BACK_WITHIN_MB and time.monotonic() < deadline:
            time.sleep(0.5)
        assert after <= before + BACK_WITHIN_MB, f"{before:.0f} MB before the flood, {after:.0f} MB after"
    assert serve.call("GET", "/api/health")[0] == 200
