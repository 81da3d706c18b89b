"""Predict, then reveal on the page, in a real Chromium against a real `ringside up`
with 4 gloo ranks: the presenter's page in lecture mode at 1280x720, driven by the keyboard
alone, picks a ring all_reduce with the lecture data and asks the room what a rank holds after
a step before it runs; the run runs held and the question opens when it has run; three 390x844
phones (viewers, no token) hold none of its answer, vote with a tap, see no tally (the
presenter's card shows it on W), the stage holds, and Enter reveals the server's answer (the
rank's buffer) on every page and plays on to that step. A phone that reloads keeps its vote; a
second tab of the same phone holds the same ballot and is refused. Home, End and a number then
Enter go where they say. A question of bytes takes a typed number: B closes voting, the room
sees the tally, and the reveal marks the number and plays the run through.
Screenshots go to artifacts/screenshots/poll-*.png (not committed)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

PHONE, PROJECTOR = (390, 844), (1280, 720)
LECTURE = {"collective": "all_reduce", "count": 8, "capture": "full", "pattern": "digits"}
SHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"
# Chromium logs every refused request: a second vote, a question this run cannot answer
REFUSED = ("409", "422")
# A page's log of [poll id, poll state, run on stage] at each change of its state or player, as it
# applies the messages it hears, in their order
HELD_LOG = """() => {
  const { state, player } = window.ringside, held = (window.held = []);
  const note = () => held.push([state.poll?.id ?? null, state.poll?.state ?? null, player.run?.id ?? null]);
  state.addEventListener("change", note);
  player.addEventListener("change", note);
}"""


def shown(values) -> str:
    return " · ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in values)


def held(run: dict, rank: int, step: int) -> str:
    """Rank `rank`'s whole buffer after `step` (0-based), as a choice says it."""
    chunks = {s["chunk"]: s["values"] for s in run["inputs"][str(rank)]}
    for done in run["steps"][: step + 1]:
        chunks.update({s["chunk"]: s["values"] for s in done["ranks"][str(rank)]["states"]})
    return shown([v for _, values in sorted(chunks.items()) for v in values])


def counts(page) -> list[str]:
    return page.locator("#poll li .count").all_inner_texts()


def fits(page, width: int) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= width, "nothing wider than the screen"


def pick_ring(presenter):
    """All_reduce by ring with the lecture data, picked from the keyboard."""
    key = presenter.keyboard.press
    names = presenter.evaluate("window.ringside.controls.catalog.collectives.map(c => c.name)")
    key(str((names.index("all_reduce") + 1) % 10))
    pick = presenter.locator("#pick")
    expect(pick).to_have_text(re.compile(r"^all_reduce · "))
    for _ in range(12):
        if pick.inner_text().startswith("all_reduce · ring · "):
            break
        key("a")
    expect(pick).to_have_text(re.compile(r"^all_reduce · ring · .*lecture data"))
    return pick


def answerless(page, run_id: str, asked: int) -> None:
    """What the page holds of the run in memory says nothing from the step asked about on: no
    rank's report of it, no outputs, traffic or times."""
    kept = page.evaluate(
        f"""() => {{ const r = window.ringside.player.run;
        return r?.id === '{run_id}' && {{ results: Object.keys(r.results ?? {{}}).length, traffic: r.traffic,
          time: r.time, reported: r.steps.map(s => Object.keys(s.ranks).length) }}; }}"""
    )
    assert kept, f"the page shows {run_id}"
    assert kept["results"] == 0 and kept["traffic"] is None and kept["time"] is None, kept
    assert all(n == 0 for n in kept["reported"][asked:]), kept


