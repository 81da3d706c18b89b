"""The page in English, Korean and Chinese, in a real Chromium against a real `ringside up`
of 4 gloo ranks: the presenter's page in English runs every built-in algorithm with the lecture data
and steps through it; a 390x844 phone in Korean and one in Chinese follow, and every step's caption
and the title are in their language, with no English word left but the op and phase names. The
picker switches a page without a reload, a reload keeps the pick, two pages of one browser keep
their own, the browser's language is the default and ?lang= beats it; an exported run's page picks
its language too; a poll's question and choices on a phone are in its language; a Korean caption wraps
between its words, never inside one, a phone's cluster panel keeps each field of a rank on one
line, a phone's M heads each cell in its language and its title wraps between its parts.
Screenshots (RINGSIDE_SHOTS): artifacts/i18n/*.png."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from browser import go, screenshot

from ringside.worker_agent.core.algorithms import Kind, algorithms

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

PHONE, PROJECTOR = (390, 844), (1280, 720)
SHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "i18n"
SCRIPT = {"ko": re.compile("[\uac00-\ud7a3]"), "zh": re.compile("[\u4e00-\u9fff]")}
# What stays English in every language: op, phase and collective names, dtypes, files; zh writes "rank"
KEPT = (
    r"\w+_\w+|reduce-scatter|all-gather|broadcast|reduce|scatter|gather|SUM|XOR|fan-out|fan-in|pull|push|"
    r"float\d+|int\d+|\S+\.py"
)
LEFT = {"ko": re.compile(KEPT), "zh": re.compile(f"rank|{KEPT}")}
ONE_VOTE = {"ko": "휴대폰마다 한 표", "zh": "每部手机一票"}  # the phone's card until the reveal
# The Korean words of an element's text that its lines split (a word's glyphs on two lines): Korean
# wraps between words, as it is written with spaces (or before a bracket), never inside one ("합칩" / "니다").
SPLIT_WORDS = """(element) => {
    const split = [], texts = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    for (let node; (node = texts.nextNode());) {
        for (const word of node.data.matchAll(/[^\\s()]*[\\uac00-\\ud7a3][^\\s()]*/g)) {
            const range = document.createRange();
            range.setStart(node, word.index);
            range.setEnd(node, word.index + word[0].length);
            const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0)
                .map((r) => Math.round(r.bottom)));
            if (lines.size > 1) split.push(word[0]);
        }
    }
    return split;
}"""


def english_left(lang: str, text: str) -> list[str]:
    return re.findall(r"[A-Za-z]{2,}", LEFT[lang].sub("", text))


@pytest.fixture
def context(browser):
    """One browser's pages (they share its storage), whose console errors fail the test."""
    errors = []
    ctx = browser.new_context(viewport={"width": PHONE[0], "height": PHONE[1]})
    ctx.on(
        "page",
        lambda p: (
            p.on("console", lambda m: errors.append(m.text) if m.type == "error" else None),
            p.on("pageerror", lambda e: errors.append(str(e))),
        ),
    )
    yield ctx
    ctx.close()
    assert errors == [], f"console errors: {errors}"


def built_in(p: int) -> list[tuple[str, str]]:
    """Every built-in algorithm that steps (schedules and the traced send/recv lesson) at P = p."""
    return [
        (r.collective, r.name)
        for r in algorithms()
        if r.kind in (Kind.SCHEDULE, Kind.TRACED) and not r.user and r.fits(p)
    ]


