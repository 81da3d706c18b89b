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
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from .protocol import MAX_PHASE, MAX_PLANNED_CAPTION, MAX_WORLD, PlanDoc, PlannedStep
from .vocabulary import LAYOUTS


class Transfer(NamedTuple):
    src: int
    dst: int  # equal to src: a local copy, which crosses no link
    chunk: int  # chunk read at src
    into: int  # chunk written at dst
    reduce: bool  # True: dst combines with the run's op; False: dst copies


# a transfer as a table row, (src, dst, chunk, into, reduce): a Transfer is one
Row = tuple[int, int, int, int, int]


class Step:
    """A set of concurrent transfers, held as an int64 table with one row per
    transfer (src, dst, chunk, into, reduce), so that a step of a thousand ranks
    is checked, simulated and counted in whole-array operations. The table is
    column-major: each field is one contiguous array."""

    def __init__(self, phase: str, caption: str, transfers: Iterable[Row] | np.ndarray):
        self.phase = phase  # e.g. "reduce-scatter"; consecutive steps of a phase group together
        self.caption = caption  # what the step does, in words a lecture can read out
        table = np.asfortranarray(as_table(transfers))  # an array is taken as it is when it can be
        table.flags.writeable = False
        self.table = table

    @functools.cached_property
    def transfers(self) -> tuple[Transfer, ...]:
        return tuple(Transfer(s, d, c, i, bool(r)) for s, d, c, i, r in self.table.tolist())

    def __repr__(self) -> str:
        return f"Step({self.phase!r}, {len(self.table)} transfers)"


def as_table(transfers: Iterable[Row] | np.ndarray) -> np.ndarray:
    """Transfers as an int64 table with one row (src, dst, chunk, into, reduce) per transfer."""
    if isinstance(transfers, np.ndarray):
        return np.asarray(transfers, dtype=np.int64).reshape(-1, 5)
    return np.fromiter(itertools.chain.from_iterable(transfers), dtype=np.int64).reshape(-1, 5)


def table(
    src: npt.ArrayLike, dst: npt.ArrayLike, chunk: npt.ArrayLike, into: npt.ArrayLike, reduce: bool
) -> np.ndarray:
    """Table rows from whole arrays (or ints, broadcast against them): a builder that says its
    transfers as arrays builds a thousand ranks' step in a few array operations."""
    src, dst, chunk, into = np.broadcast_arrays(src, dst, chunk, into)
    return np.stack([src, dst, chunk, into, np.full_like(src, int(reduce))], axis=1).astype(np.int64)


def sends(src: int, dst: int, chunks: range, reduce: bool) -> np.ndarray:
    """Table rows for `src` sending every chunk in `chunks` to `dst`, into the same chunk there."""
    c = np.arange(chunks.start, chunks.stop, chunks.step)
    rows: np.ndarray = np.array(  # (numpy's stubs make .T of this Any)
        [np.full_like(c, src), np.full_like(c, dst), c, c, np.full_like(c, int(reduce))]
    ).T
    return rows


