"""The cluster's cost model: alpha, beta and gamma fitted to its stepwise runs, a line per
(collective, world size) fitted to its native runs, the prediction every finished run
gets, and the resolution of `auto` (algorithm and chunks) when a run is submitted.
The model itself (terms read from the schedule, the fit, the picks) is worker_agent/core/predict.py.

What one request may cost is bounded: a prediction builds and simulates the schedule
for the asked shape, so world_size² × chunks is capped (MAX_SHAPE: a quarter of a million
transfers at most; ~50 MB and ~0.25 s for the costliest), and at most BUILDS predictions
build at once, so many requests queue rather than add up. The fit itself is kept: one small row per
finished run, refitted on the event loop as each run ends (500 rows: milliseconds; the held-out
error, tens of milliseconds, only when asked for: by /api/model, or by `auto` at submit)."""

from __future__ import annotations

import math
import threading
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import asdict
from typing import NamedTuple

from pydantic import BaseModel, Field
from starlette.requests import HTTPConnection

from ringside.server.runs.run import Run
from ringside.worker_agent.core import predict as pm
from ringside.worker_agent.core.algorithms import NATIVE, algorithm_of, build
from ringside.worker_agent.core.collectives import get
from ringside.worker_agent.core.protocol import Collective, DType, RunSpec
from ringside.worker_agent.core.run_shape import group_of
from ringside.worker_agent.core.simulate import ALONE, Cost, Sharing, cost, traffic
from ringside.worker_agent.core.validation import SpecError, check_servers, validate
from ringside.worker_agent.core.vocabulary import ITEMSIZE

FIT_WINDOW = 500  # stepwise runs the fit reads, newest first (and as many native runs for the native lines)
# Every built-in schedule has at most 2·P²·chunks transfers (ring all-reduce's 2(P-1)·P·chunks);
# at this cap that is about 260 k transfers. The costliest shape it lets through (all_to_all over
# 362 ranks) takes ~0.25 s and ~50 MB to build, check and simulate on one laptop core.
MAX_SHAPE = 1 << 17
# shapes up to this use algorithms.build's cache; a larger one is built, used and let go
CACHED_SHAPE = 1 << 12
# predictions that build at once: memory stays bounded however many ask
BUILDS = threading.BoundedSemaphore(2)


class Row(NamedTuple):
    """One run that ended done, as the model keeps it (the store's `figures` row)."""

    collective: str
    algorithm: str
    ranks: int
    size: int  # bytes per rank, as nccl-tests count them
    steps: float | None  # the schedule's cost terms (simulate.Cost); None for native
    bytes: float | None
    reduced: float | None
    time: float  # measured seconds

    def terms(self) -> tuple[float, float, float] | None:
        """A stepwise run's cost terms; None for a native run's (it has none)."""
        if self.steps is None or self.bytes is None or self.reduced is None:
            return None
        return self.steps, self.bytes, self.reduced

    def sample(self) -> pm.Sample | None:
        """What the fit reads of a stepwise run; None for a native one."""
        terms = self.terms()
        return None if terms is None else pm.Sample(*terms, self.time, self.size)


class ModelQuery(BaseModel):
    collective: Collective
    algorithm: str
    world_size: int = Field(4, ge=1, le=1024)
    count: int = Field(1024, ge=1, le=1 << 28)
    dtype: DType = "float32"
    chunks: int = Field(1, ge=1, le=1024)
    root: int = Field(0, ge=0)
    servers: int | None = Field(
        None, ge=1, le=1023, description="parameter_server: ranks that hold a shard (default 1)"
    )
    alpha: float | None = Field(
        None, ge=0, le=3600, allow_inf_nan=False, description="seconds per step; fitted when omitted"
    )
    beta: float | None = Field(
        None, ge=0, le=1, allow_inf_nan=False, description="seconds per byte; fitted when omitted"
    )
    gamma: float | None = Field(
        None,
        ge=0,
        le=1,
        allow_inf_nan=False,
        description="seconds per byte reduced; when omitted, fitted, or 0 if alpha or beta is given",
    )


