"""A job of many ranks that speaks the watch protocol (/ws/watch) as ringside.watch's reporters do,
from one process: for measuring and testing a server and a page at the scale of real jobs (thousands
of ranks), which no machine here runs as processes. Each rank is a websocket of its own, says its
own hello (its node's host, local rank, pid), and reports every `interval` seconds (no sooner than a
reporter does in a job of its size: calm_interval_s), at its own phase, what it issued since: an
all_reduce of the world group every 1/`rate` seconds, each rank a little apart (`skew`), and its
oldest one not completed (its recorder's open entry). A node's ranks connect from a loopback address
of their own (127.1.x.y), as a node's ranks come from its address.

A rank told to stop (`stop`) stops as a SIGSTOPped rank does: just before it issues collective
`at`, it says nothing more, its socket left open; the others issue `at`, wait in it (their reports
say it is open) and issue nothing after it. A job's ranks may be split across processes
(`ranks=range(...)`): they agree on the job's key, its start and its stop, so none need tell another.
Not used by the server itself."""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from ringside.worker_agent.core.protocol import PROTOCOL_VERSION
from ringside.worker_agent.core.watch_protocol import calm_interval_s

SCRIPT = "synthetic.py"
WHERE = "train.py:87"  # the line every rank's main thread is on
COUNT = 1 << 20  # elements each all_reduce puts in (float32)
CONNECTING = 128  # handshakes in flight at once from one process, as a job's ranks start over seconds


@dataclass
class Plan:
    """What every process of the job agrees on."""

    world: int
    key: str  # the job's key, which its ranks share
    t0: float  # wall clock (s) at which collective #0 is issued, and the ranks begin to report
    per_node: int = 8
    rate: float = 10.0  # collectives a second, each rank
    interval: float = 0.5  # seconds between a rank's reports (the reporter's: 0.2 to 1)
    skew: float = 0.005  # seconds between the first and the last rank to issue one collective
    stop_rank: int | None = None
    stop_at: int | None = None  # the collective the stopped rank never issues

    @property
    def every(self) -> float:
        """Seconds between a rank's reports: as a reporter paces them in a job of this size."""
        return max(self.interval, calm_interval_s(self.world))

    def issue_time(self, rank: int, seq: int) -> float:
        return self.t0 + seq / self.rate + self.skew * ((rank * 7919) % 997) / 997

    def done_time(self, seq: int) -> float:
        """When collective #seq completes: once its last rank issued it."""
        return self.t0 + seq / self.rate + self.skew

    def last_issued(self, rank: int, now: float) -> int:
        """The last collective `rank` has issued by `now` (-1: none), as far as the stop lets it."""
        seq = int((now - self.issue_time(rank, 0)) * self.rate) if now >= self.issue_time(rank, 0) else -1
        while seq >= 0 and self.issue_time(rank, seq) > now:  # the float's edge
            seq -= 1
        if self.stop_at is not None:
            seq = min(seq, self.stop_at - 1 if rank == self.stop_rank else self.stop_at)
        return seq

    def stops(self, rank: int, now: float) -> bool:
        """Whether `rank` is stopped by `now`: it would have issued the collective it never does."""
        return (
            rank == self.stop_rank and self.stop_at is not None and now >= self.issue_time(rank, self.stop_at)
        )

    @property
    def stop_time(self) -> float | None:
        """When the stopped rank stops (wall clock)."""
        if self.stop_rank is None or self.stop_at is None:
            return None
        return self.issue_time(self.stop_rank, self.stop_at)

    def node_address(self, rank: int) -> str:
        node = rank // self.per_node
        return f"127.1.{node // 250}.{node % 250 + 1}"


@dataclass
class Counts:
    connected: int = 0
    reports: int = 0
    refused: list[str] = field(default_factory=list)


