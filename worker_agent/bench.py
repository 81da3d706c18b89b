"""`ringside bench`: spawn P local ranks and print an nccl-tests-style table.

Size is one rank's buffer in bytes, as nccl-tests count it (the larger of a
rank's input and output). Every iteration's time is the slowest rank's;
algbw = size / time and busbw = algbw x the collective's factor, so busbw
compares with the link's speed whatever the collective.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from dataclasses import asdict, dataclass

from . import collectives as C
from .algorithms import NATIVE, algorithms_for
from .catalog import ITEMSIZE


@dataclass
class Row:
    size: int
    count: int
    dtype: str
    op: str
    algorithm: str
    time_median: float
    time_min: float
    time_max: float
    algbw: float
    busbw: float
    wrong: int | None  # ranks whose output differs from native; None for native, the reference
    vs_native: float | None


def parse_size(text: str) -> int:
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    text = text.strip().upper().removesuffix("B").removesuffix("I")
    return int(float(text[:-1]) * units[text[-1]]) if text and text[-1] in units else int(text)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-n", "--ranks", type=int, default=4, help="local ranks to spawn (default %(default)s)")
    parser.add_argument("--collective", default="all_reduce", choices=C.COLLECTIVES)
    parser.add_argument("--algorithms", help="comma-separated (default: native and every stepwise algorithm)")
    parser.add_argument("--dtype", default="float32", choices=sorted(ITEMSIZE))
    parser.add_argument("--op", default="SUM")
    parser.add_argument("-b", "--min-bytes", type=parse_size, default=parse_size("1K"))
    parser.add_argument("-e", "--max-bytes", type=parse_size, default=parse_size("16M"))
    parser.add_argument("-f", "--factor", type=int, default=4, help="size multiplier between rows (default %(default)s)")
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--capture", default="none", choices=("none", "summary"))
    parser.add_argument("--backend", choices=("gloo", "nccl"), help="default: nccl when every local rank has a GPU, else gloo")
    parser.add_argument("--json", action="store_true", help="print one JSON row per line instead of the table")


def sizes(args) -> list[int]:
    out, size = [], max(args.min_bytes, 1)
    while size <= args.max_bytes:
        out.append(size)
        size *= max(args.factor, 2)
    return out


def count_for(collective: str, size: int, itemsize: int, p: int) -> int:
    """Elements per block for a message of `size` bytes (collectives.message_bytes, inverted)."""
    return max(1, size // C.message_bytes(collective, 1, itemsize, p))


def measure(world, args_dict: dict, size: int, algorithm: str) -> tuple[list[float], int]:
    """On every rank: run once, return (per-iteration slowest-rank times, ranks wrong)."""
    import torch
    import torch.distributed as dist

    from .protocol import RunSpec
    from .runner import Runner

    a = argparse.Namespace(**args_dict)
    spec = RunSpec(collective=a.collective, algorithm=algorithm, dtype=a.dtype, op=a.op,
                   count=count_for(a.collective, size, ITEMSIZE[a.dtype], world.world_size),
                   pattern="random_float" if a.dtype.startswith(("float", "bfloat")) else "random_int",
                   capture=a.capture, iterations=a.iterations, warmup=a.warmup, verify=algorithm != NATIVE)
    finished = Runner(world, lambda event: None).run(f"bench-{algorithm}-{size}", spec)
    times = torch.tensor(finished.timings.iterations, dtype=torch.float64)
    wrong = torch.tensor([0 if finished.verified in (True, None) else 1])
    dist.all_reduce(times, op=dist.ReduceOp.MAX)
    dist.all_reduce(wrong)
    return times.tolist(), int(wrong)


def sweep(world, args_dict: dict, algorithms: list[str], size_list: list[int]) -> list[dict]:
    rows, total = [], len(size_list) * len(algorithms)
    a = argparse.Namespace(**args_dict)
    p = world.world_size
    for i, size in enumerate(size_list):
        native_time = None
        for j, algorithm in enumerate(algorithms):
            times, wrong = measure(world, args_dict, size, algorithm)
            median = statistics.median(times)
            native_time = median if algorithm == NATIVE else native_time
            count = count_for(a.collective, size, ITEMSIZE[a.dtype], p)
            algbw = size / median if median > 0 else 0.0
            rows.append(asdict(Row(
                size=size, count=count, dtype=a.dtype, op=a.op, algorithm=algorithm,
                time_median=median, time_min=min(times), time_max=max(times), algbw=algbw,
                busbw=algbw * C.BUS_FACTOR[a.collective](p), wrong=None if algorithm == NATIVE else wrong,
                vs_native=median / native_time if native_time else None,
            )))
            if world.rank == 0 and not a.json:
                progress(i * len(algorithms) + j + 1, total)
    return rows


def progress(done: int, total: int) -> None:
    width = 30
    filled = width * done // total
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
    sys.stderr.write("\n" if done == total else "")
    sys.stderr.flush()


def table(rows: list[dict], collective: str, p: int) -> str:
    head = (f"# ringside bench: {collective}, {p} ranks; time in us (slowest rank; median, min, max over iterations), "
            "bandwidth in GB/s")
    cols = f"{'size':>12} {'count':>11} {'dtype':>8} {'op':>7} {'algorithm':>19} {'median':>10} {'min':>10} {'max':>10} {'algbw':>8} {'busbw':>8} {'#wrong':>6} {'x native':>8}"
    lines = [head, cols]
    for r in rows:
        wrong = "-" if r["wrong"] is None else str(r["wrong"])
        ratio = "-" if r["vs_native"] is None else f"{r['vs_native']:.2f}"
        lines.append(f"{r['size']:>12} {r['count']:>11} {r['dtype']:>8} {r['op']:>7} {r['algorithm']:>19} "
                     f"{r['time_median'] * 1e6:>10.1f} {r['time_min'] * 1e6:>10.1f} {r['time_max'] * 1e6:>10.1f} "
                     f"{r['algbw'] / 1e9:>8.3f} {r['busbw'] / 1e9:>8.3f} {wrong:>6} {ratio:>8}")
    return "\n".join(lines)


def main(args: argparse.Namespace) -> int:
    from .local import run_ranks
    from .catalog import SpecError, validate
    from .protocol import RunSpec

    known = algorithms_for(args.collective)
    algorithms = args.algorithms.split(",") if args.algorithms else known
    if NATIVE in algorithms:  # native first, so every other row has its ratio
        algorithms = [NATIVE] + [a for a in algorithms if a != NATIVE]
    size_list = sizes(args)
    try:
        for algorithm in algorithms:
            validate(RunSpec(collective=args.collective, algorithm=algorithm, dtype=args.dtype, op=args.op,
                             count=count_for(args.collective, size_list[-1] if size_list else 1, ITEMSIZE[args.dtype], args.ranks),
                             capture=args.capture, iterations=args.iterations, warmup=args.warmup),
                     args.ranks, args.backend or "gloo")
        if not size_list:
            raise SpecError("max-bytes", f"must be at least min-bytes ({args.min_bytes})")
    except (SpecError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    results = run_ranks(sweep, args.ranks, vars(args), algorithms, size_list, timeout=24 * 3600, backend=args.backend)
    failed = [r for r in results if not isinstance(r, list)]
    if failed:
        print(f"error: {failed[0]}", file=sys.stderr)
        return 1
    rows = results[0]
    if args.json:
        for row in rows:
            print(json.dumps(row))
    else:
        print(table(rows, args.collective, args.ranks))
    return 0