def features(collective: str, algorithm: str, p: int, root: int, chunks: int, count: int, itemsize: int):
    """(steps, bytes on the busiest rank summed over steps) for one run's shape."""
    terms = cost(build(collective, algorithm, p, root, chunks), count, itemsize)
    return terms.steps, terms.bytes


def _measured(run: Run) -> bool:
    """A time the model may learn from: a real one, of a run nobody slowed down on purpose."""
    return run.time is not None and 0 < run.time < math.inf and run.spec.perturb is None


def row_of(run: Run) -> Row | None:
    """The model's row for a run that ended done, read from its own schedule (a custom one
    too; None for a native run's terms); None without a sensible measured time."""
    seconds = run.time
    if seconds is None or not _measured(run):
        return None
    collective = get(run.spec.collective)
    count, itemsize, p = collective.count(run.spec), ITEMSIZE[collective.dtype(run.spec)], len(run.group)
    size = collective.message_bytes(count, itemsize, p)
    schedule = run.stepwise()
    if schedule is None:
        return Row(run.spec.collective, run.spec.algorithm, p, size, None, None, None, seconds)
    terms = cost(schedule, count, itemsize, Sharing.from_json(run.sharing))
    return Row(
        run.spec.collective, run.spec.algorithm, p, size, terms.steps, terms.bytes, terms.reduced, seconds
    )


def solve(rows: Iterable) -> tuple[float, float, int]:
    """(alpha, beta, rows used) of the fit over stepwise rows; the defaults when the rows cannot tell."""
    fitted = pm.solve(s for r in rows if (s := r.sample()) is not None)
    return fitted.params.alpha, fitted.params.beta, fitted.runs


def fit(runs: list[Run]) -> tuple[float, float, int]:
    return solve(filter(None, map(row_of, runs)))


class Fit:
    """The fits over the last FIT_WINDOW rows, redone when a row is added (on the event loop).
    Each is replaced whole, so a request in the threadpool reads a consistent one."""

    def __init__(self, rows: Iterable[Row] = ()):
        self.stepwise: deque[Row] = deque(maxlen=FIT_WINDOW)
        self.natives: deque[Row] = deque(maxlen=FIT_WINDOW)
        for r in rows:  # the store gives plain tuples
            self._keep(Row(*r))
        self._refit()

    def add(self, row: Row) -> None:
        self._keep(row)
        self._refit()

    def _keep(self, row: Row) -> None:
        """A row without a schedule's terms is a native run's (row_of)."""
        (self.stepwise if row.steps is not None else self.natives).append(row)

    def _refit(self) -> None:
        self.model = pm.solve(s for r in self.stepwise if (s := r.sample()) is not None)
        points: dict[tuple[str, int], list[tuple[float, float]]] = {}
        for r in self.natives:
            points.setdefault((r.collective, r.ranks), []).append((r.size, r.time))
        self.native = {key: f for key, pts in points.items() if (f := pm.fit_native(pts)) is not None}

    def to_json(self) -> dict:
        """The fit, its error over its own runs and on sizes held out of it, and the native lines."""
        return {
            **self.model.to_json(),
            "native": [
                {
                    "collective": c,
                    "ranks": p,
                    "latency": f.latency,
                    "per_byte": f.per_byte,
                    "runs": f.runs,
                    "rms_error": f.rms_error,
                }
                for (c, p), f in sorted(self.native.items())
            ],
        }


def sharing_at(placement: Sequence[tuple[str, int]], p: int) -> Sharing:
    """How ranks share cores in a prediction at `p` ranks: as this cluster's do at its own world
    size; at any other, a scale it does not run, every rank has a core of its own."""
    return Sharing.of(list(placement)) if p == len(placement) else ALONE


