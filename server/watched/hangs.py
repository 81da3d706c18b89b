"""Hangs of a watched job, named while they last (matching.py keeps the job). What each rank
waits in is read from its reports (waits.py makes the graph of it and says whom it blames):

- a collective some ranks of its group have issued and others have not, for HANG_S: those in
  it wait for those not; a collective every rank issued, for the silent ones still inside it;
- a send or receive a rank is blocked in: for the peer, if it has not issued the other side
  (paired by order), or is silent inside it.

The verdict is a deadlock (ranks that wait on each other in a cycle, with each one's line), or
a wait (ranks that wait, directly or through others, for ones that wait on no one: running
elsewhere, or stopped and silent), or a silence (a rank that stopped reporting while the others
go on), or a mismatch (ranks that issued different collectives as the same #seq of a group, by
the op's rules), which comes first. Each says which ranks wait, which are to blame, and where
the blamed ones were last seen; and when it ends, what truly happened."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from ringside.server.watched import rules, waits
from ringside.server.watched.record import Hang, RankInfo, WatchedCollective, WatchedJob
from ringside.server.watched.waits import Blame, Wait
from ringside.server.watched.words import MAX_PHRASES, Phrase, each_of, english, rank, ranks, render, said

if TYPE_CHECKING:
    from ringside.server.watched.matching import Matching

HANG_S = 1.0  # a collective open this long, some of its ranks not in it, is a hang
# a rank unheard this long, while others report, is stopped (a reporter reports every second at least)
SILENT_S = 3.0
# a rank that said it issued more than it said: its reporter reads within this (pace.py's polls)
UNSAID_S = SILENT_S
FRESH_S = 1.5  # heard this lately, a rank's reporter is alive (it says where it is at least every second)
SURE_S = SILENT_S  # a collective waited in this long: its ranks cannot go on (a cycle of them is a deadlock)
MAX_WAITED = 64  # open collectives with ranks late to them read in one check, the oldest
MAX_WAITS_SAID = 256  # ranks whose wait a Hang says (the blamed ones first): a job's thousands are alike


def check(w: Matching) -> tuple[Hang | None, list[Phrase]] | None:
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
        w.job.hang = hang  # the same hang, longer (its words may say more: a silence)
        return None
    w.job.hang = hang
    ended = over(w, old, hang) if old is not None else None
    words = [*([ended] if ended else []), *(hang.words if hang is not None else [])] or [said("hang_over")]
    w.note(words)
    return hang, words


def over(w: Matching, old: Hang, new: Hang | None) -> Phrase | None:
    """What became of the blamed ones of a hang that ended (or whose blamed ones changed), as it truly
    happened: "caught up" only where what was waited in went on (a waiting rank finished it, or, all
    still here, the late ones issued it); "never completed" where those waited for, or the waiting
    ones, left the job instead (a backend's timeout ends the waiting ones)."""
    if new is not None and (new.kind, new.group, new.seq) == (old.kind, old.group, old.seq):
        return None  # the same collective, fewer (or other) ranks late: the new words say who
    gone = [r for r in old.late if new is None or r not in new.late]
    if not gone:
        return None
    if old.kind == "mismatch":
        went = passed(w, old.group, old.seq)
        return said("went_on_past", group=label(w.job, old.group), seq=old.seq) if went else None
    after = f"{old.since_s:.1f}"
    if old.kind == "silent":
        back = [r for r in gone if here(w.job, w, r)]
        return said("reports_again", ranks=ranks(back), s=after) if back else None
    blamed_left = [r for r in gone if not here(w.job, w, r)]
    if old.kind == "deadlock":
        if blamed_left:
            return said(f"{ended_or_went(w, blamed_left)}_in_deadlock", ranks=ranks(blamed_left))
        return said("deadlock_over", ranks=ranks(gone))
    what = said("the_op", op=old.op) if old.seq < 0 else said("op_seq", op=old.op, seq=old.seq)
    waiters_left = [r for r in old.waiting if not here(w.job, w, r)]
    if went_on(w, old) or not (blamed_left or waiters_left) and all(did(w, old, r) for r in gone):
        return said("caught_up", ranks=ranks(gone), what=what, s=after)
    left = [
        said(f"ranks_{ended_or_went(w, rs)}", ranks=ranks(rs)) for rs in (blamed_left, waiters_left) if rs
    ]
    return said("never_completed", what=what, said=left) if left else None


def went_on(w: Matching, old: Hang) -> bool:
    """Whether a rank that waited in the old hang finished what it waited in without an error: it
    ended with exit code 0, or (a collective) issued a later one of its group, or its recorder
    retired it. A rank a backend's timeout ended raised: it did not."""
    for r in old.waiting:
        info = w.job.ranks.get(str(r))
        if info is None or info.error:
            continue
        if info.ended and info.exit_code == 0:
            return True
        if old.seq >= 0 and past(info, old.group, old.seq):
            return True
    return False


def past(info: RankInfo, group: str, seq: int) -> bool:
    """Whether a rank is past collective #seq of `group`: it issued a later one, or finished it."""
    finished_it = info.pending is not None and info.pending.get(group, seq + 1) > seq
    return info.issued.get(group, -1) > seq or finished_it


def did(w: Matching, old: Hang, rank: int) -> bool:
    """Whether `rank` issued what the old hang waited on it for (a collective: it went on), rather
    than being let off some other way."""
    if old.seq < 0:
        return True  # its waiters' sends and receives went on: what they waited in is done
    c = w.open.get((old.group, old.seq)) or w.recent.get((old.group, old.seq))
    if c is not None:
        return c.complete or str(rank) in c.issued
    info = w.job.ranks.get(str(rank))
    return info is not None and info.issued.get(old.group, -1) >= old.seq


def here(job: WatchedJob, w: Matching, rank: int) -> bool:
    info = job.ranks.get(str(rank))
    return rank in w.connected and info is not None and not info.ended


def ended_or_went(w: Matching, ranks: list[int]) -> str:
    """The word for ranks that left the job: each said goodbye (ended), or one did not (went)."""
    infos = [w.job.ranks.get(str(r)) for r in ranks]
    return "ended" if all(info is not None and info.ended for info in infos) else "went"


def left_open(w: Matching) -> list[WatchedCollective]:
    """At the job's end, what never completed, oldest first: lost from some rank's reports (it
    went past it), or what the job ended waiting in."""
    for c in list(w.open.values()):
        if all_went_past(w, c):
            w.unseen(c, late_in(c))
    return sorted([*w.open.values(), *(c for c in w.recent.values() if c.unseen)], key=lambda c: c.index)


def find(w: Matching) -> Hang | None:
    """The job's hang now, if it has one: a disagreement first, then a deadlock or a wait, then a
    silence."""
    if w.job.state.ended:
        return None
    if w.mismatched is not None and not passed(w, w.mismatched.group, w.mismatched.seq):
        return disagree(w, w.mismatched)
    now = w.clock()
    silent, talking = quiet(w, now)
    in_collectives, in_p2p = collective_waits(w, now), p2p_waits(w, now, silent)
    if not silent and not any(x.settled or x.sure for x in [*in_collectives, *in_p2p]):
        return None  # no wait has lasted, no rank stopped: what every rank is inside blames no one
    graph = gather(in_collectives, inside_waits(w, silent), in_p2p)
    blame = waits.blame(graph, silent, unsure=unsaid(w, graph, now))
    if blame is not None and blame.late:
        return deadlock(w, blame, now) if blame.kind == "deadlock" else wait(w, blame, silent, now)
    return silence(w, silent, talking, now) if silent and talking else None


# --- what each rank waits in ------------------------------------------------------------
# Each tick asks these: none walks a group's ranks unless one of its ranks may be late (a forged claim
# of 65,536 ranks, one connected, cost a second a tick: the loop's all).


def quiet(w: Matching, now: float) -> tuple[set[int], list[int]]:
    """The ranks here that stopped reporting, and those that talk."""
    job = w.job
    present = [r for r in w.connected if not job.ranks[str(r)].ended]
    silent = {r for r in present if now - w.heard.get(r, now) > SILENT_S}
    return silent, sorted(r for r in present if r not in silent)


def unsaid(w: Matching, graph: dict[int, list[Wait]], now: float) -> set[int]:
    """Ranks that, heard lately, had issued more than they said: each may wait in what it has not said
    (on a 2-D mesh, the other dimension's collective), which its next read says, so it is not blamed
    before a wait on it has lasted UNSAID_S. One unheard for FRESH_S (stopped) is blamed as any."""
    fresh = {r for r in w.unsaid if now - w.heard.get(r, now) <= FRESH_S}
    if not fresh:
        return set()
    long = {t for ws in graph.values() for wait_ in ws if wait_.since >= UNSAID_S for t in wait_.on}
    return fresh - long


def gather(*waits_: list[Wait]) -> dict[int, list[Wait]]:
    """What each rank here waits in, and on whom."""
    graph: dict[int, list[Wait]] = {}
    for wait_ in [w for some in waits_ for w in some]:
        graph.setdefault(wait_.rank, []).append(wait_)
    return graph


def collective_waits(w: Matching, now: float) -> list[Wait]:
    """Ranks in an open collective, HANG_S since it was first seen, wait for its ranks here that have
    not issued it (the oldest MAX_WAITED such collectives); not those that finished their part of it."""
    out: list[Wait] = []
    read, members = 0, dict[int, set[int]]()
    for key, c in list(w.open.items()):  # oldest first
        since = now - w.first_seen.get(key, now)
        if since < HANG_S or read == MAX_WAITED:
            break
        if all_went_past(w, c):  # their reports of it were lost
            w.unseen(c, late_in(c))
            continue
        if finished(w.job, c):  # the late ones issued it: their reports are behind, not them
            continue
        late = tuple(waited_for(w, c, members))
        if not late:
            continue
        read += 1
        what = collective_words(w.job, c)
        sure = since >= SURE_S
        out += [
            Wait(int(r), late, what, ("collective", c.group, c.seq), True, sure, since)
            for r in c.issued
            if here(w.job, w, int(r)) and not past(w.job.ranks[r], c.group, c.seq)  # its part done
        ]
    return out


def inside_waits(w: Matching, silent: set[int]) -> list[Wait]:
    """Ranks inside a collective every rank of its group issued (their recorders have not retired it)
    wait for the silent ones of it that have not finished it: stopped inside it. With none silent, no
    one is to blame yet (it may be in flight)."""
    out: list[Wait] = []
    members: dict[tuple[str, int], set[int]] = {}
    said_of: dict[tuple[str, int], Phrase] = {}  # its words, made once: every rank of it waits in it
    # asked once a collective: it walks the ranks that issued it, and each of 4,096 ranks inside one
    # asked it again (16 M look-ups a check)
    by_all: dict[tuple[str, int], bool] = {}
    for r in list(w.connected):
        info = w.job.ranks[str(r)]
        if info.ended or not info.pending:
            continue
        for group, seq in info.pending.items():
            c = w.recent.get((group, seq)) or w.open.get((group, seq))
            if c is None:
                continue
            if (group, seq) not in by_all:
                by_all[(group, seq)] = issued_by_all(w.job, c)
            if not by_all[(group, seq)]:
                continue
            if silent and (group, seq) not in members:
                members[(group, seq)] = set(c.ranks)  # once: a group may claim thousands of ranks
            on = tuple(
                sorted(q for q in silent if q != r and q in members.get((group, seq), ()) and inside(w, q, c))
            )
            what = said_of.get((group, seq)) or said("issued_by_all", what=collective_words(w.job, c))
            said_of[(group, seq)] = what
            since = max((w.clock() - w.heard.get(q, w.clock()) for q in on), default=0.0)
            out.append(Wait(r, on, what, ("collective", group, seq), bool(on), False, since))
    return out


def inside(w: Matching, rank: int, c: WatchedCollective) -> bool:
    """Whether `rank` may still be inside c, as its last report says: it has not said it finished it
    (one whose reports stopped before c, which it issued, has not)."""
    return not finished_by(w.job.ranks[str(rank)], c)


def issued_by_all(job: WatchedJob, c: WatchedCollective) -> bool:
    """Whether every rank of c's group issued it: each said so, or one finished it where it completes
    only then. A rank stopped right after issuing it may never say so: its reporter reads the recorder
    a poll behind the rank, and a stopped one reads no more; yet a rank it sent its part to finished."""
    return c.complete or finished(job, c)


def p2p_waits(w: Matching, now: float, silent: set[int]) -> list[Wait]:
    """Ranks blocked in a send or receive wait for the peer: if it has not issued the other side
    (paired by order), at once where blocked (a cycle of such cannot go on) and as a hang after HANG_S;
    if it has, only where it is silent (stopped inside it)."""
    out: list[Wait] = []
    for r, mine in list(w.waits.items()):
        if not here(w.job, w, r):
            continue
        for one in mine:
            peer = one.peer
            if not here(w.job, w, peer):
                continue
            sends, receives = w.p2p_issued.get(peer, {}).get(r, (0, 0))
            matched = (receives if one.send else sends) >= one.nth
            on = (peer,) if not matched or peer in silent else ()
            since = now - w.wait_seen.get((r, peer, one.send, one.nth), now)
            settled = bool(on) and (peer in silent if matched else since >= HANG_S)
            size = f"{one.count:,} {one.dtype}".rstrip()
            what = said("send_to" if one.send else "recv_from", peer=rank(peer), size=size)
            key = ("p2p", r, peer, one.send, one.nth)
            out.append(Wait(r, on, what, key, settled, one.blocked and not matched, since))
    return out


def late_in(c: WatchedCollective) -> list[int]:
    """c's ranks that have not issued it."""
    return [r for r in c.ranks if str(r) not in c.issued]


def all_went_past(w: Matching, c: WatchedCollective) -> bool:
    """Whether every rank of c that has not issued it went past it (their reports of it were lost).
    Only a rank that said hello can have: a group of more ranks than said hello has one that did not."""
    if len(c.ranks) > len(w.job.ranks):
        return False
    # walked till the first late rank that did not: each tick asks it of every collective open long
    return all(went_past(w.job, r, c) for r in c.ranks if str(r) not in c.issued)


def waited_for(w: Matching, c: WatchedCollective, members: dict[int, set[int]]) -> list[int]:
    """c's ranks that have not issued it and are here (connected, not ended), in rank order: found
    among the connected ranks first, where most of a claimed world may never have come, and its
    group's ranks walked once a check (`members`: by the list's id; collectives share their group's)."""
    present = {r for r in w.connected if str(r) not in c.issued and not w.job.ranks[str(r)].ended}
    if not present:
        return []
    if id(c.ranks) not in members:
        members[id(c.ranks)] = set(c.ranks)
    return sorted(present & members[id(c.ranks)])


def went_past(job: WatchedJob, rank: int, c: WatchedCollective) -> bool:
    """Whether `rank` has issued a later collective of c's group than c."""
    info = job.ranks.get(str(rank))
    return info is not None and info.issued.get(c.group, -1) > c.seq


def finished(job: WatchedJob, c: WatchedCollective) -> bool:
    """Whether c is finished, so that the ranks not yet seen in it are late only in saying so (stopped
    before their reporter read it), and whoever waits, waits in a later one. A collective that is not
    rooted completes only once every rank of its group has issued it: one rank that finished it (its
    recorder retired it) says so. A rank finishes its part of a rooted one without the others (a
    gather's sender once the root has its block), but its root only once every rank took part (a
    send waits for its receive): so every rank that issued it, the root among them, must have."""
    done = (finished_by(job.ranks.get(rank), c) for rank in c.issued)
    return all(done) if c.op in rules.ROOTED else any(done)


def finished_by(info: RankInfo | None, c: WatchedCollective) -> bool:
    return (
        info is not None
        and info.pending is not None
        and info.issued.get(c.group, -1) >= c.seq
        and info.pending.get(c.group, c.seq + 1) > c.seq
    )


def passed(w: Matching, group: str, seq: int) -> bool:
    """Whether a later collective of the group than #seq has completed: the job went on after all."""
    return any(o.group == group and o.seq > seq and o.complete for o in list(w.recent.values())[-64:])


# --- the verdicts in words ---------------------------------------------------------------


def disagree(w: Matching, c: WatchedCollective) -> Hang:
    """The ranks apart from the most that issued one thing are the odd ones (`late`); with no
    such most (a tie), every rank that issued it is. What differed is said."""
    split = rules.sides({int(r): what for r, what in c.mismatch.items()})
    odd = split.odd if not w.whole else sorted(map(int, c.mismatch))  # an all_to_all's: none singled out
    most = [r for r in map(int, c.mismatch) if r not in odd]

    def side(what: str, rs: list[int]) -> Phrase:
        many = rs == most and len(rs) > 8
        who = said("the_other_ranks", n=len(rs)) if many else ranks(rs)
        return said("side", ranks=who, what=w.issued_as.get(what) or said("text", text=what))

    sides = each_of(split.sides, lambda one: side(*one))
    key = "disagree_why" if w.why else "disagree"
    words = [said(key, seq=c.seq, group=label(w.job, c.group), sides=sides, why=w.why), said("until_timeout")]
    return Hang(
        kind="mismatch",
        group=c.group,
        seq=c.seq,
        op=c.op,
        dtype=c.dtype,
        count=c.count,
        waiting=sorted(int(r) for r in c.issued),
        late=odd,
        since_s=0.0,
        where={},
        text=english(words),
        words=words,
    )


def deadlock(w: Matching, blame: Blame, now: float) -> Hang:
    """Ranks that wait on each other in a cycle: each with what it waits in and its line."""
    job, cycle = w.job, blame.late
    order = cycle_order(blame)
    each = each_of(order, lambda r: waits_at(job, r, blame.direct[r].what))
    first = blame.direct[order[0]]
    words = [said("deadlock", ranks=ranks(cycle), said=each)]
    if blame.waiting:
        words.append(said(f"{verb(blame.waiting)}_on_them", ranks=ranks(blame.waiting)))
    return hang_of(w, "deadlock", first, blame, words, max(blame.direct[r].since for r in order))


def waits_at(job: WatchedJob, r: int, what: Phrase) -> Phrase:
    info = job.ranks.get(str(r))
    if info and info.where:
        return said("waits_in_at", rank=rank(r), what=what, where=info.where)
    return said("waits_in", ranks=rank(r), what=what)


def cycle_order(blame: Blame) -> list[int]:
    """The cycle from its lowest rank, each waiting on the next."""
    start = min(blame.late)
    order, r = [start], start
    while True:
        r = next(t for t in blame.direct[r].on if t in blame.late)
        if r == start or r in order:
            return order
        order.append(r)


def wait(w: Matching, blame: Blame, silent: set[int], now: float) -> Hang:
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
    half = MAX_PHRASES // 2
    words = [
        *each_of(
            groups, lambda rs: said(f"{verb(rs)}_in", ranks=ranks(rs), what=blame.direct[rs[0]].what), half
        ),
        *each_of(blame.late, lambda r: late_words(w, r, first, silent, now), half),
    ]
    return hang_of(w, "wait", first, blame, words, first.since if first else 0.0)


def wait_in(w: Matching, c: WatchedCollective, late: list[int], since: float) -> Hang:
    """The ranks in collective c wait for `late`, in a wait's words (a judge of a job's dumps, which
    knows who left none, names these itself)."""
    key = ("collective", c.group, c.seq)
    waiting = sorted(int(r) for r in c.issued)
    direct = {r: Wait(r, tuple(late), collective_words(w.job, c), key, True, False, since) for r in waiting}
    return wait(w, Blame("wait", sorted(late), waiting, direct), set(), w.clock())


def late_words(w: Matching, r: int, first: Wait | None, silent: set[int], now: float) -> Phrase:
    """A late rank: what it last reported of the collective it is late to, and where it was last seen;
    or how long it has said nothing (stopped inside what the others wait in, or elsewhere)."""
    info = w.job.ranks.get(str(r))
    c = collective_of(w, first)
    ago = f"{w.now_s() - info.seen_s:.1f}" if info else ""
    quiet = f"{now - w.heard.get(r, now):.1f}"
    if c is not None and not issued_by_all(w.job, c):  # late to issue it
        last = info.issued.get(c.group) if info else None
        seen = said("and_seen_at", where=info.where, ago=ago) if info and info.where else None
        silence = said("and_silent", s=quiet) if r in silent else None
        unread = said("and_unread", n=info.unread) if info and info.unread else None
        if last is None:
            return said("reported_nothing", rank=rank(r), unread=unread, silent=silence, seen=seen)
        return said("last_reported", rank=rank(r), seq=last, unread=unread, silent=silence, seen=seen)
    if r in silent:
        return said("said_nothing", rank=rank(r), s=quiet, last=_last(info))
    if info and info.where:
        return said("seen_at", rank=rank(r), where=info.where, ago=ago)
    return said("not_its_side", rank=rank(r))


def collective_of(w: Matching, first: Wait | None) -> WatchedCollective | None:
    key = first.key if first is not None else None
    if isinstance(key, tuple) and key[0] == "collective":
        return w.open.get((key[1], key[2])) or w.recent.get((key[1], key[2]))
    return None


def hang_of(
    w: Matching,
    kind: Literal["wait", "deadlock"],
    first: Wait | None,
    blame: Blame,
    words: list[Phrase],
    since: float,
) -> Hang:
    """The Hang: what the first wait is in (a collective, or a send or receive), who waits, who is to
    blame and where they were last seen, and what each waiting rank waits in."""
    job = w.job
    group, seq, op, dtype, count = "", -1, "", "", 0
    key = first.key if first is not None else None
    c = collective_of(w, first)
    if c is not None:
        group, seq, op, dtype, count = c.group, c.seq, c.op, c.dtype, c.count
    elif isinstance(key, tuple) and key[0] == "p2p":
        p2p = next((x for x in w.waits.get(key[1], []) if (x.peer, x.send, x.nth) == key[2:]), None)
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
        where={str(r): info.where for r in named if (info := job.ranks.get(str(r))) and info.where},
        text=english(words),
        words=words,
        waits=waits_said(blame),
    )


