"""A parameter server against ring all_reduce, as the chapter compares them: P=4 float32,
one server (S=1) and three shards (S=3) against the ring, for the same model of N bytes,
measured in one run and interleaved so that drift hits every variant alike (capture none,
no verification: the collective alone). Prints medians of the slowest rank, ratios, and
the bytes each design puts on its busiest rank's link by the chapter's formulas.

Both move the model's gradient and hand weights back: the server's link carries (P-S)·N/S
each way, a ring rank's 2·(N/P)·(P-1) each way spread over two neighbours. Ranks on one
host share its memory and cores rather than links of their own, so a second table gives
the alpha-beta-gamma model's times on a 100 Gb/s network (predict.py's preset), where
the busiest link is what costs.

    .venv/bin/python bench/parameter_server.py [--ranks 4] [--rounds 10]
"""

from __future__ import annotations

import argparse
import statistics

from ringside.worker_agent.core.algorithms import build, formulas
from ringside.worker_agent.core.algorithms import parameter_server as ps
from ringside.worker_agent.core.predict import PRESETS
from ringside.worker_agent.core.protocol import RunSpec
from ringside.worker_agent.core.simulate import cost
from ringside.worker_agent.rank.local import run_ranks, unwrap

# (name, collective, algorithm, servers)
VARIANTS = (
    ("ring", "all_reduce", "ring", None),
    ("ps S=1", "parameter_server", ps.NAME, 1),
    ("ps S=3", "parameter_server", ps.NAME, 3),
)
ELEMENTS = (3 << 15, 3 << 18, 3 << 21)  # 384 KiB, 3 MiB, 24 MiB of float32: divisible by every S and P here


def measure(world, elements, rounds):
    import torch
    import torch.distributed as dist

    from ringside.worker_agent.rank.runner import Runner

    runner = Runner(world, lambda event: None)
    medians = {}
    for count in elements:
        times = {name: [] for name, *_ in VARIANTS}
        for _ in range(rounds):
            for name, collective, algorithm, servers in VARIANTS:
                spec = RunSpec(
                    collective=collective,
                    algorithm=algorithm,
                    servers=servers,
                    count=count,
                    dtype="float32",
                    pattern="random_float",
                    capture="none",
                    iterations=1,
                    warmup=1,
                    verify=False,
                )
                t = torch.tensor(runner.run("bench", spec).timings.iterations, dtype=torch.float64)
                dist.all_reduce(t, op=dist.ReduceOp.MAX)  # an iteration lasts as long as its slowest rank
                times[name] += t.tolist()
        medians[count] = {name: statistics.median(ts) for name, ts in times.items()}
    return medians


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--ranks", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    p = args.ranks
    medians = unwrap(run_ranks(measure, p, ELEMENTS, args.rounds, timeout=3600))[0]
    print(
        f"parameter server vs ring all_reduce, float32, {p} ranks, gloo; median of "
        f"{args.rounds} runs (slowest rank)"
    )
    print(
        f"{'N':>8} {'ring ms':>9} {'ps S=1 ms':>10} {'ps S=3 ms':>10} {'S=1/ring':>9} {'S=3/ring':>9} "
        f"{'S=1/S=3':>8} {'link: ring':>11} {'S=1':>9} {'S=3':>9}"
    )
    for count, m in medians.items():
        n = count * 4
        ring, one, three = (m[name] for name, *_ in VARIANTS)
        link = [
            formulas.evaluate("all_reduce", "ring", n, p)["value"],
            ps.formula(n, p, 1)["value"],
            ps.formula(n, p, 3)["value"],
        ]
        print(
            f"{_size(n):>8} {ring * 1e3:>9.2f} {one * 1e3:>10.2f} {three * 1e3:>10.2f} {one / ring:>9.2f} "
            f"{three / ring:>9.2f} {one / three:>8.2f} {_size(link[0]):>11} "
            f"{_size(link[1]):>9} {_size(link[2]):>9}"
        )

    net = PRESETS["net-100gbps"].params("Simple")
    print(
        f"\nthe model's times on a 100 Gb/s network, NCCL's Simple protocol ({net.source.split(';')[0]} ...)"
    )
    print(
        f"{'N':>8} {'ring ms':>9} {'ps S=1 ms':>10} {'ps S=3 ms':>10} {'S=1/ring':>9} "
        f"{'S=3/ring':>9} {'S=1/S=3':>8}"
    )
    for count in ELEMENTS:
        ring, one, three = (
            _predicted(collective, algorithm, servers, count, p, net)
            for _, collective, algorithm, servers in VARIANTS
        )
        print(
            f"{_size(count * 4):>8} {ring * 1e3:>9.2f} {one * 1e3:>10.2f} {three * 1e3:>10.2f} "
            f"{one / ring:>9.2f} {three / ring:>9.2f} {one / three:>8.2f}"
        )


def _predicted(collective: str, algorithm: str, servers: int | None, count: int, p: int, net) -> float:
    """Seconds the alpha-beta-gamma model gives the schedule (count: the model's elements)."""
    block = count // (servers or 1)  # a parameter server's block is one shard
    terms = cost(build(collective, algorithm, p, 0, 1, servers), block, 4)
    return terms.time(net.alpha, net.beta, net.gamma)


def _size(n: int) -> str:
    return f"{n / (1 << 20):.2f} MiB" if n >= 1 << 20 else f"{n >> 10} KiB"


if __name__ == "__main__":
    main()
