"""What `ringside open` tells a server over /ws/dumps: a job that ended before Ringside heard of it,
opened from its ranks' Flight Recorder dumps. The ranks are said in the watch's own protocol (a hello
and reports each, watch_protocol.py), so the server matches and judges them with the watch's rules;
the server answers once, with the job it keeps and its verdict.

Bounded as the watch's frames are: a rank's reports in one frame, at most MAX_REPORTS of them."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, TypeAdapter

from .protocol import PROTOCOL_VERSION, Index, Strict
from .watch_protocol import MAX_JOB_WORLD, Nanos, WatchHello, WatchReport

MAX_REPORTS = 32  # a rank's dump in reports of 1,024 collectives: a frame of a few MB (the newest are kept)


class DumpsHello(Strict):
    type: Literal["dumps_hello"] = "dumps_hello"
    v: int = PROTOCOL_VERSION
    source: Annotated[str, Field(max_length=200)]  # what was opened: folders, files, a debug server
    world_size: Annotated[int, Field(ge=1, le=MAX_JOB_WORLD)]
    ranks: list[Index] = Field(max_length=MAX_JOB_WORLD)  # the ranks that left a dump: each comes next
    taken_ns: Nanos  # when the newest dump was taken


class DumpedRank(Strict):
    type: Literal["dumped_rank"] = "dumped_rank"
    v: int = PROTOCOL_VERSION
    hello: WatchHello
    reports: list[WatchReport] = Field([], max_length=MAX_REPORTS)


class DumpsOpened(Strict):
    """The server's answer: the job it keeps, and what it found."""

    type: Literal["dumps_opened"] = "dumps_opened"
    job: str
    hang: bool
    verdict: str


DUMPS_MESSAGE = TypeAdapter(Annotated[DumpsHello | DumpedRank, Field(discriminator="type")])
