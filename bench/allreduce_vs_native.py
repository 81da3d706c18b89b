"""Ring all_reduce against gloo's own all_reduce, P=4 float32, 16 and 64 MiB,
with capture none and summary, measured in one run and interleaved so that
drift hits every variant alike. Each run has one iteration, so every timed
iteration of a `summary` run records its steps: received chunks land in the
keep buffer instead of the working one, and the states are read once the last
step is over (executor.py), so summary/none is what recording costs the
collective itself. Prints medians and ratios.

    .venv/bin/python bench/allreduce_vs_native.py [--ranks 4] [--rounds 12]
"""

from __future__ import annotations

import argparse
import statistics

from ringside.worker_agent.core.protocol import RunSpec
from ringside.worker_agent.rank.local import run_ranks, unwrap

VARIANTS = (("native", "none"), ("ring", "none"), ("ring", "summary"))


def measure(world, sizes, rounds):
    import torch
    import torch.distributed as dist

    from ringside.worker_agent.rank.runner import Runner

    runner = Runner(world, lambda event: None)
    medians = {}
    for size in sizes:
        times = {v: [] for v in VARIANTS}
        for _ in range(rounds):
            for algorithm, capture in VARIANTS:
                spec = RunSpec(
                    collective="all_reduce",
                    algorithm=algorithm,
                    count=size // 4,
                    dtype="float32",
                    pattern="random_float",
                    capture=capture,
                    iterations=1,
                    warmup=1,
                    verify=False,
                )
                t = torch.tensor(runner.run("bench", spec).timings.iterations, dtype=torch.float64)
                dist.all_reduce(t, op=dist.ReduceOp.MAX)  # an iteration lasts as long as its slowest rank
                times[algorithm, capture] += t.tolist()
        medians[size] = {v: statistics.median(ts) for v, ts in times.items()}
    return medians


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--ranks", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=12)
    args = parser.parse_args()
    sizes = [16 << 20, 64 << 20]
    medians = unwrap(run_ranks(measure, args.ranks, sizes, args.rounds, timeout=3600))[0]
    print(f"all_reduce float32, {args.ranks} ranks, gloo; median of {args.rounds} runs (slowest rank)")
    print(
        f"{'size':>8} {'native ms':>10} {'ring/none ms':>13} {'ring/summary ms':>16} {'none/native':>12} "
        f"{'summary/native':>15} {'summary/none':>13}"
    )
    for size, m in medians.items():
        native, none, summary = (m[v] for v in VARIANTS)
        print(
            f"{size >> 20:>5} MiB {native * 1e3:>10.2f} {none * 1e3:>13.2f} {summary * 1e3:>16.2f} "
            f"{none / native:>12.3f} {summary / native:>15.3f} {summary / none:>13.3f}"
        )


if __name__ == "__main__":
    main()
