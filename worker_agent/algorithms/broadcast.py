"""broadcast schedules: the root's buffer ends up on every rank. All are
pipelined: with k pieces, piece c enters stage s at step c + s."""

from __future__ import annotations

from ..schedule import Schedule, Stage, Transfer, pipelined, rank, real
from .captions import counted, stage


def _schedule(name: str, p: int, root: int, chunks: int, stages: list[Stage]) -> Schedule:
    return Schedule("broadcast", name, p, root, blocks=1, pieces=chunks, steps=pipelined(stages, chunks))


def flat(p: int, root: int = 0, chunks: int = 1) -> Schedule:
    """The root sends the whole buffer to every other rank: (P-1)·N leave the root."""
    sends = [Transfer(root, r, 0, 0, False) for r in range(p) if r != root]
    stages = [stage("broadcast", f"{rank(root)} sends its buffer to every other rank", sends)] if sends else []
    return _schedule("flat", p, root, chunks, stages)


def binomial_tree(p: int, root: int = 0, chunks: int = 1) -> Schedule:
    """Every rank that has the data sends it on, doubling the holders each stage: ceil(log2 P) stages."""
    stages, mask = [], 1
    while mask < p:
        sends = [Transfer(real(v, root, p), real(v + mask, root, p), 0, 0, False) for v in range(mask) if v + mask < p]
        caption = f"the ranks holding the data send it {counted(mask, 'place')} further from the root, doubling the holders"
        stages.append(stage("broadcast", caption, sends))
        mask *= 2
    return _schedule("binomial_tree", p, root, chunks, stages)


def ring(p: int, root: int = 0, chunks: int = 1) -> Schedule:
    """A chain from the root around the ring; with many pieces every link is busy at once."""
    stages = []
    for v in range(p - 1):
        src, dst = real(v, root, p), real(v + 1, root, p)
        stages.append(Stage("broadcast", f"{rank(src)} passes the data on to {rank(dst)}", [Transfer(src, dst, 0, 0, False)]))
    return _schedule("ring", p, root, chunks, stages)
