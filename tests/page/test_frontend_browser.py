"""The page in a real Chromium against a real server with real gloo workers: every collective
run from its button and stepped through, with the values on the stage checked against the
run's data from the API at every step."""

from __future__ import annotations

import functools
import json
import operator
import re
import time
from pathlib import Path

import pytest
from browser import go, observed, screenshot
from schedule_docs import ring_doc

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

P = 4
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"


pytestmark = pytest.mark.cluster(ranks=P)


def presenting(page):
    """Wait for the presenter's page to know its role (the snapshot): its controls can run."""
    expect(page.locator("#role")).to_have_text("presenter")


def starts(text: str) -> re.Pattern:
    """Text that begins with `text`, for expect(...).to_have_text."""
    return re.compile("^" + re.escape(text))


def expected_values(run: dict, step: int) -> dict:
    """Every rank's chunk values after `step` (-1: the inputs), from the run's own data."""
    values = {r: {s["chunk"]: s["values"] for s in states} for r, states in run["inputs"].items()}
    for s in run["steps"][: step + 1]:
        for r, report in s["ranks"].items():
            for state in report["states"]:
                values[r][state["chunk"]] = state["values"]
    return values


def stage_values(page) -> dict:
    cells = page.eval_on_selector_all(
        ".cell", "cells => cells.map(c => [c.dataset.rank, +c.dataset.chunk, c.dataset.values])"
    )
    out: dict = {}
    for rank, chunk, values in cells:
        out.setdefault(rank, {})[chunk] = json.loads(values)
    return out


def stage_origins(page) -> dict:
    """{(rank, chunk): [ranks whose data the cell holds]} as the stage colours them."""
    cells = page.eval_on_selector_all(
        ".cell", "cells => cells.map(c => [c.dataset.rank, +c.dataset.chunk, c.dataset.origins])"
    )
    return {(rank, chunk): [int(o) for o in origins.split(",") if o] for rank, chunk, origins in cells}


# A run of the test's own on the stage, off the live feed, paused.
LOAD = (
    "run => { const { player, state } = window.ringside; state.live = false;"
    " player.load(run); player.pause(); }"
)
COMBINE = {"SUM": sum, "BOR": lambda xs: functools.reduce(operator.or_, xs, 0)}


def run_from_button(page, collective: str, algorithm: str | None = None) -> str:
    """Click the collective, pick the algorithm (default: the last stepwise one), run it and wait."""
    presenting(page)
    page.click(f"button[data-collective={collective}]")
    expect(page.locator("#collectives button.active")).to_have_attribute("data-collective", collective)
    algorithms = page.eval_on_selector(
        "#field-algorithm", "s => [...s.options].map(o => o.value).filter(v => v !== 'custom')"
    )
    page.select_option("#field-algorithm", algorithm or algorithms[-1])
    page.select_option("#field-capture", "full")
    page.fill("#field-count", "8")
    with page.expect_response(lambda r: r.url.endswith("/api/runs") and r.request.method == "POST") as posted:
        page.click("#run")
    run_id = posted.value.json()["id"]
    page.wait_for_function(
        f"() => window.ringside.player.run?.id === '{run_id}' "
        "&& ['done', 'failed'].includes(window.ringside.player.run.state)",
        timeout=60_000,
    )
    return run_id


