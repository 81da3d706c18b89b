"""Training from the page, in a real Chromium against a real `ringside up` with 4 gloo ranks:
the presenter's Train panel starts a training whose charts grow on every page (the audience
has no Train button), a step's gradient sync opens on the stage with its values, the
parameter server's servers are labelled as such and its steps say why they have no stepwise
sync, a refused learning rate is shown beside its field and starts nothing, and a page
opened afterwards rebuilds the charts from the server."""

from __future__ import annotations

from pathlib import Path

import pytest
from browser import go, screenshot
from test_frontend_browser import stage_values

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

P = 4
HIDDEN, STEPS, OPENED = 16, 20, 3
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"
LOSS_Y = "document.getElementById('train-loss').data?.[0]?.y"
# Where on the page the loss chart draws step k's point of its first trace (plotly's own axes say).
POINT = """k => { const gd = document.getElementById('train-loss'), box = gd.getBoundingClientRect();
  const { xaxis, yaxis } = gd._fullLayout;
  return [box.left + xaxis._offset + xaxis.l2p(k), box.top + yaxis._offset + yaxis.l2p(gd.data[0].y[k])]; }"""


pytestmark = pytest.mark.cluster(ranks=P)


def trainings(up) -> list[dict]:
    status, body = up.call("GET", "/api/trainings?limit=100")
    assert status == 200, body
    return body["trainings"]


def train(page, method: str, lr: str, servers: int | None = None):
    """Fill the Train panel and press Train: the POST's response."""
    page.select_option("#train-method", method)
    if servers is not None:
        page.fill("#train-servers", str(servers))
    page.fill("#train-hidden", str(HIDDEN))
    page.fill("#train-steps", str(STEPS))
    page.fill("#train-lr", lr)
    with page.expect_response(
        lambda r: r.url.endswith("/api/trainings") and r.request.method == "POST"
    ) as posted:
        page.click("#train")
    return posted.value


def expected_previews(run: dict, step: int) -> dict:
    """Every rank's chunk values after `step` (-1: the gradients before the sync) as a summary
    capture ships them: each chunk's preview."""
    shown = {
        r: {s["chunk"]: s["values"] or s["preview"] for s in states} for r, states in run["inputs"].items()
    }
    for s in run["steps"][: step + 1]:
        for r, report in s["ranks"].items():
            for state in report["states"]:
                shown[r][state["chunk"]] = state["values"] or state["preview"]
    return shown


def charted(page, training_id: str) -> list:
    """The loss chart's first trace (every worker's loss) once it holds every step of the training."""
    page.locator("#training").scroll_into_view_if_needed()  # charts are drawn once in view
    page.wait_for_function(
        f"() => window.ringside.training.shown?.id === '{training_id}' && ({LOSS_Y})?.length === {STEPS}",
        timeout=30_000,
    )
    return page.evaluate(LOSS_Y)


