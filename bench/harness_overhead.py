"""Does the harness add anything? `ringside bench`'s native path (Runner, native
op, barrier-aligned timing) against a plain torch.distributed loop (barrier,
time one all_reduce) over the same op, input, sizes and ranks, in the same run.

    .venv/bin/python bench/harness_overhead.py [--ranks 4] [--iterations 40] [--rounds 10]

Small sizes at P=4 on two cores are dominated by scheduling (a 1 KiB all_reduce takes
1 to 12 ms): the defaults take enough samples for their medians to settle.
"""

from __future__ import annotations

import argparse
import statistics
import time

from ringside.worker_agent.core.protocol import RunSpec
from ringside.worker_agent.rank.local import run_ranks, unwrap

SIZES = [1 << 10, 64 << 10, 1 << 20, 16 << 20]


def plain_loop(initial, iterations):
    """The textbook loop, on the same input as the harness, restored before every
    iteration as the harness does (gloo's all_reduce time depends on the values)."""
    import torch.distributed as dist

    t, times = initial.clone(), []
    for _ in range(iterations):
        t.copy_(initial)
        dist.barrier()
        start = time.perf_counter()
        dist.all_reduce(t)
        times.append(time.perf_counter() - start)
    return times


def measure(world, iterations, rounds):
    import torch
    import torch.distributed as dist

    from ringside.worker_agent.rank.runner import Runner, torch_input

    runner = Runner(world, lambda event: None)
    out = {}
    for size in SIZES:
        plain, harness = [], []
        spec = RunSpec(
            collective="all_reduce",
            count=size // 4,
            pattern="random_float",
            capture="none",
            iterations=iterations,
            verify=False,
        )
        initial = torch_input(spec, world.rank, world.world_size, world.device)
        for round in range(rounds):  # interleaved, each first in turn, so drift hits both alike
            for way in ("plain", "harness") if round % 2 == 0 else ("harness", "plain"):
                if way == "plain":
                    plain += plain_loop(initial, iterations)
                else:
                    harness += runner.run("bench", spec).timings.iterations
        both = torch.tensor([plain, harness], dtype=torch.float64)
        dist.all_reduce(both, op=dist.ReduceOp.MAX)
        out[size] = (statistics.median(both[0].tolist()), statistics.median(both[1].tolist()))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--ranks", type=int, default=4)
    parser.add_argument("--iterations", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    result = unwrap(run_ranks(measure, args.ranks, args.iterations, args.rounds, timeout=3600))[0]
    print(f"native all_reduce float32, {args.ranks} ranks, gloo; median per iteration, slowest rank")
    print(f"{'size':>10} {'plain loop us':>14} {'ringside us':>12} {'ratio':>7}")
    for size, (plain, harness) in result.items():
        print(f"{size:>10} {plain * 1e6:>14.1f} {harness * 1e6:>12.1f} {harness / plain:>7.3f}")


if __name__ == "__main__":
    main()