@pytest.mark.parametrize(
    "collective",
    [
        "broadcast",
        "scatter",
        "gather",
        "reduce",
        "all_reduce",
        "all_gather",
        "reduce_scatter",
        "all_to_all",
        "barrier",
        "send_recv",
    ],
)
def test_every_collective_from_its_button_shows_the_runs_values_at_every_step(up, page_for, collective):
    page = page_for(f"{up.url}/?token={up.presenter}")
    page.wait_for_selector("#collectives button")
    run_id = run_from_button(page, collective)
    _, run = up.call("GET", f"/api/runs/{run_id}")
    assert run["state"] == "done" and run["verified"] is True
    page.evaluate("window.ringside.player.pause()")
    for step in range(-1, len(run["steps"])):
        go(page, step)
        shown = stage_values(page)
        want = expected_values(run, step)
        for rank, chunks in want.items():
            for chunk, values in chunks.items():
                assert shown[rank][chunk] == values, f"{collective} step {step} rank {rank} chunk {chunk}"
        label = "inputs" if step < 0 else f"step {step + 1} / {len(run['steps'])}"
        expect(page.locator("#step-label")).to_have_text(label)
    expect(page.locator("#caption")).to_have_text(starts(f"Step {len(run['steps'])} of {len(run['steps'])}"))
    expect(page.locator("[data-verified=true]").first).to_be_attached()
    expect(page.locator("[data-verified=false]")).to_have_count(0)
    middle = max(0, len(run["steps"]) // 2 - 1)
    # A picture of a step mid-flight, as the chunks land and the sums show: 2.05 s into its 2.8 s (1.4 s
    # a step at 1x, at half speed) on the page's clock, which the test holds and moves on at once.
    page.clock.install()
    page.clock.pause_at(page.evaluate("Date.now()") / 1000 + 1)
    page.evaluate(
        f"() => {{ const p = window.ringside.player; p.go({middle - 1}); p.speed = 0.5; p.forward(); }}"
    )
    page.clock.run_for(2050)
    screenshot(page, ARTIFACTS / f"{collective}.png")
    page.clock.resume()

    # Provenance: with the `rank` pattern every rank's input is one number, so a cell's values
    # must be its origins' numbers combined by the run's op (a copy's single origin included).
    plain = up.run(
        collective=collective, algorithm=run["spec"]["algorithm"], count=4, capture="full", pattern="rank"
    )
    unit = {}
    for r, states in plain["inputs"].items():
        own = [s for s in states if s["chunk"] in plain["input_chunks"][r]]
        if own:
            unit[int(r)] = own[0]["values"][0]
    combine = COMBINE["BOR" if collective == "barrier" else "SUM"]
    page.evaluate(LOAD, plain)
    for step in range(-1, len(plain["steps"])):
        go(page, step)
        values = stage_values(page)
        for (rank, chunk), origins in stage_origins(page).items():
            if origins:
                assert set(values[rank][chunk]) == {combine(unit[o] for o in origins)}, (
                    f"{collective} step {step} rank {rank} chunk {chunk}"
                )
    final = stage_origins(page)
    assert any(final.values()), "some cell holds some rank's data"


def test_keyboard_drives_the_player_and_the_page(up, page_for):
    page = page_for(f"{up.url}/?token={up.presenter}")
    page.wait_for_selector("#collectives button")
    first = run_from_button(page, "all_reduce")
    page.evaluate("window.ringside.player.pause()")
    go(page, -1)
    page.locator("body").click(position={"x": 5, "y": 700})
    label = page.locator("#step-label")
    page.keyboard.press("ArrowRight")
    expect(label).to_have_text(starts("step 1"))
    page.keyboard.press("ArrowLeft")
    expect(label).to_have_text("inputs")
    page.keyboard.press(" ")
    page.wait_for_function("window.ringside.player.playing")
    page.keyboard.press(" ")
    page.wait_for_function("!window.ringside.player.playing")
    page.keyboard.press("2")
    expect(page.locator("#collectives button.active")).to_have_attribute("data-collective", "scatter")
    page.keyboard.press("?")
    expect(page.locator("#keys")).to_be_visible()
    page.keyboard.press("Escape")
    page.keyboard.press("l")
    expect(page.locator("body")).to_have_class(re.compile(r"\bpresent\b"))
    expect(page.locator("#left")).to_be_hidden()
    page.keyboard.press("l")
    expect(page.locator("body")).not_to_have_class(re.compile(r"\bpresent\b"))
    page.keyboard.press("r")  # run what is picked now: scatter, by its last stepwise algorithm
    page.wait_for_function(
        f"() => window.ringside.player.run && window.ringside.player.run.id !== '{first}' "
        "&& window.ringside.player.run.state === 'done'",
        timeout=60_000,
    )
    assert page.evaluate("window.ringside.player.run.spec.collective") == "scatter"
    assert page.evaluate("window.ringside.player.run.spec.algorithm") != "native"


def test_the_audience_follows_live_and_cannot_run(up, page_for):
    audience = page_for(f"{up.url}/")
    audience.wait_for_selector("#collectives button")
    expect(audience.locator("#run")).to_be_disabled()
    expect(audience.locator("#run-why")).to_contain_text("Watching only")
    assert audience.request.post(f"{up.url}/api/runs", data={"collective": "barrier"}).status == 401
    status, body = up.call(
        "POST", "/api/runs", {"collective": "all_gather", "algorithm": "ring", "count": 4, "capture": "full"}
    )
    audience.wait_for_function(
        f"() => window.ringside.player.run && window.ringside.player.run.id === '{body['id']}'",
        timeout=60_000,
    )
    expect(audience.locator("#role")).to_have_text("audience")


def test_a_live_run_costs_the_page_no_get_of_it(up, page_for):
    """run_started brings the whole run, a message per rank per step follows, then run_ended:
    neither the page that runs it nor one following it asks the server for it, nor for the run list
    (its line is told as it is queued, starts and ends)."""
    up.run(collective="barrier", capture="full")  # so both pages open on an ended run
    presenter, audience = page_for(f"{up.url}/?token={up.presenter}"), page_for(f"{up.url}/")
    asked = {"presenter": [], "audience": []}
    for name, page in (("presenter", presenter), ("audience", audience)):
        page.wait_for_function("window.ringside.player.run?.state === 'done'")
        page.on("request", lambda r, name=name: asked[name].append(r.url))
    run_id = run_from_button(presenter, "all_reduce", "ring")
    audience.wait_for_function(
        f"() => window.ringside.player.run?.id === '{run_id}' && window.ringside.player.run.state === 'done'",
        timeout=60_000,
    )
    _, run = up.call("GET", f"/api/runs/{run_id}")
    for page in (presenter, audience):
        assert page.evaluate("window.ringside.player.available()") == len(run["steps"]), (
            "every step came by the feed"
        )
        assert page.evaluate("window.ringside.player.frames.length") == len(run["steps"]) + 1
        page.evaluate("window.ringside.player.pause()")
        go(page, len(run["steps"]) - 1)
        assert stage_values(page) == expected_values(run, len(run["steps"]) - 1)
        verified = page.locator("[data-verified=true]")
        expect(verified, "run_ended brought the verdicts").to_have_count(len(run["group"]))
    assert [u for urls in asked.values() for u in urls if f"/api/runs/{run_id}" in u] == []
    for page in (presenter, audience):  # its line came by the feed too, as it was queued, started, ended
        expect(page.locator(f"#history li[data-run='{run_id}'] .pill")).to_have_text("done")
    assert [u for urls in asked.values() for u in urls if "/api/runs?" in u] == [], "nor the list"


@pytest.fixture(scope="module")
def ring_run(up) -> dict:
    """A ring all_reduce the pages below open by its link: one run serves them all."""
    return up.run(collective="all_reduce", algorithm="ring", count=8, capture="full")


@pytest.fixture(scope="module")
def tree_reduce(up) -> dict:
    """A tree reduce rooted at rank 2, opened by its link: one run serves the tests below."""
    return up.run(collective="reduce", algorithm="binomial_tree", count=4, capture="full", root=2)


def test_the_stage_draws_the_runs_layout_hint(up, page_for, tree_reduce):
    """Where the cards go and which is marked root come from the run's layout, not its names."""
    run = tree_reduce
    assert run["layout"] == {"shape": "tree", "root": 2, "servers": []}
    page = page_for(f"{up.url}/?run={run['id']}")
    page.wait_for_function(f"() => window.ringside.player.run?.id === '{run['id']}'")
    top = (
        "() => [...document.querySelectorAll('.card')].map(c => [c.dataset.rank, "
        "c.classList.contains('root'), c.getBoundingClientRect().y])"
    )
    cards = page.evaluate(top)
    assert [r for r, root, _ in cards if root] == ["2"] and min(cards, key=lambda c: c[2])[0] == "2", (
        "the root is marked, on top"
    )
    # A servers-and-workers hint (the parameter server's): the servers in a row above, none marked.
    page.evaluate(
        "run => { const { player, state } = window.ringside; state.live = false; player.load(run); }",
        {**run, "id": "servers", "layout": {"shape": "servers", "root": None, "servers": [1, 3]}},
    )
    cards = {r: (root, y) for r, root, y in page.evaluate(top)}
    assert not any(root for root, _ in cards.values())
    assert cards["1"][1] == cards["3"][1] < min(cards["0"][1], cards["2"][1])


def test_a_page_opened_between_runs_shows_the_last_one(up, page_for):
    last = up.run(collective="scatter", algorithm="binomial_tree", count=4, capture="full", root=1)
    page = page_for(f"{up.url}/")
    page.wait_for_function(f"() => window.ringside.player.run?.id === '{last['id']}'", timeout=30_000)
    expect(page.locator("#run-title")).to_contain_text(last["id"])
    expect(page.locator("#run-state")).to_have_text(starts("done"))


def test_the_presenter_cancels_a_running_run_and_the_audience_cannot(up, page_for):
    presenter, audience = page_for(f"{up.url}/?token={up.presenter}"), page_for(f"{up.url}/")
    for page in (presenter, audience):
        page.wait_for_selector("#collectives button")
    long = {
        "collective": "all_reduce",
        "algorithm": "ring",
        "count": 1 << 16,
        "iterations": 5000,
        "capture": "none",
    }
    run_id = up.call("POST", "/api/runs", long)[1]["id"]
    following = (
        f"() => window.ringside.player.run?.id === '{run_id}' && "
        "window.ringside.player.run.state === 'running'"
    )
    for page in (presenter, audience):
        page.wait_for_function(following, timeout=60_000)
    expect(audience.locator("#cancel")).to_be_hidden()
    presenting(presenter)
    presenter.click("#cancel")
    presenter.wait_for_function(
        "document.getElementById('run-state').dataset.state === 'cancelled'", timeout=60_000
    )
    expect(presenter.locator("#cancel")).to_be_hidden()
    assert up.call("GET", f"/api/runs/{run_id}")[1]["results"] == {}


def test_a_shared_link_reopens_the_same_run_and_step(up, page_for, tree_reduce):
    run = tree_reduce
    page = page_for(f"{up.url}/?run={run['id']}&step=1&collective=reduce&algorithm=binomial_tree")
    page.wait_for_function(
        f"() => window.ringside.player.run && window.ringside.player.run.id === '{run['id']}'"
    )
    page.wait_for_function("window.ringside.player.step === 1")
    expect(page.locator("#collectives button.active")).to_have_attribute("data-collective", "reduce")
    expect(page).to_have_url(re.compile(rf"(?=.*step=1)(?=.*run={re.escape(run['id'])})"))


def test_an_exported_run_replays_with_no_server_to_reach(up, page_for, tmp_path):
    run = up.run(collective="all_reduce", algorithm="ring", count=6, capture="full")
    page = page_for(f"{up.url}/?run={run['id']}")
    page.wait_for_function(
        f"() => window.ringside.player.run && window.ringside.player.run.id === '{run['id']}'"
    )
    html = page.evaluate("import('rs/export/export.js').then(m => m.standalone(window.ringside.player.run))")
    exported = tmp_path / "run.html"
    exported.write_text(html)
    offline = page_for("about:blank")
    # no network at all, as on a laptop without the server: a request the file still made would fail,
    # and the console error fail the test
    offline.context.set_offline(True)
    offline.goto(exported.as_uri())
    offline.wait_for_function("window.ringside && window.ringside.player.run")
    offline.keyboard.press("End")  # the lecturer's keys, as on the live page: End, the result
    offline.wait_for_function(f"window.ringside.player.step === {len(run['steps']) - 1}")
    assert stage_values(offline) == {r: v for r, v in expected_values(run, len(run["steps"]) - 1).items()}
    expect(offline.locator("#step-label")).to_have_text(f"step {len(run['steps'])} / {len(run['steps'])}")
    offline.keyboard.press("Home")  # and Home, the inputs
    expect(offline.locator("#step-label")).to_have_text("inputs")


def test_phases_summaries_and_a_sweep_chart(up, page_for):
    page = page_for(f"{up.url}/?token={up.presenter}")
    page.wait_for_selector("#collectives button")
    run_id = run_from_button(page, "all_reduce", "ring")  # reduce-scatter, then all-gather
    ranks = len(up.call("GET", f"/api/runs/{run_id}")[1]["group"])
    page.evaluate("window.ringside.player.pause()")
    go(page, ranks)
    expect(page.locator("#phases span")).to_have_text(["reduce-scatter", "all-gather"])
    expect(page.locator("#phases span.current")).to_have_attribute("data-first", str(ranks - 1))
    page.click("#phases span[data-first='0']")
    page.wait_for_function("window.ringside.player.step === 0")

    big = up.run(
        collective="all_reduce", algorithm="ring", count=4096, capture="summary", pattern="random_int"
    )
    page.goto(f"{up.url}/?run={big['id']}&step=-1")
    page.wait_for_function(
        f"() => window.ringside.player.run && window.ringside.player.run.id === '{big['id']}'"
    )
    go(page, len(big["steps"]) - 1)
    last = big["steps"][-1]["ranks"]["0"]["states"][0]
    cell = page.locator(f".cell[data-rank='0'][data-chunk='{last['chunk']}']")
    expect(cell.locator("text.value")).to_have_text(f"{last['min']:g} … {last['max']:g}")  # a range
    expect(cell.locator("title")).to_contain_text(f"sum {last['sum']:g}")

    page.goto(f"{up.url}/?token={up.presenter}")
    page.wait_for_selector("#collectives button")
    presenting(page)
    page.click("button[data-collective=all_gather]")
    page.click("#sweep-run")
    page.wait_for_function(
        "document.getElementById('sweep-progress').textContent.includes('charted')", timeout=240_000
    )
    names = page.evaluate("document.getElementById('sweep').data.map(t => t.name)")
    assert {"native", "ring", "recursive_doubling", "ring model", "recursive_doubling model"} <= set(names)


def test_a_refused_run_says_why_next_to_its_field_and_changes_nothing(up, page_for):
    page = page_for(f"{up.url}/?token={up.presenter}", allow=["status of 422"])
    page.wait_for_selector("#collectives button")
    presenting(page)
    before = up.call("GET", "/api/runs?limit=1")[1]["total"]
    page.click("button[data-collective=all_gather]")
    page.select_option("#field-capture", "full")
    page.fill("#field-count", "100000")
    page.click("#run")
    error = page.locator("[data-error-for=capture]")
    expect(error).to_contain_text("full")
    expect(error).to_contain_text("summary")
    assert up.call("GET", "/api/runs?limit=1")[1]["total"] == before
    # An op the dtype cannot take is greyed out, and says why.
    page.click("button[data-collective=all_reduce]")
    page.select_option("#field-dtype", "float32")
    bxor, avg = page.locator("#field-op option[value=BXOR]"), page.locator("#field-op option[value=AVG]")
    expect(bxor).to_be_disabled()
    expect(avg).to_be_enabled()
    expect(bxor).to_have_attribute("title", re.compile("integer"))
    page.select_option("#field-dtype", "int32")
    expect(avg).to_be_disabled()
    expect(avg).to_have_attribute("title", re.compile("floating"))


def test_lecture_mode_fits_a_projector_and_hides_the_rest(up, page_for, ring_run):
    run = ring_run
    page = page_for(f"{up.url}/?present=1&run={run['id']}&step=2")
    page.wait_for_function(
        f"() => window.ringside.player.run && window.ringside.player.run.id === '{run['id']}'"
    )
    for hidden in ("#left", "#right", "#bottom"):
        expect(page.locator(hidden)).to_be_hidden()
    sums = page.locator(".sum")
    expect(sums, "step 3 of a ring reduce-scatter: one sum per rank").to_have_count(len(run["group"]))
    for selector in ("#stage", "#caption", "#player", "#phases"):
        box = page.locator(selector).bounding_box()
        assert box and box["y"] >= 0 and box["y"] + box["height"] <= 720, (
            f"{selector} is off the 1280x720 screen: {box}"
        )
    assert (
        float(page.eval_on_selector("#caption", "e => getComputedStyle(e).fontSize").removesuffix("px")) >= 24
    )
    width = page.evaluate("document.getElementById('stage').getBoundingClientRect().width")
    assert width > 1200, "the stage takes the whole width"
    screenshot(page, ARTIFACTS / "lecture.png")


def test_a_phone_shows_the_stage_first_and_nothing_wider_than_its_screen(up, page_for, ring_run):
    run = ring_run
    page = page_for(f"{up.url}/?run={run['id']}&step=2", viewport=(390, 844))
    page.wait_for_function(f"() => window.ringside.player.run?.id === '{run['id']}'")
    expect(page.locator(".sum")).to_have_count(len(run["group"]))
    assert page.evaluate("document.documentElement.scrollWidth") <= 390, "no sideways scrolling"
    stage, controls = page.locator("#stage").bounding_box(), page.locator("#controls").bounding_box()
    assert stage["y"] < 844 and stage["y"] + stage["height"] <= controls["y"], (
        "the stage comes first, the controls after"
    )
    screenshot(page, ARTIFACTS / "phone.png")


def test_the_cluster_panel_lists_every_rank_with_its_health(up, page_for):
    page = page_for(f"{up.url}/")
    page.wait_for_function(f"document.querySelectorAll('#cluster .rank-row').length === {P}")
    page.wait_for_function(
        "document.querySelectorAll('#cluster .spark polyline.cpu').length > 0", timeout=15_000
    )
    rows = page.eval_on_selector_all(
        "#cluster .rank-row", "rows => rows.map(r => [r.dataset.rank, r.dataset.status, r.innerText])"
    )
    assert sorted(int(r) for r, _, _ in rows) == list(range(P))
    for _, status, text in rows:
        assert status in ("idle", "busy") and "cpu" in text and "♥" in text and "MiB" in text


def test_a_page_whose_first_requests_fail_asks_again_and_goes_live(up, browser):
    """As when it loads while its server restarts: the catalog is asked for again, not given up on."""
    page = browser.new_page()
    refused = []

    def refuse_twice(route):
        if len(refused) < 2:
            refused.append(route.request.url)
            route.abort()
        else:
            route.continue_()

    page.route("**/api/catalog", refuse_twice)
    try:
        page.goto(f"{up.url}/")
        expect(page.locator("#connection")).to_have_attribute("data-state", "open")
        page.wait_for_function(f"document.querySelectorAll('#cluster .rank-row').length === {P}")
        assert len(refused) == 2
        expect(page.locator("#collectives button[data-collective=all_reduce]")).to_be_visible()
    finally:
        page.close()


def test_charts_load_plotly_only_when_scrolled_into_view(up, page_for, ring_run):
    run = ring_run
    page = page_for(f"{up.url}/?run={run['id']}")
    page.wait_for_function(
        f"() => window.ringside.player.run && window.ringside.player.run.id === '{run['id']}'"
    )
    # once the page has heard the charts are out of view; a chart drawn would ask for plotly.js at once
    observed(page, "timeline")
    assert page.evaluate("typeof window.Plotly") == "undefined", (
        "the charts are below the fold: no plotly yet"
    )
    assert page.locator("script[src$='plotly.min.js']").count() == 0, "nor asked for"
    page.locator("#timeline").scroll_into_view_if_needed()
    page.wait_for_function("document.getElementById('timeline').data?.length > 0", timeout=30_000)
    traces = page.evaluate("document.getElementById('timeline').data.map(t => [t.name, t.y.length])")
    assert traces == [[f"step {i + 1}", len(run["group"])] for i in range(len(run["steps"]))]
    expect(page.locator("#timeline .xtitle")).to_have_text("µs since the aligned start")
    page.wait_for_function("document.getElementById('totals').data?.length === 4")
    name, sent = page.evaluate("(({ name, y }) => [name, y])(document.getElementById('totals').data[2])")
    assert max(run["traffic"]["sent"].values()) < 1024, "a run this small is counted in bytes"
    assert name == "sent (B)" and sent == [run["traffic"]["sent"][str(r)] for r in run["group"]]
    expect(page.locator("#totals .y2title")).to_have_text("B")
    expect(page.locator("#totals .ytitle")).to_have_text("µs")


def test_the_presenter_pastes_a_schedule_and_watches_it_run(up, page_for):
    """A schedule as data from the page: refused beside its box when it is wrong (nothing runs),
    run and verified when it is right. The audience has no such choice."""
    audience = page_for(f"{up.url}/")
    audience.wait_for_selector("#collectives button")
    expect(audience.locator("#role")).to_have_text(starts("audience"))
    audience.click("button[data-collective=all_reduce]")
    expect(audience.locator("#collectives button.active")).to_have_attribute("data-collective", "all_reduce")
    expect(audience.locator("#field-algorithm option[value=custom]")).to_have_count(0)
    page = page_for(f"{up.url}/?token={up.presenter}", allow=["status of 422"])
    page.wait_for_selector("#collectives button")
    presenting(page)
    page.click("button[data-collective=all_reduce]")
    expect(page.locator("#field-schedule")).to_be_hidden()
    page.select_option("#field-algorithm", "custom")
    expect(page.locator("#field-schedule")).to_be_visible()
    before = up.call("GET", "/api/runs?limit=1")[1]["total"]
    doc = ring_doc(P)
    # pass on the wrong chunk
    doc["steps"][-1]["transfers"][0][2] = (doc["steps"][-1]["transfers"][0][2] + 1) % P
    page.fill("#field-schedule", json.dumps(doc))
    page.click("#run")
    expect(page.locator("[data-error-for=schedule]")).to_contain_text("after the last step rank")
    page.fill("#field-schedule", "{not json")
    page.click("#run")
    expect(page.locator("[data-error-for=schedule]")).to_have_text(starts("not JSON"))
    assert up.call("GET", "/api/runs?limit=1")[1]["total"] == before, "nothing was stored"
    page.fill("#field-count", "8")
    page.fill("#field-schedule", json.dumps(ring_doc(P)))
    with page.expect_response(lambda r: r.url.endswith("/api/runs") and r.request.method == "POST") as posted:
        page.click("#run")
    run_id = posted.value.json()["id"]
    page.wait_for_function(
        f"() => window.ringside.player.run?.id === '{run_id}' && window.ringside.player.run.state === 'done'",
        timeout=60_000,
    )
    expect(page.locator("#run-state")).to_have_text(starts("done"))
    expect(page.locator("#run-state")).to_contain_text("✓")
    expect(page.locator("#run-title")).to_contain_text("custom")


def test_each_collective_opens_on_its_lecture_algorithm_and_the_form_keeps_its_width(up, page_for):
    """A collective picked anew opens on ring where it has one, else on a stepwise algorithm,
    never on native (which draws no transfers), whatever was picked before (the README's
    "press all_reduce, pick ring"); the schedule box, hidden, takes no room."""
    page = page_for(f"{up.url}/?token={up.presenter}", viewport=(1440, 900))
    page.wait_for_selector("#collectives button")
    presenting(page)
    catalog = up.call("GET", "/api/catalog")[1]
    for entry in catalog["collectives"]:
        page.click(f"button[data-collective={entry['name']}]")
        assert entry["lecture"] == ("ring" if "ring" in entry["algorithms"] else entry["algorithms"][-1])
        expect(page.locator("#field-algorithm"), entry["name"]).to_have_value(entry["lecture"])
        assert page.eval_on_selector("#field-algorithm", "s => s.getBoundingClientRect().width") > 120
        expect(page.locator("#spec input[type=file]")).to_be_hidden()
    page.select_option("#field-algorithm", "native")
    page.click("button[data-collective=all_reduce]")
    expect(page.locator("#field-algorithm"), "all_reduce opens on ring, whatever came before").to_have_value(
        "ring"
    )
    page.select_option("#field-algorithm", "tree")
    page.click("button[data-collective=all_reduce]")
    expect(page.locator("#field-algorithm"), "picked again, it keeps what was chosen").to_have_value("tree")


def test_the_presenters_loop_in_lecture_mode_from_the_keyboard(up, page_for):
    """At 1280x720 in lecture mode: a number picks a collective and the strip over the stage says
    so; A cycles its algorithms (stepwise first, native last); R runs exactly what the strip shows."""
    page = page_for(f"{up.url}/?token={up.presenter}&present=1")
    page.wait_for_selector("#collectives button", state="attached")  # the controls are hidden in lecture mode
    page.locator("#stage").click()
    page.keyboard.press("5")
    pick = page.locator("#pick")
    expect(pick).to_be_visible()
    expect(page.locator("#left")).to_be_hidden()
    # broadcast's ring, kept; the lecture preset's count
    expect(pick).to_have_text(starts("all_reduce · ring · 4 ranks · 4 × int32 · SUM"))
    for algorithm in (
        "tree",
        "master_worker",
        "recursive_doubling",
        "rabenseifner",
        "auto",
        "native",
        "ring",
    ):
        page.keyboard.press("a")
        expect(pick).to_have_text(starts(f"all_reduce · {algorithm} · "))
    with page.expect_response(lambda r: r.url.endswith("/api/runs") and r.request.method == "POST") as posted:
        page.keyboard.press("r")
    run_id = posted.value.json()["id"]
    page.wait_for_function(
        f"() => window.ringside.player.run?.id === '{run_id}' && window.ringside.player.run.state === 'done'",
        timeout=60_000,
    )
    assert page.evaluate(
        "[window.ringside.player.run.spec.collective, window.ringside.player.run.spec.algorithm]"
    ) == ["all_reduce", "ring"]
    again = "a reload keeps what R would run again"
    expect(page, again).to_have_url(re.compile("(?=.*op=SUM)(?=.*dtype=int32)"))
    page.keyboard.press("1")
    expect(pick, "the strip follows the pick").to_have_text(starts("broadcast · ring"))
    names = page.evaluate("window.ringside.controls.catalog.collectives.map(c => c.name)")
    page.keyboard.press("[")  # the digits reach ten collectives; [ and ] reach every one
    expect(pick).to_have_text(starts(names[-1]))
    page.keyboard.press("]")
    expect(pick, "round the catalog").to_have_text(starts("broadcast"))
    page.evaluate("window.ringside.player.pause()")  # it may still be playing the run through
    page.keyboard.press(" ")
    page.wait_for_function("window.ringside.player.playing")
    expect(page.locator("#play")).to_have_text("❚❚")


def test_every_script_the_page_and_the_docs_run_is_one_the_policy_allows(up, browser, tmp_path):
    """With the server's Content-Security-Policy in force (the other tests' pages bypass it, for
    their probes): a run from the keys, its charts (plotly), the QR code, an export (and the
    exported file under its own policy) and /docs, and not one thing refused."""
    refused: list[str] = []

    def strict(url: str):
        page = browser.new_page(bypass_csp=False, viewport={"width": 1280, "height": 720})
        page.on("console", lambda m: refused.append(m.text) if "Content Security Policy" in m.text else None)
        page.goto(url)
        return page

    def until(page, expression: str, timeout_s: float = 60) -> None:
        # not wait_for_function: Playwright evaluates its string predicate with eval, which the policy refuses
        deadline = time.monotonic() + timeout_s
        while not page.evaluate(expression):
            assert time.monotonic() < deadline, expression
            time.sleep(0.1)

    page = strict(f"{up.url}/?token={up.presenter}")
    presenting(page)
    page.locator("#stage").click()
    page.keyboard.press("5")
    page.keyboard.press("r")
    until(page, "window.ringside.player.run?.state === 'done'")
    page.locator("#timeline").scroll_into_view_if_needed()
    until(page, "document.getElementById('timeline').data?.length > 0")
    page.locator("#stage").click()
    page.keyboard.press("k")
    expect(page.locator("#hall .qr svg")).to_be_visible()
    html = page.evaluate("import('rs/export/export.js').then(m => m.standalone(window.ringside.player.run))")
    assert "run-data" in html and 'http-equiv="Content-Security-Policy"' in html
    exported = tmp_path / "run.html"
    exported.write_text(html)
    offline = strict(exported.as_uri())  # under the policy the file carries
    until(offline, "window.ringside?.player?.run != null")
    offline.keyboard.press("End")
    expect(offline.locator("#step-label")).to_contain_text("/")
    docs = strict(f"{up.url}/docs")
    expect(docs.locator(".opblock").first).to_be_visible(timeout=30_000)
    for opened in (page, offline, docs):
        opened.close()
    assert refused == []
