"""A lecturer's pass, in a real Chromium against a real `ringside up` with 4 gloo ranks
and a viewer token: the keys keep working after the mouse touches a control; the slider moves the
stage, by the mouse and by its keys; a checkbox or the slider reached with Tab leaves the page its
keys, and the focus Tab moves shows from the back row; the keys dialog fits a 1280x720 projector
and Esc closes it and every overlay (J, C); Q asks before the run runs, holds the room at the
inputs and the reveal plays to the step asked about; a run held for a poll shows a viewer's token
no answer over HTTP (the run, the list, the trace, the compare view) until the reveal; and a phone
sees the caption with the stage, the op in the title, also on an exported page. Screenshots
(RINGSIDE_SHOTS) go to /tmp/shots/."""

from __future__ import annotations

import json
import re
import time
import urllib.request
from pathlib import Path

import pytest
from browser import screenshot

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

PHONE, PROJECTOR = (390, 844), (1280, 720)
VIEWER = "viewer-token-for-the-pass"
SHOTS = Path("/tmp/shots")
LECTURE = {"capture": "full", "pattern": "digits", "iterations": 1, "warmup": 0}


# The words on a rank's card (its name, its bytes) that the poll's mark on it covers.
COVERED = """(rank) => {
    const mark = document.querySelector('#stage .asked circle').getBoundingClientRect();
    const card = document.querySelector(`#stage .card[data-rank="${rank}"]`).getBoundingClientRect();
    const on = (b, c) => b.left < c.right && c.left < b.right && b.top < c.bottom && c.top < b.bottom;
    const words = [...document.querySelectorAll('#stage text.name, #stage text.bytes')]
        .filter((t) => on(t.getBoundingClientRect(), card));
    return words.length ? words.filter((t) => on(t.getBoundingClientRect(), mark)).map((t) => t.textContent)
        : ['no words on the card'];
}"""

pytestmark = pytest.mark.cluster(env={"RINGSIDE_VIEWER_TOKEN": VIEWER})


def as_viewer(up, path: str) -> tuple[int, dict]:
    request = urllib.request.Request(up.url + path, headers={"Authorization": f"Bearer {VIEWER}"})
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as e:
        return e.code, json.load(e)


def presenter_page(up, page_for):
    page = page_for(f"{up.url}/?token={up.presenter}&present=1", allow=("409",), viewport=PROJECTOR)
    page.wait_for_function("document.getElementById('role').textContent === 'presenter'")
    return page


def on_stage(page, run_id: str) -> None:
    page.wait_for_function(
        f"window.ringside.player.run?.id === '{run_id}' && window.ringside.player.run.state === 'done'",
        timeout=60_000,
    )


def test_keys_work_after_the_mouse_and_esc_closes_every_overlay(up, page_for):
    page = presenter_page(up, page_for)
    key, strip = page.keyboard.press, page.locator("#pick b")
    names = page.evaluate("window.ringside.controls.catalog.collectives.map(c => c.name)")
    key(str((names.index("all_reduce") + 1) % 10))
    expect(strip).to_have_text(re.compile(r"^all_reduce · ring · "))
    with page.expect_response(lambda r: r.url.endswith("/api/runs") and r.request.method == "POST") as posted:
        key("r")
    on_stage(page, posted.value.json()["id"])
    page.evaluate("window.ringside.player.pause()")

    page.locator("#follow").click()  # a checkbox: R, A and Space are no longer typed into it
    text = strip.inner_text()
    key("a")
    expect(strip, "A after a click on a checkbox").not_to_have_text(text)
    page.locator("#speed").click()
    page.locator("#speed").select_option("2")  # a select
    key(" ")
    page.wait_for_function("window.ringside.player.playing", timeout=5_000)
    key(" ")
    page.wait_for_function("!window.ringside.player.playing", timeout=5_000)
    page.locator("#first").click()  # a button: Space must not press it again, arrows must step
    key("ArrowRight")
    page.wait_for_function("window.ringside.player.step === 0")
    page.locator("#slider").click()  # the slider: the digits and Enter go to a step
    key("2")
    key("Enter")
    page.wait_for_function("window.ringside.player.step === 1")
    assert page.evaluate("document.activeElement === document.body"), "no control keeps the keys"
    page.locator("#follow").click()
    with page.expect_response(lambda r: r.url.endswith("/api/runs") and r.request.method == "POST") as again:
        key("r")  # R after a click on a checkbox
    on_stage(page, again.value.json()["id"])

    key("?")
    keys = page.locator("#keys")
    expect(keys).to_be_visible()
    fit = page.evaluate("""() => { const d = document.getElementById('keys'), b = d.getBoundingClientRect();
        return {scroll: d.scrollHeight - d.clientHeight, top: b.top, bottom: b.bottom,
                last: d.querySelector('dl dd:last-of-type').getBoundingClientRect().bottom}; }""")
    screenshot(page, SHOTS / "keys-1280x720.png")
    assert (
        fit["scroll"] <= 0
        and fit["top"] >= 0
        and fit["bottom"] <= PROJECTOR[1]
        and fit["last"] <= PROJECTOR[1]
    ), f"the keys fit without scrolling: {fit}"
    key("Escape")
    expect(keys).to_be_hidden()
    for overlay, shown in (("j", "#jobs"), ("c", "#compare")):
        key(overlay)
        expect(page.locator(shown)).to_be_visible()
        key("Escape")
        expect(page.locator(shown), f"Esc closes {overlay.upper()}").to_be_hidden()
        assert page.evaluate("window.ringside.state.overlay") is None