def test_train_from_the_panel_charts_live_everywhere_and_opens_a_step_on_the_stage(up, page_for):
    presenter = page_for(f"{up.url}/?token={up.presenter}", allow=["422", "404"])
    presenter.wait_for_selector("#train")
    audience = page_for(f"{up.url}/")
    audience.wait_for_function("() => window.ringside?.training?.catalog")
    expect(audience.locator("#train")).to_have_count(0)
    expect(audience.locator("#train-panel")).to_be_hidden()

    # A learning rate of 0: the server's reason beside the field, and nothing trains.
    before = trainings(up)
    refused = train(presenter, "ring", "0")
    assert refused.status == 422
    detail = refused.json()["detail"]
    assert detail["field"] == "lr"
    expect(presenter.locator("[data-train-error=lr]")).to_have_text(detail["message"])
    assert trainings(up) == before

    accepted = train(presenter, "ring", "0.5")
    assert accepted.status == 202
    training_id = accepted.json()["id"]
    expect(presenter.locator("[data-train-error=lr]")).to_have_text("")
    loss = charted(presenter, training_id)
    assert charted(audience, training_id) == loss
    _, stored = up.call("GET", f"/api/trainings/{training_id}")
    assert [s["loss"] for s in stored["steps"]] == pytest.approx(loss)
    # one point a step
    assert presenter.evaluate("document.getElementById('train-loss').data[0].x") == list(range(STEPS))
    assert sum(loss[-5:]) < sum(loss[:5]), "the loss falls"
    workers = presenter.evaluate("document.getElementById('train-loss').data.slice(1).map(t => t.name)")
    assert workers == [f"rank {r}" for r in stored["workers"]] and len(workers) == P
    presenter.wait_for_function(
        f"() => document.querySelector('#train-table tr[data-training=\"{training_id}\"]')"
    )

    # Step 3's gradient sync on the stage, stepped through with the values the ranks captured.
    presenter.fill("#train-step", str(OPENED))
    with presenter.expect_response(lambda r: r.url.endswith(f"/steps/{OPENED}/sync")) as opened:
        presenter.click("#train-open")
    run = opened.value.json()
    presenter.wait_for_function(f"() => window.ringside.player.run?.id === '{run['id']}'")
    presenter.evaluate("window.ringside.player.pause()")
    for step in (-1, len(run["steps"]) - 1):
        go(presenter, step)
        shown, want = stage_values(presenter), expected_previews(run, step)
        assert len(want) == P and all(
            shown[r][c] == v for r, chunks in want.items() for c, v in chunks.items()
        )
        numbers = [x for chunks in shown.values() for v in chunks.values() for x in v]
        assert all(isinstance(x, (int, float)) for x in numbers) and any(x != 0 for x in numbers)
    written = presenter.eval_on_selector_all(
        "#stage g.cell text.value", "ts => ts.filter(t => t.textContent.trim()).length"
    )
    assert written > 0, "the cells show their values"
    screenshot(presenter, ARTIFACTS / "training-sync.png")
    presenter.locator("#training").scroll_into_view_if_needed()
    screenshot(presenter, ARTIFACTS / "training-charts.png")

    # A parameter server: its server is labelled, computes no loss, and its steps' syncs pull and push.
    ps = presenter.evaluate("window.ringside.training.catalog.parameter_server")
    accepted = train(presenter, ps, "0.5", servers=1)
    assert accepted.status == 202
    ps_id = accepted.json()["id"]
    charted(presenter, ps_id)
    # the bytes chart is drawn after the loss chart: its server's traces once it is this training's
    presenter.wait_for_function(
        "document.getElementById('train-bytes').data?.some(t => t.name.startsWith('server'))", timeout=30_000
    )
    names = presenter.evaluate("document.getElementById('train-bytes').data.map(t => t.name)")
    assert "server 0 sent" in names and "rank 1 sent" in names
    losses = presenter.evaluate(
        "document.getElementById('train-loss').data.map(t => [t.name, t.y.filter(v => v !== null).length])"
    )
    assert losses == [["all workers", STEPS]] + [[f"rank {r}", STEPS] for r in range(1, P)] + [
        ["server 0: no loss", 0]
    ]
    # A click on step 5's point of the loss chart opens its sync on the stage: the pull, then the push.
    presenter.locator("#train-loss").scroll_into_view_if_needed()
    x, y = presenter.evaluate(POINT, 5)
    with presenter.expect_response(lambda r: r.url.endswith("/steps/5/sync")) as asked:
        presenter.mouse.move(x, y)
        presenter.mouse.click(x, y)
    assert asked.value.status == 200
    sync = asked.value.json()
    assert sync["layout"]["servers"] == [0] and [s["phase"] for s in sync["steps"]] == ["pull", "push"]
    presenter.wait_for_function(f"() => window.ringside.player.run?.id === '{sync['id']}'")
    # A step it never took: the server's reason shows beside the button.
    presenter.fill("#train-step", str(STEPS + 5))
    with presenter.expect_response(lambda r: r.url.endswith(f"/steps/{STEPS + 5}/sync")) as asked:
        presenter.click("#train-open")
    assert asked.value.status == 404
    why = asked.value.json()["detail"]["message"]
    expect(presenter.locator("#train-sync-why")).to_contain_text(f"step {STEPS + 5}: {why}")
    presenter.wait_for_function("() => document.querySelectorAll('#train-table tbody tr').length === 2")

    # A page opened now rebuilds the charts and the comparison from the server.
    late = page_for(f"{up.url}/")
    assert charted(late, ps_id) == presenter.evaluate(LOSS_Y)
    late.wait_for_function("() => document.querySelectorAll('#train-table tbody tr').length === 2")
    screenshot(late, ARTIFACTS / "training-late.png")


