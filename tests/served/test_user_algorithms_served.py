"""Users' algorithms on a live cluster: `ringside up --algorithms FILE` offers them beside
the built-in ones, refuses a broken one before any rank talks, and takes a schedule as
data over the API (never code)."""

from __future__ import annotations

from pathlib import Path

import pytest
from schedule_docs import ring_doc

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


pytestmark = pytest.mark.cluster(
    flags=[
        "--algorithms",
        str(EXAMPLES / "double_binary_tree.py"),
        "--algorithms",
        str(EXAMPLES / "broken_ring.py"),
    ]
)


def test_the_files_algorithms_are_offered_and_checked_at_start(up):
    entry = next(c for c in up.call("GET", "/api/catalog")[1]["collectives"] if c["name"] == "all_reduce")
    assert {"double_binary_tree", "broken_ring"} <= set(entry["algorithms"])
    log = up.log_text()
    assert "algorithm all_reduce/double_binary_tree from" in log and "checked for 4 ranks" in log
    assert (
        "all_reduce/broken_ring" in log
        and "refused for 4 ranks: after the last step rank 0 holds chunk 0" in log
    )


def test_a_users_algorithm_runs_on_the_cluster_verified(up):
    run = up.run(
        collective="all_reduce", algorithm="double_binary_tree", count=12, dtype="int64", capture="full"
    )
    assert run["state"] == "done" and run["verified"] is True
    assert run["layout"]["shape"] == "tree" and len(run["steps"]) == 4


def test_refusals_touch_no_rank(up):
    pids = sorted(r["pid"] for r in up.cluster()["ranks"])
    before = up.call("GET", "/api/runs?limit=1")[1]["total"]
    status, body = up.call(
        "POST", "/api/runs", {"collective": "all_reduce", "algorithm": "broken_ring", "count": 8}
    )
    assert status == 422 and body["detail"]["field"] == "algorithm"
    assert "rank 0 holds chunk 0 without rank 1's contribution" in body["detail"]["message"]
    doc = ring_doc(4)
    doc["steps"][0]["transfers"][0][1] = 0  # rank 0 reduces into itself
    status, body = up.call(
        "POST", "/api/runs", {"collective": "all_reduce", "algorithm": "custom", "count": 8, "schedule": doc}
    )
    assert (
        status == 422
        and body["detail"]["field"] == "schedule"
        and "reduces a chunk into itself" in body["detail"]["message"]
    )
    assert up.call("GET", "/api/runs?limit=1")[1]["total"] == before, "nothing was stored"
    assert sorted(r["pid"] for r in up.cluster()["ranks"]) == pids, "no rank restarted"


def test_a_schedule_sent_as_data_runs_on_the_cluster(up):
    run = up.run(
        collective="all_reduce",
        algorithm="custom",
        schedule=ring_doc(4),
        count=8,
        dtype="int64",
        capture="full",
    )
    assert run["state"] == "done" and run["verified"] is True and len(run["steps"]) == 6
