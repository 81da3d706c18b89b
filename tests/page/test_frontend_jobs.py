"""The Jobs view (J) in a real Chromium against a real server watching real jobs: users' own gloo
programs under torchrun with the `ringside.watch` reporter beside each of their 2 ranks. A DDP
training's lanes grow a mark per rank as its collectives arrive, its buckets named; a loop whose
rank 1 is stopped (SIGSTOP) gets the hang banner naming that rank, which clears once it goes on
(SIGCONT). While it hangs, and once it is over, the view switched to Korean and to Chinese holds no
English word: the hang's words and the job's events are said in the page's language. The list is
walked with the keyboard alone; the view fits lecture mode and a phone."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from distributed import stop_torchrun
from page_words import ALLOWED, SEED_TERMS, SEEN, english_left
from server_helpers import WORKER_TOKEN, start_serve

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

P = 2
ROOT = Path(__file__).resolve().parents[2]
DDP = ROOT / "examples" / "ddp_train.py"
LOOP = ROOT / "tests" / "fixtures" / "watched_loop.py"
ARTIFACTS = ROOT / "artifacts" / "screenshots"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    up = start_serve(tmp_path_factory.mktemp("jobs"))
    yield up
    up.stop()


def watch(server, *program: str, **env: str) -> subprocess.Popen:
    """`torchrun --nproc-per-node=2 -m ringside.watch --server URL PROGRAM…`, in a session of its own."""
    cmd = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--standalone",
        f"--nproc-per-node={P}",
        "-m",
        "ringside.watch",
        "--server",
        server.url,
        *program,
    ]
    return subprocess.Popen(
        cmd,
        env={**os.environ, "RINGSIDE_WORKER_TOKEN": WORKER_TOKEN, "OMP_NUM_THREADS": "1", **env},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        start_new_session=True,
    )


MARKS = (
    "r => [...document.querySelectorAll('#job-lanes .marks path:not(.span)')]"
    ".filter(p => p.dataset.ranks.split(',').includes(String(r))).length"
)


def marks(page) -> list[int]:
    """The collectives drawn on each rank's lane."""
    return [page.evaluate(MARKS, r) for r in range(P)]


def grows(page, before: list[int]) -> None:
    """Every lane gains marks, the job still running."""
    page.wait_for_function(
        f"() => [...Array({P}).keys()].every(r => ({MARKS})(r) > {before}[r])", timeout=60_000
    )


def switch(page, lang: str) -> None:
    """The header's picker set to `lang`, as a hand would (lecture mode hides the header)."""
    picker = (
        "l => { const s = document.getElementById('lang'); s.value = l;"
        " s.dispatchEvent(new Event('change')); }"
    )
    page.evaluate(picker, lang)
    page.wait_for_function("l => document.documentElement.lang === l", arg="zh-CN" if lang == "zh" else lang)


def english_in_jobs(page, lang: str) -> dict[str, list[str]]:
    """The English words left in the jobs view's visible text and titles, but the names the job gives
    (its script, backend, hosts, launcher, ops) and what every language keeps."""
    names = page.evaluate("""() => { const d = window.ringside.watched.shown;
        return [d.job.backend, ...d.ranks.flatMap((r) => [r.host, ...r.launcher.split(' ')]),
          ...d.collectives.map((c) => c.op)]; }""")
    allowed = ALLOWED | SEED_TERMS[lang] | set(names)
    found = {}
    for text in page.evaluate(SEEN, "#jobs"):
        if words := english_left(text, allowed):
            found[text[:160]] = words
    return found


def in_korean_and_chinese(page, shots: str) -> None:
    """The jobs view in Korean, then Chinese, holds no English word (each screenshot), then in English."""
    left = {}
    for lang in ("ko", "zh"):
        switch(page, lang)
        if found := english_in_jobs(page, lang):
            left[lang] = found
        page.screenshot(path=str(ARTIFACTS / f"{shots}-{lang}.png"))
    switch(page, "en")
    assert left == {}, "\n".join(
        f"{lang}: {text} {words}" for lang, found in left.items() for text, words in found.items()
    )


