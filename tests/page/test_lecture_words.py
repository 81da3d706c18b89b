"""Every word a page shows in Korean and in Chinese, in a real Chromium against `ringside up` with
4 gloo ranks: the presenter's page at 1280x720 in lecture mode walks the seed lecture from the keys
(every collective picked, A O P I X , . G S, runs on the stage, M three times, C, T, N, Y, J, B, Z, K, ?,
a poll asked and revealed, D, send/recv's call rows, a barrier, a refused R), then the page out of
lecture mode with every panel, and an exported run's page. After each step, in the language the step
was taken in and then switched to the other (Korean and Chinese, in turn), the page's visible text,
its titles and the stage's hovers may hold no English word but the few a lecture keeps as they are
(ALLOWED: names the catalog and cluster give, the seeds' own English terms, key caps, units); a
server's refusal is said in the page's language too.
Screenshots (RINGSIDE_SHOTS) of the M overlay, the send/recv rows and a parameter-server step:
/tmp/shots-words/."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from browser import PAINTED, ready_for_keys, screenshot, switch_language
from page_words import ALLOWED, SEED_TERMS, SEEN, english_left

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

PROJECTOR = (1280, 720)
SHOTS = Path("/tmp/shots-words")
TRAIN = {"hidden": 8, "steps": 3, "lr": 0.5, "batch": 32}
RUN = "window.ringside.player.run"


def allowed_on(page) -> set[str]:
    """ALLOWED, and the names the page is given: collectives and their phases' hyphenated forms,
    algorithms, ops (also as arithmetic writes them: max(3, 4)), dtypes, methods, hosts, launchers."""
    given = page.evaluate("""async () => {
        const c = window.ringside.controls.catalog, cluster = await (await fetch('/api/cluster')).json();
        return [...c.collectives.flatMap((e) => [e.name, ...e.algorithms]), ...c.ops, ...c.dtypes,
          ...c.training.methods, ...cluster.ranks.flatMap((r) => [r.host, ...(r.launcher ?? '').split(' ')])];
    }""")
    names = {n for n in given if n}
    return ALLOWED | names | {n.replace("_", "-") for n in names} | {n.lower() for n in names}


class Walk:
    """The presenter's page, its words checked in both languages after each step of the walk."""

    def __init__(self, page, allowed: set[str], misses: list[str]):
        self.page, self.allowed, self.misses, self.checked = page, allowed, misses, []

    def left(self, lang: str) -> dict[str, list[str]]:
        allowed = self.allowed | SEED_TERMS[lang]
        found = {}
        for text in self.page.evaluate(SEEN):
            words = english_left(text, allowed)
            if words:
                found[text[:160]] = words
        return found

    def check(self, what: str) -> None:
        """What is left in English once the page has settled, with the step that showed it: first in
        the language the step was taken in (the words it wrote, translated as they came), then in the
        other, switched to (the whole page translated again, its charts drawn again); the next step is
        taken in that one."""
        first = "zh" if self.page.evaluate("document.documentElement.lang") == "zh-CN" else "ko"
        for lang in (first, "ko" if first == "zh" else "zh"):
            if lang != first:
                switch_language(self.page, lang)
            deadline = time.monotonic() + 8
            while (found := self.left(lang)) and time.monotonic() < deadline:
                self.page.evaluate(PAINTED)  # looked at again once the page has drawn since
            if found:
                self.misses.append(f"{lang} after {what}: {found}")
        self.checked.append(what)

    def press(self, key: str, what: str | None = None, until: str | None = None) -> None:
        self.page.keyboard.press(key)
        if until:
            self.page.wait_for_function(until, timeout=60_000)
        self.check(what or key)

    def run(self, what: str) -> str:
        """R: the pick runs and its result is on the stage."""
        page = self.page
        posted = page.expect_response(lambda r: r.url.endswith("/api/runs") and r.request.method == "POST")
        with posted as done:
            page.keyboard.press("r")
        run_id = done.value.json()["id"]
        page.wait_for_function(f"{RUN}?.id === '{run_id}' && {RUN}.state === 'done'", timeout=60_000)
        page.evaluate("window.ringside.player.pause()")
        page.keyboard.press("End")
        page.wait_for_function("!window.ringside.stage.pending")
        self.check(what)
        return run_id


def pick(walk: Walk, collective: str) -> None:
    names = walk.page.evaluate("window.ringside.controls.catalog.collectives.map(c => c.name)")
    walk.page.keyboard.press(str((names.index(collective) + 1) % 10))
    walk.page.wait_for_function(f"window.ringside.controls.picked()[0] === '{collective}'")


def algorithm(walk: Walk, name: str) -> None:
    for _ in range(12):
        if walk.page.evaluate("window.ringside.controls.picked()[1].algorithm") == name:
            return
        walk.page.keyboard.press("a")
    raise AssertionError(f"A never reached {name}")