def test_a_question_asked_before_its_run_holds_the_room_at_the_inputs_and_shows_viewers_no_answer(
    up, page_for
):
    presenter = presenter_page(up, page_for)
    phone = page_for(f"{up.url}/?token={VIEWER}", allow=("409",), viewport=PHONE)
    key = presenter.keyboard.press
    names = presenter.evaluate("window.ringside.controls.catalog.collectives.map(c => c.name)")
    key(str((names.index("all_reduce") + 1) % 10))
    expect(presenter.locator("#pick b")).to_have_text(re.compile(r"^all_reduce · ring · "))
    key("q")  # before it runs: the room predicts from the inputs
    expect(presenter.locator("#poll .menu li").first).to_contain_text("after step 1")
    with presenter.expect_response(
        lambda r: r.url.endswith("/api/polls") and r.request.method == "POST"
    ) as asked:
        key("1")
    run = up.wait(asked.value.json()["run_id"])
    expect(presenter.locator("#poll")).to_have_attribute("data-state", "open", timeout=60_000)
    poll = up.call("GET", "/api/polls/current")[1]["poll"]
    assert poll["step"] == 0 and poll["state"] == "open" and poll["run_id"] == run["id"], poll
    on_stage(presenter, run["id"])
    assert presenter.evaluate("window.ringside.player.step") == -1, "the stage holds at the inputs"
    # the asked rank's mark covers none of its card's words: its name and its bytes still read
    presenter.wait_for_function("document.querySelector('#stage .asked circle')")
    covered = presenter.evaluate(COVERED, poll["rank"])
    assert covered == [], f"the mark over rank {poll['rank']}'s {covered}"

    # what a viewer's token reads meanwhile: the plan and the inputs, no answer
    status, seen = as_viewer(up, f"/api/runs/{run['id']}")
    assert status == 200 and seen["held_for"] == poll["id"]
    assert seen["results"] == {} and seen["traffic"] is None and seen["time"] is None
    assert all(step["ranks"] == {} for step in seen["steps"]), "no rank's report of a step"
    assert seen["inputs"] == run["inputs"] and len(seen["steps"]) == len(run["steps"])
    assert seen["display"]["formula"]["measured"] is None
    listed = next(r for r in as_viewer(up, "/api/runs?limit=30")[1]["runs"] if r["id"] == run["id"])
    assert listed["time"] is None and listed["busbw"] is None
    assert as_viewer(up, f"/api/runs/{run['id']}/trace")[0] == 409
    assert as_viewer(up, "/api/compare")[0] == 409, "nor the compare view's bytes and points"
    assert run["id"] in [p["run"] for p in up.call("GET", "/api/compare")[1]["measured"]]
    assert up.call("GET", f"/api/runs/{run['id']}")[1]["results"], "the presenter reads it whole"
    # a phone that joins (or reloads) now: the presenter's run, at its inputs, with no step's data
    late = page_for(f"{up.url}/?token={VIEWER}", allow=("409",), viewport=PHONE)
    late.wait_for_function(f"window.ringside.player.run?.id === '{run['id']}'")
    assert late.evaluate("window.ringside.player.available()") == 0, "the late phone holds no step's data"
    assert late.evaluate("window.ringside.player.run.results") == {}

    presenter.keyboard.press("Enter")  # the reveal: plays on to step 1, and stops there
    presenter.wait_for_function(
        "window.ringside.player.step === 0 && !window.ringside.player.playing", timeout=15_000
    )
    expect(presenter.locator("#poll")).to_have_attribute("data-state", "revealed")
    assert as_viewer(up, f"/api/runs/{run['id']}")[1]["results"], "revealed: the run is whole again"
    for page in (phone, late):
        page.wait_for_function(
            f"window.ringside.player.available() === {len(run['steps'])} && "
            "window.ringside.player.step === 0",
            timeout=15_000,
        )
        expect(page.locator("#poll")).to_have_attribute("data-state", "revealed")