def test_watched_jobs_draw_live_name_a_stopped_rank_and_walk_by_keyboard(server, page_for, tmp_path):
    page = page_for(f"{server.url}/?token={server.presenter}&present=1")  # lecture mode, 1280x720
    expect(page.locator("#role")).to_have_text("presenter")
    page.keyboard.press("j")
    expect(page.locator("#jobs")).to_be_visible()
    expect(page.locator("#jobs-status")).to_contain_text("No watched job yet")

    # A DDP training: it opens itself as it starts (the page follows live), its lanes grow.
    ddp = watch(server, "--ddp-hook", str(DDP), "--steps", "80", "--width", "256", "--pace", "0.1")
    try:
        title = page.locator("#job-title")
        expect(title).to_contain_text("ddp_train.py", timeout=60_000)
        expect(title.locator(".pill")).to_have_text("running")
        page.wait_for_function(f"() => [...Array({P}).keys()].every(r => ({MARKS})(r) > 0)", timeout=60_000)
        grows(page, marks(page))
        expect(page.locator("#job-ranks .rank-row")).to_have_count(P)
        # a cell each: rank, local rank, state and place, reports (two bare texts made one 5em cell)
        expect(page.locator("#job-ranks .rank-row").first.locator("> span")).to_have_count(4)
        expect(page.locator("#job-ranks .rank-row").first.locator("> span").nth(1)).to_have_text(
            f"local 0/{P}"
        )
        buckets = page.locator("#job-recent td[data-head=bucket]")
        expect(buckets.filter(has_text=re.compile(r"weight|bias")).first).to_be_visible()
        assert ddp.wait(120) == 0
    finally:
        stop_torchrun(ddp)
    expect(title.locator(".pill")).to_have_text("done", timeout=30_000)
    expect(page.locator("#job-totals td[data-head=op]").first).to_be_visible()
    first = page.evaluate("window.ringside.watched.job.id")
    _, trace = server.call("GET", f"/api/watched/{first}/trace")
    assert trace["traceEvents"], "its trace has events"
    assert page.get_attribute("#job-trace", "href") == f"/api/watched/{first}/trace"

    # A loop whose rank 1 is stopped: the banner names it at once, and clears when it goes on.
    until = tmp_path / "stop"
    loop = watch(server, str(LOOP), WATCHED_UNTIL=str(until))
    try:
        expect(title).to_contain_text("watched_loop.py", timeout=60_000)
        page.wait_for_function(f"() => [...Array({P}).keys()].every(r => ({MARKS})(r) > 3)", timeout=60_000)
        job = page.evaluate("window.ringside.watched.job.id")
        _, detail = server.call("GET", f"/api/watched/{job}?limit=1")
        pid = next(r["pid"] for r in detail["ranks"] if r["rank"] == 1)
        os.kill(pid, signal.SIGSTOP)
        banner = page.locator("#job-hang")
        expect(banner).to_have_attribute("data-state", "hang", timeout=30_000)
        expect(banner).to_have_attribute("role", "alert")
        expect(banner).to_contain_text("rank 1 ")
        expect(banner).to_contain_text("rank 0 ")
        expect(page.locator('#job-ranks .rank-row[data-rank="1"]')).to_have_attribute("data-late", "")
        expect(page.locator("#job-names .late")).to_have_text("rank 1")
        box = banner.bounding_box()
        assert box["y"] + box["height"] <= 720, "the banner is on the projector's screen"
        assert float(banner.evaluate("b => getComputedStyle(b).fontSize").removesuffix("px")) >= 20
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "jobs-hang-lecture.png"))
        in_korean_and_chinese(page, "jobs-hang")
        before = marks(page)
        os.kill(pid, signal.SIGCONT)
        expect(banner).to_have_attribute("data-state", "clear", timeout=30_000)
        expect(banner).to_contain_text("caught up")
        in_korean_and_chinese(page, "jobs-caught-up")
        expect(page.locator("#job-names .late")).to_have_count(0)
        grows(page, before)
        until.touch()
        assert loop.wait(60) == 0
    finally:
        stop_torchrun(loop)
    expect(title.locator(".pill")).to_have_text("done", timeout=30_000)

    # The keyboard alone: to the list, down to the older job, Enter opens it.
    rows = page.locator("#job-list button")
    expect(rows).to_have_count(2)
    rows.first.focus()
    page.keyboard.press("ArrowDown")
    expect(rows.nth(1)).to_be_focused()
    page.keyboard.press("Enter")
    expect(title).to_contain_text(first)
    expect(rows.nth(1)).to_have_attribute("aria-current", "")
    lanes = page.locator("#job-lanes")
    lanes.focus()
    page.keyboard.press("End")
    expect(page.locator("#job-mark")).to_contain_text(re.compile(r"#\d+ \(group \d+\)"))
    page.keyboard.press("j")
    expect(page.locator("#jobs")).to_be_hidden()

    # A phone: the view in one column, nothing wider than the screen.
    phone = page_for(f"{server.url}/", viewport=(390, 844))
    phone.locator("#jobs-open").click()
    expect(phone.locator("#job-title")).to_contain_text("watched_loop.py")
    expect(phone.locator("#job-lanes")).to_be_visible()
    assert phone.evaluate("document.getElementById('bottom').scrollWidth <= innerWidth")
    phone.screenshot(path=str(ARTIFACTS / "jobs-phone.png"))
