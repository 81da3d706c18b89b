"""Practice on the phones, in a real Chromium against a real `ringside up` with 4 gloo ranks: the
presenter's page (1280x720, lecture mode) shows a ring all_reduce, two 390x844 phones follow it, and
each takes it to practise alone (one in Korean): before the first step each is asked the same cell,
one types its value and the other a wrong one; each page grades its own against the run's recorded
states and plays the step on. The presenter's chart (H), open before they answer, shows 1 of 2 right
for that step as the answers arrive; a phone that stops practising follows the presenter again.
Screenshots (RINGSIDE_SHOTS) go to artifacts/screenshots/practice-*.png."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from browser import screenshot
from recorded import truth

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

PHONE, PROJECTOR = (390, 844), (1280, 720)
RING = {"collective": "all_reduce", "algorithm": "ring", "count": 8, "capture": "full", "pattern": "digits"}
RUN = "window.ringside.player.run"
SHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"
SMALLEST_TEXT = """() => Math.min(...[...document.querySelectorAll('#practice *')]
  .filter((e) => e.childNodes.length && [...e.childNodes].some((n) => n.nodeType === 3 && n.nodeValue.trim()))
  .map((e) => parseFloat(getComputedStyle(e).fontSize)))"""


def test_two_phones_predict_a_step_and_the_presenters_chart_shows_one_of_two(up, page_for):
    presenter = page_for(f"{up.url}/?token={up.presenter}&present=1", viewport=PROJECTOR)
    presenter.wait_for_function("window.ringside.state.presenter")
    phones = [page_for(f"{up.url}/{lang}", viewport=PHONE) for lang in ("", "?lang=ko")]
    for phone in phones:
        phone.wait_for_function("window.ringside.polls.ballot")
    run = up.run(**RING)
    for page in (presenter, *phones):
        page.wait_for_function(f"window.ringside.player.run?.id === '{run['id']}' && {RUN}.state === 'done'")
    for phone in phones:
        phone.wait_for_function("window.ringside.state.following")
        expect(phone.locator("#practice-open")).to_be_visible()
    expect(presenter.locator("#practice-open")).to_be_hidden()

    presenter.keyboard.press("h")  # the chart, open before anyone answers
    chart = presenter.locator("#practice-chart")
    expect(chart).to_be_visible()
    expect(chart.locator("h2")).to_have_text(f"Practice on run {run['id']}")
    first = chart.locator("li[data-step='0'] .count")
    expect(first).to_have_text("0 of 0 right")

    cell = up.call("GET", f"/api/practice/{run['id']}", token=None)[1]["cells"][0]
    value = truth(run, cell["rank"], cell["chunk"], 0)
    for phone in phones:
        phone.click("#practice-open")
        expect(phone.locator("#practice")).to_be_visible()
        phone.wait_for_function("!window.ringside.state.following && window.ringside.player.step === -1")
    right, wrong = phones
    expect(right.locator("#practice .ask label span")).to_have_text(
        f"After step 1, what is the first value in chunk {cell['chunk']} of rank {cell['rank']}?"
    )
    expect(wrong.locator("#practice .ask label span")).to_have_text(
        f"1단계 후 랭크 {cell['rank']}의 청크 {cell['chunk']}의 첫 값은 무엇일까요?"
    )
    for phone in phones:
        assert phone.evaluate(SMALLEST_TEXT) >= 12, "readable on a phone"
        assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE[0]
    screenshot(right, SHOTS / "practice-phone-asked.png")

    for phone, typed in ((right, value), (wrong, value + 1)):
        phone.fill("#practice .ask input", f"{typed:g}")
        phone.click("#practice .ask button")
        phone.wait_for_function("window.ringside.player.step === 0", timeout=15_000)
    expect(right.locator("#practice p.right")).to_have_text(
        f"Step 1: right ✓, it holds {value:g} · Counted for the presenter"
    )
    expect(wrong.locator("#practice p.wrong")).to_have_text(
        f"1단계: 내 답은 {value + 1:g}, 실제 값은 {value:g} · 발표자에게 반영되었습니다"
    )
    expect(right.locator("#practice .ask label span")).to_contain_text("After step 2,")
    said = wrong.locator("#practice").inner_text() + wrong.locator("#practice-open").get_attribute("title")
    assert re.findall(r"[A-Za-z]{2,}", said) == [], f"every word in Korean: {said}"
    expect(first).to_have_text("1 of 2 right")  # live, from the answers as they came
    width = chart.locator("li[data-step='0'] .bar i.right").evaluate("e => e.style.width")
    assert width == "50%", width
    screenshot(presenter, SHOTS / "practice-presenter-chart.png")
    screenshot(wrong, SHOTS / "practice-phone-graded-ko.png")

    # practising alone: the presenter's steps move no practising phone; stopping follows again
    presenter.keyboard.press("End")
    steps = len(run["steps"])
    presenter.wait_for_function(f"window.ringside.player.step === {steps - 1}")
    right.wait_for_function(f"window.ringside.state.view?.step === {steps - 1}")  # heard, not followed
    assert right.evaluate("window.ringside.player.step") == 0, "a practising phone steps alone"
    right.locator("#practice .stop").click()
    expect(right.locator("#practice")).to_be_hidden()
    right.wait_for_function(f"window.ringside.state.following && window.ringside.player.step === {steps - 1}")
    expect(right.locator("#practice-open")).to_be_visible()
