"""The cluster: every rank that has said hello, what it runs on, and how it is doing.

A rank is `lost` once it has been silent for `lost_after` seconds or its
connection closed; it comes back when it reconnects and says hello again.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from ringside.worker_agent.core.protocol import MAX_WORLD, Heartbeat, Hello

SPARKLINE = 60  # heartbeats kept per rank for the dashboard's sparklines
MAX_PID = 1 << 32  # a process id, on any system
MAX_TEXT = 256  # characters of a hello's host, device, backend and torch version (shown to every viewer)


@dataclass
class Rank:
    hello: Hello
    connected: bool = True
    busy: bool = False
    last_seen: float = field(default_factory=time.monotonic)
    left_at: float | None = None  # when its connection closed
    cpu_percent: float = 0.0
    rss_bytes: int = 0
    gpu_memory_bytes: int | None = None
    history: deque = field(default_factory=lambda: deque(maxlen=SPARKLINE))

    def status(self, now: float, lost_after: float) -> str:
        if not self.connected or now - self.last_seen > lost_after:
            return "lost"
        return "busy" if self.busy else "idle"


class Cluster:
    def __init__(self, lost_after: float, hold: float = 30.0, clock: Callable[[], float] = time.monotonic):
        """`clock`: the seconds silence and leaving are measured in (a test's stands in for the machine's)."""
        self.lost_after, self.hold, self.clock = lost_after, hold, clock  # hold: see held()
        self.ranks: dict[int, Rank] = {}
        self.complete = False  # every rank of the world has been connected at once
        # (size, key) of the world the server is resizing its own to (resize.py), until it is whole
        self.expect: tuple[int, str] | None = None

    @property
    def world_size(self) -> int:
        return max((r.hello.world_size for r in self.ranks.values()), default=0)

    @property
    def backend(self) -> str | None:
        live = [r.hello.backend for r in self.ranks.values() if r.connected]
        return live[0] if live else None

    def conflict(self, hello: Hello) -> str | None:
        """Why this hello cannot join, or None. Short (a close reason holds 123 bytes), and it
        repeats no number or text of the hello's that could be any length."""
        if not 1 <= hello.world_size <= MAX_WORLD:
            return f"world size must be 1 to {MAX_WORLD}"
        if not 0 <= hello.rank < hello.world_size:
            return f"rank must be 0 to {hello.world_size - 1} in a world of {hello.world_size}"
        if not 0 <= hello.local_rank < MAX_WORLD:
            return f"local rank must be 0 to {MAX_WORLD - 1}"
        if not 1 <= hello.local_world_size <= MAX_WORLD:
            return f"local world size must be 1 to {MAX_WORLD}"
        if not 0 <= hello.pid < MAX_PID:
            return f"pid must be 0 to {MAX_PID - 1}"
        if max(map(len, (hello.host, hello.device, hello.backend, hello.torch_version))) > MAX_TEXT:
            return f"host, device, backend and torch version must be at most {MAX_TEXT} characters"
        if self.expect is not None and (hello.world_size, hello.world_key) != self.expect:
            return f"the world is being resized to {self.expect[0]} ranks: only its own ranks join"
        current = self.ranks.get(hello.rank)
        if current is not None and current.connected:
            return (
                f"rank {hello.rank} is already connected (pid {current.hello.pid} on "
                f"{current.hello.host[:40]})"
            )[:120]
        others = [r.hello for r in self.ranks.values() if r.connected]
        if others and others[0].world_size != hello.world_size:
            return f"world size {hello.world_size} differs from the cluster's {others[0].world_size}"
        if others and others[0].world_key != hello.world_key:
            return "the world key differs from its ranks': a rank of another world cannot take a slot"
        if not others and (left := self.held()):
            if self.world_size != hello.world_size:
                return (
                    f"world size {hello.world_size} differs from the cluster's {self.world_size}, "
                    f"held while its ranks restart ({left:.0f} s more)"
                )
            if self.key != hello.world_key:
                return f"the world key differs from the cluster's, held while it restarts ({left:.0f} s)"
        return None

    @property
    def key(self) -> str:
        """The world key its ranks said hello with (they share it: conflict refuses another)."""
        return next(iter(self.ranks.values())).hello.world_key if self.ranks else ""

    def held(self) -> float:
        """Seconds a whole world whose ranks have all gone is held for them still (0: it is not):
        only its own ranks may join meanwhile; a hello of another size would take the cluster
        over while they restart."""
        if not self.complete or any(r.connected for r in self.ranks.values()):
            return 0.0
        last = max((r.left_at for r in self.ranks.values() if r.left_at is not None), default=None)
        return 0.0 if last is None else max(0.0, self.hold - (self.clock() - last))

    def join(self, hello: Hello) -> None:
        if (
            self.ranks
            and not any(r.connected for r in self.ranks.values())
            and (self.world_size, self.key) != (hello.world_size, hello.world_key)
        ):
            self.forget()  # a new world replaces one that is entirely gone (and no longer held: conflict)
        self.ranks[hello.rank] = Rank(hello, last_seen=self.clock())
        self.complete = self.complete or sum(r.connected for r in self.ranks.values()) == hello.world_size
        if self.complete:
            self.expect = None

    def resize(self, n: int) -> None:
        """The server resizes its own world to n ranks (resize.py): the ranks it had are forgotten
        (they leave, or say hello again as ranks of the new world), and until the new world is
        whole only a hello of n ranks with the world's key joins."""
        key = self.key
        self.forget()
        self.expect = (n, key)

    def beat(self, beat: Heartbeat) -> None:
        rank = self.ranks.get(beat.rank)
        if rank is None:
            return
        rank.last_seen = self.clock()
        rank.busy = beat.status == "busy"
        rank.cpu_percent, rank.rss_bytes = beat.cpu_percent, beat.rss_bytes
        rank.gpu_memory_bytes = beat.gpu_memory_bytes
        rank.history.append((round(time.time(), 1), beat.cpu_percent, beat.rss_bytes, beat.gpu_memory_bytes))

    def seen(self, rank: int) -> None:
        if rank in self.ranks:
            self.ranks[rank].last_seen = self.clock()

    def leave(self, rank: int) -> None:
        if rank in self.ranks:
            self.ranks[rank].connected = False
            self.ranks[rank].left_at = self.clock()
        if not self.complete and not any(r.connected for r in self.ranks.values()):
            # a world that was never whole is a claim no rank backs any more (a hello can claim
            # any size); a whole one stays, its ranks shown lost, until its ranks or a new world come
            self.forget()

    def forget(self) -> None:
        self.ranks.clear()
        self.complete = False

    def live(self) -> list[int]:
        now = self.clock()
        return sorted(r for r, info in self.ranks.items() if info.status(now, self.lost_after) != "lost")

    def missing_in_order(self) -> list[int]:
        """The missing ranks, the first to go first: the one that died before its peers gave up."""

        def left(r: int) -> float:
            rank = self.ranks.get(r)
            return rank.left_at if rank is not None and rank.left_at is not None else float("inf")

        return sorted(self.missing(), key=left)

    def missing(self) -> list[int]:
        """Ranks of the world that are not live now."""
        live = set(self.live())
        return [r for r in range(self.world_size) if r not in live]

    def places(self, ranks: list[int]) -> dict[str, dict]:
        """Where each of `ranks` runs now, by rank: its host and local rank (what a run keeps)."""
        return {
            str(r): {"host": info.hello.host, "local_rank": info.hello.local_rank}
            for r in ranks
            if (info := self.ranks.get(r)) is not None
        }

    def placement(self) -> list[tuple[str, int]]:
        """Each rank's (host, CPU cores it may run on), in rank order: which ranks share cores
        (simulate.Sharing.of)."""
        return [
            (r.hello.host, r.hello.cores) if (r := self.ranks.get(i)) else ("", 0)
            for i in range(self.world_size)
        ]

    def to_json(self) -> dict:
        now = self.clock()
        return {
            "backend": self.backend,
            "world_size": self.world_size,
            "ranks": [
                {
                    "rank": r,
                    "host": info.hello.host,
                    "pid": info.hello.pid,
                    "device": info.hello.device,
                    "backend": info.hello.backend,
                    "torch_version": info.hello.torch_version,
                    "local_rank": info.hello.local_rank,
                    "local_world_size": info.hello.local_world_size,
                    "master": info.hello.master,
                    "launcher": info.hello.launcher,
                    "cores": info.hello.cores,
                    "status": info.status(now, self.lost_after),
                    "heartbeat_age": round(now - info.last_seen, 2),
                    "cpu_percent": info.cpu_percent,
                    "rss_bytes": info.rss_bytes,
                    "gpu_memory_bytes": info.gpu_memory_bytes,
                    "history": list(info.history),
                }
                for r, info in sorted(self.ranks.items())
            ],
        }
