"""Traced send/recv code on the page, in a real Chromium against `ringside up --algorithms
examples/...`: a wrong result's first departure (its button steps to it), a deadlock's cycle, and
the blocking sender's wait on the p2p lesson's time rows. What the server keeps of those runs:
tests/served/test_traced_served.py."""

from __future__ import annotations

import pytest
from traced_examples import FLAGS, STUCK_AT

pytestmark = pytest.mark.cluster(flags=FLAGS)


@pytest.fixture(scope="module")
def runs(up):
    """The runs the page shows, made once in this order (the deadlock breaks the ranks' group)."""
    bug = up.run(
        collective="all_reduce", algorithm="tutorial_ring_bug", count=8, dtype="int64", capture="full"
    )
    lesson = up.run(collective="send_recv", algorithm="blocking", count=4, capture="full")
    status, body = up.call(
        "POST",
        "/api/runs",
        {"collective": "all_reduce", "algorithm": "deadlock_ring", "count": 8, "timeout": 2},
    )
    assert status == 202, body
    return {"bug": bug, "lesson": lesson, "stuck": up.wait(body["id"])}


def test_the_page_shows_the_departure_and_the_cycle(up, runs, page_for):
    expect = pytest.importorskip("playwright.sync_api").expect
    page = page_for(f"{up.url}/")
    for run, words in (
        (runs["bug"], "First departure: after step 1, rank 0's chunk 3 holds rank 3's chunk 2"),
        (runs["stuck"], f"deadlock: rank 0 waits in send to rank 1 ({STUCK_AT})"),
    ):
        page.goto(f"{up.url}/?run={run['id']}")
        page.wait_for_function(f"() => window.ringside.player.run?.id === '{run['id']}'")
        expect(page.locator("#outcome")).to_contain_text(words)
    page.goto(f"{up.url}/?run={runs['bug']['id']}")
    page.click("#outcome p.departure button")
    page.wait_for_function("window.ringside.player.step === 0")
    page.goto(f"{up.url}/?run={runs['lesson']['id']}")  # where the blocking sender waited: under the stage
    row = page.wait_for_selector('#calls .call-row[data-rank="0"]')
    assert float(row.get_attribute("data-blocked")) > 0.1 and "waited" in row.inner_text()
    expect(page.locator("#calls .call-row")).to_have_count(2)  # the ranks that made calls
