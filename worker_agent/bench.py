"""`ringside bench`: spawn P local ranks and print an nccl-tests-style table.

`auto` (in the default list) runs after every other algorithm has been measured at
every size: at each size it runs what the model (predict.py) picks, fitted as the
server fits it to a swept cluster, to this table's own runs (alpha, beta and gamma to
the stepwise ones, a line per size to native's), and the row says what it ran.

Size is one rank's buffer in bytes, as nccl-tests count it (the larger of a
rank's input and output). Every iteration's time is the slowest rank's;
algbw = size / time and busbw = algbw x the collective's factor, so busbw
compares with the link's speed whatever the collective. Each (size,
algorithm) is one Runner.run with capture none: warm-up, timed iterations,
then one verification against native outside the timed part.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from dataclasses import asdict, dataclass

from .core import predict
from .core.algorithms import AUTO, Algorithm, UnknownAlgorithm, algorithm_of, algorithms, build
from .core.collectives import COLLECTIVES, get
from .core.protocol import RunSpec
from .core.simulate import ALONE, Sharing, cost
from .core.validation import MAX_ITERATIONS, SpecError, validate
from .core.vocabulary import ITEMSIZE
from .user.user_algorithms import load


@dataclass
class Row:
    size: int  # bytes in one rank's message
    count: int  # elements per block (collectives.py)
    dtype: str | None  # None for barrier, which moves no data of the user's
    op: str | None
    algorithm: str
    time_median: float  # seconds
    time_min: float
    time_max: float
    algbw: float | None  # bytes/s; None for barrier
    busbw: float | None
    wrong: int | None  # ranks whose output differs from native; None for native, the reference
    vs_native: float | None  # this row's median over native's at the same size
    ranks: int
    backend: str
    ran: str | None = None  # auto: the algorithm (and chunks) it chose
    why: str | None = None  # auto: the candidates' predicted times


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


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-n", "--ranks", type=at_least(1), default=4,
                        help="local ranks to spawn (default %(default)s)")
    parser.add_argument("-c", "--collective", default="all_reduce", choices=list(COLLECTIVES))
    parser.add_argument("-a", "--only", metavar="NAMES",
                        help="algorithms to run, comma-separated (default: native, "
                             "every stepwise one and auto)")
    parser.add_argument("-d", "--dtype", default="float32", choices=sorted(ITEMSIZE))
    parser.add_argument("-o", "--op", default="SUM", help="reduction (default %(default)s)")
    parser.add_argument("-b", "--min-bytes", type=parse_size, default=parse_size("1K"),
                        help="smallest size per rank (default 1K)")
    parser.add_argument("-e", "--max-bytes", type=parse_size, default=parse_size("16M"),
                        help="largest size per rank (default 16M)")
    parser.add_argument("-f", "--factor", type=at_least(2), default=4,
                        help="size multiplier between rows (default %(default)s)")
    parser.add_argument("--iterations", type=at_least(1), default=20,
                        help="timed iterations per row (default %(default)s)")
    parser.add_argument("--warmup", type=at_least(0), default=5,
                        help="untimed iterations first (default %(default)s)")
    parser.add_argument("--backend", choices=("gloo", "nccl"),
                        help="default: nccl when every local rank has a GPU, else gloo")
    parser.add_argument("--json", action="store_true",
                        help="print one JSON object per row instead of the table")
    parser.add_argument("--algorithms", action="append", default=[], metavar="FILE",
                        help="a file of your own algorithms (Python, or MSCCL's XML) "
                             "to load first; repeatable")


def sizes(collective: str, low: int, high: int, factor: int) -> list[int]:
    if not get(collective).payload:
        return [0]  # a barrier carries no message of the user's: one row
    out, size = [], max(low, 1)
    while size <= high:
        out.append(size)
        size *= factor
    return out


def count_for(collective: str, size: int, itemsize: int, p: int) -> int:
    """Elements per block for a message of `size` bytes (Collective.message_bytes, inverted)."""
    return max(1, size // get(collective).message_bytes(1, itemsize, p))


def default_algorithms(collective: str) -> list[str]:
    """native, every built schedule, then auto, which runs one of them once all are measured."""
    return [a.name for a in algorithms(collective) if a.reference or a.built] + [AUTO]


def fitting(collective: str, names: list[str], p: int) -> list[str]:
    """The named algorithms that run on `p` ranks; each one written for another world size (an
    MSCCL file's) is skipped, saying so on stderr. None left to run is refused."""
    kept = []
    for record in records(collective, names):
        if record.fits(p):
            kept.append(record.name)
        else:
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
    # native verifies nothing: it is the reference
    reference = algorithm_of(a.collective, algorithm).reference
    return RunSpec(collective=a.collective, algorithm=algorithm, dtype=a.dtype, op=a.op,
                   count=count_for(a.collective, size, ITEMSIZE[a.dtype], p),
                   pattern="random_int" if a.dtype.startswith("int") else "random_float",
                   capture="none", iterations=a.iterations, warmup=a.warmup, verify=not reference,
                   chunks=chunks)


def measure(world, a: argparse.Namespace, size: int, algorithm: str,
            chunks: int = 1) -> tuple[list[float], int]:
    """On every rank, together: one run; (each iteration's slowest-rank time, ranks wrong)."""
    import torch
    import torch.distributed as dist

    from .rank.runner import Runner

    spec = spec_for(a, size, algorithm, world.world_size, chunks)
    finished = Runner(world, lambda event: None).run(f"bench-{algorithm}-{size}", spec)
    times = torch.tensor(finished.timings.iterations, dtype=torch.float64)
    wrong = torch.tensor([0 if finished.verified in (True, None) else 1])
    dist.all_reduce(times, op=dist.ReduceOp.MAX)
    dist.all_reduce(wrong)
    return times.tolist(), int(wrong)


def sharing_of(world) -> Sharing:
    """How the table's ranks share cores, as the server reads it from their hellos."""
    import torch.distributed as dist

    hello, everyone = world.hello(), [None] * world.world_size
    dist.all_gather_object(everyone, (hello.host, hello.cores))
    return Sharing.of(everyone)


def row(a: argparse.Namespace, world, size: int, algorithm: Algorithm, times: list[float], wrong: int,
        native_time: float | None) -> Row:
    p = world.world_size
    spec, collective = spec_for(a, size, algorithm.name, p), get(a.collective)
    moves = collective.payload
    nbytes = collective.message_bytes(spec.count, ITEMSIZE[collective.dtype(spec)], p) if moves else 0
    median = statistics.median(times)
    algbw = (nbytes / median if median > 0 else 0.0) if moves else None
    return Row(size=nbytes, count=spec.count if moves else 0, dtype=a.dtype if moves else None,
               op=collective.op(spec) if moves else None, algorithm=algorithm.name,
               time_median=median, time_min=min(times), time_max=max(times), algbw=algbw,
               busbw=None if algbw is None else algbw * collective.bus_factor(p),
               wrong=None if algorithm.reference else wrong,
               vs_native=1.0 if algorithm.reference else (median / native_time if native_time else None),
               ranks=p, backend=world.backend)


def sweep(world, args_dict: dict, names: list[str], size_list: list[int]) -> list[dict]:
    """On every rank: the whole table, every size and algorithm in turn (native first), then
    auto at every size; rows in size order."""
    a = argparse.Namespace(**args_dict)
    for path in a.algorithms:  # ranks fork from a server that has not seen the user's files
        load(path)
    asked = records(a.collective, names)
    rows, total = [], len(size_list) * len(asked)
    native_time = {}
    for size in size_list:
        for algorithm in (x for x in asked if not x.chosen):
            times, wrong = measure(world, a, size, algorithm.name)
            r = row(a, world, size, algorithm, times, wrong, native_time.get(size))
            native_time[size] = r.time_median if algorithm.reference else native_time.get(size)
            rows.append(asdict(r))
            if world.rank == 0:
                progress(len(rows), total)
    auto = next((x for x in asked if x.chosen), None)
    if auto is not None:
        sharing = sharing_of(world)
        fitted, native = model_of(rows, a.collective, world.world_size, sharing)
        for size in size_list:
            choice = pick(a, world.world_size, size, fitted, native, sharing)
            times, wrong = measure(world, a, size, choice.algorithm, choice.chunks)
            r = row(a, world, size, auto, times, wrong, native_time.get(size))
            r.ran = choice.algorithm + (f" x{choice.chunks}" if choice.chunks > 1 else "")
            r.why = choice.why
            rows.append(asdict(r))
            if world.rank == 0:
                progress(len(rows), total)
    order = {x.name: i for i, x in enumerate(asked)}
    return sorted(rows, key=lambda r: (r["size"], order[r["algorithm"]]))


def model_of(rows: list[dict], collective: str, p: int,
             sharing: Sharing = ALONE) -> tuple[predict.Fitted, predict.NativeFit | None]:
    """The model as the server fits it, from this table's rows: alpha, beta and gamma from the
    stepwise ones (terms read from their schedules, on ranks sharing cores as `sharing` says),
    a line from native's."""
    samples, points = [], []
    for r in rows:
        algorithm = algorithm_of(collective, r["algorithm"])
        if algorithm.reference:
            points.append((r["size"], r["time_median"]))
        elif algorithm.built:
            schedule = build(collective, r["algorithm"], p)
            terms = cost(schedule, r["count"], ITEMSIZE[r["dtype"]], sharing) if r["dtype"] else None
            if terms is not None:
                samples.append(predict.Sample(terms.steps, terms.bytes, terms.reduced,
                                              r["time_median"], r["size"]))
    return predict.solve(samples, "fitted to this table's stepwise runs"), predict.fit_native(points)


def pick(a: argparse.Namespace, p: int, size: int, fitted: predict.Fitted, native: predict.NativeFit | None,
         sharing: Sharing = ALONE) -> predict.Choice:
    """What auto runs at this size: the stepwise algorithms that can run it, ranked by the model."""
    names = []
    for algorithm in predict.stepwise(a.collective, p):
        try:
            validate(spec_for(a, size, algorithm, p), p, a.backend or "gloo")
        except SpecError:
            continue
        names.append(algorithm)
    collective, itemsize = get(a.collective), ITEMSIZE[a.dtype]
    count = count_for(a.collective, size, itemsize, p)
    nbytes = collective.message_bytes(count, itemsize, p) if collective.payload else 0
    return predict.pick(a.collective, p, 0, nbytes, itemsize, fitted, native, names, sharing=sharing)


def progress(done: int, total: int, width: int = 30) -> None:
    """A plain-text bar on stderr, redrawn in place; only on a terminal, so logs stay clean."""
    if not sys.stderr.isatty():
        return
    filled = width * done // total
    end = "\r\033[K" if done == total else ""
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total}{end}")
    sys.stderr.flush()


