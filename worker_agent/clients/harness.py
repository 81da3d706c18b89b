"""For tests, benchmarks and scripts: a real `ringside up` (server and gloo worker
processes) or `ringside serve` alone, on a free loopback port; calling its API; reading
its viewers' websocket frames; waiting for processes to be gone. Not used by the server
itself."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import psutil

from ringside.server.dispatch.job import JobState
from ringside.server.operate import tokens
from ringside.server.operate.tokens import PRESENTER
from ringside.worker_agent.rank.local import free_port

PRESENTER_TOKEN, WORKER_TOKEN = "presenter-token-for-tests", "worker-token-for-tests"
CLI = [sys.executable, "-m", "ringside.worker_agent.cli"]


@dataclass
class Up:
    """A started server: its process, URL and presenter token."""

    proc: subprocess.Popen
    url: str
    presenter: str
    db: Path
    log: Path | None = None  # where its stdout and stderr go

    def log_text(self) -> str:
        return self.log.read_text() if self.log else ""

    def call(self, method: str, path: str, body=None, token: str | None = "presenter", headers=None):
        """(status, json body). token: 'presenter' for the presenter's, None for none, else that string."""
        token = self.presenter if token == "presenter" else token
        hdrs = {
            "Content-Type": "application/json",
            **({"Authorization": f"Bearer {token}"} if token else {}),
            **(headers or {}),
        }
        data = body if isinstance(body, bytes) else (json.dumps(body).encode() if body is not None else None)
        request = urllib.request.Request(self.url + path, method=method, data=data, headers=hdrs)
        try:
            with urllib.request.urlopen(request, timeout=30) as r:
                raw = r.read()
                return r.status, (
                    json.loads(raw) if r.headers.get_content_type() == "application/json" else raw.decode()
                )
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"null")

    def run(self, timeout: float = 120, **spec) -> dict:
        """Submit a run and wait for it to end; returns the Run JSON."""
        status, body = self.call("POST", "/api/runs", spec)
        assert status == 202, body
        return self.wait(body["id"], timeout)

    def wait(self, run_id: str, timeout: float = 120) -> dict:
        """The Run JSON once the run has ended."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            _, run = self.call("GET", f"/api/runs/{run_id}")
            if JobState(run["state"]).ended:
                return run
            time.sleep(0.05)
        raise TimeoutError(f"run {run_id} did not end within {timeout} s")

    def cluster(self) -> dict:
        return self.call("GET", "/api/cluster")[1]

    def wait_ranks(self, n: int, timeout: float = 90, exclude_pids=()) -> dict:
        """The cluster once exactly n ranks (not among exclude_pids) are live."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            c = self.cluster()
            live = [r for r in c["ranks"] if r["status"] != "lost" and r["pid"] not in exclude_pids]
            if len(live) == n:
                return c
            time.sleep(0.1)
        raise TimeoutError(f"{n} ranks did not come up within {timeout} s: {self.cluster()}")

    def ws_url(self, path: str = "/ws") -> str:
        return self.url.replace("http://", "ws://", 1) + path

    def descendants(self) -> list[int]:
        """Every process this server started, and theirs: the ranks, the fork server they come from."""
        parent_of = {}
        for stat in Path("/proc").glob("[0-9]*/stat"):
            with contextlib.suppress(OSError, IndexError):  # gone while we looked
                parent_of[int(stat.parent.name)] = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        found, frontier = [], [self.proc.pid]
        while frontier:
            pid = frontier.pop()
            children = [child for child, parent in parent_of.items() if parent == pid]
            found += children
            frontier += children
        return found

    def stop(self, sig=signal.SIGINT, timeout: float = 30) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        return self.proc.wait(timeout=timeout)


def on_a_free_port(start, port: int | None, tries: int = 3) -> Up:
    """start(port) on `port`, or on a free one, and on another if it was taken before the server bound it
    (processes beside the tests pick free ports alike: torchrun's, another test's server)."""
    for left in range(tries - 1, -1, -1):
        try:
            return start(port or free_port())
        except RuntimeError as e:
            if port or not left or "in use" not in str(e):  # serve's check, or uvicorn's bind
                raise
    raise ValueError(f"tries must be at least 1, not {tries}")


def start_up(
    tmp: Path, ranks: int = 4, db: Path | None = None, timeout: float = 120, env=None, flags=()
) -> Up:
    """`ringside up --ranks N [flags]`, ready once it prints the presenter URL (every rank has said hello)."""
    return on_a_free_port(lambda port: _start_up(tmp, port, ranks, db, timeout, env, flags), None)


