"""The stage on a projector after a lecturer's pass, in a real Chromium at 1280x720 in
lecture mode against `ringside up` with 8 gloo ranks: rank names and byte counts at 18 px or more
in every layout at 8 ranks, none dropped, none over another, the root named; the op in the title;
and for every reduction op, every number on the stage the rank's buffer at that step and every
arithmetic label true as written ("=" only where the written numbers add up, "≈" where rounded).
Screenshots (RINGSIDE_SHOTS) go to /tmp/shots/; the sizes are printed."""

from __future__ import annotations

import functools
import math
import operator
import re
from pathlib import Path

import pytest
from browser import go, screenshot

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

P = 8
FOUR = [0, 1, 2, 3]
LEAST_PX = 18
SHOTS = Path("/tmp/shots")
LECTURE = {"capture": "full", "iterations": 1, "warmup": 0, "pattern": "digits"}
LAYOUTS = [  # (shape, collective, algorithm): every shape layout.js draws
    ("ring", "all_reduce", "ring"),
    ("tree", "all_reduce", "tree"),
    ("tree", "broadcast", "binomial_tree"),
    ("star", "all_reduce", "master_worker"),
    ("star", "scatter", "flat"),
    ("grid", "all_gather", "recursive_doubling"),
    ("grid", "all_to_all", "pairwise"),
    ("servers", "parameter_server", "pull_push"),
]

HEADS = """() => {
    const q = (s) => [...document.querySelectorAll(s)];
    const px = (t) => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a;
    const box = (e) => e.getBoundingClientRect();
    const hit = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5
        && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
    const names = q('#stage text.name'), bytes = q('#stage text.bytes'), texts = [...names, ...bytes];
    const cards = q('#stage .card rect.frame').map(box), stage = box(document.getElementById('stage'));
    const crossed = [];
    texts.forEach((a, i) => texts.slice(i + 1).forEach(
        (b) => hit(box(a), box(b)) && crossed.push([a.textContent, b.textContent])));
    let cardsCrossed = 0;
    cards.forEach((a, i) => cards.slice(i + 1).forEach((b) => { if (hit(a, b)) cardsCrossed++; }));
    const out = texts.filter((t) => {
        const b = box(t);
        return b.left < stage.left || b.right > stage.right || b.top < stage.top;
    });
    return { names: names.map((t) => t.textContent), bytes: bytes.map((t) => t.textContent),
             name_px: Math.min(...names.map(px)), bytes_px: Math.min(...bytes.map(px)), crossed, cardsCrossed,
             out: out.length, root: q('#stage .card.root').map((c) => +c.dataset.rank),
             strokes: [...new Set(
                 q('#stage .card:not(.outside) rect.frame').map((r) => getComputedStyle(r).stroke))] };
}"""


pytestmark = pytest.mark.cluster(ranks=P)


@pytest.fixture
def lecture(page_for, up):
    def open_run(run):
        page = page_for(f"{up.url}/?run={run['id']}&present=1")
        page.wait_for_function(
            f"() => window.ringside.player.run?.id === '{run['id']}' && "
            "window.ringside.player.run.state === 'done'"
        )
        page.evaluate("window.ringside.player.pause()")
        return page

    return open_run


