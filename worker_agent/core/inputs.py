"""Deterministic, readable inputs, chosen by name.

Generated with numpy from (pattern, seed, rank, size), so any process (the
simulator, a verifier, a test) can rebuild any rank's input without asking it.
`rank` is the group rank.
"""

from __future__ import annotations

import numpy as np

from .collectives import get
from .protocol import RunSpec
from .run_shape import group_of
from .vocabulary import DTYPES

ORIGIN = 100  # "origin": a value's hundreds are its rank, the rest its block


def pattern_values(pattern: str, seed: int, rank: int, size: int, count: int = 1) -> np.ndarray:
    """float64 or int64 values; small enough to read, distinct where the pattern says.
    `count`: elements per block (the rank's input is size // count blocks)."""
    if pattern == "rank":
        return np.full(size, rank + 1, dtype=np.int64)
    # the seed's `torch.ones(n) * rank`: its all_reduce of 4 ranks gives 0+1+2+3 = 6
    if pattern == "own_rank":
        return np.full(size, rank, dtype=np.int64)
    # a block, or an element where the rank holds one block (all_reduce's buffer): else these
    # two would hold one value throughout
    unit = max(count, 1) if size > count else 1
    if pattern == "powers":  # the seed's `torch.tensor([1, 10, 100, 1000]) * rank`, a power of ten a unit
        return 10 ** ((np.arange(size, dtype=np.int64) // unit) % 8) * rank
    if pattern == "origin":  # 100·rank + unit: the page writes it "r2c3" (rank 2's chunk 3)
        return ORIGIN * rank + np.arange(size, dtype=np.int64) // unit % ORIGIN
    if pattern == "digits":  # one digit a block: rank + 1 where a rank has one block, 1, 2, 3 … along several
        blocks = max(size // max(count, 1), 1)
        return 1 + (rank * blocks + np.arange(size, dtype=np.int64) // max(count, 1)) % 9
    if pattern == "index":
        return rank * size + np.arange(size, dtype=np.int64)
    rng = np.random.default_rng([seed, rank])
    if pattern == "random_int":
        return rng.integers(0, 10, size, dtype=np.int64)
    if pattern == "random_float":
        return rng.uniform(-1.0, 1.0, size)
    raise ValueError(f"unknown input pattern {pattern!r}")


def numpy_input(spec: RunSpec, group_rank: int, world_size: int) -> np.ndarray:
    """This rank's input as numpy, shaped as its collective's input_blocks say (maybe empty)."""
    collective, group = get(spec.collective, spec.servers), group_of(spec, world_size)
    blocks = collective.input_blocks(group_rank, len(group), group.index(spec.root))
    size = len(blocks) * collective.count(spec)
    # "origin" names the rank as the cards do: its global rank
    rank = group[group_rank] if spec.pattern == "origin" else group_rank
    if spec.inputs is not None:  # typed in: validation checked its length against `size`
        values = np.asarray(spec.inputs[group_rank], dtype=np.float64 if _fractional(spec) else np.int64)
    else:
        values = pattern_values(spec.pattern, spec.seed, rank, size, collective.count(spec))
    values = collective.input_values(values, group_rank)
    name = collective.dtype(spec)
    dtype = DTYPES[name]
    # a long index would overflow to inf (typed inputs are refused past it instead: validation)
    if dtype.exact_up_to and values.dtype.kind == "i" and spec.inputs is None:
        values = values % dtype.exact_up_to
    values = collective.given(values, group_rank, len(group), group.index(spec.root))
    return values.astype(dtype.generated_as or name)


def _fractional(spec: RunSpec) -> bool:
    """Typed inputs with a fraction among them (else they are kept as exact integers)."""
    return any(isinstance(v, float) and not v.is_integer() for row in spec.inputs or [] for v in row)
