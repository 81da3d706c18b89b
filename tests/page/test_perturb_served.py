"""Perturbations through a real server and four real gloo workers: recorded in the run with
their predicted cost, the lecture demo in one request, a hang's wavefront live (to viewers and
in the run) before the timeout, the failure naming the rank, the cluster back for the next
run; and bad options refused naming the field, with nothing queued."""

from __future__ import annotations

import json
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


def test_bad_perturbations_get_422_naming_the_field_and_queue_nothing(up):
    _, before = up.call("GET", "/api/runs")
    ring = {"collective": "all_reduce", "algorithm": "ring", "count": 16}
    for perturb, field in [
        ({"straggler": {"rank": 9, "delay_s": 0.1}}, "perturb.straggler.rank"),
        ({"straggler": {"rank": 1, "delay_s": 60}}, "perturb.straggler.delay_s"),
        ({"slow_link": {"a": 2, "b": 2, "bytes_per_s": 1e6}}, "perturb.slow_link.b"),
        ({"slow_link": {"a": 0, "b": 1, "bytes_per_s": 1}}, "perturb.slow_link.bytes_per_s"),
        ({"hang": {"rank": 1, "step": 6}}, "perturb.hang.step"),
        ({"hang": {"rank": 1, "step": 0, "when": "now"}}, "perturb.hang.when"),
    ]:
        status, body = up.call("POST", "/api/runs", {**ring, "perturb": perturb})
        assert status == 422 and body["detail"]["field"] == field, (perturb, body)
    status, body = up.call(
        "POST",
        "/api/runs",
        {"collective": "all_reduce", "count": 16, "perturb": {"hang": {"rank": 1, "step": 0}}},
    )
    assert (
        status == 422 and body["detail"]["field"] == "perturb.hang" and "native" in body["detail"]["message"]
    )
    status, body = up.call("POST", "/api/perturb/demo", {"straggler": {"rank": 7, "delay_s": 0.1}})
    assert status == 422 and body["detail"]["field"] == "perturb.straggler.rank"
    assert up.call("GET", "/api/runs")[1]["total"] == before["total"]
    assert json.dumps(body).count("rank 7") == 1


def test_the_page_marks_the_perturbation_shows_who_waited_and_freezes_on_a_hang(up, page_for):
    """In a real Chromium: the demo from its button, a slow link from the panel, a hang's wavefront on the
    stage."""
    expect = pytest.importorskip("playwright.sync_api").expect
    page = page_for(f"{up.url}/?token={up.presenter}", viewport=(1280, 900))
    page.wait_for_selector("#perturb-demo")
    page.check("input[name='straggler.on']")
    page.fill("input[name='straggler.rank']", "3")
    page.fill("input[name='straggler.delay_s']", "0.2")
    with page.expect_response(lambda r: r.url.endswith("/api/perturb/demo")) as posted:
        page.click("#perturb-demo")
    ids = [r["id"] for r in posted.value.json()["runs"]]
    demo = page.locator("#perturb-report .perturb-demo")
    demo.wait_for(timeout=60_000)
    assert demo.inner_text().count("predicted +") == 2
    # in lecture mode there is no panel: the caption says it once the last run has played
    page.wait_for_function(
        "() => document.querySelector('#caption').textContent.startsWith('under one straggler: ring: ')",
        timeout=30_000,
    )
    page.wait_for_function(f"() => window.ringside.player.run?.id === '{ids[-1]}'")
    expect(page.locator("#stage g.perturbation rect.perturb-mark[data-rank='3']")).to_have_count(1)
    page.wait_for_selector("#perturb-report .perturb-waits")
    tree = up.call("GET", f"/api/runs/{ids[-1]}")[1]
    shown = page.eval_on_selector_all(
        "#perturb-report .perturb-waits li[data-step]",
        "li => li.map(x => [+x.dataset.step, +x.dataset.last])",
    )
    # at every step the straggler takes part in, the page names it the last to arrive (and who waited for it)
    steps_of_3 = [
        s["step"] for s in tree["steps"] if any(3 in t[:2] and t[0] != t[1] for t in s["transfers"])
    ]
    assert steps_of_3 and all(dict(shown)[k] == 3 for k in steps_of_3), shown
    expect(page.locator(f"#perturb-report li[data-step='{steps_of_3[0]}']")).to_contain_text("waited")

    page.click("button[data-collective=all_reduce]")
    page.select_option("#field-algorithm", "ring")
    page.uncheck("input[name='straggler.on']")
    page.check("input[name='slow_link.on']")
    page.fill("input[name='slow_link.a']", "0")
    page.fill("input[name='slow_link.b']", "1")
    page.fill("input[name='slow_link.bytes_per_s']", "1000000")
    with page.expect_response(lambda r: r.url.endswith("/api/runs") and r.request.method == "POST") as posted:
        page.click("#perturb-run")
    assert posted.value.status == 202, (posted.value.json(), page.text_content("#perturb-why"))
    run_id = posted.value.json()["id"]
    page.wait_for_function(
        f"() => window.ringside.player.run?.id === '{run_id}' && window.ringside.player.run.state === 'done'",
        timeout=60_000,
    )
    page.wait_for_selector("#stage line.perturb-link[data-a='0'][data-b='1']")

    # the caption below comes once three steps are drawn: at four times the speed, long before the timeout
    page.evaluate("window.ringside.player.setSpeed(4)")
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
    page.wait_for_function(
        "() => document.querySelector('#stage .perturb-verdict')?.textContent"
        " === 'everyone waits for it at step 4'",
        timeout=30_000,
    )
    assert up.call("GET", f"/api/runs/{body['id']}")[1]["state"] == "running", "shown before the timeout"
    expect(page.locator("#stage g.perturbation rect.perturb-mark[data-rank='2']")).to_have_count(1)
    labels = page.eval_on_selector_all(
        "#stage g.perturbation text.perturb-label", "ts => ts.map(t => t.textContent)"
    )
    # rank 2 waits for nobody
    assert "done: step 3 · waits for 2" in labels and "done: step 3" in labels, labels
    page.wait_for_function(
        "() => document.querySelector('#caption').textContent.startsWith('rank 2 "
        "has not arrived at step 3 (step 4 counting from 1)')",
        timeout=30_000,
    )  # once the player has shown every step that was done
    assert up.call("GET", f"/api/runs/{body['id']}")[1]["state"] == "running", (
        "the player caught up before the timeout"
    )
    assert up.wait(body["id"])["state"] == "failed"
    page.wait_for_function(
        "() => document.querySelector('#caption').textContent.startsWith('rank 2 "
        "never arrived at step 3 (step 4 counting from 1)')"
    )
    assert up.run(collective="all_reduce", algorithm="ring", count=16)["verified"] is True
