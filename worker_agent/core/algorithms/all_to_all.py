"""all_to_all: block d of rank s ends up as block s of rank d (buffer block P+s)."""

from __future__ import annotations

import numpy as np

from ..schedule import Round, blocked, table
from .captions import narrated
from .formulas import BLOCKS_BUT_ONE
from .registry import Built, register


@register("all_to_all", layout="grid", formula=BLOCKS_BUT_ONE)
def pairwise(p: int, root: int = 0, chunks: int = 1) -> Built:
    """Step s: every rank sends to the rank s ahead and hears from the rank s behind,
    so each link carries one block per step; step 0 keeps each rank's own block."""
    r = np.arange(p)
    rounds = [
        Round("local copy", "every rank keeps the block addressed to itself", table(r, r, r, p + r, False))
    ]
    for s in range(1, p):
        ahead = (r + s) % p
        rounds.append(
            narrated(
                "exchange",
                f"every rank sends the block addressed to the rank {s} ahead of it",
                table(r, ahead, ahead, p + r, False),
            )
        )
    return Built(chunks, blocked(rounds, chunks))
