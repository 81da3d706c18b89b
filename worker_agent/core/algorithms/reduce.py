"""reduce schedules: the op over every rank's buffer ends up at the root. Pipelined."""

from __future__ import annotations

from ..schedule import Schedule, Round, Transfer, pipelined, rank, real
from .captions import counted, narrated


def _schedule(name: str, layout: str, p: int, root: int, chunks: int, rounds: list[Round]) -> Schedule:
    return Schedule("reduce", name, p, root, blocks=1, pieces=chunks, steps=pipelined(rounds, chunks),
                    layout=layout)


def flat(p: int, root: int = 0, chunks: int = 1) -> Schedule:
    """Every rank sends its buffer to the root, which combines them: (P-1)·N arrive at the root."""
    sends = [Transfer(r, root, 0, 0, True) for r in range(p) if r != root]
    rounds = [narrated("reduce", f"every rank sends its buffer to {rank(root)}, which combines them", sends)] if sends else []
    return _schedule("flat", "star", p, root, chunks, rounds)


def binomial_tree(p: int, root: int = 0, chunks: int = 1) -> Schedule:
    """Binomial broadcast run backwards: half of the remaining ranks fold into the other half each round."""
    rounds, mask = [], 1
    while mask < p:
        sends = [Transfer(real(v, root, p), real(v - mask, root, p), 0, 0, True) for v in range(mask, p, 2 * mask)]
        caption = (f"every other rank still holding a partial result sends it to the rank {counted(mask, 'place')}"
                   " nearer the root, which combines it with its own")
        rounds.append(narrated("reduce", caption, sends))
        mask *= 2
    return _schedule("binomial_tree", "tree", p, root, chunks, rounds)
