"""How fast schedules are built (with check), simulated and counted in plain
numpy, up to P=1024 (one element per chunk). Prints the best of three runs in
seconds (the machine is shared); checks only the result.

    .venv/bin/python bench/simulate_speed.py
"""

from __future__ import annotations

import time

import numpy as np

from ringside.worker_agent.core.algorithms import build
from ringside.worker_agent.core.simulate import simulate, traffic

ALGORITHMS = ("ring", "rabenseifner", "recursive_doubling", "tree")


def measure(algorithm: str, p: int) -> tuple[int, int, float, float, float]:
    """(steps, transfers, build s, simulate s, traffic s) for an all_reduce over P ranks."""
    build.cache_clear()
    t0 = time.perf_counter()
    s = build("all_reduce", algorithm, p)
    t1 = time.perf_counter()
    count = s.pieces
    outputs = simulate(s, [np.full(count, r, np.int64) for r in range(p)], count)
    t2 = time.perf_counter()
    traffic(s, count, 4)
    t3 = time.perf_counter()
    assert all((out == p * (p - 1) // 2).all() for out in outputs)
    return len(s.steps), sum(len(step.table) for step in s.steps), t1 - t0, t2 - t1, t3 - t2


def main() -> None:
    print(
        f"{'all_reduce':>18} {'P':>5} {'steps':>6} {'transfers':>10} {'build s':>8} {'simulate s':>10} "
        f"{'traffic s':>9} {'total s':>8}"
    )
    for algorithm in ALGORITHMS:
        for p in (64, 256, 1000, 1024):
            runs = [measure(algorithm, p) for _ in range(3)]
            steps, transfers = runs[0][:2]
            seconds = [min(run[i] for run in runs) for i in (2, 3, 4)]
            times = " ".join(f"{t:>{w}.3f}" for t, w in zip([*seconds, sum(seconds)], (8, 10, 9, 8)))
            print(f"{algorithm:>18} {p:>5} {steps:>6} {transfers:>10} {times}")


if __name__ == "__main__":
    main()
