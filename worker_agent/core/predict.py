"""Predict and pick: the alpha-beta-gamma model at any world size and message size,
fitted to a cluster's runs or taken from a named preset, and the choices `auto` makes.

A schedule's time is steps·α + bytes·β + reduced·γ, the three terms read from the
schedule itself (simulate.cost), on the cluster's ranks as they share cores (simulate.Sharing:
none at scales a cluster cannot run, where every rank is taken to have its own). Reading them at P=1024 means
building a schedule of two million transfers, so they are read once per shape with every chunk one byte
(`unit_terms`, cached) and scaled to the message: exact whenever the count is a multiple
of the schedule's pieces, within one element per chunk otherwise. So a time is a line in
the message size, t(n) = c0 + c1·n, for one way of running a schedule (its chunk count, and under
a preset its NCCL protocol); a curve takes the fastest way at each size, the lower envelope of
those lines. A preset has two levels (simulate.Levels): a step that crosses nodes costs the
network's α, and each level's bytes its own β.

No torch here: the server, `ringside bench` and the tests share it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from functools import cached_property, lru_cache
from typing import NamedTuple, TypedDict

import numpy as np

from .algorithms import NATIVE, algorithm_of, algorithms, build
from .collectives import get
from .protocol import AUTO_CHUNKS, RunSpec
from .schedule import Schedule
from .simulate import ALONE, Levels, Sharing, cost, levels

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

    def lines(
        self,
        collective: str,
        algorithm: str,
        p: int,
        itemsize: int,
        chunks: int = 1,
        sharing: Sharing = ALONE,
    ) -> tuple[int, list[tuple[str | None, float, float]]]:
        """(pieces, [(protocol, c0, c1)]): no protocols here, one line in the size."""
        pieces = unit_terms(collective, algorithm, p, 0, chunks, sharing)[3]
        return pieces, [(None, *line(collective, algorithm, p, self, itemsize, chunks, sharing))]

    def to_json(self) -> dict[str, object]:
        return asdict(self)


# NCCL's protocols, in the order of its tables (src/graph/tuning.cc: LL, LL128, Simple), and the share
# of a link's bandwidth each carries there: a ring's LL busBw × 0.5 (half of every 8 bytes is a flag),
# LL128's × 0.92 (120 of 128 bytes are data), Simple's whole.
PROTOCOLS = ("LL", "LL128", "Simple")
PROTOCOL_BANDWIDTH = (0.5, 0.92, 1.0)
NCCL_VERSION = "2.30.7"  # the release the presets' latencies are read from (src/graph/tuning.cc)


@dataclass(frozen=True)
class Level:
    """One level of a preset's topology: inside a node, or between nodes."""

    alpha: tuple[float, float, float]  # seconds per step, per protocol (PROTOCOLS' order)
    beta: float  # seconds per byte out of (or into) one rank at this level, with Simple
    link: str  # what the level is, in words

    def to_json(self) -> dict[str, object]:
        return {"alpha": dict(zip(PROTOCOLS, self.alpha)), "beta": self.beta, "link": self.link}


