"""An algorithm is a schedule: pure data, no torch.

A schedule is a list of steps; a step is a set of transfers that happen
concurrently; a transfer says that rank `src` sends its chunk `chunk` to rank
`dst`, which copies it into chunk `into` or reduces it into that chunk with
the run's op. The same schedule is executed (executor.py), simulated
(simulate.py) and animated (the browser), so nothing here knows about torch.

Every rank holds one working buffer of `blocks` blocks of `count` elements;
each block is cut into `pieces` near-equal chunks, so chunk `i` is piece
`i % pieces` of block `i // pieces`. Ranks are group-local: 0..world_size-1.

Within a step every send reads the buffer as it was before the step. So a
rank may not, in one step, copy into a chunk that it also sends (the
executor receives straight into the buffer), and a chunk may have at most
one copying writer and never a copy beside a reduce.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from typing import Iterable, NamedTuple, Sequence

import numpy as np


class Transfer(NamedTuple):
    src: int
    dst: int  # equal to src: a local copy, which crosses no link
    chunk: int  # chunk read at src
    into: int  # chunk written at dst
    reduce: bool  # True: dst combines with the run's op; False: dst copies


class Step:
    """A set of concurrent transfers, held as an int64 table with one row per
    transfer (src, dst, chunk, into, reduce), so that a step of a thousand ranks
    is checked, simulated and counted in whole-array operations."""

    def __init__(self, phase: str, caption: str, transfers: Iterable[Transfer] | np.ndarray):
        self.phase = phase  # e.g. "reduce-scatter"; consecutive steps of a phase group together
        self.caption = caption  # what the step does, in words a lecture can read out
        if isinstance(transfers, np.ndarray):
            table = transfers.astype(np.int64).reshape(-1, 5)
        else:
            flat = np.fromiter(itertools.chain.from_iterable(transfers), dtype=np.int64)
            table = flat.reshape(-1, 5)
        table.flags.writeable = False
        self.table = table

    @functools.cached_property
    def transfers(self) -> tuple[Transfer, ...]:
        return tuple(Transfer(s, d, c, i, bool(r)) for s, d, c, i, r in self.table.tolist())

    def __repr__(self) -> str:
        return f"Step({self.phase!r}, {len(self.table)} transfers)"


@dataclass(frozen=True)
class Schedule:
    collective: str
    algorithm: str
    world_size: int
    root: int
    blocks: int
    pieces: int
    steps: tuple[Step, ...]

    @property
    def num_chunks(self) -> int:
        return self.blocks * self.pieces

    def chunk_bounds(self, count: int) -> list[tuple[int, int]]:
        """Element range [start, stop) of every chunk for blocks of `count` elements."""
        return chunk_bounds(self.blocks, self.pieces, count)

    def to_json(self, ranks: Sequence[int] | None = None) -> dict:
        """Plain JSON for the browser: a transfer is [src, dst, chunk, into, reduce].
        With `ranks` (the global rank of every schedule rank), ranks and captions are global."""
        g = list(ranks) if ranks is not None else list(range(self.world_size))
        return {
            "collective": self.collective,
            "algorithm": self.algorithm,
            "world_size": self.world_size,
            "root": g[self.root] if self.world_size else self.root,
            "blocks": self.blocks,
            "pieces": self.pieces,
            "steps": [
                {
                    "phase": s.phase,
                    "caption": s.caption.format(*g),
                    "transfers": [[g[a], g[b], c, i, r] for a, b, c, i, r in s.table.tolist()],
                }
                for s in self.steps
            ],
        }


def piece_sizes(count: int, pieces: int) -> list[int]:
    """Split `count` elements into `pieces` parts that differ by at most one."""
    base, extra = divmod(count, pieces)
    return [base + (1 if j < extra else 0) for j in range(pieces)]


def chunk_bounds(blocks: int, pieces: int, count: int) -> list[tuple[int, int]]:
    bounds, start = [], 0
    sizes = piece_sizes(count, pieces)
    for _ in range(blocks):
        for size in sizes:
            bounds.append((start, start + size))
            start += size
    return bounds


def rank(i: int) -> str:
    """A rank named in a caption: a placeholder that to_json fills in with its global number."""
    return f"rank {{{i}}}"


class ScheduleError(ValueError):
    """A schedule breaks the rules in the module docstring."""


def check(schedule: Schedule) -> None:
    """Raise ScheduleError if a step reads and writes a chunk in a way that races."""
    p, n = schedule.world_size, schedule.num_chunks
    for index, step in enumerate(schedule.steps):
        src, dst, chunk, into, red = step.table.T
        bad = (src < 0) | (src >= p) | (dst < 0) | (dst >= p) | (chunk < 0) | (chunk >= n) | (into < 0) | (into >= n)
        if bad.any():
            raise ScheduleError(f"step {index}: {step.transfers[bad.argmax()]} is outside {p} ranks x {n} chunks")
        if ((src == dst) & (red == 1)).any():
            raise ScheduleError(f"step {index}: a rank reduces a chunk into itself")
        cells, copy = dst * n + into, red == 0
        written, times = np.unique(cells, return_counts=True)
        reduced = np.unique(cells[~copy])
        twice = np.intersect1d(written[times > 1], cells[copy])
        if len(twice) or len(np.intersect1d(cells[copy], reduced)):
            cell = int((twice if len(twice) else np.intersect1d(cells[copy], reduced))[0])
            raise ScheduleError(f"step {index}: chunk {cell % n} of rank {cell // n} is written twice")
        clash = np.intersect1d(src * n + chunk, cells[copy])
        if len(clash):
            rank, c = divmod(int(clash[0]), n)
            raise ScheduleError(f"step {index}: rank {rank} copies into chunk {c} while sending it")


# --- building blocks shared by the algorithm modules -------------------------


class Stage(NamedTuple):
    """Whole-block transfers (chunk and into are block indices) that pipelining cuts into pieces."""

    phase: str
    caption: str
    transfers: Sequence[Transfer]


def pipelined(stages: Sequence[Stage], pieces: int) -> tuple[Step, ...]:
    """Run `stages` over every piece, piece c entering stage s at step c + s.

    With one piece this is just the stages. With more, stage s of piece c and
    stage s+1 of piece c-1 overlap in one step: they touch different chunks,
    so the result is the same and the pipe stays full.
    """
    steps = []
    for t in range(len(stages) + pieces - 1):
        active = [(c, t - c) for c in range(pieces) if 0 <= t - c < len(stages)]
        transfers = tuple(
            Transfer(x.src, x.dst, x.chunk * pieces + c, x.into * pieces + c, x.reduce)
            for c, s in active
            for x in stages[s].transfers
        )
        if not transfers:
            continue
        phases = list(dict.fromkeys(stages[s].phase for _, s in active))
        if pieces == 1:
            caption = stages[active[0][1]].caption
        else:
            caption = "; ".join(f"piece {c}: {stages[s].caption}" for c, s in active)
        steps.append(Step(" + ".join(phases), caption, transfers))
    return tuple(steps)


def blocked(stages: Sequence[Stage], pieces: int) -> tuple[Step, ...]:
    """One step per stage, each whole-block transfer moving every piece of its block at once."""
    return steps_of(
        Stage(
            s.phase,
            s.caption,
            [Transfer(x.src, x.dst, x.chunk * pieces + c, x.into * pieces + c, x.reduce) for x in s.transfers for c in range(pieces)],
        )
        for s in stages
    )


def virtual(rank: int, root: int, world_size: int) -> int:
    """Rank renumbered so that the root is 0 (rooted algorithms are written for root 0)."""
    return (rank - root) % world_size


def real(vrank: int, root: int, world_size: int) -> int:
    return (vrank + root) % world_size


def floor_pow2(n: int) -> int:
    return 1 << (n.bit_length() - 1)


def ceil_log2(n: int) -> int:
    return (n - 1).bit_length()


def steps_of(stages: Iterable[Stage]) -> tuple[Step, ...]:
    """Stages whose transfers are already chunk indices, as steps (empty stages dropped)."""
    return tuple(Step(s.phase, s.caption, s.transfers) for s in stages if s.transfers)
