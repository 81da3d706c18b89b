"""The shipped seed lesson, stepped through with U in Chromium, the projector's page read in each
language at every stage, with a phone in each language following: at every stage the presenter runs
the stage's own run (the inputs typed in, verified against torch's), its question asked first where
it has one, and each phone shows the presenter's stage, caption, code and printed output, and its
run; a question's printed output (its answer) only after the reveal, on the projector too, whose
stage, not its caption, takes the room the poll's card leaves, its values read from the back.
`ringside up`'s world is resized to each stage's ranks (three, then four), the phones staying; the
Run panel's rank control resizes it too."""

from __future__ import annotations

from pathlib import Path

import pytest
from browser import PAINTED, screenshot, switch_language

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

P = 4
PHONE = (390, 844)
RUN = "window.ringside.player.run"
LANGS = ["en", "ko", "zh"]
SHOTS = Path("/tmp/shots-lesson")

# The lesson's layout down the projector (1280x720): [the room between the stage and the line under it,
# the room left under the last line of the stage's column], in px.
ROOM_LEFT = """() => {
    const stage = document.getElementById('stage').getBoundingClientRect();
    const rows = [...document.getElementById('center').children].filter((e) => e.id !== 'lesson')
        .map((e) => e.getBoundingClientRect()).filter((r) => r.height > 0);
    const under = rows.filter((r) => r.top >= stage.bottom - 1).map((r) => r.top);
    return [Math.min(...under) - stage.bottom, innerHeight - Math.max(...rows.map((r) => r.bottom))];
}"""

# How much taller the caption is than its lines (or its least height): the room it takes from the stage.
CAPTION_SLACK = """() => {
    const caption = document.getElementById('caption'), lines = document.createRange();
    lines.selectNodeContents(caption);
    const least = parseFloat(getComputedStyle(caption).minHeight) || 0;
    return caption.getBoundingClientRect().height - Math.max(lines.getBoundingClientRect().height, least);
}"""

# The smallest value written on the stage, in CSS px, and whether the stage says its values read too small.
VALUES_PX = """() => [Math.min(...[...document.querySelectorAll('#stage g.cell:not(.unused) text.value')]
    .filter((t) => t.textContent).map((t) => parseFloat(t.getAttribute('font-size')) * t.getScreenCTM().a)),
    window.ringside.stage.underFloor]"""

# The lesson beside the stage on the projector: the smallest of its title's, caption's, code's and
# printed output's sizes, in px, and the boxes whose text does not fit them (cut off: none).
LESSON_READ = """() => {
    const lesson = document.getElementById('lesson');
    const texts = [...lesson.querySelectorAll('h2, p, pre')].filter((e) => e.textContent.trim());
    const cut = [lesson, ...lesson.querySelectorAll('pre')]
        .filter((e) => e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1);
    const px = texts.map((e) => parseFloat(getComputedStyle(e).fontSize));
    return [Math.min(...px), cut.map((e) => e.id || e.tagName)];
}"""

# the Run panel's resize answered: its button enabled again, the word "Resizing" gone
RESIZED = """() => !document.getElementById('world-set').disabled
    && !document.getElementById('run-why').textContent.startsWith('Resizing')"""

pytestmark = pytest.mark.cluster(ranks=P)


def stage_shown(page, i: int, stage: dict, lang: str) -> None:
    page.wait_for_function(f"window.ringside.lesson.at === {i}")
    expect(page.locator("#lesson-caption")).to_have_text(stage["caption"][lang])
    expect(page.locator("#lesson-snippet")).to_have_text(stage["code"].strip())
    expect(page.locator("#lesson-prints")).to_have_text(stage["prints"].strip())
    # the world resized to the stage's ranks: nothing to say of them
    page.wait_for_function(f"window.ringside.state.worldSize === {stage['ranks']}")
    expect(page.locator("#lesson-ranks")).to_have_text("")


def asked_before_its_run(presenter, phones, i: int, stage: dict) -> None:
    """The stage's question open on the projector and the phones, its printed output (its answer)
    held from both, and the projector's stage, not its caption, taking the room the poll's card
    leaves, read in each language."""
    presenter.wait_for_function("window.ringside.state.poll?.state === 'open'", timeout=60_000)
    for lang in rotated(presenter):
        # the room reads the projector: what the stage prints waits for the reveal there too
        expect(presenter.locator("#lesson-caption")).to_have_text(stage["caption"][lang])
        expect(presenter.locator("#lesson-code")).to_be_visible()
        expect(presenter.locator("#lesson-prints")).to_have_text("")
        presenter.evaluate(PAINTED)  # the stage drawn again for the caption in this language
        slack = presenter.evaluate(CAPTION_SLACK)
        assert slack <= 2, f"stage {i} in {lang}: the caption {slack:.0f} px over its lines, beside the poll"
        # the stage, narrowed by the card and the lesson beside it, still writes values the back row
        # reads: a digit in a card that has room for it larger than the least
        least, under = presenter.evaluate(VALUES_PX)
        assert least >= 24 and not under, f"stage {i} in {lang}: values at {least:.1f} px beside the poll"
    for phone, lang in phones:
        phone.wait_for_function("window.ringside.state.poll?.state === 'open'")
        expect(phone.locator("#lesson-caption")).to_have_text(stage["caption"][lang])
        expect(phone.locator("#lesson-prints")).to_have_text("")
    presenter.keyboard.press("u")  # held: U does not move on past an open question
    assert presenter.evaluate("window.ringside.lesson.at") == i
    presenter.keyboard.press("v")
    presenter.wait_for_function("window.ringside.state.poll?.state === 'revealed'")


