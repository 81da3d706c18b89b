"""The ring: rank r sends to r+1 and hears from r-1, P-1 times per phase.

Shared by ring reduce_scatter, ring all_gather and ring all_reduce (which is
the first followed by the second). `segments[i]` lists the chunks that make
up segment i; segment r ends up complete at rank r.
"""

from __future__ import annotations

from typing import Sequence

from ..schedule import Step, Transfer


def reduce_scatter_steps(p: int, segments: Sequence[Sequence[int]]) -> list[Step]:
    steps = []
    for s in range(p - 1):
        transfers = tuple(
            Transfer(r, (r + 1) % p, c, c, True) for r in range(p) for c in segments[(r - s - 1) % p]
        )
        caption = (
            f"Step {s + 1} of {p - 1} of reduce-scatter: every rank sends one segment to its right "
            "neighbour, which adds it to its own"
        )
        steps.append(Step("reduce-scatter", caption, transfers))
    return steps


def all_gather_steps(p: int, segments: Sequence[Sequence[int]]) -> list[Step]:
    steps = []
    for s in range(p - 1):
        transfers = tuple(
            Transfer(r, (r + 1) % p, c, c, False) for r in range(p) for c in segments[(r - s) % p]
        )
        caption = (
            f"Step {s + 1} of {p - 1} of all-gather: every rank passes a finished segment to its "
            "right neighbour, which copies it"
        )
        steps.append(Step("all-gather", caption, transfers))
    return steps


def segments_of(p: int, pieces: int) -> list[list[int]]:
    """Segment i is chunks [i*pieces, (i+1)*pieces)."""
    return [list(range(i * pieces, (i + 1) * pieces)) for i in range(p)]
