"""What a watched job's reporter (ringside.watch) tells the server over /ws/watch: a hello
naming the job and the rank, then a report per poll (the collectives the rank issued
since the last, its process groups, its point-to-point traffic, where its main thread
is), then a goodbye with the exit code. Nothing flows back: the server never sends a
watched job anything to do.

Every list is bounded where it is parsed, so a forged frame costs the server little.
Times are the rank's wall clock in nanoseconds (Flight Recorder's clock)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, TypeAdapter

from .protocol import PROTOCOL_VERSION, Index, Strict

MAX_JOB_WORLD = 1 << 16  # a watched job is a user's: larger than any world Ringside runs (protocol.MAX_WORLD)
MAX_ISSUED = 1024  # collectives in one report: a reporter sends more as more reports
MAX_GROUPS = 256  # process groups a job may name
MAX_PARAMS = 8  # parameter names kept per DDP bucket
MAX_WAITS = 64  # sends and receives a rank waits in at once, said
# reports a second that a calm job's ranks send in all: what one server reads with most of a core,
# its page and other jobs beside (docs/watch.md#a-job-of-thousands-of-ranks)
JOB_REPORTS_S = 4000
# a hang threshold a server or a job may set (--hang-after): at least the hang check's beat (four a
# second), and no more than an hour (a backend's own timeout ends a hung job long before; NCCL's is
# ten minutes)
MIN_HANG_AFTER_S, MAX_HANG_AFTER_S = 0.25, 3600.0
Name = Annotated[str, Field(max_length=64)]
Nanos = Annotated[int, Field(ge=0, lt=1 << 63)]
Size = Annotated[int, Field(ge=0, lt=1 << 62)]
Ranks = Annotated[list[Index], Field(max_length=MAX_JOB_WORLD)]


class Bucket(Strict):
    """A DDP gradient bucket, as the comm hook saw it."""

    index: Annotated[int, Field(ge=0, lt=1 << 20)]
    numel: Size
    params: list[Annotated[str, Field(max_length=200)]] = Field(default_factory=list, max_length=MAX_PARAMS)


class Issued(Strict):
    """One collective, as one rank issued it: matched across ranks by (group, seq)."""

    group: Name  # the process group's name ("0" is the default group)
    seq: Size  # the group's collective sequence number
    op: Name  # "all_reduce", "broadcast", "barrier", ...
    dtype: Name = ""
    count: Size = 0  # elements this rank put in
    count_out: Size | None = None  # elements it takes out (None from a reporter that does not say)
    bytes: Size = 0
    t_ns: Nanos  # when it was issued
    duration_s: Annotated[float, Field(ge=0, le=1000000.0)] | None = None  # where the backend times it (NCCL)
    bucket: Bucket | None = None


class Link(Strict):
    """Point-to-point traffic with one peer since the last report, and how many sends to it and
    receives from it the rank has issued in all: a send is paired with its peer's receive by order."""

    peer: Index
    sent: Size = 0
    received: Size = 0
    sends: Size = 0
    receives: Size = 0
    sends_total: Size | None = None  # None from a reporter that does not say
    receives_total: Size | None = None


class P2PWait(Strict):
    """A send or receive the rank is blocked in, not yet complete: the `nth` of its sends to `peer`
    (or receives from it), which the peer's `nth` receive from it (or send to it) completes."""

    peer: Index  # the global rank
    send: bool
    nth: Annotated[int, Field(ge=1, lt=1 << 62)]
    count: Size = 0
    dtype: Name = ""
    t_ns: Nanos  # when it was issued
    blocked: bool = True  # the rank waits on it (False: the backend's record only says it is not done)


class WatchHello(Strict):
    type: Literal["watch_hello"] = "watch_hello"
    v: int = PROTOCOL_VERSION
    job: Name  # the key every rank of the job shares (rank 0 picks it)
    rank: Index
    world_size: Annotated[int, Field(ge=1, le=MAX_JOB_WORLD)]
    local_rank: Index = 0
    local_world_size: Annotated[int, Field(ge=1, le=MAX_JOB_WORLD)] = 1
    host: Annotated[str, Field(max_length=255)]
    pid: Annotated[int, Field(ge=0, lt=1 << 31)]
    # "dump": read from its Flight Recorder dump; "debug_server": from torch.distributed.debug's (postmortem/)
    launcher: Literal["torchrun", "script", "dump", "debug_server"]
    backend: Name
    script: Annotated[str, Field(max_length=200)] = ""
    started_ns: Nanos
    mechanisms: list[Literal["flight_recorder", "p2p", "ddp_hook", "nccl_timing"]] = Field(
        default_factory=list, max_length=4
    )
    # seconds a wait on this job lasts before it is a hang (None: the server's --hang-after)
    hang_after_s: Annotated[float, Field(ge=MIN_HANG_AFTER_S, le=MAX_HANG_AFTER_S)] | None = None


class WatchReport(Strict):
    type: Literal["watch_report"] = "watch_report"
    v: int = PROTOCOL_VERSION
    rank: Index
    t_ns: Nanos  # when the report was made
    where: Annotated[str, Field(max_length=300)] | None = None  # the main thread's line in user code
    # groups new since the last report (each default made anew, not a shared one copied: a report's cost)
    groups: dict[Name, Ranks] = Field(default_factory=dict, max_length=MAX_GROUPS)
    # the names torch gave them (new_group(group_desc=...), DeviceMesh's "mesh_dp"), by group
    group_descs: dict[Name, Name] = Field(default_factory=dict, max_length=MAX_GROUPS)
    issued: list[Issued] = Field(default_factory=list, max_length=MAX_ISSUED)
    # per group, the oldest collective this rank issued and has not completed: what it waits in
    # (None from a reporter that does not say)
    pending: dict[Name, Size] | None = Field(None, max_length=MAX_GROUPS)
    links: list[Link] = Field(default_factory=list, max_length=1024)
    # the sends and receives it waits in now
    waits: list[P2PWait] = Field(default_factory=list, max_length=MAX_WAITS)
    missed: Size = 0  # collectives the recorder's ring lost before they were read, in all
    # collectives, sends and receives issued since the recorder was last read: not yet said (0 where
    # they cannot be counted); a rank with some may wait in what it has not said
    unread: Size = 0
    dropped: Size = 0  # reports this rank could not send (the server away), in all


class WatchBye(Strict):
    type: Literal["watch_bye"] = "watch_bye"
    v: int = PROTOCOL_VERSION
    rank: Index
    exit_code: Annotated[int, Field(ge=-256, le=256)] | None = None
    error: Annotated[str, Field(max_length=300)] | None = None


WATCH_MESSAGE = TypeAdapter(Annotated[WatchHello | WatchReport | WatchBye, Field(discriminator="type")])


def hang_after_of(text: str | float) -> float:
    """A hang threshold as given (a flag's words, or a number), in seconds, within its bounds; a
    ValueError in one line otherwise."""
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"must be a number of seconds, not {text!r}") from None
    if not MIN_HANG_AFTER_S <= value <= MAX_HANG_AFTER_S:  # NaN too
        raise ValueError(f"must be from {MIN_HANG_AFTER_S:g} to {MAX_HANG_AFTER_S:g} seconds, not {text}")
    return value


def calm_interval_s(world_size: int) -> float:
    """The least time between a calm rank's reports in a job of `world_size` ranks: together they
    send at most JOB_REPORTS_S a second, and each at least once a second (the server takes a rank
    unheard for longer as stopped). A hang is named as soon: it has to last a second first."""
    return min(1.0, world_size / JOB_REPORTS_S)
