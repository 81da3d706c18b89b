"""What became of a hang that ended (or whose blamed ranks changed), as it truly happened: "caught
up" only where what was waited in went on (a waiting rank finished it, or, all still here, the late
ones issued it); "never completed" where those waited for, or the waiting ones, left the job instead
(a backend's timeout ends the waiting ones); a mismatch the group went on past; a silent rank that
reports again; a deadlock over, or ended by its ranks leaving."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ringside.server.watched.record import Hang
from ringside.server.watched.words import Phrase, ranks, said

if TYPE_CHECKING:
    from ringside.server.watched.live import LiveWatchedJob


def hang_end_words(live: LiveWatchedJob, old: Hang, new: Hang | None) -> Phrase | None:
    """What became of the blamed ranks of `old` that `new` (the job's hang now, or None) no longer
    blames; None where there is nothing to say of them."""
    if new is not None and (new.kind, new.group, new.seq) == (old.kind, old.group, old.seq):
        return None  # the same collective, fewer (or other) ranks late: the new words say who
    gone = [r for r in old.late if new is None or r not in new.late]
    if not gone:
        return None
    if old.kind == "mismatch":
        if live.collectives.went_on_past(old.group, old.seq):
            return said("went_on_past", group=live.group_label(old.group), seq=old.seq)
        return None
    after = f"{old.since_s:.1f}"
    if old.kind == "silent":
        back = [r for r in gone if live.is_here(r)]
        return said("reports_again", ranks=ranks(back), s=after) if back else None
    blamed_left = [r for r in gone if not live.is_here(r)]
    if old.kind == "deadlock":
        return deadlock_end_words(live, gone, blamed_left)
    what = said("the_op", op=old.op) if old.seq < 0 else said("op_seq", op=old.op, seq=old.seq)
    waiters_left = [r for r in old.waiting if not live.is_here(r)]
    went_on = a_waiting_rank_went_on(live, old)
    late_issued = not (blamed_left or waiters_left) and all(
        issued_what_was_waited_for(live, old, r) for r in gone
    )
    if went_on or late_issued:
        return said("caught_up", ranks=ranks(gone), what=what, s=after)
    left = [left_words(live, rs) for rs in (blamed_left, waiters_left) if rs]
    return said("never_completed", what=what, said=left) if left else None


def deadlock_end_words(live: LiveWatchedJob, gone: list[int], blamed_left: list[int]) -> Phrase:
    """A deadlock over: its ranks left it (each said goodbye, or one went without), or it undid itself."""
    if not blamed_left:
        return said("deadlock_over", ranks=ranks(gone))
    if live.all_ended(blamed_left):
        return said("ended_in_deadlock", ranks=ranks(blamed_left))
    return said("went_in_deadlock", ranks=ranks(blamed_left))


def left_words(live: LiveWatchedJob, left: list[int]) -> Phrase:
    """Ranks that left the job: each said goodbye (ended), or one did not (went)."""
    if live.all_ended(left):
        return said("ranks_ended", ranks=ranks(left))
    return said("ranks_went", ranks=ranks(left))


def a_waiting_rank_went_on(live: LiveWatchedJob, old: Hang) -> bool:
    """Whether a rank that waited in the old hang finished what it waited in without an error: it
    ended with exit code 0, or (a collective) issued a later one of its group, or its recorder
    retired it. A rank a backend's timeout ended raised: it did not."""
    for r in old.waiting:
        info = live.rank_info(r)
        if info is None or info.error:
            continue
        if info.ended and info.exit_code == 0:
            return True
        if old.seq >= 0 and info.is_past(old.group, old.seq):
            return True
    return False


def issued_what_was_waited_for(live: LiveWatchedJob, old: Hang, rank: int) -> bool:
    """Whether `rank` issued what the old hang waited on it for (a collective: it went on), rather
    than being let off some other way."""
    if old.seq < 0:
        return True  # its waiters' sends and receives went on: what they waited in is done
    c = live.collectives.collective(old.group, old.seq)
    if c is not None:
        return c.complete or c.issued_by(rank)
    info = live.rank_info(rank)
    return info is not None and info.issued.get(old.group, -1) >= old.seq
