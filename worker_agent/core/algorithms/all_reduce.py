"""all_reduce schedules: every rank ends with the op over every rank's buffer."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ..schedule import Round, Transfer, ceil_log2, floor_pow2, pipelined, rank, real, sends, steps_of
from . import ring as _ring
from .captions import beyond, narrated
from .formulas import CRITICAL_PATH, RECEIVED_ROOT, SENT_EACH, Formula
from .registry import Built, register

# what the ring and Rabenseifner's halving and doubling each send: the least an all_reduce can
BANDWIDTH_OPTIMAL = Formula(
    "2·(N/P)·(P-1)", "sent by every rank", SENT_EACH, lambda n, p: Fraction(2 * n * (p - 1), p), even=True
)


@register("all_reduce", formula=BANDWIDTH_OPTIMAL)
def ring(p: int, root: int = 0, chunks: int = 1) -> Built:
    """Reduce-scatter then all-gather around the ring: each rank sends 2(P-1)/P of the buffer.

    The buffer is cut into P segments of `chunks` chunks each."""
    segments = _ring.segments_of(p, chunks)
    return Built(p * chunks, _ring.reduce_scatter_steps(p, segments) + _ring.all_gather_steps(p, segments))


@register(
    "all_reduce",
    layout="tree",
    formula=Formula(
        "2·⌊log2 P⌋·N",
        "on the critical path (up the tree, then down)",
        CRITICAL_PATH,
        lambda n, p: 2 * (floor_pow2(p).bit_length() - 1) * n,
        one_piece=True,
    ),
)
def tree(p: int, root: int = 0, chunks: int = 1) -> Built:
    """A binary tree rooted at `root`: reduce up level by level, then broadcast down.

    Rank v (numbered from the root) has parent (v-1)//2; the data crosses
    floor(log2 P) links each way on its deepest path. Pipelined over the pieces."""
    depth = [(v + 1).bit_length() - 1 for v in range(p)]
    levels = range(max(depth, default=0), 0, -1)
    up = [
        narrated(
            "reduce",
            f"every rank at depth {d} sends its partial result to its parent, which combines it with its own",
            [
                Transfer(real(v, root, p), real((v - 1) // 2, root, p), 0, 0, True)
                for v in range(p)
                if depth[v] == d
            ],
        )
        for d in levels
    ]
    down = [
        narrated(
            "broadcast",
            f"every rank at depth {d - 1} sends the result down to its children",
            [
                Transfer(real((v - 1) // 2, root, p), real(v, root, p), 0, 0, False)
                for v in range(p)
                if depth[v] == d
            ],
        )
        for d in reversed(levels)
    ]
    return Built(chunks, pipelined(up + down, chunks))


@register(
    "all_reduce",
    layout="star",
    formula=Formula("(P-1)·N", "into the master", RECEIVED_ROOT, lambda n, p: (p - 1) * n),
)
def master_worker(p: int, root: int = 0, chunks: int = 1) -> Built:
    """Everyone sends to the master (the root), which reduces and sends the result back:
    the master receives (P-1)·N and sends (P-1)·N, the bottleneck the ring removes."""
    others = [r for r in range(p) if r != root]
    rounds = (
        [
            narrated(
                "reduce",
                f"every worker sends its buffer to the master, {rank(root)}, which combines them",
                [Transfer(r, root, 0, 0, True) for r in others],
            ),
            narrated(
                "broadcast",
                f"the master, {rank(root)}, sends the result back to every worker",
                [Transfer(root, r, 0, 0, False) for r in others],
            ),
        ]
        if others
        else []
    )
    return Built(chunks, pipelined(rounds, chunks))


def _fold(p: int, p2: int, chunks: range) -> Round:
    """Ranks beyond the largest power of two hand their data to a partner below it."""
    return narrated(
        "fold",
        f"{beyond(p2)} combines its buffer into a partner's",
        np.concatenate([sends(v, v - p2, chunks, True) for v in range(p2, p)]),
    )


def _unfold(p: int, p2: int, chunks: range) -> Round:
    return narrated(
        "unfold",
        "every partner sends the finished result back to the rank it folded in",
        np.concatenate([sends(v - p2, v, chunks, False) for v in range(p2, p)]),
    )


@register(
    "all_reduce",
    layout="grid",
    formula=Formula("log2(P)·N", "sent by every rank", SENT_EACH, lambda n, p: ceil_log2(p) * n).where_pow2(),
)
def recursive_doubling(p: int, root: int = 0, chunks: int = 1) -> Built:
    """Pairs at distance 1, 2, 4, ... swap whole buffers and add: log2 P steps, N per rank per step.
    A world that is not a power of two folds its extra ranks in first and out at the end."""
    p2 = floor_pow2(p)
    rounds = [_fold(p, p2, range(1))] if p > p2 else []
    d = 1
    while d < p2:
        rounds.append(
            narrated(
                "exchange",
                f"every rank swaps its buffer with the rank {d} away (its rank XOR {d}) and combines",
                [Transfer(v, v ^ d, 0, 0, True) for v in range(p2)],
            )
        )
        d *= 2
    if p > p2:
        rounds.append(_unfold(p, p2, range(1)))
    return Built(chunks, pipelined(rounds, chunks))


@register("all_reduce", layout="grid", formula=BANDWIDTH_OPTIMAL.where_pow2())
def rabenseifner(p: int, root: int = 0, chunks: int = 1) -> Built:
    """Recursive halving reduce-scatter, then recursive doubling all-gather: the ring's
    2(P-1)/P·N per rank in 2·log2 P steps instead of 2(P-1). The buffer is cut into
    P' segments (P' the largest power of two <= P) of `chunks` chunks each."""
    p2 = floor_pow2(p)

    def seg(lo: int, hi: int) -> range:  # the chunks of segments lo..hi-1
        return range(lo * chunks, hi * chunks)

    rounds = [_fold(p, p2, seg(0, p2))] if p > p2 else []
    held = {v: (0, p2) for v in range(p2)}
    d = p2 // 2
    while d >= 1:
        parts = []
        for v in range(p2):
            lo, hi = held[v]
            mid = (lo + hi) // 2
            keep, give = ((lo, mid), (mid, hi)) if v & d == 0 else ((mid, hi), (lo, mid))
            parts.append(sends(v, v ^ d, seg(*give), True))
            held[v] = keep
        rounds.append(
            narrated(
                "reduce-scatter",
                f"every rank sends half of its part to the rank {d} away, which combines it with its own",
                np.concatenate(parts),
            )
        )
        d //= 2
    d = 1
    while d < p2:
        parts = [sends(v, v ^ d, seg(*held[v]), False) for v in range(p2)]
        held = {v: (min(held[v][0], held[v ^ d][0]), max(held[v][1], held[v ^ d][1])) for v in range(p2)}
        rounds.append(
            narrated(
                "all-gather",
                f"every rank sends its finished part to the rank {d} away, doubling what each holds",
                np.concatenate(parts),
            )
        )
        d *= 2
    if p > p2:
        rounds.append(_unfold(p, p2, seg(0, p2)))
    return Built(p2 * chunks, steps_of(rounds))
