"""The reporter: a daemon thread beside a user's job that reads what the rank issued
(as often as pace.py says), and one that sends it to a Ringside server. It never harms
the job: it only reads, a failure of its own ends reporting and nothing else, it never
makes the user's threads wait, and a server that is away, refuses the token or goes
mid-job is said once on stderr while the job runs on. Reports made while the server is
away wait in a bounded backlog (one that says only where the rank is now takes the place
of the last such); what falls out of it is counted (`dropped`). Nothing the server sends
is read.

Each poll: the Flight Recorder's new entries (flight.py), the point-to-point traffic and
the sends and receives the rank is blocked in (p2p.py; on NCCL, the recorder's too), DDP
buckets (ddp_hook.py, opt-in), new process groups and the names torch gave them, and the
line of user code the main thread is on, which is what names a rank that everyone waits
for. An exception that ends the program is said in the goodbye, however it was started."""

from __future__ import annotations

import os
import socket
import sys
import sysconfig
import threading
import time
import uuid
from collections import deque
from datetime import timedelta
from pathlib import Path

import torch
import torch.distributed as dist
import torch.distributed.distributed_c10d as c10d
from websockets.exceptions import InvalidStatus
from websockets.sync.client import ClientConnection, connect

from ringside.worker_agent.clients.trust import context_for
from ringside.worker_agent.core.protocol import socket_url
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

from .ddp_hook import Buckets, Note
from .flight import FlightReader
from .p2p import Traffic
from .pace import MAX_INTERVAL_S, MIN_INTERVAL_S, Pace, issued_so_far, ring_size

BACKLOG = 64  # reports kept while the server is away
HEARTBEAT_S = 0.5  # a report that says nothing new is made at most this often
RETRY_S = 2.0
JOB_KEY = "ringside/watch/job"
LIBRARIES = tuple(
    {sysconfig.get_paths()[k] for k in ("stdlib", "purelib", "platlib")}
    | {str(Path(torch.__file__).parent), str(Path(__file__).parents[1])}
)


def say(text: str) -> None:
    print(f"ringside.watch: {text}", file=sys.stderr, flush=True)


def where(thread_id: int | None) -> str | None:
    """The innermost line of user code that thread is on ("train.py:87")."""
    frame = sys._current_frames().get(thread_id) if thread_id is not None else None
    while frame is not None:
        name = frame.f_code.co_filename
        if not name.startswith(("<", *LIBRARIES)):
            return f"{os.path.basename(name)}:{frame.f_lineno}"
        frame = frame.f_back
    return None


