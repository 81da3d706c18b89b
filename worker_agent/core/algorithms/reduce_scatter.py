"""reduce_scatter schedules: rank r ends with the op over every rank's block r."""

from __future__ import annotations

import numpy as np

from ..schedule import blocked, floor_pow2, table
from . import ring as _ring
from .captions import beyond, narrated
from .formulas import BLOCKS_BUT_ONE
from .registry import Built, register


@register("reduce_scatter", formula=BLOCKS_BUT_ONE)
def ring(p: int, root: int = 0, chunks: int = 1) -> Built:
    """P-1 steps; a block travels the ring collecting every rank's share, ending at its owner."""
    return Built(chunks, _ring.reduce_scatter_steps(p, _ring.segments_of(p, chunks)))


@register("reduce_scatter", layout="grid", formula=BLOCKS_BUT_ONE.where_pow2())
def recursive_halving(p: int, root: int = 0, chunks: int = 1) -> Built:
    """Pairs at distance P'/2, P'/4, ... 1 each send the half of their blocks the partner
    keeps: log2 P' steps (P' the largest power of two <= P). Extra ranks fold their
    buffer in first; block b > P' is owned by rank b-P' until the last step hands it over."""
    p2 = floor_pow2(p)
    rounds = []
    extra = np.arange(p2, p)
    if p > p2:
        src, block = np.repeat(extra, p), np.tile(np.arange(p), p - p2)  # every block of every extra rank
        rounds.append(
            narrated(
                "fold",
                f"{beyond(p2)} combines its whole buffer into a partner's",
                table(src, src - p2, block, block, True),
            )
        )
    v, b = np.arange(p2)[:, None], np.arange(p)
    owner = np.where(b < p2, b, b - p2)  # who ends with block b before the unfold
    d = p2 // 2
    while d >= 1:
        # rank v still holds the blocks whose owner agrees with it above d, and gives those that differ at d
        src, block = np.nonzero((d <= owner ^ v) & (owner ^ v < 2 * d))
        rounds.append(
            narrated(
                "reduce-scatter",
                "every rank sends the blocks that belong on the other side "
                f"to the rank {d} away, which combines them",
                table(src, src ^ d, block, block, True),
            )
        )
        d //= 2
    if p > p2:
        rounds.append(
            narrated(
                "unfold",
                "every partner hands the finished block to the rank it folded in",
                table(extra - p2, extra, extra, extra, False),
            )
        )
    return Built(chunks, blocked(rounds, chunks))