def table(rows: list[dict], collective: str) -> str:
    def num(value, scale: float, fmt: str) -> str:
        return "-" if value is None else format(value * scale, fmt)

    lines = [
        f"# ringside bench: {collective}, {rows[0]['ranks']} ranks, {rows[0]['backend']}; time in us (each "
        "iteration's slowest rank: median, min, max), bandwidth in GB/s",
        f"{'size':>12} {'count':>11} {'type':>8} {'redop':>7} {'algorithm':>19} {'median':>10} {'min':>10} "
        f"{'max':>10} {'algbw':>8} {'busbw':>8} {'#wrong':>6} {'x native':>8}  auto ran",
    ]
    for r in rows:
        lines.append(
            f"{r['size']:>12} {r['count']:>11} {r['dtype'] or '-':>8} {r['op'] or '-':>7} "
            f"{r['algorithm']:>19} {r['time_median'] * 1e6:>10.1f} {r['time_min'] * 1e6:>10.1f} "
            f"{r['time_max'] * 1e6:>10.1f} {num(r['algbw'], 1e-9, '.3f'):>8} "
            f"{num(r['busbw'], 1e-9, '.3f'):>8} {'-' if r['wrong'] is None else r['wrong']:>6} "
            f"{num(r['vs_native'], 1, '.2f'):>8}"
            + (f"  {r['ran']}" if r.get("ran") else "")
        )
    return "\n".join(lines)


