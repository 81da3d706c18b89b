"""A server that others can reach, and clients that misbehave: a page on another name
(DNS rebinding), bodies that are huge or not JSON, a server bound beyond loopback, the
ranks' own listening sockets, and a worker that claims an enormous world. Real servers
on loopback, real HTTP and websocket clients."""

from __future__ import annotations

import contextlib
import http.client
import ipaddress
import json
import re
import signal
import socket
import subprocess
import time
import urllib.request

import psutil
import pytest
from server_helpers import PRESENTER_TOKEN, WORKER_TOKEN, messages, start_serve, start_up
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from ringside.server.operate.tokens import VIEWER
from ringside.worker_agent.clients.harness import CLI, printed_token
from ringside.worker_agent.core.protocol import PROTOCOL_VERSION
from ringside.worker_agent.rank.local import free_port

PROXY = "ringside.test"  # a name given with --allow-host, as a proxy in front would use
MiB = 1 << 20


@pytest.fixture(scope="module")
def serve(tmp_path_factory):
    server = start_serve(tmp_path_factory.mktemp("exposed"))
    yield server
    server.stop()


@pytest.fixture(scope="module")
def proxied(tmp_path_factory):
    """A server that also answers to PROXY."""
    server = start_serve(tmp_path_factory.mktemp("proxied"), "--allow-host", PROXY)
    yield server
    server.stop()


def port_of(server) -> int:
    return int(server.url.rsplit(":", 1)[1])


def request(
    server,
    method: str,
    path: str,
    body: bytes | None = None,
    token: str | None = None,
    host: str | None = None,
    chunked: bool = False,
    headers=None,
) -> tuple[int, bytes]:
    """One request on a fresh connection; host: the Host header to send (default: the server's own)."""
    conn = http.client.HTTPConnection("127.0.0.1", port_of(server), timeout=30)
    hdrs = {
        "Content-Type": "application/json",
        **({"Authorization": f"Bearer {token}"} if token else {}),
        **(headers or {}),
    }
    if host is not None:
        hdrs["Host"] = host
    if chunked:
        pieces = (body[i : i + 65536] for i in range(0, len(body), 65536))
        conn.request(method, path, body=pieces, headers=hdrs, encode_chunked=True)
    else:
        conn.request(method, path, body=body, headers=hdrs)
    response = conn.getresponse()
    try:
        return response.status, response.read()
    finally:
        conn.close()


def detail(raw: bytes) -> dict:
    return json.loads(raw)["detail"]


def ws_as(server, host: str, path: str = "/ws", origin: str | None = None):
    """A websocket opened on this server's port, but for `host` (as a rebound name would be)."""
    sock = socket.create_connection(("127.0.0.1", port_of(server)))
    return connect(f"ws://{host}{path}", sock=sock, origin=origin, open_timeout=10)


# --- 1. Host check ------------------------------------------------------------------------------


def test_a_request_for_another_name_is_refused(serve):
    port = port_of(serve)
    evil = f"evil.example:{port}"
    for path in ("/api/cluster", "/api/runs", "/api/health", "/"):
        status, raw = request(serve, "GET", path, host=evil, headers={"Origin": f"http://{evil}"})
        assert status == 403 and detail(raw)["field"] == "host" and b"evil" not in raw, (path, status, raw)
    for own in (
        f"127.0.0.1:{port}",
        f"localhost:{port}",
        f"[::1]:{port}",
        f"LOCALHOST:{port}",
        "localhost:9999",
    ):
        assert request(serve, "GET", "/api/cluster", host=own)[0] == 200, own
    assert request(serve, "GET", "/api/cluster", host=f"{PROXY}:{port}")[0] == 403, (
        "only names given with --allow-host"
    )

    with pytest.raises(InvalidStatus) as refused:  # the viewer websocket, with a matching Origin
        ws_as(serve, evil, origin=f"http://{evil}")
    assert (
        refused.value.response.status_code == 403 and detail(refused.value.response.body)["field"] == "host"
    )
    with pytest.raises(InvalidStatus):
        ws_as(serve, evil, f"/ws/worker?token={WORKER_TOKEN}")
    with ws_as(serve, f"localhost:{port}", origin=f"http://localhost:{port}") as ws:
        assert messages(ws.recv(timeout=10))[0]["type"] == "snapshot"


