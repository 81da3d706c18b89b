"""How a hang's verdict names things, as phrases (words.py): a collective and its group, a late rank
with what it last reported and where it was last seen, a rank of a deadlock with its line, what each
waiting rank waits in."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ringside.server.watched.record import RankInfo, WatchedCollective
from ringside.server.watched.waits import Blame
from ringside.server.watched.words import Phrase, each_of, rank, ranks, render, said

if TYPE_CHECKING:
    from ringside.server.watched.live import LiveWatchedJob

MAX_WAITS_SAID = 256  # ranks whose wait a Hang says (the blamed ones first): a job's thousands are alike


def collective_words(live: LiveWatchedJob, c: WatchedCollective) -> Phrase:
    """A collective, with its group where it is not the world's (on a 2-D mesh, #43 of each dp group
    is another collective)."""
    size = f"{c.count:,} {c.dtype}".rstrip()
    members = live.subgroup(c.group)
    group = (
        said("of_group", group=live.group_label(c.group), ranks=ranks(members))
        if members is not None
        else None
    )
    if c.bucket:
        return said("collective_bucket", op=c.op, seq=c.seq, group=group, size=size, bucket=c.bucket.index)
    return said("collective", op=c.op, seq=c.seq, group=group, size=size)


def waiting_in(waiting: list[int], what: Phrase) -> Phrase:
    """`waiting` wait in `what`."""
    if len(waiting) == 1:
        return said("waits_in", ranks=ranks(waiting), what=what)
    return said("wait_in", ranks=ranks(waiting), what=what)


def waiting_on_them(waiting: list[int]) -> Phrase:
    """`waiting` wait on the ranks just named."""
    if len(waiting) == 1:
        return said("waits_on_them", ranks=ranks(waiting))
    return said("wait_on_them", ranks=ranks(waiting))


def waits_in_at(info: RankInfo | None, r: int, what: Phrase) -> Phrase:
    """A rank of a deadlock: what it waits in, and at which line of its code."""
    if info and info.where:
        return said("waits_in_at", rank=rank(r), what=what, where=info.where)
    return said("waits_in", ranks=rank(r), what=what)


def late_rank_words(
    live: LiveWatchedJob, r: int, c: WatchedCollective | None, silent: set[int], now: float
) -> Phrase:
    """A late rank: what it last reported of the collective c it is late to, and where it was last
    seen; or how long it has said nothing (stopped inside what the others wait in, or elsewhere)."""
    info = live.rank_info(r)
    ago = f"{live.now_s() - info.seen_s:.1f}" if info else ""
    quiet = f"{live.presence.quiet_for(r, now):.1f}"
    if c is not None and not live.issued_by_all(c):  # late to issue it
        last = info.issued.get(c.group) if info else None
        seen = said("and_seen_at", where=info.where, ago=ago) if info and info.where else None
        silence = said("and_silent", s=quiet) if r in silent else None
        unread = said("and_unread", n=info.unread) if info and info.unread else None
        if last is None:
            return said("reported_nothing", rank=rank(r), unread=unread, silent=silence, seen=seen)
        return said("last_reported", rank=rank(r), seq=last, unread=unread, silent=silence, seen=seen)
    if r in silent:
        return said_nothing(r, quiet, info)
    if info and info.where:
        return said("seen_at", rank=rank(r), where=info.where, ago=ago)
    return said("not_its_side", rank=rank(r))


def said_nothing(r: int, quiet: str, info: RankInfo | None) -> Phrase:
    """A silent rank: for how long, and what it last reported and where."""
    return said("said_nothing", rank=rank(r), s=quiet, last=last_reported(info))


def last_reported(info: RankInfo | None) -> Phrase | None:
    """What a rank last reported issuing in each group, and where it was last seen."""
    if info is None:
        return None
    issued = each_of(list(info.issued.items()), lambda one: said("seq_in_group", seq=one[1], group=one[0]))
    if issued and info.where:
        return said("last_issued_seen", issued=issued, where=info.where)
    if issued:
        return said("last_issued", issued=issued)
    return said("last_seen", where=info.where) if info.where else None


def waits_said(blame: Blame) -> dict[str, str]:
    """What each rank waits in, in words: the blamed ones' and the first others', MAX_WAITS_SAID at most."""
    late = set(blame.late)
    said_of = sorted(blame.direct, key=lambda r: (r not in late, r))[:MAX_WAITS_SAID]
    return {str(r): render(blame.direct[r].what) for r in sorted(said_of)}
