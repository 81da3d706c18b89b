"""Perturbations through a real server and four real gloo workers: recorded in the run with
their predicted cost, the lecture demo in one request, a hang's wavefront live (to viewers and
in the run) before the timeout, the failure naming the rank, the cluster back for the next
run. Bad options refused: tests/unit/test_run_requests_refused.py; on the page:
tests/page/test_perturb_page.py."""

from __future__ import annotations

import threading
import time

import pytest
from server_helpers import ended, messages
from websockets.sync.client import connect

P = 4


pytestmark = pytest.mark.cluster(ranks=P)


class Wavefronts(threading.Thread):
    """A viewer that keeps the `wavefront` messages it hears until run `until` ends."""

    def __init__(self, up):
        super().__init__(daemon=True)
        self.url, self.until = up.ws_url(), None
        self.seen: list[dict] = []
        self.ready, self.done = threading.Event(), threading.Event()
        self.start()
        assert self.ready.wait(30), "no snapshot"

    def run(self):
        with connect(self.url, max_size=None) as ws:
            ws.recv(timeout=10)
            self.ready.set()
            while not self.done.is_set():
                batch = messages(ws.recv(timeout=120))
                self.seen += [m for m in batch if m["type"] == "wavefront"]
                if self.until and any(ended(m, self.until) for m in batch):
                    self.done.set()


def last_at_every_step(run: dict, rank: int) -> bool:
    """Whether `rank` began every step it takes part in after every peer it meets there."""
    for step in run["steps"]:
        t0 = {int(r): v["t0"] for r, v in step["ranks"].items()}
        if (
            rank in {x for src, dst, *_ in step["transfers"] for x in (src, dst) if src != dst}
            and max(t0, key=t0.get) != rank
        ):
            return False
    return True


def test_a_straggler_run_records_its_option_and_its_predicted_cost(up):
    straggler = {"rank": 1, "delay_s": 0.3}  # past what a busy machine's scheduling moves a rank's start
    run = up.run(collective="all_reduce", algorithm="ring", count=16, perturb={"straggler": straggler})
    assert run["state"] == "done" and run["verified"] is True
    perturb = {"straggler": straggler, "stagger": None, "slow_link": None, "hang": None}
    assert run["spec"]["perturb"] == perturb
    assert run["perturbed"]["predicted_extra_s"] == pytest.approx(2 * (P - 1) * 0.3)
    assert run["perturbed"]["wavefront"] is None, "only a hang reports live"
    assert last_at_every_step(run, 1)


def test_the_demo_runs_both_algorithms_under_one_straggler_in_one_request(up):
    _, limits = up.call("GET", "/api/perturb")
    assert limits["demo"]["algorithms"] == ["ring", "tree"]
    assert up.call("POST", "/api/perturb/demo", {}, token=None)[0] == 401
    status, answer = up.call("POST", "/api/perturb/demo", {"straggler": {"rank": 2, "delay_s": 0.3}})
    assert status == 202, answer
    assert [r["algorithm"] for r in answer["runs"]] == ["ring", "tree"]
    runs = [up.wait(r["id"]) for r in answer["runs"]]
    assert all(r["state"] == "done" and r["verified"] for r in runs)
    assert all(r["spec"]["perturb"]["straggler"] == {"rank": 2, "delay_s": 0.3} for r in runs)
    ring, tree = (r["perturbed"]["predicted_extra_s"] for r in runs)
    assert ring == pytest.approx(2 * (P - 1) * 0.3) and tree < ring
    assert [r["predicted_extra_s"] for r in answer["runs"]] == [ring, tree]
    assert all(last_at_every_step(r, 2) for r in runs)


def test_a_hang_shows_its_wavefront_before_the_timeout_then_fails_naming_the_rank(up):
    pids = {r["pid"] for r in up.cluster()["ranks"]}
    viewer = Wavefronts(up)
    status, body = up.call(
        "POST",
        "/api/runs",
        {
            "collective": "all_reduce",
            "algorithm": "ring",
            "count": 16,
            "timeout": 6,
            "perturb": {"hang": {"rank": 2, "step": 3}},
        },
    )
    assert status == 202, body
    viewer.until = body["id"]
    polled = None
    while True:  # while it hangs, the run itself holds the wavefront
        _, run = up.call("GET", f"/api/runs/{body['id']}")
        front = (run.get("perturbed") or {}).get("wavefront") or {}
        if run["state"] == "running" and front.get("rank") is not None:
            polled = front
        if run["state"] not in ("queued", "running"):
            break
        time.sleep(0.05)
    assert polled is not None and (polled["rank"], polled["step"], polled["waiting"]) == (2, 3, [0, 1, 3])
    assert polled["done"]["2"] == 2 and polled["arrived"]["2"] == 2, (
        "rank 2 finished index 2 and never began index 3 (the page's step 4)"
    )
    assert viewer.done.wait(30)
    live = [m["wavefront"] for m in viewer.seen if m["run_id"] == body["id"]]
    assert live and (live[-1]["rank"], live[-1]["step"]) == (2, 3), "viewers heard it as it formed"
    chunk, to = polled["sends"][0]
    assert run["state"] == "failed"
    assert run["error"].startswith(
        "rank 2 never arrived at step 3 (step 4 counting from 1); ranks 0, 1, 3 "
        f"waited for it: it was to send chunk {chunk} to rank {to}"
    ), run["error"]
    ranks = up.cluster()["ranks"]  # the group was built again inside the same ranks, never lost
    assert {r["pid"] for r in ranks} == pids and all(r["status"] != "lost" for r in ranks), ranks
    again = up.run(collective="all_reduce", algorithm="ring", count=16)
    assert again["state"] == "done" and again["verified"] is True
