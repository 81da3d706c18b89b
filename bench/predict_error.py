"""The model's prediction error on sizes held out of its fit, P=4 float32 on this machine:
every stepwise algorithm of all_reduce, broadcast, reduce_scatter and all_gather at every
size from 1 KiB to 64 MiB (factor 4), alpha, beta and gamma fitted (predict.solve) to all
sizes but one and checked on that one, for every size in turn. Prints the median and worst
relative error, per held-out size and in all, and per algorithm; also how long the curve
against P (2..1024) takes to build the first time, per collective.

    .venv/bin/python bench/predict_error.py [--iterations 5]          # measures its own runs
    .venv/bin/python bench/predict_error.py --rows rows.jsonl        # rows saved by auto_vs_native.py
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from ringside.worker_agent import bench, predict
from ringside.worker_agent.algorithms import build
from ringside.worker_agent.catalog import ITEMSIZE
from ringside.worker_agent.local import run_ranks, unwrap
from ringside.worker_agent.simulate import cost

COLLECTIVES = ("all_reduce", "broadcast", "reduce_scatter", "all_gather")


def measure(world, collectives, sizes, iterations, warmup):
    rows = []
    for collective in collectives:
        a = {"collective": collective, "dtype": "float32", "op": "SUM", "iterations": iterations, "warmup": warmup,
             "backend": None, "algorithms": []}
        rows += [dict(r, collective=collective) for r in bench.sweep(world, a, predict.stepwise(collective), sizes)]
    return rows


def samples_of(rows: list[dict]) -> list[tuple[str, predict.Sample]]:
    out = []
    for r in rows:
        if r["algorithm"] in predict.stepwise(r["collective"]):
            terms = cost(build(r["collective"], r["algorithm"], r["ranks"]), r["count"], ITEMSIZE[r["dtype"]])
            out.append((f"{r['collective']}/{r['algorithm']}",
                        predict.Sample(terms.steps, terms.bytes, terms.reduced, r["time_median"], r["size"])))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, default=4)
    parser.add_argument("--iterations", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--rows", help="JSON lines from bench/auto_vs_native.py --save instead of measuring")
    args = parser.parse_args()
    if args.rows:
        with open(args.rows) as f:
            rows = [json.loads(line) for line in f]
    else:
        sizes = bench.sizes("all_reduce", 1 << 10, 64 << 20, 4)
        rows = unwrap(run_ranks(measure, args.ranks, COLLECTIVES, sizes, args.iterations, args.warmup, timeout=6 * 3600))[0]
    labelled = samples_of(rows)
    fitted = predict.solve([s for _, s in labelled])
    held = fitted.heldout
    p = fitted.params
    print(f"# fit over {fitted.runs} stepwise runs: alpha {p.alpha * 1e6:.1f} us, beta {p.beta * 1e9:.3f} ns/B, "
          f"gamma {p.gamma * 1e9:.3f} ns/B; RMS relative error {fitted.rms_error:.1%}")
    print(f"# held out ({held['method']}): median {held['median']:.1%}, worst {held['worst']:.1%} over {held['runs']} runs")
    print(f"{'held-out size':>14} {'runs':>5} {'median':>8} {'worst':>8}")
    for s in held["by_size"]:
        print(f"{int(s['size']):>14} {s['runs']:>5} {s['median']:>8.1%} {s['worst']:>8.1%}")
    print(f"{'algorithm':>32} {'median':>8} {'worst':>8}   (error of the all-sizes fit, per algorithm)")
    for label in dict.fromkeys(name for name, _ in labelled):
        errors = predict.relative_errors(p, [s for name, s in labelled if name == label])
        print(f"{label:>32} {statistics.median(errors):>8.1%} {max(errors):>8.1%}")
    print(f"{'collective':>15} {'curve against P, first build':>30}")
    for collective in COLLECTIVES:
        predict.unit_terms.cache_clear()
        began = time.perf_counter()
        predict.versus_p(collective, predict.stepwise(collective), 1 << 20, 4, p)
        print(f"{collective:>15} {time.perf_counter() - began:>29.2f}s")


if __name__ == "__main__":
    main()
