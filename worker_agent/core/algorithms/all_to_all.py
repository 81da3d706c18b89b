"""all_to_all: block d of rank s ends up as block s of rank d (buffer block P+s)."""

from __future__ import annotations

from ..schedule import Round, Transfer, blocked
from .captions import narrated
from .formulas import BLOCKS_BUT_ONE
from .registry import Built, register


@register("all_to_all", layout="grid", formula=BLOCKS_BUT_ONE)
def pairwise(p: int, root: int = 0, chunks: int = 1) -> Built:
    """Step s: every rank sends to the rank s ahead and hears from the rank s behind,
    so each link carries one block per step; step 0 keeps each rank's own block."""
    rounds = [Round("local copy", "every rank keeps the block addressed to itself",
                    [Transfer(r, r, r, p + r, False) for r in range(p)])]
    for s in range(1, p):
        rounds.append(narrated("exchange",
                               f"every rank sends the block addressed to the rank {s} ahead of it",
                            [Transfer(r, (r + s) % p, (r + s) % p, p + r, False) for r in range(p)]))
    return Built(chunks, blocked(rounds, chunks))