@dataclass(frozen=True)
class Preset:
    """A named cluster: ranks `per_node` to a node, each level with its own alpha (per NCCL protocol)
    and beta, NCCL's per-call latency, gamma; every number with the document it comes from. A schedule's
    time under it is its time with the protocol NCCL would pick for it: the fastest of the three."""

    name: str
    per_node: int  # ranks per node (a query may set another)
    base: tuple[float, float, float]  # seconds per call, per protocol (NCCL's baseLat for a ring)
    inside: Level
    between: Level
    gamma: float  # seconds per byte reduced on the busiest reducer
    source: str
    nccl: str = NCCL_VERSION

    def lines(
        self,
        collective: str,
        algorithm: str,
        p: int,
        itemsize: int,
        chunks: int = 1,
        sharing: Sharing = ALONE,
    ) -> tuple[int, list[tuple[str | None, float, float]]]:
        """(pieces, [(protocol, c0, c1)] per protocol): the time is c0 + c1·size (ranks never share
        cores here)."""
        per_step = level_terms(collective, algorithm, p, min(self.per_node, p), 0, chunks)
        at0, at1 = (chunk_bytes(collective, n, itemsize, p, per_step.pieces) for n in (0, 1))
        out: list[tuple[str | None, float, float]] = []
        for i, protocol in enumerate(PROTOCOLS):
            share = PROTOCOL_BANDWIDTH[i]
            latency, per_byte = per_step.levels.time(
                self.inside.alpha[i],
                self.between.alpha[i],
                self.inside.beta / share,
                self.between.beta / share,
                self.gamma,
            )
            out.append((protocol, self.base[i] + latency + per_byte * at0, per_byte * (at1 - at0)))
        return per_step.pieces, out

    def params(self, protocol: str = "Simple") -> Params:
        """The one-level model of ranks on nodes of their own: the network's alpha and beta."""
        i = PROTOCOLS.index(protocol)
        return Params(
            self.between.alpha[i],
            self.between.beta / PROTOCOL_BANDWIDTH[i],
            self.gamma,
            f"{self.name}, between nodes, {protocol}: {self.source}",
        )

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "nccl": self.nccl,
            "per_node": self.per_node,
            "base": dict(zip(PROTOCOLS, self.base)),
            "inside": self.inside.to_json(),
            "between": self.between.to_json(),
            "gamma": self.gamma,
            "source": self.source,
            "protocol_bandwidth": dict(zip(PROTOCOLS, PROTOCOL_BANDWIDTH)),
        }


US = 1e-6
# NCCL 2.30.7, src/graph/tuning.cc, ncclTunerConstantsDefaults (µs, LL / LL128 / Simple):
#   baseLatencies[Ring] = 6.6 / 14.0 / 8.4, once per call;
#   hwLatencies[NVLINK][Ring] = 0.6 / 1.9 / 3.4, [PCI][Ring] = 1.0 / 2.5 / 5.7, [NET][Ring] = 2.7 / 4.0 / 14.0
#   per ring step (NCCL 2.7 to 2.17 had 9.6 for Simple on the network, 2.18 on 14.0).
RING_BASE = (6.6 * US, 14.0 * US, 8.4 * US)
NVLINK = (0.6 * US, 1.9 * US, 3.4 * US)
PCI = (1.0 * US, 2.5 * US, 5.7 * US)
NET = (2.7 * US, 4.0 * US, 14.0 * US)
TUNING = f"NCCL {NCCL_VERSION} src/graph/tuning.cc"
A100_HBM = 3 / 1555e9  # A100 datasheet: HBM2 1,555 GB/s; a reduction reads two bytes and writes one

PRESETS = {
    # NVIDIA DGX A100 nodes: eight A100 GPUs on NVLink 3 (A100 datasheet: 600 GB/s per GPU, both ways
    # counted, so 300 GB/s out of one), a 200 Gb/s HDR InfiniBand NIC per GPU between nodes (DGX A100
    # datasheet: 8 single-port ConnectX-6), 25 GB/s each way.
    "nvlink-a100-8gpu": Preset(
        "nvlink-a100-8gpu",
        8,
        RING_BASE,
        Level(NVLINK, 1 / 300e9, "NVLink 3, 300 GB/s each way"),
        Level(NET, 8 / 200e9, "HDR InfiniBand, 200 Gb/s per GPU"),
        A100_HBM,
        f"{TUNING}: baseLat ring, hwLat NVLink ring (inside a node) and network ring (between nodes) "
        "per protocol; A100 datasheet: NVLink 600 GB/s (300 GB/s each way), HBM2 1,555 GB/s (3 bytes "
        "moved per byte reduced); DGX A100 datasheet: a 200 Gb/s HDR NIC per GPU",
    ),
    # One rank per host on a 100 Gb/s network (IEEE 802.3ba-2010 100 Gb/s Ethernet, or InfiniBand EDR:
    # 12.5 GB/s each way); ranks that share a host (per_node > 1) talk over PCIe 4.0 x16 (PCI Express
    # Base Specification 4.0: 16 GT/s a lane, 128b/130b: 31.5 GB/s each way).
    "net-100gbps": Preset(
        "net-100gbps",
        1,
        RING_BASE,
        Level(PCI, 130 / (16e9 * 16 * 128 / 8), "PCIe 4.0 x16, 31.5 GB/s each way"),
        Level(NET, 8 / 100e9, "100 Gb/s Ethernet or EDR InfiniBand"),
        A100_HBM,
        f"{TUNING}: baseLat ring, hwLat network ring (between hosts) and PCI ring (inside one) per "
        "protocol; IEEE 802.3ba 100 Gb/s line rate (12.5 GB/s); PCIe 4.0 x16 (31.5 GB/s); A100 HBM2 "
        "1,555 GB/s for the reduction",
    ),
}
# Until a cluster has measured runs: a loopback-ish guess (no document; said so).
DEFAULT = Params(
    50e-6, 1e-9, 0.25e-9, "default guess (50 us a step, 1 GB/s, 4 GB/s reduced): no runs fitted yet"
)


