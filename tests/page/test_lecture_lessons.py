"""Every seed lesson from the keyboard alone, in lecture mode at 1280x720, walked in a row as a
lecturer gives them, each asserted on the stage: blocking send against isend on a time row per rank;
node, local and global rank on the cards of a cluster of two nodes; groups (G), the root (X), the
count (, .) and the parameter server's S (S); the seed's inputs and all_to_all's r2c3 (I); the
seed's formulas (M), on a phone following too; a training started (N), one of its steps' gradient
sync opened (Y) and a run exported (E); the keys dialog listing them. Screenshots (RINGSIDE_SHOTS) go to
/tmp/shots-lessons.

The cluster: `ringside serve` and four real gloo ranks, two on each of two host names (a UTS
namespace each, made with unshare: needs root; skips without), all on loopback."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from browser import screenshot
from server_helpers import WORKER_TOKEN, start_serve

from ringside.worker_agent.rank.local import free_port

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

P, PER_NODE = 4, 2
HOSTS = ("node-a", "node-b")
SHOTS = Path("/tmp/shots-lessons")
TRAIN = {"hidden": 8, "steps": 3, "lr": 0.5, "batch": 32}
RUN = "window.ringside.player.run"


def on_node(host: str) -> list[str]:
    """A command's prefix that runs it under host name `host` (its own UTS namespace)."""
    return ["unshare", "-u", "sh", "-c", f'hostname {host} && exec "$@"', "sh"]


