"""The traffic formulas a lecture writes on the board, evaluated for a run and set beside what
the run measured. An algorithm with a closed form names it where it registers (registry.py).

Each formula says what it counts, because the seeds' formulas count different things:
ring all_reduce's 2·(N/P)·(P-1) is what every rank sends, master-worker's (P-1)·N is what
the master receives, a tree's log2(P)·N is what crosses the links of its critical path.
N is the bytes of one rank's buffer; B the bytes of one block (one rank's share) where the
collective's buffer holds a block per rank. Pure: no torch, no server.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import TypedDict

from .registry import algorithm_of

# What a formula counts, and how a run's measurement of it is read (see `measured`).
SENT_EACH = "sent_each"  # the most any rank sent (every rank sends the same in these)
SENT_ROOT = "sent_root"  # what the root sent
RECEIVED_ROOT = "received_root"  # what the root received
CRITICAL_PATH = "critical_path"  # per step the busiest single link's bytes, summed over the steps


@dataclass(frozen=True)
class Formula:
    text: str  # as written on the board, in N (or B) and P
    what: str  # what it counts, in words
    measure: str  # one of the kinds above
    # (N or B in bytes, P) -> bytes; None: no closed form here
    bytes: Callable[[int, int], Fraction | int | None]
    one_piece: bool = False  # holds only when the buffer is not cut into pipelined pieces
    even: bool = False  # holds only when the buffer splits into P equal parts (N/P)

    def where_pow2(self) -> Formula:
        """The same, where P is a power of two; elsewhere a butterfly's folds leave no closed form."""
        return replace(self, bytes=lambda n, p: self.bytes(n, p) if is_pow2(p) else None)


def is_pow2(p: int) -> bool:
    return p > 0 and p & (p - 1) == 0


# every rank passes on, or hands out, every block but one (all_gather, reduce_scatter, all_to_all)
BLOCKS_BUT_ONE = Formula("(P-1)·B", "sent by every rank", SENT_EACH, lambda b, p: (p - 1) * b)


class Evaluated(TypedDict):
    """A formula for one run, with its value in bytes (the stage's Formula, server/stage_data.py)."""

    formula: str
    what: str
    measure: str
    unit: str
    unit_bytes: int
    value: int


def evaluate(
    collective: str, algorithm: str, unit_bytes: int, p: int, pieces: int = 1, elements: int | None = None
) -> Evaluated | None:
    """The formula for this run, with its value in bytes: {formula, what, measure, unit,
    unit_bytes, value}; None where the algorithm has no closed form for this shape.
    `unit_bytes` is N (or B); `elements`, if given, its element count (N/P needs it to split evenly)."""
    record = algorithm_of(collective, algorithm, None)
    f = record.formula if record is not None else None
    if f is None or (f.one_piece and pieces != 1) or (f.even and elements is not None and elements % p):
        return None
    value = f.bytes(unit_bytes, p)
    if value is None or Fraction(value).denominator != 1:  # an uneven split has no exact closed form
        return None
    return {
        "formula": f.text,
        "what": f.what,
        "measure": f.measure,
        "unit": "B" if "B" in f.text else "N",
        "unit_bytes": unit_bytes,
        "value": int(value),
    }


def critical_path(steps: list[list[list[int]]], chunk_bytes: list[int]) -> int:
    """Per step, the bytes on its busiest single link (src -> dst), summed over the steps: what
    a piece of data crossing the whole schedule must wait for. `steps`: each step's transfers
    [src, dst, chunk, into, reduce]."""
    total = 0
    for transfers in steps:
        links: dict[tuple[int, int], int] = {}
        for src, dst, chunk, *_ in transfers:
            if src != dst:
                links[src, dst] = links.get((src, dst), 0) + chunk_bytes[chunk]
        total += max(links.values(), default=0)
    return total


def measured(
    measure: str,
    sent: dict[int, int],
    received: dict[int, int],
    root: int,
    steps: list[list[list[int]]],
    chunk_bytes: list[int],
) -> int | None:
    """What the run measured of the formula's quantity: per-rank bytes as the ranks counted them
    (`sent`, `received` by global rank), the critical path from the steps they ran."""
    if measure == CRITICAL_PATH:
        return critical_path(steps, chunk_bytes)
    if measure == SENT_EACH:
        return max(sent.values(), default=None)
    if measure == SENT_ROOT:
        return sent.get(root)
    if measure == RECEIVED_ROOT:
        return received.get(root)
    raise ValueError(f"unknown measure {measure!r}")
