"""Does a schedule compute its collective? Checked symbolically, for any op: every
chunk of every rank carries the multiset of inputs, (rank, chunk) pairs, that went
into it. A copy takes the sender's multiset, a reduce adds the sender's to its own.
After the last step every output chunk must hold exactly what the collective's
definition (Collective.sources) says, each input once. So a schedule that users
write is refused with words that point at the rank and the chunk that are wrong.
Ranks here are the schedule's own (group-local)."""

from __future__ import annotations

from collections import Counter

from .collectives import get
from .schedule import Schedule, ScheduleError

Cell = Counter  # (rank, chunk) -> how many times that input went into this chunk


def final_cells(schedule: Schedule) -> list[list[Cell]]:
    """Every rank's chunks after the last step, as the inputs that went into each."""
    p, pieces, collective = schedule.world_size, schedule.pieces, get(schedule.collective)
    cells = [[Cell() for _ in range(schedule.num_chunks)] for _ in range(p)]
    for r in range(p):
        for block in collective.input_blocks(r, p, schedule.root):
            for c in range(block * pieces, (block + 1) * pieces):
                cells[r][c] = Cell({(r, c): 1})
    for step in schedule.steps:
        sent = [cells[t.src][t.chunk] for t in step.transfers]  # read as before the step
        for t, value in zip(step.transfers, sent):
            if not t.reduce:
                cells[t.dst][t.into] = Cell(value)
        for t, value in zip(step.transfers, sent):
            if t.reduce:
                cells[t.dst][t.into] = cells[t.dst][t.into] + value
    return cells


def expected(schedule: Schedule, rank: int, peer: int) -> dict[int, Cell]:
    """Output chunk -> the inputs the collective's definition puts in it."""
    p, pieces, collective = schedule.world_size, schedule.pieces, get(schedule.collective)
    out = {}
    for block, sources in collective.sources(rank, p, schedule.root, peer).items():
        for j in range(pieces):
            out[block * pieces + j] = Cell({(s, b * pieces + j): 1 for s, b in sources})
    return out


def check_definition(schedule: Schedule) -> None:
    """Raise ScheduleError naming the first rank and chunk that do not end as the collective
    says. A schedule with a peer sends from its root to the rank after it."""
    peer = (schedule.root + 1) % schedule.world_size
    once = get(schedule.collective).exactly_once
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
