"""A watched job while it is watched: a user's own torchrun job whose ranks report what they issue
(ringside.watch). It keeps the job's record (record.WatchedJob: its ranks, groups, totals, links,
events) and what its ranks' reports say in parts: which ranks are here (presence.py), its
collectives matched across ranks (matching.py) and whether they agree (agreement.py), its sends and
receives (p2p.py). It takes the ranks' hellos, reports and goodbyes, says when the job ended, and
answers what a hang check asks (hangs.py): who is here, what a collective is, who finished it."""

from __future__ import annotations

import time
from collections.abc import Callable

from ringside.server.watched import rules
from ringside.server.watched.agreement import Agreement
from ringside.server.watched.matching import Matching
from ringside.server.watched.p2p import PointToPoint
from ringside.server.watched.pauses import Pauses
from ringside.server.watched.presence import Presence
from ringside.server.watched.rank_waits import HANG_S
from ringside.server.watched.record import (
    Event,
    RankInfo,
    WatchedCollective,
    WatchedJob,
    WatchedState,
)
from ringside.server.watched.words import Phrase, english, said
from ringside.server.watched.words import rank as rank_words
from ringside.worker_agent.core.watch_protocol import MAX_GROUPS, WatchBye, WatchHello, WatchReport

# rank entries in a job's process groups, in all: a few groups a rank in the largest world (a report
# names only new groups, but a forged one could name 256 of 65,536 ranks in every report)
GROUP_RANKS = 1 << 18
MAX_EVENTS = 200
ENDED_WORDS = {
    WatchedState.DONE: "job_done",
    WatchedState.FAILED: "job_failed",
    WatchedState.LOST: "job_lost",
}