class SyntheticJob:
    """Some of a plan's ranks (`ranks`), reporting to `server` with the worker `token` until `run`'s
    `until` (wall clock)."""

    def __init__(self, server: str, token: str, plan: Plan, ranks: range | None = None):
        parts = urlsplit(server)
        scheme = "wss" if parts.scheme == "https" else "ws"
        self.url = f"{scheme}://{parts.netloc}/ws/watch"
        self.headers = {"Authorization": f"Bearer {token}"}
        self.plan = plan
        self.ranks = ranks if ranks is not None else range(plan.world)
        self.counts = Counts()
        self.until = 0.0  # wall clock: the ranks go then

    async def run(self, until: float) -> Counts:
        self.until = until
        connecting = asyncio.Semaphore(CONNECTING)
        await asyncio.gather(*(self._rank(r, connecting) for r in self.ranks))
        return self.counts

    def end(self) -> None:
        """Every rank goes within an interval (a test's job, ended early)."""
        self.until = 0.0

    async def _rank(self, rank: int, connecting: asyncio.Semaphore) -> None:
        plan = self.plan
        try:
            async with connecting:
                ws = await connect(
                    self.url,
                    additional_headers=self.headers,
                    local_addr=(plan.node_address(rank), 0),
                    open_timeout=60,
                    max_size=1 << 16,
                    compression=None,
                )
        except Exception as e:  # said, not raised: the job's other ranks go on
            self.counts.refused.append(f"rank {rank}: {type(e).__name__}: {e}")
            return
        async with ws:
            try:
                await ws.send(json.dumps(self.hello_of(rank)))
                self.counts.connected += 1
                await self._report(ws, rank)
            except ConnectionClosed:  # the server went: so does the rank
                pass

    async def _report(self, ws: ClientConnection, rank: int) -> None:
        plan = self.plan
        said = -1
        groups = {"0": list(range(plan.world))}  # the first report names the world, as torch's default group
        beat = time.time()
        while time.time() < min(plan.t0, self.until):  # the job starts issuing at t0 (which may move nearer)
            if time.time() >= beat:  # till then a report says where the rank is, as a reporter's polls do
                await ws.send(json.dumps({**self.report_of(rank, -1, -1, time.time()), "groups": groups}))
                groups, beat = {}, beat + plan.every
            await asyncio.sleep(min(0.1, plan.every))
        # each rank's reports at a phase of its own, as ranks started apart read apart
        at = time.time() + plan.every * ((rank * 4099) % 1000) / 1000
        while at < self.until:
            await asyncio.sleep(max(0.0, at - time.time()))
            now = time.time()
            if plan.stops(rank, now):
                while time.time() < self.until:  # stopped: its socket stays open
                    await asyncio.sleep(min(plan.every, max(0.0, self.until - time.time())))
                return
            last = plan.last_issued(rank, now)
            await ws.send(json.dumps({**self.report_of(rank, said, last, now), "groups": groups}))
            self.counts.reports += 1
            said, groups = last, {}
            at += plan.every

    def hello_of(self, rank: int) -> dict:
        plan = self.plan
        return {
            "type": "watch_hello",
            "v": PROTOCOL_VERSION,
            "job": plan.key,
            "rank": rank,
            "world_size": plan.world,
            "local_rank": rank % plan.per_node,
            "local_world_size": plan.per_node,
            "host": f"node{rank // plan.per_node:04d}",
            "pid": 100_000 + rank,
            "launcher": "torchrun",
            "backend": "nccl",
            "script": SCRIPT,
            "started_ns": int(plan.t0 * 1e9) - 1_000_000_000,
            "mechanisms": ["flight_recorder"],
        }

    def report_of(self, rank: int, said: int, last: int, now: float) -> dict:
        """What `rank` issued after #`said` up to #`last`, and the one it is in, if any."""
        plan = self.plan
        issued = [
            {
                "group": "0",
                "seq": seq,
                "op": "all_reduce",
                "dtype": "float32",
                "count": COUNT,
                "count_out": COUNT,
                "bytes": 4 * COUNT,
                "t_ns": int(plan.issue_time(rank, seq) * 1e9),
            }
            for seq in range(said + 1, last + 1)
        ]
        waiting = last >= 0 and (last == plan.stop_at or now < plan.done_time(last))
        return {
            "type": "watch_report",
            "v": PROTOCOL_VERSION,
            "rank": rank,
            "t_ns": int(now * 1e9),
            "where": WHERE,
            "issued": issued[-1024:],
            "pending": {"0": last} if waiting else {},
        }


def run_ranks(server: str, token: str, plan: Plan, ranks: range, until: float) -> Counts:
    """Run `ranks` of `plan` in this process until `until` (wall clock): a process's share of a job."""
    return asyncio.run(SyntheticJob(server, token, plan, ranks).run(until))