def test_compare_all_methods_waits_for_a_busy_cluster_then_trains_each_method_once(up, page_for):
    presenter = page_for(f"{up.url}/?token={up.presenter}", allow=["409"])
    presenter.wait_for_selector("#train")
    catalog = up.call("GET", "/api/catalog")[1]["training"]
    ps = catalog["parameter_server"]
    wanted = [m for m in catalog["methods"] if m != ps] + [f"{ps} S=1", f"{ps} S={P - 1}"]
    # A long collective run holds the cluster: the page's first POST is refused (409) and the
    # trainings wait on the page until the cluster is free; then each goes when the one before ended.
    status, blocker = up.call(
        "POST",
        "/api/runs",
        {
            "collective": "all_reduce",
            "algorithm": "native",
            "count": 1 << 18,
            "dtype": "float32",
            "capture": "none",
            "iterations": 10_000,
        },
    )
    assert status == 202, blocker
    presenter.fill("#train-hidden", str(HIDDEN))
    presenter.fill("#train-steps", "5")
    with presenter.expect_response(
        lambda r: r.url.endswith("/api/trainings") and r.request.method == "POST"
    ) as first:
        presenter.click("#train-all")
    assert first.value.status == 409
    assert up.call("POST", f"/api/runs/{blocker['id']}/cancel")[0] == 200
    held = up.wait(blocker["id"])
    presenter.wait_for_function(
        f"() => document.querySelectorAll('#train-table tbody tr').length === {len(wanted)}", timeout=90_000
    )
    assert (
        presenter.eval_on_selector_all(
            "#train-table tbody tr td:first-child", "tds => tds.map(t => t.textContent)"
        )
        == wanted
    )
    finals = presenter.eval_on_selector_all(
        "#train-table tbody tr td:nth-child(5)", "tds => tds.map(t => t.textContent)"
    )
    # averaged gradients, one update
    assert len(set(finals)) == 1, f"every method takes the same SGD steps: {finals}"
    # the chart is drawn after the table: once it has as many bars as the table has rows
    bars = ",".join([str(len(wanted))] * 5)
    chart = "document.getElementById('train-compare-chart').data?.map(t => t.y.length).join()"
    presenter.wait_for_function(f"{chart} === '{bars}'")
    compared = [t for t in trainings(up) if t["spec"]["steps"] == 5]
    assert len(compared) == len(wanted) and all(t["state"] == "done" for t in compared)
    assert min(t["created_at"] for t in compared) >= held["finished_at"], (
        "nothing was submitted over the busy cluster"
    )
    presenter.locator("#train-compare").scroll_into_view_if_needed()
    screenshot(presenter, ARTIFACTS / "training-compare.png")


def test_the_presenter_cancels_a_training_from_the_page(up, page_for):
    presenter = page_for(f"{up.url}/?token={up.presenter}")
    audience = page_for(f"{up.url}/")
    for page in (presenter, audience):
        page.wait_for_function("() => window.ringside?.training?.catalog")
    status, body = up.call("POST", "/api/trainings", {"method": "ring", "steps": 1000, "hidden": 512})
    assert status == 202, body
    expect(presenter.locator("#train-cancel")).to_be_visible(timeout=30_000)
    expect(audience.locator("#train-status")).to_have_attribute("data-state", "running", timeout=30_000)
    expect(audience.locator("#train-cancel")).to_be_hidden()
    presenter.click("#train-cancel")
    for page in (presenter, audience):
        expect(page.locator("#train-status")).to_have_attribute("data-state", "cancelled", timeout=60_000)
    expect(presenter.locator("#train-cancel")).to_be_hidden()
    _, stored = up.call("GET", f"/api/trainings/{body['id']}")
    assert stored["state"] == "cancelled" and len(stored["steps"]) < 1000
