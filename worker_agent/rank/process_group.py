"""This rank's place in the world: the process group, its device, its subgroups.

Reads torchrun's variables (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR,
MASTER_PORT), so `torchrun -m ringside.worker_agent` works on any number of nodes.

Ranks that meet on a loopback MASTER_ADDR (`ringside up`, `ringside bench`, the tests)
are all on this machine, so nothing of theirs listens beyond loopback: torch's own
rendezvous store would listen on every interface, where anyone on the network could
read, set and delete its keys, and gloo and NCCL would listen on the address of the
host name or of the first network interface.

A group broken by a fault (a hang that a run asked for, a peer that timed out) is built
again in process, never by restarting the rank, so a torchrun job with torchrun's
default settings (no restarts) survives it: the rank that broke it says so on the store
the ranks met on (`broken`), every rank sees that (`regroup_asked`: the failed ones at
once, the others between commands) and joins a fresh group under the next generation's
prefix of that store (`regroup`). The store outlives the group: torchrun's agent holds
it, or rank 0 does (a loopback rendezvous, or MASTER_ADDR set by hand), and every rank
of a broken group is still alive.
"""

from __future__ import annotations

import contextlib
import gc
import ipaddress
import os
import secrets
import socket
from dataclasses import dataclass, field
from datetime import timedelta

import torch
import torch.distributed as dist

from ..core.protocol import Hello, Resize
from .launch import NODE_VARIABLE

DEFAULT_TIMEOUT = 30.0
GENERATION_KEY = "ringside/generation"  # on the store: the generation every rank is to be in
WORLD_KEY = "ringside/world_key"  # on the store: the secret that proves a rank is of this world