def rotated(presenter):
    """The presenter's page in each language in turn, from the one it is in, each yielded once the page
    is in it; it ends in the one after its first, so that each stage comes on in another language."""
    first = presenter.evaluate("document.getElementById('lang').value")
    order = LANGS[LANGS.index(first) :] + LANGS[: LANGS.index(first)]
    for lang in order:
        if lang != first:
            switch_language(presenter, lang)
        yield lang
    switch_language(presenter, order[1])


def test_the_seed_lesson_steps_through_with_phones_following_in_every_language(up, page_for):
    """The projector's page is read in every language at every stage (each stage comes on in one of
    them, in turn), and a phone in each language follows it from its own link."""
    lesson = up.call("GET", "/api/lesson")[1]
    presenter = page_for(f"{up.url}/?token={up.presenter}&present=1&lang=en")
    ready = f"window.ringside.lesson.lesson && window.ringside.state.worldSize === {P}"
    presenter.wait_for_function(f"window.ringside.state.presenter && {ready}")
    # a phone asks for a question's printed output as its stage comes on, refused until the reveal
    phones = [
        (page_for(f"{up.url}/?lang={lang}", viewport=PHONE, allow=("status of 409",)), lang) for lang in LANGS
    ]
    for phone, _ in phones:
        phone.wait_for_function(ready)
        expect(phone.locator("#lesson")).to_be_hidden()
    seen = set()
    for i, stage in enumerate(lesson["stages"]):
        presenter.keyboard.press("u")
        if stage["question"]:  # asked before its run: the room votes on it, then the presenter reveals
            asked_before_its_run(presenter, phones, i, stage)
        collective = stage["run"]["collective"]
        presenter.wait_for_function(
            f"{RUN} && !{RUN}.preview && !{list(seen)!r}.includes({RUN}.id) "
            f"&& {RUN}.spec.collective === '{collective}'",  # a run, not the first screen's preview of one
            timeout=60_000,
        )
        run_id = presenter.evaluate(f"{RUN}.id")
        seen.add(run_id)
        run = up.wait(run_id)
        assert run["verified"] is True and run["spec"]["inputs"] == stage["run"]["inputs"], run["error"]
        assert len(run["group"]) == run["world_size"] == stage["ranks"]
        for lang in rotated(presenter):
            stage_shown(presenter, i, stage, lang)
            # the stage and the lines under it fill the projector's height: no band left blank
            presenter.evaluate(PAINTED)
            between, under = presenter.evaluate(ROOM_LEFT)  # a line's margin at most
            assert between <= 12 and under <= 12, (
                f"stage {i} in {lang}: {between:.0f} px under the stage, {under:.0f} last"
            )
            least, cut = presenter.evaluate(LESSON_READ)
            assert least >= 18 and cut == [], f"stage {i} in {lang}: the lesson at {least} px, cut: {cut}"
        for phone, lang in phones:
            stage_shown(phone, i, stage, lang)
            phone.wait_for_function(f"{RUN}?.id === '{run_id}'", timeout=30_000)
    assert len(seen) == len(lesson["stages"]) == 10
    switch_language(presenter, "ko")
    screenshot(presenter, SHOTS / "ko-lesson-projector.png")
    screenshot(phones[1][0], SHOTS / "ko-lesson-phone.png")
    # the Run panel's rank control (out of lecture mode): to 2 and back, the phones hearing
    panel = page_for(f"{up.url}/?token={up.presenter}")
    for n in (2, P):
        panel.fill("#world-ranks", str(n))
        # the form drawn again before Set (the catalog of the last resize coming in): what was typed stays
        panel.evaluate("window.ringside.state.dispatchEvent(new Event('role'))")
        expect(panel.locator("#world-ranks")).to_have_value(str(n))
        panel.click("#world-set")
        # the POST answered (the button is set again): a refusal says why in the panel
        panel.wait_for_function(RESIZED, timeout=120_000)
        assert panel.text_content("#run-why") == "", f"to {n} ranks: {panel.text_content('#run-why')}"
        for page in (panel, presenter, *(phone for phone, _ in phones)):
            page.wait_for_function(f"window.ringside.state.worldSize === {n}", timeout=60_000)
        expect(panel.locator("#world-ranks")).to_have_value(str(n))