def test_every_built_in_algorithms_lecture_run_reads_in_korean_and_chinese_on_phones(up, page_for):
    presenter = page_for(f"{up.url}/?token={up.presenter}&present=1&lang=en", viewport=PROJECTOR)
    presenter.wait_for_selector("#collectives button", state="attached")
    phones = {lang: page_for(f"{up.url}/?lang={lang}", viewport=PHONE) for lang in ("ko", "zh")}
    cases = built_in(4)
    assert len(cases) > 15
    for collective, algorithm in cases:
        lecture = presenter.evaluate(
            f"window.ringside.controls.presetFields({{collective: '{collective}', algorithm: '{algorithm}'}})"
        )
        run = up.run(collective=collective, algorithm=algorithm, **lecture)
        assert run["state"] == "done" and run["steps"], f"{collective} {algorithm}: {run.get('error')}"
        presenter.wait_for_function(
            f"window.ringside.player.run?.id === '{run['id']}' && "
            "window.ringside.player.run.state === 'done'",
            timeout=60_000,
        )
        presenter.evaluate("window.ringside.player.pause()")
        presenter.wait_for_function(f"window.ringside.player.available() >= {len(run['steps'])}")
        for step in range(len(run["steps"])):
            go(presenter, step)
            english = run["steps"][step]["caption"]
            expect(presenter.locator("#caption")).to_contain_text(english)  # the presenter's own: English
            for lang, phone in phones.items():
                phone.wait_for_function(
                    f"window.ringside.player.run?.id === '{run['id']}' && "
                    f"window.ringside.player.step === {step}",
                    timeout=15_000,
                )
                said = phone.locator("#caption").inner_text()
                where = f"{lang}: {collective} {algorithm} step {step + 1}: {english!r} shown as {said!r}"
                assert SCRIPT[lang].search(said) and english_left(lang, said) == [], where
                assert phone.locator("#caption").evaluate(SPLIT_WORDS) == [], f"{where}: a word split"
                shown = f"Step {step + 1} of {len(run['steps'])} · {run['steps'][step]['phase']}: {english}"
                assert sorted(re.findall(r"\d+", said)) == sorted(re.findall(r"\d+", shown)), (
                    f"{where}: the numbers and ranks are the caption's, in the language's order"
                )
        for lang, phone in phones.items():
            title = phone.locator("#run-title").inner_text()
            assert title.startswith(f"{collective} · ") and SCRIPT[lang].search(title), title
            if (run.get("display") or {}).get("formula"):  # the formula line under the stage, in words
                said = phone.locator("#formula .said").inner_text()
                assert said.startswith(run["display"]["formula"]["formula"]), said
                assert SCRIPT[lang].search(said), said
    for lang, phone in phones.items():
        screenshot(phone, SHOTS / f"phone-{lang}.png")


def test_a_phones_cluster_keeps_each_ranks_field_on_one_line(up, page_for):
    """Korean and Chinese words are wider: a row carries its usage on to a second line rather than
    squeeze the status into a column a word wide ("유휴 · ♥ / 0.2 / s")."""
    for lang in ("ko", "zh"):
        phone = page_for(f"{up.url}/?lang={lang}", viewport=PHONE)
        expect(phone.locator("#cluster .rank-row")).to_have_count(4)
        expect(phone.locator("#cluster .rank-row .local").first).to_contain_text(SCRIPT[lang])
        wrapped = phone.evaluate("""[...document.querySelectorAll('#cluster .rank-row > span')]
            .filter((e) => e.offsetHeight > 1.5 * parseFloat(getComputedStyle(e).lineHeight))
            .map((e) => e.textContent)""")
        assert wrapped == [], f"{lang}: fields wrapped in the cluster panel: {wrapped}"


def test_a_phones_formulas_head_each_cell_in_its_language(up, page_for):
    """M on a phone: the table is too wide, so every cell is written under its heading (CSS .reflow's
    data-head), which is said in the page's language as the table's own headings are."""
    run = up.run(collective="all_reduce", algorithm="ring", count=4, pattern="digits", capture="full")
    for lang in ("ko", "zh"):
        phone = page_for(f"{up.url}/?token={up.presenter}&lang={lang}&run={run['id']}", viewport=PHONE)
        phone.wait_for_function(f"window.ringside.player.run?.id === '{run['id']}'")
        expect(phone.locator("#present")).to_have_text(re.compile(SCRIPT[lang].pattern))
        phone.keyboard.press("m")
        expect(phone.locator("#seed-formulas td[data-head]").first).to_be_visible()
        heads = phone.evaluate(
            "[...document.querySelectorAll('#seed-formulas td[data-head]')].map((td) => "
            "[td.dataset.head, getComputedStyle(td, '::before').content])"
        )
        english = [h for h, _ in heads if not SCRIPT[lang].search(h)]
        assert heads and english == [], f"{lang}: headings left in English: {sorted(set(english))}"
        assert all(shown == f'"{h}"' for h, shown in heads), heads  # what the phone shows before a cell


