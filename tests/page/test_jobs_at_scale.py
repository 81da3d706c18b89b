"""The Jobs view of a job of 256 ranks (32 nodes, more than lanes fit, as in any larger job), in a
real Chromium against a real server: a synthetic job (worker_agent/clients/synthetic_job.py) whose
every rank is a websocket of its own speaking the watch protocol, 8 ranks a node, an all_reduce
every 0.1 s; then rank 131 stops before one while the others issue it and wait. The lanes stay one
screen of readable lanes: healthy ranks folded by node, the stopped rank its own lane beside its
node's peers and named late, every label on its lane, the lanes above the fold with the rank list
below them; folded lanes read in Korean too."""

from __future__ import annotations

import asyncio
import re
import threading
import time
import uuid

import pytest
from server_helpers import WORKER_TOKEN, start_serve
from watched import jobs, wait_for

from ringside.worker_agent.clients.synthetic_job import SCRIPT, Plan, SyntheticJob

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

WORLD, STOPPED, PER_NODE = 256, 131, 8
VIEWPORT = (1280, 720)


@pytest.fixture(scope="module")
def job(tmp_path_factory):
    """The server, the job's id once every rank has said hello, and its plan: the job starts issuing
    collectives when the test moves its t0 (so that the page loads first, on a busy machine too)."""
    server = start_serve(tmp_path_factory.mktemp("scale"))
    plan = Plan(world=WORLD, key=uuid.uuid4().hex[:16], t0=time.time() + 600, interval=1.0, stop_rank=STOPPED)
    ranks = SyntheticJob(server.url, WORKER_TOKEN, plan)
    thread = threading.Thread(target=asyncio.run, args=(ranks.run(time.time() + 600),), daemon=True)
    thread.start()
    try:
        wait_for(lambda: ranks.counts.connected == WORLD or ranks.counts.refused, timeout=120)
        assert not ranks.counts.refused, ranks.counts.refused[:3]
        found = wait_for(lambda: next((j for j in jobs(server) if j["script"] == SCRIPT), None))
        yield server, found["id"], plan
    finally:
        ranks.end()
        thread.join(10)
        server.stop()


LANES = """() => {
  const svg = document.getElementById('job-lanes').getBoundingClientRect();
  const spans = [...document.querySelectorAll('#job-names span')];
  const h = svg.height / spans.length;
  return { svgTop: svg.top, svgBottom: svg.bottom, lane: h, labels: spans.map((s, i) => {
    const b = s.getBoundingClientRect();
    return { i, text: s.textContent, late: s.classList.contains('late'),
      folded: s.hasAttribute('data-folded'), ranks: +s.dataset.ranks,
      top: b.top - (svg.top + i * h), bottom: b.bottom - (svg.top + (i + 1) * h),
      font: parseFloat(getComputedStyle(s).fontSize) };
  }) };
}"""


def test_a_stopped_rank_of_256_is_its_own_lane_among_nodes_folded_and_every_label_is_on_its_lane(
    job, page_for
):
    server, job_id, plan = job
    page = page_for(f"{server.url}/?token={server.presenter}&job={job_id}", viewport=VIEWPORT)
    expect(page.locator("#job-title")).to_contain_text(job_id, timeout=30_000)
    plan.stop_at = int(3 * plan.rate)
    plan.t0 = time.time()  # the job starts, and rank 131 stops 3 s on
    banner = page.locator("#job-hang")
    expect(banner).to_have_attribute("data-state", "hang", timeout=30_000)
    # once every other rank has said it waits in the collective, the stopped one alone is late
    page.wait_for_function(
        "t => [...document.querySelectorAll('#job-names .late')].map(s => s.textContent).join() === t",
        arg=f"rank {STOPPED}",
        timeout=60_000,
    )
    headline = f"rank {STOPPED} late: {WORLD - 1} ranks wait in all_reduce #"
    expect(banner.locator("b")).to_contain_text(headline)

    drawn = page.evaluate(LANES)
    labels = drawn["labels"]
    assert len(labels) <= 20, f"{len(labels)} lanes"
    assert drawn["lane"] >= 16, f"a lane is {drawn['lane']:.1f} px tall"
    for label in labels:
        assert label["font"] >= 12, f"{label['text']}: {label['font']} px"
        assert label["top"] >= -0.5 and label["bottom"] <= 0.5, f"{label['text']} is off its lane: {label}"
    assert drawn["svgBottom"] <= VIEWPORT[1], "the lanes end above the fold"
    assert sum(label["ranks"] for label in labels) == WORLD, "every rank is on one lane"
    own = [label["text"] for label in labels if not label["folded"]]
    node = STOPPED // PER_NODE
    assert own == [f"rank {r}" for r in range(node * PER_NODE, (node + 1) * PER_NODE)], own
    assert [label["text"] for label in labels if label["late"]] == [f"rank {STOPPED}"]
    folded = [label for label in labels if label["folded"]]
    assert folded and all(label["ranks"] % PER_NODE == 0 for label in folded)
    named = [re.fullmatch(rf"nodes? node\d+( – node\d+)? · {f['ranks']} ranks", f["text"]) for f in folded]
    assert all(named), [f["text"] for f in folded]
    # the wavefront: a line through each lane's last issue, drawn while the job hangs
    assert page.get_attribute("#job-lanes .front", "d")
    ranks_box = page.locator("#job-ranks").bounding_box()
    assert ranks_box["y"] >= drawn["svgBottom"], "the rank list is below the lanes"
    expect(page.locator('#job-ranks .rank-row[data-late=""]')).to_have_attribute("data-rank", str(STOPPED))

    page.select_option("#lang", "ko")
    expect(page.locator("html")).to_have_attribute("lang", "ko")
    expect(page.locator("#job-names [data-folded]").first).to_contain_text("랭크")
    expect(page.locator("#job-names [data-folded]").first).not_to_contain_text("ranks")
