"""What is kept of a watched job (ringside.watch): the job, its ranks, its collectives as
matched across ranks, its totals per (group, op) and per p2p link, and a hang while it lasts.
The figures a collective carries are nccl-tests' (bus bandwidth from the backend's times)."""

from __future__ import annotations

from enum import Enum
from typing import Literal

from pydantic import BaseModel, model_validator

from ringside.server.watched.words import Phrase
from ringside.worker_agent.core.collectives import COLLECTIVES
from ringside.worker_agent.core.watch_protocol import Bucket

NATIVE_NAMES = {
    "allreduce": "all_reduce",
    "allgather": "all_gather",
    "_allgather_base": "all_gather",
    "allgather_into_tensor_coalesced": "all_gather",
    "_reduce_scatter_base": "reduce_scatter",
    "reduce_scatter_tensor_coalesced": "reduce_scatter",
    "alltoall": "all_to_all",
    "alltoall_base": "all_to_all",
    "all_to_all_single": "all_to_all",
}


class WatchedState(str, Enum):
    RUNNING = "running"
    DONE = "done"  # every rank ended with 0
    FAILED = "failed"  # a rank ended otherwise
    LOST = "lost"  # every rank went without a goodbye
    INTERRUPTED = "interrupted"  # the server stopped while it ran (its ranks may come back)
    DUMPED = "dumped"  # opened after the fact from its ranks' Flight Recorder dumps (server/postmortem)

    @property
    def ended(self) -> bool:
        return self not in (WatchedState.RUNNING, WatchedState.INTERRUPTED)


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
    pending: dict[str, int] | None = None  # per group, the oldest collective issued and not completed
    missed: int = 0
    dropped: int = 0
    unread: int = 0  # collectives, sends and receives issued and not yet said, at its last report

    def issued_after(self, group: str, seq: int) -> bool:
        """Whether it said it issued a later collective of `group` than #seq."""
        return self.issued.get(group, -1) > seq

    def is_past(self, group: str, seq: int) -> bool:
        """Whether it is past #seq of `group`: it issued a later one, or finished it."""
        finished_it = self.pending is not None and self.pending.get(group, seq + 1) > seq
        return self.issued_after(group, seq) or finished_it

    def finished(self, group: str, seq: int) -> bool:
        """Whether it said it finished #seq of `group`: it issued it, and its recorder retired it."""
        return (
            self.pending is not None
            and self.issued.get(group, -1) >= seq
            and self.pending.get(group, seq + 1) > seq
        )


class WatchedCollective(BaseModel):
    index: int  # the job's order of first sight
    group: str
    seq: int
    op: str
    dtype: str
    count: int  # the most elements a rank put in (where ranks put in their own: all_to_all, scatter)
    bytes: int  # and the most bytes a rank's buffer held, in or out
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

    def issued_by(self, rank: int) -> bool:
        return str(rank) in self.issued

    def issuers(self) -> list[int]:
        """The ranks that issued it, in rank order."""
        return sorted(int(r) for r in self.issued)

    def not_issued(self) -> list[int]:
        """Its group's ranks that have not issued it."""
        return [r for r in self.ranks if str(r) not in self.issued]


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

    def add(self, collective: WatchedCollective) -> None:
        """Count a complete collective in."""
        assert collective.lag_s is not None, "a complete collective has its lag (Matching._complete)"
        self.count += 1
        self.bytes += collective.bytes
        self.lag_max_s = max(self.lag_max_s, collective.lag_s)
        self.lag_sum_s += collective.lag_s
        if collective.busbw_gbps is not None:
            self.timed += 1
            self.timed_bytes += collective.bytes
            self.duration_sum_s += moving_s(collective)
            self.factor = bus_factor(collective)

    def shown(self) -> dict:
        return {
            "group": self.group,
            "op": self.op,
            "count": self.count,
            "bytes": self.bytes,
            "lag_max_s": self.lag_max_s,
            "lag_mean_s": self.lag_sum_s / self.count if self.count else 0.0,
            "duration_mean_s": self.duration_sum_s / self.timed if self.timed else None,
            "busbw_gbps": (
                self.timed_bytes / self.duration_sum_s * self.factor / 1e9 if self.duration_sum_s else None
            ),
        }