@pytest.fixture(scope="module")
def up(tmp_path_factory):
    if not shutil.which("unshare") or subprocess.run([*on_node("probe"), "true"]).returncode:
        pytest.skip("two host names need unshare -u, as root")
    server = start_serve(tmp_path_factory.mktemp("lessons"))
    master = str(free_port())
    ranks = []
    for rank in range(P):
        env = {
            **os.environ,
            "RANK": str(rank),
            "WORLD_SIZE": str(P),
            "LOCAL_RANK": str(rank % PER_NODE),
            "LOCAL_WORLD_SIZE": str(PER_NODE),
            "MASTER_ADDR": "127.0.0.1",
            "MASTER_PORT": master,
            "OMP_NUM_THREADS": "1",
            "RINGSIDE_WORKER_TOKEN": WORKER_TOKEN,
        }
        ranks.append(
            subprocess.Popen(
                [
                    *on_node(HOSTS[rank // PER_NODE]),
                    sys.executable,
                    "-m",
                    "ringside.worker_agent",
                    "--server",
                    server.url,
                ],
                env=env,
                stdin=subprocess.DEVNULL,
            )
        )
    try:
        server.wait_ranks(P)
        yield server
    finally:
        for r in ranks:
            r.terminate()
        for r in ranks:
            r.wait(timeout=30)
        server.stop()


@pytest.fixture
def lecture(up, page_for):
    """The presenter's page in lecture mode, its keys going to the page (no click)."""
    page = page_for(f"{up.url}/?token={up.presenter}&present=1")
    page.wait_for_function(
        "window.ringside?.controls.catalog?.world_size === 4 && window.ringside.state.presenter"
    )
    return page


def press_until(page, key: str, condition: str, most: int = 30) -> None:
    """Press `key` until `condition` (JS) holds."""
    for _ in range(most):
        if page.evaluate(condition):
            return
        page.keyboard.press(key)
    assert page.evaluate(condition), f"{key} {most} times and still not {condition}"


def pick(page, collective: str, algorithm: str | None = None) -> None:
    press_until(page, "]", f"window.ringside.controls.collective === '{collective}'")
    if algorithm:
        press_until(page, "a", f"document.getElementById('field-algorithm').value === '{algorithm}'")


def run(page) -> dict:
    """R, then the run it started once it has ended, on the stage at its result."""
    before = page.evaluate("window.ringside.state.submitted ?? ''")
    page.keyboard.press("r")
    page.wait_for_function(
        f"(s => s.submitted && s.submitted !== '{before}' && {RUN}?.id === s.submitted "
        f"&& s.ended.has({RUN}.state))(window.ringside.state)",
        timeout=60_000,
    )
    page.keyboard.press("End")
    page.wait_for_function("window.ringside.player.step === window.ringside.player.available() - 1")
    got = page.evaluate(RUN)
    assert got["state"] == "done", got.get("error")
    return got


def shot(page, name: str) -> None:
    screenshot(page, SHOTS / f"{name}.png")


# ---- the lessons, each a function the walk calls too


def blocking_against_isend(page) -> None:
    """The sender's wait on its time row: about 0.2 s in blocking send, next to none with isend."""
    pick(page, "send_recv", "blocking")
    run(page)
    calls = page.locator("#calls")
    expect(calls).to_be_visible()
    sender = calls.locator('.call-row[data-rank="0"]')
    assert float(sender.get_attribute("data-blocked")) > 0.1
    expect(sender).to_contain_text("rank 0: send → 1")
    expect(calls.locator('.call-row[data-rank="1"]')).to_contain_text("recv ← 0")
    shot(page, "1-blocking")
    press_until(page, "a", "document.getElementById('field-algorithm').value === 'isend'")
    run(page)
    assert float(sender.get_attribute("data-blocked")) < 0.1, "isend's sender worked on meanwhile"
    expect(calls.locator(".versus")).to_contain_text("blocking")
    expect(calls.locator(".versus")).to_contain_text("isend")
    # the calls' rows take the stage's room, never the strip's: it stays whole, above the stage
    strip, stage = page.locator("#pick").bounding_box(), page.locator("#stage").bounding_box()
    assert strip["y"] + strip["height"] <= stage["y"], "the stage covers the strip"
    assert page.evaluate("(p => p.scrollHeight <= p.clientHeight)(document.getElementById('pick'))"), (
        "the strip is cut short"
    )
    # the rows came after the stage was drawn, shrinking it: it is drawn again, its names still 18 px
    least = page.evaluate(
        "Math.min(...[...document.querySelectorAll('#stage :is(text.name, text.bytes)')]"
        ".map((t) => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a))"
    )
    assert least >= 18, f"a rank's name or bytes at {least:.1f} px on the projector"
    shot(page, "1-isend")


def rank_terms(page) -> None:
    """Node, local and global rank and the world size on every card (two nodes here)."""
    pick(page, "all_reduce", "ring")
    run(page)
    for rank in range(P):
        terms = page.locator(f'#stage text.terms[data-rank="{rank}"]')
        node, local = HOSTS[rank // PER_NODE], rank % PER_NODE
        expect(terms).to_contain_text(f"{node} · local {local} · global {rank}")
        assert terms.evaluate("t => t.getBBox().height") > 12, "a back row reads it"
    shot(page, "2-terms")


def groups_root_count_servers(page) -> None:
    """G: evens, then one per node, greyed on the stage; X: the root; . the count; S: servers."""
    pick(page, "broadcast")
    press_until(page, "g", "document.getElementById('field-group').value === '0,2'")
    first = run(page)
    assert first["group"] == [0, 2]
    expect(page.locator("#stage .card.outside")).to_have_count(2)
    expect(page.locator("#pick")).to_contain_text("ranks 0,2")
    press_until(page, "g", "document.getElementById('caption').textContent.startsWith('group: one per node')")
    assert page.input_value("#field-group") == "0,2", "rank 0 of node-a, rank 2 of node-b"
    press_until(page, "x", "document.getElementById('field-root').value === '2'")
    rooted = run(page)
    assert rooted["spec"]["root"] == 2
    expect(page.locator('#stage .card.root[data-rank="2"]')).to_have_count(1)
    page.keyboard.press(".")
    doubled = run(page)
    assert doubled["spec"]["count"] == 2 * rooted["spec"]["count"]
    shot(page, "3-group-root")
    press_until(page, "g", "document.getElementById('field-group').value === ''")  # all again
    page.keyboard.press(",")
    page.keyboard.press("s")  # picks the parameter server
    assert page.evaluate("window.ringside.controls.collective") == "parameter_server"
    press_until(page, "x", "document.getElementById('field-root').value === '0'")
    page.keyboard.press("s")
    expect(page.locator("#field-servers")).to_have_value("2")
    expect(page.locator("#pick")).to_contain_text("S = 2")
    served = run(page)
    assert served["spec"]["servers"] == 2 and len(served["layout"]["servers"]) == 2
    expect(page.locator("#stage text.name", has_text="server")).to_have_count(2)
    # the seed's words and update: weights w, each worker pushing −η·g, w ← w − η·Σg
    expect(page.locator("#stage text.region", has_text="weights w")).to_have_count(P)
    expect(page.locator("#stage text.region", has_text="−η·g")).to_have_count(P - 2)
    expect(page.locator("#caption")).to_contain_text("w ← w − η·Σg")
    sums = " ".join(page.locator("#stage .sums text").all_text_contents())
    assert "w ← 1 − (5 + 7) = −11" in sums and "w ← 2 − (6 + 8) = −12" in sums, sums
    # three lines of caption: the stage gives way, the caption's last line is not cut under the player
    cut = page.evaluate("(c => c.scrollHeight - c.clientHeight)(document.getElementById('caption'))")
    assert cut <= 1, f"the caption's last line cut by {cut} px"
    shot(page, "3-servers")


def seed_inputs(page) -> None:
    """I: the seed's own inputs; all_to_all with r2c3 says where every value came from."""
    pick(page, "all_to_all")
    press_until(page, "i", "window.ringside.controls.presetPattern === 'origin'")
    expect(page.locator("#pick")).to_contain_text("r2c3")
    run(page)
    for rank in range(P):  # output block j of rank r holds rank j's chunk r
        for j in range(P):
            chunk = P + j
            expect(
                page.locator(f'#stage g.cell[data-rank="{rank}"][data-chunk="{chunk}"] text.value')
            ).to_have_text(f"r{j}c{rank}")
    shot(page, "7-origin")
    press_until(page, "i", "window.ringside.controls.presetPattern === 'own_rank'")
    pick(page, "all_reduce", "ring")
    summed = run(page)
    cells = page.locator("#stage g.cell:not(.unused)")
    values = cells.evaluate_all("cs => cs.map(c => c.dataset.values)")
    assert values and all(v == "[6]" for v in values), "the seed's sum = 6: 0 + 1 + 2 + 3"
    assert summed["spec"]["pattern"] == "own_rank"
    press_until(page, "i", "window.ringside.controls.presetPattern === 'digits'")


def formulas(page) -> None:
    """M over an all_reduce: the seed's three formulas with this N and P, every row measured
    (the presenter's page runs the missing ones), then total, then the busiest link, then off."""
    pick(page, "all_reduce", "ring")
    shown = run(page)
    page.keyboard.press("m")
    box = page.locator("#seed-formulas")
    expect(box).to_be_visible()
    n = shown["spec"]["count"] * 4
    expect(box.locator("h2")).to_contain_text(f"N = {n} B")
    expect(box.locator("h2")).to_contain_text("P = 4")
    seeds = (
        ("master_worker", "(P−1)·N", 3 * n),
        ("ring", "2·(N/P)·(P−1)", 3 * n // 2),
        ("tree", "log2(P)·N", 2 * n),
    )
    for algorithm, formula, value in seeds:
        row = box.locator(f'tr[data-algorithm="{algorithm}"]')
        expect(row).to_contain_text(formula)
        expect(row).to_have_attribute("data-measured", str(value), timeout=60_000)
        expect(row).to_contain_text("✓")
    shot(page, "5-formulas")
    page.keyboard.press("m")
    expect(box).to_have_attribute("data-view", "total")
    expect(box.locator("h2")).to_contain_text("in total")
    expect(box.locator('tr[data-algorithm="ring"]')).to_have_attribute("data-measured", str(6 * n))
    page.keyboard.press("m")
    expect(box).to_have_attribute("data-view", "link")
    expect(box.locator('tr[data-algorithm="master_worker"]')).to_have_attribute("data-measured", str(n))
    shot(page, "5-busiest-link")
    page.keyboard.press("m")
    expect(box).to_be_hidden()


def training_sync_export(page) -> None:
    """N trains (its charts over the stage), Y opens a step's gradient sync on the stage, E exports it."""
    page.wait_for_selector("#train-hidden", state="attached")
    for k, v in TRAIN.items():  # the Train panel's settings, kept small (the form is the mouse's)
        page.evaluate(f"document.getElementById('train-{k}').value = {v}")
    before = page.evaluate("window.ringside.training.shown?.id ?? ''")
    page.keyboard.press("n")
    page.wait_for_function("document.getElementById('train-why').textContent")  # its answer
    assert page.inner_text("#train-why").startswith("t-"), page.inner_text("#train-why")
    page.wait_for_function(
        f"(t => t && t.id !== '{before}' && t.state === 'done')(window.ringside.training.shown)",
        timeout=120_000,
    )
    assert page.evaluate("window.ringside.state.overlay") == "training", page.inner_text("#train-why")
    page.keyboard.press("y")
    page.wait_for_function(
        f"{RUN}?.id.startsWith(window.ringside.training.shown.id) "
        "&& document.getElementById('caption').textContent.includes('step 0')"
    )
    assert page.evaluate("window.ringside.state.overlay") is None, "the stage shows"
    expect(page.locator("#stage .card")).to_have_count(P)
    shot(page, "4-sync")
    with page.expect_download() as got:
        page.keyboard.press("e")
    assert got.value.suggested_filename.endswith(".html")


def formulas_on_a_phone(up, page, page_for) -> None:
    """A phone that follows the presenter shows the seed's formulas' rows as the presenter does, view
    by view, every cell within its width."""
    phone = page_for(f"{up.url}/", viewport=(390, 844))
    phone.wait_for_function("document.getElementById('role').textContent.includes('following')")
    page.keyboard.press("m")
    for view in ("counts", "total"):
        # each page draws a view once it has fetched its numbers: the presenter's read once drawn
        for shown in (page, phone):
            expect(shown.locator("#seed-formulas")).to_have_attribute("data-view", view)
        tree = '#seed-formulas tr[data-algorithm="tree"]'
        measured = page.get_attribute(tree, "data-measured")
        expect(phone.locator(tree)).to_have_attribute("data-measured", measured)
        # every cell within the phone's width, each headed (the table as lines "heading  value")
        right = phone.evaluate(
            "Math.max(...[...document.querySelectorAll('#seed-formulas td')]"
            ".map((td) => td.getBoundingClientRect().right))"
        )
        assert right <= 390, f"a formula's cell ends at {right} px on a 390 px phone"
        page.keyboard.press("m")
    screenshot(phone, SHOTS / "5-formulas-phone.png")
    expect(page.locator("#connection")).to_have_text("live")
    page.keyboard.press("m")  # the busiest link's view, closed
    expect(page.locator("#seed-formulas")).to_be_hidden()


# ---- the walk: every lesson in a row, as a lecturer gives them


def test_the_seed_lecture_walked_from_the_keyboard(up, lecture, page_for):
    for lesson in (
        blocking_against_isend,
        rank_terms,
        groups_root_count_servers,
        seed_inputs,
        formulas,
    ):
        lesson(lecture)
    formulas_on_a_phone(up, lecture, page_for)
    training_sync_export(lecture)
    lecture.keyboard.press("?")  # the keys dialog lists the lessons' keys
    for key in ("G", "X", ", .", "S", "I", "M", "N", "Y", "E"):
        expect(lecture.locator("#keys dt", has_text=key).first).to_be_visible()
    shot(lecture, "keys")
    lecture.keyboard.press("?")
