"""A real `ringside up` (server + gloo worker processes) on a free loopback port."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from worker_agent.local import free_port


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

    def worker_pids(self) -> list[int]:
        out = subprocess.run(["pgrep", "-f", f"worker_agent --server {self.url}"], capture_output=True, text=True)
        return [int(p) for p in out.stdout.split()]

    def stop(self, sig=signal.SIGINT, timeout: float = 30) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        return self.proc.wait(timeout=timeout)


def start_up(tmp: Path, ranks: int = 4, db: Path | None = None, timeout: float = 120, env=None) -> Up:
    port = free_port()
    db = db or tmp / "runs.db"
    log = tmp / f"up-{port}.log"
    proc = subprocess.Popen([sys.executable, "-m", "worker_agent.cli", "up", "--ranks", str(ranks), "--port", str(port), "--db", str(db)],
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
