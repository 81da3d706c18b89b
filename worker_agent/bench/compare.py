"""Ringside's algorithms against native: a row per algorithm, (dtype, op) pair and size (its time,
algbw, busbw and #wrong in the placement it runs in, its ratio to native's time with the ratio's
interval), and their table, every line of which starts with '#' so that a script reading
nccl-tests' table (table.py) above it skips them all."""

from __future__ import annotations

import argparse
from statistics import fmean

import numpy as np

from ringside.bench.plan import spec_for
from ringside.bench.statistics import AVERAGING, BATCHES, Ratio, combined, ratio_to
from ringside.bench.table import PLACES, fit, op_word, type_word
from ringside.bench.wrong import CHECK_CAP
from ringside.worker_agent.core.algorithms import Algorithm
from ringside.worker_agent.core.collectives import get
from ringside.worker_agent.core.vocabulary import ITEMSIZE

PLACE_WORD = {"out_of_place": "out-of-place", "in_place": "in-place"}


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


def not_run(a: argparse.Namespace, p: int, backend: str, size: int, algorithm: Algorithm, why: str) -> dict:
    """The row of an algorithm that cannot run at this size: no cells, no times; `why` says why."""
    spec, collective = spec_for(a, size, algorithm.name, p), get(a.collective)
    moves, nan = collective.payload, float("nan")
    return {
        "size": collective.message_bytes(spec.count, ITEMSIZE[collective.dtype(spec)], p) if moves else 0,
        "count": spec.count if moves else 0,
        "block": spec.count if moves else 0,
        "type": a.dtype if moves else None,
        "redop": collective.op(spec) if moves else None,
        "root": spec.root if collective.rooted else -1,
        "algorithm": algorithm.name,
        "out_of_place": None,
        "in_place": None,
        "time": nan,
        "time_median": nan,
        "time_min": nan,
        "iterations": [],
        "rank_times": [],
        "vs_native": None,
        "ranks": p,
        "backend": backend,
        "hosts": {},
        "ran": None,
        "why": why,
    }


def ran(r: dict) -> bool:
    """Whether a row was measured (not_run's rows were not)."""
    return any(r[k] for k in PLACES)


def _vs_native(
    a: argparse.Namespace, algorithm: Algorithm, samples: np.ndarray, native_times: np.ndarray | None
) -> Ratio | None:
    if algorithm.reference:  # native against itself: 1, no interval to draw
        return Ratio(1.0, None, None)
    if native_times is not None:
        return ratio_to(samples, combined(native_times, a.average, a.blocking)[1])
    return None


def _timing(a: argparse.Namespace) -> str:
    start = "each from a barrier, outside the time" if a.blocking in (1, 3) else "back to back"
    return f"{start}; a row's time is {AVERAGING[a.average]} of each rank's mean (-a {a.average})"


def out_of_bounds(rows: list[dict]) -> int:
    """Rows with a wrong element (#wrong says how many); unchecked rows count none."""
    return sum(bool(r[k]["wrong"]) for r in rows for k in PLACES if r[k])


def unchecked(rows: list[dict]) -> int:
    return sum(r[k]["wrong"] is None for r in rows for k in PLACES if r[k])


def average_busbw(rows: list[dict]) -> dict[str, float]:
    """Per algorithm, its busbw (bytes/s) averaged over its sizes and pairs."""
    seen: dict[str, list[float]] = {}
    for r in rows:
        for k in PLACES:
            if r[k] and r[k]["busbw"] is not None:
                seen.setdefault(r["algorithm"], []).append(r[k]["busbw"])
    return {name: fmean(values) for name, values in seen.items()}


def table(rows: list[dict], a: argparse.Namespace, left: list[str]) -> str:
    """Ringside's table, every line behind '#'; `left`: the pairs it does not run, said."""
    width = max(9, *(len(r["algorithm"]) for r in rows)) if rows else 9
    heads = "#{:>11}  {:>12}  {:>8}  {:>6}  {:>6}  {:<WIDTH}  {:>12}  {:>7}  {:>6}".replace(
        "WIDTH", str(width)
    )
    lines = [
        "#",
        "# Ringside's algorithms against native: iterations taking turns, each waiting for the device, "
        + _timing(a),
        f"# x native: time over native's; its 95% interval from {BATCHES} runs of consecutive iterations; "
        "* where it excludes 1",
        *(f"# not run here: {what}" for what in left),
        "#",
        (
            heads.format("size", "count", "type", "redop", "root", "algorithm", "placement", "time", "algbw")
            + "  {:>6}  {:>6}  {:>8}  {:>11}    auto ran".format("busbw", "#wrong", "x native", "95% CI")
        ),
        heads.format("(B)", "(elements)", "", "", "", "", "", "(us)", "(GB/s)").rstrip() + "  (GB/s)",
        *(_line(r, width) for r in rows),
    ]
    if rows:
        bad, skipped = out_of_bounds(rows), unchecked(rows)
        busbw = ", ".join(f"{name} {value / 1e9:g}" for name, value in average_busbw(rows).items())
        left_out = sum(not ran(r) for r in rows)
        lines += [
            *([f"# busbw averaged over sizes (GB/s): {busbw}"] if busbw else []),
            f"# rows with a wrong element: {bad}"
            + (
                f"; {skipped} not checked (-c 0, or every rank's input over {CHECK_CAP >> 30} GiB)"
                if skipped
                else ""
            )
            + (f"; {left_out} not run (the row says why)" if left_out else ""),
        ]
    return "\n".join([*lines, "#"])


def _line(r: dict, width: int) -> str:
    left = (
        f"#{r['size']:11d}  {r['count']:12d}  {type_word(r['type']):>8}  {op_word(r['redop']):>6}  "
        f"{r['root']:6d}  {r['algorithm']:<{width}}  "
    )
    if not ran(r):
        return f"{left}{'not run':>12}  {r['why']}"
    k = next(k for k in PLACES if r[k])
    m = r[k]
    text = (
        f"{left}{PLACE_WORD[k]:>12}  {fit(m['time'] * 1e6, 7)}  "
        f"{fit(m['algbw'] / 1e9, 6) if m['algbw'] is not None else '-':>6}  "
        f"{fit(m['busbw'] / 1e9, 6) if m['busbw'] is not None else '-':>6}  "
        f"{'N/A' if m['wrong'] is None else m['wrong']:>6}"
    )
    vs = r["vs_native"]
    interval = "" if not vs or vs["low"] is None else f"{vs['low']:.2f}-{vs['high']:.2f}"
    text += (
        f"  {'-' if not vs else format(vs['ratio'], '.2f'):>8}  {interval:>11} "
        f"{'*' if vs and vs['marked'] else ' '}  {r['ran'] or ''}"
    )
    return text.rstrip()