def test_a_question_asked_before_its_run_voted_on_phones_and_revealed_on_every_page(up, page_for, browser):
    presenter = page_for(f"{up.url}/?token={up.presenter}&present=1", allow=REFUSED, viewport=PROJECTOR)
    presenter.wait_for_selector("#collectives button", state="attached")
    presenter.wait_for_function("window.ringside.state.presenter")  # Q does nothing until the token is known
    key = presenter.keyboard.press
    pick = pick_ring(presenter)

    phones = [page_for(f"{up.url}/", allow=REFUSED, viewport=PHONE) for _ in range(2)]
    # one phone, two tabs: one ballot (the first tab's, kept in the browser)
    twin = browser.new_context(viewport={"width": PHONE[0], "height": PHONE[1]})
    errors = []
    tabs = [twin.new_page() for _ in range(2)]
    for tab in tabs:
        tab.on("pageerror", lambda e: errors.append(str(e)))
        tab.on(
            "console", lambda m: errors.append(m.text) if m.type == "error" and "409" not in m.text else None
        )
        tab.goto(f"{up.url}/")
        tab.wait_for_function("localStorage.getItem('ringside-ballot')")
    audience = [*phones, *tabs]
    for page in audience:
        page.wait_for_function("window.ringside.polls.ballot")

    # Q: the menu asks about the pick, before it runs; a question its plan cannot answer says why
    key("q")
    card = presenter.locator("#poll")
    expect(card).to_be_visible()
    expect(card.locator("h2")).to_have_text("Ask the room, then run all_reduce · ring held")
    expect(card.locator("li[data-question=holds]")).to_contain_text("What does rank 1 hold after step 1?")
    key("ArrowRight")
    key("ArrowRight")
    key("ArrowRight")
    key("ArrowRight")
    key("ArrowRight")
    key("ArrowRight")
    key("ArrowRight")
    key("1")  # after step 8: a ring of 4 has 6
    expect(card.locator(".why")).to_contain_text("steps, numbered from 0")
    for _ in range(6):
        key("ArrowLeft")
    key("ArrowDown")
    rank, step = presenter.evaluate("[window.ringside.polls.asking.rank, window.ringside.polls.asking.step]")
    assert (rank, step) == (2, 1)
    question = f"What does rank {rank} hold after step 2?"
    expect(card.locator("li[data-question=holds]")).to_contain_text(question)
    SHOTS.mkdir(parents=True, exist_ok=True)
    presenter.screenshot(path=str(SHOTS / "poll-presenter-menu.png"))
    with presenter.expect_response(
        lambda r: r.url.endswith("/api/polls") and r.request.method == "POST"
    ) as asked:
        key("1")
    poll = asked.value.json()
    run_id = poll["run_id"]
    assert poll["state"] == "running" and poll["choices"] == [], poll
    expect(card).to_have_attribute("data-state", "open", timeout=60_000)
    expect(card.locator("h2")).to_have_text(question)
    run = up.wait(run_id)
    assert run["spec"]["capture"] == "full"
    steps = len(run["steps"])
    presenter.wait_for_function(f"window.ringside.player.run?.id === '{run_id}'")
    assert presenter.evaluate("window.ringside.player.step") == -1, "the projector holds at the inputs"
    expect(presenter.locator("#run-state")).to_have_text("held")
    poll = presenter.evaluate("window.ringside.state.poll")
    assert poll["state"] == "open" and poll["answers"] == [] and len(poll["choices"]) >= 3
    expect(card.locator(".choice").first).to_have_css("font-size", "24px")
    expect(card.locator(".count")).to_have_count(0)  # the projector shows no tally until W

    # Every phone shows the question, one button a choice, no tally; it holds none of the answer.
    for page in audience:
        expect(page.locator("#poll h2")).to_have_text(question)
        expect(page.locator("#poll button.choice")).to_have_count(len(poll["choices"]))
        expect(page.locator("#poll .count")).to_have_count(0)
        page.wait_for_function(f"window.ringside.player.run?.id === '{run_id}'")
        answerless(page, run_id, step)
        fits(page, PHONE[0])
        box = page.locator("#poll").bounding_box()
        assert box["y"] < PHONE[1] and box["x"] >= 0 and box["x"] + box["width"] <= PHONE[0], (
            "the card is on the phone's first screen"
        )
        cells = page.locator("#outcome td:nth-child(3)").all_inner_texts()
        assert cells and set(cells) == {"?"}, "the before/after panel keeps the outputs back"
        expect(page.locator("#traffic")).to_contain_text("?")

    # Two phones vote A, one B; its second tab, not knowing, taps C and is told it voted already.
    for page, choice in ((phones[0], 0), (phones[1], 0), (tabs[0], 1)):
        page.locator(f"#poll li[data-choice='{choice}'] button").click()
        expect(page.locator("#poll .why")).to_contain_text("Your vote counted")
        expect(page.locator(f"#poll li[data-choice='{choice}']")).to_have_class(re.compile(r"\bchosen\b"))
        expect(page.locator("#poll button.choice:not([disabled])")).to_have_count(0)
    tabs[1].locator("#poll li[data-choice='2'] button").click()
    expect(tabs[1].locator("#poll .why")).to_contain_text("You voted already")
    expect(tabs[1].locator("#poll li[data-choice='1']")).to_have_class(re.compile(r"\bchosen\b"))
    expect(card.locator(".votes")).to_have_text("3 votes")
    for page in (presenter, *audience):
        expect(page.locator("#poll .count")).to_have_count(0)  # the room follows no crowd
    key("w")  # the presenter puts the tally on the projector
    tally = ["2", "1"] + ["0"] * (len(poll["choices"]) - 2)
    expect(card.locator("li .count")).to_have_text(tally)
    for page in audience:
        expect(page.locator("#poll .count")).to_have_count(0)
    phones[0].screenshot(path=str(SHOTS / "poll-phone-voted.png"))

    # The stage holds: R, Space and → move nothing on the presenter's page past the step before the one
    # asked about, nor can a phone step past it. The card's line says it held R, which then asked the
    # server for nothing; Space plays from the inputs until the stage holds, and then stops playing.
    key("r")
    expect(card.locator(".why")).to_contain_text("Enter reveals")
    for k in (" ", "ArrowRight"):
        key(k)
    presenter.wait_for_function("window.ringside.player.step >= 0 && !window.ringside.player.playing")
    assert presenter.evaluate(
        "[window.ringside.player.step, window.ringside.player.playing, window.ringside.player.run.id]"
    ) == [0, False, run_id], "no step from the one asked about on"
    # a button moves the player in its handler: what the page reads after the click is all it did
    phones[1].click("#forward")
    assert phones[1].evaluate("window.ringside.player.step") <= 0, "no step past the presenter's"
    phones[1].click("#follow-presenter")
    presenter.screenshot(path=str(SHOTS / "poll-presenter-open.png"))
    fits(presenter, PROJECTOR[0])
    # the "?" kept whole on the stage wherever the rank asked about sits, at its edge too
    for other in range(4):
        inside = presenter.evaluate(f"""() => {{
          const {{ polls, stage }} = window.ringside;
          polls.asked.rank = {other}; polls.mark();
          const c = stage.svg.querySelector(".asked circle"), r = +c.getAttribute("r");
          const [x, y] = [+c.getAttribute("cx"), +c.getAttribute("cy")];
          return x - r >= 0 && y - r >= 0 && x + r <= stage.width && y + r <= stage.height; }}""")
        assert inside, f"the badge on rank {other} leaves the stage"
    presenter.evaluate(f"window.ringside.polls.asked.rank = {rank}; window.ringside.polls.mark()")

    # A phone that reloads brings its ballot back, finds its vote, and cannot vote again.
    phones[0].reload()
    expect(phones[0].locator("#poll h2")).to_have_text(question)
    expect(phones[0].locator("#poll li[data-choice='0']")).to_have_class(re.compile(r"\bchosen\b"))
    expect(phones[0].locator("#poll button.choice:not([disabled])")).to_have_count(0)
    expect(phones[0].locator("#poll .why")).to_contain_text("your vote: A")

    # Enter reveals: the server's answer, which is the rank's buffer, marked with ✓ on every page.
    key("Enter")
    expect(card).to_have_attribute("data-state", "revealed")
    answers = up.call("GET", f"/api/polls/{poll['id']}", token=None)[1]["poll"]["answers"]
    assert len(answers) == 1 and poll["choices"][answers[0]] == held(run, rank, step), (
        "the answer is the rank's buffer"
    )
    for page in (presenter, *audience):
        right = page.locator("#poll li.right")
        expect(right).to_have_count(1)
        expect(right).to_have_attribute("data-choice", str(answers[0]))
        expect(right.locator("b")).to_have_text(re.compile("^✓ "))
        expect(right).to_contain_text(held(run, rank, step))
        expect(page.locator("#poll .count")).to_have_count(len(poll["choices"]))
    # It plays on to the step asked about, and the phones with it.
    presenter.wait_for_function(
        f"window.ringside.player.step === {step} && !window.ringside.player.playing", timeout=20_000
    )
    for page in audience:
        page.wait_for_function(f"window.ringside.player.step === {step}")
        expect(page.locator("#outcome td:nth-child(3)").first).not_to_have_text("?")
    presenter.wait_for_function("!window.ringside.stage.pending")
    presenter.screenshot(path=str(SHOTS / "poll-presenter-revealed.png"))
    phones[1].evaluate("scrollTo(0, 0)")
    phones[1].screenshot(path=str(SHOTS / "poll-phone-revealed.png"))
    border = "getComputedStyle(document.querySelector('#poll li.{} .choice')).borderTopColor"
    assert presenter.evaluate(border.format("right")) != presenter.evaluate(border.format("wrong"))

    # Esc closes the card; Home, End and a number then Enter go where they say, the pick unchanged.
    key("Escape")
    expect(card).to_be_hidden()
    strip = pick.inner_text()
    key("End")
    presenter.wait_for_function(
        f"window.ringside.player.step === {steps - 1} && !window.ringside.player.playing"
    )
    key("3")
    key("Enter")
    presenter.wait_for_function("window.ringside.player.step === 2")
    expect(presenter.locator("#step-label")).to_have_text(f"step 3 / {steps}")
    expect(pick).to_have_text(strip)
    assert presenter.evaluate("window.ringside.player.run.id") == run_id, "a number then Enter runs nothing"
    key("Home")
    presenter.wait_for_function("window.ringside.player.step === -1")
    expect(presenter.locator("#step-label")).to_have_text("inputs")

    # A question of bytes with a number to type: held at its inputs, its formula out of sight; a phone
    # types the bytes, B closes voting (the room sees the tally) and V reveals the number.
    key("q")
    key("n")
    expect(card.locator(".settings")).to_contain_text("a number may be typed")
    key("2")
    expect(card.locator("h2")).to_contain_text("How many bytes cross the busiest link", timeout=60_000)
    expect(card).to_have_attribute("data-state", "open", timeout=60_000)
    bytes_run = up.wait(presenter.evaluate("window.ringside.state.poll.run_id"))
    link = bytes_run["traffic"]["busiest_link"]["bytes"]
    bytes_run_poll = presenter.evaluate("window.ringside.state.poll")
    presenter.wait_for_function("window.ringside.player.step === -1")
    expect(presenter.locator("#formula")).to_be_hidden()
    phone = phones[1]
    expect(phone.locator("#poll .typed")).to_contain_text("or type the bytes")
    phone.locator("#poll .typed input").fill(str(link))
    phone.locator("#poll .typed button").click()
    expect(phone.locator("#poll")).to_contain_text(f"You typed {link}")
    expect(phone.locator("#poll .count")).to_have_count(0)
    key("b")
    expect(phone.locator("#poll")).to_have_attribute("data-state", "closed")
    expect(phone.locator("#poll .count")).to_have_count(len(bytes_run_poll["choices"]))
    expect(phone.locator("#poll .typed-tally")).to_have_text(f"{link} ×1")
    key("v")
    expect(card.locator("li.right")).to_contain_text(f"{link:,} B")
    expect(phone.locator("#poll .number")).to_contain_text(f"The number: {link}")
    expect(phone.locator("#poll .number")).to_contain_text("1 typed it")
    expect(phone.locator("#poll .foot")).to_contain_text("You got it ✓")
    expect(presenter.locator("#formula")).to_be_visible()
    presenter.wait_for_function(
        f"window.ringside.player.step === {steps - 1} && !window.ringside.player.playing", timeout=30_000
    )
    for page in audience:
        expect(page.locator("#poll")).to_be_visible()
    key("Escape")
    key("r")  # another run on the stage: the phones' revealed card goes with the run it asked about
    for page in audience:
        expect(page.locator("#poll")).to_be_hidden(timeout=60_000)
    twin.close()
    assert errors == []


