"""What each collective means: where its inputs and outputs sit in a rank's
working buffer, and its definition as plain numpy (the reference that
simulations are checked against).

Ranks are group-local. `count` is the size of one block: what each rank
contributes to all_gather or gather, what each rank receives from scatter or
reduce_scatter, one destination's share of all_to_all.
"""

from __future__ import annotations

from functools import reduce as fold

import numpy as np

COLLECTIVES = (
    "broadcast",
    "scatter",
    "gather",
    "reduce",
    "all_reduce",
    "all_gather",
    "reduce_scatter",
    "all_to_all",
    "barrier",
    "send_recv",
)
REDUCING = frozenset({"reduce", "all_reduce", "reduce_scatter", "barrier"})
ROOTED = frozenset({"broadcast", "scatter", "gather", "reduce", "send_recv"})  # send_recv: root sends

# A barrier is modelled as an OR of one-bit tokens: when it completes, every
# rank's token holds every rank's bit, i.e. every rank has heard from all.
BARRIER_OP, BARRIER_DTYPE = "BOR", "int64"

OPS = {
    "SUM": np.add,
    "PRODUCT": np.multiply,
    "MIN": np.minimum,
    "MAX": np.maximum,
    "BAND": np.bitwise_and,
    "BOR": np.bitwise_or,
    "BXOR": np.bitwise_xor,
    "AVG": np.add,  # then divided by the world size
}


# nccl-tests' bus bandwidth factors: busbw = algbw x factor compares with a link's speed
BUS_FACTOR = {
    "all_reduce": lambda p: 2 * (p - 1) / p,
    "all_gather": lambda p: (p - 1) / p,
    "reduce_scatter": lambda p: (p - 1) / p,
    "all_to_all": lambda p: (p - 1) / p,
    "gather": lambda p: (p - 1) / p,
    "scatter": lambda p: (p - 1) / p,
    "broadcast": lambda p: 1.0,
    "reduce": lambda p: 1.0,
    "send_recv": lambda p: 1.0,
    "barrier": lambda p: 0.0,
}


def message_bytes(collective: str, count: int, itemsize: int, world_size: int) -> int:
    """One rank's message size as nccl-tests counts it: the larger of its input and output."""
    return count * itemsize * (world_size if buffer_blocks(collective, world_size) > 1 else 1)


def buffer_blocks(collective: str, world_size: int) -> int:
    if collective in ("all_gather", "reduce_scatter", "scatter", "gather"):
        return world_size
    if collective == "all_to_all":
        return 2 * world_size  # blocks [0, P) send, [P, 2P) receive: block P+i came from rank i
    return 1


def input_blocks(collective: str, rank: int, world_size: int, root: int) -> range:
    """Blocks of the working buffer that this rank's input fills (empty: no input)."""
    p = world_size
    if collective in ("broadcast", "send_recv"):
        return range(0, 1) if rank == root else range(0)
    if collective == "scatter":
        return range(0, p) if rank == root else range(0)
    if collective in ("all_gather", "gather"):
        return range(rank, rank + 1)
    if collective in ("reduce_scatter", "all_to_all"):
        return range(0, p)
    return range(0, 1)  # all_reduce, reduce, barrier


def output_blocks(collective: str, rank: int, world_size: int, root: int, peer: int) -> range:
    """Blocks of the working buffer that hold this rank's output (empty: no output)."""
    p = world_size
    if collective in ("reduce", "gather") and rank != root:
        return range(0)
    if collective == "send_recv":
        return range(0, 1) if rank == peer else range(0)
    if collective in ("scatter", "reduce_scatter"):
        return range(rank, rank + 1)
    if collective in ("all_gather", "gather"):
        return range(0, p)
    if collective == "all_to_all":
        return range(p, 2 * p)
    return range(0, 1)  # broadcast, all_reduce, reduce at the root, barrier


def input_size(collective: str, rank: int, world_size: int, root: int, count: int) -> int:
    return len(input_blocks(collective, rank, world_size, root)) * count


def combine(op: str, values: list[np.ndarray]) -> np.ndarray:
    """Reduce a list of arrays with `op`, in list order."""
    out = fold(OPS[op], values)
    if op == "AVG":
        out = out / len(values) if np.issubdtype(out.dtype, np.floating) else out // len(values)
    return out


def reference(
    collective: str,
    inputs: list[np.ndarray],
    op: str = "SUM",
    root: int = 0,
    peer: int = 1,
) -> list[np.ndarray | None]:
    """Each rank's output by the collective's definition; `inputs[r]` is rank r's input
    (empty for ranks that have none), shaped as `input_blocks` says."""
    p = len(inputs)
    if collective == "barrier":
        collective, op = "all_reduce", BARRIER_OP
    if collective in ("all_reduce",):
        total = combine(op, inputs)
        return [total.copy() for _ in range(p)]
    if collective == "reduce":
        total = combine(op, inputs)
        return [total if r == root else None for r in range(p)]
    if collective == "broadcast":
        return [inputs[root].copy() for _ in range(p)]
    if collective == "send_recv":
        return [inputs[root].copy() if r == peer else None for r in range(p)]
    if collective == "all_gather":
        return [np.concatenate(inputs) for _ in range(p)]
    if collective == "gather":
        return [np.concatenate(inputs) if r == root else None for r in range(p)]
    blocks = [np.array_split(x, p) if len(x) else [] for x in inputs]
    if collective == "scatter":
        return [blocks[root][r].copy() for r in range(p)]
    if collective == "reduce_scatter":
        return [combine(op, [blocks[s][r] for s in range(p)]) for r in range(p)]
    if collective == "all_to_all":
        return [np.concatenate([blocks[s][r] for s in range(p)]) for r in range(p)]
    raise ValueError(f"unknown collective {collective!r}")
