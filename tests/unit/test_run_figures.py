"""What a run leaves for the tools that read it, read as they read it: its Perfetto trace (each
rank a process named for its host and local rank, a native run's iterations where they began) and
/metrics (by collective, algorithm and host, through Prometheus' own parser). The app in-process
(in_app.py), four ranks joined, their reports fed in."""

from __future__ import annotations

import asyncio
import math

import pytest
from in_app import served
from in_process import finished, started
from prometheus_client.parser import text_string_to_metric_families

from ringside.worker_agent.core.protocol import Timings

P = 4


def test_traces_name_each_rank_with_its_host_and_local_rank(tmp_path):
    async def scenario():
        async with served(tmp_path / "runs.db") as s:
            ranks = s.ranks(P)
            hosts = {r["rank"]: (r["host"], r["local_rank"]) for r in s.state.cluster.to_json()["ranks"]}
            run_id = await s.submit(count=64)
            await ranks.run_through(steps=2 * (P - 1))
            run = await s.ended(run_id)
            return hosts, run, (await s.call("GET", f"/api/runs/{run_id}/trace"))[1]

    hosts, run, trace = asyncio.run(scenario())
    assert {int(r): (p["host"], p["local_rank"]) for r, p in run["places"].items()} == hosts, (
        "kept in the run"
    )
    names = {e["pid"]: e["args"]["name"] for e in trace["traceEvents"] if e["name"] == "process_name"}
    assert names == {r: f"rank {r} · {host} · local rank {local}" for r, (host, local) in hosts.items()}


def test_a_native_run_lays_every_iteration_where_it_began(tmp_path):
    """Each rank's timed iterations, at the times they began after the first (each after a barrier,
    so with a gap between them), as the rank reported them."""

    async def scenario():
        async with served(tmp_path / "runs.db") as s:
            ranks = s.ranks(P)
            run_id = await s.submit(algorithm="native", count=4096, iterations=6, warmup=1)
            command = await ranks.command()
            for r in range(P):
                took = [0.001 + 0.0001 * ((r + i) % 3) for i in range(6)]
                starts = [sum(took[:i]) + 0.0005 * i for i in range(6)]  # a barrier's wait before each
                ranks.feed(
                    started(command, r), finished(command, r, timings=Timings(iterations=took, starts=starts))
                )
            run = await s.ended(run_id)
            return run, (await s.call("GET", f"/api/runs/{run_id}/trace"))[1]

    run, trace = asyncio.run(scenario())
    for rank in range(P):
        timings = run["results"][str(rank)]["timings"]
        slices = sorted(
            (e for e in trace["traceEvents"] if e["ph"] == "X" and e["pid"] == rank), key=lambda e: e["ts"]
        )
        assert len(slices) == len(timings["iterations"]) == len(timings["starts"]) == 6
        assert slices[0]["ts"] == 0, "the first timed iteration's barrier is every rank's zero"
        assert [e["ts"] for e in slices] == pytest.approx([s * 1e6 for s in timings["starts"]])
        for a, b in zip(slices, slices[1:]):
            assert b["ts"] >= a["ts"] + a["dur"], "iterations do not overlap"
        gaps = [b["ts"] - (a["ts"] + a["dur"]) for a, b in zip(slices, slices[1:])]
        assert sum(gaps) > 0, "between iterations a rank waits at a barrier: laid end to end they would touch"


def families(text: str) -> dict:
    return {f.name: f for f in text_string_to_metric_families(text)}


def test_metrics_by_collective_algorithm_and_host_as_prometheus_reads_them(tmp_path):
    async def scenario():
        async with served(tmp_path / "runs.db") as s:
            ranks = s.ranks(P)
            hosts = {r["host"] for r in s.state.cluster.to_json()["ranks"]}
            for algorithm, steps in (("ring", P - 1), ("native", 0)):
                run_id = await s.submit(collective="all_gather", algorithm=algorithm, count=256)
                await ranks.run_through(steps=steps)
                await s.ended(run_id)
            return hosts, await s.call("GET", "/metrics")

    hosts, (status, text) = asyncio.run(scenario())
    assert status == 200
    found = families(text)  # Prometheus' own parser: it raises on a malformed line
    busbw = found["ringside_busbw_bytes_per_second"]
    assert busbw.type == "histogram"
    for algorithm in ("ring", "native"):
        series = [
            s
            for s in busbw.samples
            if s.labels.get("collective") == "all_gather" and s.labels.get("algorithm") == algorithm
        ]
        buckets = [s for s in series if s.name.endswith("_bucket")]
        count = next(s.value for s in series if s.name.endswith("_count"))
        assert count >= 1 and next(s.value for s in series if s.name.endswith("_sum")) > 0
        assert buckets[-1].labels["le"] == "+Inf" and buckets[-1].value == count
        assert all(a.value <= b.value for a, b in zip(buckets, buckets[1:])), "buckets are cumulative"
    steps = found["ringside_step_seconds"]
    labelled = {(s.labels["collective"], s.labels["algorithm"], s.labels["host"]) for s in steps.samples}
    assert {("all_gather", "ring", h) for h in hosts} <= labelled
    assert not any(s.labels.get("algorithm") == "native" for s in steps.samples), "a native run has no steps"
    ring_count = sum(
        s.value for s in steps.samples if s.name.endswith("_count") and s.labels["collective"] == "all_gather"
    )
    assert ring_count >= 4 * 3, "every rank's every step (ring all_gather over 4 ranks: 3 steps)"
    assert found["ringside_run_seconds"].type == "histogram"
    ranks = found["ringside_ranks"]
    assert {s.labels["host"] for s in ranks.samples} == hosts
    assert sum(s.value for s in ranks.samples) == 4
    assert all(math.isfinite(s.value) for f in found.values() for s in f.samples)