def test_a_timer_closes_voting_and_every_phone_then_sees_the_tally(up, page_for):
    """The held run is slowed by a straggler: while it runs the phone shows nothing of it."""
    phone = page_for(f"{up.url}/", allow=REFUSED, viewport=PHONE)
    phone.wait_for_function("window.ringside.polls.ballot")
    phone.evaluate(HELD_LOG)
    slow = {"rank": 3, "delay_s": 0.4}
    spec = {**LECTURE, "algorithm": "master_worker", "perturb": {"straggler": slow}}
    status, poll = up.call("POST", "/api/polls", {"question": "bottleneck", "run": spec, "seconds": 5})
    assert status == 201, poll
    card = phone.locator("#poll")
    assert up.call("GET", f"/api/runs/{poll['run_id']}")[1]["state"] in ("queued", "running")
    expect(card).to_be_hidden()
    expect(card).to_have_attribute("data-state", "open", timeout=60_000)
    # all the phone held while the run ran, up to the message that opened the question
    held = phone.evaluate("window.held")
    opened = next(i for i, (_, state, _) in enumerate(held) if state == "open")
    assert [poll["id"], poll["run_id"]] not in [[p, run] for p, _, run in held[:opened]]
    expect(card.locator(".left")).to_have_text(re.compile(r"^closes in [1-5] s$"))
    card.locator("li[data-choice='0'] button").click()
    expect(card.locator(".count")).to_have_count(0)
    expect(card).to_have_attribute("data-state", "closed", timeout=15_000)
    expect(card.locator(".count").first).to_have_text("1")
    expect(card.locator(".foot")).to_contain_text("Voting has closed")
    up.call("POST", f"/api/polls/{poll['id']}/reveal")


def test_k_shows_the_audience_link_as_a_qr_code_to_the_presenter_only(up, page_for):
    presenter = page_for(f"{up.url}/?token={up.presenter}&present=1", viewport=PROJECTOR)
    expect(presenter.locator("#role")).to_have_text("presenter")  # the snapshot says what the token grants
    presenter.locator("#stage").click()
    presenter.keyboard.press("k")
    hall = presenter.locator("#hall")
    expect(hall).to_be_visible()
    expect(hall.locator("p")).to_have_text(up.call("GET", "/api/lecture")[1]["audience"][0])
    side = hall.locator(".qr svg").evaluate("s => s.getBoundingClientRect().width")
    assert side >= 0.7 * PROJECTOR[1] - 20, "the size of the screen, for the back row's phones"
    presenter.keyboard.press("Escape")
    expect(hall).to_be_hidden()
    phone = page_for(f"{up.url}/", viewport=PHONE)
    phone.wait_for_selector("#collectives button", state="attached")
    phone.keyboard.press("k")
    expect(phone.locator("#hall")).to_be_hidden()
