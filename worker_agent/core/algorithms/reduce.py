"""reduce schedules: the op over every rank's buffer ends up at the root. Pipelined."""

from __future__ import annotations

from ..schedule import Transfer, ceil_log2, pipelined, rank, real
from .captions import counted, narrated
from .formulas import CRITICAL_PATH, RECEIVED_ROOT, Formula
from .registry import Built, register


@register(
    "reduce",
    layout="star",
    formula=Formula("(P-1)·N", "into the root", RECEIVED_ROOT, lambda n, p: (p - 1) * n),
)
def flat(p: int, root: int = 0, chunks: int = 1) -> Built:
    """Every rank sends its buffer to the root, which combines them: (P-1)·N arrive at the root."""
    sends = [Transfer(r, root, 0, 0, True) for r in range(p) if r != root]
    caption = f"every rank sends its buffer to {rank(root)}, which combines them"
    rounds = [narrated("reduce", caption, sends)] if sends else []
    return Built(chunks, pipelined(rounds, chunks))


@register(
    "reduce",
    layout="tree",
    formula=Formula(
        "⌈log2 P⌉·N", "on the critical path", CRITICAL_PATH, lambda n, p: ceil_log2(p) * n, one_piece=True
    ),
)
def binomial_tree(p: int, root: int = 0, chunks: int = 1) -> Built:
    """Binomial broadcast run backwards: half of the remaining ranks fold into the other half each round."""
    rounds, mask = [], 1
    while mask < p:
        sends = [
            Transfer(real(v, root, p), real(v - mask, root, p), 0, 0, True) for v in range(mask, p, 2 * mask)
        ]
        caption = (
            "every other rank still holding a partial result sends it to the rank "
            f"{counted(mask, 'place')} nearer the root, which combines it with its own"
        )
        rounds.append(narrated("reduce", caption, sends))
        mask *= 2
    return Built(chunks, pipelined(rounds, chunks))
