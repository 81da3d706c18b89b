"""Compare a stepwise run's output with the backend's own op on the same input.

Integers, and collectives that only move data, must match bit for bit.
Float reductions may differ in the order of their additions: they pass when
the largest difference is within a tolerance that grows with the dtype's
precision, the group size and the values' magnitude.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ..core.protocol import MAX_MISMATCHES


@dataclass(frozen=True)
class Verdict:
    verified: bool
    max_diff: float
    tolerance: float
    mismatches: tuple[tuple[int, float, float], ...] = ()  # (position, got, native's), the first few


def tolerance(reduces: bool, dtype: torch.dtype, group_size: int, magnitude: float) -> float:
    if not reduces or not dtype.is_floating_point:
        return 0.0
    return 4.0 * group_size * torch.finfo(dtype).eps * max(1.0, magnitude)


def wrong_elements(reduces: bool, got: torch.Tensor, want: torch.Tensor, group_size: int) -> int:
    """How many elements of `got` are off from `want` by more than compare's tolerance (nccl-tests'
    #wrong); every element when the shapes differ."""
    if got.shape != want.shape:
        return max(got.numel(), want.numel())
    diff, magnitude = differences(got, want)
    return int((diff > tolerance(reduces, got.dtype, group_size, magnitude)).sum())


def differences(got: torch.Tensor, want: torch.Tensor) -> tuple[torch.Tensor, float]:
    """|got - want| per element (0 where equal, NaN to NaN and equal infinities too), and the
    largest finite magnitude in `want`, which scales the tolerance."""
    a, b = got.double(), want.double()
    same = (a == b) | (torch.isnan(a) & torch.isnan(b))  # equal infinities count as equal
    diff = torch.where(same, torch.zeros_like(a), (a - b).abs().nan_to_num(float("inf")))
    finite = b[torch.isfinite(b)]
    return diff, float(finite.abs().max()) if finite.numel() else 0.0


def compare(reduces: bool, got: torch.Tensor, want: torch.Tensor, group_size: int) -> Verdict:
    """`reduces`: the collective combines values (else it only moves them, and must match exactly)."""
    if got.shape != want.shape:
        return Verdict(False, float("inf"), 0.0)  # no position to point at
    diff, magnitude = differences(got, want)
    max_diff = float(diff.max()) if diff.numel() else 0.0
    tol = tolerance(reduces, got.dtype, group_size, magnitude)
    wrong = (diff > tol).nonzero().flatten()[:MAX_MISMATCHES].tolist()
    return Verdict(max_diff <= tol, max_diff, tol, tuple((i, float(got[i]), float(want[i])) for i in wrong))
