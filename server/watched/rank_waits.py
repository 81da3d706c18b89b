"""What each rank of a watched job waits in now, and on whom, as its reports say: the edges of the
graph that waits.py judges.

- a collective some ranks of its group have issued and others have not, for the job's hang_after
  (HANG_S unless the server or the job says otherwise), or longer where the late rank paused there
  before and went on (pauses.py): those in it wait for those not; a collective every rank issued,
  for the silent ones still inside it;
- a send or receive a rank is blocked in: for the peer, if it has not issued the other side
  (paired by order), or is silent inside it.

Each tick asks these: none walks a group's ranks unless one of its ranks may be late (a forged claim
of 65,536 ranks, one connected, cost a second a tick: the loop's all)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ringside.server.watched.pauses import Place
from ringside.server.watched.record import WatchedCollective
from ringside.server.watched.verdict_words import collective_words
from ringside.server.watched.waits import Wait
from ringside.server.watched.words import Phrase, rank, said

if TYPE_CHECKING:
    from ringside.server.watched.live import LiveWatchedJob

# a collective open this long, some of its ranks not in it, is a hang: a job's hang_after by default
HANG_S = 1.0
# a rank unheard this long, while others report, is stopped (a reporter reports every second at least)
SILENT_S = 3.0
# a rank that said it issued more than it said: its reporter reads within this (pace.py's polls)
UNSAID_S = SILENT_S
FRESH_S = 1.5  # heard this lately, a rank's reporter is alive (it says where it is at least every second)
SURE_S = SILENT_S  # a collective waited in this long: its ranks cannot go on (a cycle of them is a deadlock)
MAX_WAITED = 64  # open collectives with ranks late to them read in one check, the oldest


def silent_and_talking(live: LiveWatchedJob, now: float) -> tuple[set[int], list[int]]:
    """The ranks here that stopped reporting, and those that talk."""
    present = live.here()
    silent = {r for r in present if live.presence.quiet_for(r, now) > SILENT_S}
    return silent, sorted(r for r in present if r not in silent)


def not_blamed_yet(live: LiveWatchedJob, graph: dict[int, list[Wait]], now: float) -> set[int]:
    """Ranks that, heard lately, had issued more than they said: each may wait in what it has not said
    (on a 2-D mesh, the other dimension's collective), which its next read says, so it is not blamed
    before a wait on it has lasted UNSAID_S. One unheard for FRESH_S (stopped) is blamed as any."""
    fresh = {r for r in live.presence.unsaid_ranks() if live.presence.quiet_for(r, now) <= FRESH_S}
    if not fresh:
        return set()
    long = {t for ws in graph.values() for wait in ws if wait.since >= UNSAID_S for t in wait.on}
    return fresh - long


def graph_of(*waits: list[Wait]) -> dict[int, list[Wait]]:
    """What each rank here waits in, and on whom."""
    graph: dict[int, list[Wait]] = {}
    for wait in [w for some in waits for w in some]:
        graph.setdefault(wait.rank, []).append(wait)
    return graph


def in_open_collectives(live: LiveWatchedJob, now: float) -> list[Wait]:
    """Ranks in an open collective, the job's hang_after since it was first seen, wait for its ranks
    here that have not issued it (the oldest MAX_WAITED such collectives), each once the wait has
    outlasted its pauses there (pauses.py); not those that finished their part of it. One whose late
    ranks all went past it is lost from their reports: kept so, not waited in."""
    out: list[Wait] = []
    read, members = 0, dict[int, set[int]]()
    hang_after, sure_after = live.hang_after, max(SURE_S, live.hang_after)
    for c, since in live.collectives.opened(now):  # oldest first
        if since < hang_after or read == MAX_WAITED:
            break
        if live.late_went_past(c):  # their reports of it were lost
            live.collectives.lost(c, c.not_issued())
            continue
        if live.finished(c):  # the late ones issued it: their reports are behind, not them
            continue
        late = tuple(late_ranks_here(live, c, members))
        if not late:
            continue
        read += 1
        late = live.pauses.overdue(late, c.group, c.seq, since, places_of(live, c, late), hang_after)
        if not late:
            continue  # a pause its late ranks made here before and went on from: not yet a hang
        what = collective_words(live, c)
        sure = since >= sure_after
        out += [
            Wait(r, late, what, ("collective", c.group, c.seq), True, sure, since)
            for r in map(int, c.issued)
            if live.is_here(r) and not live.is_past(r, c.group, c.seq)  # its part done
        ]
    live.pauses.checked(lambda r, group, seq: went_on(live, r, group, seq))
    return out


def places_of(live: LiveWatchedJob, c: WatchedCollective, late: tuple[int, ...]) -> dict[int, Place]:
    """Where each late rank of c is paused: the line its main thread was last seen at, or, from a
    reporter that says no line, c's group and op."""
    out: dict[int, Place] = {}
    for r in late:
        info = live.rank_info(r)
        out[r] = ("line", info.where) if info is not None and info.where else ("op", c.group, c.op)
    return out


def went_on(live: LiveWatchedJob, rank: int, group: str, seq: int) -> bool:
    """Whether `rank`, waited for in #seq of `group`, went on from it: it is still here, and said it
    issued it (or later), or a rank finished it (its recorder retired it: which needs `rank` in it)."""
    info = live.rank_info(rank)
    if info is None or not live.is_here(rank):
        return False
    c = live.collectives.collective(group, seq)
    return info.issued.get(group, -1) >= seq or (c is not None and (c.complete or live.finished(c)))


def late_ranks_here(live: LiveWatchedJob, c: WatchedCollective, members: dict[int, set[int]]) -> list[int]:
    """c's ranks that have not issued it and are here (connected, not ended), in rank order: found
    among the connected ranks first, where most of a claimed world may never have come, and its
    group's ranks walked once a check (`members`: by the list's id; collectives share their group's)."""
    present = {r for r in live.here() if not c.issued_by(r)}
    if not present:
        return []
    if id(c.ranks) not in members:
        members[id(c.ranks)] = set(c.ranks)
    return sorted(present & members[id(c.ranks)])


def inside_issued_collectives(live: LiveWatchedJob, silent: set[int]) -> list[Wait]:
    """Ranks inside a collective every rank of its group issued (their recorders have not retired it)
    wait for the silent ones of it that have not finished it: stopped inside it. With none silent, no
    one is to blame yet (it may be in flight)."""
    out: list[Wait] = []
    members: dict[tuple[str, int], set[int]] = {}
    said_of: dict[tuple[str, int], Phrase] = {}  # its words, made once: every rank of it waits in it
    # asked once a collective: it walks the ranks that issued it, and each of 4,096 ranks inside one
    # asked it again (16 M look-ups a check)
    by_all: dict[tuple[str, int], bool] = {}
    now = live.clock()
    for r in live.presence.connected_ranks():
        info = live.rank_info(r)
        if info is None or info.ended or not info.pending:
            continue
        for key in info.pending.items():
            c = live.collectives.collective(*key)
            if c is None:
                continue
            if key not in by_all:
                by_all[key] = live.issued_by_all(c)
            if not by_all[key]:
                continue
            if silent and key not in members:
                members[key] = set(c.ranks)  # once: a group may claim thousands of ranks
            in_it = members.get(key, set())
            on = tuple(sorted(q for q in silent if q != r and q in in_it and not live.finished_by(q, c)))
            what = said_of.get(key) or said("issued_by_all", what=collective_words(live, c))
            said_of[key] = what
            since = max((live.presence.quiet_for(q, now) for q in on), default=0.0)
            out.append(Wait(r, on, what, ("collective", *key), bool(on), False, since))
    return out


def in_sends_and_receives(live: LiveWatchedJob, now: float, silent: set[int]) -> list[Wait]:
    """Ranks blocked in a send or receive wait for the peer: if it has not issued the other side
    (paired by order), at once where blocked (a cycle of such cannot go on) and as a hang after the
    job's hang_after;
    if it has, only where it is silent (stopped inside it)."""
    out: list[Wait] = []
    for r, mine in live.p2p.waiting():
        if not live.is_here(r):
            continue
        for one in mine:
            peer = one.peer
            if not live.is_here(peer):
                continue
            matched = live.p2p.matched(r, one)
            on = (peer,) if not matched or peer in silent else ()
            since = live.p2p.waited_for(r, one, now)
            settled = bool(on) and (peer in silent if matched else since >= live.hang_after)
            size = f"{one.count:,} {one.dtype}".rstrip()
            what = (
                said("send_to", peer=rank(peer), size=size)
                if one.send
                else said("recv_from", peer=rank(peer), size=size)
            )
            key = ("p2p", r, peer, one.send, one.nth)
            out.append(Wait(r, on, what, key, settled, one.blocked and not matched, since))
    return out
