"""scatter and gather schedules. Block r of the buffer belongs to rank r; each
block is cut into `chunks` pieces, and the rounds are pipelined over them."""

from __future__ import annotations

from ..schedule import Schedule, Round, Transfer, ceil_log2, pipelined, rank, real
from .captions import counted, narrated


def _schedule(collective: str, name: str, layout: str, p: int, root: int, chunks: int, rounds: list[Round]) -> Schedule:
    return Schedule(collective, name, p, root, blocks=p, pieces=chunks, steps=pipelined(rounds, chunks),
                    layout=layout)


def scatter_flat(p: int, root: int = 0, chunks: int = 1) -> Schedule:
    """The root sends block r straight to rank r."""
    sends = [Transfer(root, r, r, r, False) for r in range(p) if r != root]
    rounds = [narrated("scatter", f"{rank(root)} sends every rank its own block", sends)] if sends else []
    return _schedule("scatter", "flat", "star", p, root, chunks, rounds)


def scatter_binomial_tree(p: int, root: int = 0, chunks: int = 1) -> Schedule:
    """Each holder hands the far half of its blocks to a new holder: ceil(log2 P) rounds."""
    rounds = []
    for level in reversed(range(ceil_log2(p))):
        mask = 1 << level
        sends = [
            Transfer(real(v, root, p), real(v + mask, root, p), real(u, root, p), real(u, root, p), False)
            for v in range(0, p, 2 * mask)
            if v + mask < p
            for u in range(v + mask, min(v + 2 * mask, p))
        ]
        caption = f"every rank holding blocks hands the far half of them to the rank {counted(mask, 'place')} further from the root"
        rounds.append(narrated("scatter", caption, sends))
    return _schedule("scatter", "binomial_tree", "tree", p, root, chunks, rounds)


def gather_flat(p: int, root: int = 0, chunks: int = 1) -> Schedule:
    """Every rank sends its block straight to the root."""
    sends = [Transfer(r, root, r, r, False) for r in range(p) if r != root]
    rounds = [narrated("gather", f"every rank sends its block to {rank(root)}", sends)] if sends else []
    return _schedule("gather", "flat", "star", p, root, chunks, rounds)


def gather_binomial_tree(p: int, root: int = 0, chunks: int = 1) -> Schedule:
    """Binomial scatter backwards: the blocks collect up a tree toward the root."""
    rounds = []
    for level in range(ceil_log2(p)):
        mask = 1 << level
        sends = [
            Transfer(real(v, root, p), real(v - mask, root, p), real(u, root, p), real(u, root, p), False)
            for v in range(mask, p, 2 * mask)
            for u in range(v, min(v + mask, p))
        ]
        rounds.append(narrated("gather", f"ranks pass every block they hold {counted(mask, 'place')} back toward the root", sends))
    return _schedule("gather", "binomial_tree", "tree", p, root, chunks, rounds)