def test_names_and_bytes_read_at_the_back_in_every_layout_at_eight_ranks(up, lecture):
    pieces = {c["name"]: c["pieces"] for c in up.call("GET", "/api/catalog")[1]["collectives"]}
    for shape, collective, algorithm in LAYOUTS:
        run = up.run(
            collective=collective, algorithm=algorithm, count=pieces[collective][algorithm], **LECTURE
        )
        assert run["state"] == "done" and run["layout"]["shape"] == shape, (collective, run["layout"])
        page = lecture(run)
        for step in range(-1, len(run["steps"])):
            go(page, step)
            seen = page.evaluate(HEADS)
            said = f"{shape} ({collective} {algorithm}) step {step}: {seen}"
            assert len(seen["names"]) == P and len(seen["bytes"]) == P, (
                f"a name or byte count dropped: {said}"
            )
            assert seen["name_px"] >= LEAST_PX and seen["bytes_px"] >= LEAST_PX, said
            assert seen["crossed"] == [] and seen["cardsCrossed"] == 0 and seen["out"] == 0, said
            if step == 0:
                screenshot(page, SHOTS / f"projector-8-{shape}-{collective}-{algorithm}.png")
        phases = page.evaluate(
            "[...document.querySelectorAll('#phases span')]"
            ".map((s) => parseFloat(getComputedStyle(s).fontSize))"
        )
        assert min(phases, default=LEAST_PX) >= LEAST_PX, f"the phases (reduce-scatter …) at {phases} px"
        root = run["layout"]["root"]
        if root is not None:
            assert seen["root"] == [root], said
            assert len(seen["strokes"]) == 2, f"the root's frame stands out: {said}"
            named = [n for n in seen["names"] if n.startswith(f"rank {root} ")]
            assert named and ("root" in named[0] or "server" in named[0]), f"the root is named: {said}"
        print(
            f"{shape:8} {collective} {algorithm}: "
            f"names {seen['name_px']:.1f} px, bytes {seen['bytes_px']:.1f} px"
        )
        page.close()


INFIX = {"+": operator.add, "×": operator.mul, "&": operator.and_, "|": operator.or_, "^": operator.xor}
SYMBOL = {"SUM": "+", "AVG": "+", "PRODUCT": "×", "BAND": "&", "BOR": "|", "BXOR": "^"}


def buffers(run: dict, step: int) -> dict:
    """{(rank, chunk): values} after `step` (-1: the inputs; one past the last of an AVG: the outputs)."""
    if step >= len(run["steps"]):
        return {(int(r), s["chunk"]): s["values"] for r, res in run["results"].items() for s in res["output"]}
    values = {(int(r), s["chunk"]): s["values"] for r, states in run["inputs"].items() for s in states}
    for s in run["steps"][: step + 1]:
        for r, report in s["ranks"].items():
            values.update({(int(r), state["chunk"]): state["values"] for state in report["states"]})
    return values


def equations(text: str) -> list[tuple[str, str, str]]:
    """A label's lines, however wrapped, as (left side, "=" or "≈", result)."""
    words, out, lhs = text.split(), [], []
    for i, word in enumerate(words):
        if word in ("=", "≈") and i + 1 < len(words):
            out.append((" ".join(lhs), word, words[i + 1]))
            lhs = []
        elif not (i and words[i - 1] in ("=", "≈")):
            lhs.append(word)
    return out


def evaluate(op: str, lhs: str) -> float:
    """The left side of a label line, worked out from its written numbers."""
    if "÷" in lhs:
        total, divisor = lhs.split(" ÷ ")
        return float(total) / int(divisor)
    m = re.fullmatch(r"(min|max)\((.*)\)", lhs)
    if m:
        assert m.group(1) == op.lower(), f"{op}: {lhs}"
        return {"min": min, "max": max}[m.group(1)](float(x) for x in m.group(2).split(", "))
    symbol = SYMBOL[op]
    numbers = lhs.split(f" {symbol} ")
    assert all(re.fullmatch(r"-?[\d.e+-]+", n) for n in numbers), f"{op} reads as {symbol}: {lhs!r}"
    if symbol in "&|^":
        return functools.reduce(INFIX[symbol], (int(n) for n in numbers))
    return functools.reduce(INFIX[symbol], (float(n) for n in numbers))


def written_right(text: str, values: list) -> bool:
    """A cell's text is its values, written out (rounded to three digits at most, a true minus)."""
    shown = text.replace("\u2212", "-").split(" ")
    if len(shown) == 1 and len(set(values)) == 1:  # a chunk of one value throughout, said once
        shown = shown * len(values)
    return len(shown) == len(values) and all(
        float(s) == v if isinstance(v, int) else math.isclose(float(s), v, rel_tol=0.006, abs_tol=0.006)
        for s, v in zip(shown, values)
    )


