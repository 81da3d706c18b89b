"""The stage as a back row sees it, in a real Chromium at 1280x720 in lecture mode, against a
real server with 8 gloo ranks (4-rank runs use a group of four): numbers written out and
readable, reduction labels that cover no value and no other label, AVG's division by P,
outputs told apart from leftovers, buffers at their real size, ranks outside a group greyed
in place, and the traffic formula with what the ranks measured (every built-in algorithm's:
tests/served/test_formulas_served.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from browser import go, screenshot
from test_frontend_browser import LOAD

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

P = 8
FOUR = [0, 1, 2, 3]
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"
QUICK = {"capture": "full", "iterations": 1, "warmup": 0}


pytestmark = pytest.mark.cluster(ranks=P)


@pytest.fixture
def lecture(page_for, up):
    """lecture(run) -> a 1280x720 page in lecture mode showing that run, paused; console errors fail the
    test."""

    def open_run(run):
        page = page_for(f"{up.url}/?run={run['id']}&present=1")
        page.wait_for_function(
            f"() => window.ringside.player.run?.id === '{run['id']}' && "
            "window.ringside.player.run.state === 'done'"
        )
        page.evaluate("window.ringside.player.pause()")
        return page

    return open_run


def shot(page, name: str) -> None:
    screenshot(page, ARTIFACTS / f"stage_{name}.png")


def cells(page) -> dict:
    """{(rank, chunk): {values, text, classes, px (font size on screen), width}} of every cell."""
    rows = page.eval_on_selector_all(
        "#stage svg g.cell",
        """cells => cells.map(c => {
        const t = c.querySelector('text.value');
        return [c.dataset.rank, +c.dataset.chunk, c.dataset.values, t.textContent, c.getAttribute('class'),
                (+t.getAttribute('font-size') || 0) * (t.getScreenCTM()?.a ?? 0),
                c.getBoundingClientRect().width, c.querySelector('title')?.textContent ?? ''];
    })""",
    )
    return {
        (int(r), c): {
            "values": json.loads(v),
            "text": t,
            "classes": k.split(),
            "px": px,
            "width": w,
            "title": title,
        }
        for r, c, v, t, k, px, w, title in rows
    }


def buffers(run: dict, step: int) -> dict:
    """Every rank's chunk values after `step` (-1: the inputs) from the run's own reports."""
    values = {int(r): {s["chunk"]: s["values"] for s in states} for r, states in run["inputs"].items()}
    for s in run["steps"][: step + 1]:
        for r, report in s["ranks"].items():
            for state in report["states"]:
                values[int(r)][state["chunk"]] = state["values"]
    return values


OVERLAPS = """() => {
    const box = (e) => e.getBoundingClientRect();
    const hit = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
    const labels = [...document.querySelectorAll('#stage svg .arith')].map(box);
    const values = [...document.querySelectorAll('#stage svg g.cell text.value')]
        .filter((t) => t.textContent).map(box);
    const names = [...document.querySelectorAll('#stage svg text.name')].map(box);
    let covered = 0, crossed = 0;
    labels.forEach((l, i) => {
        if (values.some((v) => hit(l, v)) || names.some((n) => hit(l, n))) covered++;
        if (labels.slice(i + 1).some((m) => hit(l, m))) crossed++;
    });
    const lines = [...document.querySelectorAll('#stage svg .arith tspan')].map((t) => t.textContent);
    return { labels: labels.length, covered, crossed, lines };
}"""

ELEMENTWISE = re.compile(r"^-?[\d.]+( \+ -?[\d.]+)+ = -?[\d.]+$")


@pytest.mark.parametrize(
    "spec",
    [
        {"algorithm": "recursive_doubling", "count": 2, "pattern": "index"},
        {"algorithm": "ring", "chunks": 2, "count": 16, "pattern": "index"},
        {"algorithm": "ring", "count": 4, "pattern": "index", "group": FOUR},
    ],
    ids=["recursive_doubling-8", "ring-2-chunks-8", "ring-4"],
)
def test_reduction_labels_are_element_by_element_and_cover_no_value_nor_each_other(up, lecture, spec):
    run = up.run(collective="all_reduce", **spec, **QUICK)
    page = lecture(run)
    drawn = 0
    for step in range(len(run["steps"])):
        go(page, step)
        seen = page.evaluate(OVERLAPS)
        assert seen["covered"] == 0, f"step {step}: a label covers a value or a name: {seen}"
        assert seen["crossed"] == 0, f"step {step}: labels overlap: {seen}"
        for line in seen["lines"]:
            assert ELEMENTWISE.match(line), f"step {step}: {line!r} is not element by element"
        drawn += seen["labels"]
        if step == 0:
            shot(page, f"labels_{spec['algorithm']}_{len(run['group'])}_{spec.get('chunks', 1)}")
    assert drawn >= len(run["steps"]), "the reduce steps say their arithmetic"


def test_avg_shows_the_sums_then_the_division_by_p(up, lecture):
    run = up.run(
        collective="all_reduce", algorithm="ring", count=8, op="AVG", dtype="float32", pattern="rank", **QUICK
    )
    page = lecture(run)
    n = len(run["steps"])
    assert page.evaluate("window.ringside.player.available()") == n + 1, (
        "one frame more than steps: the division"
    )
    for step in range(-1, n):
        go(page, step)
        shown = cells(page)
        for rank, chunks in buffers(run, step).items():
            for chunk, values in chunks.items():
                assert shown[rank, chunk]["values"] == values, f"step {step} rank {rank} chunk {chunk}"
    sums = {key: c["values"] for key, c in cells(page).items()}
    assert sums[0, 0] == [36.0], "the steps add: 1 + 2 + ... + 8"
    go(page, n)
    shown = cells(page)
    for r, result in run["results"].items():
        for state in result["output"]:
            assert shown[int(r), state["chunk"]]["values"] == state["values"], "after ÷P: the ranks' outputs"
    assert shown[0, 0]["values"] == [4.5] and shown[0, 0]["text"] == "4.5"
    expect(page.locator("#step-label")).to_have_text(f"÷ {P}")
    labels = page.eval_on_selector_all("#stage svg .arith", "gs => gs.map(g => g.textContent)")
    # every rank divides the same sums: said once, not once a rank
    assert labels == [f"36 ÷ {P} = 4.5"], labels
    assert page.evaluate(OVERLAPS)["covered"] == 0
    shot(page, "avg_division")


def test_outputs_stand_apart_from_leftovers_and_buffers_have_their_real_size(up, lecture):
    rs = up.run(collective="reduce_scatter", algorithm="ring", count=1, pattern="index", **QUICK)
    page = lecture(rs)
    go(page, len(rs["steps"]) - 2)
    assert not any("spare" in c["classes"] for c in cells(page).values()), "mid-run nothing is marked"
    go(page, len(rs["steps"]) - 1)
    for (rank, chunk), c in cells(page).items():
        assert ("spare" in c["classes"]) == (chunk != rank), (
            f"rank {rank} chunk {chunk}: only the own block is output"
        )
        assert c["text"] and "…" not in c["text"], "a leftover's value stays readable"
        if chunk != rank:
            assert "not part of the output" in c["title"]
    shot(page, "reduce_scatter_end")

    scatter = up.run(collective="scatter", algorithm="flat", count=2, pattern="index", root=3, **QUICK)
    page = lecture(scatter)
    go(page, len(scatter["steps"]) - 1)
    shown = cells(page)
    card = page.eval_on_selector(
        "#stage .card[data-rank='0'] rect.frame", "r => r.getBoundingClientRect().width"
    )
    for rank in range(P):
        visible = [chunk for (r, chunk), c in shown.items() if r == rank and "unused" not in c["classes"]]
        if rank == 3:
            assert visible == list(range(P)), "the root's send buffer: P blocks"
        else:
            assert visible == [rank], f"rank {rank}'s receive buffer is one block"
            assert shown[rank, rank]["width"] > 0.9 * card, "drawn across its card"
    shot(page, "scatter_real_size")

    a2a = up.run(collective="all_to_all", algorithm="pairwise", count=1, pattern="index", group=FOUR, **QUICK)
    page = lecture(a2a)
    regions = page.eval_on_selector_all(
        "#stage svg text.region[data-rank='2']",
        """ts => ts.map(t => {
        const b = t.getBoundingClientRect();
        return [t.textContent, document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2) === t];
    })""",
    )
    assert regions == [["input", True], ["output", True]], "each half says what it is, in sight"


def test_eight_ranks_read_at_the_back_and_names_stay_over_tokens(up, lecture):
    run = up.run(collective="all_reduce", algorithm="master_worker", count=2, pattern="index", **QUICK)
    page = lecture(run)
    for step in range(-1, len(run["steps"])):
        go(page, step)
        for key, c in cells(page).items():
            assert c["text"] and "…" not in c["text"], f"step {step} {key}: {c['text']!r}"
            assert c["px"] >= 14, f"step {step} {key}: {c['px']:.1f} px digits"
    # where the reader asks for less motion (as every test page does), a step lands with nothing flying
    ticks = page.evaluate("""() => { const stage = window.ringside.stage, before = stage.frameCount;
        return stage.animate(0, 300).then(() => stage.frameCount - before); }""")
    assert ticks == 0, f"{ticks} frames of flight for a reader who asked for less motion"
    page.emulate_media(reduced_motion="no-preference")
    # In flight, the tokens converge on the master over its name: the name stays what lies on top.
    seen = page.evaluate("""() => new Promise((done) => {
        const name = [...document.querySelectorAll('#stage svg text.name')]
            .find(t => t.textContent.startsWith('rank 0'));
        const hit = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
        let crossed = 0, hidden = 0;
        const end = performance.now() + 1500;
        window.ringside.stage.animate(0, 1500);
        const look = () => {
            const b = name.getBoundingClientRect();
            const tokens = [...document.querySelectorAll('#stage svg .token')]
                .filter(t => t.style.display !== 'none');
            if (tokens.some(t => hit(t.getBoundingClientRect(), b))) {
                crossed++;
                if (document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2) !== name) hidden++;
            }
            if (performance.now() < end) requestAnimationFrame(look); else done({ crossed, hidden });
        };
        requestAnimationFrame(look);
    })""")
    shot(page, "master_worker_8")
    assert seen["crossed"] > 0, "the tokens pass over the master's name (else this checks nothing)"
    assert seen["hidden"] == 0, f"a flying token hid the master's name in {seen['hidden']} frames"

    ring = up.run(collective="all_reduce", algorithm="ring", count=8, pattern="rank", **QUICK)
    page = lecture(ring)
    go(page, 3)
    sizes = [c["px"] for c in cells(page).values()]
    assert min(sizes) >= 14, f"{min(sizes):.1f} px"
    shot(page, "ring_8")


def test_sixteen_ranks_are_colours_with_values_on_hover(up, lecture):
    base = up.run(collective="all_reduce", algorithm="ring", count=8, pattern="rank", group=FOUR, **QUICK)
    page = lecture(base)
    sixteen = {
        **base,
        "id": "sixteen",
        "group": list(range(16)),
        "world_size": 16,
        "chunk_bounds": [[0, 8]],
        "steps": [],
        "inputs": {str(r): [{"chunk": 0, "values": [r + 1] * 8}] for r in range(16)},
        "input_chunks": {str(r): [0] for r in range(16)},
        "results": {},
        "display": None,
        "schedule": None,
    }
    page.evaluate(LOAD, sixteen)
    shown = cells(page)
    assert len(shown) == 16 and all(c["text"] == "" for c in shown.values())
    assert all(c["title"].endswith(" ".join([str(r + 1)] * 8)) for (r, _), c in shown.items()), (
        "the values on hover"
    )
    shot(page, "sixteen")


def test_ranks_outside_the_group_are_greyed_in_place_with_group_numbers(up, lecture):
    run = up.run(
        collective="all_reduce", algorithm="ring", count=4, pattern="rank", group=[0, 2, 3, 5], **QUICK
    )
    page = lecture(run)
    cards = page.eval_on_selector_all(
        "#stage svg .card", "cs => cs.map(c => [+c.dataset.rank, c.classList.contains('outside')])"
    )
    assert sorted(map(tuple, cards)) == [(r, r not in (0, 2, 3, 5)) for r in range(P)], (
        "every rank keeps its card"
    )
    names = page.eval_on_selector_all("#stage svg text.name", "ts => ts.map(t => t.textContent)")
    assert "rank 2 (g1)" in names and "rank 5 (g3)" in names
    assert any(n.startswith("rank 1 ·") for n in names), names
    assert {r for r, _ in cells(page)} == {0, 2, 3, 5}, "only the group has buffers"
    shot(page, "new_group")


def test_the_formula_and_the_compare_view_show_what_the_ranks_measured(up, lecture):
    """The ring's formula beside its measured bytes, each card's sent bar at what it sent, and the
    compare view over the stage with the seed's three all_reduces as points. That every formula
    equals what its ranks measured: tests/served/test_formulas_served.py."""
    ran = {
        algorithm: up.run(collective="all_reduce", algorithm=algorithm, count=8, group=FOUR, root=0, **QUICK)
        for algorithm in ("master_worker", "tree", "ring")
    }
    assert all(run["state"] == "done" for run in ran.values()), {a: r["error"] for a, r in ran.items()}
    ring = ran["ring"]
    page = lecture(ring)
    data = page.eval_on_selector(
        "#formula", "f => ({...f.dataset, text: f.textContent, shown: f.offsetHeight > 0})"
    )
    assert data["formula"] == "2·(N/P)·(P-1)" and data["value"] == data["measured"] == "48" and data["shown"]
    assert "= 48 B sent by every rank" in data["text"] and "measured 48 B ✓" in data["text"]
    go(page, len(ring["steps"]) - 1)
    bars = page.eval_on_selector_all("#stage svg rect.bar.sent", "bs => bs.map(b => +b.dataset.bytes)")
    assert bars == [48] * 4, "each card's sent bar ends at what the rank sent"
    shot(page, "formula_ring")

    page.locator("#stage").click()
    page.keyboard.press("c")  # in lecture mode the chart comes over the stage
    page.wait_for_function("document.getElementById('compare').dataset.drawn === '3'", timeout=30_000)
    assert page.eval_on_selector_all("#compare .scatterlayer .trace", "ts => ts.length") >= 9
    box = page.locator("#compare").bounding_box()
    assert box["width"] > 1000 and box["height"] > 500, box
    shot(page, "compare")
    page.keyboard.press("c")
    expect(page.locator("#compare")).to_be_hidden()


def test_floats_are_rounded_to_fit_with_every_digit_on_hover(up, lecture):
    run = up.run(
        collective="all_reduce", algorithm="ring", count=8, pattern="random_float", group=FOUR, **QUICK
    )
    page = lecture(run)
    for step in (-1, len(run["steps"]) - 1):
        go(page, step)
        checked = page.eval_on_selector_all(
            "#stage svg g.cell:not(.unused)",
            """cells => cells.map(c => {
            const values = JSON.parse(c.dataset.values), text = c.querySelector('text.value').textContent;
            const shown = text.replaceAll('\u2212', '-').split(' ').map(Number); // a true minus
            const near = (s, i) => Math.abs(s - values[i]) <= 0.051 * Math.max(1, Math.abs(values[i]));
            return [text, c.querySelector('title').textContent.endsWith(values.map(String).join(' ')),
                    shown.length === values.length && shown.every(near)];
        })""",
        )
        for text, hover, close in checked:
            assert text and "…" not in text, f"step {step}: {text!r}"
            assert hover, f"step {step}: the hover lacks the full values of {text!r}"
            assert close, f"step {step}: {text!r} is not the cell's values rounded"
    shot(page, "floats")
