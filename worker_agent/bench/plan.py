"""What a bench runs: which algorithms (native first, auto last), at which sizes, on which (dtype,
op) pairs, each as a run's spec; and the refusal, naming the flag, of what no rank could run,
before any rank starts."""

from __future__ import annotations

import argparse
import sys

from ringside.bench.dtypes import ALL, TYPES, Pair, combos, refusal
from ringside.worker_agent.core.algorithms import AUTO, Algorithm, UnknownAlgorithm, algorithm_of, algorithms
from ringside.worker_agent.core.collectives import get
from ringside.worker_agent.core.protocol import MAX_ITERATIONS, RunSpec
from ringside.worker_agent.core.validation import SpecError, buffer_cap, validate
from ringside.worker_agent.core.vocabulary import DTYPES, ITEMSIZE
from ringside.worker_agent.user.user_algorithms import load

STEP = 1 << 20  # nccl-tests' -i: the increment between sizes where no -f above 1 is given
SIZED = ("count", "chunks")  # a run's fields whose refusal depends on its size alone


def sizes(collective: str, low: int, high: int, factor: int | None, step: int | None = None) -> list[int]:
    """From low to high, times -f where it is above 1, else plus -i (nccl-tests' stepping)."""
    if not get(collective).payload:
        return [0]  # a barrier carries no message of the user's: one row
    out, size = [], max(low, 1)
    while size <= high:
        out.append(size)
        size = size * factor if factor and factor > 1 else size + (step or STEP)
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


def pairs(args: argparse.Namespace, backend: str) -> tuple[list[Pair], list[str]]:
    """The (dtype, op) pairs -d and -o ask for that the backend runs, and those left out by why
    (dtypes.combos)."""
    return combos(backend, args.collective, args.dtype, args.op)


def compared(pair: Pair) -> bool:
    """Whether Ringside's algorithms run on this pair: its dtype is one of a run's."""
    return pair[0] is None or pair[0] in DTYPES


def on_pair(args: argparse.Namespace, pair: Pair) -> argparse.Namespace:
    """The flags for one pair, as a run's spec takes them (SUM for what does not reduce)."""
    dtype, op = pair
    return argparse.Namespace(**{**vars(args), "dtype": dtype or "float32", "op": op or "SUM"})


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


def check(args: argparse.Namespace, names: list[str], size_list: list[int], kept: list[Pair]) -> None:
    """Refuse what no rank could run, before any rank starts (SpecError names the field)."""
    if args.step and args.factor and args.factor > 1:
        raise SpecError("stepbytes", "give -f (a factor) or -i (an increment), not both")
    if not size_list:
        raise SpecError("maxbytes", f"must be at least minbytes ({args.min_bytes})")
    if args.iterations > MAX_ITERATIONS or args.warmup > MAX_ITERATIONS or args.check > MAX_ITERATIONS:
        raise SpecError("iters", f"iterations, warmup and check are at most {MAX_ITERATIONS}")
    if get(args.collective).rooted and args.root >= args.ranks:
        raise SpecError("root", f"must be a rank, below {args.ranks}, not {args.root}")
    for pair in kept:
        _check_native(args, pair, size_list)
    ours = [x for x in records(args.collective, names) if not x.chosen and not x.reference]
    for pair in filter(compared, kept if ours else []):
        for algorithm in ours:  # auto runs one of them; native ran above
            for size in size_list:
                unfit(on_pair(args, pair), algorithm.name, size, args.ranks)


def _check_native(args: argparse.Namespace, pair: Pair, size_list: list[int]) -> None:
    """torch's call on the largest size: its buffer within what a rank may hold."""
    collective, backend = get(args.collective), args.backend or "gloo"
    if pair[0] is None:
        return
    itemsize = TYPES[pair[0]].itemsize
    count = count_for(args.collective, max(size_list), itemsize, args.ranks)
    nbytes = collective.blocks(args.ranks) * count * itemsize
    if nbytes > buffer_cap(backend):
        raise SpecError(
            "maxbytes",
            f"{max(size_list)} bytes a rank make a {nbytes} byte buffer, past the "
            f"{buffer_cap(backend) >> 20} MiB a rank holds on {backend}",
        )


def unfit(a: argparse.Namespace, algorithm: str, size: int, p: int) -> str | None:
    """Why `algorithm` does not run at this size (None: it does): too few elements for its chunks,
    or its scratch past a rank's cap. nccl-tests' table runs every size; such an algorithm's row
    says why instead. Any other refusal holds at every size and is raised (SpecError)."""
    try:
        validate(spec_for(a, size, algorithm, p), p, a.backend or "gloo")
    except SpecError as e:
        if e.field not in SIZED:
            raise
        return e.message
    return None


def _refused_flag(args: argparse.Namespace) -> str:
    """The flag to name where no pair runs: -d where the dtypes themselves are refused, else -o."""
    backend = args.backend or "gloo"
    dtypes = list(TYPES) if args.dtype == ALL else [args.dtype]
    if all(refusal(backend, args.collective, d, None) for d in dtypes):
        return "datatype"
    return "op"


def prepare(args: argparse.Namespace, p: int, say: bool = True) -> tuple[list[str], list[int]]:
    """(algorithms, sizes) for `p` ranks on args.backend (None: gloo), the user's files loaded;
    raises SpecError. `say`: what is skipped goes to stderr (one rank of a cluster says it)."""
    for path in args.algorithms:
        try:
            load(path)
        except Exception as e:  # the user's file: whatever it raised, said plainly
            raise SpecError("algorithms", f"{path}: {type(e).__name__}: {e}") from None
    names = args.only.split(",") if args.only else default_algorithms(args.collective)
    size_list = sizes(args.collective, args.min_bytes, args.max_bytes, args.factor, args.step)
    names = fitting(args.collective, names, p, say)
    kept, left = pairs(args, args.backend or "gloo")
    if not kept:
        raise SpecError(_refused_flag(args), "; ".join(left))
    if say:
        for what in left:
            print(f"skipped: {what}", file=sys.stderr, flush=True)
    check(argparse.Namespace(**{**vars(args), "ranks": p}), names, size_list, kept)
    return names, size_list
