"""A job opened from its ranks' Flight Recorder dumps, matched and judged by the watch's own rules:
the ranks' hellos and reports go into a LiveWatchedJob as a watched job's do, and hangs.py says what
it says of a live job, at the moment of the dumps.

A dump is a moment, not a stream, so that moment is given the watch's clocks: every rank was heard
then (none is silent), and a collective open then had been open since the first rank issued it (at
least the job's hang_after: what was still waited for at the dump is a hang, however soon it was
taken). A rank that left no dump is neither heard nor waited for by the watch's rules; where the
watch finds nothing, what a dump shows and a live report may not is said (unmatched)."""

from __future__ import annotations

import time

from ringside.server.watched import hangs
from ringside.server.watched.live import LiveWatchedJob
from ringside.server.watched.record import Hang, WatchedCollective, WatchedState
from ringside.server.watched.store import KEPT_BYTES
from ringside.server.watched.verdicts import wait_hang_in
from ringside.server.watched.words import Phrase, english
from ringside.server.watched.words import said as phrase
from ringside.worker_agent.core.dump_protocol import DumpedRank, DumpsHello
from ringside.worker_agent.core.watch_protocol import WatchHello

MAX_SHOWN = 16  # ranks named in a line of what the dumps show
DUMPS_BYTES = KEPT_BYTES  # of dumps read into a job: what a watched job may keep of its collectives


class Dumped:
    """A job opened from its dumps, one rank's dump at a time as /ws/dumps receives them, each
    taken into the job and let go: what the server holds is the job's own state, bounded as a
    watched job's is, never the frames. Past DUMPS_BYTES of dumps, a rank's dump is not read: it
    is judged as a rank that left none, and the job says so once."""

    def __init__(self, said: DumpsHello, first: WatchHello):
        self.said, self.taken = said, 0
        self.w = LiveWatchedJob.start(
            "-", first.model_copy(update={"world_size": said.world_size, "script": said.source})
        )
        self.w.wall = lambda: said.taken_ns / 1e9
        self.newest: dict[int, int] = {}  # rank -> its newest collective's t_ns
        self.unread: list[int] = []  # ranks whose reports were past DUMPS_BYTES

    def take(self, rank: DumpedRank, size: int) -> None:
        """One rank's dump, of `size` bytes as it came."""
        n = rank.hello.rank
        if self.taken + size > DUMPS_BYTES:
            self.unread.append(n)
            return
        self.taken += size
        self.w.joined(rank.hello)
        for one in rank.reports:
            self.w.report(one)
        newest = max((one.t_ns for report in rank.reports for one in report.issued), default=None)
        if newest is not None:
            self.newest[n] = newest

    def judged(self, job_id: str) -> LiveWatchedJob:
        """The job the dumps show, ended as DUMPED, its hang (if any) kept."""
        w, said = self.w, self.said
        w.job.id = job_id
        if self.unread:
            w.note([phrase("dumps_unread", mb=DUMPS_BYTES >> 20, ranks=_ranks(self.unread))])
        at_the_dump(w, said, self.newest)
        left_none = sorted(set(range(said.world_size)) - set(said.ranks))
        if left_none:
            w.note([phrase("left_no_dump", ranks=_ranks(left_none))])
        missing = sorted(left_none + self.unread)
        hangs.hang_change(w)
        if w.job.hang is None:
            w.job.hang = unmatched(w, missing, said.taken_ns)
            if w.job.hang is not None:
                w.note(w.job.hang.words)
        job = w.job
        taken_s = round((said.taken_ns - job.t0_ns) / 1e9, 3)
        job.events = [
            e.model_copy(update={"t": taken_s}) for e in job.events
        ]  # said of the moment of the dumps
        job.state, job.started_at, job.ended_at = WatchedState.DUMPED, job.t0_ns / 1e9, said.taken_ns / 1e9
        for info in job.ranks.values():
            info.connected = False
        return w


def judged(job_id: str, said: DumpsHello, ranks: list[DumpedRank]) -> LiveWatchedJob:
    """The job the dumps show, from every rank's dump at once (`ringside open` on this machine)."""
    dumped = Dumped(said, ranks[0].hello)
    for rank in ranks:
        dumped.take(rank, 0)
    return dumped.judged(job_id)


