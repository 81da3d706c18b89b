"""The hang a watched job has now, if it has one, as a verdict (record.Hang): a mismatch (ranks that
issued different collectives as the same #seq of a group, by the op's rules) comes first; then a
deadlock (ranks that wait on each other in a cycle, each with its line) or a wait (ranks that wait,
directly or through others, for ones that wait on no one: running elsewhere, or stopped and silent);
then a silence (a rank that stopped reporting while the others go on). Each says which ranks wait,
which are to blame, and where the blamed ones were last seen. What each rank waits in is read by
rank_waits.py; whom that blames, waits.py says."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from ringside.server.watched import rules, waits
from ringside.server.watched.agreement import Disagreement
from ringside.server.watched.rank_waits import (
    graph_of,
    in_open_collectives,
    in_sends_and_receives,
    inside_issued_collectives,
    not_blamed_yet,
    silent_and_talking,
)
from ringside.server.watched.record import Hang, WatchedCollective
from ringside.server.watched.verdict_words import (
    collective_words,
    late_rank_words,
    said_nothing,
    waiting_in,
    waiting_on_them,
    waits_in_at,
    waits_said,
)
from ringside.server.watched.waits import Blame, Wait
from ringside.server.watched.words import MAX_PHRASES, Phrase, each_of, english, ranks, said

if TYPE_CHECKING:
    from ringside.server.watched.live import LiveWatchedJob


def current_hang(live: LiveWatchedJob) -> Hang | None:
    """The job's hang now, if it has one: a disagreement first, then a deadlock or a wait, then a
    silence."""
    if live.job.state.ended:
        return None
    disagreement = live.agreement.last
    if disagreement is not None:
        c = disagreement.collective
        if not live.collectives.went_on_past(c.group, c.seq):
            return mismatch_hang(live, disagreement)
    now = live.clock()
    silent, talking = silent_and_talking(live, now)
    in_collectives, in_p2p = in_open_collectives(live, now), in_sends_and_receives(live, now, silent)
    if not silent and not any(x.settled or x.sure for x in [*in_collectives, *in_p2p]):
        return None  # no wait has lasted, no rank stopped: what every rank is inside blames no one
    graph = graph_of(in_collectives, inside_issued_collectives(live, silent), in_p2p)
    blame = waits.blame(graph, silent, unsure=not_blamed_yet(live, graph, now))
    if blame is not None and blame.late:
        return deadlock_hang(live, blame) if blame.kind == "deadlock" else wait_hang(live, blame, silent, now)
    return silence_hang(live, silent, talking, now) if silent and talking else None


def mismatch_hang(live: LiveWatchedJob, disagreement: Disagreement) -> Hang:
    """The ranks apart from the most that issued one thing are the odd ones (`late`); with no
    such most (a tie), every rank that issued it is. What differed is said."""
    c = disagreement.collective
    split = rules.sides({int(r): what for r, what in c.mismatch.items()})
    # an all_to_all's: none singled out
    odd = sorted(map(int, c.mismatch)) if disagreement.whole else split.odd
    most = [r for r in map(int, c.mismatch) if r not in odd]

    def side(what: str, rs: list[int]) -> Phrase:
        many = rs == most and len(rs) > 8
        who = said("the_other_ranks", n=len(rs)) if many else ranks(rs)
        return said("side", ranks=who, what=disagreement.issued_as.get(what) or said("text", text=what))

    sides = each_of(split.sides, lambda one: side(*one))
    group = live.group_label(c.group)
    if disagreement.why:
        first = said("disagree_why", seq=c.seq, group=group, sides=sides, why=disagreement.why)
    else:
        first = said("disagree", seq=c.seq, group=group, sides=sides)
    words = [first, said("until_timeout")]
    return Hang(
        kind="mismatch",
        group=c.group,
        seq=c.seq,
        op=c.op,
        dtype=c.dtype,
        count=c.count,
        waiting=c.issuers(),
        late=odd,
        since_s=0.0,
        where={},
        text=english(words),
        words=words,
    )


def deadlock_hang(live: LiveWatchedJob, blame: Blame) -> Hang:
    """Ranks that wait on each other in a cycle: each with what it waits in and its line."""
    order = cycle_order(blame)
    each = each_of(order, lambda r: waits_in_at(live.rank_info(r), r, blame.direct[r].what))
    words = [said("deadlock", ranks=ranks(blame.late), said=each)]
    if blame.waiting:
        words.append(waiting_on_them(blame.waiting))
    first = blame.direct[order[0]]
    return hang_of(live, "deadlock", first, blame, words, max(blame.direct[r].since for r in order))


def cycle_order(blame: Blame) -> list[int]:
    """The cycle from its lowest rank, each waiting on the next."""
    start = min(blame.late)
    order, r = [start], start
    while True:
        r = next(t for t in blame.direct[r].on if t in blame.late)
        if r == start or r in order:
            return order
        order.append(r)


def wait_hang(live: LiveWatchedJob, blame: Blame, silent: set[int], now: float) -> Hang:
    """Ranks wait for the late ones: by what they wait in, those waiting on the late ones directly
    first (the most first), each late one said with where it was last seen, or that it is silent."""
    by: dict[object, list[int]] = {}
    for r in blame.waiting:
        if r in blame.direct:
            by.setdefault(blame.direct[r].key, []).append(r)
    late = set(blame.late)
    groups = sorted(
        by.values(),
        key=lambda rs: (
            not set(blame.direct[rs[0]].on) <= late,
            not set(blame.direct[rs[0]].on) & late,
            -len(rs),
            rs[0],
        ),
    )
    first = blame.direct[groups[0][0]] if groups else None
    waited = waited_collective(live, first)
    half = MAX_PHRASES // 2
    words = [
        *each_of(groups, lambda rs: waiting_in(rs, blame.direct[rs[0]].what), half),
        *each_of(blame.late, lambda r: late_rank_words(live, r, waited, silent, now), half),
    ]
    return hang_of(live, "wait", first, blame, words, first.since if first else 0.0)


def wait_hang_in(live: LiveWatchedJob, c: WatchedCollective, late: list[int], since: float) -> Hang:
    """The ranks in collective c wait for `late`, in a wait's words (a judge of a job's dumps, which
    knows who left none, names these itself)."""
    key = ("collective", c.group, c.seq)
    waiting = c.issuers()
    direct = {r: Wait(r, tuple(late), collective_words(live, c), key, True, False, since) for r in waiting}
    return wait_hang(live, Blame("wait", sorted(late), waiting, direct), set(), live.clock())


def waited_collective(live: LiveWatchedJob, wait: Wait | None) -> WatchedCollective | None:
    """The collective `wait` is in, if it is in one the job holds."""
    key = wait.key if wait is not None else None
    if isinstance(key, tuple) and key[0] == "collective":
        return live.collectives.collective(key[1], key[2])
    return None


def hang_of(
    live: LiveWatchedJob,
    kind: Literal["wait", "deadlock"],
    first: Wait | None,
    blame: Blame,
    words: list[Phrase],
    since: float,
) -> Hang:
    """The Hang: what the first wait is in (a collective, or a send or receive), who waits, who is to
    blame and where they were last seen, and what each waiting rank waits in."""
    group, seq, op, dtype, count = "", -1, "", "", 0
    key = first.key if first is not None else None
    c = waited_collective(live, first)
    if c is not None:
        group, seq, op, dtype, count = c.group, c.seq, c.op, c.dtype, c.count
    elif isinstance(key, tuple) and key[0] == "p2p":
        p2p = live.p2p.wait_of(*key[1:])
        if p2p is not None:
            op, dtype, count = ("send" if p2p.send else "recv"), p2p.dtype, p2p.count
    named = blame.late if kind == "wait" else [*blame.late, *blame.waiting]
    return Hang(
        kind=kind,
        group=group,
        seq=seq,
        op=op,
        dtype=dtype,
        count=count,
        waiting=blame.waiting,
        late=blame.late,
        since_s=round(since, 2),
        where={str(r): info.where for r in named if (info := live.rank_info(r)) and info.where},
        text=english(words),
        words=words,
        waits=waits_said(blame),
    )


def silence_hang(live: LiveWatchedJob, silent: set[int], talking: list[int], now: float) -> Hang:
    """The ranks that stopped reporting while the others go on (none waits on them)."""
    quiet = sorted(silent)
    where = {str(r): info.where for r in quiet if (info := live.rank_info(r)) and info.where}
    each = each_of(
        quiet, lambda r: said_nothing(r, f"{live.presence.quiet_for(r, now):.1f}", live.rank_info(r))
    )
    go_on = (
        said("goes_on", ranks=ranks(talking)) if len(talking) == 1 else said("go_on", ranks=ranks(talking))
    )
    words = [*each, go_on]
    return Hang(
        kind="silent",
        group="",
        seq=-1,
        op="",
        dtype="",
        count=0,
        waiting=talking,
        late=quiet,
        since_s=round(min(live.presence.quiet_for(r, now) for r in quiet), 2),
        where=where,
        text=english(words),
        words=words,
    )
