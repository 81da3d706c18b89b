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
    """The project's own JS and CSS that a page loads (plotly.js is served from the installed
    package), unminified and shipped as they are: a budget, so that a change that grows the page
    says why in its commit. A page loads one language's table at most, when it is shown in that
    language (i18n.js imports it then), so the largest counts: every word a page can show, in
    Korean or Chinese, is about a sixth of the page; 348 KiB since they hold every word, 360 since a
    question is asked before its run (the poll card's states, its ballot, timer and typed answers), 368
    since a lesson's stage shows beside the stage (its caption, code and what its ranks print), 370
    since an exported run carries its policy, the hashes of its scripts (sha256.js), 396 since every
    cell's value is measured in the fonts the page chose and given room (measure.js, grid.js), and
    the first screen draws the pick's inputs before any run; 408 since a phone practises a run alone,
    a question a step, and the presenter charts how the room did (practice.js, practice-chart.js); 420
    since the lecture's keys pick the training method and show every method's training side by side
    (W, V); 428 since a barrier's ranks are drawn arriving, waiting and released (arrivals.js); 444
    since B and Z show the nodes and how ranks start in the seeds' terms (hosts.js, launchers.js); 452
    since a watched job's lanes fold its ranks by node so that thousands read on one screen
    (watched-lanes.js); 464 since a watched job's hangs and events are said in the page's language, from
    the server's phrases (phrases.js, en.js and the tables' phrases); 472 since a preset's prediction,
    its links and its sources, read in Korean and Chinese too (predict.js's sentences in ko.js, zh.js);
    476 since a lecturer's pass: a question's printed output held on the projector too, values apart
    and at the back row's size on a narrow stage, keys left to the page on a control reached with Tab;
    480 since the run list is kept from the feed (no page asks for it again) and the stage's
    placement and the run form stand in modules of their own; 488 since the lecturer asks their own
    question from a form (poll-form.js, its words in ko.js and zh.js); 492 since AVG's division is
    written by one rule (the average to its sum's place) and the strip over the stage names the run
    on it (strip.js); 496 since the presenter is told of a sealed question's rehearsals and its fresh
    seed (the poll card's words), a step lands without flying where less motion is asked, and a
    typed world size outlives the Run panel's redraw."""
    files = [p for p in (ROOT / "frontend").rglob("*") if p.suffix in (".js", ".css", ".html")]
    tables = [p.stat().st_size for p in files if p.parent.name == "i18n" and p.name in ("ko.js", "zh.js")]
    assert len(tables) == 2
    size = sum(p.stat().st_size for p in files) - sum(tables) + max(tables)
    assert size < 496 * 1024, f"{size} bytes"


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
