"""nccl-tests' table of the results, as nccl-tests print theirs, line for line: their header
comment lines, a row of 13 columns per size (size count type redop root, then time algbw busbw
#wrong out of place and in place), and their footer, so that the scripts that read theirs (skip
the lines that start with '#', split on whitespace, busbw at index 7 or 11; grep the footer's
lines) read this unchanged."""

from __future__ import annotations

import argparse
import math
import sys
from collections import Counter
from importlib.metadata import version
from statistics import fmean

from ringside.bench.dtypes import OP_COLUMN, TYPES

PLACES = ("out_of_place", "in_place")
NAME_WIDTH = 20  # the footer's names, padded
# -z's line in nccl-tests' header
BLOCKING = {
    1: "wait and barrier after each iteration",
    2: "wait after each iteration, no barrier",
    3: "wait and barrier after each iteration; time excludes barrier",
}


def fit(value: float, width: int) -> str:
    """A figure in `width` characters as nccl-tests print theirs: two decimals while its integer
    digits leave room for them, then one, then none, then an exponent (so 0.004 GB/s reads 0.00,
    as theirs does)."""
    digits = _integer_digits(value)
    if digits < width - 2:
        spec = ".2f"
    elif digits < width - 1:
        spec = ".1f"
    elif digits <= width:
        spec = ".0f"
    else:
        spec = ".1e" if width >= 7 else ".0e"
    return f"{value:{width}{spec}}"


def _integer_digits(value: float) -> int:
    """Digits before the point of a figure at least 1 (0 below 1, and for NaN); many for infinity."""
    if math.isinf(value):
        return sys.maxsize
    return len(str(int(value))) if value >= 1 else 0


def type_word(dtype: str | None) -> str:
    return TYPES[dtype].column if dtype else "none"


def op_word(op: str | None) -> str:
    return OP_COLUMN.get(op, op.lower()) if op else "none"


def header(a: argparse.Namespace, setting: dict) -> list[str]:
    """nccl-tests' lines above the table: the run's flags, each rank's device, the column heads."""
    step = f"{a.factor}(factor)" if a.factor and a.factor > 1 else f"{a.step or (1 << 20)}(bytes)"
    devices = setting["devices"]
    hosts = Counter(d["host"] for d in devices)
    lines = [
        f"# ringside bench {version('ringside')}: {a.collective}, {len(devices)} ranks on "
        f"{', '.join(f'{host} ({n})' for host, n in hosts.items())}, {setting['backend']}, "
        f"torch {setting['torch']}",
        f"# Collective test starting: {a.collective}",
        f"# nThread {a.nthreads} nGpus {a.ngpus} minBytes {a.min_bytes} maxBytes {a.max_bytes} step: "
        f"{step} warmup iters: {a.warmup} iters: {a.iterations} agg iters: {a.agg_iters} validation: "
        f"{a.check} graph: {a.cudagraph} unalign: 0",
    ]
    if a.blocking in BLOCKING:
        lines.append(f"# Blocking Enabled: {BLOCKING[a.blocking]} ")
    lines += ["#", "# Using devices"]
    for d in devices:
        lines.append(
            f"#  Rank {d['rank']:2d} Group  0 Pid {d['pid']:6d} on {d['host']:>10} device {d['index']:2d} "
            f"[{d['bus']}] {d['name']}"
        )
    blank = "# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}".format("", "", "", "", "")
    heads = "# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}" + "  {:>7}  {:>6}  {:>6}  {:>6}" * 2 + " "
    return [
        *lines,
        "#",
        blank + "           out-of-place                       in-place          ",
        heads.format("size", "count", "type", "redop", "root", *("time", "algbw", "busbw", "#wrong") * 2),
        heads.format("(B)", "(elements)", "", "", "", *("(us)", "(GB/s)", "(GB/s)", "") * 2),
    ]


def line(r: dict) -> str:
    """One result's row: 13 fields."""
    kind, op = type_word(r["type"]), op_word(r["redop"])
    text = f"{r['size']:12d}  {r['count']:12d}  {kind:>8}  {op:>6}  {r['root']:6d}"
    for k in PLACES:
        m = r[k]
        text += f"  {fit(m['time'] * 1e6, 7)}  {fit(m['algbw'] / 1e9, 6)}  {fit(m['busbw'] / 1e9, 6)}"
        text += "    N/A" if m["wrong"] is None else f"  {float(m['wrong']):6g}"
    return text


def out_of_bounds(results: list[dict]) -> int:
    """Results (a placement of a row) with a wrong element, as nccl-tests' footer counts them."""
    return sum(bool(r[k]["wrong"]) for r in results for k in PLACES)


def avg_busbw(results: list[dict]) -> float:
    """busbw (bytes/s) averaged over every result, both placements (nccl-tests' footer)."""
    return fmean(r[k]["busbw"] for r in results for k in PLACES)


def footer(a: argparse.Namespace, results: list[dict]) -> list[str]:
    bad = out_of_bounds(results)
    return [
        f"# {'Out of bounds values':<{NAME_WIDTH}} : {bad} {'FAILED' if bad else 'OK'}",
        f"# {'Avg bus bandwidth':<{NAME_WIDTH}} : {avg_busbw(results) / 1e9:g} ",
        "#",
        f"# Collective test concluded: {a.collective}",
        "#",
    ]


def table(a: argparse.Namespace, setting: dict, results: list[dict]) -> str:
    return "\n".join([*header(a, setting), *map(line, results), *footer(a, results)])