@dataclass(frozen=True)
class Schedule:
    collective: str
    algorithm: str
    world_size: int
    root: int
    blocks: int
    pieces: int
    steps: tuple[Step, ...]
    layout: str = "ring"  # the shape that draws it best (LAYOUTS): the browser knows no algorithm
    servers: int = 0  # ranks that serve the others, from the root on (a collective with servers); 0: none

    def __post_init__(self) -> None:
        if self.layout not in LAYOUTS:
            raise ValueError(f"layout {self.layout!r} is not one of {', '.join(LAYOUTS)}")

    @property
    def num_chunks(self) -> int:
        return self.blocks * self.pieces

    def columns(self) -> np.ndarray:
        """Every transfer of every step as six int64 columns (step, src, dst, chunk, into, reduce),
        shaped (6, transfers): questions about the whole schedule (races, bytes) become
        whole-array operations."""
        sizes = [len(s.table) for s in self.steps]
        out = np.empty((6, sum(sizes)), np.int64)
        out[0] = np.repeat(np.arange(len(sizes)), sizes)
        if self.steps:
            np.concatenate([s.table.T for s in self.steps], axis=1, out=out[1:])
        return out

    def chunk_bounds(self, count: int) -> list[tuple[int, int]]:
        """Element range [start, stop) of every chunk for blocks of `count` elements."""
        return chunk_bounds(self.blocks, self.pieces, count)

    def to_doc(self, ranks: Sequence[int] | None = None) -> PlanDoc:
        """The schedule as it leaves a rank (protocol.PlanDoc): a transfer is (src, dst, chunk,
        into, reduce). With `ranks` (the global rank of every schedule rank), ranks and captions
        are global. Made from a checked schedule, so not validated again (a ring over a thousand
        ranks has two million transfers): it is where a frame carrying it is parsed."""
        to_global = list(ranks) if ranks is not None else list(range(self.world_size))
        as_global = np.asarray(to_global, dtype=np.int64)
        steps = []
        for s in self.steps:
            table = s.table.copy()
            table[:, :2] = as_global[table[:, :2]]
            steps.append(
                PlannedStep.model_construct(
                    phase=s.phase,
                    caption=s.caption.format(*to_global),
                    transfers=list(map(tuple, table.tolist())),
                )
            )
        return PlanDoc.model_construct(
            collective=self.collective,
            algorithm=self.algorithm,
            world_size=self.world_size,
            root=to_global[self.root] if self.world_size else self.root,
            blocks=self.blocks,
            pieces=self.pieces,
            layout=self.layout,
            servers=self.servers,
            steps=steps,
        )

    def to_json(self, ranks: Sequence[int] | None = None) -> dict[str, object]:
        """to_doc's, as plain JSON."""
        return self.to_doc(ranks).model_dump(mode="json")

    @classmethod
    def from_doc(cls, doc: PlanDoc, world_size: int, ranks: Sequence[int] | None = None) -> Schedule:
        """The schedule that `to_doc` wrote. Without `ranks` it stays in global ranks, of a world of
        `world_size`; with them (the global rank of every schedule rank) it is read back in schedule
        ranks, and `world_size` is theirs."""
        to_local = None
        if ranks is not None:
            to_local = np.full(max(ranks) + 1, -1, dtype=np.int64)
            to_local[list(ranks)] = np.arange(len(ranks))
        steps = []
        for s in doc.steps:
            table = np.asarray(s.transfers, dtype=np.int64).reshape(-1, 5)
            if to_local is not None:
                table[:, :2] = to_local[table[:, :2]]
            steps.append(Step(s.phase, s.caption, table))
        root = doc.root if to_local is None else int(to_local[doc.root])
        return cls(
            doc.collective,
            doc.algorithm,
            world_size,
            root,
            doc.blocks,
            doc.pieces,
            tuple(steps),
            doc.layout,
            doc.servers,
        )


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
    """A rank named in a caption: a placeholder that to_doc fills in with its global number."""
    return f"rank {{{i}}}"


class ScheduleError(ValueError):
    """A schedule breaks the rules in the module docstring."""


def check(schedule: Schedule) -> None:
    """Raise ScheduleError if a step reads and writes a chunk in a way that races.

    Every step is checked at once: a (step, rank, chunk) triple becomes one number,
    and because the table comes step by step a stable sort of those numbers is
    nearly a merge, so the two million transfers of a ring over a thousand ranks
    are checked in about a tenth of a second."""
    p, n, columns = schedule.world_size, schedule.num_chunks, schedule.columns()
    if not columns.shape[1]:
        return
    step, src, dst, chunk, into, reduces = columns

    def fail(row: int, what: str) -> None:
        transfer = columns[1:, row].tolist()
        raise ScheduleError(f"step {step[row]}: transfer {transfer} (src, dst, chunk, into, reduce) {what}")

    fields, limits = columns[1:5], np.array([p, p, n, n])
    if fields.min() < 0 or (fields.max(axis=1) >= limits).any():  # the cheap test first: this is rare
        bad = ((fields < 0) | (fields >= limits[:, None])).any(axis=0)
        fail(int(bad.argmax()), f"is outside {p} ranks x {n} chunks")
    local_reduce = (src == dst) & (reduces == 1)
    if local_reduce.any():
        fail(int(local_reduce.argmax()), "reduces a chunk into itself")
    if len(schedule.steps) * p * n >= 1 << 63:
        raise ScheduleError(f"{len(schedule.steps)} steps x {p} ranks x {n} chunks is too large to check")
    copy = reduces == 0
    written = (step * p + dst) * n + into
    order = np.argsort(written, kind="stable")
    cells, copied = written[order], copy[order]
    # a chunk written twice in a step is a race unless every write reduces
    twice = (cells[1:] == cells[:-1]) & (copied[1:] | copied[:-1])
    if twice.any():
        row = order[twice.argmax()]
        raise ScheduleError(f"step {step[row]}: chunk {into[row]} of rank {dst[row]} is written twice")
    reads = np.sort((step * p + src) * n + chunk, kind="stable")
    copies = np.flatnonzero(copy)
    at = np.minimum(np.searchsorted(reads, written[copies]), len(reads) - 1)
    clash = reads[at] == written[copies]
    if clash.any():
        row = copies[clash.argmax()]
        raise ScheduleError(
            f"step {step[row]}: rank {dst[row]} copies into chunk {into[row]} while sending it"
        )


