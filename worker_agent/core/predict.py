"""Predict and pick: the alpha-beta-gamma model at any world size and message size,
fitted to a cluster's runs or taken from a named preset, and the choices `auto` makes.

A schedule's time is steps·α + bytes·β + reduced·γ, the three terms read from the
schedule itself (simulate.cost), on the cluster's ranks as they share cores (simulate.Sharing:
none at scales a cluster cannot run, where every rank is taken to have its own). Reading them at P=1024 means
building a schedule of two million transfers, so they are read once per shape with every chunk one byte
(`unit_terms`, cached) and scaled to the message: exact whenever the count is a multiple
of the schedule's pieces, within one element per chunk otherwise. So a time is a line in
the message size, t(n) = c0 + c1·n, and two algorithms cross at one size at most.

No torch here: the server, `ringside bench` and the tests share it.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from functools import cached_property, lru_cache

import numpy as np

from .algorithms import AUTO, NATIVE, algorithm_of, algorithms, build
from .collectives import get
from .simulate import ALONE, Sharing, cost

MIN_P, MAX_P = 2, 1024
MIN_SIZE, MAX_SIZE = 1, 1 << 36  # bytes per rank a prediction takes (64 GiB)
CHUNK_CHOICES = (1, 2, 4, 8, 16, 32, 64, 128, 256)  # what `chunks: auto` tries
# A schedule replaces native only when predicted at most this share of native's time, and less
# still when the model's own error on held-out sizes is larger (margin): auto must not lose to native.
MARGIN = 0.8
# P=1024 builds take seconds: few past 256
P_POINTS = (2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 512, 1024)


@dataclass(frozen=True)
class Params:
    alpha: float  # seconds per step (latency)
    beta: float  # seconds per byte on the busiest rank's port
    gamma: float  # seconds per byte reduced on the busiest reducer
    source: str  # where the numbers come from, said in every answer

    def time(self, terms: tuple[float, float, float]) -> float:
        steps, nbytes, reduced = terms
        return steps * self.alpha + nbytes * self.beta + reduced * self.gamma

    def to_json(self) -> dict:
        return asdict(self)


# Named presets, each number with the document it comes from.
PRESETS = {
    # One node of eight A100 GPUs joined by NVLink 3 (an NVIDIA DGX A100).
    # alpha: NCCL's own tuning model, src/graph/tuning.cc (NCCL 2.x), hwLat[NVLINK][Ring][Simple]
    #        = 3.4 us per ring step.
    # beta:  NVIDIA A100 Tensor Core GPU datasheet (2020): NVLink 600 GB/s per GPU, counted both
    #        ways, so 300 GB/s out of one rank.
    # gamma: the same datasheet: HBM2 1,555 GB/s (A100 40GB); a reduction reads two bytes and
    #        writes one for every byte it reduces.
    "nvlink-a100-8gpu": Params(3.4e-6, 1 / 300e9, 3 / 1555e9,
                               "NCCL src/graph/tuning.cc hwLat NVLink ring 3.4 us; A100 datasheet: NVLink "
                               "600 GB/s (300 GB/s each way), HBM2 1,555 GB/s (3 "
                               "bytes moved per byte reduced)"),
    # Ranks on separate hosts over a 100 Gb/s network (100 Gigabit Ethernet or InfiniBand EDR).
    # alpha: NCCL src/graph/tuning.cc, hwLat[NET][Ring][Simple] = 9.6 us per ring step.
    # beta:  IEEE 802.3ba-2010 (100 Gb/s Ethernet) line rate: 100e9 / 8 = 12.5 GB/s per port each way.
    # gamma: the A100 datasheet's HBM2 1,555 GB/s, as above (the reduction runs on the GPU).
    "net-100gbps": Params(9.6e-6, 8 / 100e9, 3 / 1555e9,
                          "NCCL src/graph/tuning.cc hwLat network ring 9.6 us; IEEE 802.3ba 100 Gb/s line "
                          "rate (12.5 GB/s); A100 HBM2 1,555 GB/s for the reduction"),
}
# Until a cluster has measured runs: a loopback-ish guess (no document; said so).
DEFAULT = Params(50e-6, 1e-9, 0.25e-9, "default guess (50 us a step, 1 GB/s, 4 GB/s "
                                       "reduced): no runs fitted yet")


# --- the terms, from the schedule ----------------------------------------------


def left_to_model(spec) -> list[str]:
    """The fields of a RunSpec that it leaves to the model by asking for AUTO, an algorithm or a
    chunk count that the model chooses when the run is submitted: algorithm, chunks, both or none."""
    return [name for name in ("algorithm", "chunks") if getattr(spec, name) == AUTO]


def stepwise(collective: str, p: int | None = None) -> list[str]:
    """The algorithms of a collective whose schedules are built from a run's shape: what the model
    predicts; with `p`, only those that run on `p` ranks (an MSCCL file is written for one size)."""
    return [a.name for a in algorithms(collective) if a.built and (p is None or a.fits(p))]


@lru_cache(maxsize=4096)
def unit_terms(collective: str, algorithm: str, p: int, root: int = 0, chunks: int = 1,
               sharing: Sharing = ALONE) -> tuple[float, float, float, int]:
    """(steps, bytes, reduced, pieces) of the schedule with every chunk one byte, on ranks that
    share cores as `sharing` says. A built-in schedule is built without the race check (the
    tests check every one); a user's is checked."""
    record = algorithm_of(collective, algorithm)
    schedule = build(collective, algorithm, p, root, chunks) if record.user else \
        record.schedule(p, root, chunks)
    terms = cost(schedule, schedule.pieces, 1, sharing)
    return terms.steps, terms.bytes, terms.reduced, schedule.pieces