@pytest.mark.parametrize(
    "op, dtype, pattern, algorithm",
    [
        ("SUM", "int32", "digits", "ring"),
        ("AVG", "float32", "digits", "ring"),
        ("PRODUCT", "int32", "digits", "ring"),
        ("MIN", "int32", "digits", "ring"),
        ("MAX", "int32", "digits", "ring"),
        ("BAND", "int32", "digits", "ring"),
        ("BOR", "int32", "digits", "ring"),
        ("BXOR", "int32", "digits", "ring"),
        ("AVG", "float32", "random_float", "ring"),
        ("MAX", "int32", "digits", "tree"),
        ("AVG", "float32", "digits", "tree"),
    ],
)
def test_every_number_on_stage_is_the_buffer_and_every_label_adds_up_for_every_op(
    up, lecture, op, dtype, pattern, algorithm
):
    """Ring at one value a chunk, tree at four (the lecture count is the collective's, not the
    algorithm's)."""
    run = up.run(
        collective="all_reduce",
        algorithm=algorithm,
        count=4,
        op=op,
        dtype=dtype,
        group=FOUR,
        **{**LECTURE, "pattern": pattern},
    )
    assert run["state"] == "done" and run["verified"] is True, run["error"]
    page = lecture(run)
    expect(page.locator("#run-title")).to_contain_text(f"all_reduce · {op} · {algorithm}")
    frames = page.evaluate("window.ringside.player.available()")
    assert frames == len(run["steps"]) + (op == "AVG")
    lines = 0
    for step in range(-1, frames):
        go(page, step)
        want = buffers(run, step)
        shown = page.eval_on_selector_all(
            "#stage g.cell:not(.unused)",
            """cs => cs.map(c => [+c.dataset.rank,
            +c.dataset.chunk, JSON.parse(c.dataset.values), c.querySelector('text.value').textContent])""",
        )
        assert {(r, c) for r, c, _, _ in shown} == set(want), f"{op} step {step}: the cells drawn"
        for rank, chunk, values, text in shown:
            assert values == want[rank, chunk], f"{op} step {step} rank {rank} chunk {chunk}"
            assert written_right(text, values), f"{op} step {step} rank {rank}: {text!r} for {values}"
        labels = page.eval_on_selector_all(
            "#stage .arith",
            """gs => gs.map(g =>
            [...g.querySelectorAll('tspan')].map(t => t.textContent).join(' '))""",
        )
        for label in labels:
            for lhs, sign, result in equations(label.replace("\u2212", "-")):  # a true minus
                lines += 1
                worked, said = evaluate(op, lhs), float(result)
                if sign == "=":
                    assert math.isclose(worked, said, rel_tol=1e-9), (
                        f"{op} step {step}: {label!r} does not add up"
                    )
                else:
                    assert math.isclose(worked, said, rel_tol=0.02, abs_tol=0.02), (
                        f"{op} step {step}: {label!r}"
                    )
                    assert pattern == "random_float", f"{op} step {step}: digits need no ≈: {label!r}"
        if step == 1:
            screenshot(page, SHOTS / f"projector-ops-{op}-{pattern}-{algorithm}.png")
    assert lines >= len(run["steps"]) // 2, f"{op}: the reductions say their arithmetic ({lines} lines)"


ROOM = """() => {
    const shown = (id) => document.getElementById(id).getClientRects().length > 0;
    const note = document.querySelector('#stage text.under-floor');
    const cells = [...document.querySelectorAll('#stage g.cell:not(.unused)')];
    return { under: window.ringside.stage.underFloor,
             marked: document.getElementById('stage').hasAttribute('data-under-floor'),
             note: note?.textContent ?? null, formula: shown('formula'), blank: cells.filter(
                 (g) => !g.querySelector('text.value').textContent).length, cells: cells.length };
}"""