# --- the terms, from the schedule ----------------------------------------------


def left_to_model(spec: RunSpec) -> list[str]:
    """The fields of a RunSpec that it leaves to the model when the run is submitted: its algorithm
    (auto, whose record the model chooses another in place of) and its chunks (AUTO_CHUNKS), both
    or none."""
    record = algorithm_of(spec.collective, spec.algorithm, None)
    chosen = {"algorithm": record is not None and record.chosen, "chunks": spec.chunks == AUTO_CHUNKS}
    return [name for name, left in chosen.items() if left]


def stepwise(collective: str, p: int | None = None) -> list[str]:
    """The algorithms of a collective whose schedules are built from a run's shape: what the model
    predicts; with `p`, only those that run on `p` ranks (an MSCCL file is written for one size)."""
    return [a.name for a in algorithms(collective) if a.built and (p is None or a.fits(p))]


@lru_cache(maxsize=1)  # one shape's terms are read from one build (transfers_of, unit_terms, level_terms)
def _schedule(collective: str, algorithm: str, p: int, root: int, chunks: int) -> Schedule:
    """A built-in schedule is built without the race check (the tests check every one); a user's is
    checked."""
    record = algorithm_of(collective, algorithm)
    return build(collective, algorithm, p, root, chunks) if record.user else record.schedule(p, root, chunks)


@lru_cache(maxsize=4096)
def unit_terms(
    collective: str, algorithm: str, p: int, root: int = 0, chunks: int = 1, sharing: Sharing = ALONE
) -> tuple[float, float, float, int]:
    """(steps, bytes, reduced, pieces) of the schedule with every chunk one byte, on ranks that
    share cores as `sharing` says."""
    schedule = _schedule(collective, algorithm, p, root, chunks)
    terms = cost(schedule, schedule.pieces, 1, sharing)
    return terms.steps, terms.bytes, terms.reduced, schedule.pieces


class LevelTerms(NamedTuple):
    levels: Levels  # per step, with every chunk one byte
    pieces: int


@lru_cache(maxsize=1024)
def level_terms(
    collective: str, algorithm: str, p: int, per_node: int, root: int = 0, chunks: int = 1
) -> LevelTerms:
    """The schedule's terms on nodes of `per_node` ranks (simulate.levels), every chunk one byte."""
    schedule = _schedule(collective, algorithm, p, root, chunks)
    return LevelTerms(levels(schedule, schedule.pieces, 1, per_node), schedule.pieces)


@lru_cache(maxsize=4096)
def transfers_of(collective: str, algorithm: str, p: int) -> int:
    """Transfers in the schedule uncut: a cut into k chunks has about k times as many."""
    return sum(len(step.table) for step in _schedule(collective, algorithm, p, 0, 1).steps)


def chunk_bytes(collective: str, size: float, itemsize: int, p: int, pieces: int) -> float:
    """Bytes in one chunk of a message of `size` bytes per rank cut into `pieces` a block (1: a
    collective without a payload moves tokens, counted one byte each)."""
    return count_of(collective, size, itemsize, p) / pieces * itemsize if get(collective).payload else 1


def forget() -> None:
    """Empty the caches of schedules' terms (a test that registers an algorithm and takes it away)."""
    for cached in (_schedule, unit_terms, level_terms, transfers_of, options):
        cached.cache_clear()


def count_of(collective: str, size: float, itemsize: int, p: int) -> float:
    """Elements per block for a message of `size` bytes per rank, as nccl-tests count it
    (all_gather's n is everything a rank ends with: P blocks)."""
    return size / get(collective).message_bytes(1, itemsize, p)