def prediction_of(row: Row, fitted: Fit) -> dict:
    """What the model predicted for a run that has just ended done (its row_of), before its row
    joins the fit: from alpha, beta and gamma for a schedule, from the native line for native."""
    terms = row.terms()
    if terms is None:
        line = fitted.native.get((row.collective, row.ranks))
        if line is None:
            return {
                "time": None,
                "source": f"no native {row.collective} runs at {row.ranks} ranks at two sizes yet",
            }
        seconds, source = line.time(row.size), f"native line fitted to {line.runs} runs"
    else:
        if fitted.model.runs == 0:
            return {"time": None, "source": "no stepwise runs fitted yet"}
        seconds, source = fitted.model.params.time(terms), fitted.model.params.source
    return {"time": seconds, "measured": row.time, "error": (seconds - row.time) / row.time, "source": source}


def predict(q: ModelQuery, fitted: tuple | pm.Fitted, sharing: Sharing = ALONE) -> dict:
    """The model's answer for one run's shape, on ranks that share cores as `sharing` says.
    `fitted` is a Fitted, or (alpha, beta, runs)."""
    stepwise = pm.stepwise(q.collective)
    if q.algorithm not in stepwise:
        raise SpecError(
            "algorithm", f"the model needs a stepwise algorithm of {q.collective} ({', '.join(stepwise)})"
        )
    record = algorithm_of(q.collective, q.algorithm)
    if not record.fits(q.world_size):
        raise SpecError("world_size", record.misfit(q.world_size))
    if q.root >= q.world_size:
        raise SpecError("root", f"rank {q.root} is outside a world of {q.world_size}")
    shape = q.world_size**2 * q.chunks
    if shape > MAX_SHAPE:
        raise SpecError(
            "chunks",
            f"world_size² × chunks is {shape}, over the model's cap of {MAX_SHAPE} "
            f"(a prediction builds the whole schedule): at world_size {q.world_size}, "
            f"chunks can be at most {max(MAX_SHAPE // q.world_size**2, 0)}",
        )
    collective = get(q.collective, q.servers)
    check_servers(
        RunSpec(collective=q.collective, algorithm=q.algorithm, count=q.count, servers=q.servers),
        collective.has_servers,
        q.world_size,
    )
    # a barrier's own, whatever was asked
    count, itemsize = collective.count(q), ITEMSIZE[collective.dtype(q)]
    with BUILDS:
        try:
            builder = build if shape <= CACHED_SHAPE else build.__wrapped__
            schedule = builder(q.collective, q.algorithm, q.world_size, q.root, q.chunks, q.servers)
        except ValueError as e:
            raise SpecError("chunks", str(e)) from None
        if schedule.pieces > count:
            raise SpecError("count", f"{q.algorithm} needs at least {schedule.pieces} elements")
        moved = traffic(schedule, count, itemsize)  # once: the cost's terms and the answer's traffic
        terms = (
            cost(schedule, count, itemsize, sharing)
            if sharing
            else Cost(len(schedule.steps), int(moved.step_bytes.sum()), int(moved.step_reduced.sum()))
        )
    if isinstance(fitted, tuple):
        fitted = pm.Fitted(pm.Params(fitted[0], fitted[1], 0.0, "given"), fitted[2], None)
    given = fitted.params
    # the alpha-beta model a caller names: no gamma unless named too
    chosen = (q.alpha, q.beta) != (None, None)
    alpha, beta = given.alpha if q.alpha is None else q.alpha, given.beta if q.beta is None else q.beta
    gamma = q.gamma if q.gamma is not None else 0.0 if chosen else given.gamma
    seconds = terms.time(alpha, beta, gamma)
    size = collective.message_bytes(count, itemsize, q.world_size)
    return {
        "collective": q.collective,
        "algorithm": q.algorithm,
        "world_size": q.world_size,
        "count": count,
        "dtype": collective.dtype(q),
        "bytes": size,
        "steps": terms.steps,
        "terms": asdict(terms),
        "time": seconds,
        "algbw": size / seconds if seconds > 0 else None,
        "alpha": alpha,
        "beta": beta,
        "gamma": gamma,
        "fitted_from_runs": fitted.runs if (q.alpha, q.beta, q.gamma) == (None, None, None) else 0,
        "rms_error": fitted.rms_error,
        "traffic": moved.to_json(),
        "sharing": sharing.to_json(),
        "source": given.source
        if (q.alpha, q.beta, q.gamma) == (None, None, None)
        else f"given in the request, the rest {given.source}",
    }