def test_a_stage_too_low_for_its_values_takes_the_formulas_room_then_says_so(up, lecture):
    run = up.run(collective="all_to_all", algorithm="pairwise", count=P, **LECTURE)
    page = lecture(run)
    roomy = page.evaluate(ROOM)
    assert roomy["formula"] and not roomy["under"] and not roomy["marked"] and roomy["note"] is None, roomy
    # a stage held too low for any layout (a page around it that leaves no more): the formula line
    # gives its room, and the stage says that is not enough, every number still drawn
    low_stage = page.add_style_tag(content="body.present #stage { flex: none; height: 160px; min-height: 0 }")
    page.wait_for_function("window.ringside.stage.underFloor === true")
    low = page.evaluate(ROOM)
    assert low["marked"] and not low["formula"], low
    assert low["note"] == "values smaller than reads from the back: fewer ranks or a larger screen", low
    assert low["cells"] == P * 2 * P and low["blank"] == 0, f"a number dropped: {low}"
    low_stage.evaluate("(tag) => tag.remove()")
    page.wait_for_function("window.ringside.stage.underFloor === false")
    assert page.evaluate(ROOM) == roomy, "the room given back once the values read again"


APART = """() => {
    const cells = [...document.querySelectorAll('#stage g.cell:not(.unused)')].map((g) => {
        const t = g.querySelector('text.value'), b = t.getBoundingClientRect();
        const edge = g.querySelector('rect.edge').getBoundingClientRect();
        return { text: t.textContent, left: b.left, right: b.right, y: (b.top + b.bottom) / 2,
                 px: parseFloat(t.getAttribute('font-size')) * t.getScreenCTM().a, edge };
    }).filter((c) => c.text);
    const gaps = [];
    for (const a of cells) for (const b of cells) {  // b the next cell along a's row
        if (Math.abs(a.edge.right - b.edge.left) < 1 && Math.abs(a.y - b.y) < 2)
            gaps.push([(b.left - a.right) / a.px, a.text, b.text]);
    }
    return gaps.sort((x, y) => x[0] - y[0]);
}"""


def test_two_cells_values_side_by_side_read_apart(up, page_for):
    """A ring all_reduce's sums, two digits a cell, eight to a card: "36 34", never "3634" (the
    cells' thin edges are lost among their stripes' colours)."""
    run = up.run(collective="all_reduce", algorithm="ring", count=P, **LECTURE)
    page = page_for(f"{up.url}/?token={up.presenter}&run={run['id']}&present=1")  # the strip over the stage
    page.wait_for_function(f"window.ringside.player.run?.id === '{run['id']}'")
    for step in (len(run["steps"]) // 2, len(run["steps"]) - 1):
        go(page, step)
        gaps = page.evaluate(APART)
        assert gaps, "no values side by side: this tells nothing"
        assert gaps[0][0] >= 0.35, f"step {step}: {gaps[0][1]!r} and {gaps[0][2]!r} {gaps[0][0]:.2f} em apart"
    screenshot(page, SHOTS / "projector-values-apart.png")


def test_the_note_that_values_read_too_small_fits_a_narrow_stage(up, lecture):
    run = up.run(collective="all_to_all", algorithm="pairwise", count=P, **LECTURE)
    page = lecture(run)
    page.add_style_tag(
        content="body.present #stage { flex: none; width: 480px; height: 200px; min-height: 0 }"
    )
    page.wait_for_function("window.ringside.stage.underFloor === true")
    inside = page.evaluate("""() => {
        const note = document.querySelector('#stage text.under-floor').getBoundingClientRect();
        const stage = document.getElementById('stage').getBoundingClientRect();
        return [note.left - stage.left, stage.right - note.right]; }""")
    assert min(inside) >= 0, f"the note cut at the stage's edges: {inside} px inside"
