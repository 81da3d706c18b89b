"""A watched job: a user's own torchrun job whose ranks report what they issue
(ringside.watch). Its collectives are matched across ranks by (process group, sequence
number), as Flight Recorder's analysis matches them: a collective is complete once every
rank of its group has issued it; then the rank that issued it last, and by how much,
names the straggler. Ranks that issued different things as one collective disagree, by the
op's own rules (rules.py: sizes only where the op needs them equal). What each rank waits in
(its collectives not yet done, its blocked sends and receives, paired with its peers' by
order) is kept as its reports say it: hangs.py says who waits for whom.

Memory is bounded whatever the job's length and size: the last RECENT collectives are kept
whole (the live view, the API's first page), collectives still open at most MAX_OPEN (fewer
for a job of many ranks: RANKS_HELD rank entries in all),
and everything else is folded into totals per (group, op), per p2p link, as it goes."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable

from ringside.server.watched import rules
from ringside.server.watched.record import (
    Event,
    LinkTotal,
    RankInfo,
    Total,
    WatchedCollective,
    WatchedJob,
    WatchedState,
    busbw,
    op_name,
)
from ringside.server.watched.words import Phrase, english, render, said
from ringside.server.watched.words import rank as of
from ringside.worker_agent.core.watch_protocol import (
    MAX_GROUPS,
    Issued,
    Link,
    P2PWait,
    WatchBye,
    WatchHello,
    WatchReport,
)

RECENT = 2000
MAX_OPEN = 10000
RANKS_HELD = 2_000_000  # rank entries held in memory per job: a job of many ranks keeps fewer collectives
# rank entries in a job's process groups, in all: a few groups a rank in the largest world (a report
# names only new groups, but a forged one could name 256 of 65,536 ranks in every report)
GROUP_RANKS = 1 << 18
MAX_EVENTS = 200


class Matching:
    """A job while it is watched: its record, and what is matched in memory."""

    def __init__(self, job: WatchedJob, clock: Callable[[], float] = time.monotonic):
        self.job = job
        self.clock = clock  # seconds, monotonic: the server's, or one a test moves by hand
        self.wall: Callable[[], float] = time.time  # now, as "s ago" counts it (a dump's moment, for dumps)
        self.open: OrderedDict[tuple[str, int], WatchedCollective] = OrderedDict()
        self.recent: OrderedDict[tuple[str, int], WatchedCollective] = OrderedDict()  # complete, newest last
        self.first_seen: dict[tuple[str, int], float] = {}  # server clock: when a rank's report named it
        self.changed: dict[int, WatchedCollective] = {}  # index -> what viewers and the store have not had
        self.connected: set[int] = set()
        self.heard: dict[int, float] = {}  # rank -> when its last report came (server clock)
        self.unsaid: set[int] = set()  # ranks whose last report said they issued more than it said
        self.mismatched: WatchedCollective | None = None  # the last collective its ranks disagreed on
        self.left_at: float | None = None  # when the last rank went without a goodbye
        self.groups_dropped = False  # whether a group past the bounds was dropped (and said)
        self.world: list[int] = []  # _world()
        self.agreed: dict[tuple[str, int], rules.Signature] = {}  # open -> what its first rank issued
        self.puts: dict[tuple[str, int], dict[int, tuple[int, int | None]]] = {}  # open all_to_all's sizes
        self.why: Phrase | None = None  # what differed in the last collective its ranks disagreed on
        self.issued_as: dict[str, Phrase] = {}  # a mismatched collective's words -> what they say
        self.whole = False  # and whether only all its ranks together are wrong (an all_to_all's splits)
        self.waits: dict[int, list[P2PWait]] = {}  # rank -> the sends and receives it waits in now
        self.wait_seen: dict[tuple[int, int, bool, int], float] = {}  # (rank, peer, send, nth) -> first seen
        self.p2p_issued: dict[int, dict[int, tuple[int, int]]] = {}  # rank -> peer -> (sends, receives)
        # open -> how many of its group's ranks have not issued it: complete at 0, told in O(1) an issue
        # (walking the group's ranks at each issue cost a 4,096-rank job 16 M look-ups a collective)
        self.unissued: dict[tuple[str, int], int] = {}
        self.member_sets: dict[int, tuple[list[int], set[int]]] = {}  # a group's list's id -> it, as a set

    @classmethod
    def start(cls, job_id: str, hello: WatchHello, clock: Callable[[], float] = time.monotonic) -> Matching:
        return cls(
            WatchedJob(
                id=job_id,
                key=hello.job,
                started_at=time.time(),
                t0_ns=hello.started_ns,
                world_size=hello.world_size,
                backend=hello.backend,
                script=hello.script,
            ),
            clock,
        )

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
            rank=hello.rank,
            host=hello.host,
            local_rank=hello.local_rank,
            local_world_size=hello.local_world_size,
            pid=hello.pid,
            launcher=hello.launcher,
            issued=old.issued if old else {},
            seen_s=self.now_s(),
        )
        self.connected.add(hello.rank)
        self.heard[hello.rank] = self.clock()
        self.left_at = None
        if job.state in (WatchedState.INTERRUPTED, WatchedState.LOST):
            job.state, job.ended_at = WatchedState.RUNNING, None
            self.note([said("came_back", rank=of(hello.rank))])

    def report(self, report: WatchReport) -> None:
        job, rank = self.job, report.rank
        info = job.ranks[str(rank)]
        info.where, info.seen_s = report.where, self.now_s()
        self.heard[rank] = self.clock()
        info.missed, info.dropped, info.unread = report.missed, report.dropped, report.unread
        (self.unsaid.add if report.unread else self.unsaid.discard)(rank)
        info.pending = report.pending
        self._groups(rank, report.groups, report.group_descs)
        for link in report.links:  # as the sender says it: the receiver, a rank of the job too, says it again
            if link.sent or link.sends:
                self._link(rank, link.peer, link.sent, link.sends)
            self._p2p_issued(rank, link)
        self._waits(rank, report.waits)
        for one in report.issued:
            info.issued[one.group] = max(info.issued.get(one.group, -1), one.seq)
            self._issued(rank, one)

    def _groups(self, rank: int, groups: dict[str, list[int]], descs: dict[str, str]) -> None:
        """Keep the groups a report names, each of the job's own ranks, up to MAX_GROUPS names and
        GROUP_RANKS rank entries in all; one past them is dropped, said once (its collectives are
        matched as the world's). A group keeps the name torch gave it, where it gave one."""
        job = self.job
        for name, ranks in groups.items():
            if job.groups.get(name) == ranks:  # said again (every rank names the world): kept already
                self._desc(name, descs)
                continue
            held = sum(len(r) for n, r in job.groups.items() if n != name)
            fits = name in job.groups or len(job.groups) < MAX_GROUPS
            if fits and held + len(ranks) <= GROUP_RANKS and max(ranks, default=-1) < job.world_size:
                job.groups[name] = ranks  # one list kept, which the group's collectives share
                self._desc(name, descs)
            elif not self.groups_dropped:
                self.groups_dropped = True
                self.note([said("groups_dropped", rank=of(rank), groups=MAX_GROUPS, ranks=GROUP_RANKS)])

    def _desc(self, name: str, descs: dict[str, str]) -> None:
        if descs.get(name):
            self.job.group_descs[name] = descs[name]

    def _p2p_issued(self, rank: int, link: Link) -> None:
        """How many sends to a peer (and receives from it) the rank has issued in all, as it says."""
        sends, receives = link.sends_total, link.receives_total
        if sends is not None and receives is not None and link.peer < self.job.world_size:
            self.p2p_issued.setdefault(rank, {})[link.peer] = (sends, receives)

    def _waits(self, rank: int, waits: list[P2PWait]) -> None:
        """The sends and receives the rank waits in now, each seen since it was first reported."""
        now = self.clock()
        kept = [w for w in waits if w.peer < self.job.world_size and w.peer != rank]
        seen = {(rank, w.peer, w.send, w.nth) for w in kept}
        for key in [k for k in self.wait_seen if k[0] == rank and k not in seen]:
            del self.wait_seen[key]
        for key in seen:
            self.wait_seen.setdefault(key, now)
        if kept:
            self.waits[rank] = kept
        else:  # the hang check walks the ranks that wait, four times a second: not the thousands that do not
            self.waits.pop(rank, None)

    def bye(self, bye: WatchBye) -> None:
        info = self.job.ranks[str(bye.rank)]
        info.ended, info.exit_code, info.error = True, bye.exit_code, bye.error
        self._stop_waiting(bye.rank)
        self.note([ending_words(bye.rank, bye.exit_code, bye.error)])

    def _stop_waiting(self, rank: int) -> None:
        self.waits.pop(rank, None)
        for key in [k for k in self.wait_seen if k[0] == rank]:
            del self.wait_seen[key]

    def left(self, rank: int) -> None:
        self.connected.discard(rank)
        self.heard.pop(rank, None)
        self._stop_waiting(rank)
        info = self.job.ranks.get(str(rank))
        if info is not None:
            info.connected = False
            if not info.ended:
                self.note([said("went_without_goodbye", rank=of(rank))])
        if not self.connected:
            self.left_at = self.clock()

    # --- matching ------------------------------------------------------------------

    def _issued(self, rank: int, one: Issued) -> None:
        key = (one.group, one.seq)
        collective = self.open.get(key) or self.recent.get(key)
        if collective is None:
            collective = self._open(one)
        name = str(rank)
        if name not in collective.issued and not collective.complete:
            self._agree(collective, rank, one)
            # the largest part: an all_to_all's, a scatter's, a gather's ranks each put in their own
            collective.count, collective.bytes = (
                max(collective.count, one.count),
                max(collective.bytes, one.bytes),
            )
            if key in self.unissued and rank in self.members(collective.ranks):
                self.unissued[key] -= 1
        collective.issued.setdefault(name, round((one.t_ns - self.job.t0_ns) / 1e9, 6))
        if one.duration_s is not None:
            collective.durations[name] = one.duration_s
            collective.busbw_gbps = busbw(collective)
        if one.bucket is not None:
            collective.bucket = one.bucket
        if not collective.complete and self._all_issued(key, collective):
            self._complete(collective)
        self.changed[collective.index] = collective

    def _all_issued(self, key: tuple[str, int], collective: WatchedCollective) -> bool:
        left = self.unissued.get(key)
        if left is None:  # not open (some rank's report of it was lost): its ranks walked
            return all(str(r) in collective.issued for r in collective.ranks)
        return left <= 0

    def members(self, ranks: list[int]) -> set[int]:
        """A group's ranks as a set, made once for the list its collectives share."""
        held = self.member_sets.get(id(ranks))
        if held is None or held[0] is not ranks:
            if len(self.member_sets) >= 2 * MAX_GROUPS:
                self.member_sets.clear()
            held = self.member_sets[id(ranks)] = (ranks, set(ranks))
        return held[1]

    def _agree(self, collective: WatchedCollective, rank: int, one: Issued) -> None:
        """Whether `rank` issued what the collective's first rank did, by the op's rules; once ranks
        disagree, what each issued. An all_to_all's sizes are kept till every rank has issued it."""
        key = (collective.group, collective.seq)
        mine = rules.signature(op_name(one.op), one)
        theirs = self.agreed.setdefault(key, mine)
        if mine != theirs or collective.mismatch:
            if not collective.mismatch:  # every rank before this one issued what the first did
                collective.mismatch = {r: theirs.words for r in collective.issued}
                self.why, self.whole = rules.difference(mine, theirs), False
                self.issued_as = {theirs.words: theirs.phrase}
            collective.mismatch.setdefault(str(rank), mine.words)
            self.issued_as.setdefault(mine.words, mine.phrase)
            self.mismatched = collective
        if collective.op in rules.BALANCED:
            self.puts.setdefault(key, {})[rank] = (one.count, one.count_out)

    def _open(self, one: Issued) -> WatchedCollective:
        collective = WatchedCollective(
            index=self.job.matched,
            group=one.group,
            seq=one.seq,
            op=op_name(one.op),
            dtype=one.dtype,
            count=one.count,
            bytes=one.bytes,
            ranks=[],
        )
        # the group's own list, shared (assigned, not validated: no copy): a copy per collective would
        # make a report of 1,024 collectives in a 65,536-rank world tens of millions of entries
        collective.ranks = self.job.groups.get(one.group) or self._world()
        self.job.matched += 1
        key = (one.group, one.seq)
        self.open[key] = collective
        self.first_seen[key] = self.clock()
        self.unissued[key] = len(self.members(collective.ranks))
        if len(self.open) > self.held(MAX_OPEN):  # a rank far behind the rest: the oldest waits are forgotten
            old, gone = self.open.popitem(last=False)
            self._closed(old)
            self.changed.pop(gone.index, None)  # and not told: a report's push held every one it opened
        return collective

    def _closed(self, key: tuple[str, int]) -> None:
        """What is held of an open collective while it is open, let go."""
        self.first_seen.pop(key, None)
        self.unissued.pop(key, None)
        self.agreed.pop(key, None)
        self.puts.pop(key, None)

    def _world(self) -> list[int]:
        """Every rank of the job, in one list that the collectives of groups not named share."""
        if len(self.world) != self.job.world_size:
            self.world = list(range(self.job.world_size))
        return self.world

    def _complete(self, collective: WatchedCollective) -> None:
        key = (collective.group, collective.seq)
        self.open.pop(key, None)
        unbalanced = rules.unbalanced(collective.op, self.puts.get(key, {}))
        if unbalanced and not collective.mismatch:
            puts = {str(r): put_words(collective, i, o) for r, (i, o) in self.puts[key].items()}
            collective.mismatch = {r: render(p) for r, p in puts.items()}
            self.issued_as = {render(p): p for p in puts.values()}
            self.why, self.whole, self.mismatched = unbalanced, True, collective
        self._closed(key)
        collective.complete = True
        last = max(collective.issued, key=collective.issued.__getitem__)
        collective.last_rank = int(last)
        collective.lag_s = round(collective.issued[last] - min(collective.issued.values()), 6)
        self.recent[key] = collective
        while len(self.recent) > self.held(RECENT):
            self.recent.popitem(last=False)
        self.job.totals.setdefault(
            f"{collective.group}/{collective.op}", Total(group=collective.group, op=collective.op)
        ).add(collective)

    def _link(self, src: int, dst: int, nbytes: int, count: int) -> None:
        link = self.job.links.setdefault(f"{src}>{dst}", LinkTotal(src=src, dst=dst))
        link.count += count
        link.bytes += nbytes

    # --- hangs and endings ---------------------------------------------------------

    def unseen(self, c: WatchedCollective, ranks: list[int]) -> None:
        """A collective some ranks issued and reported lost: kept, incomplete, saying whose."""
        self.open.pop((c.group, c.seq), None)
        self._closed((c.group, c.seq))
        c.unseen = ranks
        self.recent[(c.group, c.seq)] = c
        self.changed[c.index] = c

    def ended(self, lost_after: float) -> bool:
        """Whether the job is over: every rank said goodbye, or all are gone and `lost_after` s have
        passed. A rank gone without one crashed, or lost its way to the server: the job failed if
        any other rank said it ended, and is lost if none did."""
        job = self.job
        if job.state.ended:
            return True
        ended = [r for r in job.ranks.values() if r.ended]
        failed = len(ended) < job.world_size or any(r.exit_code not in (0, None) or r.error for r in ended)
        gone = self.left_at is not None and self.clock() - self.left_at >= lost_after
        if self.connected or (failed and not gone and not any(r.exit_code not in (0, None) for r in ended)):
            return False
        job.state = WatchedState.LOST if not ended else WatchedState.FAILED if failed else WatchedState.DONE
        job.ended_at, job.hang = time.time(), None
        self.note([said(f"job_{job.state.value}")])
        return True

    # --- reading -------------------------------------------------------------------

    def now_s(self) -> float:
        return round(self.wall() - self.job.t0_ns / 1e9, 3)

    def note(self, words: list[Phrase]) -> None:
        event = Event(t=self.now_s(), text=english(words), words=words)
        self.job.events = [*self.job.events[-(MAX_EVENTS - 1) :], event]

    def latest(self, limit: int, before: int | None = None) -> list[WatchedCollective]:
        """The newest collectives in memory (complete and open), oldest first."""
        every = sorted([*self.recent.values(), *self.open.values()], key=lambda c: c.index)
        if before is not None:
            every = [c for c in every if c.index < before]
        return every[-limit:]

    def take_changed(self) -> list[WatchedCollective]:
        changed, self.changed = list(self.changed.values()), {}
        return sorted(changed, key=lambda c: c.index)


def put_words(c: WatchedCollective, into: int, out: int | None) -> Phrase:
    """What one rank of an all_to_all put in and took out."""
    return said("issued_in_out", op=c.op, into=f"{into:,}", out=f"{out or 0:,}", dtype=c.dtype)


def ending_words(rank: int, exit_code: int | None, error: str | None) -> Phrase:
    """How a rank ended, as its goodbye says: the signal that stopped it, the exception it raised
    (a backend's timeout is one), or its exit code."""
    code = said("exit_code", code=exit_code) if exit_code is not None else None
    if error and error.startswith("SIG"):
        return said("stopped_by", rank=of(rank), signal=error, code=code)
    if error:
        timed_out = "timed out" in error.lower() or "timeout" in error.lower()
        return said("timed_out" if timed_out else "raised", rank=of(rank), code=code, error=error)
    return (
        said("ended_with", rank=of(rank), code=exit_code)
        if exit_code is not None
        else said("ended", rank=of(rank))
    )
