"""The ring: rank r sends to r+1 and hears from r-1, P-1 times per phase.

Shared by ring reduce_scatter, ring all_gather and ring all_reduce (which is
the first followed by the second). `segments[i]` lists the chunks that make
up segment i; segment r ends up complete at rank r.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..schedule import Step
from .captions import named


def reduce_scatter_steps(p: int, segments: Sequence[Sequence[int]]) -> list[Step]:
    what, seg = _what(segments), np.asarray(segments, dtype=np.int64)
    caption = f"every rank sends {what} to its right neighbour, which combines it with its own"
    return [_step("reduce-scatter", caption, _pass(p, seg, s + 1, True)) for s in range(p - 1)]


def all_gather_steps(p: int, segments: Sequence[Sequence[int]]) -> list[Step]:
    what, seg = _what(segments), np.asarray(segments, dtype=np.int64)
    caption = (
        f"every rank passes a finished {what.removeprefix('one ')} to its right neighbour, which copies it"
    )
    return [_step("all-gather", caption, _pass(p, seg, s, False)) for s in range(p - 1)]


def _step(phase: str, caption: str, table: np.ndarray) -> Step:
    return Step(phase, named(caption, table), table)


def _what(segments: Sequence[Sequence[int]]) -> str:
    k = len(segments[0]) if segments else 1
    return "one chunk" if k == 1 else f"one segment ({k} chunks)"


def _pass(p: int, seg: np.ndarray, behind: int, reduce: bool) -> np.ndarray:
    """Every rank r sends segment (r - behind) mod P (row of `seg`, shaped (P, chunks per segment))
    to rank r+1: one table row per chunk, built as whole arrays because a ring of a thousand
    ranks has a million of them."""
    r = np.arange(p)
    chunks = seg[(r - behind) % p]
    senders = np.repeat(r, seg.shape[1])
    rows: np.ndarray = np.array(  # (numpy's stubs make .T of this Any)
        [senders, (senders + 1) % p, chunks.ravel(), chunks.ravel(), np.full(senders.size, int(reduce))]
    ).T
    return rows


def segments_of(p: int, pieces: int) -> list[list[int]]:
    """Segment i is chunks [i*pieces, (i+1)*pieces)."""
    return [list(range(i * pieces, (i + 1) * pieces)) for i in range(p)]