def test_a_phones_title_breaks_between_its_parts(up, page_for):
    """The title wraps on a phone, between its parts: never "4 ×" / "int32", nor "r-" / "000001"."""
    # the longest algorithm's name: a title that wraps on a phone in any font
    run = up.run(
        collective="all_reduce", algorithm="recursive_doubling", count=4, pattern="digits", capture="full"
    )
    for lang in ("ko", "zh"):
        phone = page_for(f"{up.url}/?lang={lang}&run={run['id']}", viewport=PHONE)
        expect(phone.locator("#run-title")).to_contain_text(re.compile(SCRIPT[lang].pattern))
        expect(phone.locator("#run-title")).to_contain_text(run["id"])  # the run's, not the first screen's
        lines, rows = phone.evaluate("""() => {
            const parts = [], all = new Set(), texts = document.createTreeWalker(
                document.getElementById('run-title'), NodeFilter.SHOW_TEXT);
            for (let node; (node = texts.nextNode());) {
                const range = document.createRange();
                range.selectNodeContents(node);
                const bottoms = [...range.getClientRects()].filter((r) => r.width > 0)
                    .map((r) => Math.round(r.bottom));
                bottoms.forEach((b) => all.add(b));
                parts.push([node.data, new Set(bottoms).size]);
            }
            return [parts, all.size];
        }""")
        assert rows > 1, f"{lang}: the title fits one line, so this tells nothing"
        split = [part for part, n in lines if n > 1 and part.strip() != "·"]
        assert split == [], f"{lang}: parts of the title on two lines: {split} ({lines})"


def test_the_picker_switches_without_a_reload_and_a_reload_keeps_the_pick(up, context):
    page = context.new_page()
    page.goto(f"{up.url}/?token={up.presenter}")
    expect(page.locator("#present")).to_have_text("Lecture")  # the browser here speaks English
    page.evaluate("window.unreloaded = true")
    page.select_option("#lang", "ko")
    expect(page.locator("#present")).to_have_text("강의")
    expect(page.locator("#keys h2")).to_have_text("키")
    expect(page.locator("#player label").first).to_contain_text("속도")
    assert page.evaluate("document.documentElement.lang") == "ko"
    assert page.get_attribute("#back", "title") == "한 단계 뒤로 (←)"
    assert page.get_attribute("#stage", "aria-label") == "랭크와 버퍼"  # an <svg>'s own name, read out
    run = up.run(collective="broadcast", algorithm="binomial_tree", count=4, pattern="digits", capture="full")
    page.wait_for_function(
        f"window.ringside.player.run?.id === '{run['id']}' && "
        f"window.ringside.player.available() >= {len(run['steps'])}"
    )
    page.evaluate("window.ringside.player.pause()")
    go(page, 0)
    expect(page.locator("#caption")).to_contain_text("단계")
    page.select_option("#lang", "zh")
    expect(page.locator("#caption")).to_contain_text("第 1 步")  # what the modules wrote, switched too
    expect(page.locator("#present")).to_have_text("讲课")
    expect(page.locator("#jobs-open")).to_have_text("任务")  # a job that runs, not homework (作业)
    assert page.evaluate("window.unreloaded") is True, "no reload"
    page.select_option("#lang", "en")
    expect(page.locator("#caption")).to_contain_text(f"Step 1 of {len(run['steps'])}")
    expect(page.locator("#present")).to_have_text("Lecture")
    assert page.get_attribute("#stage", "aria-label") == "ranks and their buffers"
    page.select_option("#lang", "ko")
    page.reload()
    expect(page.locator("#present")).to_have_text("강의")
    assert page.input_value("#lang") == "ko"


