"""Chunk states at a run's capture level.

`full` ships every value (small buffers only: protocol.MAX_FULL_CAPTURE);
`summary` ships a short preview, min, max, sum and checksum; `none` ships
nothing. Capturing only reads the buffer, so it never changes what is sent.
"""

from __future__ import annotations

from collections.abc import Iterable

import torch

from ..core.protocol import ChunkState

PREVIEW = 4
_WORD = {1: torch.int8, 2: torch.int16, 4: torch.int32, 8: torch.int64}


def checksum(t: torch.Tensor) -> int:
    """The sum of the tensor's elements read as integers of their own width (their
    bit patterns), wrapping at that width, as an unsigned number. One vectorised
    pass; equal tensors of one dtype agree bit for bit."""
    word = _WORD[t.element_size()]
    total = int(t.contiguous().view(word).sum(dtype=word))
    return total % (1 << (8 * t.element_size()))


def _sum(t: torch.Tensor) -> float | int:
    """Exact for integers (int64, wrapping); floats add up in their own precision, half
    precision ones in float32 (a float16 sum would overflow at 65504, a bfloat16 one
    would keep 8 bits)."""
    if t.dtype in (torch.float16, torch.bfloat16):
        return t.sum(dtype=torch.float32).item()
    return t.sum().item()


def state(t: torch.Tensor, chunk: int, level: str) -> ChunkState:
    if t.numel() == 0:
        return ChunkState(chunk=chunk, preview=[], checksum=0)
    if level == "full":
        values = t.tolist()
        return ChunkState(
            chunk=chunk,
            values=values,
            preview=values[:PREVIEW],
            min=min(values),
            max=max(values),
            sum=sum(values),
            checksum=checksum(t),
        )
    low, high = torch.aminmax(t)
    return ChunkState(
        chunk=chunk,
        preview=t[:PREVIEW].tolist(),
        min=low.item(),
        max=high.item(),
        sum=_sum(t),
        checksum=checksum(t),
    )


def states(views: Iterable[tuple[int, torch.Tensor]], level: str) -> list[ChunkState]:
    """States of (chunk index, tensor) pairs; nothing at level `none`, where no tensor is read."""
    if level == "none":
        return []
    return [state(t, c, level) for c, t in views]


def chunk_views(buffer: torch.Tensor, bounds: list[tuple[int, int]], chunks: Iterable[int]):
    """(chunk index, view) for the given chunks of `buffer`."""
    return ((c, buffer[bounds[c][0] : bounds[c][1]]) for c in chunks)