def count_of(collective: str, size: float, itemsize: int, p: int) -> float:
    """Elements per block for a message of `size` bytes per rank, as nccl-tests count it
    (all_gather's n is everything a rank ends with: P blocks)."""
    return size / get(collective).message_bytes(1, itemsize, p)


def terms(collective: str, algorithm: str, p: int, size: float, itemsize: int, chunks: int = 1,
          root: int = 0, sharing: Sharing = ALONE) -> tuple[float, float, float]:
    """(steps, bytes, reduced) for a message of `size` bytes per rank."""
    steps, nbytes, reduced, pieces = unit_terms(collective, algorithm, p, root, chunks, sharing)
    per_chunk = count_of(collective, size, itemsize, p) / pieces * itemsize if get(collective).payload else 1
    return steps, nbytes * per_chunk, reduced * per_chunk


def line(collective: str, algorithm: str, p: int, params: Params, itemsize: int = 4, chunks: int = 1,
         sharing: Sharing = ALONE) -> tuple[float, float]:
    """(c0, c1): the predicted time is c0 + c1·size."""
    at0 = params.time(terms(collective, algorithm, p, 0, itemsize, chunks, sharing=sharing))
    return at0, params.time(terms(collective, algorithm, p, 1, itemsize, chunks, sharing=sharing)) - at0


# --- the fit ------------------------------------------------------------------------


@dataclass(frozen=True)
class Sample:
    """One measured run as the fit reads it."""

    steps: float
    bytes: float
    reduced: float
    time: float  # seconds, measured
    size: float  # bytes per rank: the fit's held-out error leaves out one size at a time


