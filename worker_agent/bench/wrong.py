"""nccl-tests' #wrong, on any dtype: every rank's input, made alike on every rank from (seed,
rank); this rank's output by the collective's definition (collectives/) from all of them; and the
elements of what the call left that are off it by more than verify.py's tolerance."""

from __future__ import annotations

import numpy as np

from ringside.bench.dtypes import TYPES, BenchType
from ringside.worker_agent.core.collectives import Collective
from ringside.worker_agent.core.inputs import pattern_values

# -c rebuilds every rank's input on each rank (P x size for all_reduce): past this, N/A
CHECK_CAP = 2 << 30


def rank_input(collective: Collective, t: BenchType, count: int, rank: int, p: int, root: int, seed: int):
    """Rank `rank`'s input (a CPU tensor of the dtype, maybe empty), as Runner makes a run's from its
    pattern (random_int for integers, random_float else) where the run's dtype is one of its own."""
    import torch

    size = len(collective.input_blocks(rank, p, root)) * count
    pattern = "random_float" if t.kind in ("float", "complex") else "random_int"
    values = pattern_values(pattern, seed, rank, size, count)
    if t.kind == "complex":  # the imaginary parts from the next seed
        values = values + 1j * pattern_values(pattern, seed + 1, rank, size, count)
    values = collective.given(collective.input_values(values, rank), rank, p, root)
    if t.kind == "bool":
        values = values % 2
    return torch.from_numpy(np.ascontiguousarray(values.astype(t.numpy))).to(getattr(torch, t.name))


def _numpy(x) -> np.ndarray:
    """A tensor's values as numpy computes with them: reals for complex ones (pairs), float32 for
    the floats numpy lacks (every value of theirs is one of float32's)."""
    import torch

    if x.is_complex():
        return torch.view_as_real(x).flatten().numpy()
    if x.dtype.is_floating_point and x.dtype not in (torch.float16, torch.float32, torch.float64):
        return x.float().numpy()
    return x.numpy()


def expected(
    collective: Collective,
    dtype: str,
    count: int,
    op: str | None,
    root: int,
    peer: int,
    me: int,
    p: int,
    seed: int,
):
    """This rank's output by the collective's definition from every rank's input (a CPU tensor of
    the dtype, or None where the rank has no output)."""
    import torch

    t = TYPES[dtype]
    inputs = [_numpy(rank_input(collective, t, count, r, p, root, seed)) for r in range(p)]
    want = collective.reference(inputs, op, root, peer)[me]
    if want is None:
        return None
    out = torch.from_numpy(np.ascontiguousarray(want))
    if t.kind == "complex":
        return torch.view_as_complex(out.reshape(-1, 2).contiguous()).to(getattr(torch, t.name))
    return out.to(getattr(torch, t.name))


def reference_bytes(collective: Collective, dtype: str, count: int, p: int, root: int) -> int:
    """What expected() holds on each rank: every rank's input."""
    blocks = sum(len(collective.input_blocks(r, p, root)) for r in range(p))
    return blocks * count * TYPES[dtype].itemsize


def count_wrong(reduces: bool, got, want, p: int) -> int:
    """Elements of this rank's output `got` off `want` (nccl-tests' #wrong); 0 where the rank has
    no output (a native barrier leaves nothing to check)."""
    import torch

    from ringside.worker_agent.rank.verify import wrong_elements

    if got is None or want is None:
        return 0
    got = got.cpu()
    if got.dtype == torch.bool:  # a reduced bool may hold any nonzero byte for true
        return int(((got.to(torch.uint8) != 0) != want).sum())
    if got.is_complex():  # an element is wrong where either of its parts is
        pairs = torch.view_as_real(got).flatten(), torch.view_as_real(want.to(got.dtype)).flatten()
        off = _off(reduces, *pairs, p)
        return int(off.reshape(-1, 2).any(dim=1).sum())
    return wrong_elements(reduces, got, want.to(got.dtype), p)


def _off(reduces: bool, got, want, p: int):
    from ringside.worker_agent.rank.verify import differences, tolerance

    diff, magnitude = differences(got, want)
    return diff > tolerance(reduces, got.dtype, p, magnitude)