def waits_said(blame: Blame) -> dict[str, str]:
    """What each rank waits in, in words: the blamed ones' and the first others', MAX_WAITS_SAID at most."""
    late = set(blame.late)
    said_of = sorted(blame.direct, key=lambda r: (r not in late, r))[:MAX_WAITS_SAID]
    return {str(r): render(blame.direct[r].what) for r in sorted(said_of)}


def silence(w: Matching, silent: set[int], talking: list[int], now: float) -> Hang:
    """The ranks that stopped reporting while the others go on (none waits on them)."""
    job, quiet_ = w.job, sorted(silent)
    where = {str(r): job.ranks[str(r)].where for r in quiet_ if job.ranks[str(r)].where}
    each = each_of(
        quiet_,
        lambda r: said(
            "said_nothing", rank=rank(r), s=f"{now - w.heard[r]:.1f}", last=_last(job.ranks[str(r)])
        ),
    )
    words = [*each, said("goes_on" if len(talking) == 1 else "go_on", ranks=ranks(talking))]
    return Hang(
        kind="silent",
        group="",
        seq=-1,
        op="",
        dtype="",
        count=0,
        waiting=talking,
        late=quiet_,
        since_s=round(min(now - w.heard[r] for r in quiet_), 2),
        where=where,
        text=english(words),
        words=words,
    )


