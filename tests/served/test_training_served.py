"""Training from the server, on a real `ringside up` with 4 gloo ranks: a training holds
the cluster, streams one merged row per step to every viewer, keeps every step's gradient
sync for the stage, refuses bad input naming the field, and fails naming the rank that died
without losing the cluster."""

from __future__ import annotations

import json
import os
import signal
import threading
import time

import pytest
from server_helpers import ScriptedRank, messages, start_serve
from websockets.sync.client import connect

from ringside.worker_agent.training.rules import PARAMETER_SERVER, parameters

P, HIDDEN, STEPS = 4, 16, 20


pytestmark = pytest.mark.cluster(ranks=P)


def wait_training(up, training_id: str, timeout: float = 120) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        _, training = up.call("GET", f"/api/trainings/{training_id}")
        if training["state"] in ("done", "failed", "interrupted"):
            return training
        time.sleep(0.1)
    raise TimeoutError(f"training {training_id} did not end within {timeout} s")


def listen(up, heard: list, until) -> threading.Thread:
    """A viewer that records what it hears (its snapshot first) until `until(message)`; returned
    once the snapshot came, so nothing said after is missed."""
    ready = threading.Event()

    def run():
        with connect(up.ws_url()) as ws:
            heard.extend(messages(ws.recv(timeout=30)))
            ready.set()
            while True:
                batch = messages(ws.recv(timeout=120))
                heard.extend(batch)
                if any(until(m) for m in batch):
                    return

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert ready.wait(30), "no snapshot"
    return thread


def test_a_training_streams_its_steps_holds_the_cluster_and_keeps_its_syncs(up):
    heard = []  # until the one training after the snapshot ends
    listener = listen(up, heard, lambda m: m["type"] == "training" and m["training"]["state"] == "done")
    status, body = up.call("POST", "/api/trainings", {"method": "ring", "hidden": HIDDEN, "steps": STEPS})
    assert status == 202, body
    busy, why = up.call("POST", "/api/trainings", {"method": "ring", "hidden": HIDDEN, "steps": STEPS})
    assert busy == 409 and why["detail"]["field"] == "cluster"
    status, queued = up.call(
        "POST", "/api/runs", {"collective": "all_reduce", "algorithm": "ring", "count": 8}
    )
    assert status == 202  # a run waits for the training to end
    training = wait_training(up, body["id"])
    assert training["state"] == "done", training["error"]
    assert [row["step"] for row in training["steps"]] == list(range(STEPS))
    assert training["steps"][-1]["loss"] < training["steps"][0]["loss"]
    assert training["result"]["test_accuracy"] > 0.1  # better than guessing among ten classes
    ring = training["steps"][0]["ranks"]["0"]
    n_bytes = parameters(HIDDEN) * 4
    assert abs(ring["bytes_sent"] - 2 * (P - 1) * n_bytes / P) <= 2 * (P - 1) * 4  # 2·(N/P)·(P-1)
    assert up.wait(queued["id"])["verified"] is True  # the run ran after the training
    listener.join(60)
    assert not listener.is_alive(), "the viewer never heard the training end"
    rows = [m for m in heard if m["type"] == "train_step" and m["id"] == body["id"]]
    assert [m["step"]["step"] for m in rows] == list(range(STEPS)), "every step, once, in order"
    states = [
        m["training"]["state"] for m in heard if m["type"] == "training" and m["training"]["id"] == body["id"]
    ]
    assert states[0] in ("queued", "running") and states[-1] == "done"

    status, run = up.call("GET", f"/api/trainings/{body['id']}/steps/3/sync")
    assert status == 200 and run["state"] == "done" and run["spec"]["algorithm"] == "ring"
    assert len(run["steps"]) == 2 * (P - 1) and all(len(s["ranks"]) == P for s in run["steps"])
    for chunk in range(P):  # a SUM all_reduce: every rank's output chunk sums every rank's input chunk
        want = sum(run["inputs"][str(r)][chunk]["sum"] for r in range(P))
        for r in range(P):
            got = run["results"][str(r)]["output"][chunk]["sum"]
            assert abs(got - want) <= 1e-4 * max(1.0, abs(want)), (chunk, r)
    missing, why = up.call("GET", f"/api/trainings/{body['id']}/steps/{STEPS}/sync")
    assert missing == 404 and why["detail"]["field"] == "step"
    same = up.call("GET", f"/api/runs/{run['id']}")[1]  # a link to it, or a presenter's view of it, finds it
    assert same["id"] == f"{body['id']}-s3" and same["steps"] == run["steps"]


