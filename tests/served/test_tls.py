"""TLS without a proxy (`--certfile/--keyfile`): a real `ringside up` with a self-signed
certificate made here by openssl for `localhost` alone. Its local ranks join over wss (they dial
127.0.0.1, which the certificate does not name: they trust the file itself); a client that
trusts the certificate reads health and watches over https and wss; every link it prints and
hands the audience says https."""

from __future__ import annotations

import json
import os
import re
import ssl
import subprocess
import urllib.error
import urllib.request

import pytest
from certificate import self_signed
from server_helpers import messages, start_up
from websockets.sync.client import connect

from ringside.worker_agent.clients.harness import CLI
from ringside.worker_agent.clients.trust import CA_VARIABLE


@pytest.fixture(scope="module")
def certificate(tmp_path_factory):
    return self_signed(tmp_path_factory.mktemp("tls"))


@pytest.fixture(scope="module")
def served(tmp_path_factory, certificate):
    cert, key = certificate
    server = start_up(
        tmp_path_factory.mktemp("up"), ranks=2, flags=["--certfile", str(cert), "--keyfile", str(key)]
    )
    yield server
    server.stop()


def trusting(cert) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=str(cert))


def get(url: str, cert, token: str | None = None) -> dict:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"} if token else {})
    with urllib.request.urlopen(request, timeout=10, context=trusting(cert)) as r:
        return json.load(r)


def test_ranks_join_over_tls_and_a_client_that_trusts_the_certificate_reads_health(served, certificate):
    cert, _ = certificate
    port = served.url.rsplit(":", 1)[1]
    health = get(f"https://localhost:{port}/api/health", cert)
    assert health["status"] == "ok" and health["live_ranks"] == 2
    with pytest.raises(urllib.error.URLError, match="CERTIFICATE_VERIFY_FAILED"):
        urllib.request.urlopen(f"https://localhost:{port}/api/health", timeout=10)  # the system's trust alone
    with pytest.raises((urllib.error.URLError, ConnectionError)):
        urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=10)  # no plain HTTP beside it


def test_every_link_printed_and_handed_to_the_audience_says_https(served, certificate):
    cert, _ = certificate
    printed = served.log_text()
    links = re.findall(r"(?:presenter|audience)[^:]*:\s+(\S+://\S+)", printed)
    assert links and all(link.startswith("https://") for link in links), printed
    port = served.url.rsplit(":", 1)[1]
    lecture = get(f"https://localhost:{port}/api/lecture", cert, served.presenter)
    assert lecture["audience"] and all(link.startswith("https://") for link in lecture["audience"])
    assert lecture["qr_svg"].startswith("<svg")


def test_a_viewer_watches_over_wss(served, certificate):
    cert, _ = certificate
    port = served.url.rsplit(":", 1)[1]
    with connect(f"wss://localhost:{port}/ws", ssl=trusting(cert)) as viewer:
        snapshot = messages(viewer.recv(timeout=10))[0]
    assert snapshot["type"] == "snapshot" and len(snapshot["cluster"]["ranks"]) == 2


def test_ringside_run_trusts_the_certificate_in_ringside_server_ca(served, certificate):
    cert, _ = certificate
    port = served.url.rsplit(":", 1)[1]
    command = [
        *CLI,
        "run",
        "--server",
        f"https://localhost:{port}",
        "--collective",
        "all_reduce",
        "--count",
        "8",
    ]
    env = {**os.environ, "RINGSIDE_PRESENTER_TOKEN": served.presenter}
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=120, env={**env, CA_VARIABLE: str(cert)}
    )
    assert done.returncode == 0 and ": done" in done.stdout, done.stderr
    refused = subprocess.run(command, capture_output=True, text=True, timeout=60, env=env)
    assert refused.returncode != 0 and "CERTIFICATE_VERIFY_FAILED" in refused.stderr


@pytest.mark.parametrize(
    "flags, said",
    [
        (["--keyfile", "key.pem"], "--keyfile needs --certfile"),
        (["--certfile", "missing.pem"], "--certfile missing.pem: no such file"),
        (["--certfile", "{key}"], "not a certificate and its key"),
    ],
)
def test_a_certificate_that_cannot_serve_stops_the_start_saying_why(tmp_path, certificate, flags, said):
    flags = [f.format(key=certificate[1]) for f in flags]
    done = subprocess.run(
        [*CLI, "serve", "--port", "0", "--db", str(tmp_path / "runs.db"), *flags],
        capture_output=True, text=True, timeout=60, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode != 0
    assert said in done.stderr and "Traceback" not in done.stderr