class LinkTotal(BaseModel):
    src: int
    dst: int
    count: int = 0
    bytes: int = 0


class Hang(BaseModel):
    """A wait (ranks wait, in a collective or a send or receive, for `late` ones that wait on no one:
    running elsewhere, or stopped), a deadlock (`late`: ranks that wait on each other in a cycle), a
    silence (a rank that stopped reporting while the others go on, as a stopped or frozen process
    does), or a mismatch (ranks that issued different collectives as the same #seq of a group, by
    the op's rules: they hang until the backend's timeout, as Flight Recorder's analysis says).
    group, seq, op, dtype and count say what most of the waiting ranks wait in (a send or receive:
    op "send" or "recv", group "" and seq -1)."""

    kind: Literal["wait", "silent", "mismatch", "deadlock"] = "wait"
    group: str
    seq: int
    op: str
    dtype: str
    count: int
    waiting: list[int]
    late: list[int]
    since_s: float
    where: dict[str, str]
    text: str  # in English: `words` rendered (words.py)
    words: list[Phrase] = []  # what it says, as phrases the page says in its own language
    waits: dict[str, str] = {}  # rank -> what it waits in, in words (a wait or a deadlock)


class Event(BaseModel):
    """Something a job's record says happened, `t` seconds into it: in English, and as phrases (a
    job kept by an older server has the text alone, stored as a pair)."""

    t: float
    text: str
    words: list[Phrase] = []

    @model_validator(mode="before")
    @classmethod
    def _pair(cls, value: object) -> object:
        if isinstance(value, (list, tuple)) and len(value) == 2:
            return {"t": value[0], "text": value[1]}
        return value


class WatchedSummary(BaseModel):
    id: str
    state: WatchedState
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


class WatchedJob(BaseModel):
    """What is kept of a job (its collectives apart: store.py)."""

    id: str
    key: str
    state: WatchedState = WatchedState.RUNNING
    started_at: float
    ended_at: float | None = None
    t0_ns: int  # the job's start on the ranks' clocks: times are seconds since
    world_size: int
    backend: str
    script: str
    ranks: dict[str, RankInfo] = {}
    groups: dict[str, list[int]] = {}
    group_descs: dict[str, str] = {}  # group -> the name torch gave it ("mesh_dp", a group_desc)
    totals: dict[str, Total] = {}  # "group/op" ->
    links: dict[str, LinkTotal] = {}  # "src>dst" ->
    events: list[Event] = []
    matched: int = 0  # collectives seen, in all (the next index)
    hang: Hang | None = None

    def summary(self) -> WatchedSummary:
        return WatchedSummary(
            id=self.id,
            state=self.state,
            started_at=self.started_at,
            ended_at=self.ended_at,
            world_size=self.world_size,
            nodes=len({r.host for r in self.ranks.values()}),
            backend=self.backend,
            script=self.script,
            collectives=self.matched,
            bytes=sum(t.bytes for t in self.totals.values()),
            missed=max((r.missed for r in self.ranks.values()), default=0),
            hang=self.hang,
        )


def op_name(op: str) -> str:
    return NATIVE_NAMES.get(op, op)


def moving_s(collective: WatchedCollective) -> float:
    """How long the collective itself took: the shortest of the ranks' durations, for a rank's clock
    starts when it issued, and the early ones wait there for the last (nccl-tests starts all at once)."""
    return min(collective.durations.values())


def bus_factor(collective: WatchedCollective) -> float:
    known = COLLECTIVES.get(collective.op)
    return known.bus_factor(len(collective.ranks)) if known is not None else 1.0


def busbw(collective: WatchedCollective) -> float | None:
    """nccl-tests' bus bandwidth, where the backend timed it."""
    if not collective.durations or not collective.bytes or moving_s(collective) <= 0:
        return None
    return collective.bytes / moving_s(collective) * bus_factor(collective) / 1e9
