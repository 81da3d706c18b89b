"""scatter and gather schedules. Block r of the buffer belongs to rank r; each
block is cut into `chunks` pieces, and the rounds are pipelined over them."""

from __future__ import annotations

from ..schedule import Transfer, ceil_log2, pipelined, rank, real
from .captions import counted, narrated
from .formulas import RECEIVED_ROOT, SENT_ROOT, Formula
from .registry import Built, register


@register(
    "scatter",
    "flat",
    layout="star",
    formula=Formula("(P-1)·B", "sent by the root", SENT_ROOT, lambda b, p: (p - 1) * b),
)
def scatter_flat(p: int, root: int = 0, chunks: int = 1) -> Built:
    """The root sends block r straight to rank r."""
    sends = [Transfer(root, r, r, r, False) for r in range(p) if r != root]
    rounds = [narrated("scatter", f"{rank(root)} sends every rank its own block", sends)] if sends else []
    return Built(chunks, pipelined(rounds, chunks))


@register(
    "scatter",
    "binomial_tree",
    layout="tree",
    formula=Formula("(P-1)·B", "sent by the root, in ⌈log2 P⌉ steps", SENT_ROOT, lambda b, p: (p - 1) * b),
)
def scatter_binomial_tree(p: int, root: int = 0, chunks: int = 1) -> Built:
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
        caption = (
            "every rank holding blocks hands the far half of them to the rank "
            f"{counted(mask, 'place')} further from the root"
        )
        rounds.append(narrated("scatter", caption, sends))
    return Built(chunks, pipelined(rounds, chunks))


@register(
    "gather",
    "flat",
    layout="star",
    formula=Formula("(P-1)·B", "into the root", RECEIVED_ROOT, lambda b, p: (p - 1) * b),
)
def gather_flat(p: int, root: int = 0, chunks: int = 1) -> Built:
    """Every rank sends its block straight to the root."""
    sends = [Transfer(r, root, r, r, False) for r in range(p) if r != root]
    rounds = [narrated("gather", f"every rank sends its block to {rank(root)}", sends)] if sends else []
    return Built(chunks, pipelined(rounds, chunks))


@register(
    "gather",
    "binomial_tree",
    layout="tree",
    formula=Formula("(P-1)·B", "into the root, in ⌈log2 P⌉ steps", RECEIVED_ROOT, lambda b, p: (p - 1) * b),
)
def gather_binomial_tree(p: int, root: int = 0, chunks: int = 1) -> Built:
    """Binomial scatter backwards: the blocks collect up a tree toward the root."""
    rounds = []
    for level in range(ceil_log2(p)):
        mask = 1 << level
        sends = [
            Transfer(real(v, root, p), real(v - mask, root, p), real(u, root, p), real(u, root, p), False)
            for v in range(mask, p, 2 * mask)
            for u in range(v, min(v + mask, p))
        ]
        rounds.append(
            narrated(
                "gather",
                f"ranks pass every block they hold {counted(mask, 'place')} back toward the root",
                sends,
            )
        )
    return Built(chunks, pipelined(rounds, chunks))