def test_names_given_with_allow_host_are_the_servers_own(proxied):
    port = port_of(proxied)
    for own in (f"{PROXY}:{port}", PROXY, f"localhost:{port}"):
        assert request(proxied, "GET", "/api/cluster", host=own)[0] == 200, own
    assert request(proxied, "GET", "/api/cluster", host=f"evil.example:{port}")[0] == 403
    with ws_as(proxied, f"{PROXY}:{port}", origin=f"http://{PROXY}:{port}") as ws:
        assert messages(ws.recv(timeout=10))[0]["type"] == "snapshot"
    # a TLS proxy that passes on the server's Host
    with ws_as(proxied, f"127.0.0.1:{port}", origin=f"https://{PROXY}") as ws:
        assert messages(ws.recv(timeout=10))[0]["type"] == "snapshot"
    with pytest.raises(InvalidStatus):
        ws_as(proxied, f"127.0.0.1:{port}", origin="https://evil.example")


# --- 2. Bodies ----------------------------------------------------------------------------------


def test_the_token_is_checked_before_the_body_is_read(serve):
    garbage, huge = b"{not json", b'{"collective":"all_reduce","algorithm":"' + b"x" * (64 * MiB) + b'"}'
    for path in ("/api/runs", "/api/runs/r-000001/cancel"):
        for body in (garbage, huge):
            began = time.monotonic()
            status, raw = request(serve, "POST", path, body)
            assert status == 401 and detail(raw)["field"] == "token", (path, status, raw[:200])
            assert request(serve, "POST", path, body, token="wrong")[0] == 403
            assert time.monotonic() - began < 5
    assert request(serve, "POST", "/api/runs", huge, token=PRESENTER_TOKEN, chunked=True)[0] == 413


def test_bodies_over_the_cap_are_refused_before_they_are_read(serve):
    big = b'{"collective":"all_reduce","algorithm":"' + b"x" * (2 * MiB) + b'"}'
    for chunked in (False, True):  # a declared length, and a chunked body that declares none
        status, raw = request(serve, "POST", "/api/runs", big, token=PRESENTER_TOKEN, chunked=chunked)
        assert status == 413 and detail(raw)["field"] == "body" and len(raw) < 300, (
            chunked,
            status,
            raw[:200],
        )
    rss = psutil.Process(serve.proc.pid).memory_info().rss
    assert rss < 400 * MiB, f"server RSS {rss >> 20} MiB"


@pytest.mark.parametrize(
    "body,words",
    [
        (b'{"collective":"all_reduce","count":' + b"9" * 5000 + b"}", "digits"),
        (b'{"collective":"all_reduce","algorithm":"\xff\xfe"}', "UTF-8"),
        (b"[" * 100_000 + b"]" * 100_000, "nested"),
        (b'{"a":' * 50_000 + b"1" + b"}" * 50_000, "nested"),
        (b'{"collective":"all_reduce",', "not JSON"),
        (b'{"collective":"all_reduce","timeout":NaN}', "NaN"),
        (b'{"collective":"all_reduce","timeout":1e999}', "too large"),
    ],
)
def test_an_unparsable_body_gets_a_4xx_that_says_what_is_wrong(serve, body, words):
    status, raw = request(serve, "POST", "/api/runs", body, token=PRESENTER_TOKEN)
    assert status == 422 and detail(raw)["field"] == "body" and words in detail(raw)["message"], raw[:300]
    assert len(raw) < 300


def test_an_error_never_echoes_an_unbounded_input(serve):
    for body in ({"collective": "all_reduce", "k" * 100_000: 1}, {"collective": "c" * 100_000}):
        status, raw = request(serve, "POST", "/api/runs", json.dumps(body).encode(), token=PRESENTER_TOKEN)
        assert status == 422 and len(raw) < 1000, (status, len(raw))


def stall(server) -> socket.socket:
    """A run's request, with the token, that says a body of 100 bytes comes, sends one, and waits."""
    sock = socket.create_connection(("127.0.0.1", port_of(server)), timeout=60)
    sock.sendall(
        b"POST /api/runs HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nAuthorization: Bearer %s\r\n"
        b"Content-Length: 100\r\n\r\nx" % (port_of(server), PRESENTER_TOKEN.encode())
    )
    return sock


@pytest.mark.slow  # waits out the body deadline
def test_a_trickled_body_is_cut_off_and_cannot_hold_up_a_shutdown(tmp_path):
    server = start_serve(tmp_path)
    try:
        with stall(server) as waiting:
            answer = waiting.recv(4096)
            while not answer.endswith(b"}") and (more := waiting.recv(4096)):
                answer += more
        assert (
            answer.startswith(b"HTTP/1.1 408")
            and b'"field": "body"' in answer
            and b"did not arrive" in answer
        ), answer
        with stall(server):  # Ctrl-C with a request still waiting for its body: the server stops all the same
            time.sleep(0.5)
            server.proc.send_signal(signal.SIGINT)
            assert server.proc.wait(timeout=40) == 0
    finally:
        server.stop()