def _start_up(tmp: Path, port: int, ranks: int, db: Path | None, timeout: float, env, flags) -> Up:
    db = db or tmp / "runs.db"
    log = tmp / f"up-{port}.log"
    with open(log, "w") as out:  # the server writes to its own copy of the file
        proc = subprocess.Popen(
            [*CLI, "up", "--ranks", str(ranks), "--port", str(port), "--db", str(db), *flags],
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, **(env or {})},
        )
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = log.read_text()
        m = re.search(r"presenter \(can run collectives\): (\S+)/\?token=(\S+)", text)
        if m:
            return Up(proc, m.group(1), printed_token(text, m.group(2), PRESENTER), db, log)
        if proc.poll() is not None:
            raise RuntimeError(f"ringside up exited ({proc.returncode}):\n{text}")
        time.sleep(0.1)
    proc.kill()
    raise TimeoutError(f"ringside up was not ready within {timeout} s:\n{log.read_text()}")


def printed_token(printed: str, token: str, name: str) -> str:
    """A token as the start printed it: itself on a terminal; else `$NAME`, its value in the file
    named on the `tokens:` line (server/operate/tokens.py), since the output is no terminal here."""
    if not token.startswith("$"):
        return token
    file = re.search(r"tokens: +in (\S+) \(", printed)
    if file is None:
        raise ValueError(f"{token} printed, and no tokens' file named:\n{printed}")
    return tokens.read(Path(file.group(1)))[name]


def start_serve(tmp: Path, *flags: str, port: int | None = None, timeout: float = 60, env=None) -> Up:
    """`ringside serve` with known tokens and no workers, ready once /api/health answers.
    Runs are kept in tmp/serve-PORT.db: a server started again on the same port finds them."""
    return on_a_free_port(lambda port: _start_serve(tmp, port, flags, timeout, env), port)


def _start_serve(tmp: Path, port: int, flags, timeout: float, env) -> Up:
    db = tmp / f"serve-{port}.db"
    log = tmp / f"serve-{port}.log"
    env = {
        **os.environ,
        "RINGSIDE_PRESENTER_TOKEN": PRESENTER_TOKEN,
        "RINGSIDE_WORKER_TOKEN": WORKER_TOKEN,
        **(env or {}),
    }
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [*CLI, "serve", "--port", str(port), "--db", str(db), *flags],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
        )
    up = Up(proc, f"http://127.0.0.1:{port}", PRESENTER_TOKEN, db, log)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(up.url + "/api/health", timeout=1):
                return up
        except OSError:
            if proc.poll() is not None:
                raise RuntimeError(f"ringside serve exited ({proc.returncode}):\n{log.read_text()}") from None
            time.sleep(0.05)
    proc.kill()
    raise TimeoutError(f"ringside serve did not answer within {timeout} s:\n{log.read_text()}")


def messages(frame: str | bytes) -> list[dict]:
    """A viewer's frame holds one message or a JSON array of them (fanout.py)."""
    data = json.loads(frame)
    return data if isinstance(data, list) else [data]


def ended(message: dict, run_id: str) -> bool:
    """Whether this viewer message says that run `run_id` has ended."""
    return (
        message["type"] == "run_ended"
        and message["run"]["id"] == run_id
        or (
            message["type"] == "run"
            and message["run"]["id"] == run_id
            and JobState(message["run"]["state"]).ended
        )
    )


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is gone in all but name
        return open(f"/proc/{pid}/stat").read().split()[2] != "Z"
    except FileNotFoundError:
        return False


def wait_gone(pids, timeout: float = 20.0) -> list[int]:
    """The pids still alive after waiting up to `timeout` for all to exit."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and any(alive(p) for p in pids):
        time.sleep(0.1)
    return [p for p in pids if alive(p)]


# Debian's Chromium through Playwright (Playwright cannot download browsers everywhere);
# the flags keep it from calling home, which a closed network refuses many times a second.
CHROMIUM = os.environ.get("RINGSIDE_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


def launch_chromium(playwright, fonts: str | None = None):
    """A headless Chromium for page tests and benchmarks; `fonts`: a fontconfig file
    (FONTCONFIG_FILE) that chooses its fonts, else this machine's own."""
    env = {**os.environ, "FONTCONFIG_FILE": fonts} if fonts else None
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, env=env)


def stop_torchrun(proc: subprocess.Popen) -> None:
    """torchrun and its ranks, whatever state they are in: a stopped rank is let go on first (it
    would not hear the end), then torchrun is told to stop them. Its ranks are sessions of their
    own, so a signal to torchrun's process group does not reach them."""
    if proc.poll() is not None:
        return
    ranks = psutil.Process(proc.pid).children(recursive=True)
    for rank in ranks:
        with contextlib.suppress(psutil.Error):
            rank.send_signal(signal.SIGCONT)
    proc.terminate()
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        for rank in ranks:
            with contextlib.suppress(psutil.Error):
                rank.kill()
        proc.kill()
        proc.wait()
