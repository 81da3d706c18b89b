"""The frontend's pure logic (replay, layouts) under node's own test runner, and what the page
may not know: collective and algorithm names."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from ringside.worker_agent.core.catalog import catalog
from ringside.worker_agent.core.protocol import RunSpec
from ringside.worker_agent.core.run_shape import layout_of

ROOT = Path(__file__).resolve().parents[2]


def test_javascript_unit_tests_pass():
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    done = subprocess.run(
        [node, "--test", str(ROOT / "tests" / "js")], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "# fail 0" in done.stdout


def test_the_frontend_stays_small():
    """The project's own JS and CSS (plotly.js is served from the installed package). 324 KiB since
    the page went into folders by feature, its stateful parts into classes, and main.js into the parts it
    wires (their imports and constructors: 7.5 KiB, no new behaviour); 316 KiB since
    a phone's formulas are drawn again when it takes the presenter's run, and a watched job's rank
    rows have a cell each; 315 KiB since
    its lines were wrapped under 110 characters (whitespace only: 2.4 KiB); 312 KiB since
    a lecturer's pass on them (the strip's and the caption's room, phase labels at 18 px, Home and
    End in an exported page, the formulas as lines on a phone); 308 KiB since
    the seed's lessons from the keyboard (issue 20: lessons.js, seed-formulas.js, calls.js,
    lessons.css: groups, root, count, S, inputs, the formulas, training and export by key: 19 KiB);
    288 KiB since the page speaks Korean and Chinese (issue 20, i18n.js and its two tables: 46 KiB,
    most of it the tables' words at three bytes a character); 240 KiB since a lecturer's pass
    (issue 20: projector-sized names and bytes, "≈" where a label rounds, keys after a mouse touch, a
    viewer's copy of a run held for a poll read again at the reveal); 236 KiB since the hall's QR
    code (K); 232 KiB since the polls (issue 20, polls.js: the question's card, votes, the tally,
    the reveal, the stage held); 216 KiB since the watched-jobs view (issue 19, jobs.js); 200 KiB
    held everything before them."""
    size = sum(
        p.stat().st_size for p in (ROOT / "frontend").rglob("*") if p.suffix in (".js", ".css", ".html")
    )
    assert size < 324 * 1024, f"{size} bytes"


@pytest.mark.parametrize(
    "collective, algorithm, shape",
    [
        ("all_reduce", "ring", "ring"),
        ("barrier", "dissemination", "ring"),
        ("all_reduce", "tree", "tree"),
        ("broadcast", "binomial_tree", "tree"),
        ("all_reduce", "master_worker", "star"),
        ("broadcast", "flat", "star"),
        ("all_to_all", "pairwise", "grid"),
    ],
)
def test_each_algorithm_is_drawn_in_the_shape_its_schedule_names(collective, algorithm, shape):
    """The page draws the layout hint the server gives a run (layout.js knows no algorithm)."""
    assert layout_of(RunSpec(collective=collective, algorithm=algorithm), 4)["shape"] == shape


def test_the_page_names_no_collective_or_algorithm():
    """What a collective or algorithm needs drawn comes from the run and the catalog, so no
    string in the page's code names one."""
    entries = catalog("gloo", 4)["collectives"]
    names = {e["name"] for e in entries} | {a for e in entries for a in e["algorithms"]}
    literals = re.compile(r"""(["'`])(\w+)\1""")
    named = [
        (p.name, m.group(2))
        for p in (ROOT / "frontend" / "js").rglob("*.js")
        for m in literals.finditer(p.read_text())
        if m.group(2) in names
    ]
    assert named == []
