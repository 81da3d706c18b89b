"""`ringside bench`: nccl-tests' table for every algorithm of a collective, on local ranks
(`ringside bench --ranks P`), on any cluster under torchrun (`torchrun ... -m ringside.bench
ARGS`) or on a server's connected cluster (`ringside bench --server URL`, bench_remote.py): every
rank measures, and rank 0 (under a server, the CLI) prints one table of all the ranks' numbers.

Timing is nccl-tests' by default: on each rank the iterations run back to back (no barrier), a
row's time is each rank's mean over its iterations, combined across ranks as -a says (the mean
by default). With -z 1 every iteration starts at a barrier, outside its time (-z 1 -a 3: each
iteration's slowest rank). Unlike nccl-tests, each iteration waits for the device before the next begins: when the
table compares algorithms their iterations take turns (native ring tree, ring tree native, ...)
so that drift on a busy machine, and the skew a turn's first run absorbs, hit all of them alike. Each ratio to native carries a 95%
bootstrap interval over those iterations (paired, in runs of consecutive ones, seeded: the same
samples give the same interval), and the table marks a difference only where the interval excludes 1.

Size is one rank's message in bytes (the larger of input and output) and count the elements of
one block of it (all_gather's input, reduce_scatter's output, all_to_all's to each peer), as
nccl-tests count them; algbw = size / time, busbw = algbw x the collective's factor. A row's
numbers sit in nccl-tests' in-place or out-of-place columns as the descriptor says its run is
laid out (a schedule's working buffer is in place, all_to_all's halves are apart; native is
torch's own call: all_reduce is in place, all_gather_into_tensor from a copy is not). With
-c 1, #wrong counts the elements of one run's output, on every rank and for every algorithm,
native included, that are off the collective's definition (collectives/, from every rank's
input) by more than verify.py's tolerance.

`auto` runs after every other algorithm has been measured at every size: at each size it runs
what the model (predict.py) picks, fitted as the server fits it to a swept cluster, to this
table's own runs, taking turns with native once more for its ratio; the row says what it ran.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from .core import predict
from .core.algorithms import AUTO, NATIVE, Algorithm, UnknownAlgorithm, algorithm_of, algorithms, build
from .core.collectives import COLLECTIVES, get
from .core.protocol import RunSpec
from .core.run_shape import peer_of
from .core.simulate import ALONE, Sharing, cost
from .core.validation import MAX_ITERATIONS, SpecError, validate
from .core.vocabulary import ITEMSIZE, OPS
from .user.user_algorithms import load

LOCAL_RANKS = 4  # --ranks' default
# nccl-tests' -a: how a row's time combines the ranks' (each rank's mean over its iterations)
AVERAGING = {0: "rank 0's", 1: "the mean over ranks", 2: "the fastest rank's", 3: "the slowest rank's"}
DTYPE_ALIASES = {
    "float": "float32",
    "half": "float16",
    "double": "float64",
    "int": "int32",
    "bf16": "bfloat16",
}  # nccl-tests' -d names
CONFIDENCE = 0.95
RESAMPLES = 2000
# the type column in nccl-tests' words (the JSON keeps torch's)
NCCL_TYPE = {"float32": "float", "float16": "half", "float64": "double"}
# -c rebuilds every rank's input on each rank (P x size for all_reduce): past this, N/A
CHECK_CAP = 2 << 30
MIN_SAMPLES = 5  # fewer iterations give no interval: a bootstrap over two or three is no evidence
PAUSE_EVERY = 10  # rounds of iterations between a served bench's asks whether to stop
# what bench/ scripts that call sweep() may leave out
SWEEP_DEFAULTS = {"check": 1, "average": 1, "blocking": 0, "root": 0, "algorithms": []}


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
    add(
        "--backend", choices=("gloo", "nccl"), help="default: nccl when every local rank has a GPU, else gloo"
    )
    add(
        "--json",
        metavar="FILE",
        help="also write every row as JSON to FILE ('-': to stdout, instead of the table)",
    )


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


# --- on every rank ----------------------------------------------------------------------------


def expected(spec: RunSpec, me: int, p: int):
    """This rank's output by the collective's definition, from every rank's input (a tensor, or
    None where the rank has no output)."""
    import torch

    from .rank.runner import torch_input

    collective, cpu = get(spec.collective, spec.servers), torch.device("cpu")
    inputs = []
    for rank in range(p):  # as the ranks hold them: in the run's dtype (numpy has no bfloat16)
        x = torch_input(spec, rank, p, cpu)
        inputs.append((x.float() if x.dtype == torch.bfloat16 else x).numpy())
    want = collective.reference(inputs, collective.op(spec), spec.root, peer_of(spec, list(range(p))))[me]
    return None if want is None else torch.from_numpy(np.ascontiguousarray(want))


def reference_bytes(spec: RunSpec, p: int) -> int:
    """What expected() holds on each rank: every rank's input."""
    collective = get(spec.collective, spec.servers)
    blocks = sum(len(collective.input_blocks(r, p, spec.root)) for r in range(p))
    return blocks * collective.count(spec) * ITEMSIZE[collective.dtype(spec)]


