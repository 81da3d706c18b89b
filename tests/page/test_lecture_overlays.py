"""What the presenter shows over the stage, the phones show, in a real Chromium
against a real `ringside up` with gloo ranks: the demo's result line (D), the compare view
(C) and the training's charts (T) open and close on a phone that follows the presenter, with
the same content; a detached phone keeps its own, and one tap brings the presenter's back; a
late joiner gets the overlay from its snapshot; only the presenter's token sets it; and the
methods table fits a phone."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from browser import screenshot
from test_lecture_audience import PHONE, on_run, presenter_view, refused, viewer_snapshot

from ringside.worker_agent.core.algorithms import parameter_server as ps

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

P = 4
SHOTS = Path("/tmp/overlays")
PS = "parameter_server"
TRAIN = {"hidden": 8, "steps": 4, "lr": 0.5, "batch": 32}
COVERED = "document.body.classList.contains('{}')"
BESIDE = "[...document.querySelectorAll('#beside tr')].map(r => r.textContent)"


pytestmark = pytest.mark.cluster(ranks=P)


def trained(up, **spec) -> str:
    status, body = up.call("POST", "/api/trainings", {**TRAIN, **spec})
    assert status == 202, body
    for _ in range(600):
        training = up.call("GET", f"/api/trainings/{body['id']}")[1]
        if training["state"] not in ("queued", "running"):
            assert training["state"] == "done", training
            return body["id"]
        time.sleep(0.1)
    raise AssertionError(f"training {body['id']} did not end")


def presenting(up, page_for, run_id: str):
    page = page_for(f"{up.url}/?token={up.presenter}&present=1&run={run_id}&step=0")
    on_run(page, run_id)
    page.locator("#stage").click()  # the keys go to the page
    return page


def phone_on(up, page_for, run_id: str):
    phone = page_for(f"{up.url}/", viewport=PHONE)
    on_run(phone, run_id)
    phone.wait_for_function("document.getElementById('role').textContent.includes('following')")
    return phone


def test_the_demos_result_line_reaches_the_phones(up, page_for):
    first = up.run(collective="all_reduce", algorithm="ring", count=4, capture="full", pattern="rank")
    presenter = presenting(up, page_for, first["id"])
    phone = phone_on(up, page_for, first["id"])
    with presenter.expect_response(lambda r: r.url.endswith("/api/perturb/demo")) as posted:
        presenter.keyboard.press("d")
    ids = [r["id"] for r in posted.value.json()["runs"]]
    said = "() => document.getElementById('caption').textContent.startsWith('under one straggler: ')"
    presenter.wait_for_function(said, timeout=30_000)
    line = presenter.inner_text("#caption")
    assert line.count("predicted +") == 2
    phone.wait_for_function(f"document.getElementById('caption').textContent === {line!r}")
    phone.wait_for_function(f"window.ringside.player.run.id === '{ids[-1]}'")
    screenshot(phone, SHOTS / "phone-demo.png")
    # A phone that joins now heard no run end: it learns the demo's runs from the presenter's view.
    late = phone_on(up, page_for, ids[-1])
    late.wait_for_function(f"document.getElementById('caption').textContent === {line!r}")


def test_phones_open_and_close_the_presenters_overlays_with_the_same_content(up, page_for):
    shown = up.run(collective=PS, algorithm=ps.NAME, servers=1, count=12, dtype="float32")
    for algorithm in ("ring", "tree", "master_worker"):
        up.run(collective="all_reduce", algorithm=algorithm, count=12, dtype="float32")
    first, latest = trained(up, method="ring"), trained(up, method=PS, servers=1)
    presenter = presenting(up, page_for, shown["id"])
    presenter.wait_for_function(f"window.ringside.training.shown?.id === '{latest}'")
    phone = phone_on(up, page_for, shown["id"])
    presenter.evaluate(f"window.ringside.training.open('{first}')")  # the presenter's charts, not the newest
    phone.wait_for_function(f"window.ringside.training.shown?.id === '{first}'")

    # C: the compare view, with the parameter server's N and P beside the all_reduces.
    presenter.keyboard.press("c")
    presenter.wait_for_selector("#beside tr:nth-child(5)")
    phone.wait_for_function(COVERED.format("comparing"))
    phone.wait_for_selector("#beside tr:nth-child(5)")
    assert phone.evaluate(BESIDE) == presenter.evaluate(BESIDE)
    head = phone.locator("#beside tr:nth-child(2) td:nth-child(4)")
    expect(head).to_have_attribute("data-head", f"= for N = 48 B, P = {P}")
    phone.wait_for_function("document.getElementById('compare').dataset.drawn === '4'", timeout=30_000)
    expect(phone.locator("#compare")).to_be_visible()
    screenshot(phone, SHOTS / "phone-compare.png")
    phone.locator("#beside").scroll_into_view_if_needed()
    # its rows as lines: nothing cut
    assert phone.evaluate("document.getElementById('beside').scrollWidth <= innerWidth")
    screenshot(phone, SHOTS / "phone-compare-beside.png")

    # T: the training's charts instead, the presenter's training; then nothing.
    presenter.keyboard.press("t")
    phone.wait_for_function(f"{COVERED.format('training-shown')} && !{COVERED.format('comparing')}")
    phone.wait_for_function(f"document.getElementById('train-status').textContent.startsWith('{first} ')")
    expect(phone.locator("#train-loss")).to_be_visible()
    screenshot(phone, SHOTS / "phone-training.png")
    presenter.keyboard.press("t")
    phone.wait_for_function(f"!{COVERED.format('training-shown')}")
    expect(phone.locator("#stage")).to_be_visible()

    # A detached phone keeps its own view; one tap brings the presenter's overlay back.
    phone.click("#first")
    phone.wait_for_selector("#follow-presenter", state="visible")
    presenter.keyboard.press("c")
    phone.wait_for_function("window.ringside.state.view.overlay === 'compare'")  # heard, not followed
    assert not phone.evaluate(COVERED.format("comparing"))
    phone.click("#follow-presenter")
    phone.wait_for_function(COVERED.format("comparing"))

    # A page that joins (or reloads) now opens the overlay from its snapshot.
    assert viewer_snapshot(up)["presenter"]["overlay"] == "compare"
    late = phone_on(up, page_for, shown["id"])
    late.wait_for_function(COVERED.format("comparing"))
    presenter.keyboard.press("c")
    for page in (phone, late):
        page.wait_for_function(f"!{COVERED.format('comparing')}")
    assert "overlay" not in viewer_snapshot(up)["presenter"]


def test_only_the_presenters_token_sets_the_overlay(up, page_for):
    run = up.run(collective="broadcast", algorithm="ring", count=2, capture="full", pattern="rank")
    trainings = up.call("GET", "/api/trainings?limit=1")[1]["trainings"]
    newest = trainings[0]["id"] if trainings else None
    presenter = presenting(up, page_for, run["id"])
    # until the presenter's page has told the server what it shows, and told it all: its first frame
    # names the run, a later one what else the page still holds (the newest training, opened as it
    # joins); then until the server holds that
    presenter.wait_for_function(
        """([run, training]) => {
          const view = JSON.parse(window.ringside.state.sent || "null");
          return view?.run_id === run && (view.training ?? null) === training;
        }""",
        arg=[run["id"], newest],
    )
    told = (run["id"], newest)
    before = presenter_view(up, lambda v: v is not None and (v["run_id"], v.get("training")) == told)
    assert "overlay" not in before
    frame = {"type": "presenter", "run_id": run["id"], "step": 0, "playing": False, "speed": 1.0}
    code, reason = refused(up, {**frame, "overlay": "compare"})
    assert code == 1008 and "presenter token" in reason
    for bad, field in (
        ({"overlay": "stage"}, "overlay"),
        ({"training": "t 1"}, "training"),
        ({"demo": [run["id"]] * 5}, "demo"),
        ({"demo": run["id"]}, "demo"),
        ({"caption": "hi"}, "caption"),
    ):
        code, reason = refused(up, {**frame, **bad}, token=up.presenter)
        assert code == 1007 and reason.startswith(f"malformed presenter frame: {field}"), (bad, reason)
    assert viewer_snapshot(up)["presenter"] == before, "nothing changed"


def test_the_methods_table_fits_a_phone(up, page_for):
    if len(up.call("GET", "/api/trainings")[1]["trainings"]) < 2:
        trained(up, method="ring"), trained(up, method=PS, servers=1)
    phone = page_for(f"{up.url}/", viewport=PHONE)
    phone.wait_for_function("document.querySelectorAll('#train-table tbody tr').length >= 2")
    phone.keyboard.press("t")
    phone.wait_for_function(COVERED.format("training-shown"))
    table = phone.locator("#train-table")
    table.scroll_into_view_if_needed()
    screenshot(phone, SHOTS / "phone-methods.png")
    cut = phone.evaluate("""() => [...document.querySelectorAll('#train-table th, #train-table td')]
      .filter((c) => {
        const box = c.getBoundingClientRect();
        const out = box.left < 0 || box.right > innerWidth || c.scrollWidth > c.clientWidth + 1;
        return c.offsetParent && out;
      }).map((c) => c.textContent)""")
    assert cut == [], f"cells cut off on a phone: {cut}"
    box = phone.evaluate(
        "(() => { const t = document.getElementById('train-table'); return "
        "[t.scrollWidth, t.clientWidth]; })()"
    )
    assert box[0] <= box[1], box
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE[0]
