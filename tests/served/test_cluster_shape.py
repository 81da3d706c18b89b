"""On a live cluster (`ringside up --algorithms` with MSCCL files written for 4 ranks): the files'
algorithms run verified, the model answers at any P without them, and traces and metrics keep the
cluster's shape: Perfetto processes named "rank r · host · local rank l", a native run's iterations
at the times they began on every rank, /metrics labelled by collective, algorithm and host, read by
Prometheus' own parser."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "msccl"
RING = "msccl_allreduce_ring_1channelsperring_1instances"
TWO_STEP = "msccl_alltoall_two_step"


pytestmark = pytest.mark.cluster(
    flags=[
        "--algorithms",
        str(FIXTURES / "allreduce_ring_1instance.xml"),
        "--algorithms",
        str(FIXTURES / "alltoall_two_step.xml"),
    ]
)


def test_msccl_files_run_on_the_cluster_and_the_model_answers_at_any_p(up):
    assert "checked for 4 ranks" in up.log_text()
    entry = next(c for c in up.call("GET", "/api/catalog")[1]["collectives"] if c["name"] == "all_reduce")
    assert RING in entry["algorithms"]
    run = up.run(collective="all_to_all", algorithm=TWO_STEP, count=6, dtype="int64", capture="full")
    assert run["state"] == "done" and run["verified"] is True, run.get("error")
    assert len(run["steps"]) == 2 and len(run["chunk_bounds"]) == 10, (
        "eight blocks and the scratch buffer's two"
    )
    status, far = up.call("GET", "/api/model/predict?collective=all_reduce&p=64")
    assert status == 200, far  # before: 500, a ScheduleError "for 4 ranks, not 1024 ranks"
    assert RING not in far["versus_size"] and "ring" in far["versus_size"]
    assert [t is not None for t in far["versus_p"][RING]] == [p == 4 for p in far["ps"]]
    status, here = up.call("GET", "/api/model/predict?collective=all_reduce&p=4")
    assert status == 200 and RING in here["versus_size"]
    status, refused = up.call("GET", f"/api/model?collective=all_reduce&algorithm={RING}&world_size=8")
    assert (
        status == 422
        and refused["detail"]["field"] == "world_size"
        and "written for 4 ranks" in refused["detail"]["message"]
    )
    status, refused = up.call(
        "POST", "/api/runs", {"collective": "all_reduce", "algorithm": RING, "group": [0, 1, 2]}
    )
    assert status == 422 and "written for 4 ranks" in refused["detail"]["message"]
    for group, offered in (([0, 1, 2], False), ([0, 1, 2, 3], True)):  # auto weighs it only where it fits
        status, body = up.call(
            "POST", "/api/runs", {"collective": "all_reduce", "algorithm": "auto", "group": group}
        )
        assert status == 202, body
        chose = up.wait(body["id"])
        assert (
            chose["state"] == "done"
            and (RING in {c["algorithm"] for c in chose["choice"]["candidates"]}) is offered
        )


def test_traces_name_each_rank_with_its_host_and_local_rank(up):
    hosts = {r["rank"]: (r["host"], r["local_rank"]) for r in up.cluster()["ranks"]}
    run = up.run(collective="all_reduce", algorithm="ring", count=64)
    assert {int(r): (p["host"], p["local_rank"]) for r, p in run["places"].items()} == hosts, (
        "kept in the run"
    )
    _, trace = up.call("GET", f"/api/runs/{run['id']}/trace")
    names = {e["pid"]: e["args"]["name"] for e in trace["traceEvents"] if e["name"] == "process_name"}
    assert names == {r: f"rank {r} · {host} · local rank {local}" for r, (host, local) in hosts.items()}


def test_a_native_run_lays_every_iteration_where_it_began(up):
    run = up.run(collective="all_reduce", algorithm="native", count=4096, iterations=6, warmup=1)
    _, trace = up.call("GET", f"/api/runs/{run['id']}/trace")
    for rank in range(4):
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


def test_metrics_by_collective_algorithm_and_host_as_prometheus_reads_them(up):
    hosts = {r["host"] for r in up.cluster()["ranks"]}
    up.run(collective="all_gather", algorithm="ring", count=256)
    up.run(collective="all_gather", algorithm="native", count=256)
    status, text = up.call("GET", "/metrics")
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
