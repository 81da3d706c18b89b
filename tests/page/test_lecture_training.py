"""The seed lecture's training lessons from the keys alone, in lecture mode at 1280x720 on a real
`ringside up` of 4 gloo ranks: W picks the training method (the caption names each, in the seed
lecture's order), N trains with it, Y opens a step's gradient sync as a run of that method's
steps which the player steps through (and says plainly when the method is the backend's own
call, which has none), and V trains every method on the same data and shows them side by side: a
loss curve each, equal up to the order of the sums, and each rank's traffic, where the parameter
server's server carries more a step than any rank of a ring. Every chart these keys (and C) open
writes its ticks, titles and legend at a back row's size."""

from __future__ import annotations

from pathlib import Path

import pytest
from browser import screenshot
from test_frontend_browser import stage_values

playwright_api = pytest.importorskip("playwright.sync_api")

P = 4
# the Train panel's settings, kept small (the form is the mouse's)
SMALL = {"hidden": 8, "steps": 3, "batch": 32}
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"
CAPTION = "document.getElementById('caption').textContent"
SHOWN = "window.ringside.training.shown"

PROJECTED = 18  # px: the least a projector's chart writes (charts.js)
# Every word the charts `ids` draw (ticks, axis and chart titles, legend, notes): [id, kind, text, px].
CHART_WORDS = """(ids) => ids.flatMap((id) => [...document.getElementById(id).querySelectorAll('svg text')]
    .filter((t) => t.textContent.trim() && t.getBBox().width)
    .map((t) => [id, t.getAttribute('class') ?? t.parentElement.getAttribute('class'), t.textContent,
        parseFloat(getComputedStyle(t).fontSize)]))"""
TICKED = f"""(ids) => ids.every((id) => ['xtick', 'ytick'].every((kind) =>
    ({CHART_WORDS})([id]).some(([, k]) => k === kind)))"""

pytestmark = pytest.mark.cluster(ranks=P)


def small_chart_words(page, *ids: str) -> list:
    """The words of the charts `ids` under PROJECTED px, once each has drawn its ticks on both axes."""
    page.wait_for_function(TICKED, arg=list(ids))
    return [w for w in page.evaluate(CHART_WORDS, list(ids)) if w[3] < PROJECTED]


@pytest.fixture
def lecture(up, page_for):
    """The presenter's page in lecture mode with small trainings, its keys going to the page."""
    page = page_for(f"{up.url}/?token={up.presenter}&present=1")
    page.wait_for_function("window.ringside?.training.catalog && window.ringside.state.presenter")
    # the first screen drawn: its caption, come later, would say what to press over what a key said
    page.wait_for_function("window.ringside.player.run?.preview")
    page.wait_for_selector("#train-hidden", state="attached")
    for k, v in SMALL.items():
        page.evaluate(f"document.getElementById('train-{k}').value = {v}")
    return page


def train(page) -> dict:
    """N, then the training it started, once done, as the server keeps it."""
    before = page.evaluate(f"{SHOWN}?.id ?? ''")
    page.keyboard.press("n")
    page.wait_for_function(f"(t => t && t.id !== '{before}' && t.state === 'done')({SHOWN})", timeout=60_000)
    return page.evaluate(SHOWN)


def test_w_picks_the_method_n_trains_with_it_and_y_steps_through_its_sync(up, lecture):
    page = lecture
    catalog = up.call("GET", "/api/catalog")[1]["training"]
    order, ps = catalog["lecture_order"], catalog["parameter_server"]
    assert order[:4] == [ps, "ring", "tree", "native"] and sorted(order) == sorted(catalog["methods"])
    named = []
    for _ in order:
        page.keyboard.press("w")
        named.append(page.evaluate(CAPTION))
    for method, caption in zip(order, named, strict=True):
        assert f"training method: {method}" in caption, (method, caption)
    assert f"{ps} S=1" in named[0], "the parameter server's S is named with it"
    page.keyboard.press("w")
    page.keyboard.press("w")  # round again: the parameter server, then ring
    assert page.evaluate(CAPTION).startswith("training method: ring:")

    t = train(page)
    status, kept = up.call("GET", f"/api/trainings/{t['id']}")
    assert status == 200 and kept["spec"]["method"] == "ring", kept["spec"]
    # N shows its charts over the stage, read from the back row
    assert small_chart_words(page, "train-loss", "train-accuracy", "train-time", "train-bytes") == []

    page.keyboard.press("y")
    page.wait_for_function(f"window.ringside.player.run?.id === '{t['id']}-s0'")
    run = page.evaluate("window.ringside.player.run")
    assert run["spec"]["algorithm"] == "ring" and len(run["steps"]) == 2 * (P - 1)
    assert all(len(s["ranks"]) == P for s in run["steps"]), "every rank's buffers at every step"
    assert "step through it with the player" in page.evaluate(CAPTION)
    for _ in range(3):  # the player at its fastest: the steps are what is asserted, not their pace
        page.keyboard.press("+")
    page.keyboard.press("Home")
    page.wait_for_function("window.ringside.player.step === -1 && !window.ringside.stage.pending")
    seen = [stage_values(page)]
    for k in range(2 * (P - 1)):
        page.keyboard.press("ArrowRight")
        page.wait_for_function(f"window.ringside.player.step === {k} && !window.ringside.stage.pending")
        seen.append(stage_values(page))
    assert all(a != b for a, b in zip(seen, seen[1:])), "each step changes what the ranks' buffers hold"
    screenshot(page, ARTIFACTS / "lecture-training-ring-sync.png")

    for _ in range(2):  # tree, native
        page.keyboard.press("w")
    assert page.evaluate(CAPTION).startswith("training method: native:")
    t = train(page)
    page.keyboard.press("y")
    page.wait_for_function(f"window.ringside.player.run?.id === '{t['id']}-s0'")
    page.wait_for_function(f"{CAPTION}.includes('{t['id']}')")
    caption = page.evaluate(CAPTION)
    assert "no steps to show" in caption and "step through" not in caption, caption


