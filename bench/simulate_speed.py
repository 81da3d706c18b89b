"""How fast schedules are built, simulated and counted in plain numpy, up to
P=1024 (one element per chunk). Prints seconds; checks only the result.

    .venv/bin/python bench/simulate_speed.py
"""

from __future__ import annotations

import time

import numpy as np

from worker_agent.algorithms import build
from worker_agent.simulate import simulate, traffic


def main() -> None:
    print(f"{'algorithm':>20} {'P':>6} {'steps':>6} {'transfers':>10} {'build s':>8} {'simulate s':>10} {'traffic s':>9}")
    for algorithm in ("ring", "rabenseifner", "tree"):
        for p in (64, 256, 1024):
            build.cache_clear()
            t0 = time.perf_counter()
            s = build("all_reduce", algorithm, p)
            t1 = time.perf_counter()
            count = s.pieces
            outputs = simulate(s, [np.full(count, r, np.int64) for r in range(p)], count)
            t2 = time.perf_counter()
            traffic(s, count, 4)
            t3 = time.perf_counter()
            assert (outputs[-1] == p * (p - 1) // 2).all()
            n = sum(len(step.transfers) for step in s.steps)
            print(f"{algorithm:>20} {p:>6} {len(s.steps):>6} {n:>10} {t1 - t0:>8.3f} {t2 - t1:>10.3f} {t3 - t2:>9.3f}")


if __name__ == "__main__":
    main()
