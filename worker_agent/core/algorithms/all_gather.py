"""all_gather schedules: block r starts at rank r and ends up on every rank."""

from __future__ import annotations

from ..schedule import Transfer, blocked, floor_pow2
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
    held = {v: [v] + ([v + p2] if v + p2 < p else []) for v in range(p2)}
    if p > p2:
        rounds.append(narrated("fold", f"{beyond(p2)} hands its block to a partner",
                            [Transfer(v, v - p2, v, v, False) for v in range(p2, p)]))
    d = 1
    while d < p2:
        rounds.append(narrated("exchange", f"every rank swaps all the blocks it holds with the rank {d} away",
                            [Transfer(v, v ^ d, b, b, False) for v in range(p2) for b in held[v]]))
        held = {v: sorted(held[v] + held[v ^ d]) for v in range(p2)}
        d *= 2
    if p > p2:
        back = [Transfer(v - p2, v, b, b, False) for v in range(p2, p) for b in range(p) if b != v]
        rounds.append(narrated("unfold", "every partner sends all the blocks to the rank it folded in", back))
    return Built(chunks, blocked(rounds, chunks))