def test_a_training_keeps_the_syncs_it_is_asked_to_and_says_which(up):
    status, body = up.call(
        "POST", "/api/trainings", {"method": "ring", "hidden": HIDDEN, "steps": 9, "sync_every": 4}
    )
    assert status == 202, body
    assert wait_training(up, body["id"])["state"] == "done"
    assert [up.call("GET", f"/api/trainings/{body['id']}/steps/{k}/sync")[0] for k in (0, 3, 4, 8)] == [
        200,
        404,
        200,
        200,
    ]
    why = up.call("GET", f"/api/trainings/{body['id']}/steps/5/sync")[1]["detail"]
    assert why["field"] == "step" and "one in 4: steps 4 and 8 are" in why["message"]


def test_a_steps_sync_measures_what_its_formula_says(up):
    status, body = up.call("POST", "/api/trainings", {"method": "tree", "hidden": HIDDEN, "steps": 3})
    assert status == 202, body
    assert wait_training(up, body["id"])["state"] == "done"
    run = up.call("GET", f"/api/trainings/{body['id']}/steps/1/sync")[1]
    shown = run["display"]["formula"]
    assert (
        shown["formula"] == "2·⌊log2 P⌋·N"
        and shown["value"] == shown["measured"] == 2 * 2 * parameters(HIDDEN) * 4
    )


def test_a_parameter_server_training_loads_its_server_link_with_p_minus_1_times_n(up):
    status, body = up.call(
        "POST", "/api/trainings", {"method": PARAMETER_SERVER, "servers": 1, "hidden": HIDDEN, "steps": 5}
    )
    assert status == 202, body
    training = wait_training(up, body["id"])
    assert training["state"] == "done", training["error"]
    assert training["servers"] == [0] and training["workers"] == [1, 2, 3]
    server = training["steps"][-1]["ranks"]["0"]
    assert server["loss"] is None and server["bytes_received"] == (P - 1) * parameters(HIDDEN) * 4
    assert training["result"]["busiest_link_bytes"] == (P - 1) * parameters(HIDDEN) * 4
    status, run = up.call("GET", f"/api/trainings/{body['id']}/steps/3/sync")  # on the stage: pull, then push
    assert status == 200 and run["spec"]["collective"] == PARAMETER_SERVER and run["layout"]["servers"] == [0]
    assert [s["phase"] for s in run["steps"]] == ["pull", "push"]
    weights, gradient = 0, 1  # chunks: the server's shard of the weights, then of the gradient
    pushed = sum(run["inputs"][str(w)][gradient]["sum"] for w in (1, 2, 3))  # -lr times each worker's share
    before = run["inputs"]["0"][weights]["sum"]
    after = next(st for st in run["steps"][1]["ranks"]["0"]["states"] if st["chunk"] == weights)["sum"]
    assert abs(after - (before + pushed)) <= 1e-4 * max(1.0, abs(after)), (
        "the server adds every push into its weights"
    )
    for w in ("1", "2", "3"):  # every worker pulled the server's weights
        pulled = next(st for st in run["steps"][0]["ranks"][w]["states"] if st["chunk"] == weights)
        assert pulled["checksum"] == run["inputs"]["0"][weights]["checksum"]


def test_methods_trained_on_the_same_data_compare_side_by_side(up):
    ids = []
    for method, servers in (("native", 1), ("ring", 1), (PARAMETER_SERVER, 1)):
        spec = {"method": method, "servers": servers, "hidden": HIDDEN, "steps": 4}
        status, body = up.call("POST", "/api/trainings", spec)
        assert status == 202, body
        assert wait_training(up, body["id"])["state"] == "done"
        ids.append(body["id"])
    status, compared = up.call("GET", f"/api/trainings/compared?ids={','.join(ids)}")
    assert status == 200, compared
    native, ring, ps = compared["methods"]
    assert [m["training"] for m in compared["methods"]] == ids
    assert ps["method"] == f"{PARAMETER_SERVER} S=1" and len(ring["losses"]) == 4
    # the same batches, initial weights and SGD steps: only the order of the sums differs
    assert compared["loss_spread"] < 1e-5, compared["loss_spread"]
    n_bytes = parameters(HIDDEN) * 4
    assert native["busiest"] is None, "the backend's own all_reduce does not say its bytes"
    assert all(abs(r["sent"] - 2 * (P - 1) * n_bytes / P) <= 2 * (P - 1) * 4 for r in ring["ranks"])
    hub = ps["busiest"]
    assert hub["rank"] == 0 and hub["server"] and hub["received"] == hub["sent"] == (P - 1) * n_bytes
    assert all(r["sent"] == r["received"] == n_bytes for r in ps["ranks"][1:]), "a worker pushes and pulls N"
    status, refused = up.call("GET", f"/api/trainings/compared?ids={ids[0]},t-999999")
    assert status == 404 and refused["detail"]["field"] == "training_id"
    status, other = up.call("POST", "/api/trainings", {"method": "ring", "hidden": HIDDEN + 1, "steps": 4})
    assert wait_training(up, other["id"])["state"] == "done"
    status, refused = up.call("GET", f"/api/trainings/compared?ids={ids[1]},{other['id']}")
    assert status == 422 and refused["detail"]["field"] == "ids"
    assert f"hidden {HIDDEN + 1}" in refused["detail"]["message"]