class LiveWatchedJob:
    def __init__(
        self, job: WatchedJob, clock: Callable[[], float] = time.monotonic, hang_after: float = HANG_S
    ):
        self.job = job
        self.hang_after = hang_after  # seconds a wait lasts before it is a hang: the server's, or the job's
        self.pauses = Pauses()  # where its ranks paused before and went on (not a hang until longer)
        self.clock = clock  # seconds, monotonic: the server's, or one a test moves by hand
        self.wall: Callable[[], float] = time.time  # now, as "s ago" counts it (a dump's moment, for dumps)
        self.presence = Presence(clock)
        self.agreement = Agreement()
        self.collectives = Matching(job, self.agreement, clock)
        self.p2p = PointToPoint(job.world_size, job.links, clock)
        self.groups_dropped = False  # whether a group past the bounds was dropped (and said)

    @classmethod
    def start(
        cls,
        job_id: str,
        hello: WatchHello,
        clock: Callable[[], float] = time.monotonic,
        hang_after: float = HANG_S,
    ) -> LiveWatchedJob:
        job = WatchedJob(
            id=job_id,
            key=hello.job,
            started_at=time.time(),
            t0_ns=hello.started_ns,
            world_size=hello.world_size,
            backend=hello.backend,
            script=hello.script,
        )
        return cls(job, clock, hang_after)

    # --- what ranks say ------------------------------------------------------------------

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
            rank=hello.rank,
            host=hello.host,
            local_rank=hello.local_rank,
            local_world_size=hello.local_world_size,
            pid=hello.pid,
            launcher=hello.launcher,
            issued=old.issued if old else {},
            seen_s=self.now_s(),
        )
        self.presence.came(hello.rank)
        if hello.hang_after_s is not None:  # the job's own threshold, over the server's
            self.hang_after = hello.hang_after_s
        if job.state in (WatchedState.INTERRUPTED, WatchedState.LOST):
            job.state, job.ended_at = WatchedState.RUNNING, None
            self.note([said("came_back", rank=rank_words(hello.rank))])

    def report(self, report: WatchReport) -> None:
        rank = report.rank
        info = self.job.ranks[str(rank)]
        info.where, info.seen_s = report.where, self.now_s()
        self.presence.reported(rank, report.unread)
        info.missed, info.dropped, info.unread = report.missed, report.dropped, report.unread
        info.pending = report.pending
        self._groups(rank, report.groups, report.group_descs)
        self.p2p.reported(rank, report.links, report.waits)
        for one in report.issued:
            info.issued[one.group] = max(info.issued.get(one.group, -1), one.seq)
            self.collectives.issued(rank, one)

    def _groups(self, rank: int, groups: dict[str, list[int]], descs: dict[str, str]) -> None:
        """Keep the groups a report names, each of the job's own ranks, up to MAX_GROUPS names and
        GROUP_RANKS rank entries in all; one past them is dropped, said once (its collectives are
        matched as the world's). A group keeps the name torch gave it, where it gave one."""
        job = self.job
        for name, ranks in groups.items():
            if job.groups.get(name) != ranks:  # said again (every rank names the world): kept already
                held = sum(len(r) for n, r in job.groups.items() if n != name)
                fits = name in job.groups or len(job.groups) < MAX_GROUPS
                if not (
                    fits and held + len(ranks) <= GROUP_RANKS and max(ranks, default=-1) < job.world_size
                ):
                    self._dropped(rank)
                    continue
                job.groups[name] = ranks  # one list kept, which the group's collectives share
            if descs.get(name):
                job.group_descs[name] = descs[name]

    def _dropped(self, rank: int) -> None:
        if not self.groups_dropped:
            self.groups_dropped = True
            self.note([said("groups_dropped", rank=rank_words(rank), groups=MAX_GROUPS, ranks=GROUP_RANKS)])

    def bye(self, bye: WatchBye) -> None:
        info = self.job.ranks[str(bye.rank)]
        info.ended, info.exit_code, info.error = True, bye.exit_code, bye.error
        self.p2p.stop_waiting(bye.rank)
        self.note([ending_words(bye.rank, bye.exit_code, bye.error)])

    def left(self, rank: int) -> None:
        self.presence.went(rank)
        self.p2p.stop_waiting(rank)
        info = self.job.ranks.get(str(rank))
        if info is not None:
            info.connected = False
            if not info.ended:
                self.note([said("went_without_goodbye", rank=rank_words(rank))])

    def ended(self, lost_after: float) -> bool:
        """Whether the job is over: every rank said goodbye, or all are gone and `lost_after` s have
        passed. A rank gone without one crashed, or lost its way to the server: the job failed if
        any other rank said it ended, and is lost if none did."""
        job = self.job
        if job.state.ended:
            return True
        ended = [r for r in job.ranks.values() if r.ended]
        failed = len(ended) < job.world_size or any(r.exit_code not in (0, None) or r.error for r in ended)
        gone_for = self.presence.gone_for(self.clock())
        gone = gone_for is not None and gone_for >= lost_after
        if self.presence.connected or (
            failed and not gone and not any(r.exit_code not in (0, None) for r in ended)
        ):
            return False
        job.state = WatchedState.LOST if not ended else WatchedState.FAILED if failed else WatchedState.DONE
        job.ended_at, job.hang = time.time(), None
        self.note([said(ENDED_WORDS[job.state])])
        return True

    def note(self, words: list[Phrase]) -> None:
        event = Event(t=self.now_s(), text=english(words), words=words)
        self.job.events = [*self.job.events[-(MAX_EVENTS - 1) :], event]

    # --- what a hang check asks ----------------------------------------------------------

    def now_s(self) -> float:
        """Now, in seconds since the job's start (as a rank's `seen_s` counts)."""
        return round(self.wall() - self.job.t0_ns / 1e9, 3)

    def rank_info(self, rank: int) -> RankInfo | None:
        """What the job knows of `rank`: where it was last seen, what it last issued in each group."""
        return self.job.ranks.get(str(rank))

    def is_here(self, rank: int) -> bool:
        """Whether `rank` is connected and has not said goodbye."""
        info = self.job.ranks.get(str(rank))
        return self.presence.is_connected(rank) and info is not None and not info.ended

    def here(self) -> list[int]:
        """The ranks connected that have not said goodbye."""
        return [r for r in self.presence.connected_ranks() if not self.job.ranks[str(r)].ended]

    def all_ended(self, ranks: list[int]) -> bool:
        """Whether every one of `ranks` said goodbye (rather than went without one)."""
        return all((info := self.rank_info(r)) is not None and info.ended for r in ranks)

    def is_past(self, rank: int, group: str, seq: int) -> bool:
        """Whether `rank` issued a later collective of `group` than #seq, or finished #seq."""
        info = self.rank_info(rank)
        return info is not None and info.is_past(group, seq)

    def went_past(self, rank: int, c: WatchedCollective) -> bool:
        """Whether `rank` has issued a later collective of c's group than c."""
        info = self.rank_info(rank)
        return info is not None and info.issued_after(c.group, c.seq)

    def late_went_past(self, c: WatchedCollective) -> bool:
        """Whether every rank of c that has not issued it went past it (their reports of it were lost).
        Only a rank that said hello can have: a group of more ranks than said hello has one that did not."""
        if len(c.ranks) > len(self.job.ranks):
            return False
        # walked till the first late rank that did not: each tick asks it of every collective open long
        return all(self.went_past(r, c) for r in c.ranks if str(r) not in c.issued)

    def finished_by(self, rank: int | str, c: WatchedCollective) -> bool:
        """Whether `rank` said it finished c (issued it, and its recorder retired it)."""
        info = self.job.ranks.get(str(rank))
        return info is not None and info.finished(c.group, c.seq)

    def finished(self, c: WatchedCollective) -> bool:
        """Whether c is finished, so that the ranks not yet seen in it are late only in saying so (stopped
        before their reporter read it), and whoever waits, waits in a later one. A collective that is not
        rooted completes only once every rank of its group has issued it: one rank that finished it (its
        recorder retired it) says so. A rank finishes its part of a rooted one without the others (a
        gather's sender once the root has its block), but its root only once every rank took part (a
        send waits for its receive): so every rank that issued it, the root among them, must have."""
        done = (self.finished_by(rank, c) for rank in c.issued)
        return all(done) if c.op in rules.ROOTED else any(done)

    def issued_by_all(self, c: WatchedCollective) -> bool:
        """Whether every rank of c's group issued it: each said so, or one finished it where it completes
        only then. A rank stopped right after issuing it may never say so: its reporter reads the recorder
        a poll behind the rank, and a stopped one reads no more; yet a rank it sent its part to finished."""
        return c.complete or self.finished(c)

    def left_open(self) -> list[WatchedCollective]:
        """At the job's end, what never completed, oldest first: lost from some rank's reports (it
        went past it), or what the job ended waiting in."""
        for c, _ in self.collectives.opened(self.clock()):
            if self.late_went_past(c):
                self.collectives.lost(c, c.not_issued())
        return self.collectives.left_open()

    def group_label(self, group: str) -> str:
        """A group as the page names it: the name torch gave it, where it gave one."""
        desc = self.job.group_descs.get(group, "")
        return desc if desc and desc not in ("undefined", "default_pg") else group

    def subgroup(self, group: str) -> list[int] | None:
        """The ranks of `group` where it is not the whole world."""
        members = self.job.groups.get(group)
        return members if members is not None and len(members) < self.job.world_size else None


def ending_words(rank: int, exit_code: int | None, error: str | None) -> Phrase:
    """How a rank ended, as its goodbye says: the signal that stopped it, the exception it raised
    (a backend's timeout is one), or its exit code."""
    code = said("exit_code", code=exit_code) if exit_code is not None else None
    if error and error.startswith("SIG"):
        return said("stopped_by", rank=rank_words(rank), signal=error, code=code)
    if error:
        timed_out = "timed out" in error.lower() or "timeout" in error.lower()
        if timed_out:
            return said("timed_out", rank=rank_words(rank), code=code, error=error)
        return said("raised", rank=rank_words(rank), code=code, error=error)
    if exit_code is not None:
        return said("ended_with", rank=rank_words(rank), code=exit_code)
    return said("ended", rank=rank_words(rank))