def terms(
    collective: str,
    algorithm: str,
    p: int,
    size: float,
    itemsize: int,
    chunks: int = 1,
    root: int = 0,
    sharing: Sharing = ALONE,
) -> tuple[float, float, float]:
    """(steps, bytes, reduced) for a message of `size` bytes per rank."""
    steps, nbytes, reduced, pieces = unit_terms(collective, algorithm, p, root, chunks, sharing)
    per_chunk = chunk_bytes(collective, size, itemsize, p, pieces)
    return steps, nbytes * per_chunk, reduced * per_chunk


def line(
    collective: str,
    algorithm: str,
    p: int,
    params: Params,
    itemsize: int = 4,
    chunks: int = 1,
    sharing: Sharing = ALONE,
) -> tuple[float, float]:
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


def nnls_log(
    x: np.ndarray, y: np.ndarray, rounds: int = 30, start: np.ndarray | None = None
) -> np.ndarray | None:
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


class SizeError(TypedDict):
    size: float
    runs: int
    median: float
    worst: float


class Heldout(TypedDict):
    """A fit's relative errors on sizes it was not fitted to (Fitted.heldout)."""

    method: str
    sizes: int
    runs: int
    median: float
    worst: float
    by_size: list[SizeError]


@dataclass(frozen=True)
class Fitted:
    params: Params
    runs: int  # samples the fit used; 0: the defaults stand
    rms_error: float | None  # root-mean-square relative error over those runs
    samples: tuple[Sample, ...] = field(default=(), repr=False)

    @cached_property
    def heldout(self) -> Heldout | None:
        """Leave one size out: fit without every run of that size, predict them, and report
        the relative errors over all sizes (median and worst)."""
        sizes = sorted({s.size for s in self.samples})
        errors: list[float] = []
        by_size: list[SizeError] = []
        for size in sizes:
            rest = [s for s in self.samples if s.size != size]
            if not _usable(rest):
                continue
            params = solve(rest, start=self.params, rounds=5).params  # near the whole fit: a few steps
            mine = relative_errors(params, [s for s in self.samples if s.size == size])
            errors += mine
            by_size.append(
                {"size": size, "runs": len(mine), "median": float(np.median(mine)), "worst": max(mine)}
            )
        if not errors:
            return None
        return {
            "method": "leave one size out",
            "sizes": len(by_size),
            "runs": len(errors),
            "median": float(np.median(errors)),
            "worst": max(errors),
            "by_size": by_size,
        }

    def to_json(self, heldout: bool = True) -> dict[str, object]:
        return {
            **self.params.to_json(),
            "fitted_from_runs": self.runs,
            "rms_error": self.rms_error,
            "heldout": self.heldout if heldout else None,
        }


def solve(
    samples: Iterable[Sample],
    source: str = "fitted to this cluster's runs",
    start: Params | None = None,
    rounds: int = 30,
) -> Fitted:
    """alpha, beta, gamma (non-negative) by least squares on the log of the times (nnls_log); the
    defaults when the runs cannot tell."""
    timed = tuple(s for s in samples if s.time > 0)
    if not _usable(list(timed)):
        return Fitted(DEFAULT, 0, None, timed)
    x = np.array([[s.steps, s.bytes, s.reduced] for s in timed], dtype=float)
    first = None if start is None else np.array([start.alpha, start.beta, start.gamma])
    theta = nnls_log(x, np.array([s.time for s in timed]), rounds, first)
    if theta is None or theta[0] + theta[1] <= 0:
        return Fitted(DEFAULT, 0, None, timed)
    alpha, beta, gamma = map(float, theta)
    params = Params(alpha, beta, gamma, source=f"{source} ({len(timed)} runs)")
    errors = relative_errors(params, list(timed))
    return Fitted(params, len(timed), float(np.sqrt(np.mean(np.square(errors)))), timed)


@dataclass(frozen=True)
class NativeFit:
    """The backend's own call, timed whole: latency + size·per_byte, fitted (nnls_log) to native
    runs of one collective at one world size."""

    latency: float
    per_byte: float
    runs: int
    rms_error: float
    points: tuple[tuple[float, float], ...] = ()  # the (size, seconds) it was fitted to

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
    return NativeFit(
        float(theta[0]), float(theta[1]), len(points), float(np.sqrt(np.mean(errors**2))), tuple(points)
    )


# --- the picks -----------------------------------------------------------------------


