"""A watched job: a user's own torchrun job whose ranks report what they issue
(ringside.watch). Its collectives are matched across ranks by (process group, sequence
number), as Flight Recorder's analysis matches them: a collective is complete once every
rank of its group has issued it; then the rank that issued it last, and by how much,
names the straggler. A collective that some ranks of its group have issued and others
have not, for longer than HANG_S, is a hang while it lasts: the ranks that wait, the
ranks they wait for, and where those were last seen.

Memory is bounded whatever the job's length and size: the last RECENT collectives are kept
whole (the live view, the API's first page), collectives still open at most MAX_OPEN (fewer
for a job of many ranks: RANKS_HELD rank entries in all),
and everything else is folded into totals per (group, op), per p2p link, as it goes."""

from __future__ import annotations

import time
from collections import OrderedDict
from enum import Enum
from typing import Literal

from pydantic import BaseModel
from ringside.worker_agent.core.collectives import COLLECTIVES
from ringside.worker_agent.core.watch_protocol import MAX_GROUPS, Bucket, WatchBye, WatchHello, WatchReport

HANG_S = 1.0  # a collective open this long, some of its ranks not in it, is a hang
# a rank unheard this long, while others report, is stopped (a reporter reports every second at least)
SILENT_S = 3.0
RECENT = 2000
MAX_OPEN = 10000
RANKS_HELD = 2_000_000  # rank entries held in memory per job: a job of many ranks keeps fewer collectives
# rank entries in a job's process groups, in all: a few groups a rank in the largest world (a report
# names only new groups, but a forged one could name 256 of 65,536 ranks in every report)
GROUP_RANKS = 1 << 18
MAX_EVENTS = 200
NATIVE_NAMES = {"allreduce": "all_reduce", "allgather": "all_gather", "_allgather_base": "all_gather",
                "allgather_into_tensor_coalesced": "all_gather", "_reduce_scatter_base": "reduce_scatter",
                "reduce_scatter_tensor_coalesced": "reduce_scatter", "alltoall": "all_to_all",
                "alltoall_base": "all_to_all", "all_to_all_single": "all_to_all"}


class JobState(str, Enum):
    RUNNING = "running"
    DONE = "done"  # every rank ended with 0
    FAILED = "failed"  # a rank ended otherwise
    LOST = "lost"  # every rank went without a goodbye
    INTERRUPTED = "interrupted"  # the server stopped while it ran (its ranks may come back)

    @property
    def ended(self) -> bool:
        return self not in (JobState.RUNNING, JobState.INTERRUPTED)


class RankInfo(BaseModel):
    rank: int
    host: str
    local_rank: int
    local_world_size: int
    pid: int
    launcher: str
    connected: bool = True
    where: str | None = None
    seen_s: float = 0.0  # seconds since the job's start of its last report
    ended: bool = False  # it said goodbye
    exit_code: int | None = None  # None: ended without saying (ringside.watch() in a script)
    error: str | None = None
    issued: dict[str, int] = {}  # the last sequence number issued, per group
    missed: int = 0
    dropped: int = 0


class Collective(BaseModel):
    index: int  # the job's order of first sight
    group: str
    seq: int
    op: str
    dtype: str
    count: int
    bytes: int
    ranks: list[int]
    issued: dict[str, float] = {}  # rank -> seconds since the job's start
    durations: dict[str, float] = {}
    last_rank: int | None = None
    lag_s: float | None = None
    busbw_gbps: float | None = None
    bucket: Bucket | None = None
    complete: bool = False
    unseen: list[int] = []  # ranks whose report of it was lost (the recorder's ring overwrote it first)
    mismatch: dict[str, str] = {}  # rank -> what it issued, where ranks disagree on what #seq is


