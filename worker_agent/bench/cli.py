"""`ringside bench`: its flags (nccl-tests' where they mean the same) and its run on local ranks,
or on a server's cluster with --server (clients/bench.py)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable

from ringside.bench.plan import prepare
from ringside.bench.statistics import AVERAGING
from ringside.bench.sweep import sweep
from ringside.bench.table import report
from ringside.worker_agent.core.collectives import COLLECTIVES
from ringside.worker_agent.core.validation import SpecError
from ringside.worker_agent.core.vocabulary import ITEMSIZE, OPS

LOCAL_RANKS = 4  # --ranks' default
DTYPE_ALIASES = {
    "float": "float32",
    "half": "float16",
    "double": "float64",
    "int": "int32",
    "bf16": "bfloat16",
}  # nccl-tests' -d names


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


def dtype_name(text: str) -> str:
    name = DTYPE_ALIASES.get(text.lower(), text.lower())
    if name not in ITEMSIZE:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a dtype (one of {', '.join(sorted(ITEMSIZE))}, "
            f"or nccl-tests' {', '.join(DTYPE_ALIASES)})"
        )
    return name


def op_name(text: str) -> str:
    name = "PRODUCT" if text.lower() == "prod" else text.upper()  # nccl-tests' name for it
    if name not in OPS:
        raise argparse.ArgumentTypeError(f"{text!r} is not a reduction (one of {', '.join(OPS)}, or prod)")
    return name


def add_arguments(parser: argparse.ArgumentParser, local: bool = True) -> None:
    """nccl-tests' flags where they mean the same; Ringside's own by long names only."""
    add = parser.add_argument
    if local:
        _add_where(add)
    _add_algorithms(add)
    _add_sizes(add)
    _add_runs(add)
    _add_output(add)


def _add_where(add: Callable) -> None:
    """Local ranks, or a server's cluster: not under torchrun, whose ranks are its own."""
    add(
        "--ranks",
        metavar="P",
        type=at_least(1),
        help=f"local ranks to spawn (default {LOCAL_RANKS}; a long name only: nccl-tests' -t, -g and -p "
        "mean threads, GPUs and parallel init). Under torchrun the ranks are torchrun's: "
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
        default=parse_size("1K"),
        help="smallest size per rank (default 1K)",
    )
    add(
        "-e",
        "--maxbytes",
        dest="max_bytes",
        metavar="SIZE",
        type=parse_size,
        default=parse_size("16M"),
        help="largest size per rank (default 16M)",
    )
    add(
        "-f",
        "--stepfactor",
        dest="factor",
        metavar="N",
        type=at_least(2),
        help="multiplication factor between sizes (default 4)",
    )
    add(
        "-i",
        "--stepbytes",
        dest="step",
        metavar="SIZE",
        type=parse_size,
        help="increment between sizes instead of -f",
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
        default=5,
        help="untimed iterations first (default %(default)s)",
    )
    add(
        "-c",
        "--check",
        metavar="0|1",
        type=one_of((0, 1)),
        default=1,
        help="count wrong elements of one run per row, every algorithm's (default 1)",
    )
    add("-o", "--op", metavar="OP", type=op_name, default="SUM", help="reduction (default sum)")
    add(
        "-d",
        "--datatype",
        "--dtype",
        dest="dtype",
        metavar="TYPE",
        type=dtype_name,
        default="float32",
        help="element type (default float32)",
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
        metavar="0|1",
        type=one_of((0, 1)),
        default=0,
        help="1: the ranks meet at a barrier between iterations (outside the time), as nccl-tests' -z 1 "
        "syncs them; 0: back to back (default). -a combines ranks either way (-z 1 -a 3: each "
        "iteration's slowest rank). Each iteration waits for the device either way",
    )


def _add_output(add: Callable) -> None:
    add(
        "--backend", choices=("gloo", "nccl"), help="default: nccl when every local rank has a GPU, else gloo"
    )
    add(
        "--json",
        metavar="FILE",
        help="also write every row as JSON to FILE ('-': to stdout, instead of the table)",
    )


def main(args: argparse.Namespace) -> int:
    """`ringside bench`: local ranks, or a server's cluster (clients/bench.py)."""
    from ringside.worker_agent.rank.local import RankError, run_ranks

    if args.server:
        from ringside.worker_agent.clients import bench as client

        return client.main(args)
    args.ranks = args.ranks or LOCAL_RANKS
    try:
        names, size_list = prepare(args, args.ranks)
    except SpecError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    results = run_ranks(
        sweep, args.ranks, vars(args), names, size_list, timeout=24 * 3600, backend=args.backend
    )
    failed = [r for r in results if not isinstance(r, list)]
    if failed:
        print(f"error: {failed[0]}", file=sys.stderr)
        return 2 if all(isinstance(r, RankError) and r.kind == "SpecError" for r in failed) else 1
    return report(results[0], args)