@dataclass(frozen=True)
class Candidate:
    algorithm: str
    chunks: int
    time: float | None  # predicted seconds; None: nothing to predict it from


def best_chunks(
    collective: str,
    algorithm: str,
    p: int,
    root: int,
    size: float,
    itemsize: int,
    params: Params,
    choices: Iterable[int] = CHUNK_CHOICES,
    sharing: Sharing = ALONE,
) -> tuple[int, dict[int, float]]:
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


def pick(
    collective: str,
    p: int,
    root: int,
    size: float,
    itemsize: int,
    fitted: Fitted,
    native: NativeFit | None,
    algorithms: list[str],
    chunks: int | str = 1,
    sharing: Sharing = ALONE,
) -> Choice:
    """The algorithm `auto` runs (and its chunks, when `chunks` is AUTO_CHUNKS): the schedule predicted
    fastest when it is predicted under margin()'s share of native's time, else native. With no
    stepwise runs fitted, or no native runs of this collective at this P at two sizes, native is
    run and the reason says so (the default parameters' ranking is listed): a guess is not a
    reason to leave the backend's own call."""
    timed: list[tuple[float, Candidate]] = []
    for algorithm in algorithms:
        if chunks == AUTO_CHUNKS:
            k, tried = best_chunks(
                collective, algorithm, p, root, size, itemsize, fitted.params, sharing=sharing
            )
        elif isinstance(chunks, int):
            shape = terms(collective, algorithm, p, size, itemsize, chunks, root, sharing)
            k, tried = chunks, {chunks: fitted.params.time(shape)}
        else:
            raise ValueError(f"chunks must be a whole number or {AUTO_CHUNKS!r}, not {chunks!r}")
        timed.append((tried[k], Candidate(algorithm, k, tried[k])))
    timed.sort(key=lambda tc: tc[0])
    candidates = [c for _, c in timed]
    native_time = native.time(size) if native is not None else None
    listed = [Candidate(NATIVE, 1, native_time), *candidates]
    times = "; ".join(
        f"{c.algorithm}{f' ×{c.chunks} chunks' if c.chunks > 1 else ''} {seconds(c.time)}" for c in listed
    )
    best, best_time = (timed[0][1], timed[0][0]) if timed else (None, 0.0)
    if best is None:
        return Choice(NATIVE, 1, f"{collective} has no schedule that runs here: native", listed)
    if fitted.runs == 0:
        return Choice(
            NATIVE,
            1,
            "native: no stepwise runs fitted yet, so the model cannot rank the "
            f"schedules (with {fitted.params.source}: {times})",
            listed,
        )
    if native_time is None:
        return Choice(
            NATIVE,
            1,
            f"native: no native {collective} runs at {p} ranks measured at two sizes "
            f"yet, so it cannot be compared; predicted: {times}",
            listed,
        )
    share, because = margin(fitted)
    if best_time < share * native_time:
        choice = Choice(
            best.algorithm,
            best.chunks,
            f"{best.algorithm}: predicted fastest, under {share:.0%} of native's time ({because}; {times})",
            listed,
        )
    else:
        choice = Choice(
            NATIVE,
            1,
            f"native: no schedule is predicted under {share:.0%} of native's time ({because}; {times})",
            listed,
        )
    return measured_check(choice, collective, p, root, size, itemsize, fitted, native, sharing)


def measured_here(
    collective: str,
    p: int,
    root: int,
    size: float,
    itemsize: int,
    fitted: Fitted,
    native: NativeFit | None,
    candidates: list[Candidate],
    sharing: Sharing = ALONE,
) -> dict[tuple[str, int], float]:
    """The median measured time at this size of every candidate measured there, by (algorithm, chunks):
    native's from its line's runs; a schedule's from the fitted runs of its very terms at this size
    (within a thousandth: a count that does not divide into its chunks is read within an element per
    chunk; the model cannot tell two runs of the same terms apart, so neither can this)."""
    out = {}
    if native is not None and (times := [t for n, t in native.points if n == size]):
        out[(NATIVE, 1)] = float(np.median(times))
    for c in candidates:
        if algorithm_of(collective, c.algorithm).reference:  # measured above, from its own line
            continue
        mine = np.array(terms(collective, c.algorithm, p, size, itemsize, c.chunks, root, sharing))
        times = [
            s.time
            for s in fitted.samples
            if s.size == size and np.allclose((s.steps, s.bytes, s.reduced), mine, rtol=1e-3)
        ]
        if times:
            out[(c.algorithm, c.chunks)] = float(np.median(times))
    return out


