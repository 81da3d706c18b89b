"""The lecturer's own question on the page, in a real Chromium against a real `ringside up`: the
presenter opens the form (Q, then 5), writes a question and three choices, marks the second right
with the arrow keys and asks it with Enter; two phones vote on it with a tap, and the reveal marks
the right choice on every page."""

from __future__ import annotations

import re

import pytest

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect
pytestmark = pytest.mark.cluster(ranks=2)  # the question holds no run: the fewest ranks up starts

PHONE, PROJECTOR = (390, 844), (1280, 720)


def test_the_presenter_asks_their_own_question_and_the_phones_see_its_right_choice(up, page_for):
    presenter = page_for(f"{up.url}/?token={up.presenter}&present=1", viewport=PROJECTOR)
    presenter.wait_for_function("window.ringside.state.presenter")
    phones = [page_for(f"{up.url}/", viewport=PHONE) for _ in range(2)]
    for phone in phones:
        phone.wait_for_function("window.ringside.polls.ballot")

    key, card = presenter.keyboard.press, presenter.locator("#poll")
    key("q")
    key("5")
    form = card.locator("form.own")
    expect(form).to_be_visible()
    presenter.keyboard.type("Which collective leaves every rank the sum?")  # the question has the focus
    for i, words in enumerate(("reduce", "all_reduce", "broadcast")):
        form.locator("input[name=choice]").nth(i).fill(words)
    form.locator("input[type=radio]").first.focus()
    key("ArrowDown")  # the second is right
    expect(form.locator("input[type=radio]").nth(1)).to_be_checked()
    form.locator("input[name=text]").focus()
    posted = lambda r: r.url.endswith("/api/polls") and r.request.method == "POST"  # noqa: E731
    with presenter.expect_response(posted) as asked:
        key("Enter")
    poll = asked.value.json()
    assert poll["state"] == "open" and poll["choices"] == ["reduce", "all_reduce", "broadcast"], poll

    for phone, choice in zip(phones, (1, 0)):
        expect(phone.locator("#poll h2")).to_have_text("Which collective leaves every rank the sum?")
        assert phone.evaluate("window.ringside.state.poll.answers") == [], "sealed until the reveal"
        phone.locator(f"#poll li[data-choice='{choice}'] button").click()
        expect(phone.locator("#poll .why")).to_contain_text("Your vote counted")
    expect(card.locator(".votes")).to_have_text("2 votes")

    key("Enter")  # the reveal
    for page in (presenter, *phones):
        right = page.locator("#poll li[data-choice='1']")
        expect(right).to_have_class(re.compile(r"\bright\b"))
        expect(right).to_contain_text("✓ B")
    expect(phones[0].locator("#poll .foot")).to_contain_text("You got it ✓")
    expect(phones[1].locator("#poll .foot")).to_contain_text("Not this time")


def test_the_phones_type_a_number_and_the_reveal_marks_who_was_within_its_tolerance(up, page_for):
    """A numeric question of the lecturer's (asked with the API, as a lesson file asks it): each phone
    types its number, sealed until the reveal, which gives every page the number, its tolerance and
    the room's typed numbers, each marked."""
    current = up.call("GET", "/api/polls/current")[1]["poll"]
    if current is not None and current["state"] != "closed":  # the module's earlier question, still shown
        up.call("POST", f"/api/polls/{current['id']}/close")
    presenter = page_for(f"{up.url}/?token={up.presenter}&present=1", viewport=PROJECTOR)
    phones = [page_for(f"{up.url}/", viewport=PHONE) for _ in range(2)]
    presenter.wait_for_function("window.ringside.state.presenter")
    for phone in phones:
        phone.wait_for_function("window.ringside.polls.ballot")
    asked = {
        "question": "custom",
        "text": "How many steps does ring all_reduce take at 4 ranks?",
        "numeric": True,
    }
    status, poll = up.call("POST", "/api/polls", {**asked, "number": 6, "tolerance": 1})
    assert status == 201 and poll["state"] == "open", poll

    for phone, typed in zip(phones, ("6", "9")):
        expect(phone.locator("#poll h2")).to_have_text(asked["text"])
        field = phone.locator("#poll form.typed input[type=number]")
        field.fill(typed)
        field.press("Enter")
        expect(phone.locator("#poll")).to_contain_text(f"You typed {typed}")
        assert phone.evaluate("window.ringside.state.poll.number") is None, "sealed until the reveal"
    expect(presenter.locator("#poll .votes")).to_have_text("2 votes")

    presenter.keyboard.press("Enter")  # the reveal
    for page in (presenter, *phones):
        expect(page.locator("#poll .number")).to_contain_text("The number: 6 ± 1")
        expect(page.locator("#poll .typed-tally")).to_have_text("✓ 6 ×1 · ✗ 9 ×1")
    expect(phones[0].locator("#poll .foot")).to_contain_text("You got it ✓")
    expect(phones[1].locator("#poll .foot")).to_contain_text("Not this time")
