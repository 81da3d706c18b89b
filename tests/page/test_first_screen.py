"""A newcomer's first screen, in a real Chromium against a fresh `ringside up` of 4 gloo ranks: before
any run the stage already draws the picked run's inputs (as the run, once run, starts from them),
the caption says what to press and where the number of ranks changes (the Run panel too), and what
needs a run (Perfetto, the trace, Export, Copy link) waits for one; an audience page says no run is
on yet; a Korean page says it in Korean. Picking "custom" fills in an example schedule that runs
as it is. With RINGSIDE_SHOTS set, a screenshot goes to /tmp/shots/."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from browser import ready_for_keys, screenshot

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

P = 4
pytestmark = pytest.mark.cluster(ranks=P)
PROJECTOR = (1280, 720)
SHOTS = Path("/tmp/shots")
NEED_A_RUN = ("#perfetto", "#export", "#share")
CELLS = """() => Object.fromEntries([...document.querySelectorAll('#stage g.cell:not(.unused)')]
    .map((c) => [`${c.dataset.rank}:${c.dataset.chunk}`, JSON.parse(c.dataset.values)]))"""


def preview_shown(page) -> None:
    page.wait_for_function("window.ringside.player.run?.preview && document.querySelector('#stage g.cell')")


def test_the_first_screen_draws_the_pick_and_says_what_to_press(up, page_for):
    audience = page_for(up.url, viewport=PROJECTOR)
    preview_shown(audience)
    expect(audience.locator("#caption")).to_have_text(re.compile(rf"^No run yet: \w+ on {P} ranks"))
    for button in NEED_A_RUN:
        expect(audience.locator(button)).to_be_disabled()

    page = page_for(f"{up.url}/?token={up.presenter}&present=1", viewport=PROJECTOR)
    page.wait_for_function("window.ringside.state.presenter")
    preview_shown(page)
    picked = page.evaluate("window.ringside.controls.picked()[0]")
    caption = page.locator("#caption")
    expect(caption).to_contain_text(f"Press R to run {picked} on {P} ranks; 1–0 picks a collective.")
    expect(caption.locator("code")).to_have_text("ringside up --ranks N")
    expect(page.locator("#run-title")).to_contain_text("preview")
    for button in NEED_A_RUN:
        expect(page.locator(button)).to_be_disabled()
    assert page.get_attribute("#trace", "href") is None, "no trace to download before a run"
    assert page.locator("#stage .card").count() == P
    drawn = page.evaluate(CELLS)
    assert drawn and all(values for values in drawn.values()), f"every cell has its values: {drawn}"

    screenshot(page, SHOTS / "first-screen.png")
    korean = page_for(f"{up.url}/?token={up.presenter}&lang=ko", viewport=PROJECTOR)
    korean.wait_for_function("window.ringside.state.presenter")
    preview_shown(korean)
    said = f"R을 누르면 랭크 {P}개에서 {picked}을(를) 실행합니다."
    expect(korean.locator("#caption")).to_contain_text(said)
    expect(korean.locator("#ranks-why")).to_contain_text(f"랭크 {P}개 연결됨")

    posting = page.expect_response(lambda r: r.url.endswith("/api/runs") and r.request.method == "POST")
    with posting as posted:
        page.keyboard.press("r")
    run = up.wait(posted.value.json()["id"])
    assert run["state"] == "done" and run["spec"]["collective"] == picked, run["error"]
    started = {f"{r}:{s['chunk']}": s["values"] for r, states in run["inputs"].items() for s in states}
    assert {k: v for k, v in started.items() if k in drawn} == drawn, "the first screen drew the run's inputs"
    page.wait_for_function(f"window.ringside.player.run?.id === '{run['id']}'")
    for button in NEED_A_RUN:
        expect(page.locator(button)).to_be_enabled()
    assert page.get_attribute("#trace", "href") == f"/api/runs/{run['id']}/trace"
    expect(caption).not_to_contain_text("Press R")


def test_custom_starts_from_an_example_that_runs(up, page_for):
    page = page_for(f"{up.url}/?token={up.presenter}", viewport=PROJECTOR)
    ready_for_keys(page, up)
    page.click("#collectives button[data-collective='all_reduce']")
    page.select_option("#field-algorithm", "custom")
    schedule = page.locator("#field-schedule")
    expect(schedule).to_have_value(re.compile(r'^\{"pieces": \d+, "layout": "ring", "steps": \['))
    posting = page.expect_response(lambda r: r.url.endswith("/api/runs") and r.request.method == "POST")
    with posting as posted:
        page.click("#run")
    assert posted.value.status == 202, posted.value.json()
    run = up.wait(posted.value.json()["id"])
    assert run["state"] == "done" and run["verified"] is True, run["error"]
    assert run["spec"]["algorithm"] == "custom" and len(run["steps"]) == 2 * (P - 1), "ring's steps, as data"
    # another collective's example is written anew, not kept from the last one
    page.click("#collectives button[data-collective='broadcast']")
    page.select_option("#field-algorithm", "custom")
    expect(schedule).not_to_have_value(re.compile(r"reduce-scatter"))
    expect(schedule).to_have_value(re.compile(r'"steps": \['))
