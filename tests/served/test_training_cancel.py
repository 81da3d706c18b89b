"""A training cancelled through a real `ringside up` with two gloo ranks: it stops like a run and
the queue moves on."""

from __future__ import annotations

import time

from server_helpers import start_up


def test_a_training_is_cancelled_like_a_run_and_the_queue_moves_on(tmp_path):
    """The presenter cancels a running training: its ranks stop together after a step, it ends
    cancelled with the steps it made, the run queued behind it runs, and no rank restarted."""
    up = start_up(tmp_path, ranks=2)
    try:
        pids = {r["pid"] for r in up.cluster()["ranks"]}
        status, body = up.call("POST", "/api/trainings", {"method": "ring", "steps": 1000, "hidden": 512})
        assert status == 202, body
        while not up.call("GET", f"/api/trainings/{body['id']}")[1]["steps"]:
            time.sleep(0.05)
        status, queued = up.call(
            "POST", "/api/runs", {"collective": "all_reduce", "algorithm": "ring", "count": 4}
        )
        assert status == 202 and queued["state"] == "queued", queued
        assert up.call("POST", f"/api/trainings/{body['id']}/cancel", token=None)[0] == 401
        assert up.call("POST", "/api/trainings/t-999999/cancel")[0] == 404
        status, answer = up.call("POST", f"/api/trainings/{body['id']}/cancel")
        assert status == 200 and answer["cancel_requested"] is True, answer
        deadline = time.monotonic() + 60
        while (training := up.call("GET", f"/api/trainings/{body['id']}")[1])["state"] == "running":
            assert time.monotonic() < deadline, "the training never stopped"
            time.sleep(0.05)
        assert training["state"] == "cancelled" and 0 < len(training["steps"]) < 1000, training["state"]
        assert training["error"] is None and sorted(training["cancelled_ranks"]) == [0, 1]
        assert up.wait(queued["id"], timeout=60)["state"] == "done", "the queue moves on"
        assert {r["pid"] for r in up.cluster()["ranks"]} == pids, "the group was never broken"
    finally:
        up.stop()
