"""Does a schedule compute its collective? Checked symbolically, for any op: every
chunk of every rank carries the multiset of inputs, (rank, chunk) pairs, that went
into it. A copy takes the sender's multiset, a reduce adds the sender's to its own.
After the last step every output chunk must hold exactly what the collective's
definition (Collective.sources) says, each input once. So a schedule that users
write is refused with words that point at the rank and the chunk that are wrong.
Ranks here are the schedule's own (group-local)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace

from .collectives import get
from .schedule import Schedule, ScheduleError, Step

Cell = Counter[tuple[int, int]]  # (rank, chunk) -> how many times that input went into this chunk


def final_cells(schedule: Schedule) -> list[list[Cell]]:
    """Every rank's chunks after the last step, as the inputs that went into each."""
    p, pieces, collective = schedule.world_size, schedule.pieces, get(schedule.collective, schedule.servers)
    cells: list[list[Cell]] = [[Counter() for _ in range(schedule.num_chunks)] for _ in range(p)]
    for r in range(p):
        for block in collective.input_blocks(r, p, schedule.root):
            for c in range(block * pieces, (block + 1) * pieces):
                cells[r][c] = Counter({(r, c): 1})
    for step in schedule.steps:
        apply(cells, step)
    return cells


def apply(cells: list[list[Cell]], step: Step) -> None:
    """One step's transfers on the cells, in place."""
    sent = [cells[t.src][t.chunk] for t in step.transfers]  # read as before the step
    for t, value in zip(step.transfers, sent):
        if not t.reduce:
            cells[t.dst][t.into] = Counter(value)
    for t, value in zip(step.transfers, sent):
        if t.reduce:
            cells[t.dst][t.into] = cells[t.dst][t.into] + value


def expected(schedule: Schedule, rank: int, peer: int) -> dict[int, Cell]:
    """Output chunk -> the inputs the collective's definition puts in it."""
    p, pieces, collective = schedule.world_size, schedule.pieces, get(schedule.collective, schedule.servers)
    out: dict[int, Cell] = {}
    for block, sources in collective.sources(rank, p, schedule.root, peer).items():
        for j in range(pieces):
            out[block * pieces + j] = Counter({(s, b * pieces + j): 1 for s, b in sources})
    return out


def check_definition(schedule: Schedule) -> None:
    """Raise ScheduleError naming the first rank and chunk that do not end as the collective
    says. A schedule with a peer sends from its root to the rank after it."""
    peer = (schedule.root + 1) % schedule.world_size
    once = get(schedule.collective, schedule.servers).exactly_once
    cells = final_cells(schedule)
    for rank in range(schedule.world_size):
        for chunk, want in expected(schedule, rank, peer).items():
            problem = difference(cells[rank][chunk], want, once)
            if problem:
                raise ScheduleError(f"after the last step rank {rank} holds chunk {chunk} {problem}")


def difference(got: Cell, want: Cell, once: bool = True) -> str | None:
    """What is wrong with a chunk, in words; None when it is right. With `once` False an
    input may go in more than once (an OR, say, does not count repeats)."""
    for (s, c), n in sorted(want.items()):
        if got[(s, c)] == 0:
            elsewhere = sorted(x for (r, x) in got if r == s)
            instead = f" (it has rank {s}'s chunk {elsewhere[0]} instead of chunk {c})" if elsewhere else ""
            return f"without rank {s}'s contribution{instead}"
        if once and got[(s, c)] > n:
            return f"with rank {s}'s contribution {got[(s, c)]} times"
    extra = sorted(set(got) - set(want))
    if extra:
        s, c = extra[0]
        return f"with rank {s}'s chunk {c}, which does not belong there"
    return None


@dataclass(frozen=True)
class Departure:
    """Where a run's buffers first depart from what its collective requires."""

    step: int  # 0-based (-1 only for a schedule of no steps)
    rank: int
    chunk: int
    words: str


def first_departure(
    schedule: Schedule, names: list[int] | None = None, peer: int | None = None
) -> Departure | None:
    """The first step after which some rank's chunk departs from what the collective requires;
    None when none does. A chunk departs at step k when, after it, the chunk holds an input
    that no correct value of that chunk holds (another chunk's, or one counted twice where
    each counts once: partial results never do), or, for an output chunk that ends wrong,
    when k is the last step that writes it (the last step, if none does): from then on it
    stays wrong. Ties go to a chunk that holds what does not belong, then the lower rank
    and chunk. `names[r]`: how rank r is called in the words (a global rank); `peer`: the
    receiver of a collective with one (default: the rank after the root)."""
    p, once = schedule.world_size, get(schedule.collective, schedule.servers).exactly_once
    names = names or list(range(p))
    peer = (schedule.root + 1) % p if peer is None else peer
    want = [expected(schedule, r, peer) for r in range(p)]
    allowed: dict[int, set[tuple[int, int]]] = {}
    for r in range(p):
        for c, cell in want[r].items():
            allowed.setdefault(c, set()).update(cell)
    cells = final_cells(replace(schedule, steps=()))
    last: dict[tuple[int, int], int] = {}
    found: list[Departure] = []
    for k, step in enumerate(schedule.steps):
        apply(cells, step)
        written = sorted({(t.dst, t.into) for t in step.transfers})
        last.update((w, k) for w in written)
        for r, c in written if not found else ():
            bad = _foreign(cells[r][c], allowed.get(c), once, names)
            if bad:
                found.append(
                    Departure(k, names[r], c, f"after step {k + 1}, rank {names[r]}'s chunk {c} holds {bad}")
                )
                break
    for r in range(p):
        for c, cell in sorted(want[r].items()):
            problem = difference(_named(cells[r][c], names), _named(cell, names), once)
            if problem:
                k = last.get((r, c), len(schedule.steps) - 1)  # never written: wrong by what no step did
                when = (
                    f"after step {k + 1}, its last write,"
                    if (r, c) in last
                    else f"no step writes it: after step {k + 1}"
                )
                found.append(
                    Departure(k, names[r], c, f"{when} rank {names[r]}'s chunk {c} is final {problem}")
                )
    return min(found, key=lambda d: d.step, default=None)


def _foreign(cell: Cell, allowed: set[tuple[int, int]] | None, once: bool, names: list[int]) -> str | None:
    """What a chunk holds that no correct value of it holds, in words; None if nothing."""
    if allowed is None:  # a chunk no rank outputs: nothing to hold it to
        return None
    for (s, c), n in sorted(cell.items()):
        if (s, c) not in allowed:
            return f"rank {names[s]}'s chunk {c}, which does not belong there"
        if once and n > 1:
            return f"rank {names[s]}'s contribution {n} times"
    return None


def _named(cell: Cell, names: list[int]) -> Cell:
    return Counter({(names[s], c): n for (s, c), n in cell.items()})
