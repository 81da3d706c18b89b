"""`auto` against native, P=4 float32, every size from 1 KiB to 64 MiB (factor 4), for
all_reduce, broadcast, reduce_scatter and all_gather, in one run (one world of local gloo
ranks). Per collective: `ringside bench`'s sweep (every algorithm at every size, taking turns),
then auto at every size, picking with the model fitted to that sweep as a server fits a swept
cluster, its iterations taking turns with native's. auto is judged by the bench's rule: slower
or faster only where the 95% bootstrap interval of auto/native excludes 1, else the same.
--save writes every row as JSON lines (bench/predict_error.py --rows reads them).

    .venv/bin/python bench/auto_vs_native.py [--iterations 20] [--warmup 2] [--save rows.jsonl]
"""

from __future__ import annotations

import argparse
import json

from ringside.bench import plan
from ringside.bench.cli import parse_size
from ringside.bench.sweep import sweep
from ringside.worker_agent.core.algorithms import algorithm_of
from ringside.worker_agent.rank.local import run_ranks, unwrap

COLLECTIVES = ("all_reduce", "broadcast", "reduce_scatter", "all_gather")


def measure(world, collectives, sizes, iterations, warmup):
    """On every rank: the sweep with auto, for every collective."""
    out = {}
    for collective in collectives:
        a = {
            "collective": collective,
            "dtype": "float32",
            "op": "SUM",
            "iterations": iterations,
            "warmup": warmup,
            "backend": None,
        }
        out[collective] = sweep(world, a, plan.default_algorithms(collective), sizes)
    return out


def verdict(vs: dict) -> str:
    if vs["low"] is None:
        return "too few iterations"
    return ("slower" if vs["ratio"] > 1 else "faster") if vs["marked"] else "same"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--ranks", type=int, default=4)
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--collectives", default=",".join(COLLECTIVES))
    parser.add_argument("--max-bytes", type=parse_size, default=64 << 20)
    parser.add_argument("--save", help="write every measured row here, as JSON lines")
    args = parser.parse_args()
    sizes = plan.sizes("all_reduce", 1 << 10, args.max_bytes, 4)
    results = unwrap(
        run_ranks(
            measure,
            args.ranks,
            args.collectives.split(","),
            sizes,
            args.iterations,
            args.warmup,
            timeout=6 * 3600,
        )
    )[0]
    print(
        f"# auto vs native, P={args.ranks}, float32, gloo; {args.iterations} timed iterations "
        f"(+{args.warmup} warm-up) taking turns with native's; mean over ranks of each rank's mean"
    )
    print(
        f"{'collective':>15} {'size':>10} {'auto us':>11} {'auto/native':>11} {'95% CI':>11} "
        f"{'verdict':>8}  auto ran"
    )
    saved = []
    for collective, rows in results.items():
        slower = 0
        for r in rows:
            if not algorithm_of(collective, r["algorithm"]).chosen:
                continue
            vs = r["vs_native"]
            slower += verdict(vs) == "slower"
            interval = "-" if vs["low"] is None else f"{vs['low']:.2f}-{vs['high']:.2f}"
            print(
                f"{collective:>15} {r['size']:>10} {r['time'] * 1e6:>11.1f} {vs['ratio']:>11.2f} "
                f"{interval:>11} {verdict(vs):>8}  {r['ran']}"
            )
        print(f"{collective:>15} {'slower at':>10} {slower} of {len(sizes)} sizes")
        saved += [dict(r, collective=collective) for r in rows]
    if args.save:
        with open(args.save, "w") as f:
            f.write("".join(json.dumps(r) + "\n" for r in saved))


if __name__ == "__main__":
    main()
