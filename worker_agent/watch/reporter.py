"""The reporter: a daemon thread beside a user's job that reads what the rank issued
(as often as pace.py says), and one that sends it to a Ringside server (uplink.py). It never
harms the job: it only reads, a failure of its own ends reporting and nothing else, it never
makes the user's threads wait, and a server that is away does not slow a read.

Each poll: the Flight Recorder's new entries (flight.py), the point-to-point traffic and
the sends and receives the rank is blocked in (p2p.py; on NCCL, the recorder's too), DDP
buckets (ddp_hook.py, opt-in), new process groups and the names torch gave them (groups.py),
and the line of user code the main thread is on, which is what names a rank that everyone waits
for. An exception that ends the program is said in the goodbye, however it was started."""

from __future__ import annotations

import os
import socket
import sys
import sysconfig
import threading
import time
import uuid
from datetime import timedelta
from pathlib import Path

import torch
import torch.distributed as dist
import torch.distributed.distributed_c10d as c10d

from ringside.worker_agent.core.watch_protocol import (
    MAX_ISSUED,
    MAX_WAITS,
    Issued,
    Link,
    P2PWait,
    WatchBye,
    WatchHello,
    WatchReport,
    calm_interval_s,
)

from .ddp_hook import BucketNames, Buckets
from .flight import FlightReader
from .groups import Groups
from .p2p import Traffic
from .pace import MAX_INTERVAL_S, MIN_INTERVAL_S, Pace, issued_so_far, ring_size
from .uplink import Uplink, said_nothing_new, say

HEARTBEAT_S = 0.5  # a report that says nothing new is made at most this often
JOB_KEY = "ringside/watch/job"
LIBRARIES = tuple(
    {sysconfig.get_paths()[k] for k in ("stdlib", "purelib", "platlib")}
    | {str(Path(torch.__file__).parent), str(Path(__file__).parents[1])}
)


def where(thread_id: int | None) -> str | None:
    """The innermost line of user code that thread is on ("train.py:87")."""
    frame = sys._current_frames().get(thread_id) if thread_id is not None else None
    while frame is not None:
        name = frame.f_code.co_filename
        if not name.startswith(("<", *LIBRARIES)):
            return f"{os.path.basename(name)}:{frame.f_lineno}"
        frame = frame.f_back
    return None


def state(report: WatchReport | None) -> tuple:
    """What a report says the rank is in: the collectives open, and whether it issued more than it
    said (a rank that starts or stops having some is news: the server waits for its next read)."""
    return (report.pending, report.unread > 0) if report is not None else ({}, False)


def job_key() -> str:
    """The key every rank of the job shares: rank 0 picks it and leaves it in the job's store."""
    try:
        store = c10d._get_default_store()
        if dist.get_rank() == 0:
            store.set(JOB_KEY, uuid.uuid4().hex[:16])
        else:
            store.wait([JOB_KEY], timedelta(seconds=30))
        return store.get(JOB_KEY).decode()
    except Exception:  # a store that cannot be reached: what torchrun gives every rank alike
        env = os.environ
        return (
            f"{env.get('MASTER_ADDR', '')}:{env.get('MASTER_PORT', '')}:{env.get('TORCHELASTIC_RUN_ID', '')}"
        )[:64]