def count_wrong(spec: RunSpec, me: int, p: int, output, want=None) -> int:
    """Elements of this rank's `output` off the collective's definition (nccl-tests' #wrong);
    `want`: expected(spec, me, p), if already made."""
    from .rank.verify import wrong_elements

    want = expected(spec, me, p) if want is None else want
    if output is None or want is None:  # a native barrier leaves nothing to check
        return 0
    got = output.cpu()
    return wrong_elements(get(spec.collective).reduces, got, want.to(got.dtype), p)


def rounds(n: int, pause: Callable[[], None] | None) -> Iterator[int]:
    """range(n), calling `pause` (on every rank alike, outside any timed part) before every
    PAUSE_EVERY-th round: one size of a served bench may take hours, and its cancel must not wait
    for the size to end."""
    for i in range(n):
        if pause is not None and i and i % PAUSE_EVERY == 0:
            pause()
        yield i


def interleaved(
    passes: list, iterations: int, warmup: int, blocking: int, pause: Callable[[], None] | None = None
) -> list[list[float]]:
    """Each run's per-iteration seconds on this rank, the runs taking turns and each turn starting
    one further on (A B C, B C A, C A B, ...): with no barrier between them, the first of a turn
    absorbs the ranks' skew from the last, so a fixed order would charge that to one run alone
    (native against itself measured 0.07x, 'marked', when native always went first)."""
    import torch.distributed as dist

    for _ in rounds(warmup, pause):
        for run in passes:
            run.once()
    times: list[list[float]] = [[] for _ in passes]
    n = len(passes)
    for i in rounds(iterations, pause):
        for k in range(n):
            j = (i + k) % n  # the same order on every rank: they must call the same collectives
            if blocking:
                dist.barrier()
            times[j].append(passes[j].once())
    return times


def measure(
    world,
    a: argparse.Namespace,
    size: int,
    runs: list[tuple[str, int]],
    pause: Callable[[], None] | None = None,
) -> list[tuple]:
    """On every rank together: `runs` ((algorithm, chunks) each) at one size, taking turns; for
    each, every rank's seconds ([rank, iteration], on every rank) and its elements wrong on all
    ranks together (None with -c 0). `pause`: see rounds."""
    import torch
    import torch.distributed as dist

    from .rank.runner import Runner

    runner, p = Runner(world, lambda event: None), world.world_size
    passes = [
        runner.open(f"bench-{algorithm}-{size}", spec_for(a, size, algorithm, p, chunks))
        for algorithm, chunks in runs
    ]
    mine = torch.tensor(
        interleaved(passes, a.iterations, a.warmup, a.blocking, pause),
        dtype=torch.float64,
        device=world.device,
    )
    everyone = [torch.empty_like(mine) for _ in range(p)]
    dist.all_gather(everyone, mine)
    times = torch.stack(everyone).cpu().numpy()  # [rank, run, iteration]
    wrong: list = [None] * len(runs)
    if a.check and reference_bytes(passes[0].spec, p) <= CHECK_CAP:
        want = expected(passes[0].spec, world.rank, p)  # one input for all of them: same seed, same count
        here = [count_wrong(run.spec, world.rank, p, run.output_once(), want) for run in passes]
        counts = torch.tensor(here, dtype=torch.int64, device=world.device)
        dist.all_reduce(counts)
        wrong = counts.tolist()
    return [(times[:, i, :], wrong[i]) for i in range(len(runs))]


