"""A watched job's collectives matched across its ranks by (process group, sequence number), as
Flight Recorder's analysis matches them: a collective is complete once every rank of its group has
issued it; then the rank that issued it last, and by how much, names the straggler. What its ranks
issued is compared as they issue it (agreement.py).

Memory is bounded whatever the job's length and size: the last RECENT collectives are kept
whole (the live view, the API's first page), collectives still open at most MAX_OPEN (fewer
for a job of many ranks: RANKS_HELD rank entries in all),
and everything else is folded into totals per (group, op) as it goes."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator

from ringside.server.watched.agreement import Agreement
from ringside.server.watched.record import Total, WatchedCollective, WatchedJob, busbw, op_name
from ringside.worker_agent.core.watch_protocol import MAX_GROUPS, Issued

RECENT = 2000
MAX_OPEN = 10000
RANKS_HELD = 2_000_000  # rank entries held in memory per job: a job of many ranks keeps fewer collectives
RECENT_PASSED = 64  # the newest complete collectives asked whether a group went on past one

Key = tuple[str, int]  # (group, seq)


class Matching:
    def __init__(self, job: WatchedJob, agreement: Agreement, clock: Callable[[], float]):
        self.job, self.agreement, self.clock = job, agreement, clock
        self.open: OrderedDict[Key, WatchedCollective] = OrderedDict()
        self.recent: OrderedDict[Key, WatchedCollective] = OrderedDict()  # complete, newest last
        self.first_seen: dict[Key, float] = {}  # server clock: when a rank's report named it
        self.changed: dict[int, WatchedCollective] = {}  # index -> what viewers and the store have not had
        self.world: list[int] = []  # _world()
        # open -> how many of its group's ranks have not issued it: complete at 0, told in O(1) an issue
        # (walking the group's ranks at each issue cost a 4,096-rank job 16 M look-ups a collective)
        self.unissued: dict[Key, int] = {}
        self.member_sets: dict[int, tuple[list[int], set[int]]] = {}  # a group's list's id -> it, as a set

    def held(self, most: int) -> int:
        """How many collectives of a kind this job keeps in memory: `most`, fewer as its world grows."""
        return max(16, min(most, RANKS_HELD // self.job.world_size))

    def issued(self, rank: int, one: Issued) -> None:
        key = (one.group, one.seq)
        collective = self.open.get(key) or self.recent.get(key)
        if collective is None:
            collective = self._open(one)
        name = str(rank)
        if name not in collective.issued and not collective.complete:
            self.agreement.issued(collective, rank, one)
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

    def _all_issued(self, key: Key, collective: WatchedCollective) -> bool:
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

    def _closed(self, key: Key) -> None:
        """What is held of an open collective while it is open, let go."""
        self.first_seen.pop(key, None)
        self.unissued.pop(key, None)
        self.agreement.forget(key)

    def _world(self) -> list[int]:
        """Every rank of the job, in one list that the collectives of groups not named share."""
        if len(self.world) != self.job.world_size:
            self.world = list(range(self.job.world_size))
        return self.world

    def _complete(self, collective: WatchedCollective) -> None:
        key = (collective.group, collective.seq)
        self.open.pop(key, None)
        self.agreement.completed(collective)
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

    def lost(self, c: WatchedCollective, ranks: list[int]) -> None:
        """A collective whose issue by `ranks` their reports lost (the recorder's ring overwrote it
        first): kept, incomplete, saying whose."""
        self.open.pop((c.group, c.seq), None)
        self._closed((c.group, c.seq))
        c.unseen = ranks
        self.recent[(c.group, c.seq)] = c
        self.changed[c.index] = c

    # --- what a check asks --------------------------------------------------------------

    def collective(self, group: str, seq: int) -> WatchedCollective | None:
        """Collective #seq of `group`, open or among the recent complete ones."""
        return self.open.get((group, seq)) or self.recent.get((group, seq))

    def opened(self, now: float) -> Iterator[tuple[WatchedCollective, float]]:
        """The open collectives, oldest first, each with how long since a rank's report first named it."""
        for key, c in list(self.open.items()):
            yield c, now - self.first_seen.get(key, now)

    def went_on_past(self, group: str, seq: int) -> bool:
        """Whether a later collective of `group` than #seq has completed: the job went on after all."""
        recent = list(self.recent.values())[-RECENT_PASSED:]
        return any(o.group == group and o.seq > seq and o.complete for o in recent)

    def left_open(self) -> list[WatchedCollective]:
        """What never completed, oldest first: open still, or lost from some rank's reports."""
        lost = (c for c in self.recent.values() if c.unseen)
        return sorted([*self.open.values(), *lost], key=lambda c: c.index)

    # --- reading ------------------------------------------------------------------------

    def latest(self, limit: int, before: int | None = None) -> list[WatchedCollective]:
        """The newest collectives in memory (complete and open), oldest first."""
        every = sorted([*self.recent.values(), *self.open.values()], key=lambda c: c.index)
        if before is not None:
            every = [c for c in every if c.index < before]
        return every[-limit:]

    def take_changed(self) -> list[WatchedCollective]:
        changed, self.changed = list(self.changed.values()), {}
        return sorted(changed, key=lambda c: c.index)
