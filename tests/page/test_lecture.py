"""A scripted lecture, as a lecturer gives it: a real `ringside up` with 4 gloo ranks, the
presenter's page in lecture mode at 1280x720 driven by the keyboard alone, and a phone-sized
audience page following it. Broadcast, scatter, all_reduce by ring and by tree, and an AVG
all_reduce are picked, run and stepped through; after every step the numbers on both stages
are the run's buffers at that step, no arithmetic label covers a value, and the phone follows
to the same step (how fast: printed here, kept under 500 ms by bench/presenter_lag.py).
Screenshots of each (RINGSIDE_SHOTS) go to artifacts/lecture/."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from browser import screenshot
from lecture_clock import install, lag
from test_frontend_browser import expected_values, stage_values

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

P = 4
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "lecture"
LESSON = [  # (collective, algorithm or None for the one it opens on, op or None)
    ("broadcast", None, None),
    ("scatter", None, None),
    ("all_reduce", "ring", "SUM"),
    ("all_reduce", "tree", "SUM"),
    ("all_reduce", "ring", "AVG"),
]

OVERLAPS = """() => {
  const boxes = (s) => [...document.querySelectorAll(s)].map((e) => e.getBoundingClientRect())
    .filter((b) => b.width && b.height);
  const values = boxes('#stage g.cell text.value');
  const overlap = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  return boxes('#stage .arith').filter((a) => values.some((b) => overlap(a, b))).length;
}"""


pytestmark = pytest.mark.cluster(ranks=P)


@pytest.fixture
def pages(up, page_for):
    """The presenter's page in lecture mode at 1280x720, and a phone's."""
    return page_for(f"{up.url}/?token={up.presenter}&present=1"), page_for(f"{up.url}/", viewport=(390, 844))


def expected(run: dict, step: int) -> dict:
    """The buffers after `step`; one past the last step of a run that averages: its outputs (÷P)."""
    if step < len(run["steps"]):
        return expected_values(run, step)
    return {r: {s["chunk"]: s["values"] for s in result["output"]} for r, result in run["results"].items()}


def pick(page, collective: str, algorithm: str | None, op: str | None, key: str) -> str:
    """Pick by keys alone, as the strip shows it; returns the strip's text."""
    strip = page.locator("#pick b")
    page.keyboard.press(key)
    expect(strip).to_have_text(re.compile(f"^{collective} · "))
    for _ in range(20):
        text = strip.inner_text()
        fields = text.split(" · ")
        if (algorithm is None or fields[1] == algorithm) and (op is None or op in fields):
            return text
        page.keyboard.press("a" if algorithm is not None and fields[1] != algorithm else "o")
        expect(strip).not_to_have_text(text)  # each key changes the pick
    raise AssertionError(f"could not pick {collective} {algorithm} {op}: {strip.inner_text()}")


def test_a_scripted_lecture_from_the_keyboard(up, pages):
    presenter, audience = pages
    catalog = up.call("GET", "/api/catalog")[1]
    names = [c["name"] for c in catalog["collectives"]]
    presenter.wait_for_function("document.getElementById('role').textContent === 'presenter'")
    install(presenter, audience)
    presenter.keyboard.press("+")
    presenter.keyboard.press("+")  # 1x, 2x, 5x: a step flies in under 300 ms
    counts: dict = {}  # the lecture data's count for each collective, over its algorithms and ops
    for collective, algorithm, op in LESSON:
        strip = pick(presenter, collective, algorithm, op, str((names.index(collective) + 1) % 10))
        assert "lecture data" in strip, "the lecture preset is on"
        expect(presenter.locator("#pick")).to_have_attribute("data-preset", "true")
        with presenter.expect_response(
            lambda r: r.url.endswith("/api/runs") and r.request.method == "POST"
        ) as posted:
            presenter.keyboard.press("r")
        run_id = posted.value.json()["id"]
        presenter.wait_for_function(
            f"window.ringside.player.run?.id === '{run_id}' && "
            "window.ringside.player.run.state === 'done' && "
            "!window.ringside.player.playing",
            timeout=60_000,
        )
        run = up.call("GET", f"/api/runs/{run_id}")[1]
        assert run["verified"] is True and run["spec"]["pattern"] == "digits"
        cells = [s["values"] for states in run["inputs"].values() for s in states]
        assert all(0 <= x <= 9 for v in cells for x in v), "a digit in every element"
        counts.setdefault(collective, set()).add(run["spec"]["count"])
        frames = presenter.evaluate("window.ringside.player.available()")
        assert frames == len(run["steps"]) + (op == "AVG"), (
            "an average shows its division by P after the last step"
        )
        for _ in range(presenter.evaluate("window.ringside.player.step") + 1):
            presenter.keyboard.press("ArrowLeft")
        presenter.wait_for_function("window.ringside.player.step === -1")
        for k in range(frames):
            late = lag(
                presenter,
                audience,
                lambda: presenter.keyboard.press("ArrowRight"),
                f"(run, step) => run === '{run_id}' && step === {k}",
            )  # waits for the phone to follow
            print(f"{collective} step {k}: the phone followed after {late} ms")
            presenter.wait_for_function(
                f"window.ringside.player.step === {k} && !window.ringside.stage.pending"
            )
            want = expected(run, k)
            assert stage_values(presenter) == want, (
                f"{collective} {run['spec']['algorithm']} {run['spec']['op']} step {k}"
            )
            audience.wait_for_function("!window.ringside.stage.pending")
            assert stage_values(audience) == want, f"the phone, {collective} step {k}"
            assert presenter.evaluate(OVERLAPS) == 0, f"{collective} step {k}: a label covers a value"
            if k < len(run["steps"]) and any(t[4] for t in run["steps"][k]["transfers"]):
                said = f"{collective} step {k}: a reduction shows its arithmetic"
                expect(presenter.locator("#stage .arith").first, said).to_be_attached()
            if k == frames // 2:
                name = f"{collective}-{run['spec']['algorithm']}-{run['spec']['op']}".lower()
                screenshot(presenter, ARTIFACTS / f"{name}-presenter.png")
                screenshot(audience, ARTIFACTS / f"{name}-phone.png")
        formula = presenter.locator("#formula")
        # The formula beside the measurement (the contract's hook): wherever the server has one for
        # the algorithm on show, and for those the issue names.
        if (run.get("display") or {}).get("formula") or collective in ("scatter", "all_reduce"):
            expect(formula, f"{collective}: a formula beside the measurement").to_be_visible()
            value, measured = formula.get_attribute("data-value"), formula.get_attribute("data-measured")
            assert value is not None and value == measured, (
                f"{collective}: formula {value} B, measured {measured} B"
            )
    assert counts["all_reduce"] == {P}, f"ring and tree compare like with like (one count): {counts}"
