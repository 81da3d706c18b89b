"""Who waits for whom in a job, and whom that blames: a graph of waits, pure (rank_waits.py reads
it from what the ranks report; a job judged from its dumps goes through the same).

A rank waits in a collective for the ranks of its group that have not issued it, in a send or
receive for the peer that has not issued the other side, and inside a collective (or a matched
send/receive) that every rank issued, for the silent ones of them, stopped inside it. A rank
waits for all it waits on: any cycle is a deadlock, named as soon as every wait in it is sure
(a blocking send or receive, so none of them can go on; or a collective waited in for long).
Otherwise the ranks waited for that wait on no one (running elsewhere, or stopped) are the ones
to blame, and every rank that waits on them, directly or through others, waits: a rank that
waits inside the stopped rank's collective is among the waiting, never blamed beside it."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from ringside.server.watched.words import Phrase


@dataclass(frozen=True)
class Wait:
    """One thing a rank waits in."""

    rank: int
    on: tuple[int, ...]  # whom it waits for; () inside one with every peer, where none is to blame yet
    what: Phrase  # in words: "all_reduce #412 (1,000 float32)", "recv from rank 2 (512 float32)"
    key: Hashable  # what it waits in: ("collective", group, seq) or ("p2p", peer, send, nth)
    settled: bool  # it has lasted long enough to be a hang
    # its rank cannot go on until those it waits on act: blocked in a send or receive, or waiting
    # in a collective long past a hang's time (a rank with a collective in flight may be computing)
    sure: bool = False
    since: float = 0.0  # seconds it has lasted


@dataclass
class Blame:
    kind: Literal["deadlock", "wait"]
    late: list[int]  # the cycle, or the ranks waited for that wait on no one
    waiting: list[int]  # the ranks that wait on them, directly or through others (not in a cycle)
    direct: dict[int, Wait] = field(default_factory=dict)  # each such rank's wait that leads there


def blame(
    waits: Mapping[int, Sequence[Wait]], silent: Iterable[int] = (), unsure: Iterable[int] = ()
) -> Blame | None:
    """What the waits blame: a cycle first, then the ranks waited for; None while no wait has
    lasted, or every rank waited for is itself inside something no one is to blame for yet.
    A silent rank's own waits are not taken: it is stopped, and blamed where waited for. An
    `unsure` rank may wait in what it has not said yet: it is not blamed (not yet)."""
    quiet = set(silent)
    live = {r: ws for r, ws in waits.items() if r not in quiet}
    cycle = _cycle({r: [w for w in ws if w.sure] for r, ws in live.items()})
    if cycle:
        waiting = _reaching(live, set(cycle), settled_only=False) - set(cycle)
        return Blame("deadlock", sorted(cycle), sorted(waiting), _direct(live, cycle, waiting, cycle))
    waited = {t for ws in live.values() for w in ws if w.settled for t in w.on}
    # waited for and waiting on no one: running elsewhere, or stopped
    roots = {t for t in waited if t in quiet or not (live.get(t) or t in unsure)}
    if not roots:
        return None
    waiting = _reaching(live, roots, settled_only=True) - roots
    return Blame("wait", sorted(roots), sorted(waiting), _direct(live, sorted(roots), waiting, None))


def _edges(ws: Sequence[Wait]) -> set[int]:
    return {t for w in ws for t in w.on}


def _cycle(waits: Mapping[int, Sequence[Wait]]) -> list[int]:
    """The ranks of a cycle of waits (the first found, from the lowest rank), in the order each
    waits on the next; [] if there is none."""
    edges = {r: sorted(_edges(ws)) for r, ws in waits.items()}
    done: set[int] = set()
    for start in sorted(edges):
        if start in done:
            continue
        path: list[int] = []
        on_path: dict[int, int] = {}
        stack = [(start, iter(edges.get(start, ())))]
        path.append(start)
        on_path[start] = 0
        while stack:
            node, rest = stack[-1]
            nxt = next(rest, None)
            if nxt is None:
                stack.pop()
                done.add(node)
                on_path.pop(path.pop(), None)
                continue
            if nxt in on_path:
                return path[on_path[nxt] :]
            if nxt in done or nxt not in edges:
                continue
            on_path[nxt] = len(path)
            path.append(nxt)
            stack.append((nxt, iter(edges[nxt])))
    return []


def _reaching(waits: Mapping[int, Sequence[Wait]], targets: set[int], settled_only: bool) -> set[int]:
    """Every rank with a path of waits to one of `targets`, and the targets."""
    back: dict[int, set[int]] = {}
    for r, ws in waits.items():
        for w in ws:
            if w.settled or not settled_only:
                for t in w.on:
                    back.setdefault(t, set()).add(r)
    seen, todo = set(targets), list(targets)
    while todo:
        for r in back.get(todo.pop(), ()):
            if r not in seen:
                seen.add(r)
                todo.append(r)
    return seen


def _direct(
    waits: Mapping[int, Sequence[Wait]], late: Sequence[int], waiting: set[int], cycle: Sequence[int] | None
) -> dict[int, Wait]:
    """Each blamed-on or waiting rank's wait that leads to the late ones: in a cycle, the one on the
    next rank of it; else one on a late rank if it has one, or on another waiting rank."""
    direct: dict[int, Wait] = {}
    if cycle:
        for i, r in enumerate(cycle):
            nxt = cycle[(i + 1) % len(cycle)]
            direct[r] = next(w for w in waits[r] if nxt in w.on)
    towards = set(late) | waiting
    for r in sorted(waiting):
        ws = waits.get(r, ())
        first = next((w for w in ws if set(w.on) & set(late)), None) or next(
            (w for w in ws if set(w.on) & towards), None
        )
        if first is not None:
            direct[r] = first
    return direct