def collective_words(job: WatchedJob, c: WatchedCollective) -> Phrase:
    """A collective, with its group where it is not the world's (on a 2-D mesh, #43 of each dp group
    is another collective)."""
    size = f"{c.count:,} {c.dtype}".rstrip()
    members = job.groups.get(c.group)
    group = None  # the world's group goes without saying
    if members is not None and len(members) < job.world_size:
        group = said("of_group", group=label(job, c.group), ranks=ranks(members))
    if c.bucket:
        return said("collective_bucket", op=c.op, seq=c.seq, group=group, size=size, bucket=c.bucket.index)
    return said("collective", op=c.op, seq=c.seq, group=group, size=size)


def label(job: WatchedJob, group: str) -> str:
    """A group as the page names it: the name torch gave it, where it gave one."""
    desc = job.group_descs.get(group, "")
    return desc if desc and desc not in ("undefined", "default_pg") else group


def _last(info: RankInfo | None) -> Phrase | None:
    if info is None:
        return None
    issued = each_of(list(info.issued.items()), lambda one: said("seq_in_group", seq=one[1], group=one[0]))
    if issued and info.where:
        return said("last_issued_seen", issued=issued, where=info.where)
    if issued:
        return said("last_issued", issued=issued)
    return said("last_seen", where=info.where) if info.where else None


def verb(ranks: list[int]) -> str:
    return "waits" if len(ranks) == 1 else "wait"