def measured_check(
    choice: Choice,
    collective: str,
    p: int,
    root: int,
    size: float,
    itemsize: int,
    fitted: Fitted,
    native: NativeFit | None,
    sharing: Sharing = ALONE,
) -> Choice:
    """The model's choice, unless it was measured at this very size slower than another candidate: then
    the one measured fastest. A measurement beats a prediction: auto never runs what measured slower."""
    measured = measured_here(collective, p, root, size, itemsize, fitted, native, choice.candidates, sharing)
    mine = measured.get((choice.algorithm, choice.chunks))
    if mine is None:
        return choice
    # a tie goes to the backend's own call
    reference = {name: algorithm_of(collective, name).reference for name, _ in measured}
    (algorithm, chunks), least = min(measured.items(), key=lambda kv: (kv[1], not reference[kv[0][0]]))
    if least >= mine:
        return choice
    listed = "; ".join(
        f"{a}{f' ×{k} chunks' if k > 1 else ''} {seconds(t)}" for (a, k), t in measured.items()
    )
    return Choice(
        algorithm,
        chunks,
        f"{algorithm}: measured fastest at {size_words(size)} ({listed}), "
        f"where the model ranked {choice.algorithm} first",
        choice.candidates,
    )


def margin(fitted: Fitted) -> tuple[float, str]:
    """The share of native's predicted time a schedule must beat, and why: MARGIN, less the
    model's median error on held-out sizes (its RMS error over its own runs when none is held out)."""
    held = fitted.heldout
    error, what = (
        (held["median"], "on sizes held out") if held else (fitted.rms_error or 0.0, "RMS over its runs")
    )
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
# A curve runs every schedule as a run would be cut to run it fastest: pipelined into the chunk count
# (of CURVE_CHUNKS: every other of `chunks: auto`'s, as a curve builds them at every P) predicted best
# at each size, and under a preset with the NCCL protocol predicted best (as NCCL picks one,
# src/enqueue.cc: the least predicted time). The counts a curve tries stop where the schedule would
# pass PIPELINE_CAP transfers (a P=1024 ring is cut less).
CURVE_CHUNKS = CHUNK_CHOICES[::2]
PIPELINE_CAP = 1 << 16
Model = Params | Preset
# the schedules NCCL's own algorithms are (tuning.cc: broadcast, reduce_scatter and all_gather run
# rings; all_reduce a ring or a tree), by the names of this catalog's schedules of them
NCCL_ALGORITHMS = {
    "all_reduce": ("ring", "tree"),
    "broadcast": ("ring",),
    "all_gather": ("ring",),
    "reduce_scatter": ("ring",),
}


@dataclass(frozen=True)
class Option:
    """One way to run an algorithm: cut into `chunks`, with a protocol under a preset; its time is
    c0 + c1·size from `smallest` bytes per rank up (below, a block has fewer elements than chunks)."""

    algorithm: str
    chunks: int
    protocol: str | None
    c0: float
    c1: float
    smallest: float

    def time(self, size: float) -> float:
        return self.c0 + self.c1 * size

    def to_json(self) -> dict[str, object]:
        return {"algorithm": self.algorithm, "chunks": self.chunks, "protocol": self.protocol}


@lru_cache(maxsize=4096)
def options(
    collective: str, algorithm: str, p: int, model: Model, itemsize: int = 4, sharing: Sharing = ALONE
) -> tuple[Option, ...]:
    """Every chunk count (and protocol) a curve tries for `algorithm` at P."""
    out, uncut, element = [], transfers_of(collective, algorithm, p), count_of(collective, 1, itemsize, p)
    for k in CURVE_CHUNKS:
        if k > 1 and uncut * k > PIPELINE_CAP:
            break
        try:
            pieces, lines = model.lines(collective, algorithm, p, itemsize, k, sharing)
        except ValueError:  # an algorithm with one chunk only (a barrier's token)
            continue
        smallest = 0.0 if k == 1 else pieces / element  # bytes per rank that give every chunk an element
        out += [Option(algorithm, k, protocol, c0, c1, smallest) for protocol, c0, c1 in lines]
    _schedule.cache_clear()  # its terms are kept; the schedule (millions of transfers at P=1024) is not
    return tuple(out)


