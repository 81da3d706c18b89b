"""What a run would start from, made without a rank: every rank's buffer before the first step
(its input in place, zeros elsewhere), chunk by chunk at the run's capture level, as the ranks
report it in RunStarted. The page's first screen draws it before anything has run."""

from __future__ import annotations

import numpy as np

from .collectives import get
from .inputs import numpy_input
from .protocol import MAX_FULL_CAPTURE, ChunkState, RunSpec
from .run_shape import chunk_bounds, group_of
from .vocabulary import DTYPES

PREVIEW = 4  # values a summary shows, as capture.py's


def bfloat16(x: np.ndarray) -> np.ndarray:
    """float32 values rounded to bfloat16's eight bits of mantissa, to nearest even, as torch does."""
    bits = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    kept = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return kept.astype(np.uint32).view(np.float32)


def checksum(values: np.ndarray, itemsize: int) -> int:
    """capture.checksum's: the elements' bit patterns added as integers of their width, wrapping."""
    word = np.dtype(f"int{8 * itemsize}")
    if values.dtype == np.float32 and itemsize == 2:  # bfloat16, held here as float32: its top half
        bits = (values.view(np.uint32) >> 16).astype(np.uint16).view(word)
    else:
        bits = values.view(word)
    return int(bits.sum(dtype=word)) % (1 << (8 * itemsize))


def state(values: np.ndarray, chunk: int, level: str, itemsize: int) -> ChunkState:
    """One chunk as a rank reports it: every value at `full`, else a preview and its figures, read
    in numpy (a summary's chunk may hold millions of values: as Python numbers they took seconds)."""
    if not len(values):
        return ChunkState(chunk=chunk, preview=[], checksum=0)
    if level == "full":
        items = values.tolist()
        figures = {"values": items, "preview": items[:PREVIEW], "min": min(items), "max": max(items)}
        return ChunkState(chunk=chunk, sum=sum(items), checksum=checksum(values, itemsize), **figures)
    return ChunkState(
        chunk=chunk,
        preview=values[:PREVIEW].tolist(),
        min=values.min().item(),
        max=values.max().item(),
        # as the rank adds it: in the tensor's own precision (16-bit floats in float32)
        sum=values.sum(dtype=np.float32 if itemsize == 2 else None).item(),
        checksum=checksum(values, itemsize),
    )


def input_states(spec: RunSpec, world_size: int) -> dict[int, list[ChunkState]]:
    """Each rank of the group's buffer before the first step, by global rank ({} at capture
    `none`, and where a buffer is too large for `full`: the ranks would refuse it too)."""
    collective, group = get(spec.collective, spec.servers), group_of(spec, world_size)
    bounds, count, root = chunk_bounds(spec, world_size), collective.count(spec), group.index(spec.root)
    size = max(collective.blocks(len(group)) * count, bounds[-1][1] if bounds else 0)
    if spec.capture == "none" or (spec.capture == "full" and size > MAX_FULL_CAPTURE):
        return {}
    name = collective.dtype(spec)
    out = {}
    for me, rank in enumerate(group):
        values = np.zeros(size, dtype=DTYPES[name].generated_as or name)
        mine = collective.input_blocks(me, len(group), root)
        if len(mine):
            values[mine.start * count : mine.stop * count] = numpy_input(spec, me, world_size)
        if name == "bfloat16":
            values = bfloat16(values)
        itemsize = DTYPES[name].itemsize
        out[rank] = [state(values[a:b], c, spec.capture, itemsize) for c, (a, b) in enumerate(bounds)]
    return out
