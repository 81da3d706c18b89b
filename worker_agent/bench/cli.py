"""`ringside bench`: its flags (nccl-tests', with their values and defaults, and Ringside's own by
long names) and its run on local ranks, or on a server's cluster with --server (clients/bench.py)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable

from ringside.bench import dtypes
from ringside.bench.plan import STEP, prepare
from ringside.bench.report import report
from ringside.bench.statistics import AVERAGING
from ringside.worker_agent.core.collectives import COLLECTIVES
from ringside.worker_agent.core.validation import SpecError

LOCAL_RANKS = 4  # --ranks' default
SIZE = 32 << 20  # nccl-tests' -b and -e
DAY_S = 24 * 3600  # as long as local ranks may take: a sweep's length is the user's choice


def parse_size(text: str) -> int:
    """Bytes from '4096', '1K', '16M', '1GiB'..."""
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    clean = text.strip().upper().removesuffix("B").removesuffix("I")
    try:
        return int(float(clean[:-1]) * units[clean[-1]]) if clean and clean[-1] in units else int(clean)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size (bytes, or with K, M, G)") from None


def at_least(low: int):
    def check(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = low - 1
        if value < low:
            raise argparse.ArgumentTypeError(f"must be an integer of at least {low}, not {text!r}")
        return value

    return check


def one_of(values: tuple[int, ...]):
    def check(text: str) -> int:
        if text.strip() not in {str(v) for v in values}:
            raise argparse.ArgumentTypeError(f"must be one of {', '.join(map(str, values))}, not {text!r}")
        return int(text)

    return check


def only(allowed: tuple[int, ...], why: str):
    """An nccl-tests flag of which this design has only `allowed` (integers as nccl-tests read
    them: 0x10 too); any other value refused, saying why."""

    def check(text: str) -> int:
        try:
            value = int(text.strip(), 0)
        except ValueError:
            value = None
        if value not in allowed:
            words = " or ".join(map(str, allowed))
            raise argparse.ArgumentTypeError(f"must be {words}, not {text!r}: {why}")
        return value

    return check


def refused_as_argument(parse: Callable[[str], str]) -> Callable[[str], str]:
    """A dtypes parser as an argparse type: its ValueError said as argparse says a bad value."""

    def check(text: str) -> str:
        try:
            return parse(text)
        except ValueError as e:
            raise argparse.ArgumentTypeError(str(e)) from None

    return check


def add_arguments(parser: argparse.ArgumentParser, local: bool = True) -> None:
    """nccl-tests' flags where they mean the same; Ringside's own by long names only."""
    add = parser.add_argument
    if local:
        _add_where(add)
    _add_algorithms(add)
    _add_sizes(add)
    _add_runs(add)
    _add_one_gpu_a_process(add)
    _add_output(add)


def _add_where(add: Callable) -> None:
    """Local ranks, or a server's cluster: not under torchrun, whose ranks are its own."""
    add(
        "--ranks",
        metavar="P",
        type=at_least(1),
        help=f"local ranks to spawn (default {LOCAL_RANKS}; a long name only: nccl-tests' -t and -g "
        "mean threads and GPUs, which are 1 here). Under torchrun the ranks are torchrun's: "
        "python -m ringside.bench",
    )
    add(
        "--server",
        metavar="URL",
        help="run it on this server's connected cluster instead (its ranks, backend and algorithms)",
    )
    add(
        "--token",
        default=os.environ.get("RINGSIDE_PRESENTER_TOKEN"),
        help="with --server: the presenter token (default: $RINGSIDE_PRESENTER_TOKEN)",
    )


def _add_algorithms(add: Callable) -> None:
    add("--collective", default="all_reduce", choices=list(COLLECTIVES))
    add(
        "--only",
        metavar="NAMES",
        help="algorithms to run, comma-separated (default: native, every stepwise one and auto)",
    )
    add(
        "--algorithms",
        action="append",
        default=[],
        metavar="FILE",
        help="a file of your own algorithms (Python, or MSCCL's XML) to load first; repeatable, as for "
        "serve and worker",
    )


def _add_sizes(add: Callable) -> None:
    add(
        "-b",
        "--minbytes",
        dest="min_bytes",
        metavar="SIZE",
        type=parse_size,
        default=SIZE,
        help="smallest size per rank (default 32M, as nccl-tests')",
    )
    add(
        "-e",
        "--maxbytes",
        dest="max_bytes",
        metavar="SIZE",
        type=parse_size,
        default=SIZE,
        help="largest size per rank (default 32M, as nccl-tests')",
    )
    add(
        "-f",
        "--stepfactor",
        dest="factor",
        metavar="N",
        type=at_least(1),
        help="multiplication factor between sizes (default: none, 1, so -i steps them)",
    )
    add(
        "-i",
        "--stepbytes",
        dest="step",
        metavar="SIZE",
        type=parse_size,
        help=f"increment between sizes where -f is not above 1 (default {STEP >> 20}M, as nccl-tests')",
    )