def test_two_pages_side_by_side_keep_their_own_languages(up, context):
    left, right = context.new_page(), context.new_page()
    for page in (left, right):
        page.goto(f"{up.url}/")
    left.select_option("#lang", "ko")
    right.select_option("#lang", "zh")
    expect(left.locator("#role")).to_have_text(re.compile("^청중"))
    expect(right.locator("#role")).to_have_text(re.compile("^听众"))
    for page in (left, right):
        page.reload()
    expect(left.locator("#present")).to_have_text("강의")
    expect(right.locator("#present")).to_have_text("讲课")
    fresh = context.new_page()  # a new tab of the same browser: its last pick
    fresh.goto(f"{up.url}/")
    expect(fresh.locator("#present")).to_have_text("讲课")


def test_the_browsers_language_is_the_default_and_a_links_lang_beats_it(up, browser):
    ctx = browser.new_context(locale="ko-KR")
    try:
        page = ctx.new_page()
        page.goto(f"{up.url}/")
        expect(page.locator("#present")).to_have_text("강의")
        page.goto(f"{up.url}/?lang=zh")
        expect(page.locator("#present")).to_have_text("讲课")
        page.goto(f"{up.url}/")
        expect(page.locator("#present")).to_have_text("讲课")  # the link's pick is remembered
    finally:
        ctx.close()


def test_an_exported_run_picks_its_language_too(up, page_for, tmp_path):
    run = up.run(collective="reduce", algorithm="binomial_tree", count=4, pattern="digits", capture="full")
    page = page_for(f"{up.url}/?run={run['id']}")
    page.wait_for_function(f"window.ringside.player.run?.id === '{run['id']}'")
    exported = tmp_path / "run.html"
    exported.write_text(
        page.evaluate("import('rs/export/export.js').then((m) => m.standalone(window.ringside.player.run))")
    )
    offline = page_for(f"{exported.as_uri()}?lang=zh", viewport=PHONE)
    offline.wait_for_function("window.ringside?.player.run")
    offline.evaluate("window.ringside.player.pause(); window.ringside.player.go(0)")
    expect(offline.locator("#caption")).to_contain_text("第 1 步")
    offline.select_option("#lang", "ko")
    expect(offline.locator("#caption")).to_contain_text("1단계")
    expect(offline.locator("#present")).to_have_text("강의")


def test_a_polls_question_and_choices_are_in_the_phones_language(up, page_for):
    run = up.run(
        collective="all_reduce", algorithm="master_worker", count=4, pattern="digits", capture="full"
    )
    # while a poll holds its run, the room's asks for its figures (compare, model) are refused 409
    phones = {
        lang: page_for(f"{up.url}/?lang={lang}", viewport=PHONE, allow=["status of 409"])
        for lang in ("ko", "zh")
    }
    status, poll = up.call("POST", "/api/polls", {"run_id": run["id"], "question": "bottleneck"})
    assert status == 201, poll
    for lang, phone in phones.items():
        card = phone.locator("#poll")
        expect(card.locator(".choices li")).to_have_count(4)
        question = card.locator("h2").inner_text()
        assert SCRIPT[lang].search(question) and english_left(lang, question) == [], question
        choices = card.locator(".choices li").all_inner_texts()
        assert all({"ko": "랭크 ", "zh": "rank "}[lang] in c for c in choices), choices
        expect(card.locator(".foot")).to_contain_text(ONE_VOTE[lang])
        screenshot(phone, SHOTS / f"poll-{lang}.png")
    up.call("POST", f"/api/polls/{poll['id']}/reveal")
    for lang, phone in phones.items():
        expect(phone.locator("#poll .foot")).not_to_contain_text(ONE_VOTE[lang])
