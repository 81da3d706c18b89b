"""What a bench runs: which algorithms (native first, auto last), at which sizes, each as a run's
spec; and the refusal, naming the flag, of what no rank could run, before any rank starts."""

from __future__ import annotations

import argparse
import sys

from ringside.worker_agent.core.algorithms import AUTO, Algorithm, UnknownAlgorithm, algorithm_of, algorithms
from ringside.worker_agent.core.collectives import get
from ringside.worker_agent.core.protocol import MAX_ITERATIONS, RunSpec
from ringside.worker_agent.core.validation import SpecError, validate
from ringside.worker_agent.core.vocabulary import ITEMSIZE
from ringside.worker_agent.user.user_algorithms import load


def sizes(collective: str, low: int, high: int, factor: int, step: int | None = None) -> list[int]:
    if not get(collective).payload:
        return [0]  # a barrier carries no message of the user's: one row
    out, size = [], max(low, 1)
    while size <= high:
        out.append(size)
        size = size + step if step else size * factor
    return out


def count_for(collective: str, size: int, itemsize: int, p: int) -> int:
    """Elements per block for a message of `size` bytes (Collective.message_bytes, inverted)."""
    return max(1, size // get(collective).message_bytes(1, itemsize, p))


def default_algorithms(collective: str) -> list[str]:
    """native, every built schedule, then auto, which runs one of them once all are measured."""
    return [a.name for a in algorithms(collective) if a.reference or a.built] + [AUTO]


def fitting(collective: str, names: list[str], p: int, say: bool = True) -> list[str]:
    """The named algorithms that run on `p` ranks; each one written for another world size (an
    MSCCL file's) is skipped, saying so on stderr (`say`). None left to run is refused."""
    kept = []
    for record in records(collective, names):
        if record.fits(p):
            kept.append(record.name)
        elif say:
            print(f"skipped: {record.misfit(p)}", file=sys.stderr, flush=True)
    if not [n for n in kept if not algorithm_of(collective, n).chosen]:
        raise SpecError("algorithm", f"none of {', '.join(names)} runs on {p} ranks")
    return kept


def records(collective: str, names: list[str]) -> list[Algorithm]:
    """The named algorithms, each once, native first so that every other row has its ratio;
    a name the collective lacks is refused as a run's would be."""
    try:
        found = [algorithm_of(collective, name) for name in dict.fromkeys(names)]
    except UnknownAlgorithm as e:
        raise SpecError("algorithm", str(e)) from None
    return sorted(found, key=lambda a: not a.reference)


def spec_for(a: argparse.Namespace, size: int, algorithm: str, p: int, chunks: int = 1) -> RunSpec:
    rooted = get(a.collective).rooted
    return RunSpec(
        collective=a.collective,
        algorithm=algorithm,
        dtype=a.dtype,
        op=a.op,
        count=count_for(a.collective, size, ITEMSIZE[a.dtype], p),
        root=a.root if rooted else 0,
        pattern="random_int" if a.dtype.startswith("int") else "random_float",
        capture="none",
        iterations=a.iterations,
        warmup=a.warmup,
        verify=False,
        chunks=chunks,
    )


def check(args: argparse.Namespace, names: list[str], size_list: list[int]) -> None:
    """Refuse what no rank could run, before any rank starts (SpecError names the field)."""
    if args.step and args.factor:
        raise SpecError("stepbytes", "give -f (a factor) or -i (an increment), not both")
    if not size_list:
        raise SpecError("maxbytes", f"must be at least minbytes ({args.min_bytes})")
    if args.iterations > MAX_ITERATIONS or args.warmup > MAX_ITERATIONS:
        raise SpecError("iters", f"iterations and warmup are at most {MAX_ITERATIONS}")
    if get(args.collective).rooted and args.root >= args.ranks:
        raise SpecError("root", f"must be a rank, below {args.ranks}, not {args.root}")
    for algorithm in (x for x in records(args.collective, names) if not x.chosen):  # auto runs one of them
        for size in size_list:
            _check_runs(args, algorithm.name, size)


def _check_runs(args: argparse.Namespace, algorithm: str, size: int) -> None:
    """One algorithm at one size; small sizes can be too few elements for a schedule's chunks."""
    try:
        validate(spec_for(args, size, algorithm, args.ranks), args.ranks, args.backend or "gloo")
    except SpecError as e:
        if e.field not in ("count", "chunks"):
            raise
        raise SpecError(e.field, f"{e.message} ({algorithm} at {size} bytes per rank)") from None


def prepare(args: argparse.Namespace, p: int, say: bool = True) -> tuple[list[str], list[int]]:
    """(algorithms, sizes) for `p` ranks, the user's files loaded; raises SpecError. `say`: what is
    skipped goes to stderr (one rank of a cluster says it)."""
    for path in args.algorithms:
        try:
            load(path)
        except Exception as e:  # the user's file: whatever it raised, said plainly
            raise SpecError("algorithms", f"{path}: {type(e).__name__}: {e}") from None
    names = args.only.split(",") if args.only else default_algorithms(args.collective)
    size_list = sizes(args.collective, args.min_bytes, args.max_bytes, args.factor or 4, args.step)
    names = fitting(args.collective, names, p, say)
    check(argparse.Namespace(**{**vars(args), "ranks": p}), names, size_list)
    return names, size_list
