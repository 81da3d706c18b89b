"""Hangs of a watched job, named while they last (matching.py keeps the job): a wait (ranks
inside a collective that others of its group have not issued for HANG_S, or have issued and not
finished, silent: stopped inside it), a silence (a rank that stopped reporting while others go
on, as a stopped process does) or a mismatch (ranks
that issued different collectives as the same #seq of a group). Each says which ranks wait,
which are late, and where the late ones were last seen."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from ringside.server.watched.record import Hang, RankInfo, WatchedCollective, WatchedJob

if TYPE_CHECKING:
    from ringside.server.watched.matching import Matching

HANG_S = 1.0  # a collective open this long, some of its ranks not in it, is a hang
# a rank unheard this long, while others report, is stopped (a reporter reports every second at least)
SILENT_S = 3.0


def check(w: Matching) -> tuple[Hang | None, str | None] | None:
    """A hang that began or ended since the last check: (the hang or None, what to say); None if nothing
    changed."""
    hang = find(w)
    old = w.job.hang
    if hang is None and old is None:
        return None
    if (
        hang is not None
        and old is not None
        and (hang.kind, hang.group, hang.seq, hang.late) == (old.kind, old.group, old.seq, old.late)
    ):
        w.job.hang = hang  # the same wait, longer
        return None
    w.job.hang = hang
    said = [caught_up(old, hang) if old is not None else None, hang.text if hang is not None else None]
    text = "; ".join(filter(None, said))
    w.note(text)
    return hang, text


def caught_up(old: Hang, new: Hang | None) -> str | None:
    """What the late ones of a hang that ended did, if the new one (if any) is not theirs too: a rank let
    go on may make a later collective wait for another, and that the first went on is said as well."""
    if new is not None and (new.kind, new.group, new.seq) == (old.kind, old.group, old.seq):
        return None  # the same collective, fewer (or other) ranks late: the new words say who
    gone = [r for r in old.late if new is None or r not in new.late]
    if not gone:
        return None
    what = f"{old.op} #{old.seq} went on" if old.kind == "wait" else "it reports again"
    return f"{ranks_words(gone)} caught up: {what} after {old.since_s:.1f} s"


def left_open(w: Matching) -> list[WatchedCollective]:
    """At the job's end, what never completed, oldest first: lost from some rank's reports (it
    went past it), or what the job ended waiting in."""
    for c in list(w.open.values()):
        if all_went_past(w, c):
            w.unseen(c, late_in(c))
    return sorted([*w.open.values(), *(c for c in w.recent.values() if c.unseen)], key=lambda c: c.index)


def find(w: Matching) -> Hang | None:
    """The job's hang now, if it has one: a disagreement first, then the oldest wait, then a silence."""
    if w.job.state.ended:
        return None
    if w.mismatched is not None and not passed(w, w.mismatched):
        return disagree(w.mismatched)
    now = time.monotonic()
    for key, collective in list(w.open.items()):  # oldest first
        since = now - w.first_seen.get(key, now)
        if since < HANG_S:
            break
        if all_went_past(w, collective):  # their reports of it were lost
            w.unseen(collective, late_in(collective))
            continue
        if finished(w.job, collective):  # the late ones issued it: their reports are behind, not them
            continue
        late = waited_for(w, collective)
        if late:
            return wait(w, collective, late, since)
    return silence(w, now)


# Each tick asks these of every open collective past HANG_S: none walks a group's ranks unless one of its
# ranks may be late (a forged claim of 65,536 ranks, one connected, cost a second a tick: the loop's all).


def late_in(c: WatchedCollective) -> list[int]:
    """c's ranks that have not issued it."""
    return [r for r in c.ranks if str(r) not in c.issued]


def all_went_past(w: Matching, c: WatchedCollective) -> bool:
    """Whether every rank of c that has not issued it went past it (their reports of it were lost).
    Only a rank that said hello can have: a group of more ranks than said hello has one that did not."""
    return len(c.ranks) <= len(w.job.ranks) and all(went_past(w.job, r, c) for r in late_in(c))


def waited_for(w: Matching, c: WatchedCollective) -> list[int]:
    """c's ranks that have not issued it and are here (connected, not ended), in c's order: found
    among the connected ranks first, where most of a claimed world may never have come."""
    here = {r for r in w.connected if str(r) not in c.issued and not w.job.ranks[str(r)].ended}
    return [r for r in c.ranks if r in here] if here else []


def went_past(job: WatchedJob, rank: int, c: WatchedCollective) -> bool:
    """Whether `rank` has issued a later collective of c's group than c."""
    info = job.ranks.get(str(rank))
    return info is not None and info.issued.get(c.group, -1) > c.seq


def finished(job: WatchedJob, c: WatchedCollective) -> bool:
    """Whether a rank finished c (its recorder retired it): a collective completes only once every rank
    of its group has issued it, so the ranks not yet seen in it are late only in saying so (stopped
    before their reporter read it), and whoever waits, waits in a later one."""
    for rank in c.issued:
        info = job.ranks.get(rank)
        if (
            info is not None
            and info.pending is not None
            and info.issued.get(c.group, -1) >= c.seq
            and info.pending.get(c.group, c.seq + 1) > c.seq
        ):
            return True
    return False


def passed(w: Matching, c: WatchedCollective) -> bool:
    """Whether a later collective of its group has completed: the job went on after all."""
    return any(o.group == c.group and o.seq > c.seq and o.complete for o in list(w.recent.values())[-64:])


