"""The model's prediction error on sizes held out of its fit, P=4 float32 on this machine:
every stepwise algorithm of all_reduce, broadcast, reduce_scatter and all_gather at every
size from 1 KiB to 64 MiB (factor 4), alpha, beta and gamma fitted (predict.solve) to all
sizes but one and checked on that one, for every size in turn. Prints the median and worst
relative error, per held-out size and in all, and per algorithm; also how long the curve
against P (2..1024) takes to build the first time, per collective.

The whole sweep runs `--rounds` times, so a burst of load from elsewhere spoils one round of
a row, not the row. Two times are fitted and checked, each with its noise floor (how far one
round of a row falls from another: no model can predict a run closer than it repeats):
- typical: the median over rounds of each round's median iteration (what a run's time is);
- best: the median over rounds of each round's fastest iteration (the time without another
  process in the way; on a host whose ranks outnumber its cores, the steadier of the two).
Terms are read as the cluster's ranks share cores (simulate.Sharing); `--alone` reads them as
if every rank had a core of its own, to see what counting the sharing buys.

    .venv/bin/python bench/predict_error.py [--iterations 5] [--rounds 3]
    .venv/bin/python bench/predict_error.py --rows rows.jsonl   # rows saved by auto_vs_native.py
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from ringside.bench import plan
from ringside.bench.sweep import sharing_of, sweep
from ringside.worker_agent.core import predict
from ringside.worker_agent.core.algorithms import build
from ringside.worker_agent.core.simulate import ALONE, Sharing, cost
from ringside.worker_agent.core.vocabulary import ITEMSIZE
from ringside.worker_agent.rank.local import run_ranks, unwrap
from ringside.worker_agent.rank.process_group import cpu_cores

COLLECTIVES = ("all_reduce", "broadcast", "reduce_scatter", "all_gather")


def measure(world, collectives, sizes, iterations, warmup, rounds):
    """On every rank: every round's rows, and how the ranks share cores."""
    rows = []
    for round_ in range(rounds):
        for collective in collectives:
            a = {
                "collective": collective,
                "dtype": "float32",
                "op": "SUM",
                "iterations": iterations,
                "warmup": warmup,
                "backend": None,
                "algorithms": [],
            }
            rows += [
                dict(r, collective=collective, round=round_)
                for r in sweep(world, a, predict.stepwise(collective), sizes)
            ]
    return rows, sharing_of(world).to_json()


def combined(rows: list[dict], key: str) -> tuple[dict, float]:
    """Per (collective, algorithm, size): the row with `key` the median over its rounds; and the
    noise floor, how well one round predicts another of the same row: the median over rows and
    pairs of rounds of |a / b - 1|."""
    by_row: dict[tuple, list[dict]] = {}
    for r in rows:
        by_row.setdefault((r["collective"], r["algorithm"], r["size"]), []).append(r)
    out, spread = {}, []
    for name, rounds in by_row.items():
        middle = statistics.median(r[key] for r in rounds)
        out[name] = dict(rounds[0], **{key: middle})
        spread += [abs(a[key] / b[key] - 1) for a in rounds for b in rounds if a is not b]
    return out, statistics.median(spread) if spread else float("nan")


def samples_of(rows, key: str, sharing: Sharing) -> list[tuple[str, predict.Sample]]:
    out = []
    for r in rows:
        if r["algorithm"] in predict.stepwise(r["collective"]):
            terms = cost(
                build(r["collective"], r["algorithm"], r["ranks"]), r["block"], ITEMSIZE[r["type"]], sharing
            )
            out.append(
                (
                    f"{r['collective']}/{r['algorithm']}",
                    predict.Sample(terms.steps, terms.bytes, terms.reduced, r[key], r["size"]),
                )
            )
    return out


def report(rows: list[dict], key: str, sharing: Sharing) -> predict.Params:
    rows, floor = combined(rows, key)
    labelled = samples_of(rows.values(), key, sharing)
    fitted = predict.solve([s for _, s in labelled])
    held, p = fitted.heldout, fitted.params
    print(
        f"\n## {key} "
        f"({'ranks share cores: ' + str(sharing.to_json()) if sharing else 'every rank alone'}); noise "
        f"floor (one round against another): {floor:.1%}"
    )
    print(
        f"# fit over {fitted.runs} stepwise rows: alpha {p.alpha * 1e6:.1f} us, beta {p.beta * 1e9:.3f} "
        f"ns/B, gamma {p.gamma * 1e9:.3f} ns/B; RMS relative error {fitted.rms_error:.1%}"
    )
    print(
        f"# held out ({held['method']}): median {held['median']:.1%}, worst {held['worst']:.1%} "
        f"over {held['runs']} rows"
    )
    print(f"{'held-out size':>14} {'rows':>5} {'median':>8} {'worst':>8}")
    for s in held["by_size"]:
        print(f"{int(s['size']):>14} {s['runs']:>5} {s['median']:>8.1%} {s['worst']:>8.1%}")
    print(f"{'algorithm':>32} {'median':>8} {'worst':>8}   (error of the all-sizes fit, per algorithm)")
    for label in dict.fromkeys(name for name, _ in labelled):
        errors = predict.relative_errors(p, [s for name, s in labelled if name == label])
        print(f"{label:>32} {statistics.median(errors):>8.1%} {max(errors):>8.1%}")
    return p


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--ranks", type=int, default=4)
    parser.add_argument("--iterations", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--alone", action="store_true", help="read the terms as if every rank had a core of its own"
    )
    parser.add_argument(
        "--rows",
        help="JSON lines from bench/auto_vs_native.py --save instead of measuring "
        "(taken as measured on this machine's cores)",
    )
    parser.add_argument("--save", help="write the measured rows here (JSON lines), to --rows them again")
    args = parser.parse_args()
    if args.rows:
        with open(args.rows) as f:
            rows = [json.loads(line) for line in f]
        sharing = Sharing.of([("here", cpu_cores())] * args.ranks)
    else:
        sizes = plan.sizes("all_reduce", 1 << 10, 64 << 20, 4)
        rows, hosts = unwrap(
            run_ranks(
                measure,
                args.ranks,
                COLLECTIVES,
                sizes,
                args.iterations,
                args.warmup,
                args.rounds,
                timeout=6 * 3600,
            )
        )[0]
        sharing = Sharing.from_json(hosts)
        if args.save:
            with open(args.save, "w") as f:
                f.writelines(json.dumps(r) + "\n" for r in rows)
    sharing = ALONE if args.alone else sharing
    report(rows, "time_median", sharing)
    params = report(rows, "time_min", sharing)
    print(f"\n{'collective':>15} {'curve against P, first build':>30}")
    for collective in COLLECTIVES:
        predict.unit_terms.cache_clear()
        began = time.perf_counter()
        predict.versus_p(collective, predict.stepwise(collective), 1 << 20, 4, params)
        print(f"{collective:>15} {time.perf_counter() - began:>29.2f}s")


if __name__ == "__main__":
    main()
