"""Local ranks for `ringside up`: N worker processes on this machine, watched.

A group broken by a fault its ranks survive (a run's injected hang, a timeout) is built again
inside the ranks (server_link.py). If a rank dies, the process group is broken for all, so the
whole group is stopped and started again on a fresh rendezvous port, as torchrun's restarts
do; the cluster view shows the ranks go lost and come back. Crashes may restart
the group RESTARTS_PER_WINDOW times in any RESTART_WINDOW_S (a crash loop stops there
until the window lets it go on). Ranks fork from
a server that has imported torch once (`local.rank_processes`), so a group
starts, and restarts, in well under the time one torch import takes per rank.
Workers run in their own session (a terminal's Ctrl-C is ours to handle) and
exit by themselves if this process disappears.

The world grows or shrinks in place (`resize`, which the server's cluster/resize.py drives): the
ranks it keeps are told their place in the new world and build its group among themselves and the
ranks started for it, on a fresh rendezvous port; the ranks beyond it are told to exit, and stopped
if they do not. A restart after that starts the new number of ranks.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import secrets
import sys
import threading
import time
from collections import deque
from collections.abc import Sequence
from multiprocessing.process import BaseProcess
from pathlib import Path

from ..clients.trust import CA_VARIABLE
from ..core.protocol import Resize
from .local import free_port, rank_processes

STOP_GRACE_S = 5.0
RESTARTS_PER_WINDOW, RESTART_WINDOW_S = 20, 600.0
# a node's name where it is not the machine's (process_group.py): `up --nodes N` lays one machine's ranks out
NODE_VARIABLE = "RINGSIDE_NODE"
EXIT_BROKEN_GROUP = 3  # a rank's exit code when its group broke and could not be built again (server_link.py)


class RestartBudget:
    """Restarts allowed in any window of `window_s` seconds."""

    def __init__(self, allowed: int = RESTARTS_PER_WINDOW, window_s: float = RESTART_WINDOW_S):
        self.allowed, self.window_s = allowed, window_s
        self.spent: deque[float] = deque()

    def spend(self, now: float) -> bool:
        """Take one restart at `now` if the window has one left."""
        while self.spent and self.spent[0] <= now - self.window_s:
            self.spent.popleft()
        if len(self.spent) >= self.allowed:
            return False
        self.spent.append(now)
        return True

    def free_in(self, now: float) -> float:
        """Seconds until the next restart is allowed."""
        return max(0.0, self.spent[0] + self.window_s - now) if len(self.spent) >= self.allowed else 0.0


class LocalWorkers:
    def __init__(
        self,
        n: int,
        server_url: str,
        token: str,
        backend: str | None = None,
        budget: RestartBudget | None = None,
        algorithms: Sequence[str] = (),
        server_ca: str | None = None,
        nodes: int = 1,
        max_ranks: int | None = None,
    ):
        """`server_ca`: the certificate a server on https serves, which the ranks trust (clients/trust.py);
        `nodes`: how many nodes the ranks are laid out as (environment()); `max_ranks`: the most
        a resize may grow the world to (at least n)."""
        if nodes < 1 or n % nodes:
            raise ValueError(f"{n} ranks do not split into {nodes} equal nodes")
        self.n, self.server_url, self.token, self.backend, self.nodes = n, server_url, token, backend, nodes
        self.max_ranks = max(n, max_ranks or n)
        self.server_ca = server_ca
        self.algorithms = [str(Path(a).resolve()) for a in algorithms]  # users' files, which every rank loads
        self.budget = budget or RestartBudget()
        self.restarts = 0
        self.key = secrets.token_hex(16)  # one world across restarts: its slots stay its own (cluster.py)
        self.procs: list[BaseProcess] = []
        self.lock = threading.Lock()  # over procs
        self.changing = threading.Lock()  # over a restart or a resize: the one waits for the other

    def start(self) -> None:
        port = free_port()
        with self.lock:
            self.procs = [self._spawn(rank, port) for rank in range(self.n)]

    def splits(self, n: int) -> str | None:
        """Why the world cannot have n ranks laid out as its nodes, or None."""
        if n >= self.nodes and n % self.nodes == 0:
            return None
        return f"{n} ranks do not split into {self.nodes} equal nodes (up --nodes {self.nodes})"

    def resize(self, n: int) -> tuple[dict[int, Resize], list[BaseProcess]]:
        """Start the ranks a world of n lacks, on a fresh rendezvous port, and hand back each running
        rank's order (Resize: the new world's place for one it keeps, an exit for one beyond it) with
        the processes it leaves (retire() stops them once they have had their order). A restart waits
        for it (`changing`). Call it between jobs, while the caller keeps the cluster for itself."""
        if self.splits(n):
            raise ValueError(self.splits(n))
        port = free_port()
        with self.changing, self.lock:
            old = self.n
            self.n = n  # environment() lays the new world out
            orders = {r: self.order(r, port) for r in range(len(self.procs))}
            kept, leaving = self.procs[:n], self.procs[n:]
            self.procs = kept + [self._spawn(rank, port) for rank in range(old, n)]
        return orders, leaving

    def order(self, rank: int, port: int) -> Resize:
        """Rank's place in the world of self.n ranks meeting at `port`."""
        env = self.environment(rank, port)
        return Resize(
            world_size=self.n,
            master_port=port,
            local_rank=int(env["LOCAL_RANK"]),
            local_world_size=int(env["LOCAL_WORLD_SIZE"]),
            node=env.get(NODE_VARIABLE),
        )

    @staticmethod
    def retire(leaving: list[BaseProcess]) -> None:
        """The ranks beyond a shrunk world: gone by themselves once told, else stopped."""
        deadline = time.monotonic() + STOP_GRACE_S
        for p in leaving:
            p.join(max(0.1, deadline - time.monotonic()))
        _stop(leaving)

    def _spawn(self, rank: int, port: int) -> BaseProcess:
        args = (rank, self.environment(rank, port), self.server_url, self.backend, self.algorithms)
        p = rank_processes().Process(target=_serve_rank, args=args, name=f"rank {rank}")
        p.start()
        return p

    def environment(self, rank: int, port: int) -> dict[str, str]:
        """torchrun's variables for `rank`, and Ringside's. With several nodes, each a block of
        consecutive ranks as torchrun numbers them, named node0, node1, ...: on one machine, the
        seeds' terms (node, local rank, global rank) are the lesson, not the machines."""
        per_node = self.n // self.nodes
        env = {
            "RANK": str(rank),
            "WORLD_SIZE": str(self.n),
            "LOCAL_RANK": str(rank % per_node),
            "LOCAL_WORLD_SIZE": str(per_node),
            "GROUP_RANK": str(rank // per_node),
            # a loopback MASTER_ADDR: the store, gloo and NCCL listen on loopback alone (process_group.py)
            "MASTER_ADDR": "127.0.0.1",
            "MASTER_PORT": str(port),
            "OMP_NUM_THREADS": "1",
            "RINGSIDE_WORKER_TOKEN": self.token,
            "RINGSIDE_WORLD_KEY": self.key,
            "RINGSIDE_LAUNCHER": "ringside up",
        }
        if self.nodes > 1:
            env[NODE_VARIABLE] = f"node{rank // per_node}"
        if self.server_ca:
            env[CA_VARIABLE] = self.server_ca
        return env

    def watch(self, stopping: threading.Event, say=print) -> None:
        """Until `stopping` is set: restart the group whenever a rank exits, within the budget."""
        waiting = False  # said that the budget is spent, and waiting for the window
        while not stopping.wait(0.5):
            with self.lock:
                dead = [(r, p.exitcode) for r, p in enumerate(self.procs) if p.exitcode is not None]
            if not dead:
                continue
            if not self.budget.spend(time.monotonic()):
                if not waiting:
                    say(
                        f"ringside: rank {dead[0][0]} exited ({dead[0][1]}); {self.budget.allowed} restarts "
                        f"in {self.budget.window_s:g} s used up, restarting in "
                        f"{self.budget.free_in(time.monotonic()):.0f} s"
                    )
                waiting = True
                continue
            waiting = False
            self.restarts += 1
            say(
                f"ringside: rank {dead[0][0]} exited ({dead[0][1]}); restarting the group "
                f"(restart {self.restarts})"
            )
            with self.changing:
                self.stop()
                if not stopping.is_set():
                    self.start()

    def stop(self) -> None:
        with self.lock:
            procs, self.procs = self.procs, []
        _stop(procs)


def _stop(procs: list[BaseProcess]) -> None:
    """Terminate them, and kill those still there after STOP_GRACE_S."""
    for p in procs:
        if p.exitcode is None:
            p.terminate()
    deadline = time.monotonic() + STOP_GRACE_S
    for p in procs:
        p.join(max(0.1, deadline - time.monotonic()))
        if p.exitcode is None:
            p.kill()
            p.join()


def _serve_rank(
    rank: int, env: dict[str, str], server_url: str, backend: str | None, algorithms: list[str]
) -> None:
    """One rank, in its forked process: its environment (LocalWorkers.environment), one thread for
    torch (the ranks share the cores), then `ringside worker --server`."""
    if hasattr(os, "setsid"):  # POSIX: out of the terminal's process group
        os.setsid()
    # forked ranks share the fork server's command line; name them for ps and top
    with contextlib.suppress(OSError):
        Path("/proc/self/comm").write_text(f"ringside-r{rank}")
    os.environ.update(env)
    threading.Thread(target=_exit_with_parent, daemon=True).start()
    import torch

    from ..cli import main

    torch.set_num_threads(1)
    files = [flag for path in algorithms for flag in ("--algorithms", path)]
    sys.exit(main(["worker", "--server", server_url, *(["--backend", backend] if backend else []), *files]))


def _exit_with_parent() -> None:
    """Leave no process behind: when `ringside up` is gone, however it went, so is this rank."""
    parent = multiprocessing.parent_process()
    if parent is None:  # not a process that multiprocessing started: no parent to follow
        return
    parent.join()
    os._exit(0)
