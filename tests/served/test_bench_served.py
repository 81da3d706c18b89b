"""`ringside bench --server`, on a real `ringside up` with 3 gloo ranks: the bench as a job of the
server's cluster prints the local bench's table of every rank's numbers, refuses bad flags naming
them before any rank hears of them, needs the presenter's token, holds the cluster (409 for what
does not queue, a run waits), stops together when cancelled, and fails naming a rank that died."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time

import pytest

from ringside.worker_agent.clients.harness import CLI

P = 3
SMALL = ("--only", "native,ring,tree", "-b", "1K", "-e", "4K", "-f", "4", "-n", "5", "-c", "2", "-z", "3")
LONG = {
    "only": ["native", "ring"],
    "min_bytes": 1024,
    "max_bytes": 1 << 20,
    "factor": 2,
    "iterations": 2000,
    "warmup": 0,
}  # minutes on this machine: still running when a test acts on it


pytestmark = pytest.mark.cluster(ranks=P)


def bench(*argv: str, token: str | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "RINGSIDE_PRESENTER_TOKEN"}
    return subprocess.run(
        [*CLI, "bench", *argv],
        capture_output=True,
        text=True,
        timeout=300,
        env={**env, **({"RINGSIDE_PRESENTER_TOKEN": token} if token else {})},
    )


def column_heads(table: str) -> list[str]:
    return [
        line
        for line in table.splitlines()
        if line.startswith("#") and ("algorithm" in line or "(us)" in line)
    ]


def wait_bench(up, bench_id: str, timeout: float = 120) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        _, b = up.call("GET", f"/api/bench/{bench_id}")
        if b["state"] in ("done", "failed", "cancelled", "interrupted"):
            return b
        time.sleep(0.1)
    raise TimeoutError(f"bench {bench_id} did not end within {timeout} s")


def wait_running(up, bench_id: str) -> None:
    deadline = time.monotonic() + 30
    while up.call("GET", f"/api/bench/{bench_id}")[1]["state"] != "running":
        assert time.monotonic() < deadline, "the bench never started"
        time.sleep(0.05)


def test_a_served_bench_prints_the_local_table_of_every_ranks_numbers(up, tmp_path):
    served = bench("--server", up.url, *SMALL, "--json", str(tmp_path / "rows.json"), token=up.presenter)
    assert served.returncode == 0, served.stderr
    local = bench("--ranks", str(P), *SMALL)
    assert local.returncode == 0, local.stderr
    assert column_heads(served.stdout) == column_heads(local.stdout) and len(column_heads(local.stdout)) == 4
    assert f"all_reduce, {P} ranks on " in served.stdout and "# Out of bounds values : 0 OK" in served.stdout
    assert "validation: 2" in served.stdout and "# Blocking Enabled: wait and barrier" in served.stdout
    document = json.loads((tmp_path / "rows.json").read_text())
    rows = document["rows"]
    assert [(r["size"], r["algorithm"]) for r in rows] == [
        (size, name) for size in (1024, 4096) for name in ("native", "ring", "tree")
    ]
    for r in rows:  # every rank's numbers, merged: each rank's mean, and wrong elements counted on all
        assert r["ranks"] == P and len(r["rank_times"]) == P and min(r["rank_times"]) > 0, r
        assert r["in_place"]["wrong"] == 0 and len(r["iterations"]) == 5
    assert sum(document["hosts"].values()) == P and document["out_of_bounds"] == 0
    data = [line.split() for line in served.stdout.splitlines() if line and not line.startswith("#")]
    results = document["results"]
    assert [int(f[0]) for f in data] == [r["size"] for r in results] == [1024, 4096]
    assert all(len(f) == 13 and f[8] == f[12] == "0" for f in data)
    assert all(len(r["rank_times"]["in_place"]) == P for r in results) and len(document["devices"]) == P


@pytest.mark.parametrize(
    "change, field",
    [
        ({"collective": "broadcast", "root": P}, "root"),
        ({"iterations": 0}, "iterations"),
        ({"only": ["native", "no_such_algorithm"]}, "algorithm"),
        ({"min_bytes": 1024, "step": 1}, "stepbytes"),
        ({"min_bytes": 4096, "max_bytes": 1024}, "maxbytes"),
        ({"dtype": "float8"}, "datatype"),
        ({"dtype": "uint32"}, "datatype"),
        ({"dtype": "float", "op": "band"}, "op"),
        ({"blocking": 4}, "blocking"),
    ],
)
def test_a_bad_flag_is_refused_naming_it_and_nothing_runs(up, change, field):
    first = up.call("POST", "/api/bench", {**LONG, "iterations": 1, "max_bytes": 1024})
    assert first[0] == 202, first
    assert wait_bench(up, first[1]["id"])["state"] == "done"
    status, body = up.call("POST", "/api/bench", change)
    assert status == 422 and body["detail"]["field"] == field, body
    after = up.call("POST", "/api/bench", {**LONG, "iterations": 1, "max_bytes": 1024})
    number = int(first[1]["id"].removeprefix("b-"))
    assert after[0] == 202 and after[1]["id"] == f"b-{number + 1:06d}", "the refused bench was never made"
    assert wait_bench(up, after[1]["id"])["state"] == "done"


def test_the_cli_names_a_bad_flag_and_a_local_flag_that_does_not_apply(up):
    refused = bench("--server", up.url, "--collective", "broadcast", "-r", str(P), token=up.presenter)
    assert refused.returncode == 2 and "root: must be a rank, below 3" in refused.stderr, refused.stderr
    local_only = bench("--server", up.url, "--ranks", "2", token=up.presenter)
    assert local_only.returncode == 2 and "--ranks does not apply with --server" in local_only.stderr


def test_a_bench_needs_the_presenters_token(up):
    assert up.call("POST", "/api/bench", {}, token=None)[0] == 401
    assert up.call("POST", "/api/bench", {}, token="not-the-token")[0] == 403
    assert up.call("GET", "/api/bench/b-000001", token=None)[0] == 401
    nameless = bench("--server", up.url, *SMALL)
    assert nameless.returncode == 2 and "token: this needs the presenter token" in nameless.stderr


def test_a_bench_holds_the_cluster_and_a_cancel_stops_every_rank_together(up):
    status, body = up.call("POST", "/api/bench", LONG)
    assert status == 202, body
    wait_running(up, body["id"])
    busy, why = up.call("POST", "/api/bench", LONG)
    assert busy == 409 and why["detail"]["field"] == "cluster", why
    assert up.call("POST", "/api/trainings", {"steps": 3})[0] == 409
    cli = bench("--server", up.url, *SMALL, token=up.presenter)
    assert cli.returncode == 2 and f"{body['id']} holds the cluster" in cli.stderr, cli.stderr
    status, queued = up.call(
        "POST", "/api/runs", {"collective": "all_reduce", "algorithm": "ring", "count": 8}
    )
    assert status == 202  # a run waits for the bench to end
    assert up.call("POST", f"/api/bench/{body['id']}/cancel")[1]["cancel_requested"] is True
    ended = wait_bench(up, body["id"])
    assert ended["state"] == "cancelled" and sorted(ended["cancelled_ranks"]) == list(range(P)), ended
    assert ended["rows"] == []
    assert up.wait(queued["id"])["verified"] is True  # the run ran after the bench


def test_a_cancel_stops_a_bench_within_one_size(up):
    """One size of 10,000 + 10,000 iterations (tens of minutes here) gives no moment before a next
    size: the ranks ask whether to stop every few rounds of iterations instead."""
    one = {
        "only": ["native", "ring"],
        "min_bytes": 8 << 20,
        "max_bytes": 8 << 20,
        "iterations": 10_000,
        "warmup": 10_000,
    }
    status, body = up.call("POST", "/api/bench", one)
    assert status == 202 and body["sizes"] == [8 << 20], body
    wait_running(up, body["id"])
    time.sleep(3)  # past the ask before the size: the ranks are inside it (a cancel sooner stops it there)
    assert up.call("POST", f"/api/bench/{body['id']}/cancel")[1]["cancel_requested"] is True
    ended = wait_bench(up, body["id"])
    assert ended["state"] == "cancelled" and sorted(ended["cancelled_ranks"]) == list(range(P)), ended
    assert up.run(collective="all_reduce", algorithm="ring", count=8)["verified"] is True, (
        "the ranks stopped together: their group runs the next run"
    )


def test_a_rank_killed_mid_bench_fails_it_naming_the_rank_and_the_cluster_comes_back(up):
    ranks = {r["rank"]: r["pid"] for r in up.wait_ranks(P)["ranks"]}
    status, body = up.call("POST", "/api/bench", LONG)
    assert status == 202, body
    wait_running(up, body["id"])
    time.sleep(1)  # into the sweep
    os.kill(ranks[2], signal.SIGKILL)
    ended = wait_bench(up, body["id"])
    assert ended["state"] == "failed" and "rank 2 was lost during the bench" in ended["error"], ended["error"]
    up.wait_ranks(P, exclude_pids=set(ranks.values()))
    again = bench("--server", up.url, *SMALL, token=up.presenter)
    assert again.returncode == 0 and "# Out of bounds values : 0 OK" in again.stdout, again.stderr
