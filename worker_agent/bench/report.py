"""What a bench prints: nccl-tests' table of the results (table.py), then Ringside's table
(compare.py) when any algorithm but native was asked for; or, with --json, both as JSON. The
exit code is nccl-tests': 1 where any element was wrong, in either table."""

from __future__ import annotations

import argparse
import json
from collections import Counter

from ringside.bench import compare, table
from ringside.bench.plan import compared
from ringside.worker_agent.core.algorithms import NATIVE
from ringside.worker_agent.core.vocabulary import DTYPES


def document(setting: dict, results: list[dict], rows: list[dict], a: argparse.Namespace) -> dict:
    """Everything, as JSON: seconds and bytes/s throughout (the tables print µs and GB/s)."""
    devices = setting["devices"]
    return {
        "collective": a.collective,
        "ranks": len(devices),
        "hosts": dict(Counter(d["host"] for d in devices)),
        "backend": setting["backend"],
        "devices": devices,
        "min_bytes": a.min_bytes,
        "max_bytes": a.max_bytes,
        "step": a.step,
        "factor": a.factor,
        "iterations": a.iterations,
        "agg_iters": a.agg_iters,
        "warmup": a.warmup,
        "check": a.check,
        "average": a.average,
        "blocking": a.blocking,
        "results": results,
        "out_of_bounds": table.out_of_bounds(results),
        "avg_busbw": table.avg_busbw(results),
        "rows": rows,
        "rows_out_of_bounds": compare.out_of_bounds(rows),
        "rows_unchecked": compare.unchecked(rows),
        "rows_avg_busbw": compare.average_busbw(rows),
    }


def not_compared(results: list[dict]) -> list[str]:
    """The dtypes of nccl-tests' table that Ringside's algorithms do not run on, said."""
    missing = list(dict.fromkeys(r["type"] for r in results if not compared((r["type"], r["redop"]))))
    if not missing:
        return []
    return [
        f"{', '.join(missing)}: Ringside's algorithms run on {', '.join(DTYPES)}; native's numbers are above"
    ]


def failed(results: list[dict], rows: list[dict]) -> bool:
    return bool(table.out_of_bounds(results) or compare.out_of_bounds(rows))


def report(setting: dict, results: list[dict], rows: list[dict], a: argparse.Namespace) -> int:
    """Print the tables (or the JSON, --json -; --json FILE writes it too); 1 where anything was
    wrong, as nccl-tests fail."""
    whole = document(setting, results, rows, a)
    if a.json == "-":
        print(json.dumps(whole))
    else:
        text = table.table(a, setting, results)
        asked = a.only.split(",") if a.only else None
        if asked is None or set(asked) - {NATIVE}:
            text += "\n" + compare.table(rows, a, not_compared(results))
        print(text)
        if a.json:
            with open(a.json, "w") as f:
                json.dump(whole, f, indent=1)
    return 1 if failed(results, rows) else 0
