"""A fresh lecturer's walk through the seed lecture, in a real Chromium against `ringside up` with
4 gloo ranks: the barrier's title names the int64 its flags travel in (its bytes are 8 a
message); S after a bitwise all_reduce opens the parameter server on SUM, the update its caption
writes (w ← w − η·Σg), O never offers it the AVG the server refuses, and a refused R says why
over the stage (lecture mode hides the form); G to the odd ranks runs (all_reduce, all_to_all:
the root the server wants in the group; send_recv: the peer off the new root); on the projector
the parameter server's words (weights w, −η·g) and its updates read at 18 px or more, over no
name, byte count or value; on a phone every server keeps its "· server". Screenshots (RINGSIDE_SHOTS) go to
/tmp/shots/ (not committed)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from browser import go, ready_for_keys, screenshot

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

PHONE, PROJECTOR = (390, 844), (1280, 720)
LECTURE = {"capture": "full", "pattern": "digits", "iterations": 1, "warmup": 0}
SHOTS = Path("/tmp/shots")
LEAST_PX = 18

WORDS = """() => {
    const q = (s) => [...document.querySelectorAll(s)];
    const px = (t) => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a;
    const box = (e) => e.getBoundingClientRect();
    const hit = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5
        && b.top < a.bottom - 0.5;
    const regions = q('#stage text.region'), sums = q('#stage .sum text');
    const others = q('#stage text.name, #stage text.bytes, #stage g.cell:not(.unused) text.value')
        .filter((t) => t.textContent);
    const crossed = [];
    regions.forEach((r) => others.forEach((o) =>
        hit(box(r), box(o)) && crossed.push([r.textContent, o.textContent])));
    const outside = regions.filter((r) => !hit(box(r), box(r.closest('svg').querySelector(
        `.card[data-rank="${r.dataset.rank}"] rect.frame`)))).length;
    return { regions: regions.map((t) => [t.textContent, px(t)]),
             sums: sums.map((t) => [t.textContent, px(t)]),
             names: q('#stage text.name').map((t) => t.textContent), crossed, outside };
}"""


def open_run(page_for, up, run, viewport=PROJECTOR, present=True):
    page = page_for(
        f"{up.url}/?token={up.presenter}&run={run['id']}" + ("&present=1" if present else ""),
        viewport=viewport,
    )
    page.wait_for_function(
        f"window.ringside.player.run?.id === '{run['id']}' && window.ringside.player.run.state === 'done'",
        timeout=60_000,
    )
    page.evaluate("window.ringside.player.pause()")
    return page


def test_the_barrier_names_the_int64_its_flags_travel_in(up, page_for):
    run = up.run(collective="barrier", algorithm="dissemination", count=1, **LECTURE)
    assert run["state"] == "done" and run["display"]["itemsize"] == 8, run["error"]
    page = open_run(page_for, up, run)
    title = page.locator("#run-title")
    expect(title).to_contain_text("barrier · BOR · dissemination · 4 ranks · 1 × int64")
    go(page, len(run["steps"]) - 1)  # two messages of 8 B each way
    expect(page.locator("#stage text.bytes").first).to_have_text("↑16 ↓16 B")


def test_s_after_a_bitwise_all_reduce_opens_the_parameter_server_on_sum(up, page_for):
    page = page_for(f"{up.url}/?token={up.presenter}&present=1", viewport=PROJECTOR)
    ready_for_keys(page, up)
    names = page.evaluate("window.ringside.controls.catalog.collectives.map(c => c.name)")
    page.keyboard.press(str((names.index("all_reduce") + 1) % 10))
    pick = page.locator("#pick")
    expect(pick).to_have_text(re.compile(r"^all_reduce · "))
    for _ in range(len(page.evaluate("window.ringside.controls.catalog.ops"))):
        if " · BXOR · " in pick.inner_text():
            break
        page.keyboard.press("o")
        page.wait_for_function("document.getElementById('pick').textContent.includes(' · ')")
    expect(pick).to_contain_text(" · BXOR · ")
    page.keyboard.press("s")
    expect(pick).to_have_text(re.compile(r"^parameter_server · pull_push · .* · SUM · "))
    posting = page.expect_response(lambda r: r.url.endswith("/api/runs") and r.request.method == "POST")
    with posting as posted:
        page.keyboard.press("r")
    run = up.wait(posted.value.json()["id"])
    assert run["spec"]["op"] == "SUM" and run["state"] == "done", run["spec"]
    expect(page.locator("#run-title")).to_contain_text("parameter_server · SUM · pull_push")


def test_o_on_the_parameter_server_skips_avg_and_a_refused_r_says_why_on_stage(up, page_for):
    page = page_for(f"{up.url}/?token={up.presenter}&present=1", viewport=PROJECTOR, allow=("422",))
    ready_for_keys(page, up)
    page.keyboard.press("s")
    pick = page.locator("#pick")
    expect(pick).to_have_text(re.compile(r"^parameter_server · .* · SUM · "))
    ops = ["SUM"]
    for _ in range(len(page.evaluate("window.ringside.controls.catalog.ops")) - 1):
        page.keyboard.press("o")
        page.wait_for_function(f"window.ringside.controls.picked()[1].op !== '{ops[-1]}'")
        ops.append(page.evaluate("window.ringside.controls.picked()[1].op"))
    assert "AVG" not in ops and ops[-1] == "SUM", f"O went {ops}: the server refuses AVG here"
    # A run the server refuses (AVG, set as a mouse would): the form is hidden, the caption says why.
    page.evaluate("""() => { const f = document.getElementById('spec').elements;
        f.dtype.value = 'float32'; f.op.disabled = false; f.op.options[[...f.op.options]
        .findIndex((o) => o.value === 'AVG')].disabled = false; f.op.value = 'AVG'; }""")
    page.keyboard.press("r")
    expect(page.locator("#caption")).to_contain_text("Not run: ")
    expect(page.locator("#caption")).to_contain_text("AVG")


@pytest.mark.parametrize("collective", ["all_reduce", "all_to_all", "send_recv"])
def test_g_to_the_odd_ranks_runs_what_r_runs(up, page_for, collective):
    """G twice (evens, then odds: rank 0 out): the run goes, the root and a peer moved into the group."""
    page = page_for(f"{up.url}/?token={up.presenter}&present=1", viewport=PROJECTOR)
    ready_for_keys(page, up)
    names = page.evaluate("window.ringside.controls.catalog.collectives.map(c => c.name)")
    page.keyboard.press(str((names.index(collective) + 1) % 10))
    page.wait_for_function(f"window.ringside.controls.picked()[0] === '{collective}'")
    for group in ("0,2", "1,3"):
        page.keyboard.press("g")
        page.wait_for_function(f"window.ringside.controls.picked()[1].group === '{group}'")
    posting = page.expect_response(lambda r: r.url.endswith("/api/runs") and r.request.method == "POST")
    with posting as posted:
        page.keyboard.press("r")
    assert posted.value.status == 202, posted.value.json()
    run = up.wait(posted.value.json()["id"])
    assert run["state"] == "done" and run["group"] == [1, 3], (run["spec"], run["error"])
    page.wait_for_function(f"window.ringside.player.run?.id === '{run['id']}'")
    expect(page.locator("#stage .card.outside")).to_have_count(2)


@pytest.mark.parametrize("servers", [1, 2, 3])
def test_the_parameter_servers_words_and_updates_read_at_the_back(up, page_for, servers):
    run = up.run(
        collective="parameter_server", algorithm="pull_push", servers=servers, count=servers, **LECTURE
    )
    assert run["state"] == "done" and run["verified"] is True, run["error"]
    page = open_run(page_for, up, run)
    updates = 0
    for step in range(-1, len(run["steps"])):
        go(page, step)
        seen = page.evaluate(WORDS)
        said = f"S = {servers} step {step}: {seen}"
        assert seen["regions"] and min(px for _, px in seen["regions"]) >= LEAST_PX, said
        assert all(px >= LEAST_PX for _, px in seen["sums"]), said
        assert seen["crossed"] == [] and seen["outside"] == 0, said
        updates += sum(text.startswith("w ← ") for text, _ in seen["sums"])
    assert updates == servers, "every server's update written as the seed writes it"
    screenshot(page, SHOTS / f"walk-parameter-server-{servers}.png")
    phone = open_run(page_for, up, run, viewport=PHONE, present=False)
    go(phone, len(run["steps"]) - 1)
    names = phone.evaluate(WORDS)["names"]
    assert sorted(n for n in names if n.endswith(" · server")) == [
        f"rank {r} · server" for r in range(servers)
    ], names
    screenshot(phone, SHOTS / f"walk-parameter-server-{servers}-phone.png")


NOTES = """() => [...document.querySelectorAll('#stage g.cell.spare')].map((c) => {
    const t = c.querySelector('text.note');
    return [+c.dataset.rank, t.textContent, t.textContent ? parseFloat(getComputedStyle(t).fontSize)
        * t.getScreenCTM().a : null]; })"""


def test_a_reduces_not_output_reads_at_the_back_or_is_left_to_the_hatching(up, page_for):
    """A reduce at 4 ranks: the tree's short cards have no room for "not output" at 18 px; on a
    projector it is then not written at 11 px (the hatching says it), on a phone it stays."""
    run = up.run(collective="reduce", algorithm="binomial_tree", count=1, **LECTURE)
    assert run["state"] == "done" and run["verified"] is True, run["error"]
    page = open_run(page_for, up, run)
    go(page, len(run["steps"]) - 1)
    notes = page.evaluate(NOTES)
    assert len(notes) == 3, f"the three ranks but the root hold no output: {notes}"
    small = [n for n in notes if n[1] and n[2] < LEAST_PX]
    assert small == [], f"'not output' under {LEAST_PX} px on the projector: {notes}"
    phone = open_run(page_for, up, run, viewport=PHONE, present=False)
    go(phone, len(run["steps"]) - 1)
    assert all(text == "not output" for _, text, _ in phone.evaluate(NOTES)), "a phone still says it"
