"""The open-file limit is a bound like the others: a server started with 1,024 files, held
open by 1,250 stalled connections from five addresses, still answers a sixth at once and
says so in a line, not a line a refusal."""

from __future__ import annotations

import re
import resource
import socket
import subprocess
import sys
import time

import pytest

from ringside.server.door.files import RESERVED
from ringside.worker_agent.clients.harness import CLI
from ringside.worker_agent.rank.local import free_port

FILES = 1024
SOURCES = [f"127.0.0.{60 + i}" for i in range(5)]


@pytest.fixture
def server(tmp_path):
    """`ringside serve` in a process whose soft and hard open-file limits are both FILES."""
    port, log = free_port(), tmp_path / "serve.log"

    def limited():
        resource.setrlimit(resource.RLIMIT_NOFILE, (FILES, FILES))

    with open(log, "w") as out:
        proc = subprocess.Popen(
            [*CLI, "serve", "--port", str(port), "--db", str(tmp_path / "runs.db")],
            stdout=out, stderr=subprocess.STDOUT, preexec_fn=limited,
        )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not health_within(port, 1.0):
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.2)
        yield port, log
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def health_within(port: int, seconds: float, source: str = "127.0.0.90") -> bool:
    """GET /api/health from `source` answered 200 within `seconds`."""
    try:
        sock = socket.create_connection(("127.0.0.1", port), timeout=seconds, source_address=(source, 0))
    except OSError:
        return False
    with sock:
        sock.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        try:
            return sock.recv(64).startswith(b"HTTP/1.1 200")
        except OSError:
            return False


def test_stalled_connections_past_the_open_file_limit_leave_room_for_another_client(server):
    port, log = server
    own = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(own[0], 4096), max(own[1], 4096)))
    stalled = []
    try:
        for i in range(1250):  # each says part of its headers and stalls
            sock = socket.socket()
            sock.settimeout(5)
            sock.bind((SOURCES[i % len(SOURCES)], 0))
            try:
                sock.connect(("127.0.0.1", port))
                sock.sendall(b"GET /api/health HTTP/1.1\r\n")
            except OSError:
                pass  # refused: the server closed it as it accepted it
            stalled.append(sock)
        answered = []
        for _ in range(20):
            began = time.monotonic()
            answered.append(health_within(port, 1.0) and time.monotonic() - began < 1.0)
        assert sum(answered) >= 18, f"a sixth address was answered within 1 s {sum(answered)} times of 20"
    finally:
        for sock in stalled:
            sock.close()
        resource.setrlimit(resource.RLIMIT_NOFILE, own)
    text = log.read_text()
    assert len(text.encode()) < 1 << 20, f"the log grew to {len(text)} characters"
    assert "Too many open files" not in text
    refusals = re.findall(
        r"refused \d+ connections? past the caps \((\d+) per address, (\d+) in all, of (\d+)", text
    )
    assert 1 <= len(refusals) <= 2, f"one line a minute at most: {refusals}"
    per_address, in_all, files = map(int, refusals[0])
    assert files == FILES and in_all + RESERVED < FILES, "room kept for the store and a health check"
    assert len(SOURCES) * per_address < in_all, "five addresses cannot fill it"


@pytest.mark.parametrize("soft, hard", [(256, 20000), (1024, 1024), (256, 256)])
def test_the_soft_limit_is_raised_to_the_hard_one_and_the_caps_sized_from_it(soft, hard):
    """In a process started with these limits: the soft one raised as far as the hard one, and the
    caps leave room for the reserve and a burst of accepts, and for a sixth client address."""
    script = (
        "import resource; from ringside.server.door.files import raised; "
        "c = raised(256); print(c.files, c.in_all, c.per_address, c.backlog, "
        "resource.getrlimit(resource.RLIMIT_NOFILE)[0])"
    )
    out = subprocess.run(
        [sys.executable, "-c", script],
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard)),
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    files, in_all, per_address, backlog, now = map(int, out.split())
    assert files == now == hard
    assert in_all + RESERVED + backlog <= files and 5 * per_address < in_all