@dataclass
class World:
    rank: int
    world_size: int
    local_rank: int
    backend: str
    device: torch.device
    store: dist.Store = field(repr=False)  # where the ranks meet, for every generation
    host: str = field(default_factory=lambda: os.environ.get(NODE_VARIABLE) or socket.gethostname())
    pid: int = field(default_factory=os.getpid)
    local_world_size: int = 1
    master: str = ""  # MASTER_ADDR:MASTER_PORT
    launcher: str = ""
    timeout: float = DEFAULT_TIMEOUT
    generation: int = 0  # groups built so far, less one: the first is 0
    loopback: bool = False  # it met the others on a loopback store of its own (rank 0's): it may resize
    _groups: dict[tuple[int, ...], dist.ProcessGroup] = field(default_factory=dict, repr=False)

    def join(self) -> None:
        """Build this generation's group with the others, under a prefix of its own on the store
        (a group's keys, its name among them, would otherwise be the last generation's)."""
        dist.init_process_group(
            self.backend,
            rank=self.rank,
            world_size=self.world_size,
            timeout=timedelta(seconds=self.timeout),
            store=dist.PrefixStore(f"ringside/{self.generation}/", self.store),
            device_id=self.device if self.backend == "nccl" else None,
        )

    def broken(self) -> None:
        """Tell every rank that this generation's group is broken: each will regroup. Said before
        the failure is reported, so a rank sent the next command after it asks and hears it."""
        # the store gone with its host is not an error here: regroup() will say so
        with contextlib.suppress(RuntimeError, OSError):
            self.store.set(GENERATION_KEY, str(self.generation + 1))

    def regroup_asked(self) -> bool:
        """Whether some rank has broken this generation's group (cheap: a look or two at the store)."""
        try:
            if not self.store.check([GENERATION_KEY]):
                return False
            return int(self.store.get(GENERATION_KEY)) > self.generation
        except (RuntimeError, OSError):  # the store's host has left (a shutdown): nothing to join
            return False

    def regroup(self) -> None:
        """Leave the broken group (which frees gloo ops still waiting on a peer) and join the next
        generation's with every other rank. Raises if they do not all come within the timeout."""
        self.broken()
        self.leave()
        self.generation += 1
        self.join()

    def resize(self, order: Resize) -> None:
        """Take the place `order` gives in a new world on this machine: leave this group, meet the
        others on a fresh loopback store at the order's port (rank 0 serves it) and build the new
        world's group. Only a world that met on loopback (`ringside up`'s) is resized: torchrun's
        agent holds the store of any other. Raises if the others do not all come within the timeout."""
        if not self.loopback:
            raise RuntimeError("this rank's world did not meet on a loopback store of its own: not resized")
        self.leave()
        per_node, node = order.local_world_size, order.node
        os.environ.update(
            WORLD_SIZE=str(order.world_size),
            MASTER_PORT=str(order.master_port),
            LOCAL_RANK=str(order.local_rank),
            LOCAL_WORLD_SIZE=str(per_node),
            GROUP_RANK=str(self.rank // per_node),
        )
        if node:
            os.environ[NODE_VARIABLE] = node
        self.world_size, self.local_rank, self.local_world_size = order.world_size, order.local_rank, per_node
        self.host = node or os.environ.get(NODE_VARIABLE) or socket.gethostname()
        self.master = f"{os.environ['MASTER_ADDR']}:{order.master_port}"
        if self.backend == "nccl":
            self.device = torch.device("cuda", order.local_rank % torch.cuda.device_count())
            torch.cuda.set_device(self.device)
        self.store = _store(self.rank, order.world_size, self.timeout)  # the last one's goes with it
        self.generation = 0
        self.join()

    def close(self) -> None:
        """Leave the group together, and end gloo's threads while Python is still whole: a
        thread that drops its last work's tensors during interpreter shutdown cannot take the
        GIL and aborts the process ("terminate called without an active exception") after a
        good run. The group lives on in reference cycles until collected, hence gc.collect."""
        dist.barrier()
        self.leave()

    def leave(self) -> None:
        """Leave without waiting for the others (they may be gone), threads ended as close() says."""
        if dist.is_initialized():  # not after a regroup that failed
            dist.destroy_process_group()
        self._groups.clear()
        gc.collect()  # frees the group objects, whose destructors join gloo's threads

    def hello(self) -> Hello:
        return Hello(
            rank=self.rank,
            world_size=self.world_size,
            local_rank=self.local_rank,
            host=self.host,
            pid=self.pid,
            backend=self.backend,
            device=str(self.device),
            torch_version=torch.__version__,
            local_world_size=self.local_world_size,
            master=self.master,
            launcher=self.launcher,
            cores=cpu_cores() if self.device.type == "cpu" else 0,  # ranks may share them (simulate.Sharing)
            world_key=self.key(),
        )

    def key(self) -> str:
        """The world's secret: the one its launcher handed every rank (RINGSIDE_WORLD_KEY, as `ringside
        up` does), else the first rank's random one, agreed on through the store the ranks met on. That
        store outlives a torchrun restart (the agent holds it), so a restarted rank proves it is of the
        same world; a hello without it cannot take the rank's slot meanwhile (cluster.py)."""
        given = os.environ.get("RINGSIDE_WORLD_KEY", "")
        if given:
            return given[:64]
        agreed = self.store.compare_set(WORLD_KEY, "", secrets.token_hex(16))
        return agreed.decode() if isinstance(agreed, bytes) else str(agreed)

    def group(self, ranks: tuple[int, ...]) -> dist.ProcessGroup | None:
        """The process group of `ranks` (None: the default group). new_group is
        collective over the whole world, so every rank calls this for every run,
        in the same order, member or not; groups are made once and reused."""
        if list(ranks) == list(range(self.world_size)):
            return None
        if ranks not in self._groups:
            self._groups[ranks] = dist.new_group(list(ranks))
        return self._groups[ranks]


def cpu_cores() -> int:
    """The CPU cores this process may run on (the machine's where the OS cannot say: macOS)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 0


def _env_int(name: str, default: int | None = None) -> int:
    value = os.environ.get(name)
    if value is None:
        if default is None:
            raise RuntimeError(f"{name} is not set: start workers with torchrun or `ringside up`")
        return default
    try:
        return int(value)
    except ValueError:
        raise RuntimeError(f"{name}={value!r} is not an integer") from None


def _default_backend() -> str:
    """NCCL when every rank on this node can have a GPU of its own (NCCL refuses to share one), else gloo."""
    per_node = _env_int("LOCAL_WORLD_SIZE", 1)
    return "nccl" if torch.cuda.is_available() and torch.cuda.device_count() >= per_node else "gloo"


def init_from_env(backend: str | None = None, timeout: float = DEFAULT_TIMEOUT) -> World:
    """Join the process group described by torchrun's environment variables."""
    rank, world_size = _env_int("RANK"), _env_int("WORLD_SIZE")
    local_rank = _env_int("LOCAL_RANK", 0)
    for name in ("MASTER_ADDR", "MASTER_PORT"):
        if name not in os.environ:
            raise RuntimeError(f"{name} is not set: start workers with torchrun or `ringside up`")
    backend = backend or _default_backend()
    if backend == "nccl":
        if not torch.cuda.is_available():
            raise RuntimeError("backend nccl needs a CUDA GPU; use gloo on CPU")
        device = torch.device("cuda", local_rank % torch.cuda.device_count())
        torch.cuda.set_device(device)
    elif backend == "gloo":
        device = torch.device("cpu")
    else:
        raise RuntimeError(f"unknown backend {backend!r}: use gloo or nccl")
    master = f"{os.environ['MASTER_ADDR']}:{os.environ['MASTER_PORT']}"
    world = World(
        rank,
        world_size,
        local_rank,
        backend,
        device,
        local_world_size=_env_int("LOCAL_WORLD_SIZE", 1),
        master=master,
        launcher=launcher(),
        store=_store(rank, world_size, timeout),
        timeout=timeout,
        loopback=_is_loopback(os.environ["MASTER_ADDR"]) and not _agent_store(),
    )
    world.join()
    return world


def _store(rank: int, world_size: int, timeout: float) -> dist.Store:
    """The store the ranks meet on, kept for the rank's life: a loopback one (below), or torch's
    env:// rendezvous store (torchrun's agent's, or one that rank 0 serves)."""
    store = _loopback_store(rank, world_size, timeout)
    if store is None:
        store, _, _ = next(dist.rendezvous("env://", rank, world_size, timeout=timedelta(seconds=timeout)))
    return store


def launcher() -> str:
    """What started this rank, in the words the seeds use: a launcher that starts the script on
    every rank (torchrun, which torch.distributed.launch now is too), a script that spawns its
    own ranks (it says so in RINGSIDE_LAUNCHER, as `ringside up` does), or variables set by hand."""
    if os.environ.get("RINGSIDE_LAUNCHER"):
        return os.environ["RINGSIDE_LAUNCHER"][:80]
    if "TORCHELASTIC_RUN_ID" in os.environ:
        return "torchrun"
    return "environment variables"


def _is_loopback(addr: str) -> bool:
    try:
        return addr == "localhost" or ipaddress.ip_address(addr).is_loopback
    except ValueError:
        return False


def _agent_store() -> bool:
    """Whether torchrun's agent holds the store the ranks meet on."""
    return os.environ.get("TORCHELASTIC_USE_AGENT_STORE") == "True"


def loopback_interface() -> str:
    """The name of the interface holding 127.0.0.1 ("lo" on Linux, "lo0" on macOS)."""
    import psutil

    for name, addrs in psutil.net_if_addrs().items():
        if any(a.family == socket.AF_INET and a.address.startswith("127.") for a in addrs):
            return name
    return "lo"


def _loopback_store(rank: int, world_size: int, timeout: float) -> dist.Store | None:
    """For a loopback rendezvous: a store whose server (rank 0) listens on loopback alone, and
    gloo and NCCL kept on the loopback interface. None (torch's env:// as usual) for any other
    MASTER_ADDR, or under torchrun, whose agent already holds the store: then _store takes env://'s."""
    addr = os.environ["MASTER_ADDR"]
    if not _is_loopback(addr):
        return None
    lo = loopback_interface()  # every rank reached a loopback address: they all run here
    os.environ.setdefault("GLOO_SOCKET_IFNAME", lo)
    os.environ.setdefault("NCCL_SOCKET_IFNAME", lo)
    if _agent_store():
        return None
    addr = "127.0.0.1" if addr == "localhost" else addr
    port = _env_int("MASTER_PORT")
    listen_fd = None
    if rank == 0:  # bound here, to loopback, and handed over: TCPStore itself would bind every interface
        family = socket.AF_INET6 if ":" in addr else socket.AF_INET
        listen_fd = socket.create_server((addr, port), family=family).detach()
    return dist.TCPStore(
        addr, port, world_size, rank == 0, timedelta(seconds=timeout), master_listen_fd=listen_fd
    )