def combined(times: np.ndarray, average: int, blocking: int) -> tuple[float, np.ndarray]:
    """From [rank, iteration] seconds: (the row's time, one sample per iteration). nccl-tests: each
    rank's mean over its iterations, combined across ranks as -a says, with -z (`blocking`, which
    only syncs the ranks between iterations) or without."""
    across = {
        0: lambda x: x[0],
        1: lambda x: x.mean(axis=0),
        2: lambda x: x.min(axis=0),
        3: lambda x: x.max(axis=0),
    }[average]
    return float(across(times.mean(axis=1))), across(times)


@dataclass(frozen=True)
class Ratio:
    """A row's time over native's, with its bootstrap interval (None: too few iterations)."""

    ratio: float
    low: float | None
    high: float | None

    @property
    def marked(self) -> bool:
        """A difference the table shows: the interval excludes 1."""
        return self.low is not None and (self.low > 1 or self.high < 1)

    def to_json(self) -> dict:
        return {"ratio": self.ratio, "low": self.low, "high": self.high, "marked": self.marked}


def ratio_to(samples, native, seed: int = 0) -> Ratio:
    """mean(samples) / mean(native), with a 95% bootstrap interval, seeded (the same samples, the
    same interval). Iterations are resampled in pairs (the two ran side by side, so drift cancels)
    and in runs of about √n consecutive ones: a busy machine's slow spells last several
    iterations, and resampling iterations one by one, as if independent, drew intervals so narrow
    that one table marked an algorithm faster than native and the next one slower."""
    a, b = np.asarray(samples, dtype=float), np.asarray(native, dtype=float)
    ratio = float(a.mean() / b.mean())
    n = min(len(a), len(b))
    if n < MIN_SAMPLES:
        return Ratio(ratio, None, None)
    block = max(1, round(n**0.5))
    starts = np.random.default_rng(seed).integers(0, n - block + 1, (RESAMPLES, -(-n // block)))
    picks = (starts[:, :, None] + np.arange(block)).reshape(RESAMPLES, -1)[:, :n]
    boot = a[picks].mean(axis=1) / b[picks].mean(axis=1)
    tail = (1 - CONFIDENCE) / 2
    low, high = np.quantile(boot, [tail, 1 - tail])
    return Ratio(ratio, float(low), float(high))


def row(
    a: argparse.Namespace,
    p: int,
    backend: str,
    size: int,
    algorithm: Algorithm,
    times: np.ndarray,
    wrong: int | None,
    native_times: np.ndarray | None,
    ran: Algorithm | None = None,
) -> dict:
    """One row of the table; `ran`: what auto ran, whose layout puts it in its columns."""
    spec, collective = spec_for(a, size, algorithm.name, p), get(a.collective)
    moves, itemsize = collective.payload, ITEMSIZE[collective.dtype(spec)]
    nbytes = collective.message_bytes(spec.count, itemsize, p) if moves else 0
    seconds, samples = combined(times, a.average, a.blocking)
    algbw = (nbytes / seconds if seconds > 0 else 0.0) if moves else None
    busbw = None if algbw is None else algbw * collective.bus_factor(p)
    result = {"time": seconds, "algbw": algbw, "busbw": busbw, "wrong": wrong}
    in_place = collective.native_in_place if (ran or algorithm).reference else collective.in_place
    vs = None
    if algorithm.reference:  # native against itself: 1, no interval to draw
        vs = Ratio(1.0, None, None)
    elif native_times is not None:
        vs = ratio_to(samples, combined(native_times, a.average, a.blocking)[1])
    return {
        "size": nbytes,
        "count": spec.count if moves else 0,
        "block": spec.count if moves else 0,
        "type": a.dtype if moves else None,
        "redop": collective.op(spec) if moves else None,
        "root": spec.root if collective.rooted else -1,
        "algorithm": algorithm.name,
        "out_of_place": None if in_place else result,
        "in_place": result if in_place else None,
        "time": seconds,
        "time_median": float(np.median(samples)),
        "time_min": float(samples.min()),
        "iterations": samples.tolist(),
        "rank_times": times.mean(axis=1).tolist(),
        "vs_native": vs and vs.to_json(),
        "ranks": p,
        "backend": backend,
        "hosts": {},
        "ran": None,
        "why": None,
    }


def sweep(
    world,
    args_dict: dict,
    names: list[str],
    size_list: list[int],
    between: Callable[[int, int], None] | None = None,
) -> list[dict]:
    """On every rank: the whole table, size by size, the algorithms taking turns at each; then auto
    at every size, taking turns with native; rows in size order. `between(done, total)`, if given,
    is called on every rank before each size and every few rounds of iterations within one (a served
    bench asks there whether to stop)."""
    a = argparse.Namespace(**{**SWEEP_DEFAULTS, **args_dict})
    for path in a.algorithms:  # ranks fork from a server that has not seen the user's files
        load(path)
    asked = records(a.collective, names)
    measured = [x for x in asked if not x.chosen]
    rows, total, p = [], len(size_list) * len(asked), world.world_size
    hosts = hosts_of(world)

    def pause(done: int) -> Callable[[], None] | None:
        return None if between is None else lambda: between(done, total)

    for size in size_list:
        if between is not None:
            between(len(rows), total)
        results = measure(world, a, size, [(x.name, 1) for x in measured], pause(len(rows)))
        native = next((times for x, (times, _) in zip(measured, results) if x.reference), None)
        for algorithm, (times, wrong) in zip(measured, results):
            rows.append(row(a, p, world.backend, size, algorithm, times, wrong, native))
        if world.rank == 0:
            progress(len(rows), total)
    auto = next((x for x in asked if x.chosen), None)
    if auto is not None:
        sharing = sharing_of(world)
        fitted, native_fit = model_of(rows, a.collective, p, sharing)
        for size in size_list:
            if between is not None:
                between(len(rows), total)
            choice = pick(a, p, size, fitted, native_fit, sharing)
            turns = [(NATIVE, 1), (choice.algorithm, choice.chunks)]
            (native, _), (times, wrong) = measure(world, a, size, turns, pause(len(rows)))
            r = row(
                a,
                p,
                world.backend,
                size,
                auto,
                times,
                wrong,
                native,
                ran=algorithm_of(a.collective, choice.algorithm),
            )
            r["ran"] = choice.algorithm + (f" x{choice.chunks}" if choice.chunks > 1 else "")
            r["why"] = choice.why
            rows.append(r)
            if world.rank == 0:
                progress(len(rows), total)
    order = {x.name: i for i, x in enumerate(asked)}
    for r in rows:
        r["hosts"] = hosts
    return sorted(rows, key=lambda r: (r["size"], order[r["algorithm"]]))


def hosts_of(world) -> dict[str, int]:
    """How many of the table's ranks run on each host, in rank order."""
    import torch.distributed as dist

    everyone = [None] * world.world_size
    dist.all_gather_object(everyone, world.host)
    return {host: everyone.count(host) for host in everyone}


def sharing_of(world) -> Sharing:
    """How the table's ranks share cores, as the server reads it from their hellos."""
    import torch.distributed as dist

    hello, everyone = world.hello(), [None] * world.world_size
    dist.all_gather_object(everyone, (hello.host, hello.cores))
    return Sharing.of(everyone)


def model_of(
    rows: list[dict], collective: str, p: int, sharing: Sharing = ALONE
) -> tuple[predict.Fitted, predict.NativeFit | None]:
    """The model as the server fits it, from this table's rows: alpha, beta and gamma from the
    stepwise ones (terms read from their schedules, on ranks sharing cores as `sharing` says),
    a line from native's."""
    samples, points = [], []
    for r in rows:
        algorithm = algorithm_of(collective, r["algorithm"])
        if algorithm.reference:
            points.append((r["size"], r["time"]))
        elif algorithm.built:
            schedule = build(collective, r["algorithm"], p)
            terms = cost(schedule, r["block"], ITEMSIZE[r["type"]], sharing) if r["type"] else None
            if terms is not None:
                samples.append(predict.Sample(terms.steps, terms.bytes, terms.reduced, r["time"], r["size"]))
    return predict.solve(samples, "fitted to this table's stepwise runs"), predict.fit_native(points)


def pick(
    a: argparse.Namespace,
    p: int,
    size: int,
    fitted: predict.Fitted,
    native: predict.NativeFit | None,
    sharing: Sharing = ALONE,
) -> predict.Choice:
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


# --- the report ---------------------------------------------------------------------------------


def gbps(value: float | None) -> str:
    """Bytes/s as nccl-tests print them, GB/s with two decimals; three significant digits below
    0.01 GB/s, so a slow link never reads 0.00."""
    if value is None:
        return "-"
    gb = value / 1e9
    return f"{gb:.2f}" if gb >= 0.01 or gb == 0 else f"{gb:.3g}"


def timing(a: argparse.Namespace) -> str:
    start = "-z 1: each iteration from a barrier" if a.blocking else "back to back"
    return f"{start}; a row's time is {AVERAGING[a.average]} of each rank's mean (-a {a.average})"


def out_of_bounds(rows: list[dict]) -> int:
    """Results with a wrong element, as nccl-tests' footer counts them (#wrong says how many
    elements); unchecked results count none."""
    return sum(bool(r[k]["wrong"]) for r in rows for k in ("out_of_place", "in_place") if r[k])


def unchecked(rows: list[dict]) -> int:
    return sum(r[k]["wrong"] is None for r in rows for k in ("out_of_place", "in_place") if r[k])


def average_busbw(rows: list[dict]) -> dict[str, float]:
    """Per algorithm, its busbw averaged over its sizes and both placements (nccl-tests' footer)."""
    seen: dict[str, list[float]] = {}
    for r in rows:
        for k in ("out_of_place", "in_place"):
            if r[k] and r[k]["busbw"] is not None:
                seen.setdefault(r["algorithm"], []).append(r[k]["busbw"])
    return {name: statistics.fmean(values) for name, values in seen.items()}


def table(rows: list[dict], a: argparse.Namespace) -> str:
    width = max(9, *(len(r["algorithm"]) for r in rows))
    cell = " {:>10} {:>8} {:>8} {:>6}"
    lines = [
        f"# ringside bench: {a.collective}, {rows[0]['ranks']} ranks on "
        f"{', '.join(f'{host} ({n})' for host, n in rows[0]['hosts'].items()) or 'one host'}, "
        f"{rows[0]['backend']}; "
        f"{a.iterations} iterations (+{a.warmup} warm-up), {timing(a)}",
        f"# minBytes {a.min_bytes} maxBytes {a.max_bytes} step: "
        f"{f'{a.step}(bytes)' if a.step else f'{a.factor or 4}(factor)'} warmup iters: {a.warmup} "
        f"iters: {a.iterations} validation: {a.check} average: {a.average} blocking: {a.blocking}",
        "# x native: time over native's, iterations taking turns; * where its 95% interval excludes 1",
        "#",
        f"#{'':>{53 + width}}{'out-of-place':^36}{'in-place':^36}".rstrip(),
        f"#{'size':>11}  {'count':>12}  {'type':>8}  {'redop':>6}  {'root':>6}  {'algorithm':<{width}}"
        + cell.format("time", "algbw", "busbw", "#wrong") * 2
        + f" {'x native':>8} {'95% CI':>11}    auto ran",
        (
            f"#{'(B)':>11}  {'(elements)':>12}  {'':>8}  {'':>6}  {'':>6}  {'':<{width}}"
            + cell.format("(us)", "(GB/s)", "(GB/s)", "") * 2
        ).rstrip(),
    ]
    for r in rows:
        redop = {"PRODUCT": "prod"}.get(r["redop"], (r["redop"] or "none").lower())  # as nccl-tests name it
        kind = NCCL_TYPE.get(r["type"], r["type"] or "none")
        line = (
            f"{r['size']:>12}  {r['count']:>12}  {kind:>8}  {redop:>6}  {r['root']:>6}  "
            f"{r['algorithm']:<{width}}"
        )
        for k in ("out_of_place", "in_place"):
            m = r[k]
            line += (
                cell.format("-", "-", "-", "-")
                if m is None
                else cell.format(
                    f"{m['time'] * 1e6:.2f}",
                    gbps(m["algbw"]),
                    gbps(m["busbw"]),
                    "N/A" if m["wrong"] is None else m["wrong"],
                )
            )
        vs = r["vs_native"]
        interval = "" if not vs or vs["low"] is None else f"{vs['low']:.2f}-{vs['high']:.2f}"
        line += (
            f" {'-' if not vs else format(vs['ratio'], '.2f'):>8} {interval:>11} "
            f"{'*' if vs and vs['marked'] else ' '}  {r['ran'] or ''}"
        )
        lines.append(line.rstrip())
    bad, averages = out_of_bounds(rows), average_busbw(rows)
    skipped = unchecked(rows)
    lines.append(
        f"# Out of bounds values : {bad} {'FAILED' if bad else 'OK'}"
        + (
            f" ({skipped} results not checked: -c 0, or every rank's input over {CHECK_CAP >> 30} GiB)"
            if skipped
            else ""
        )
    )
    if averages:  # the number last on its line, as scripts read nccl-tests': native's (listed first)
        lines.append(f"# Avg bus bandwidth    : {gbps(next(iter(averages.values())))}")
        lines += [f"#   {name:<18} : {gbps(value)}" for name, value in averages.items()]
    lines.append("#")
    return "\n".join(lines)


def report(rows: list[dict], a: argparse.Namespace) -> int:
    """The table (and --json); 1 where any element was wrong, as nccl-tests fail."""
    document = {
        "collective": a.collective,
        "ranks": rows[0]["ranks"],
        "hosts": rows[0]["hosts"],
        "backend": rows[0]["backend"],
        "iterations": a.iterations,
        "warmup": a.warmup,
        "average": a.average,
        "blocking": a.blocking,
        "rows": rows,
        "out_of_bounds": out_of_bounds(rows),
        "unchecked": unchecked(rows),
        "avg_busbw": average_busbw(rows),
    }
    if a.json == "-":
        print(json.dumps(document))
    else:
        print(table(rows, a))
        if a.json:
            with open(a.json, "w") as f:
                json.dump(document, f, indent=1)
    return 1 if out_of_bounds(rows) else 0


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
        for size in size_list:  # small sizes can be too few elements for a schedule's chunks
            try:
                validate(spec_for(args, size, algorithm.name, args.ranks), args.ranks, args.backend or "gloo")
            except SpecError as e:
                if e.field not in ("count", "chunks"):
                    raise
                raise SpecError(e.field, f"{e.message} ({algorithm.name} at {size} bytes per rank)") from None


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


def main(args: argparse.Namespace) -> int:
    """`ringside bench`: local ranks, or a server's cluster (bench_remote.py)."""
    from .rank.local import RankError, run_ranks

    if args.server:
        from . import bench_remote

        return bench_remote.main(args)
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


def on_cluster(world, args: argparse.Namespace) -> int:
    """`python -m ringside.bench` on every rank of a torchrun job: rank 0 reports for all."""
    try:
        names, size_list = prepare(args, world.world_size, world.rank == 0)  # the same on every rank
    except SpecError as e:
        if world.rank == 0:
            print(f"error: {e}", file=sys.stderr)
        return 2
    rows = sweep(world, {**vars(args), "algorithms": []}, names, size_list)  # files loaded above
    if world.rank == 0:
        return report(rows, args)
    return 1 if out_of_bounds(rows) else 0