# --- 3. Beyond loopback -------------------------------------------------------------------------


def network_urls(log: str) -> list[str]:
    """The links printed for other machines: those whose host is not a loopback address."""
    found = re.findall(r"(http://\[?[0-9a-fA-F.:]+\]?:\d+/\S*)", log)
    host = re.compile(r"http://\[?([^\]/]+?)\]?:\d+")
    return [u for u in found if not ipaddress.ip_address(host.match(u).group(1)).is_loopback]


def test_serve_beyond_loopback_warns_and_needs_a_viewer_token(tmp_path):
    server = start_serve(tmp_path, "--host", "0.0.0.0")
    try:
        log = (tmp_path / f"serve-{port_of(server)}.log").read_text()
        assert "WARNING" in log and "0.0.0.0" in log, log
        assert request(server, "GET", "/api/cluster")[0] == 401, (
            "watching takes a token once others can reach the server"
        )
        assert request(server, "GET", "/api/cluster", token=PRESENTER_TOKEN)[0] == 200
        links = network_urls(log)
        if not [
            a
            for addrs in psutil.net_if_addrs().values()
            for a in addrs
            if a.family == socket.AF_INET and not a.address.startswith("127.")
        ]:
            pytest.skip("this machine has no network address to print")
        assert links and all("?token=" in u for u in links), log
        viewer = printed_token(log, links[0].split("?token=")[1], VIEWER)  # output to a file: in the tokens'
        with urllib.request.urlopen(links[0].split("?")[0] + f"api/cluster?token={viewer}", timeout=10) as r:
            # from the printed address: its Host is that address, which the server answers to
            assert r.status == 200
    finally:
        server.stop()


def test_the_api_docs_and_schema_take_the_viewer_token_beyond_loopback(tmp_path):
    """Exposed, the docs and the schema are watching: a token opens them, none does not; the
    docs ask for the schema with the token the page came with."""
    viewer = "v" * 22
    server = start_serve(tmp_path, "--host", "0.0.0.0", env={"RINGSIDE_VIEWER_TOKEN": viewer})
    try:
        for path in ("/docs", "/openapi.json"):
            assert request(server, "GET", path)[0] == 401, path
            assert request(server, "GET", path, token=viewer)[0] == 200, path
        status, page = request(server, "GET", f"/docs?token={viewer}")
        assert status == 200 and f"/openapi.json?token={viewer}".encode() in page
        assert (
            json.loads(request(server, "GET", "/openapi.json", token=viewer)[1])["info"]["title"]
            == "Ringside"
        )
    finally:
        server.stop()


def test_every_answer_says_its_type_is_meant_and_no_site_may_frame_it(tmp_path):
    server = start_serve(tmp_path)
    try:
        for path, host in (
            ("/", None),
            ("/api/health", None),
            ("/docs", None),
            ("/api/runs", "evil.example"),
        ):
            conn = http.client.HTTPConnection("127.0.0.1", port_of(server), timeout=30)
            conn.request("GET", path, headers={"Host": host} if host else {})
            answer = conn.getresponse()
            answer.read()
            conn.close()
            assert answer.getheader("X-Content-Type-Options") == "nosniff", (path, answer.status)
            assert answer.getheader("X-Frame-Options") == "DENY", path
            policy = answer.getheader("Content-Security-Policy")
            csp = dict(d.strip().split(" ", 1) for d in policy.split(";"))
            assert csp["frame-ancestors"] == "'none'" and csp["object-src"] == "'none'", path
            assert csp["script-src"].startswith("'self' 'sha256-"), "only served scripts and the import map"
    finally:
        server.stop()


def test_open_viewing_waives_the_viewer_token(tmp_path):
    server = start_serve(tmp_path, "--host", "0.0.0.0", "--open-viewing")
    try:
        log = (tmp_path / f"serve-{port_of(server)}.log").read_text()
        assert "WARNING" in log and "--open-viewing" in log
        assert request(server, "GET", "/api/cluster")[0] == 200
    finally:
        server.stop()


