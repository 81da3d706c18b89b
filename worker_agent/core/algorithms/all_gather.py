"""all_gather schedules: block r starts at rank r and ends up on every rank."""

from __future__ import annotations

import numpy as np

from ..schedule import blocked, floor_pow2, table
from . import ring as _ring
from .captions import beyond, narrated
from .formulas import BLOCKS_BUT_ONE
from .registry import Built, register


@register("all_gather", formula=BLOCKS_BUT_ONE)
def ring(p: int, root: int = 0, chunks: int = 1) -> Built:
    """P-1 steps; each rank passes the block it got last to its right neighbour."""
    return Built(chunks, _ring.all_gather_steps(p, _ring.segments_of(p, chunks)))


@register("all_gather", layout="grid", formula=BLOCKS_BUT_ONE.where_pow2())
def recursive_doubling(p: int, root: int = 0, chunks: int = 1) -> Built:
    """Pairs at distance 1, 2, 4, ... swap everything they hold: log2 P steps.
    Extra ranks beyond a power of two fold their block in first and get everything at the end."""
    p2 = floor_pow2(p)
    rounds = []
    extra = np.arange(p2, p)
    if p > p2:
        rounds.append(
            narrated(
                "fold",
                f"{beyond(p2)} hands its block to a partner",
                table(extra, extra - p2, extra, extra, False),
            )
        )
    v, b = np.arange(p2)[:, None], np.arange(p)
    home = np.where(b < p2, b, b - p2)  # the rank that holds block b once the fold is done
    d = 1
    while d < p2:
        # rank v holds block b once it has swapped with every rank that differs from b's home below d
        src, block = np.nonzero((home ^ v) < d)
        rounds.append(
            narrated(
                "exchange",
                f"every rank swaps all the blocks it holds with the rank {d} away",
                table(src, src ^ d, block, block, False),
            )
        )
        d *= 2
    if p > p2:
        partner, block = np.nonzero(b != extra[:, None])
        rounds.append(
            narrated(
                "unfold",
                "every partner sends all the blocks to the rank it folded in",
                table(partner, partner + p2, block, block, False),
            )
        )
    return Built(chunks, blocked(rounds, chunks))
