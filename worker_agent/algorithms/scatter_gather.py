"""scatter and gather schedules. Block r of the buffer belongs to rank r; each
block is cut into `chunks` pieces, and the stages are pipelined over them."""

from __future__ import annotations

from ..schedule import Schedule, Stage, Transfer, ceil_log2, pipelined, rank, real
from .captions import counted, stage


def _schedule(collective: str, name: str, p: int, root: int, chunks: int, stages: list[Stage]) -> Schedule:
    return Schedule(collective, name, p, root, blocks=p, pieces=chunks, steps=pipelined(stages, chunks))


def scatter_flat(p: int, root: int = 0, chunks: int = 1) -> Schedule:
    """The root sends block r straight to rank r."""
    sends = [Transfer(root, r, r, r, False) for r in range(p) if r != root]
    stages = [stage("scatter", f"{rank(root)} sends every rank its own block", sends)] if sends else []
    return _schedule("scatter", "flat", p, root, chunks, stages)


def scatter_binomial_tree(p: int, root: int = 0, chunks: int = 1) -> Schedule:
    """Each holder hands the far half of its blocks to a new holder: ceil(log2 P) stages."""
    stages = []
    for level in reversed(range(ceil_log2(p))):
        mask = 1 << level
        sends = [
            Transfer(real(v, root, p), real(v + mask, root, p), real(u, root, p), real(u, root, p), False)
            for v in range(0, p, 2 * mask)
            if v + mask < p
            for u in range(v + mask, min(v + 2 * mask, p))
        ]
        caption = f"every rank holding blocks hands the far half of them to the rank {counted(mask, 'place')} further from the root"
        stages.append(stage("scatter", caption, sends))
    return _schedule("scatter", "binomial_tree", p, root, chunks, stages)


def gather_flat(p: int, root: int = 0, chunks: int = 1) -> Schedule:
    """Every rank sends its block straight to the root."""
    sends = [Transfer(r, root, r, r, False) for r in range(p) if r != root]
    stages = [stage("gather", f"every rank sends its block to {rank(root)}", sends)] if sends else []
    return _schedule("gather", "flat", p, root, chunks, stages)


def gather_binomial_tree(p: int, root: int = 0, chunks: int = 1) -> Schedule:
    """Binomial scatter backwards: the blocks collect up a tree toward the root."""
    stages = []
    for level in range(ceil_log2(p)):
        mask = 1 << level
        sends = [
            Transfer(real(v, root, p), real(v - mask, root, p), real(u, root, p), real(u, root, p), False)
            for v in range(mask, p, 2 * mask)
            for u in range(v, min(v + mask, p))
        ]
        stages.append(stage("gather", f"ranks pass every block they hold {counted(mask, 'place')} back toward the root", sends))
    return _schedule("gather", "binomial_tree", p, root, chunks, stages)