def test_up_beyond_loopback_warns_and_its_audience_link_carries_the_viewer_token(tmp_path):
    port = free_port()
    log = tmp_path / "up.log"
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [
                *CLI,
                "up",
                "--ranks",
                "1",
                "--host",
                "0.0.0.0",
                "--port",
                str(port),
                "--db",
                str(tmp_path / "runs.db"),
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 120
        while "Ctrl-C stops everything" not in log.read_text():
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.1)
        text = log.read_text()
        assert "WARNING" in text
        audience = re.search(r"audience \(watch only\): +(\S+)", text).group(1)
        assert "?token=" in audience, text
        token = printed_token(text, audience.split("?token=")[1], VIEWER)  # output to a file: in the tokens'
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/cluster?token={token}", timeout=10) as r:
            assert json.load(r)["world_size"] == 1
    finally:
        proc.terminate()
        proc.wait(timeout=30)


# --- 4. The ranks' own doors --------------------------------------------------------------------


def test_local_ranks_listen_on_loopback_only(tmp_path):
    up = start_up(tmp_path, ranks=2)
    try:
        # gloo's pairs are up
        assert up.run(collective="all_reduce", algorithm="ring", count=8)["verified"] is True
        pids = [up.proc.pid, *up.descendants()]
        ranks = {r["pid"] for r in up.cluster()["ranks"]}
        assert ranks <= set(pids)
        listening = [
            (pid, c.laddr.ip, c.laddr.port)
            for pid in pids
            for c in psutil.Process(pid).net_connections("inet")
            if c.status == psutil.CONN_LISTEN
        ]
        assert {pid for pid, _, _ in listening} & ranks, "rank 0 holds the rendezvous store"
        exposed = [x for x in listening if not ipaddress.ip_address(x[1].removeprefix("::ffff:")).is_loopback]
        assert exposed == [], f"listening beyond loopback: {exposed}"
    finally:
        up.stop()


# --- 5. World-size claims -----------------------------------------------------------------------


@pytest.fixture
def sockets():
    with contextlib.ExitStack() as stack:
        yield stack


def hello(serve, sockets, rank: int, world_size: int, **fields):
    """A worker websocket that has said hello: (the socket, None), or (None, the close's (code, reason))."""
    ws = sockets.enter_context(connect(serve.ws_url(f"/ws/worker?token={WORKER_TOKEN}")))
    ws.send(
        json.dumps(
            {
                "type": "hello",
                "v": PROTOCOL_VERSION,
                "rank": rank,
                "world_size": world_size,
                "host": "claim",
                "pid": 1,
                "backend": "gloo",
                "device": "cpu",
                "torch_version": "x",
                **fields,
            }
        )
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:  # a busy machine may take seconds to answer either way
        try:
            ws.recv(timeout=0.1)
        except TimeoutError:  # a rank hears nothing until a run: it is accepted once the cluster lists it
            if any(
                r["rank"] == rank and r["host"] == "claim" and r["status"] != "lost"
                for r in serve.cluster()["ranks"]
            ):
                return ws, None
            continue
        except ConnectionClosed as e:
            return None, (e.rcvd.code, e.rcvd.reason)
        raise AssertionError("a rank heard something before any run")
    raise AssertionError(f"rank {rank}'s hello was neither refused nor listed within 30 s")


def world_size(serve) -> int:
    return serve.call("GET", "/api/health")[1]["world_size"]


def wait_for(check, timeout: float = 10) -> bool:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_world_size_and_rank_claims_are_bounded(serve, sockets):
    for claim in (
        {"world_size": 10**7},
        {"world_size": 0},
        {"rank": 4096, "world_size": 4096},
        {"host": "h" * 10_000},
        {"local_rank": 10**12},
    ):
        ws, closed = hello(serve, sockets, **{"rank": 0, "world_size": 2, **claim})
        assert ws is None and closed[0] == 4409 and len(closed[1]) <= 123, (claim, closed)
    assert "4096" in hello(serve, sockets, 0, 10**7)[1][1]
    assert world_size(serve) == 0


def test_a_claimed_world_is_forgotten_when_its_ranks_are_gone(serve, sockets):
    ws, _ = hello(serve, sockets, 5, 4096)
    assert ws is not None and world_size(serve) == 4096
    ws.close()
    assert wait_for(lambda: world_size(serve) == 0), f"world size still {world_size(serve)}"

    # a world that was whole stays, its ranks shown lost
    whole = [hello(serve, sockets, r, 2)[0] for r in range(2)]
    for ws in whole:
        ws.close()
    assert wait_for(lambda: all(r["status"] == "lost" for r in serve.cluster()["ranks"]))
    assert world_size(serve) == 2 and len(serve.cluster()["ranks"]) == 2
