"""reduce_scatter schedules: rank r ends with the op over every rank's block r."""

from __future__ import annotations

from ..schedule import Transfer, blocked, floor_pow2
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
    owner = lambda b: b if b < p2 else b - p2  # noqa: E731
    rounds = []
    if p > p2:
        rounds.append(narrated("fold", f"{beyond(p2)} combines its whole buffer into a partner's",
                            [Transfer(v, v - p2, b, b, True) for v in range(p2, p) for b in range(p)]))
    held = {v: list(range(p)) for v in range(p2)}
    d = p2 // 2
    while d >= 1:
        sends = []
        for v in range(p2):
            give = [b for b in held[v] if owner(b) & d != v & d]
            sends += [Transfer(v, v ^ d, b, b, True) for b in give]
            held[v] = [b for b in held[v] if owner(b) & d == v & d]
        rounds.append(narrated("reduce-scatter", "every rank sends the blocks that belong on the other side "
                                                 f"to the rank {d} away, which combines them", sends))
        d //= 2
    if p > p2:
        rounds.append(narrated("unfold", "every partner hands the finished block to the rank it folded in",
                            [Transfer(v - p2, v, v, v, False) for v in range(p2, p)]))
    return Built(chunks, blocked(rounds, chunks))
