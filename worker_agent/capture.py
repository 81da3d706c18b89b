"""Chunk states at a run's capture level.

`full` ships every value (small buffers only: catalog.MAX_FULL_CAPTURE);
`summary` ships a short preview, min, max, sum and checksum; `none` ships
nothing. Capturing only reads the buffer, so it never changes what is sent.
"""

from __future__ import annotations

import torch

from .protocol import ChunkState

PREVIEW = 4
_WORD = {1: torch.int8, 2: torch.int16, 4: torch.int32, 8: torch.int64}


def checksum(t: torch.Tensor) -> int:
    """The sum, modulo 2**63, of the tensor's elements read as signed integers of
    their own width: one cheap pass, and equal tensors of one dtype agree bit for bit."""
    words = t.contiguous().view(_WORD[t.element_size()])
    return int(words.sum(dtype=torch.int64)) % (1 << 63)


def state(t: torch.Tensor, chunk: int, level: str) -> ChunkState:
    if t.numel() == 0:
        return ChunkState(chunk=chunk, preview=[], checksum=0)
    if level == "full":
        values = t.tolist()
        return ChunkState(chunk=chunk, values=values, preview=values[:PREVIEW], min=min(values),
                          max=max(values), sum=sum(values), checksum=checksum(t))
    low, high = torch.aminmax(t)
    total = t.sum(dtype=torch.float64) if t.is_floating_point() else t.sum(dtype=torch.int64)
    return ChunkState(
        chunk=chunk,
        preview=t[:PREVIEW].tolist(),
        min=float(low.item()),
        max=float(high.item()),
        sum=float(total.item()),
        checksum=checksum(t),
    )


def states(buffer: torch.Tensor, bounds: list[tuple[int, int]], chunks, level: str) -> list[ChunkState]:
    """States of the given chunks of `buffer`; nothing at level `none`."""
    if level == "none":
        return []
    return [state(buffer[bounds[c][0] : bounds[c][1]], c, level) for c in chunks]