@pytest.mark.parametrize(
    "change, field",
    [
        ({"lr": 0}, "lr"),
        ({"method": PARAMETER_SERVER, "servers": P}, "servers"),
        ({"method": PARAMETER_SERVER, "servers": P - 1, "batch": 0}, "batch"),
        ({"steps": 10**7}, "steps"),
        ({"hidden": 10**6}, "hidden"),
        ({"method": "smoke_signals"}, "method"),
        ({"lr": "fast"}, "lr"),
        ({"seed": 10**30}, "seed"),
        ({"sync_every": 0}, "sync_every"),
    ],
)
def test_bad_training_input_is_refused_naming_the_field_and_starts_nothing(up, change, field):
    before = up.call("GET", "/api/trainings?limit=200")[1]["trainings"]
    status, body = up.call("POST", "/api/trainings", {"hidden": HIDDEN, "steps": 5, **change})
    assert status == 422 and body["detail"]["field"] == field, body
    assert up.call("GET", "/api/trainings?limit=200")[1]["trainings"] == before
    assert up.call("POST", "/api/trainings", {"steps": 5}, token=None)[0] == 401  # the audience cannot train
    # refused before its body is read
    assert up.call("POST", "/api/trainings", b"{not json", token=None)[0] == 401


def test_a_rank_killed_mid_training_fails_it_naming_the_rank_and_the_cluster_comes_back(up):
    ranks = {r["rank"]: r["pid"] for r in up.wait_ranks(P)["ranks"]}
    status, body = up.call(
        "POST", "/api/trainings", {"method": "ring", "hidden": 256, "steps": 1000, "timeout": 5}
    )
    assert status == 202, body
    deadline = time.monotonic() + 60
    while not up.call("GET", f"/api/trainings/{body['id']}")[1]["steps"] and time.monotonic() < deadline:
        time.sleep(0.05)
    os.kill(ranks[2], signal.SIGKILL)
    training = wait_training(up, body["id"])
    assert training["state"] == "failed" and "rank 2 was lost" in training["error"], training["error"]
    up.wait_ranks(P, exclude_pids=set(ranks.values()))
    again = up.call("POST", "/api/trainings", {"method": "native", "hidden": HIDDEN, "steps": 3})
    assert again[0] == 202 and wait_training(up, again[1]["id"])["state"] == "done"
    assert json.dumps(up.call("GET", "/api/trainings?limit=5")[1]).count(body["id"]) == 1  # kept, failed


def test_a_diverged_training_is_kept_and_read_back_with_its_infinite_loss(tmp_path):
    """lr within its range can still diverge: an infinite or NaN loss is a result to show, and
    the list of trainings, the training and its steps stay readable (after a restart too)."""
    server = start_serve(tmp_path)
    ranks = [ScriptedRank(server, r, 2) for r in range(2)]
    try:
        server.wait_ranks(2)
        status, body = server.call("POST", "/api/trainings", {"method": "native", "steps": 1, "batch": 2})
        assert status == 202, body
        for rank in ranks:
            command = rank.command()
            assert command["type"] == "train"
            rank.send(
                type="train_step",
                run_id=command["run_id"],
                step=0,
                loss=1e308,
                accuracy=0.5,
                samples=1,
                compute_s=0.01,
                comm_s=0.01,
            )
            rank.send(type="train_finished", run_id=command["run_id"], test_loss="inf", test_accuracy=0.1)
        training = wait_training(server, body["id"], timeout=30)
        assert training["state"] == "done" and training["steps"][0]["loss"] == "inf"
        assert training["result"]["final_loss"] == "inf" and training["result"]["test_loss"] == "inf"
        listed = server.call("GET", "/api/trainings")
        assert listed[0] == 200 and listed[1]["trainings"][0]["result"]["final_loss"] == "inf"
    finally:
        for rank in ranks:
            rank.close()
        server.stop()
    again = start_serve(tmp_path, port=int(server.url.rsplit(":", 1)[1]))
    try:
        assert again.call("GET", "/api/trainings")[0] == 200
        assert again.call("GET", f"/api/trainings/{body['id']}")[1]["steps"][0]["loss"] == "inf"
    finally:
        again.stop()
