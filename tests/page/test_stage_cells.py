"""Every cell's value, read from the back row, in a real Chromium against `ringside up` with 8 gloo
ranks: for every layout the stage draws (ring, tree, master-worker, recursive doubling,
Rabenseifner, binomial broadcast and scatter, flat gather, all_gather, reduce_scatter,
all_to_all, barrier, send_recv, the parameter server with 1 and 3 servers), int and float data,
count 8 and 64, and every reduction op among them, and runs on a group of them (the evens, as G
picks: the others keep their cards, greyed), every cell at every step writes its value (or its
values, or their range; a barrier's lane, its rank's arrival) inside its own edges, and so does a
buffer's part label that holds a number (the parameter server's "−η·g (η = 1)"): on a projector
(1280x720, lecture mode) at 18 px or more, on a phone (390x844) at 12 px or more. Short forms are
exact to what they write: "1.0k" is 1000 to two digits, "−15 … −8" a range whose bounds hold every
value. In this machine's fonts and in a second set (browser.py's FONT_SETS), whose
other widths and heights a layout that assumed one font's would not survive. The runs are made
once, through the API; a page per screen opens each of them in turn and reads all its steps in one
evaluate."""

from __future__ import annotations

import itertools
import math
import re

import pytest
from browser import browser_or_skip

playwright_api = pytest.importorskip("playwright.sync_api")

P = 8
pytestmark = pytest.mark.cluster(ranks=P)

