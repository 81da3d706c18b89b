"""Perturbations on the page, in a real Chromium against a real server and four gloo workers: the
demo from its button, each run marked with its straggler and who waited for it, a slow link from
the panel, a hang's wavefront on the stage before the timeout, and the caption naming the rank.
Through the server alone: tests/served/test_perturb_served.py."""

from __future__ import annotations

import pytest

P = 4


pytestmark = pytest.mark.cluster(ranks=P)


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