def nnls(a: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    """Non-negative θ minimising |a·θ − b|². With three unknowns the optimum is the
    unconstrained solution on one of the seven supports, so every support is tried: exact."""
    best, best_residual = None, math.inf
    for mask in range(1, 1 << a.shape[1]):
        cols = [j for j in range(a.shape[1]) if mask >> j & 1]
        solved, *_ = np.linalg.lstsq(a[:, cols], b, rcond=None)
        if (solved < 0).any():
            continue
        theta = np.zeros(a.shape[1])
        theta[cols] = solved
        residual = float(((a @ theta - b) ** 2).sum())
        if residual < best_residual - 1e-15 * len(b):
            best, best_residual = theta, residual
    return best


def _log_misfit(x: np.ndarray, y: np.ndarray, theta: np.ndarray) -> float:
    pred = x @ theta
    return math.inf if (pred <= 0).any() else float((np.log(pred / y) ** 2).sum())


def nnls_log(x: np.ndarray, y: np.ndarray, rounds: int = 30,
             start: np.ndarray | None = None) -> np.ndarray | None:
    """Non-negative θ minimising Σ log²(x·θ / y): an error by a factor counts the same over as
    under, and a 1 KiB run as much as a 64 MiB one. (Plain relative least squares, Σ((x·θ − y)/y)²,
    is its start: it errs low on noisy runs, as an overshoot can cost more than an undershoot's
    100%.) Gauss-Newton, each step a non-negative least squares, halved until it helps; from
    `start` when given (a fit of nearly the same runs: a few steps)."""
    theta = start if start is not None else nnls(x / y[:, None], np.ones(len(y)))
    if theta is None:
        return None
    misfit = _log_misfit(x, y, theta)
    for _ in range(rounds):
        pred = x @ theta
        if (pred <= 0).any():
            break
        # log(x·θ') ≈ log(x·θ) + x·(θ' − θ)/(x·θ): linear in θ', which must stay non-negative
        step = nnls(x / pred[:, None], 1 + np.log(y / pred))
        if step is None:
            break
        for _ in range(20):
            if (tried := _log_misfit(x, y, step)) < misfit:
                break
            step = (step + theta) / 2
        else:
            break
        done = misfit - tried < 1e-6 * misfit  # a millionth better: as good as the runs can tell
        theta, misfit = step, tried
        if done:
            break
    return theta


def _usable(samples: list[Sample]) -> bool:
    """Two shapes at least (one cannot separate alpha from beta) and positive times."""
    return len({(s.steps, s.bytes) for s in samples}) >= 2


def relative_errors(params: Params, samples: list[Sample]) -> list[float]:
    return [abs(params.time((s.steps, s.bytes, s.reduced)) - s.time) / s.time for s in samples]


@dataclass(frozen=True)
class Fitted:
    params: Params
    runs: int  # samples the fit used; 0: the defaults stand
    rms_error: float | None  # root-mean-square relative error over those runs
    samples: tuple[Sample, ...] = field(default=(), repr=False)

    @cached_property
    def heldout(self) -> dict | None:
        """Leave one size out: fit without every run of that size, predict them, and report
        the relative errors over all sizes (median and worst)."""
        sizes = sorted({s.size for s in self.samples})
        errors, by_size = [], []
        for size in sizes:
            rest = [s for s in self.samples if s.size != size]
            if not _usable(rest):
                continue
            params = solve(rest, start=self.params, rounds=5).params  # near the whole fit: a few steps
            mine = relative_errors(params, [s for s in self.samples if s.size == size])
            errors += mine
            by_size.append({"size": size, "runs": len(mine), "median": float(np.median(mine)),
                            "worst": max(mine)})
        if not errors:
            return None
        return {"method": "leave one size out", "sizes": len(by_size), "runs": len(errors),
                "median": float(np.median(errors)), "worst": max(errors), "by_size": by_size}

    def to_json(self, heldout: bool = True) -> dict:
        return {**self.params.to_json(), "fitted_from_runs": self.runs, "rms_error": self.rms_error,
                "heldout": self.heldout if heldout else None}


def solve(samples, source: str = "fitted to this cluster's runs", start: Params | None = None,
          rounds: int = 30) -> Fitted:
    """alpha, beta, gamma (non-negative) by least squares on the log of the times (nnls_log); the
    defaults when the runs cannot tell."""
    samples = tuple(s for s in samples if s.time > 0)
    if not _usable(list(samples)):
        return Fitted(DEFAULT, 0, None, samples)
    x = np.array([[s.steps, s.bytes, s.reduced] for s in samples], dtype=float)
    first = None if start is None else np.array([start.alpha, start.beta, start.gamma])
    theta = nnls_log(x, np.array([s.time for s in samples]), rounds, first)
    if theta is None or theta[0] + theta[1] <= 0:
        return Fitted(DEFAULT, 0, None, samples)
    params = Params(*map(float, theta), source=f"{source} ({len(samples)} runs)")
    errors = relative_errors(params, list(samples))
    return Fitted(params, len(samples), float(np.sqrt(np.mean(np.square(errors)))), samples)


@dataclass(frozen=True)
class NativeFit:
    """The backend's own call, timed whole: latency + size·per_byte, fitted (nnls_log) to native
    runs of one collective at one world size."""

    latency: float
    per_byte: float
    runs: int
    rms_error: float

    def time(self, size: float) -> float:
        return self.latency + self.per_byte * size


def fit_native(points: list[tuple[float, float]]) -> NativeFit | None:
    """From (size, seconds) of native runs; None below two sizes."""
    points = [(n, t) for n, t in points if t > 0]
    if len({n for n, _ in points}) < 2:
        return None
    x = np.array([[1.0, n] for n, _ in points])
    y = np.array([t for _, t in points])
    theta = nnls_log(x, y)
    if theta is None:
        return None
    errors = np.abs(x @ theta - y) / y
    return NativeFit(float(theta[0]), float(theta[1]), len(points), float(np.sqrt(np.mean(errors ** 2))))


# --- the picks -----------------------------------------------------------------------


@dataclass(frozen=True)
class Candidate:
    algorithm: str
    chunks: int
    time: float | None  # predicted seconds; None: nothing to predict it from


def best_chunks(collective: str, algorithm: str, p: int, root: int, size: float, itemsize: int,
                params: Params, choices=CHUNK_CHOICES,
                sharing: Sharing = ALONE) -> tuple[int, dict[int, float]]:
    """The chunk count predicted fastest (the fewest on a tie) and every count's time. A count
    that cuts a block into more chunks than it has elements is not tried."""
    count = count_of(collective, size, itemsize, p)
    tried = {}
    for k in choices:
        try:
            pieces = unit_terms(collective, algorithm, p, root, k, sharing)[3]
        except ValueError:  # an algorithm with one chunk only (a barrier's token)
            continue
        if pieces > count and k > 1:
            break
        tried[k] = params.time(terms(collective, algorithm, p, size, itemsize, k, root, sharing))
    best = min(tried, key=lambda k: (tried[k], k))
    return best, tried


@dataclass(frozen=True)
class Choice:
    algorithm: str
    chunks: int
    why: str
    candidates: list[Candidate]


def pick(collective: str, p: int, root: int, size: float, itemsize: int, fitted: Fitted,
         native: NativeFit | None,
         algorithms: list[str], chunks: int | str = 1, sharing: Sharing = ALONE) -> Choice:
    """The algorithm `auto` runs (and its chunks, when `chunks` is AUTO): the schedule predicted
    fastest when it is predicted under margin()'s share of native's time, else native. With no
    stepwise runs fitted, or no native runs of this collective at this P at two sizes, native is
    run and the reason says so (the default parameters' ranking is listed): a guess is not a
    reason to leave the backend's own call."""
    candidates = []
    for algorithm in algorithms:
        if chunks == AUTO:
            k, tried = best_chunks(collective, algorithm, p, root, size, itemsize, fitted.params,
                                   sharing=sharing)
        else:
            shape = terms(collective, algorithm, p, size, itemsize, chunks, root, sharing)
            k, tried = chunks, {chunks: fitted.params.time(shape)}
        candidates.append(Candidate(algorithm, k, tried[k]))
    candidates.sort(key=lambda c: c.time)
    native_time = native.time(size) if native is not None else None
    listed = [Candidate(NATIVE, 1, native_time), *candidates]
    times = "; ".join(f"{c.algorithm}{f' ×{c.chunks} chunks' if c.chunks > 1 else ''} {seconds(c.time)}"
                      for c in listed)
    best = candidates[0] if candidates else None
    if best is None:
        return Choice(NATIVE, 1, f"{collective} has no schedule that runs here: native", listed)
    if fitted.runs == 0:
        return Choice(NATIVE, 1, "native: no stepwise runs fitted yet, so the model cannot rank the "
                                 f"schedules (with {fitted.params.source}: {times})", listed)
    if native_time is None:
        return Choice(NATIVE, 1, f"native: no native {collective} runs at {p} ranks measured at two sizes "
                                 f"yet, so it cannot be compared; predicted: {times}", listed)
    share, because = margin(fitted)
    if best.time < share * native_time:
        return Choice(best.algorithm, best.chunks,
                      f"{best.algorithm}: predicted fastest, under {share:.0%} of native's "
                                                   f"time ({because}; {times})", listed)
    return Choice(NATIVE, 1, f"native: no schedule is predicted under {share:.0%} of native's time "
                             f"({because}; {times})", listed)


def margin(fitted: Fitted) -> tuple[float, str]:
    """The share of native's predicted time a schedule must beat, and why: MARGIN, less the
    model's median error on held-out sizes (its RMS error over its own runs when none is held out)."""
    held = fitted.heldout
    error, what = ((held["median"], "on sizes held out") if held
                   else (fitted.rms_error or 0.0, "RMS over its runs"))
    share = max(0.0, min(MARGIN, 1 - error))
    return share, f"the model errs by {error:.0%} {what}"


def seconds(t: float | None) -> str:
    if t is None:
        return "unknown"
    return f"{t * 1e6:.1f} µs" if t < 1e-3 else f"{t * 1e3:.2f} ms" if t < 1 else f"{t:.3f} s"


def size_words(n: float) -> str:
    """37 KiB, 1.5 MiB, 812 B."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            value = n / scale
            return f"{value:.3g} {unit}"
    return f"{n:.3g} B"


# --- curves and crossovers ---------------------------------------------------------------


def versus_p(collective: str, algorithms: list[str], size: float, itemsize: int, params: Params,
             points=P_POINTS) -> dict[str, list[float | None]]:
    """Predicted seconds at every world size in `points`, per algorithm (None: it cannot run there)."""
    out = {}
    for algorithm in algorithms:
        row = []
        fits = algorithm_of(collective, algorithm).fits
        for p in points:
            if not fits(p):
                row.append(None)
                continue
            try:
                row.append(params.time(terms(collective, algorithm, p, size, itemsize)))
            except (ValueError, ZeroDivisionError):
                row.append(None)
        out[algorithm] = row
    return out


def versus_size(collective: str, algorithms: list[str], p: int, sizes: list[float], itemsize: int,
                params: Params, sharing: Sharing = ALONE) -> dict[str, list[float]]:
    out = {}
    for algorithm in algorithms:
        c0, c1 = line(collective, algorithm, p, params, itemsize, sharing=sharing)
        out[algorithm] = [c0 + c1 * n for n in sizes]
    return out


def crossovers(collective: str, algorithms: list[str], p: int, itemsize: int, params: Params,
               low: float = MIN_SIZE, high: float = MAX_SIZE, sharing: Sharing = ALONE) -> list[dict]:
    """Where the fastest algorithm changes between `low` and `high` bytes: times are lines in the
    size, so the fastest is their lower envelope and each change is one exact crossing."""
    lines = {a: line(collective, a, p, params, itemsize, sharing=sharing) for a in algorithms}
    out, size = [], float(low)
    winner = min(lines, key=lambda a: (lines[a][0] + lines[a][1] * size, a))
    while True:
        c0, c1 = lines[winner]
        later = [((lines[a][0] - c0) / (c1 - lines[a][1]), a) for a in lines
                 if a != winner and lines[a][1] < c1 and (lines[a][0] - c0) / (c1 - lines[a][1]) > size]
        if not later:
            return out
        at, nxt = min(later)
        if at > high:
            return out
        out.append({"size": at, "below": winner, "above": nxt,
                    "text": f"{winner} beats {nxt} below {size_words(at)} at P={p}"})
        winner, size = nxt, at
