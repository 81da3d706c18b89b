"""A row's time from every rank's iterations (nccl-tests' -a), and its ratio to native's with a
bootstrap interval: the table marks a difference only where that interval excludes 1."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# nccl-tests' -a: how a row's time combines the ranks' (each rank's mean over its iterations)
AVERAGING = {0: "rank 0's", 1: "the mean over ranks", 2: "the fastest rank's", 3: "the slowest rank's"}
CONFIDENCE = 0.95
RESAMPLES = 2000
MIN_SAMPLES = 5  # fewer iterations give no interval: a bootstrap over two or three is no evidence


def combined(times: np.ndarray, average: int, blocking: int) -> tuple[float, np.ndarray]:
    """From [rank, iteration] seconds: (the row's time, one sample per iteration). nccl-tests: each
    rank's mean over its iterations, combined across ranks as -a says, with -z (`blocking`, which
    only syncs the ranks between iterations) or without."""
    across = {
        0: lambda x: x[0],
        1: lambda x: x.mean(axis=0),
        2: lambda x: x.min(axis=0),
        3: lambda x: x.max(axis=0),
    }[average]
    return float(across(times.mean(axis=1))), across(times)


@dataclass(frozen=True)
class Ratio:
    """A row's time over native's, with its bootstrap interval (None: too few iterations)."""

    ratio: float
    low: float | None
    high: float | None

    @property
    def marked(self) -> bool:
        """A difference the table shows: the interval excludes 1."""
        return self.low is not None and self.high is not None and (self.low > 1 or self.high < 1)

    def to_json(self) -> dict:
        return {"ratio": self.ratio, "low": self.low, "high": self.high, "marked": self.marked}


def ratio_to(samples, native, seed: int = 0) -> Ratio:
    """mean(samples) / mean(native), with a 95% bootstrap interval, seeded (the same samples, the
    same interval). Iterations are resampled in pairs (the two ran side by side, so drift cancels)
    and in runs of about √n consecutive ones: a busy machine's slow spells last several
    iterations, and resampling iterations one by one, as if independent, drew intervals so narrow
    that one table marked an algorithm faster than native and the next one slower."""
    a, b = np.asarray(samples, dtype=float), np.asarray(native, dtype=float)
    ratio = float(a.mean() / b.mean())
    n = min(len(a), len(b))
    if n < MIN_SAMPLES:
        return Ratio(ratio, None, None)
    boot = _resampled(a, b, n, seed)
    tail = (1 - CONFIDENCE) / 2
    low, high = np.quantile(boot, [tail, 1 - tail])
    return Ratio(ratio, float(low), float(high))


def _resampled(a: np.ndarray, b: np.ndarray, n: int, seed: int) -> np.ndarray:
    """RESAMPLES ratios of means, each over n iterations drawn in runs of about √n consecutive
    ones, the same iterations of `a` and `b` (paired)."""
    block = max(1, round(n**0.5))
    starts = np.random.default_rng(seed).integers(0, n - block + 1, (RESAMPLES, -(-n // block)))
    picks = (starts[:, :, None] + np.arange(block)).reshape(RESAMPLES, -1)[:, :n]
    return a[picks].mean(axis=1) / b[picks].mean(axis=1)