def test_a_phone_sees_the_caption_with_the_stage_and_the_op_also_exported(up, page_for, tmp_path):
    presenter = presenter_page(up, page_for)
    phone = page_for(f"{up.url}/?token={VIEWER}", viewport=PHONE)
    run = up.run(collective="all_reduce", algorithm="tree", count=4, op="MAX", **LECTURE)
    on_stage(presenter, run["id"])
    presenter.evaluate("window.ringside.player.pause(); window.ringside.player.go(1)")
    phone.wait_for_function(
        f"window.ringside.player.run?.id === '{run['id']}' && "
        "window.ringside.player.step === 1 && !window.ringside.stage.pending"
    )
    expect(phone.locator("#run-title")).to_contain_text("all_reduce · MAX · tree")

    def in_sight(page) -> dict:
        return page.evaluate("""() => {
            const b = (id) => document.getElementById(id).getBoundingClientRect();
            const px = (t) => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a;
            const heads = [...document.querySelectorAll('#stage text.name, #stage text.bytes')];
            return {caption: b('caption'), stage: b('stage'),
                    text: document.getElementById('caption').textContent,
                    head_px: Math.min(...heads.map(px)), scrolled: scrollY, height: innerHeight};
        }""")

    for page, name in ((phone, "phone"),):
        seen = in_sight(page)
        assert seen["text"] and seen["scrolled"] == 0, seen
        assert seen["caption"]["bottom"] <= seen["height"] and seen["stage"]["bottom"] <= seen["height"], (
            f"the caption and the stage in sight at once: {seen}"
        )
        screenshot(page, SHOTS / f"{name}-caption-op.png")

    html = presenter.evaluate(
        "import('rs/export/export.js').then(m => m.standalone(window.ringside.player.run))"
    )
    exported = tmp_path / "run.html"
    exported.write_text(html)
    offline = page_for(exported.as_uri(), viewport=PHONE)
    offline.wait_for_function("window.ringside && window.ringside.player.run")
    offline.evaluate("window.ringside.player.go(1)")
    expect(offline.locator("#run-title")).to_contain_text("all_reduce · MAX · tree")
    seen = in_sight(offline)
    assert seen["stage"]["height"] > seen["stage"]["width"], (
        f"a phone's column, not a tiny 15:8 stage: {seen}"
    )
    assert seen["head_px"] >= 12, f"names and bytes a phone reads: {seen}"
    assert seen["caption"]["bottom"] <= seen["height"] and seen["stage"]["bottom"] <= seen["height"], seen
    screenshot(offline, SHOTS / "phone-exported.png")


def tab_to(page, target: str, most: int = 30) -> None:
    """Tab (the keyboard alone) until the control `target` (an id) has the focus."""
    for _ in range(most):
        page.keyboard.press("Tab")
        if page.evaluate(f"document.activeElement.id === '{target}'"):
            return
    raise AssertionError(f"#{target} never took the focus from Tab")


def test_the_slider_moves_the_stage_by_the_mouse_and_by_its_own_keys(up, page_for):
    page = presenter_page(up, page_for)
    run = up.run(collective="all_reduce", algorithm="ring", count=4, **LECTURE)
    on_stage(page, run["id"])
    page.evaluate("window.ringside.player.pause(); window.ringside.player.go(-1)")
    slider = page.locator("#slider")
    box = slider.bounding_box()
    page.mouse.click(box["x"] + box["width"] * 0.9, box["y"] + box["height"] / 2)
    page.wait_for_function("window.ringside.player.step > 0", timeout=5_000)
    shown = page.evaluate("window.ringside.player.step")
    expect(slider).to_have_value(str(shown))
    tab_to(page, "slider")
    page.keyboard.press("ArrowLeft")
    page.wait_for_function(f"window.ringside.player.step === {shown - 1}", timeout=5_000)
    expect(slider).to_have_value(str(shown - 1))


