"""broadcast schedules: the root's buffer ends up on every rank. All are
pipelined: with k pieces, piece c enters round s at step c + s."""

from __future__ import annotations

from ..schedule import Round, Transfer, ceil_log2, pipelined, rank, real
from .captions import counted, narrated
from .formulas import CRITICAL_PATH, SENT_ROOT, Formula
from .registry import Built, register


@register(
    "broadcast",
    layout="star",
    formula=Formula("(P-1)·N", "sent by the root", SENT_ROOT, lambda n, p: (p - 1) * n),
)
def flat(p: int, root: int = 0, chunks: int = 1) -> Built:
    """The root sends the whole buffer to every other rank: (P-1)·N leave the root."""
    sends = [Transfer(root, r, 0, 0, False) for r in range(p) if r != root]
    caption = f"{rank(root)} sends its buffer to every other rank"
    rounds = [narrated("broadcast", caption, sends)] if sends else []
    return Built(chunks, pipelined(rounds, chunks))


@register(
    "broadcast",
    layout="tree",
    formula=Formula(
        "⌈log2 P⌉·N", "on the critical path", CRITICAL_PATH, lambda n, p: ceil_log2(p) * n, one_piece=True
    ),
)
def binomial_tree(p: int, root: int = 0, chunks: int = 1) -> Built:
    """Every rank that has the data sends it on, doubling the holders each round: ceil(log2 P) rounds."""
    rounds, mask = [], 1
    while mask < p:
        sends = [
            Transfer(real(v, root, p), real(v + mask, root, p), 0, 0, False)
            for v in range(mask)
            if v + mask < p
        ]
        caption = (
            f"the ranks holding the data send it {counted(mask, 'place')} further from the "
            "root, doubling the holders"
        )
        rounds.append(narrated("broadcast", caption, sends))
        mask *= 2
    return Built(chunks, pipelined(rounds, chunks))


@register("broadcast")
def ring(p: int, root: int = 0, chunks: int = 1) -> Built:
    """A chain from the root around the ring; with many pieces every link is busy at once."""
    rounds = []
    for v in range(p - 1):
        src, dst = real(v, root, p), real(v + 1, root, p)
        rounds.append(
            Round(
                "broadcast",
                f"{rank(src)} passes the data on to {rank(dst)}",
                [Transfer(src, dst, 0, 0, False)],
            )
        )
    return Built(chunks, pipelined(rounds, chunks))