def at_the_dump(w: LiveWatchedJob, said: DumpsHello, newest: dict[int, int]) -> None:
    """The watch's clocks set to the moment of the dumps: each rank heard then, last seen at its newest
    collective, and each open collective open since its first rank issued it (hang_after at least)."""
    now = time.monotonic()
    for rank in w.job.ranks.values():
        w.presence.heard[rank.rank] = now
        if rank.rank in newest:
            rank.seen_s = round((newest[rank.rank] - w.job.t0_ns) / 1e9, 3)
    taken_s = (said.taken_ns - w.job.t0_ns) / 1e9
    for key, c in w.collectives.open.items():
        since = taken_s - min(c.issued.values(), default=taken_s)
        w.collectives.first_seen[key] = now - max(since, w.hang_after)


def unmatched(w: LiveWatchedJob, missing: list[int], taken_ns: int) -> Hang | None:
    """The oldest collective that some ranks issued and others of its group never did, at the dump.

    A dump does not lag as a report may, so a rank without it in its dump had not issued it, whatever
    the others' recorders say: a collective the backend ended without it (a timeout, an abort) shows
    retired on the ranks that waited, and the watch, which takes retired for done, says nothing of it.
    Ranks that left no dump are named only where the ranks that did still wait (one retired by all
    of them completed, so those ranks took part)."""
    absent = set(missing)
    taken_s = (taken_ns - w.job.t0_ns) / 1e9
    for c in list(w.collectives.open.values()):  # oldest first
        late = [r for r in c.not_issued() if not w.went_past(r, c)]
        here = [r for r in late if r not in absent]
        ended = w.finished(c)
        if not late or (not here and ended):
            continue
        since = max(taken_s - min(c.issued.values()), 0.0)
        hang = wait_hang_in(w, c, here, since) if here else _waits_on_missing(w, c, late, since)
        gone = [r for r in late if r in absent]
        words = [
            *hang.words,
            *([phrase("left_no_dump", ranks=_ranks(gone))] if here and gone else []),
            *([phrase("retired_without")] if ended else []),
        ]
        return hang.model_copy(update={"words": words, "text": english(words)})
    return None


def _waits_on_missing(w: LiveWatchedJob, c: WatchedCollective, late: list[int], since: float) -> Hang:
    waiting = c.issuers()
    what = phrase("collective", op=c.op, seq=c.seq, size=f"{c.count:,} {c.dtype}")
    words = [
        phrase(
            "waits_in_group" if len(waiting) == 1 else "wait_in_group",
            ranks=_ranks(waiting),
            what=what,
            group=c.group,
        ),
        phrase("it_left_no_dump" if len(late) == 1 else "they_left_no_dump", ranks=_ranks(late)),
    ]
    return Hang(
        group=c.group,
        seq=c.seq,
        op=c.op,
        dtype=c.dtype,
        count=c.count,
        waiting=waiting,
        late=late,
        since_s=round(since, 2),
        where={},
        text=english(words),
        words=words,
    )


def verdict(w: LiveWatchedJob) -> str:
    """What the dumps show, in a few lines for the command line: the job, its hang, where each rank was."""
    job = w.job
    lines = [
        f"{job.script}: {len(job.ranks)} of {job.world_size} ranks' dumps, {job.backend}, "
        f"{job.matched:,} collectives"
        + (f" ({max(r.missed for r in job.ranks.values()):,} older ones overwritten)" if _missed(w) else "")
    ]
    hang = job.hang
    lines.append(
        f"hang: {hang.text}" if hang else "no hang: every collective a rank issued, its group issued too"
    )
    wheres: dict[str, list[int]] = {}
    for info in sorted(job.ranks.values(), key=lambda r: r.rank):
        if info.where:
            wheres.setdefault(info.where, []).append(info.rank)
    if wheres:
        at = "; ".join(f"{english([_ranks(rs)])} at {where}" for where, rs in wheres.items())
        lines.append(f"last collective issued: {at}")
    lines += [e.text for e in job.events if not hang or e.text != hang.text]
    return "\n".join(lines)


def _missed(w: LiveWatchedJob) -> bool:
    return any(r.missed for r in w.job.ranks.values())


def _ranks(ranks: list[int]) -> Phrase:
    """Ranks said one by one, the first MAX_SHOWN."""
    if len(ranks) == 1:
        return phrase("rank", n=ranks[0])
    shown = ", ".join(map(str, ranks[:MAX_SHOWN]))
    if len(ranks) > MAX_SHOWN:
        return phrase("ranks_more", list=shown, more=len(ranks) - MAX_SHOWN)
    return phrase("ranks", list=shown)