LAYOUTS = [  # (collective, algorithm, servers)
    ("all_reduce", "ring", None),
    ("all_reduce", "tree", None),
    ("all_reduce", "master_worker", None),
    ("all_reduce", "recursive_doubling", None),
    ("all_reduce", "rabenseifner", None),
    ("broadcast", "binomial_tree", None),
    ("scatter", "binomial_tree", None),
    ("gather", "flat", None),
    ("all_gather", "ring", None),
    ("reduce_scatter", "ring", None),
    ("all_to_all", "pairwise", None),
    ("barrier", "dissemination", None),
    ("send_recv", "direct", None),
    ("parameter_server", "pull_push", 1),
    ("parameter_server", "pull_push", 3),
]
# On a group of the ranks (lessons.js's G: the evens), whose cards share the stage with the others':
# (collective, algorithm, servers), kind of data, count.
GROUPED = [
    (("parameter_server", "pull_push", 1), "int", 8),
    (("parameter_server", "pull_push", 3), "float", 64),
    (("all_reduce", "ring", None), "float", 64),
]
EVENS = list(range(0, P, 2))
DATA = {
    "int": {"dtype": "int32", "pattern": "index"},
    "float": {"dtype": "float32", "pattern": "random_float"},
}
# Taken in turn by the runs that take an op, so that every op is drawn at both counts.
OPS = {
    "int": ["SUM", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"],
    "float": ["AVG", "SUM", "PRODUCT", "MIN", "MAX"],
}
SCREENS = {"projector": ((1280, 720), True, 18), "phone": ((390, 844), False, 12)}

CELLS = """async ([id, least]) => {
    const run = await (await fetch(`/api/runs/${id}`)).json();
    const { player, stage } = window.ringside;
    // a frame for the page to settle: a caption or formula of another length resizes the stage,
    // which its ResizeObserver draws again in a frame's rendering. A second observer of the stage
    // hears each size as that one does (in the same frames; its border and padding stay as they
    // are meanwhile, so its border box changes with its content box): while the stage's box is
    // the one last heard of, no redraw is to come, and a step needs no frame.
    const settle = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    let heard = null;
    const ear = new ResizeObserver((entries) => {
        const [size] = entries.at(-1).borderBoxSize;
        heard = [size.inlineSize, size.blockSize];
    });
    ear.observe(stage.svg, { box: 'border-box' });
    const resized = () => {
        const { width, height } = stage.svg.getBoundingClientRect();
        return heard === null || width !== heard[0] || height !== heard[1];
    };
    player.load(run);
    player.pause();
    const px = (t) => parseFloat(t.getAttribute('font-size')) * t.getScreenCTM().a;
    const out = [], labels = [];
    for (let k = -1; k < player.available(); k++) {
        player.go(k);
        if (resized()) await settle();
        for (const t of document.querySelectorAll('#stage text.region'))
            labels.push([k, t.textContent, px(t)]);
        for (const g of document.querySelectorAll('#stage g.cell:not(.unused)')) {
            const t = g.querySelector('text.value'), text = t.textContent;
            const values = JSON.parse(g.dataset.values) ?? [];
            const edge = g.querySelector('rect.edge').getBoundingClientRect();
            const box = t.getBoundingClientRect();
            const inside = !text || (box.left >= edge.left - 0.5 && box.right <= edge.right + 0.5
                && box.top >= edge.top - 0.5 && box.bottom <= edge.bottom + 0.5);
            const numbers = values.filter((v) => typeof v === 'number');
            out.push([k, +g.dataset.rank, +g.dataset.chunk, text, text ? px(t) : 0, inside,
                numbers.length ? Math.min(...numbers) : null, numbers.length ? Math.max(...numbers) : null,
                values.length <= 8 ? values : null, g.dataset.arrived ? +g.dataset.arrived : null]);
        }
    }
    ear.disconnect();
    return [out, labels];
}"""

SCALE = {"k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
NUMBER = re.compile(r"^(-?)(\d+(?:\.(\d+))?)(?:e([-+]?\d+))?([kMGT]?)$")


def read(word: str) -> tuple[float, float]:
    """A number as a cell writes it ("−0.46", "1.0k", "2.5e-3"): its value and the unit in its
    last written digit; ValueError for what is no number ("16…", "0–7")."""
    m = NUMBER.match(word.replace("\u2212", "-"))
    if not m:
        raise ValueError(word)
    sign, digits, decimals, exponent, suffix = m.groups()
    scale = 10 ** int(exponent or 0) * SCALE.get(suffix, 1)
    return float(sign + digits) * scale, 10 ** -len(decimals or "") * scale


def writes(text: str, lo, hi, values) -> bool:
    """Whether a cell's text is its values (written), and not something that is no number."""
    try:
        return written(text, lo, hi, values)
    except ValueError:
        return False


def written(text: str, lo, hi, values) -> bool:
    """Whether a cell's text is its values: each written (rounded to its last digit), one value said once
    for a chunk that holds only it, or a range whose bounds hold every value and stray from the
    least and greatest by less than one unit of their last digit."""
    if lo is None:  # nothing captured, or no number (inf, nan): written as the protocol spells it
        return not values or text == " ".join(values)
    if "…" in text:
        low, high = (read(w.strip()) for w in text.split("…"))
        return (
            lo != hi
            and low[0] <= lo < low[0] + low[1] * 1.0001
            and high[0] - high[1] * 1.0001 < hi <= high[0]
        )
    words = text.split()
    if len(words) == 1 and lo == hi:
        words = [words[0]] * (len(values) if values else 1)
        values = values or [lo]
    if values is None or len(words) != len(values):
        return False
    return all(
        math.isclose(v, read(w)[0], abs_tol=read(w)[1] / 2 * 1.0001, rel_tol=0) for w, v in zip(words, values)
    )


def seconds(s: float) -> str:
    """format.js's seconds()."""
    return f"{s:.2f} s" if s >= 1 else f"{s * 1e3:.2f} ms" if s >= 1e-3 else f"{s * 1e6:.1f} µs"


def cells_of(page, run_id: str, least: float) -> tuple[list, list]:
    """Every cell at every step, and every part label: [step, text, px]."""
    return tuple(page.evaluate(CELLS, [run_id, least]))


@pytest.fixture(scope="module")
def runs(up):
    """Every layout, kind of data and count, each run once: [(name, run id)]."""
    made, ops = [], {kind: itertools.cycle(names) for kind, names in OPS.items()}
    catalog = {c["name"]: c for c in up.call("GET", "/api/catalog")[1]["collectives"]}
    every = [(layout, kind, count, None) for layout, kind, count in itertools.product(LAYOUTS, DATA, (8, 64))]
    every += [(layout, kind, count, EVENS) for layout, kind, count in GROUPED]
    for (collective, algorithm, servers), kind, count, group in every:
        spec = {"collective": collective, "algorithm": algorithm, "count": count, **DATA[kind]}
        if servers:  # a model in S equal shards: the count rounded up to them
            spec.update(servers=servers, count=-(-count // servers) * servers)
        if catalog[collective]["reduces"] and not servers:
            spec["op"] = next(ops[kind])
        if group:
            spec["group"] = group
        run = up.run(capture="full", iterations=1, warmup=0, **spec)
        served = f" S={servers}" if servers else ""
        grouped = f" on {group}" if group else ""
        name = f"{collective} {algorithm}{served} {kind} {spec.get('op', '')} {count}{grouped}"
        assert run["state"] == "done" and run["verified"] is not False, (name, run["error"])
        made.append((name, run["id"]))
    return made


@pytest.fixture(scope="module", params=["noto", "swapped"])
def fonts_browser(request, playwright):
    b = browser_or_skip(playwright, request.param)
    yield b
    b.close()


@pytest.mark.parametrize("screen", SCREENS)
def test_every_cell_writes_its_value_at_a_size_the_room_reads(up, runs, fonts_browser, screen):
    (width, height), lecture, least = SCREENS[screen]
    page = fonts_browser.new_page(viewport={"width": width, "height": height})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    first = runs[0][1]
    page.goto(f"{up.url}/?run={first}" + ("&present=1" if lecture else ""))
    page.wait_for_function(f"window.ringside?.player.run?.id === '{first}'")
    unread, small, cells, smallest = [], [], 0, math.inf
    for name, run_id in runs:
        drawn, labels = cells_of(page, run_id, least)
        # a label's numbers ("η = 1") are read like the values; words alone may give the values room
        small += [
            f"{name}: step {step} label {text!r} at {px:.1f} px"
            for step, text, px in labels
            if re.search(r"\d", text) and px < least - 0.05
        ]
        for step, rank, chunk, text, px, inside, lo, hi, values, came in drawn:
            cells += 1
            where = f"{name}: step {step} rank {rank} chunk {chunk} {text!r}"
            # a barrier's cell is its rank's lane: when it arrived, as recorded (test_lecture_keys.py)
            said = text == f"arrived {seconds(came)}" if came is not None else writes(text, lo, hi, values)
            if (not text and values != []) or not inside or not said:
                unread.append(f"{where} for {values if values is not None else (lo, hi)} (inside: {inside})")
            elif px < least - 0.05:
                small.append(f"{where} at {px:.1f} px")
            if text:
                smallest = min(smallest, px)
    page.close()
    print(f"{screen}: {cells} cells, the smallest value at {smallest:.1f} px")
    assert errors == [], errors
    assert unread == [], f"{len(unread)} of {cells} cells without their value drawn: {unread[:12]}"
    assert small == [], f"{len(small)} of {cells} values or labels under {least} px: {small[:12]}"
