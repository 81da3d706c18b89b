"""`ringside bench` on real local ranks: its rows add up (no timing is asserted)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest


def bench(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ringside.worker_agent.cli", "bench", *args],
                          capture_output=True, text=True, timeout=300)


def test_json_rows_for_a_small_sweep():
    done = bench("-n", "3", "-b", "1K", "-e", "4K", "--only", "ring,native,tree", "--iterations", "3",
                 "--warmup", "1", "--json")
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(r["size"], r["algorithm"]) for r in rows] == [(s, a) for s in (1024, 4096)
                                                           for a in ("native", "ring", "tree")]
    for r in rows:
        assert r["count"] == r["size"] // 4 and r["time_min"] <= r["time_median"] <= r["time_max"]
        assert r["busbw"] == pytest.approx(r["algbw"] * 2 * 2 / 3)
        assert r["wrong"] == (None if r["algorithm"] == "native" else 0)
        assert r["vs_native"] == pytest.approx(1.0) if r["algorithm"] == "native" else r["vs_native"] > 0


def test_the_table_and_a_refusal():
    done = bench("-n", "2", "--collective", "all_gather", "-b", "2K", "-e", "2K", "--iterations", "2",
                 "--warmup", "0")
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[0].startswith("# ringside bench: all_gather, 2 ranks") and "busbw" in lines[1]
    assert {line.split()[4] for line in lines[2:]} == {"native", "ring", "recursive_doubling", "auto"}
    # beside native, saying what it ran
    autos = [line.split() for line in lines[2:] if line.split()[4] == "auto"]
    assert len(autos) == 1 and autos[0][-1] in {"native", "ring", "recursive_doubling"}
    refused = bench("-n", "2", "--op", "BAND", "--dtype", "float32")
    assert refused.returncode == 2 and "op: BAND needs an integer dtype" in refused.stderr
