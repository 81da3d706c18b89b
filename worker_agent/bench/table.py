"""nccl-tests' table: a row per algorithm and size (its time, algbw, busbw and #wrong in the
in-place or out-of-place columns, its ratio to native), the footer nccl-tests' parsers read, and
the same rows as JSON."""

from __future__ import annotations

import argparse
import json
from statistics import fmean

import numpy as np

from ringside.bench.plan import spec_for
from ringside.bench.statistics import AVERAGING, Ratio, combined, ratio_to
from ringside.bench.wrong import CHECK_CAP
from ringside.worker_agent.core.algorithms import Algorithm
from ringside.worker_agent.core.collectives import get
from ringside.worker_agent.core.vocabulary import ITEMSIZE

# the type column in nccl-tests' words (the JSON keeps torch's)
NCCL_TYPE = {"float32": "float", "float16": "half", "float64": "double"}
PLACES = ("out_of_place", "in_place")
CELL = " {:>10} {:>8} {:>8} {:>6}"


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
    vs = _vs_native(a, algorithm, samples, native_times)
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


def _vs_native(
    a: argparse.Namespace, algorithm: Algorithm, samples: np.ndarray, native_times: np.ndarray | None
) -> Ratio | None:
    if algorithm.reference:  # native against itself: 1, no interval to draw
        return Ratio(1.0, None, None)
    if native_times is not None:
        return ratio_to(samples, combined(native_times, a.average, a.blocking)[1])
    return None


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
    return sum(bool(r[k]["wrong"]) for r in rows for k in PLACES if r[k])


def unchecked(rows: list[dict]) -> int:
    return sum(r[k]["wrong"] is None for r in rows for k in PLACES if r[k])


def average_busbw(rows: list[dict]) -> dict[str, float]:
    """Per algorithm, its busbw averaged over its sizes and both placements (nccl-tests' footer)."""
    seen: dict[str, list[float]] = {}
    for r in rows:
        for k in PLACES:
            if r[k] and r[k]["busbw"] is not None:
                seen.setdefault(r["algorithm"], []).append(r[k]["busbw"])
    return {name: fmean(values) for name, values in seen.items()}


def table(rows: list[dict], a: argparse.Namespace) -> str:
    width = max(9, *(len(r["algorithm"]) for r in rows))
    return "\n".join([*_header(rows, a, width), *(_line(r, width) for r in rows), *_footer(rows)])


def _header(rows: list[dict], a: argparse.Namespace, width: int) -> list[str]:
    return [
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
        + CELL.format("time", "algbw", "busbw", "#wrong") * 2
        + f" {'x native':>8} {'95% CI':>11}    auto ran",
        (
            f"#{'(B)':>11}  {'(elements)':>12}  {'':>8}  {'':>6}  {'':>6}  {'':<{width}}"
            + CELL.format("(us)", "(GB/s)", "(GB/s)", "") * 2
        ).rstrip(),
    ]


def _line(r: dict, width: int) -> str:
    redop = {"PRODUCT": "prod"}.get(r["redop"], (r["redop"] or "none").lower())  # as nccl-tests name it
    kind = NCCL_TYPE.get(r["type"], r["type"] or "none")
    line = (
        f"{r['size']:>12}  {r['count']:>12}  {kind:>8}  {redop:>6}  {r['root']:>6}  {r['algorithm']:<{width}}"
    )
    for k in PLACES:
        line += _cells(r[k])
    vs = r["vs_native"]
    interval = "" if not vs or vs["low"] is None else f"{vs['low']:.2f}-{vs['high']:.2f}"
    line += (
        f" {'-' if not vs else format(vs['ratio'], '.2f'):>8} {interval:>11} "
        f"{'*' if vs and vs['marked'] else ' '}  {r['ran'] or ''}"
    )
    return line.rstrip()


def _cells(m: dict | None) -> str:
    """One placement's time, algbw, busbw and #wrong; dashes where the row's numbers sit in the other."""
    if m is None:
        return CELL.format("-", "-", "-", "-")
    wrong = "N/A" if m["wrong"] is None else m["wrong"]
    return CELL.format(f"{m['time'] * 1e6:.2f}", gbps(m["algbw"]), gbps(m["busbw"]), wrong)


def _footer(rows: list[dict]) -> list[str]:
    bad, averages, skipped = out_of_bounds(rows), average_busbw(rows), unchecked(rows)
    lines = [
        f"# Out of bounds values : {bad} {'FAILED' if bad else 'OK'}"
        + (
            f" ({skipped} results not checked: -c 0, or every rank's input over {CHECK_CAP >> 30} GiB)"
            if skipped
            else ""
        )
    ]
    if averages:  # the number last on its line, as scripts read nccl-tests': native's (listed first)
        lines.append(f"# Avg bus bandwidth    : {gbps(next(iter(averages.values())))}")
        lines += [f"#   {name:<18} : {gbps(value)}" for name, value in averages.items()]
    lines.append("#")
    return lines


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
