"""A real `ringside up` (server + gloo worker processes) on a free loopback port; a real
`ringside serve` alone; and scripted ranks, real websocket clients that speak the worker
protocol from a script, for what a real rank will not do on demand (stay silent, never
finish, flood the server)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from websockets.sync.client import connect

from ringside.worker_agent.local import free_port
from ringside.worker_agent.protocol import PROTOCOL_VERSION


@dataclass
class Up:
    proc: subprocess.Popen
    url: str
    presenter: str
    db: Path
    log: list[str] = field(default_factory=list)

    def call(self, method: str, path: str, body=None, token: str | None = "presenter", headers=None):
        """(status, json body). token: 'presenter' for the presenter's, None for none, else that string."""
        token = self.presenter if token == "presenter" else token
        hdrs = {"Content-Type": "application/json", **({"Authorization": f"Bearer {token}"} if token else {}), **(headers or {})}
        data = body if isinstance(body, bytes) else (json.dumps(body).encode() if body is not None else None)
        request = urllib.request.Request(self.url + path, method=method, data=data, headers=hdrs)
        try:
            with urllib.request.urlopen(request, timeout=30) as r:
                raw = r.read()
                return r.status, (json.loads(raw) if r.headers.get_content_type() == "application/json" else raw.decode())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"null")

    def run(self, timeout: float = 120, **spec) -> dict:
        """Submit a run and wait for it to end; returns the Run JSON."""
        status, body = self.call("POST", "/api/runs", spec)
        assert status == 202, body
        return self.wait(body["id"], timeout)

    def wait(self, run_id: str, timeout: float = 120) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            _, run = self.call("GET", f"/api/runs/{run_id}")
            if run["state"] in ("done", "failed", "cancelled", "interrupted"):
                return run
            time.sleep(0.05)
        raise TimeoutError(f"run {run_id} did not end within {timeout} s")

    def cluster(self) -> dict:
        return self.call("GET", "/api/cluster")[1]

    def wait_ranks(self, n: int, timeout: float = 90, exclude_pids=()) -> dict:
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
            try:
                parent_of[int(stat.parent.name)] = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError):
                pass  # gone while we looked
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


def start_up(tmp: Path, ranks: int = 4, db: Path | None = None, timeout: float = 120, env=None) -> Up:
    port = free_port()
    db = db or tmp / "runs.db"
    log = tmp / f"up-{port}.log"
    proc = subprocess.Popen([sys.executable, "-m", "ringside.worker_agent.cli", "up", "--ranks", str(ranks), "--port", str(port), "--db", str(db)],
                            stdout=open(log, "w"), stderr=subprocess.STDOUT, env={**os.environ, **(env or {})})
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = log.read_text()
        m = re.search(r"presenter \(can run collectives\): (\S+)/\?token=(\S+)", text)
        if m:
            return Up(proc, m.group(1), m.group(2), db)
        if proc.poll() is not None:
            raise RuntimeError(f"ringside up exited ({proc.returncode}):\n{text}")
        time.sleep(0.1)
    proc.kill()
    raise TimeoutError(f"ringside up was not ready within {timeout} s:\n{log.read_text()}")


def messages(frame: str | bytes) -> list[dict]:
    """A viewer's frame holds one message or a JSON array of them."""
    data = json.loads(frame)
    return data if isinstance(data, list) else [data]


PRESENTER_TOKEN, WORKER_TOKEN = "presenter-token-for-tests", "worker-token-for-tests"


def start_serve(tmp: Path, *flags: str, port: int | None = None, timeout: float = 60, env=None) -> Up:
    """`ringside serve` with known tokens and no workers, ready once /api/health answers.
    Runs are kept in tmp/serve-PORT.db: a server started again on the same port finds them."""
    port = port or free_port()
    db = tmp / f"serve-{port}.db"
    log = tmp / f"serve-{port}.log"
    env = {**os.environ, "RINGSIDE_PRESENTER_TOKEN": PRESENTER_TOKEN, "RINGSIDE_WORKER_TOKEN": WORKER_TOKEN, **(env or {})}
    proc = subprocess.Popen([sys.executable, "-m", "ringside.worker_agent.cli", "serve", "--port", str(port), "--db", str(db), *flags],
                            stdout=open(log, "w"), stderr=subprocess.STDOUT, env=env)
    up = Up(proc, f"http://127.0.0.1:{port}", PRESENTER_TOKEN, db)
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


class ScriptedRank:
    """One rank on a real websocket: says hello, beats every 0.2 s while `beating` is set,
    and does with each run only what the test tells it to."""

    def __init__(self, server: Up, rank: int, world_size: int, pid: int | None = None, token: str = WORKER_TOKEN):
        self.rank, self.world_size = rank, world_size
        self.stack = contextlib.ExitStack()
        self.ws = self.stack.enter_context(connect(server.ws_url(f"/ws/worker?token={token}"), max_size=None))
        self.send(type="hello", world_size=world_size, local_rank=rank, host="scripted", pid=pid or 100_000 + rank,
                  backend="gloo", device="cpu", torch_version="scripted")
        self.beating, self.closed = threading.Event(), threading.Event()
        self.beating.set()
        threading.Thread(target=self._beat, daemon=True).start()

    def send(self, **message) -> None:
        self.ws.send(json.dumps({"v": PROTOCOL_VERSION, "rank": self.rank, **message}))

    def _beat(self) -> None:
        while not self.closed.wait(0.2):
            if self.beating.is_set():
                try:
                    self.send(type="heartbeat")
                except Exception:  # noqa: BLE001 - the socket went: nothing left to beat for
                    return

    def command(self, timeout: float = 30) -> dict:
        return json.loads(self.ws.recv(timeout=timeout))

    def start(self, command: dict) -> None:
        self.send(type="run_started", run_id=command["run_id"], group_rank=self.rank, spec=command["spec"])

    def step(self, command: dict, step: int, **fields) -> None:
        self.send(type="step", run_id=command["run_id"], step=step, phase="scripted", t0=step, t1=step + 0.5, **fields)

    def finish(self, command: dict, seconds: float = 0.001) -> None:
        self.send(type="run_finished", run_id=command["run_id"], verified=True,
                  timings={"iterations": [seconds] * command["spec"]["iterations"]})

    def close(self) -> None:
        self.closed.set()
        self.stack.close()
