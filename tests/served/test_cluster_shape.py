"""On a live cluster (`ringside up --algorithms` with MSCCL files written for 4 ranks): the files'
algorithms run verified, and the model answers at any P without them. (How traces and metrics keep
the cluster's shape: tests/unit/test_run_figures.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest

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