class Reporter(threading.Thread):
    def __init__(
        self,
        server: str,
        token: str | None,
        traffic: Traffic | None = None,
        buckets: Buckets | None = None,
        hang_after: float | None = None,  # the job's hang threshold, in seconds (None: the server's)
    ):
        super().__init__(name="ringside-watch", daemon=True)
        self.hang_after = hang_after
        self.uplink = Uplink(server, token)
        self.traffic, self.buckets = traffic, buckets
        self.bucket_names = BucketNames(buckets) if buckets is not None else None
        self.groups = Groups()
        self.flight = FlightReader(self.groups.ranks_of)
        self.pace = Pace(ring_size())
        self.cost = 0.0  # seconds the last poll's read took (a read holds the GIL), 0 if it read none
        self.main = threading.main_thread().ident
        self.started_ns = time.time_ns()
        self.stopping = threading.Event()
        self.hello: WatchHello | None = None
        self.raised: str | None = None  # the exception that ended the program, if one did
        self.lock = threading.Lock()  # one poll at a time: the thread's and the last, from close()
        self.said_at = 0.0  # when the last report was made
        self.said_state = state(None)  # and what it said the rank was in
        self.wake = threading.Event()  # reports wait to be sent
        self.sender = threading.Thread(target=self._sending, name="ringside-watch-send", daemon=True)

    # --- the threads -----------------------------------------------------------

    def run(self) -> None:
        """Read as the pace says; the sender thread sends, so a slow or absent server never delays a
        read (the ring wraps at the job's pace, whatever the network's)."""
        self.sender.start()
        try:
            interval = MIN_INTERVAL_S
            while not self.stopping.wait(interval):
                self.cost = 0.0
                self._poll(due=None)
                interval = self.pace.interval(self.cost)
        except Exception as e:  # reporting ends; the job goes on
            say(f"reporting stopped ({type(e).__name__}: {e}); the job runs on")
        finally:
            self.wake.set()

    def _sending(self) -> None:
        try:
            while not self.stopping.is_set():
                self.wake.wait(MAX_INTERVAL_S)
                self.wake.clear()
                if self.hello is not None:
                    self.uplink.send(self.hello)
        except Exception as e:
            say(f"reporting stopped ({type(e).__name__}: {e}); the job runs on")

    def close(self, exit_code: int | None, error: str | None = None, within: float = 2.0) -> None:
        """The last report and the goodbye, waiting at most `within` seconds: the job is ending."""
        self.stopping.set()
        self.wake.set()
        deadline = time.monotonic() + within
        self.join(within)
        if self.sender.is_alive():
            self.sender.join(max(0.0, deadline - time.monotonic()))
        if self.is_alive() or self.sender.is_alive():  # stuck on the network: the job does not wait
            return
        try:
            self.poll()
            if self.hello is not None:
                self.uplink.goodbye(WatchBye(rank=self.hello.rank, exit_code=exit_code, error=error))
        except Exception:
            pass

    def attach(self) -> None:
        """Say who this rank is, once its process group is up (the launcher calls this as soon as
        init_process_group returns: a job shorter than a poll is seen too)."""
        with self.lock:
            if self.hello is None and dist.is_initialized():
                self.hello = self._hello()
                # gloo's recorder numbers entries as its groups do; NCCL's keeps sends and receives too
                self.pace.count = issued_so_far if self.hello.backend == "gloo" else None
                self.pace.calm_s = max(MIN_INTERVAL_S, calm_interval_s(self.hello.world_size))

    def poll(self) -> None:
        """Read all the rank issued and send it now (the last report, or one a script asks for)."""
        self._poll(due=True)
        if self.hello is not None:
            self.uplink.send(self.hello)

    def _poll(self, due: bool | None) -> None:
        """Report what the rank did since the last poll, reading the recorder if `due` (None: as the
        pace says), and hand it to the sender."""
        self.attach()
        with self.lock:
            if self.hello is None:
                return
            # the recorder outlives destroy_process_group: its last collectives too
            reports = self._reports(self.hello, due)
            if due is None and self._nothing_to_say(reports):
                return
            self.said_at, self.said_state = time.monotonic(), state(reports[-1])
            self.uplink.keep(reports)
        self.wake.set()

    def _nothing_to_say(self, reports: list[WatchReport]) -> bool:
        """Whether a poll's report tells nothing the last did, and that one is recent: polls come as
        often as the ring needs, reports only as often as they have news."""
        report = reports[0]
        return (
            len(reports) == 1
            and said_nothing_new(report)
            and state(report) == self.said_state
            # as often as a calm rank polls: a rank of thousands, polling sooner before its first
            # collective, says where it is no more often than before
            and time.monotonic() - self.said_at < max(HEARTBEAT_S, self.pace.calm_s)
        )

    # --- what a rank says ------------------------------------------------------

    def _hello(self) -> WatchHello:
        env, backend = os.environ, str(dist.get_backend())
        mechanisms = (
            ["flight_recorder"]
            + ["p2p"] * (self.traffic is not None)
            + ["ddp_hook"] * (self.buckets is not None)
        )
        if backend == "nccl" and env.get("TORCH_NCCL_ENABLE_TIMING") == "1":
            mechanisms.append("nccl_timing")
        return WatchHello(
            job=job_key(),
            rank=dist.get_rank(),
            world_size=dist.get_world_size(),
            local_rank=int(env.get("LOCAL_RANK", 0)),
            local_world_size=int(env.get("LOCAL_WORLD_SIZE", 1)),
            host=socket.gethostname()[:255],
            pid=os.getpid(),
            launcher="torchrun" if "TORCHELASTIC_RUN_ID" in env else "script",
            backend=backend[:64],
            script=os.path.basename(sys.argv[0])[:200],
            started_ns=self.started_ns,
            mechanisms=mechanisms,
            hang_after_s=self.hang_after,
        )

    def _reports(self, hello: WatchHello, due: bool | None = True) -> list[WatchReport]:
        """What the rank did since the last poll: one report, more if it issued more than one holds."""
        names = self.bucket_names
        read = self._read(due)
        issued = names.timed_since() + [names.named(one) for one in read] if names is not None else read
        groups, descs = self.groups.unsaid()
        waits = self._waits()  # before the totals: every wait said is counted in them
        first = WatchReport(
            rank=hello.rank,
            t_ns=time.time_ns(),
            where=where(self.main),
            groups=groups,
            group_descs=descs,
            issued=issued[:MAX_ISSUED],
            pending=self.flight.pending,
            links=self._links(),
            waits=waits,
            missed=self.flight.missed,
            unread=self.pace.unread,
            dropped=self.uplink.dropped,
        )
        rest = range(MAX_ISSUED, len(issued), MAX_ISSUED)
        said_once: dict[str, object] = {"groups": {}, "group_descs": {}, "links": []}
        more = [first.model_copy(update={"issued": issued[i : i + MAX_ISSUED], **said_once}) for i in rest]
        return [first, *more]

    def _read(self, due: bool | None) -> list[Issued]:
        """The recorder's new collectives, where a read is due (None: as the pace says); else none,
        and a rank that issued more since the last poll has gone on past what that read found open."""
        if due is not False and self.pace.due(self.flight.open(), told=bool(due)):
            began = time.perf_counter()
            fresh = self.flight.read()
            self.cost = time.perf_counter() - began
            self.pace.was_read(self.flight.fresh)
            return fresh
        if self.pace.moved:
            self.flight.pending = {}
        return []

    def _links(self) -> list[Link]:
        """The traffic per peer: as the wrapped sends and receives count it, or where they are not
        wrapped, as the recorder keeps it (NCCL)."""
        return self.traffic.take() if self.traffic else self.flight.p2p.take()

    def _waits(self) -> list[P2PWait]:
        """The sends and receives the rank waits in: blocked in (the wrapped ones), and on NCCL those the
        recorder says are not done, on the GPU, with peers the rank is not blocked on."""
        blocked = self.traffic.waits() if self.traffic else []
        on = {(w.peer, w.send) for w in blocked}
        return [*blocked, *(w for w in self.flight.p2p.waits() if (w.peer, w.send) not in on)][:MAX_WAITS]