class Total(BaseModel):
    group: str
    op: str
    count: int = 0
    bytes: int = 0
    lag_max_s: float = 0.0
    lag_sum_s: float = 0.0
    timed: int = 0  # of them, timed by the backend (or the DDP hook)
    timed_bytes: int = 0
    duration_sum_s: float = 0.0
    factor: float = 1.0  # nccl-tests' bus factor for this op on this group

    def shown(self) -> dict:
        return {"group": self.group, "op": self.op, "count": self.count, "bytes": self.bytes,
                "lag_max_s": self.lag_max_s, "lag_mean_s": self.lag_sum_s / self.count if self.count else 0.0,
                "duration_mean_s": self.duration_sum_s / self.timed if self.timed else None,
                "busbw_gbps": (self.timed_bytes / self.duration_sum_s * self.factor / 1e9
                               if self.duration_sum_s else None)}


class Link(BaseModel):
    src: int
    dst: int
    count: int = 0
    bytes: int = 0


class Hang(BaseModel):
    """A wait (ranks inside a collective that others have not issued), a silence (a rank that stopped
    reporting, as a stopped or frozen process does, even one stopped inside a collective it issued),
    or a mismatch (ranks that issued different collectives as the same #seq of a group: they hang
    until the backend's timeout, as Flight Recorder's analysis would say)."""

    kind: Literal["wait", "silent", "mismatch"] = "wait"
    group: str
    seq: int
    op: str
    dtype: str
    count: int
    waiting: list[int]
    late: list[int]
    since_s: float
    where: dict[str, str]
    text: str


class JobSummary(BaseModel):
    id: str
    state: JobState
    started_at: float
    ended_at: float | None = None
    world_size: int
    nodes: int
    backend: str
    script: str
    collectives: int
    bytes: int
    missed: int = 0  # at least this many collectives were not seen (a rank's recorder overwrote them unread)
    hang: Hang | None = None


class Job(BaseModel):
    """What is kept of a job (its collectives apart: watch_store.py)."""

    id: str
    key: str
    state: JobState = JobState.RUNNING
    started_at: float
    ended_at: float | None = None
    t0_ns: int  # the job's start on the ranks' clocks: times are seconds since
    world_size: int
    backend: str
    script: str
    ranks: dict[str, RankInfo] = {}
    groups: dict[str, list[int]] = {}
    totals: dict[str, Total] = {}  # "group/op" ->
    links: dict[str, Link] = {}  # "src>dst" ->
    events: list[tuple[float, str]] = []
    matched: int = 0  # collectives seen, in all (the next index)
    hang: Hang | None = None

    def summary(self) -> JobSummary:
        return JobSummary(id=self.id, state=self.state, started_at=self.started_at, ended_at=self.ended_at,
                          world_size=self.world_size, nodes=len({r.host for r in self.ranks.values()}),
                          backend=self.backend, script=self.script, collectives=self.matched,
                          bytes=sum(t.bytes for t in self.totals.values()),
                          missed=max((r.missed for r in self.ranks.values()), default=0), hang=self.hang)


def op_name(op: str) -> str:
    return NATIVE_NAMES.get(op, op)


def moving_s(collective: Collective) -> float:
    """How long the collective itself took: the shortest of the ranks' durations, for a rank's clock
    starts when it issued, and the early ones wait there for the last (nccl-tests starts all at once)."""
    return min(collective.durations.values())


def bus_factor(collective: Collective) -> float:
    known = COLLECTIVES.get(collective.op)
    return known.bus_factor(len(collective.ranks)) if known is not None else 1.0


def busbw(collective: Collective) -> float | None:
    """nccl-tests' bus bandwidth, where the backend timed it."""
    if not collective.durations or not collective.bytes or moving_s(collective) <= 0:
        return None
    return collective.bytes / moving_s(collective) * bus_factor(collective) / 1e9


