"""broadcast schedules: the root's buffer ends up on every rank. All are
pipelined: with k pieces, piece c enters round s at step c + s."""

from __future__ import annotations

from ..schedule import Schedule, Round, Transfer, pipelined, rank, real
from .captions import counted, narrated


def _schedule(name: str, layout: str, p: int, root: int, chunks: int, rounds: list[Round]) -> Schedule:
    return Schedule("broadcast", name, p, root, blocks=1, pieces=chunks, steps=pipelined(rounds, chunks),
                    layout=layout)


def flat(p: int, root: int = 0, chunks: int = 1) -> Schedule:
    """The root sends the whole buffer to every other rank: (P-1)·N leave the root."""
    sends = [Transfer(root, r, 0, 0, False) for r in range(p) if r != root]
    rounds = [narrated("broadcast", f"{rank(root)} sends its buffer to every other rank", sends)] if sends else []
    return _schedule("flat", "star", p, root, chunks, rounds)


def binomial_tree(p: int, root: int = 0, chunks: int = 1) -> Schedule:
    """Every rank that has the data sends it on, doubling the holders each round: ceil(log2 P) rounds."""
    rounds, mask = [], 1
    while mask < p:
        sends = [Transfer(real(v, root, p), real(v + mask, root, p), 0, 0, False) for v in range(mask) if v + mask < p]
        caption = f"the ranks holding the data send it {counted(mask, 'place')} further from the root, doubling the holders"
        rounds.append(narrated("broadcast", caption, sends))
        mask *= 2
    return _schedule("binomial_tree", "tree", p, root, chunks, rounds)


def ring(p: int, root: int = 0, chunks: int = 1) -> Schedule:
    """A chain from the root around the ring; with many pieces every link is busy at once."""
    rounds = []
    for v in range(p - 1):
        src, dst = real(v, root, p), real(v + 1, root, p)
        rounds.append(Round("broadcast", f"{rank(src)} passes the data on to {rank(dst)}", [Transfer(src, dst, 0, 0, False)]))
    return _schedule("ring", "ring", p, root, chunks, rounds)