def said_nothing_new(report: WatchReport) -> bool:
    """Whether a report only says how the rank is now (its line, what it waits in): a later one says
    it instead, so reports kept while the server is away are ones that tell what happened."""
    return not (report.issued or report.links or report.waits or report.groups)


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
        self, server: str, token: str | None, traffic: Traffic | None = None, buckets: Buckets | None = None
    ):
        super().__init__(name="ringside-watch", daemon=True)
        self.url, self.token = socket_url(server, "/ws/watch"), token
        self.traffic, self.buckets = traffic, buckets
        self.flight = FlightReader(lambda group: self.groups.get(group))
        self.pace = Pace(ring_size())
        self.cost = 0.0  # seconds the last poll's read took (a read holds the GIL), 0 if it read none
        self.main = threading.main_thread().ident
        self.started_ns = time.time_ns()
        self.stopping = threading.Event()
        self.hello: WatchHello | None = None
        self.groups: dict[str, list[int]] = {}  # every group known, by name
        self.descs: dict[str, str] = {}  # the names torch gave them
        self.raised: str | None = None  # the exception that ended the program, if one did
        self.groups_sent: set[str] = set()
        self.groups_lock = threading.Lock()  # learnt on the user's thread too (new_group)
        self.untimed: list[tuple[Issued, Note]] = []  # buckets sent before their all-reduce completed
        self.backlog: deque[WatchReport] = deque(maxlen=BACKLOG)  # the oldest goes when full
        self.dropped = 0
        self.ws: ClientConnection | None = None
        self.refused = False
        self.unreachable_said = False
        self.retry_at = 0.0
        self.lock = threading.Lock()  # one poll at a time: the thread's and the last, from close()
        self.said_at = 0.0  # when the last report was made
        self.said_state = state(None)  # and what it said the rank was in
        self.sending = threading.Lock()  # one sender at a time: the thread, or poll()
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
                    self._send(self.hello)
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
            if self.ws is not None and self.hello is not None:
                bye = WatchBye(rank=self.hello.rank, exit_code=exit_code, error=error)
                self.ws.send(bye.model_dump_json())
                self.ws.close()
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
            self._send(self.hello)

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
            for report in reports:
                if self.backlog and said_nothing_new(report) and said_nothing_new(self.backlog[-1]):
                    self.backlog[-1] = report  # where the rank is now: the newest says it for both
                    continue
                self.dropped += len(self.backlog) == BACKLOG  # the deque lets its oldest go
                self.backlog.append(report)
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
        )

    def _reports(self, hello: WatchHello, due: bool | None = True) -> list[WatchReport]:
        """What the rank did since the last poll: one report, more if it issued more than one holds."""
        issued = self._timed_since() + [self._named(one) for one in self._read(due)]
        groups, descs = self._new_groups()
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
            dropped=self.dropped,
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

    def _named(self, one: Issued) -> Issued:
        """An all-reduce with the DDP bucket it carried, where the hook noted one; one whose
        all-reduce has not completed yet is sent again, timed, once it has."""
        if self.buckets is None or one.op != "all_reduce" or one.bucket is not None:
            return one
        note = self.buckets.match(one.group, one.count)
        if note is None:
            return one
        named = one.model_copy(
            update={"bucket": note.bucket, "duration_s": one.duration_s or note.duration_s}
        )
        if named.duration_s is None:
            self.untimed.append((named, note))
        return named

    def _timed_since(self) -> list[Issued]:
        """The buckets sent untimed whose all-reduce has completed since."""
        timed = [
            one.model_copy(update={"duration_s": note.duration_s})
            for one, note in self.untimed
            if note.duration_s is not None
        ]
        self.untimed = [(one, note) for one, note in self.untimed if note.duration_s is None][-MAX_ISSUED:]
        return timed

    def learn_groups(self) -> None:
        """Note the process groups that exist now, and the names torch gave them (new_group's
        group_desc, DeviceMesh's "mesh_dp"): the launcher calls this after every new_group, for a
        group of a short job is gone by the next poll."""
        with self.groups_lock:
            for pg, name in list(c10d._world.pg_names.items()):
                if name not in self.groups and pg in c10d._world.pg_group_ranks:
                    self.groups[name] = sorted(c10d._world.pg_group_ranks[pg])
                    desc = getattr(pg, "group_desc", "")
                    if desc and desc != "undefined":
                        self.descs[name] = str(desc)[:64]

    def _new_groups(self) -> tuple[dict[str, list[int]], dict[str, str]]:
        self.learn_groups()
        with self.groups_lock:
            new = {name: ranks for name, ranks in self.groups.items() if name not in self.groups_sent}
            self.groups_sent.update(new)
            descs = {name: self.descs[name] for name in new if name in self.descs}
        return new, descs

    # --- the connection --------------------------------------------------------

    def _send(self, hello: WatchHello) -> None:
        with self.sending:
            self._send_backlog(hello)

    def _send_backlog(self, hello: WatchHello) -> None:
        if self.refused or not self._connected(hello) or self.ws is None:  # connected: a socket
            return
        try:
            while self.backlog:
                self.ws.send(self.backlog[0].model_dump_json())
                self.backlog.popleft()
        except Exception as e:
            self.ws = None
            self._away(f"lost the server at {self.url}", e)

    def _away(self, what: str, error: Exception) -> None:
        """The server is away: said once until it is back; tried again in a while."""
        self.retry_at = time.monotonic() + RETRY_S
        if not self.unreachable_said:
            self.unreachable_said = True
            say(f"{what} ({type(error).__name__}); the job runs on and reporting retries")

    def _connected(self, hello: WatchHello) -> bool:
        if self.ws is not None:
            return True
        if time.monotonic() < self.retry_at:
            return False
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        try:
            self.ws = connect(
                self.url,
                additional_headers=headers,
                open_timeout=2,
                close_timeout=1,
                max_size=1 << 16,
                ssl=context_for(self.url),
            )
            self.ws.send(hello.model_dump_json())
        except InvalidStatus as e:
            self.ws, self.refused = None, e.response.status_code in (401, 403)
            say(
                f"the server at {self.url} refused the worker token (RINGSIDE_WORKER_TOKEN): "
                "the job runs on, unwatched"
                if self.refused
                else f"the server at {self.url} answered {e.response.status_code}; retrying"
            )
            self.retry_at = time.monotonic() + RETRY_S
            return False
        except Exception as e:
            self.ws = None
            self._away(f"cannot reach the server at {self.url}", e)
            return False
        if self.unreachable_said:
            say(f"reporting to {self.url} again")
            self.unreachable_said = False
        return True