# --- auto, at submit ------------------------------------------------------------------


def _valid(spec: RunSpec, world_size: int, backend: str) -> bool:
    try:
        validate(spec, world_size, backend)
    except SpecError:
        return False
    return True


def resolve(
    spec: RunSpec, world_size: int, backend: str, fitted: Fit, placement: Sequence[tuple[str, int]] = ()
) -> tuple[RunSpec, dict | None]:
    """A spec with `auto` (algorithm or chunks) made concrete, and the choice as the run keeps
    it: what was asked, what was chosen, why, and every candidate's predicted time. A spec
    without `auto` comes back as it is. Raises SpecError for what no choice could run.
    `placement`: each rank's (host, cores), for the ranks that share cores (cluster/cluster.py)."""
    left = pm.left_to_model(spec)
    if not left:
        return spec, None
    collective = get(spec.collective)
    first = 1 if "chunks" in left else spec.chunks  # the chunks a schedule is checked with
    # what is wrong whatever is chosen (group, count, op ...) is said first, before any of it is used
    settled = {"algorithm": NATIVE, "chunks": first} if "algorithm" in left else {"chunks": 1}
    validate(spec.model_copy(update=settled), world_size, backend)  # native, custom, unknown: said plainly
    group = group_of(spec, world_size)
    p, root = len(group), group.index(spec.root) if spec.root in group else 0
    itemsize = ITEMSIZE[collective.dtype(spec)]
    size = collective.message_bytes(collective.count(spec), itemsize, p)
    sharing = Sharing.of([placement[r] for r in group]) if placement else ALONE
    asked = {"algorithm": spec.algorithm, "chunks": spec.chunks}
    if "algorithm" in left:
        names = [
            a
            for a in pm.stepwise(spec.collective, p)
            if _valid(spec.model_copy(update={"algorithm": a, "chunks": first}), world_size, backend)
        ]
        choice = pm.pick(
            spec.collective,
            p,
            root,
            size,
            itemsize,
            fitted.model,
            fitted.native.get((spec.collective, p)),
            names,
            spec.chunks,
            sharing,
        )
        algorithm, chunks, why = choice.algorithm, choice.chunks, choice.why
        candidates = [
            {"algorithm": c.algorithm, "chunks": c.chunks, "time": c.time} for c in choice.candidates
        ]
    else:
        if spec.algorithm not in pm.stepwise(spec.collective):
            raise SpecError(
                "chunks", f'"auto" chooses how a schedule is cut; {spec.algorithm} takes a number of chunks'
            )
        algorithm = spec.algorithm
        chunks, tried = pm.best_chunks(
            spec.collective, algorithm, p, root, size, itemsize, fitted.model.params, sharing=sharing
        )
        listed = ", ".join(f"{k}: {pm.seconds(t)}" for k, t in tried.items())
        why = f"{chunks} chunks: predicted fastest of {listed} (with {fitted.model.params.source})"
        candidates = [{"algorithm": algorithm, "chunks": k, "time": t} for k, t in tried.items()]
    resolved = spec.model_copy(update={"algorithm": algorithm, "chunks": chunks})
    chosen = {"algorithm": algorithm, "chunks": chunks}
    label = " · ".join(f"{k} auto → {chosen[k]}" for k in left)
    return resolved, {
        "asked": asked,
        "algorithm": algorithm,
        "chunks": chunks,
        "label": label,
        "why": why,
        "candidates": candidates,
        "params": fitted.model.params.to_json(),
    }


async def fit_of(conn: HTTPConnection) -> Fit:
    return conn.app.state.fit