def fastest(ways: Iterable[Option], size: float, tie: float = 1e-9) -> Option:
    """The option of least time at `size` among those that run there; of options within `tie` of
    it, the one that stays fastest above (least c1), then the fewest chunks."""
    valid = [o for o in ways if o.smallest <= size]
    least = min(o.time(size) for o in valid)
    return min((o for o in valid if o.time(size) <= least * (1 + tie)), key=lambda o: (o.c1, o.chunks))


def curve(
    collective: str,
    algorithm: str,
    p: int,
    sizes: list[float],
    itemsize: int,
    model: Model,
    sharing: Sharing = ALONE,
) -> list[Option]:
    ways = options(collective, algorithm, p, model, itemsize, sharing)
    return [fastest(ways, n) for n in sizes]


def versus_size(
    collective: str,
    algorithms: list[str],
    p: int,
    sizes: list[float],
    itemsize: int,
    model: Model,
    sharing: Sharing = ALONE,
) -> dict[str, list[float]]:
    """Predicted seconds at every size, per algorithm, each cut as it runs fastest (curve)."""
    return {
        a: [o.time(n) for o, n in zip(curve(collective, a, p, sizes, itemsize, model, sharing), sizes)]
        for a in algorithms
    }


def versus_p(
    collective: str,
    algorithms: list[str],
    size: float,
    itemsize: int,
    model: Model,
    points: Sequence[int] = P_POINTS,
) -> dict[str, list[float | None]]:
    """Predicted seconds at every world size in `points`, per algorithm (None: it cannot run there)."""
    out = {}
    for algorithm in algorithms:
        row: list[float | None] = []
        fits = algorithm_of(collective, algorithm).fits
        for p in points:
            if not fits(p):
                row.append(None)
                continue
            try:
                row.append(fastest(options(collective, algorithm, p, model, itemsize), size).time(size))
            except (ValueError, ZeroDivisionError):
                row.append(None)
        out[algorithm] = row
    return out


def nccl_native(
    collective: str, p: int, sizes: list[float], itemsize: int, preset: Preset
) -> list[Option] | None:
    """What NCCL would run at each size under `preset`: of its algorithms for the collective, as this
    catalog's schedules model them, and its protocols, the least predicted time (as NCCL chooses,
    src/enqueue.cc); None for a collective NCCL runs with no schedule here."""
    names = [a for a in NCCL_ALGORITHMS.get(collective, ()) if a in stepwise(collective, p)]
    if not names:
        return None
    ways = [o for a in names for o in options(collective, a, p, preset, itemsize)]
    return [fastest(ways, n) for n in sizes]


class Crossover(TypedDict):
    size: float  # bytes per rank
    below: str  # the fastest algorithm below it
    above: str  # and above
    text: str  # in words


def crossovers(
    collective: str,
    algorithms: list[str],
    p: int,
    itemsize: int,
    model: Model,
    low: float = MIN_SIZE,
    high: float = MAX_SIZE,
    sharing: Sharing = ALONE,
) -> list[Crossover]:
    """Where the fastest algorithm changes between `low` and `high` bytes. Every option's time is a line
    in the size from the size where it can run, so the fastest is their lower envelope: walked from
    crossing to crossing (and from each size where another option starts), exact."""
    ways = [o for a in algorithms for o in options(collective, a, p, model, itemsize, sharing)]
    out: list[Crossover] = []
    size = float(low)
    winner = fastest(ways, size)
    while True:
        events = [o.smallest for o in ways if o.smallest > size]
        events += [
            at
            for o in ways
            if o.c1 < winner.c1
            and o.smallest <= size
            and (at := (o.c0 - winner.c0) / (winner.c1 - o.c1)) > size
        ]
        if not events or min(events) > high:
            return out
        size = min(events)
        nxt = fastest(ways, size)
        if nxt.algorithm != winner.algorithm:
            text = f"{winner.algorithm} beats {nxt.algorithm} below {size_words(size)} at P={p}"
            out.append({"size": size, "below": winner.algorithm, "above": nxt.algorithm, "text": text})
        winner = nxt
