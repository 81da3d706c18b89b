"""Local ranks for `ringside up`: N worker processes on this machine, watched.

If one dies, the process group is broken for all, so the whole group is
stopped and started again on a fresh rendezvous port, as torchrun's restarts
do; the cluster view shows the ranks go lost and come back. Workers run in
their own session (a terminal's Ctrl-C is ours to handle) and exit by
themselves if this process disappears.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

from .local import free_port

STOP_GRACE_S = 5.0


class LocalWorkers:
    def __init__(self, n: int, server_url: str, token: str, backend: str | None = None, max_restarts: int = 20):
        self.n, self.server_url, self.token, self.backend = n, server_url, token, backend
        self.max_restarts = max_restarts
        self.restarts = 0
        self.procs: list[subprocess.Popen] = []
        self.lock = threading.Lock()

    def start(self) -> None:
        port = free_port()
        with self.lock:
            self.procs = [self._spawn(rank, port) for rank in range(self.n)]

    def _spawn(self, rank: int, port: int) -> subprocess.Popen:
        env = dict(os.environ, RANK=str(rank), WORLD_SIZE=str(self.n), LOCAL_RANK=str(rank), LOCAL_WORLD_SIZE=str(self.n),
                   MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), OMP_NUM_THREADS="1",
                   RINGSIDE_WORKER_TOKEN=self.token, RINGSIDE_PARENT_PID=str(os.getpid()))
        cmd = [sys.executable, "-m", "worker_agent", "--server", self.server_url]
        if self.backend:
            cmd += ["--backend", self.backend]
        return subprocess.Popen(cmd, env=env, start_new_session=True, stdin=subprocess.DEVNULL)

    def pids(self) -> list[int]:
        with self.lock:
            return [p.pid for p in self.procs]

    def watch(self, stopping: threading.Event, say=print) -> None:
        """Until `stopping` is set: restart the group whenever a rank exits."""
        while not stopping.wait(0.5):
            with self.lock:
                dead = [(r, p.returncode) for r, p in enumerate(self.procs) if p.poll() is not None]
            if not dead:
                continue
            if self.restarts >= self.max_restarts:
                say(f"ringside: rank {dead[0][0]} exited ({dead[0][1]}); {self.max_restarts} restarts used up, not restarting")
                return
            self.restarts += 1
            say(f"ringside: rank {dead[0][0]} exited ({dead[0][1]}); restarting the group (restart {self.restarts})")
            self.stop()
            if not stopping.is_set():
                self.start()

    def stop(self) -> None:
        with self.lock:
            procs, self.procs = self.procs, []
        for p in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE_S
        for p in procs:
            try:
                p.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