def check(args: argparse.Namespace, names: list[str], size_list: list[int]) -> None:
    """Refuse what no rank could run, before any rank starts (SpecError names the field)."""
    if not size_list:
        raise SpecError("max-bytes", f"must be at least min-bytes ({args.min_bytes})")
    if args.iterations > MAX_ITERATIONS or args.warmup > MAX_ITERATIONS:
        raise SpecError("iterations", f"iterations and warmup are at most {MAX_ITERATIONS}")
    for algorithm in (x for x in records(args.collective, names) if not x.chosen):  # auto runs one of them
        for size in size_list:  # small sizes can be too few elements for a schedule's chunks
            try:
                validate(spec_for(args, size, algorithm.name, args.ranks), args.ranks, args.backend or "gloo")
            except SpecError as e:
                if e.field not in ("count", "chunks"):
                    raise
                raise SpecError(e.field, f"{e.message} ({algorithm.name} at {size} bytes per rank)") from None


def main(args: argparse.Namespace) -> int:
    from .rank.local import RankError, run_ranks

    try:
        for path in args.algorithms:
            load(path)
    except Exception as e:  # the user's file: whatever it raised, said plainly
        print(f"error: --algorithms: {type(e).__name__}: {e}", file=sys.stderr)
        return 2

    names = args.only.split(",") if args.only else default_algorithms(args.collective)
    size_list = sizes(args.collective, args.min_bytes, args.max_bytes, args.factor)
    try:
        names = fitting(args.collective, names, args.ranks)
        check(args, names, size_list)
    except SpecError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    results = run_ranks(sweep, args.ranks, vars(args), names, size_list, timeout=24 * 3600,
                        backend=args.backend)
    failed = [r for r in results if not isinstance(r, list)]
    if failed:
        print(f"error: {failed[0]}", file=sys.stderr)
        return 2 if all(isinstance(r, RankError) and r.kind == "SpecError" for r in failed) else 1
    rows = results[0]
    if args.json:
        print("\n".join(json.dumps(r) for r in rows))
    else:
        print(table(rows, args.collective))
    return 0
