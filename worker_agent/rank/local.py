"""Run a function on P real ranks on this machine, each in its own process.

`run_ranks(fn, P, *args)` calls `fn(world, *args)` on every rank (world is a
process_group.World) and returns each rank's result, or the error it raised,
in rank order. Processes that outlive the timeout are killed, so a hang
becomes an error instead of a stall. `ringside bench` and the tests use it.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import queue
import random
import socket
import time
import traceback
from pathlib import Path

TIMEOUT = 120.0


PRELOAD = ["ringside.worker_agent.rank.server_link"]  # torch, torch.distributed and everything a rank runs


def rank_processes():
    """The multiprocessing context local ranks start from: a fork server that has
    imported torch and the worker once, so a rank starts in milliseconds instead of
    importing torch itself (over a second each, and P imports contend for the cores).
    Ranks fork from that clean server, never from the caller, which may run threads
    (the web server); the server never touches CUDA, so forked ranks can. Where there
    is no fork (Windows), each rank is spawned and imports torch itself."""
    if "forkserver" not in mp.get_all_start_methods():
        return mp.get_context("spawn")
    ctx = mp.get_context("forkserver")
    ctx.set_forkserver_preload(PRELOAD)
    return ctx


EPHEMERAL = Path("/proc/sys/net/ipv4/ip_local_port_range")  # where the kernel picks a connection's own port
BELOW_EPHEMERAL = 8192  # ports just below that range to choose from


def free_port() -> int:
    """A port no one listens on now, for a server or a rendezvous to listen on soon. Chosen below the
    kernel's ephemeral range where there is one: a port from that range (what binding port 0 gives) can
    be handed to some process's outgoing connection before the listener binds it, and on a busy
    machine one was."""
    below = range(max(1024, _ephemeral_low() - BELOW_EPHEMERAL), _ephemeral_low())
    for port in random.sample(below, min(64, len(below))):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _ephemeral_low() -> int:
    try:
        return int(EPHEMERAL.read_text().split()[0])
    except (OSError, ValueError, IndexError):  # not Linux
        return 0


class RankError(Exception):
    """An exception raised on a rank, carried back as text (torch's exceptions do not all pickle)."""

    def __init__(self, kind: str, message: str, trace: str):
        super().__init__(f"{kind}: {message}")
        self.kind, self.message, self.trace = kind, message, trace

    def __reduce__(self):  # it crosses a process queue: rebuilt from all three, not from str(self)
        return RankError, (self.kind, self.message, self.trace)


class Died:
    """A rank whose process ended without a result (killed, or crashed outright)."""

    def __init__(self, exitcode: int | None):
        self.exitcode = exitcode

    def __repr__(self) -> str:
        return f"Died(exitcode={self.exitcode})"


def _child(fn, rank, world_size, port, backend, timeout, args, results):
    # a loopback MASTER_ADDR keeps the store, gloo and NCCL listening on loopback alone (process_group.py)
    os.environ.update(
        RANK=str(rank),
        WORLD_SIZE=str(world_size),
        LOCAL_RANK=str(rank),
        LOCAL_WORLD_SIZE=str(world_size),
        MASTER_ADDR="127.0.0.1",
        MASTER_PORT=str(port),
    )
    import torch
    import torch.distributed as dist

    from .process_group import init_from_env

    torch.set_num_threads(1)  # P ranks share the cores, as under torchrun (OMP_NUM_THREADS=1)
    try:
        world = init_from_env(backend, timeout=timeout)
        results.put((rank, fn(world, *args)))
    except BaseException as e:  # noqa: BLE001 - everything goes back to the caller
        results.put((rank, RankError(type(e).__name__, str(e), traceback.format_exc())))
    finally:
        if dist.is_initialized():
            dist.destroy_process_group()


def run_ranks(
    fn,
    world_size: int,
    *args,
    timeout: float = TIMEOUT,
    pg_timeout: float = 30.0,
    on_start=None,
    backend: str | None = "gloo",
) -> list:
    ctx = rank_processes()
    results = ctx.Queue()
    port = free_port()
    procs = [
        ctx.Process(
            target=_child, daemon=True, args=(fn, r, world_size, port, backend, pg_timeout, args, results)
        )
        for r in range(world_size)
    ]
    for p in procs:
        p.start()
    if on_start is not None:
        on_start(procs)
    out: dict[int, object] = {}
    deadline = time.monotonic() + timeout
    try:
        while len(out) < world_size:
            try:
                rank, value = results.get(timeout=0.2)
                out[rank] = value
            except queue.Empty:
                for rank, p in enumerate(procs):  # a rank killed outright reports nothing
                    if rank not in out and not p.is_alive() and results.empty():
                        out[rank] = Died(p.exitcode)
                if time.monotonic() > deadline:
                    missing = sorted(set(range(world_size)) - set(out))
                    raise TimeoutError(f"ranks {missing} did not finish within {timeout} s") from None
    finally:
        for p in procs:
            p.join(timeout=10)
            if p.is_alive():
                p.kill()
    return [out[r] for r in range(world_size)]


def unwrap(results: list) -> list:
    """The results, raising the first rank's error with its traceback."""
    for r in results:
        if isinstance(r, (RankError, Died)):
            raise AssertionError(f"a rank failed: {r}\n{getattr(r, 'trace', '')}")
    return results