def test_every_word_of_the_lecture_reads_in_korean_and_chinese(up, page_for, tmp_path):
    page = page_for(
        f"{up.url}/?token={up.presenter}&present=1&lang=ko", viewport=PROJECTOR, allow=("status of 422",)
    )
    ready_for_keys(page, up)
    walk = Walk(page, allowed_on(page), [])
    walk.check("the page opened")
    names = page.evaluate("window.ringside.controls.catalog.collectives.map(c => c.name)")
    for i, name in enumerate(names[:10]):  # every collective the digits pick, and the strip that says it
        walk.press(str((i + 1) % 10), f"{name} picked", f"window.ringside.controls.picked()[0] === '{name}'")
    walk.press("]", "] to the next collective")

    pick(walk, "broadcast")
    walk.run("a broadcast run")
    walk.press("Home", "the inputs")
    for key in ("a", "a", "p", "i", "i", "i", "x", ",", ".", "p"):
        walk.press(key, f"{key} on the strip")

    pick(walk, "all_reduce")
    for _ in range(3):
        walk.press("o", "O: the next op")
    algorithm(walk, "auto")
    walk.run("auto's choice, and why (the title)")
    algorithm(walk, "ring")
    walk.press("g", "G: a group", "window.ringside.controls.picked()[1].group === '0,2'")
    walk.run("a run of the evens, the others greyed")
    for _ in range(3):  # odds, first half, all
        walk.press("g", "G again")
    walk.run("an all_reduce ring")
    for view in ("counts", "total", "link"):  # the seed's formulas, their rows measured meanwhile
        walk.press("m", f"M: {view}", "document.querySelector('#seed-formulas table tr[data-measured]')")
        if view == "counts":
            screenshot(page, SHOTS / "m-overlay.png")
    walk.press("m", "M closed", "window.ringside.state.overlay === null")
    walk.press("c", "C: bytes against P", "document.getElementById('compare').dataset.drawn !== undefined")
    walk.press("c", "C closed")
    walk.press("t", "T before any training")
    walk.press("t", "T closed")

    walk.press("s", "S: the parameter server", "window.ringside.controls.picked()[0] === 'parameter_server'")
    walk.run("a parameter-server run")
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    page.wait_for_function("window.ringside.player.step === 0 && !window.ringside.stage.pending")
    walk.check("a parameter server's first step")
    screenshot(page, SHOTS / "parameter-server-step.png")

    page.evaluate(  # the Train panel's settings, kept small (the form is the mouse's)
        "s => { const f = document.getElementById('train-form').elements;"
        " Object.entries(s).forEach(([k, v]) => { f[k].value = v; }); }",
        TRAIN,
    )
    before = page.evaluate("window.ringside.training.shown?.id ?? ''")
    walk.press(
        "n",
        "N: a training, its charts",
        f"(t => t && t.id !== '{before}' && t.state === 'done')(window.ringside.training.shown)",
    )
    walk.press("y", "Y: its first step's sync", f"{RUN}?.id.startsWith(window.ringside.training.shown.id)")
    walk.press("y", "Y: the next step's")
    walk.press("t", "T: the training's charts")
    walk.press("t", "T closed")
    walk.press("j", "J: the watched jobs")
    walk.press("j", "J closed")
    walk.press("b", "B: the nodes, local and global ranks", "!document.getElementById('hosts').hidden")
    walk.press("b", "B closed")
    walk.press("z", "Z: spawn against launcher", "!document.getElementById('launchers').hidden")
    walk.press("Escape", "Z closed")
    walk.press("k", "K: the audience's link", "document.getElementById('hall').open")
    walk.press("Escape", "K closed")
    walk.press("?", "?: the keys", "document.getElementById('keys').open")
    walk.press("Escape", "the keys closed")

    pick(walk, "broadcast")
    walk.run("a broadcast for the poll")
    walk.press("q", "Q: the poll's menu", "document.querySelector('#poll .menu')")
    walk.press("2", "a poll asked", "window.ringside.state.poll?.state === 'open'")
    walk.press("Enter", "the poll revealed", "window.ringside.state.poll?.state === 'revealed'")
    walk.press("Escape", "the poll closed")

    with page.expect_response(lambda r: r.url.endswith("/api/perturb/demo")) as posted:
        page.keyboard.press("d")
    ids = [r["id"] for r in posted.value.json()["runs"]]
    algorithms = [up.wait(run_id)["spec"]["algorithm"] for run_id in ids]
    page.wait_for_function(f"{RUN}?.id === '{ids[-1]}' && {RUN}.state === 'done'", timeout=60_000)
    page.wait_for_function(  # the demo's line, in any language: its two algorithms' times side by side
        "names => names.every((n) => document.getElementById('caption').textContent.includes(n))",
        arg=algorithms,
    )
    walk.check("D: the straggler demo's line")

    pick(walk, "send_recv")
    for name in ("blocking", "isend"):
        algorithm(walk, name)
        walk.run(f"send/recv by {name}: its calls' rows")
    screenshot(page, SHOTS / "send-recv-rows.png")
    pick(walk, "barrier")
    walk.run("a barrier")

    pick(walk, "all_reduce")  # a run the server refuses (AVG set as a mouse would): the caption says why
    page.evaluate("""() => { const f = document.getElementById('spec').elements;
        f.dtype.value = 'int32'; f.op.disabled = false; f.op.options[[...f.op.options]
        .findIndex((o) => o.value === 'AVG')].disabled = false; f.op.value = 'AVG'; }""")
    with page.expect_response(lambda r: r.url.endswith("/api/runs") and r.status == 422):
        page.keyboard.press("r")
    walk.check("a refused R")

    walk.press("l", "out of lecture mode: every panel", "!document.body.classList.contains('present')")
    page.evaluate("document.getElementById('bottom').scrollIntoView()")
    walk.check("the panels under the stage")
    walk.press("l", "lecture mode again", "document.body.classList.contains('present')")

    exported = tmp_path / "run.html"
    exported.write_text(
        page.evaluate("import('rs/export/export.js').then((m) => m.standalone(window.ringside.player.run))")
    )
    offline = page_for(f"{exported.as_uri()}?lang=ko", viewport=PROJECTOR)
    offline.wait_for_function("window.ringside?.player.run")
    offline.evaluate("window.ringside.player.pause(); window.ringside.player.go(0)")
    Walk(offline, walk.allowed, walk.misses).check("the exported page")

    assert len(walk.checked) > 60
    assert walk.misses == [], "\n".join(walk.misses)