def _add_runs(add: Callable) -> None:
    """How each size runs: iterations, checking, its elements, and how the ranks' times combine."""
    add(
        "-n",
        "--iters",
        "--iterations",
        dest="iterations",
        metavar="N",
        type=at_least(1),
        default=20,
        help="timed iterations (default %(default)s)",
    )
    add(
        "-w",
        "--warmup_iters",
        "--warmup",
        dest="warmup",
        metavar="N",
        type=at_least(0),
        default=1,
        help="untimed iterations first (default %(default)s, as nccl-tests')",
    )
    add(
        "-m",
        "--agg_iters",
        dest="agg_iters",
        metavar="N",
        type=at_least(1),
        default=1,
        help="nccl-tests' aggregated iterations: each timed iteration of nccl-tests' table launches N "
        "calls back to back, and a call's time is the span over iterations x N (default 1). "
        "Ringside's algorithms run one call an iteration",
    )
    add(
        "-c",
        "--check",
        metavar="N",
        type=at_least(0),
        default=1,
        help="checked calls per result, each counting its wrong elements, every algorithm's; the "
        "first with any is shown (0: none; default 1)",
    )
    add(
        "-o",
        "--op",
        metavar="OP",
        type=refused_as_argument(dtypes.op_name),
        default="SUM",
        help="reduction: sum, prod, max, min, avg, band, bor, bxor, or all (every one the backend "
        "has for the dtype); ignored by what does not reduce (default sum)",
    )
    add(
        "-d",
        "--datatype",
        "--dtype",
        dest="dtype",
        metavar="TYPE",
        type=refused_as_argument(dtypes.dtype_name),
        default="float32",
        help="element type: torch's name or nccl-tests' (float, half, double, int8, uint8, int32, int64, "
        "bfloat16, f8e4m3, ...), or all (every one the backend carries); default float",
    )
    add("-r", "--root", metavar="RANK", type=at_least(0), default=0, help="root rank (default 0)")
    add(
        "-a",
        "--average",
        metavar="0-3",
        type=one_of(tuple(AVERAGING)),
        default=1,
        help="a row's time across ranks: 0 rank 0's, 1 the mean, 2 the min, 3 the max (of each rank's "
        "mean over its iterations; default 1)",
    )
    add(
        "-z",
        "--blocking",
        metavar="0-3",
        type=one_of((0, 1, 2, 3)),
        default=0,
        help="as nccl-tests': 0 the calls launched back to back, waited for once (default); 1 each "
        "waited for, then a barrier, in the time; 2 each waited for; 3 each waited for, then a "
        "barrier outside the time. Ringside's algorithms always wait for each iteration; with 1 "
        "and 3 each starts at a barrier, outside the time",
    )


MORE_RANKS = "for more, give --ranks (under torchrun, its --nproc-per-node)"


def _add_one_gpu_a_process(add: Callable) -> None:
    """nccl-tests' flags for threads, GPUs, graphs and init, which most of their command lines
    carry: each rank here is a process of its own with one thread and one device, so only the
    values that say so are taken, and -p, which changes nothing where each process starts one
    rank, either way."""
    add(
        "-t",
        "--nthreads",
        metavar="1",
        type=only((1,), f"each rank is a process of its own, one thread each; {MORE_RANKS}"),
        default=1,
        help="nccl-tests' threads per process: 1, as every rank here is a process",
    )
    add(
        "-g",
        "--ngpus",
        metavar="1",
        type=only((1,), f"each rank drives one device, in a process of its own; {MORE_RANKS}"),
        default=1,
        help="nccl-tests' GPUs per thread: 1, as every rank here drives one device",
    )
    add(
        "-G",
        "--cudagraph",
        metavar="0",
        type=only((0,), "torch's process group calls are launched one by one, not from a CUDA graph"),
        default=0,
        help="nccl-tests' CUDA graph launches: 0, as the calls are not captured in a graph",
    )
    add(
        "-p",
        "--parallel_init",
        metavar="0|1",
        type=only((0, 1), "nccl-tests' parallel init is 0 or 1"),
        default=0,
        help="nccl-tests' parallel init: taken and changes nothing, as each process starts its one rank "
        "alongside the others either way",
    )


def _add_output(add: Callable) -> None:
    add(
        "--backend", choices=("gloo", "nccl"), help="default: nccl when every local rank has a GPU, else gloo"
    )
    add(
        "--json",
        metavar="FILE",
        help="also write both tables as JSON to FILE ('-': to stdout, instead of the tables)",
    )


def main(args: argparse.Namespace) -> int:
    """`ringside bench`: local ranks, or a server's cluster (clients/bench.py)."""
    from ringside.bench.run import run
    from ringside.worker_agent.rank.local import RankError, run_ranks

    if args.server:
        from ringside.worker_agent.clients import bench as client

        if args.agg_iters != 1:  # a served bench's spec has no such field: refused, not dropped
            print("error: -m/--agg_iters: a served bench runs one call an iteration (-m 1)", file=sys.stderr)
            return 2
        return client.main(args)
    args.ranks = args.ranks or LOCAL_RANKS
    args.backend = args.backend or local_backend(args.ranks)
    try:
        names, size_list = prepare(args, args.ranks)
    except SpecError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    ranks = run_ranks(run, args.ranks, vars(args), names, size_list, timeout=DAY_S, backend=args.backend)
    failed = [r for r in ranks if not isinstance(r, tuple)]
    if failed:
        print(f"error: {failed[0]}", file=sys.stderr)
        return 2 if all(isinstance(r, RankError) and r.kind == "SpecError" for r in failed) else 1
    setting, results, rows = ranks[0]
    return report(setting, results, rows, args)


def local_backend(ranks: int) -> str:
    """What local ranks choose (process_group.py): NCCL where each can have a GPU of its own."""
    import torch

    return "nccl" if torch.cuda.is_available() and torch.cuda.device_count() >= ranks else "gloo"
