"""`auto` against native, P=4 float32, every size from 1 KiB to 64 MiB (factor 4), for
all_reduce, broadcast, reduce_scatter and all_gather, in one run (one world of local gloo
ranks). Per collective: every algorithm measured at every size (`ringside bench`'s sweep),
then auto at every size, picking with the model fitted to that sweep as a server fits a
swept cluster, then native measured a second time: native2/native1 is the noise floor the
same run shows. Prints auto/native per size; --save writes every row as JSON lines
(bench/predict_error.py --rows reads them).

    .venv/bin/python bench/auto_vs_native.py [--iterations 5] [--warmup 1] [--save rows.jsonl]
"""

from __future__ import annotations

import argparse
import json
import statistics

from ringside.worker_agent import bench
from ringside.worker_agent.core.algorithms import NATIVE, Kind, algorithm_of
from ringside.worker_agent.rank.local import run_ranks, unwrap

COLLECTIVES = ("all_reduce", "broadcast", "reduce_scatter", "all_gather")


def measure(world, collectives, sizes, iterations, warmup):
    """On every rank: the sweep with auto, then native again, for every collective."""
    out = {}
    for collective in collectives:
        a = {"collective": collective, "dtype": "float32", "op": "SUM", "iterations": iterations,
             "warmup": warmup, "backend": None, "algorithms": []}
        rows = bench.sweep(world, a, bench.default_algorithms(collective), sizes)
        again = {}
        for size in sizes:
            times, _ = bench.measure(world, argparse.Namespace(**a), size, NATIVE)
            again[size] = statistics.median(times)
        out[collective] = (rows, again)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, default=4)
    parser.add_argument("--iterations", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--collectives", default=",".join(COLLECTIVES))
    parser.add_argument("--max-bytes", type=bench.parse_size, default=64 << 20)
    parser.add_argument("--save", help="write every measured row here, as JSON lines")
    args = parser.parse_args()
    sizes = bench.sizes("all_reduce", 1 << 10, args.max_bytes, 4)
    results = unwrap(run_ranks(measure, args.ranks, args.collectives.split(","), sizes, args.iterations,
                               args.warmup, timeout=6 * 3600))[0]
    print(f"# auto vs native, P={args.ranks}, float32, gloo; {args.iterations} timed iterations "
          f"(+{args.warmup} warm-up), median of the slowest rank's iterations")
    print(f"{'collective':>15} {'size':>10} {'native us':>11} {'auto us':>11} {'auto/native':>11} "
          f"{'native2/native1':>15}  auto ran")
    saved = []
    for collective, (rows, again) in results.items():
        ratios, floors = [], []
        for size in sizes:
            row = {algorithm_of(collective, r["algorithm"]).kind: r for r in rows if r["size"] == size}
            native, auto = row[Kind.NATIVE], row[Kind.AUTO]
            ratio, floor = auto["time_median"] / native["time_median"], again[size] / native["time_median"]
            ratios.append(ratio)
            floors.append(floor)
            print(f"{collective:>15} {size:>10} {native['time_median'] * 1e6:>11.1f} "
                  f"{auto['time_median'] * 1e6:>11.1f} {ratio:>11.2f} {floor:>15.2f}  {auto['ran']}")
        print(f"{collective:>15} {'worst':>10} {'':>11} {'':>11} {max(ratios):>11.2f} "
              f"{max(max(floors), 1 / min(floors)):>15.2f}")
        saved += [dict(r, collective=collective) for r in rows]
    if args.save:
        with open(args.save, "w") as f:
            f.write("".join(json.dumps(r) + "\n" for r in saved))


if __name__ == "__main__":
    main()