def disagree(c: WatchedCollective) -> Hang:
    """The ranks apart from the most that issued one thing are the odd ones (`late`); with no
    such most (a tie), every rank that issued it is."""
    sides: dict[str, list[int]] = {}
    for r, what in sorted(c.mismatch.items(), key=lambda kv: int(kv[0])):
        sides.setdefault(what, []).append(int(r))
    by_size = sorted(sides.items(), key=lambda side: len(side[1]))  # the odd ones first
    most = by_size[-1][1] if len(by_size[-1][1]) > len(by_size[-2][1]) else []

    def side(what: str, ranks: list[int]) -> str:
        many = ranks is most and len(ranks) > 8
        return f"{f'the other {len(ranks)} ranks' if many else ranks_words(ranks)} {what}"

    said = "; ".join(side(what, ranks) for what, ranks in by_size)
    ranks = sorted(int(r) for r in c.issued)
    return Hang(
        kind="mismatch",
        group=c.group,
        seq=c.seq,
        op=c.op,
        dtype=c.dtype,
        count=c.count,
        waiting=ranks,
        late=[r for r in ranks if r not in most],
        since_s=0.0,
        where={},
        text=(
            f"ranks disagree on #{c.seq} of group {c.group}: {said}; they wait until the backend's timeout"
        )[:1000],
    )


def silence(w: Matching, now: float) -> Hang | None:
    """The ranks that stopped reporting while the others go on."""
    job = w.job
    present = [r for r in w.connected if not job.ranks[str(r)].ended]
    silent = sorted(r for r in present if now - w.heard.get(r, now) > SILENT_S)
    talking = sorted(r for r in present if r not in silent)
    if not silent or not talking:
        return None
    where = {str(r): job.ranks[str(r)].where for r in silent if job.ranks[str(r)].where}
    since = min(now - w.heard[r] for r in silent)
    said = {
        r: f"rank {r} has said nothing for {now - w.heard[r]:.1f} s" + _last(job.ranks[str(r)])
        for r in silent
    }
    inside = stuck(w, said, talking, since)
    if inside is not None:
        return inside
    return Hang(
        kind="silent",
        group="",
        seq=-1,
        op="",
        dtype="",
        count=0,
        waiting=talking,
        late=silent,
        since_s=round(since, 2),
        where=where,
        text=("; ".join(said.values()) + f"; {ranks_words(talking)} go on")[:1000],
    )


def stuck(w: Matching, said: dict[int, str], talking: list[int], since: float) -> Hang | None:
    """Talking ranks that wait in a collective every rank of its group issued, silent ones (`said`: each
    in words) of the group among them: stopped inside it. No rank is late to issue it, so no wait is
    seen; the ranks' pending collectives (the recorder's unretired entries) say who waits in which."""
    ranks = w.job.ranks
    pending = {r: ranks[str(r)].pending or {} for r in talking}
    for group in sorted({g for r in talking for g in pending[r]}):
        seq = min(pending[r][group] for r in talking if group in pending[r])
        c = w.recent.get((group, seq)) or w.open.get((group, seq))
        if c is None or not c.complete:
            continue
        members = set(c.ranks)  # once: a group may claim thousands of ranks
        late = [r for r in said if r in members]
        if not late:
            continue
        waiting = [r for r in talking if pending[r].get(group) == seq]
        where = {str(r): ranks[str(r)].where for r in late if ranks[str(r)].where}
        what = f"{c.count:,} {c.dtype}" + (f", bucket {c.bucket.index}" if c.bucket else "")
        text = (
            f"{ranks_words(waiting)} {'waits' if len(waiting) == 1 else 'wait'} in {c.op} #{c.seq} "
            f"({what}), which every rank issued; " + "; ".join(said[r] for r in late)
        )
        return Hang(
            group=c.group,
            seq=c.seq,
            op=c.op,
            dtype=c.dtype,
            count=c.count,
            waiting=waiting,
            late=late,
            since_s=round(since, 2),
            where=where,
            text=text[:1000],
        )
    return None


def wait(w: Matching, c: WatchedCollective, late: list[int], since: float) -> Hang:
    """Ranks wait in `c` for the `late` ones, each said with the last it reported and where."""
    job, waiting = w.job, sorted(int(r) for r in c.issued)
    where = {str(r): job.ranks[str(r)].where for r in late if str(r) in job.ranks and job.ranks[str(r)].where}
    what = f"{c.count:,} {c.dtype}" + (f", bucket {c.bucket.index}" if c.bucket else "")
    said = []
    for r in late:
        info = job.ranks.get(str(r))
        last = info.issued.get(c.group) if info else None
        said.append(
            f"rank {r} last reported "
            + (f"#{last}" if last is not None else "nothing in this group")
            + (
                f", last seen at {info.where} {w.now_s() - info.seen_s:.1f} s ago"
                if info and info.where
                else ""
            )
        )
    text = (
        f"{ranks_words(waiting)} {'waits' if len(waiting) == 1 else 'wait'} in {c.op} #{c.seq} ({what}); "
        + "; ".join(said)
    )
    return Hang(
        group=c.group,
        seq=c.seq,
        op=c.op,
        dtype=c.dtype,
        count=c.count,
        waiting=waiting,
        late=late,
        since_s=round(since, 2),
        where=where,
        text=text[:1000],
    )


def _last(info: RankInfo) -> str:
    issued = ", ".join(f"#{seq} in group {g}" for g, seq in info.issued.items())
    said = ["it last reported " + issued] * bool(info.issued)
    said += [f"last seen at {info.where}"] * bool(info.where)
    return f" ({'; '.join(said)})" if said else ""


def ranks_words(ranks: list[int]) -> str:
    return ("rank " if len(ranks) == 1 else "ranks ") + ", ".join(map(str, ranks))
