"""A row's time from every rank's iterations (nccl-tests' -a), and its ratio to native's: a 95%
interval, and the mark the table puts on a difference, which native against itself (an A/A
comparison) earns at far fewer than 5% of sizes, on a busy machine or a quiet one.

The two ran side by side, taking turns, so drift cancels between them; but a busy machine's slow
spells last several iterations, so its iterations are no independent samples, and intervals
that treat them so (a bootstrap over iterations, even in runs of √n) marked native against
itself at 3 of 17 sizes. Here:

- the interval is from batch means: the iterations cut into BATCHES runs of consecutive ones,
  each run's log ratio of means one observation, Student's t over their spread (few runs of
  several iterations each are nearer independent, and t with their few degrees of freedom pays
  for knowing their spread so roughly);
- a ratio is marked only where that interval excludes 1 and a sign-flip test agrees: the two's
  labels swapped within pairs of turns, every way (or FLIPS ways, seeded), give a difference as
  large as the one measured less than 5% of the time. Such a swap leaves every slow spell where
  it fell, so the test holds whatever the spells are like.

Either alone marks an A/A comparison about 5% of the time, both together about 2%
(tests/ranks/test_bench.py simulates it), and a real difference of a fifth almost as often as
either does."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

# nccl-tests' -a: how a row's time combines the ranks' (each rank's mean over its iterations)
AVERAGING = {0: "rank 0's", 1: "the mean over ranks", 2: "the fastest rank's", 3: "the slowest rank's"}
BATCHES = 5  # runs of consecutive iterations the interval is drawn from
# fewer iterations give no interval: two batches' t (12.7) draws one a thousandfold wide
MIN_SAMPLES = 2 * BATCHES
T_975 = 2.776  # Student's t, two-sided 95%, at BATCHES - 1 degrees of freedom
LEVEL = 0.05
PAIR = 2  # iterations whose labels a flip swaps together: one turn of each order, with two runs
FLIPS = 2048  # flips drawn where there are more ways than this


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
    """A row's time over native's, its 95% interval and the sign-flip test's p (None: too few
    iterations)."""

    ratio: float
    low: float | None
    high: float | None
    p: float | None = None

    @property
    def marked(self) -> bool:
        """A difference the table shows: the interval excludes 1 and the flips agree."""
        if self.low is None or self.high is None or self.p is None:
            return False
        return (self.low > 1 or self.high < 1) and self.p < LEVEL

    def to_json(self) -> dict:
        return {"ratio": self.ratio, "low": self.low, "high": self.high, "p": self.p, "marked": self.marked}


def ratio_to(samples, native) -> Ratio:
    """mean(samples) / mean(native), paired iteration by iteration, with its interval and test."""
    a, b = np.asarray(samples, dtype=float), np.asarray(native, dtype=float)
    ratio = float(a.mean() / b.mean())
    n = min(len(a), len(b))
    if n < MIN_SAMPLES:
        return Ratio(ratio, None, None)
    a, b = a[:n], b[:n]
    half = _half_width(a, b)
    return Ratio(ratio, float(ratio * np.exp(-half)), float(ratio * np.exp(half)), _flipped(a, b))


def _half_width(a: np.ndarray, b: np.ndarray) -> float:
    """The 95% interval's half-width for log(ratio), from batch means."""
    runs = np.array_split(np.arange(len(a)), BATCHES)
    logs = np.array([np.log(a[r].mean() / b[r].mean()) for r in runs])
    return T_975 * float(logs.std(ddof=1)) / np.sqrt(len(logs))


def _flipped(a: np.ndarray, b: np.ndarray) -> float:
    """The share of label swaps, pair of turns by pair, whose |log ratio of means| is at least the
    measured one (the measured labelling among them)."""
    units = len(a) // PAIR
    sa, sb = (x[: units * PAIR].reshape(units, PAIR).sum(axis=1) for x in (a, b))
    if 2**units <= FLIPS:
        swap = np.array(list(itertools.product((False, True), repeat=units)))
    else:
        swap = np.random.default_rng(0).random((FLIPS, units)) < 0.5
        swap[0] = False
    tops, bottoms = np.where(swap, sb, sa).sum(axis=1), np.where(swap, sa, sb).sum(axis=1)
    spread = np.abs(np.log(tops / bottoms))
    return float((spread >= abs(np.log(sa.sum() / sb.sum())) - 1e-12).mean())