class Watched:
    """A job while it is watched: its record, and what is matched in memory."""

    def __init__(self, job: Job):
        self.job = job
        self.open: OrderedDict[tuple[str, int], Collective] = OrderedDict()
        self.recent: OrderedDict[tuple[str, int], Collective] = OrderedDict()  # complete, newest last
        self.first_seen: dict[tuple[str, int], float] = {}  # server clock: when a rank's report named it
        self.changed: dict[int, Collective] = {}  # index -> what viewers and the store have not had
        self.connected: set[int] = set()
        self.heard: dict[int, float] = {}  # rank -> when its last report came (server clock)
        self.mismatched: Collective | None = None  # the last collective its ranks disagreed on
        self.left_at: float | None = None  # when the last rank went without a goodbye
        self.groups_dropped = False  # whether a group past the bounds was dropped (and said)

    @classmethod
    def start(cls, job_id: str, hello: WatchHello) -> Watched:
        return cls(Job(id=job_id, key=hello.job, started_at=time.time(), t0_ns=hello.started_ns,
                       world_size=hello.world_size, backend=hello.backend, script=hello.script))

    def held(self, most: int) -> int:
        """How many collectives of a kind this job keeps in memory: `most`, fewer as its world grows."""
        return max(16, min(most, RANKS_HELD // self.job.world_size))

    # --- what ranks say ------------------------------------------------------------

    def conflict(self, hello: WatchHello) -> str | None:
        if hello.world_size != self.job.world_size:
            return f"job {self.job.id} has {self.job.world_size} ranks, not {hello.world_size}"
        if hello.rank >= hello.world_size:
            return f"rank {hello.rank} is not below the world size {hello.world_size}"
        return None

    def joined(self, hello: WatchHello) -> None:
        job = self.job
        job.t0_ns = min(job.t0_ns, hello.started_ns)
        old = job.ranks.get(str(hello.rank))
        job.ranks[str(hello.rank)] = RankInfo(
            rank=hello.rank, host=hello.host, local_rank=hello.local_rank,
            local_world_size=hello.local_world_size,
            pid=hello.pid, launcher=hello.launcher, issued=old.issued if old else {}, seen_s=self.now_s())
        self.connected.add(hello.rank)
        self.heard[hello.rank] = time.monotonic()
        self.left_at = None
        if job.state in (JobState.INTERRUPTED, JobState.LOST):
            job.state, job.ended_at = JobState.RUNNING, None
            self.note(f"rank {hello.rank} came back: watching again")

    def report(self, report: WatchReport) -> None:
        job, rank = self.job, report.rank
        info = job.ranks[str(rank)]
        info.where, info.seen_s = report.where, self.now_s()
        self.heard[rank] = time.monotonic()
        info.missed, info.dropped = report.missed, report.dropped
        self._groups(rank, report.groups)
        for link in report.links:  # as the sender says it: the receiver, a rank of the job too, says it again
            if link.sent or link.sends:
                self._link(rank, link.peer, link.sent, link.sends)
        for one in report.issued:
            info.issued[one.group] = max(info.issued.get(one.group, -1), one.seq)
            self._issued(rank, one)

    def _groups(self, rank: int, groups: dict[str, list[int]]) -> None:
        """Keep the groups a report names, each of the job's own ranks, up to MAX_GROUPS names and
        GROUP_RANKS rank entries in all; one past them is dropped, said once (its collectives are
        matched as the world's)."""
        job = self.job
        for name, ranks in groups.items():
            held = sum(len(r) for n, r in job.groups.items() if n != name)
            fits = name in job.groups or len(job.groups) < MAX_GROUPS
            if fits and held + len(ranks) <= GROUP_RANKS and all(r < job.world_size for r in ranks):
                job.groups[name] = ranks
            elif not self.groups_dropped:
                self.groups_dropped = True
                self.note(f"rank {rank} named a process group beyond what a job keeps ({MAX_GROUPS} groups, "
                          f"{GROUP_RANKS} ranks in all, each below the world size): it is dropped")

    def bye(self, bye: WatchBye) -> None:
        info = self.job.ranks[str(bye.rank)]
        info.ended, info.exit_code, info.error = True, bye.exit_code, bye.error
        self.note(f"rank {bye.rank} ended"
                  + (f" with exit code {bye.exit_code}" if bye.exit_code is not None else "")
                  + (f": {bye.error}" if bye.error else ""))

    def left(self, rank: int) -> None:
        self.connected.discard(rank)
        self.heard.pop(rank, None)
        info = self.job.ranks.get(str(rank))
        if info is not None:
            info.connected = False
            if not info.ended:
                self.note(f"rank {rank} went without a goodbye (killed, or its way to the server lost)")
        if not self.connected:
            self.left_at = time.monotonic()

    # --- matching ------------------------------------------------------------------

    def _issued(self, rank: int, one) -> None:
        key = (one.group, one.seq)
        collective = self.open.get(key) or self.recent.get(key)
        if collective is None:
            collective = self._open(one)
        collective.issued.setdefault(str(rank), round((one.t_ns - self.job.t0_ns) / 1e9, 6))
        mine = _what(one.op, one.count, one.dtype)
        theirs = _what(collective.op, collective.count, collective.dtype)
        if mine != theirs or collective.mismatch:  # once ranks disagree, what each issued
            if not collective.mismatch:  # every rank before this one issued what the first did
                collective.mismatch = {r: theirs for r in collective.issued if r != str(rank)}
            collective.mismatch.setdefault(str(rank), mine)
            self.mismatched = collective
        if one.duration_s is not None:
            collective.durations[str(rank)] = one.duration_s
            collective.busbw_gbps = busbw(collective)
        if one.bucket is not None:
            collective.bucket = one.bucket
        if not collective.complete and all(str(r) in collective.issued for r in collective.ranks):
            self._complete(collective)
        self.changed[collective.index] = collective

    def _open(self, one) -> Collective:
        ranks = self.job.groups.get(one.group) or list(range(self.job.world_size))
        collective = Collective(index=self.job.matched, group=one.group, seq=one.seq, op=op_name(one.op),
                                dtype=one.dtype, count=one.count, bytes=one.bytes, ranks=ranks)
        self.job.matched += 1
        key = (one.group, one.seq)
        self.open[key] = collective
        self.first_seen[key] = time.monotonic()
        if len(self.open) > self.held(MAX_OPEN):  # a rank far behind the rest: the oldest waits are forgotten
            old, _ = self.open.popitem(last=False)
            self.first_seen.pop(old, None)
        return collective

    def _complete(self, collective: Collective) -> None:
        key = (collective.group, collective.seq)
        self.open.pop(key, None)
        self.first_seen.pop(key, None)
        collective.complete = True
        last = max(collective.issued, key=collective.issued.get)
        collective.last_rank = int(last)
        collective.lag_s = round(collective.issued[last] - min(collective.issued.values()), 6)
        self.recent[key] = collective
        while len(self.recent) > self.held(RECENT):
            self.recent.popitem(last=False)
        total = self.job.totals.setdefault(f"{collective.group}/{collective.op}",
                                           Total(group=collective.group, op=collective.op))
        total.count += 1
        total.bytes += collective.bytes
        total.lag_max_s = max(total.lag_max_s, collective.lag_s)
        total.lag_sum_s += collective.lag_s
        if collective.busbw_gbps is not None:
            total.timed += 1
            total.timed_bytes += collective.bytes
            total.duration_sum_s += moving_s(collective)
            total.factor = bus_factor(collective)

    def _link(self, src: int, dst: int, nbytes: int, count: int) -> None:
        link = self.job.links.setdefault(f"{src}>{dst}", Link(src=src, dst=dst))
        link.count += count
        link.bytes += nbytes

    # --- hangs and endings ---------------------------------------------------------

    def check(self) -> tuple[Hang | None, str | None] | None:
        """A hang that began or ended since the last check: (the hang or None, what to say); None if nothing
        changed."""
        hang = self._hang()
        old = self.job.hang
        if hang is None and old is None:
            return None
        if hang is not None and old is not None and (hang.kind, hang.group, hang.seq, hang.late) == (
                old.kind, old.group, old.seq, old.late):
            self.job.hang = hang  # the same wait, longer
            return None
        self.job.hang = hang
        if hang is None:
            what = f"{old.op} #{old.seq} went on" if old.kind == "wait" else "it reports again"
            text = f"{_ranks(old.late)} caught up: {what} after {old.since_s:.1f} s"
        else:
            text = hang.text
        self.note(text)
        return hang, text

    def _hang(self) -> Hang | None:
        if self.job.state.ended:
            return None
        if self.mismatched is not None and not self._passed(self.mismatched):
            return self._disagree(self.mismatched)
        now = time.monotonic()
        for key, collective in list(self.open.items()):  # oldest first
            since = now - self.first_seen.get(key, now)
            if since < HANG_S:
                break
            late = [r for r in collective.ranks if str(r) not in collective.issued]
            if all(self._went_past(r, collective) for r in late):  # their reports of it were lost
                self._unseen(collective, late)
                continue
            late = [r for r in late if r in self.connected and not self.job.ranks[str(r)].ended]
            if late:
                return self._hang_of(collective, late, since)
        return self._silence(now)

    def left_open(self) -> list[Collective]:
        """At the job's end, what never completed, oldest first: lost from some rank's reports (it
        went past it), or what the job ended waiting in."""
        for c in list(self.open.values()):
            late = [r for r in c.ranks if str(r) not in c.issued]
            if all(self._went_past(r, c) for r in late):
                self._unseen(c, late)
        return sorted([*self.open.values(), *(c for c in self.recent.values() if c.unseen)],
                      key=lambda c: c.index)

    def _went_past(self, rank: int, c: Collective) -> bool:
        info = self.job.ranks.get(str(rank))
        return info is not None and info.issued.get(c.group, -1) > c.seq

    def _passed(self, c: Collective) -> bool:
        """Whether a later collective of its group has completed: the job went on after all."""
        return any(o.group == c.group and o.seq > c.seq and o.complete
                   for o in list(self.recent.values())[-64:])

    def _unseen(self, c: Collective, ranks: list[int]) -> None:
        """A collective some ranks issued and reported lost: kept, incomplete, saying whose."""
        self.open.pop((c.group, c.seq), None)
        self.first_seen.pop((c.group, c.seq), None)
        c.unseen = ranks
        self.recent[(c.group, c.seq)] = c
        self.changed[c.index] = c

    def _disagree(self, c: Collective) -> Hang:
        """The ranks apart from the most that issued one thing are the odd ones (`late`); with no
        such most (a tie), every rank that issued it is."""
        sides: dict[str, list[int]] = {}
        for r, what in sorted(c.mismatch.items(), key=lambda kv: int(kv[0])):
            sides.setdefault(what, []).append(int(r))
        by_size = sorted(sides.items(), key=lambda side: len(side[1]))  # the odd ones first
        most = by_size[-1][1] if len(by_size[-1][1]) > len(by_size[-2][1]) else []

        def side(what: str, ranks: list[int]) -> str:
            many = ranks is most and len(ranks) > 8
            return f"{f'the other {len(ranks)} ranks' if many else _ranks(ranks)} {what}"

        said = "; ".join(side(what, ranks) for what, ranks in by_size)
        ranks = sorted(int(r) for r in c.issued)
        return Hang(kind="mismatch", group=c.group, seq=c.seq, op=c.op, dtype=c.dtype, count=c.count,
                    waiting=ranks, late=[r for r in ranks if r not in most], since_s=0.0, where={},
                    text=(f"ranks disagree on #{c.seq} of group {c.group}: {said}; "
                          "they wait until the backend's timeout")[:1000])

    def _silence(self, now: float) -> Hang | None:
        """The ranks that stopped reporting while the others go on."""
        present = [r for r in self.connected if not self.job.ranks[str(r)].ended]
        silent = sorted(r for r in present if now - self.heard.get(r, now) > SILENT_S)
        talking = sorted(r for r in present if r not in silent)
        if not silent or not talking:
            return None
        job = self.job
        where = {str(r): job.ranks[str(r)].where for r in silent if job.ranks[str(r)].where}
        since = min(now - self.heard[r] for r in silent)
        said = [f"rank {r} has said nothing for {now - self.heard[r]:.1f} s" + _last(job.ranks[str(r)])
                for r in silent]
        return Hang(kind="silent", group="", seq=-1, op="", dtype="", count=0, waiting=talking, late=silent,
                    since_s=round(since, 2), where=where,
                    text=("; ".join(said) + f"; {_ranks(talking)} go on")[:1000])

    def _hang_of(self, c: Collective, late: list[int], since: float) -> Hang:
        job, waiting = self.job, sorted(int(r) for r in c.issued)
        where = {str(r): job.ranks[str(r)].where for r in late
                 if str(r) in job.ranks and job.ranks[str(r)].where}
        what = f"{c.count:,} {c.dtype}" + (f", bucket {c.bucket.index}" if c.bucket else "")
        said = []
        for r in late:
            info = job.ranks.get(str(r))
            last = info.issued.get(c.group) if info else None
            said.append(f"rank {r} last reported "
                        + (f"#{last}" if last is not None else "nothing in this group")
                        + (f", last seen at {info.where} {self.now_s() - info.seen_s:.1f} s ago"
                           if info and info.where else ""))
        text = (f"{_ranks(waiting)} {'waits' if len(waiting) == 1 else 'wait'} in {c.op} #{c.seq} ({what}); "
                + "; ".join(said))
        return Hang(group=c.group, seq=c.seq, op=c.op, dtype=c.dtype, count=c.count, waiting=waiting,
                    late=late, since_s=round(since, 2), where=where, text=text[:1000])

    def ended(self, lost_after: float) -> bool:
        """Whether the job is over: every rank said goodbye, or all are gone and `lost_after` s have
        passed. A rank gone without one crashed, or lost its way to the server: the job failed if
        any other rank said it ended, and is lost if none did."""
        job = self.job
        if job.state.ended:
            return True
        ended = [r for r in job.ranks.values() if r.ended]
        failed = len(ended) < job.world_size or any(r.exit_code not in (0, None) or r.error for r in ended)
        gone = self.left_at is not None and time.monotonic() - self.left_at >= lost_after
        if self.connected or (failed and not gone and not any(r.exit_code not in (0, None) for r in ended)):
            return False
        job.state = JobState.LOST if not ended else JobState.FAILED if failed else JobState.DONE
        job.ended_at, job.hang = time.time(), None
        self.note(f"the job ended: {job.state.value}")
        return True

    # --- reading -------------------------------------------------------------------

    def now_s(self) -> float:
        return round(time.time() - self.job.t0_ns / 1e9, 3)

    def note(self, text: str) -> None:
        self.job.events = [*self.job.events[-(MAX_EVENTS - 1):], (self.now_s(), text)]

    def latest(self, limit: int, before: int | None = None) -> list[Collective]:
        """The newest collectives in memory (complete and open), oldest first."""
        every = sorted([*self.recent.values(), *self.open.values()], key=lambda c: c.index)
        if before is not None:
            every = [c for c in every if c.index < before]
        return every[-limit:]

    def take_changed(self) -> list[Collective]:
        changed, self.changed = list(self.changed.values()), {}
        return sorted(changed, key=lambda c: c.index)


def _last(info: RankInfo) -> str:
    issued = ", ".join(f"#{seq} in group {g}" for g, seq in info.issued.items())
    said = ["it last reported " + issued] * bool(info.issued)
    said += [f"last seen at {info.where}"] * bool(info.where)
    return f" ({'; '.join(said)})" if said else ""


def _what(op: str, count: int, dtype: str) -> str:
    return f"{op_name(op)} of {count:,} {dtype}".rstrip()


def _ranks(ranks: list[int]) -> str:
    return ("rank " if len(ranks) == 1 else "ranks ") + ", ".join(map(str, ranks))