def test_v_trains_every_method_on_the_same_data_and_shows_them_side_by_side(up, lecture):
    page = lecture
    catalog = up.call("GET", "/api/catalog")[1]["training"]
    ps = catalog["parameter_server"]
    wanted = [m for m in catalog["methods"] if m != ps] + [f"{ps} S=1", f"{ps} S={P - 1}"]
    page.keyboard.press("v")
    page.wait_for_function(
        f"window.ringside.training.charts.side?.methods.length === {len(wanted)}", timeout=120_000
    )
    side = page.evaluate("window.ringside.training.charts.side")
    assert [m["method"] for m in side["methods"]] == wanted
    for m in side["methods"]:
        _, kept = up.call("GET", f"/api/trainings/{m['training']}")
        assert {k: kept["spec"][k] for k in SMALL} == SMALL and kept["spec"]["seed"] == side["seed"]
    assert side["loss_spread"] < 1e-5, "the same SGD steps: the curves differ by the sums' order at most"

    loss = "document.getElementById('train-side-loss').data"
    page.wait_for_function(f"{loss}?.length === {len(wanted)}")
    curves = page.evaluate(f"{loss}.map(t => [t.name, t.y.length])")
    assert curves == [[m, SMALL["steps"]] for m in wanted], "a loss curve a method"
    traffic = page.evaluate("document.getElementById('train-side-traffic').data.map(t => [t.x, t.y])")
    assert len(traffic) == P, "a bar a rank, for every method"
    at = {m: i for i, m in enumerate(wanted)}
    for method in wanted:
        bars = [ys[at[method]] for _, ys in traffic]
        assert (method == "native") == all(b is None for b in bars), (method, bars)
    ring = [ys[at["ring"]] for _, ys in traffic]
    server = traffic[0][1][at[f"{ps} S=1"]]
    assert server > max(ring), f"the server carries (P-1)·N a step, ring 2·(P-1)/P·N: {server}, {ring}"
    words = page.inner_text("#train-side-what")
    assert "the losses agree to within" in words and "native: the backend's own call" in words
    assert small_chart_words(page, "train-side-loss", "train-side-traffic") == []
    box = page.locator("#train-side-charts").bounding_box()
    assert box and box["y"] >= 0 and box["y"] + box["height"] <= 720, f"both charts on the projector: {box}"
    screenshot(page, ARTIFACTS / "lecture-training-compared.png")
    # the seeds' languages, every word
    for lang, title in (("ko", "방법별 손실, 스텝마다"), ("zh", "每种方法每一步的损失")):
        page.select_option("#lang", lang)
        page.wait_for_function(
            f"document.getElementById('train-side-loss').layout.title.text.startsWith('{title}')"
        )
        said = page.inner_text("#train-side")
        english = ("the same", "agree", "backend", "bytes a step", "Every method")
        assert not any(w in said for w in english), said
        screenshot(page, ARTIFACTS / f"lecture-training-compared-{lang}.png")


def test_c_draws_the_compare_charts_axes_at_a_back_rows_size(lecture):
    lecture.keyboard.press("c")
    lecture.wait_for_function("document.getElementById('compare').dataset.drawn !== undefined")
    assert small_chart_words(lecture, "compare") == []
    legend = lecture.locator("#compare .legend").bounding_box()
    axis = lecture.locator("#compare .g-xtitle").bounding_box()
    assert legend and axis and legend["y"] >= axis["y"] + axis["height"], (
        "the legend under the axes",
        legend,
        axis,
    )
