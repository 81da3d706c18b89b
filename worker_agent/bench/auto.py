"""What `auto` runs at each size: the model (predict.py) fitted, as the server fits it to a swept
cluster, to this table's own rows, then asked which stepwise algorithm it picks."""

from __future__ import annotations

import argparse

from ringside.bench.compare import ran
from ringside.bench.plan import count_for, spec_for
from ringside.worker_agent.core import predict
from ringside.worker_agent.core.algorithms import algorithm_of, build
from ringside.worker_agent.core.collectives import get
from ringside.worker_agent.core.simulate import ALONE, Sharing, cost
from ringside.worker_agent.core.validation import SpecError, validate
from ringside.worker_agent.core.vocabulary import ITEMSIZE


def model_of(
    rows: list[dict], collective: str, p: int, sharing: Sharing = ALONE
) -> tuple[predict.Fitted, predict.NativeFit | None]:
    """The model as the server fits it, from this table's rows: alpha, beta and gamma from the
    stepwise ones (terms read from their schedules, on ranks sharing cores as `sharing` says),
    a line from native's."""
    samples, points = [], []
    for r in filter(ran, rows):
        algorithm = algorithm_of(collective, r["algorithm"])
        if algorithm.reference:
            points.append((r["size"], r["time"]))
        elif algorithm.built:
            schedule = build(collective, r["algorithm"], p)
            terms = cost(schedule, r["block"], ITEMSIZE[r["type"]], sharing) if r["type"] else None
            if terms is not None:
                samples.append(predict.Sample(terms.steps, terms.bytes, terms.reduced, r["time"], r["size"]))
    return predict.solve(samples, "fitted to this table's stepwise runs"), predict.fit_native(points)


def pick(
    a: argparse.Namespace,
    p: int,
    size: int,
    fitted: predict.Fitted,
    native: predict.NativeFit | None,
    sharing: Sharing = ALONE,
) -> predict.Choice:
    """What auto runs at this size: the stepwise algorithms that can run it, ranked by the model."""
    names = [algorithm for algorithm in predict.stepwise(a.collective, p) if _runs(a, size, algorithm, p)]
    collective, itemsize = get(a.collective), ITEMSIZE[a.dtype]
    count = count_for(a.collective, size, itemsize, p)
    nbytes = collective.message_bytes(count, itemsize, p) if collective.payload else 0
    return predict.pick(a.collective, p, 0, nbytes, itemsize, fitted, native, names, sharing=sharing)


def _runs(a: argparse.Namespace, size: int, algorithm: str, p: int) -> bool:
    try:
        validate(spec_for(a, size, algorithm, p), p, a.backend or "gloo")
    except SpecError:
        return False
    return True