def test_the_keys_work_on_a_checkbox_or_slider_reached_with_tab(up, page_for):
    """A keyboard-only lecturer who tabbed to the slider or to 'follow live' (to turn it with Space)
    still steps and runs from the keys: the control keeps only the keys it uses itself."""
    page = presenter_page(up, page_for)
    key, strip = page.keyboard.press, page.locator("#pick b")
    run = up.run(collective="all_reduce", algorithm="ring", count=4, **LECTURE)
    on_stage(page, run["id"])
    # the pick is still broadcast's: the strip over the stage names the run on it all the same
    expect(strip).to_have_text(re.compile(r"^all_reduce · ring · "))
    page.evaluate("window.ringside.player.pause(); window.ringside.player.go(-1)")
    tab_to(page, "slider")
    key("ArrowRight")  # the slider's own key: a step on
    page.wait_for_function("window.ringside.player.step === 0", timeout=5_000)
    key("3")
    key("Enter")  # the page's: to step 3
    page.wait_for_function("window.ringside.player.step === 2", timeout=5_000)
    assert page.evaluate("document.activeElement.id") == "slider", "the slider keeps the focus"
    tab_to(page, "follow")
    key(" ")  # the checkbox's own key: it turns
    expect(page.locator("#follow")).not_to_be_checked()
    key(" ")
    expect(page.locator("#follow")).to_be_checked()
    text = strip.inner_text()
    key("a")  # the page's: the next algorithm
    expect(strip, "A on a checkbox reached with Tab").not_to_have_text(text)
    with page.expect_response(lambda r: r.url.endswith("/api/runs") and r.request.method == "POST") as posted:
        key("r")
    on_stage(page, posted.value.json()["id"])


def test_the_focus_reached_with_tab_shows_on_a_projector(up, page_for):
    page = presenter_page(up, page_for)
    for control in ("present", "play", "slider", "follow"):
        tab_to(page, control)
        ring = page.evaluate("""() => { const s = getComputedStyle(document.activeElement);
            return [s.outlineStyle, parseFloat(s.outlineWidth), s.outlineColor]; }""")
        assert ring[0] == "solid" and ring[1] >= 3, f"#{control}'s focus from the back row: {ring}"
    screenshot(page, SHOTS / "focus-follow-1280x720.png")


def test_the_asked_rank_is_marked_when_the_poll_opens_before_the_ask_is_answered(up, page_for):
    """On a busy laptop the held run can end, and the socket say the poll opened, before the answer to
    the presenter's POST arrives: the "?" still marks the rank asked about."""
    page = presenter_page(up, page_for)

    def answered_late(route):
        if route.request.method != "POST":
            return route.continue_()
        response = route.fetch()  # the server's own answer, handed on once the poll has opened
        poll_id, deadline = response.json()["id"], time.monotonic() + 60
        while (up.call("GET", "/api/polls/current")[1].get("poll") or {}).get("id") != poll_id or (
            up.call("GET", "/api/polls/current")[1]["poll"]["state"] != "open"
        ):
            assert time.monotonic() < deadline, "the poll never opened"
            time.sleep(0.05)
        route.fulfill(response=response)

    page.route("**/api/polls", answered_late)
    names = page.evaluate("window.ringside.controls.catalog.collectives.map(c => c.name)")
    page.keyboard.press(str((names.index("all_reduce") + 1) % 10))
    expect(page.locator("#pick b")).to_have_text(re.compile(r"^all_reduce · ring · "))
    page.keyboard.press("q")
    page.keyboard.press("1")
    expect(page.locator("#poll")).to_have_attribute("data-state", "open", timeout=60_000)
    page.wait_for_function("document.querySelector('#stage .asked circle')", timeout=10_000)
    page.keyboard.press("Enter")  # revealed: the room moves on
    expect(page.locator("#poll")).to_have_attribute("data-state", "revealed")
