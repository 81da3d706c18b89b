"""Peak memory per rank of an all_reduce as the page runs it (float32, capture summary,
verified against native), against the buffer's size: what MAX_BUFFER_BYTES
(worker_agent/core/validation.py) follows from. Each rank resets its peak (Linux's
/proc/self/clear_refs) before a run and reads it after (VmHWM); the run's own share is
the peak above what the rank held before it. Prints MiB per rank (the largest rank's)
and that share as a factor of the buffer.

    .venv/bin/python bench/peak_memory.py [--ranks 4] [--sizes 16,64,128] [--algorithms ring,native]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ringside.worker_agent.core.protocol import RunSpec
from ringside.worker_agent.rank.local import run_ranks, unwrap

MiB = 1 << 20


def _kib(field: str) -> int:
    """A VmRSS / VmHWM line of /proc/self/status, in bytes."""
    line = next(x for x in Path("/proc/self/status").read_text().splitlines() if x.startswith(field + ":"))
    return int(line.split()[1]) * 1024


def measure(world, sizes, algorithms):
    import gc

    from ringside.worker_agent.rank.runner import Runner

    runner = Runner(world, lambda event: None)
    rows = []
    for size in sizes:
        for algorithm in algorithms:
            spec = RunSpec(collective="all_reduce", algorithm=algorithm, count=size // 4, dtype="float32")
            gc.collect()
            Path("/proc/self/clear_refs").write_text("5")  # the peak starts again from what is held now
            before = _kib("VmRSS")
            runner.run("bench", spec)
            rows.append((size, algorithm, before, _kib("VmHWM")))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--ranks", type=int, default=4)
    parser.add_argument("--sizes", default="16,64,128", help="MiB per rank's buffer")
    parser.add_argument("--algorithms", default="ring,native")
    args = parser.parse_args()
    sizes = [int(s) * MiB for s in args.sizes.split(",")]
    ranks = unwrap(run_ranks(measure, args.ranks, sizes, args.algorithms.split(","), timeout=3600))
    print(
        f"all_reduce float32, capture summary, verified; {args.ranks} ranks, gloo; the largest rank's memory"
    )
    print(
        f"{'buffer':>8} {'algorithm':>10} {'before MiB':>11} {'peak MiB':>9} "
        f"{'run MiB':>8} {'run/buffer':>11}"
    )
    for i, (size, algorithm, _, _) in enumerate(ranks[0]):
        before, peak = (max(rows[i][k] for rows in ranks) for k in (2, 3))
        run = max(rows[i][3] - rows[i][2] for rows in ranks)
        print(
            f"{size // MiB:>4} MiB {algorithm:>10} {before / MiB:>11.0f} {peak / MiB:>9.0f} "
            f"{run / MiB:>8.0f} {run / size:>11.1f}"
        )


if __name__ == "__main__":
    main()