def check_words(schedule: Schedule) -> None:
    """Raise ScheduleError if a step's words are longer than a run's schedule carries (protocol.PlannedStep),
    its caption's ranks named as widely as a world's can be: a schedule that only its own code builds (a
    user's) is refused when built, not when a rank reports it."""
    widest = [MAX_WORLD - 1] * schedule.world_size
    for k, s in enumerate(schedule.steps):
        if len(s.phase) > MAX_PHASE:
            raise ScheduleError(f"step {k}: its phase is {len(s.phase)} characters, more than {MAX_PHASE}")
        try:
            caption = s.caption.format(*widest)
        except (IndexError, KeyError, ValueError) as e:  # a brace that names no rank (schedule.rank)
            raise ScheduleError(
                f"step {k}: its caption cannot be read ({type(e).__name__}: {e}); "
                "write a brace as {{ or }}"
            ) from None
        if len(caption) > MAX_PLANNED_CAPTION:
            raise ScheduleError(f"step {k}: its caption is over {MAX_PLANNED_CAPTION} characters")


# --- building blocks shared by the algorithm modules -------------------------


class Round(NamedTuple):
    """Whole-block transfers (chunk and into are block indices) that pipelining cuts into pieces."""

    phase: str
    caption: str
    transfers: Sequence[Transfer] | np.ndarray


def pipelined(rounds: Sequence[Round], pieces: int) -> tuple[Step, ...]:
    """Run `rounds` over every piece, piece c entering round s at step c + s.

    With one piece this is just the rounds. With more, round s of piece c and
    round s+1 of piece c-1 overlap in one step: they touch different chunks,
    so the result is the same and the pipe stays full.
    """
    if not rounds:
        return ()
    # the rounds' rows, latest round first: a step's pieces (c ascending) are in rounds t - c
    # (descending), one slice of this table; a thousand-rank chain cut in many pieces is built
    # in a slice a step, not a copy per piece and round
    tables = [as_table(s.transfers) for s in reversed(rounds)]
    rows, n, sizes = np.concatenate(tables), len(rounds), [len(t) for t in tables]
    round_of = np.repeat(np.arange(n - 1, -1, -1), sizes)
    start = np.concatenate([[0], np.cumsum(sizes)])  # of the i-th latest round
    steps = []
    for t in range(n + pieces - 1):
        first, last = min(t, n - 1), max(0, t - pieces + 1)  # the rounds at work, piece t - s in round s
        a, b = start[n - 1 - first], start[n - last]
        if a == b:
            continue
        table = rows[a:b].copy()
        table[:, 2:4] = table[:, 2:4] * pieces + (t - round_of[a:b])[:, None]
        active = range(first, last - 1, -1)
        phases = list(dict.fromkeys(rounds[s].phase for s in active))
        if pieces == 1:
            caption = rounds[first].caption
        else:
            caption = "; ".join(f"piece {t - s}: {rounds[s].caption}" for s in active)
        steps.append(Step(" + ".join(phases), caption, table))
    return tuple(steps)


def blocked(rounds: Sequence[Round], pieces: int) -> tuple[Step, ...]:
    """One step per round, each whole-block transfer moving every piece of its block at once."""

    def every_piece(table: np.ndarray) -> np.ndarray:  # transfer by transfer, piece by piece
        return np.stack([_piece(table, pieces, c) for c in range(pieces)], axis=1).reshape(-1, 5)

    return steps_of(Round(s.phase, s.caption, every_piece(as_table(s.transfers))) for s in rounds)


def _piece(table: np.ndarray, pieces: int, c: int) -> np.ndarray:
    """Whole-block transfers made to move piece `c` of their blocks."""
    out: np.ndarray = table.copy()  # (numpy's stubs make this copy Any)
    out[:, 2:4] = out[:, 2:4] * pieces + c
    return out


def virtual(rank: int, root: int, world_size: int) -> int:
    """Rank renumbered so that the root is 0 (rooted algorithms are written for root 0)."""
    return (rank - root) % world_size


def real(vrank: int, root: int, world_size: int) -> int:
    return (vrank + root) % world_size


def floor_pow2(n: int) -> int:
    return 1 << (n.bit_length() - 1)


def ceil_log2(n: int) -> int:
    return (n - 1).bit_length()


def steps_of(rounds: Iterable[Round]) -> tuple[Step, ...]:
    """Rounds whose transfers are already chunk indices, as steps (empty rounds dropped)."""
    steps = (Step(s.phase, s.caption, s.transfers) for s in rounds)
    return tuple(step for step in steps if len(step.table))
