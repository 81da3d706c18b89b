"""The lecturer's own question: their words, and either choices with the right one marked or a number
with a tolerance. Asked from the presenter's panel or a lesson's stage, optionally with a run held
behind it, and sealed, balloted, timed and revealed as the built-in questions are (poll.py): the
right choice, the number and its tolerance stay with the poll's record until the reveal. Its words
are a plain string or one per language of the page ({en, ko, zh}; a page without its language
shows en)."""

from __future__ import annotations

import statistics
import unicodedata
from typing import Annotated

from pydantic import Field, StrictInt, StringConstraints

from ringside.server.door.audience import ANSWER
from ringside.worker_agent.core.protocol import Strict
from ringside.worker_agent.core.validation import SpecError

MAX_TEXT = 300  # the question, as a projector shows it
MAX_CHOICE = 120  # one choice: a line on a phone
MIN_CHOICES, MAX_CHOICES = 2, 8
MAX_NUMBER = 1e15  # a number typed or marked right: beyond this a float stops counting units


class TextWords(Strict):
    """The question in each language of the page: en always, ko and zh where the lecturer wrote them."""

    en: str = Field(min_length=1, max_length=MAX_TEXT)
    ko: str | None = Field(None, min_length=1, max_length=MAX_TEXT)
    zh: str | None = Field(None, min_length=1, max_length=MAX_TEXT)


class ChoiceWords(Strict):
    en: str = Field(min_length=1, max_length=MAX_CHOICE)
    ko: str | None = Field(None, min_length=1, max_length=MAX_CHOICE)
    zh: str | None = Field(None, min_length=1, max_length=MAX_CHOICE)


Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_TEXT)] | TextWords
Choice = (
    Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_CHOICE)]
    | ChoiceWords
)
Bounded = Annotated[float, Field(allow_inf_nan=False, ge=-MAX_NUMBER, le=MAX_NUMBER)]


class CustomFields(Strict):
    """What a custom question adds to a poll's spec (PollSpec) or a lesson's stage question: each
    None where not given, so a built-in question that gives one is refused by name (check)."""

    text: Text | None = Field(None, description="custom: the question, a string or {en, ko, zh}")
    choices: list[Choice] | None = Field(
        None, max_length=MAX_CHOICES, description=f"custom: {MIN_CHOICES} to {MAX_CHOICES} choices"
    )
    # the answer (marked: a lesson's stage as the room reads it leaves them out, lessons/routes.py)
    answer: Annotated[StrictInt | None, ANSWER] = Field(
        None, ge=0, lt=MAX_CHOICES, description="custom: the right choice, from 0"
    )
    number: Annotated[Bounded | None, ANSWER] = Field(None, description="custom, numeric: the right number")
    tolerance: Annotated[Bounded | None, ANSWER] = Field(
        None, ge=0, description="custom, numeric: how far a typed number may be off and still be right"
    )


FIELDS = tuple(CustomFields.model_fields)
QUESTION = "custom"  # the question's name in a spec, a poll and a lesson


def own(question: str) -> bool:
    """Whether a poll asks the lecturer's own question (not one whose answer comes from a run)."""
    return question == QUESTION


def check(question: str, fields: CustomFields, numeric: bool) -> None:
    """SpecError naming the field where the fields do not make a question of this kind: a custom one
    has its text and either choices with the answer among them, or (numeric) a number; a built-in
    one has none of them (its words and answer come from its run)."""
    given = [name for name in FIELDS if getattr(fields, name) is not None]
    if not own(question):
        if given:
            raise SpecError(
                given[0], f"only a custom question has its own {given[0]}: {question}'s comes from its run"
            )
        return
    if fields.text is None:
        raise SpecError("text", "a custom question has its text")
    if numeric:
        _check_numeric(fields)
    else:
        _check_choices(fields)


def _check_numeric(fields: CustomFields) -> None:
    if fields.choices is not None or fields.answer is not None:
        wrong = "choices" if fields.choices is not None else "answer"
        raise SpecError(wrong, "a numeric question takes a number and a tolerance, not choices")
    if fields.number is None:
        raise SpecError("number", "a numeric question marks the right number")


def _check_choices(fields: CustomFields) -> None:
    if fields.number is not None or fields.tolerance is not None:
        wrong = "number" if fields.number is not None else "tolerance"
        raise SpecError(
            wrong, "a question of choices marks the right one (answer); numeric: true takes a number"
        )
    choices = fields.choices or []
    if not MIN_CHOICES <= len(choices) <= MAX_CHOICES:
        raise SpecError(
            "choices", f"a custom question has {MIN_CHOICES} to {MAX_CHOICES} choices, not {len(choices)}"
        )
    if fields.answer is None:
        raise SpecError("answer", "mark the right choice: its index, from 0")
    if fields.answer >= len(choices):
        raise SpecError("answer", f"there are {len(choices)} choices, numbered from 0: not {fields.answer}")
    for lang in ("en", "ko", "zh"):
        said = [read_as(c if isinstance(c, str) else getattr(c, lang)) for c in choices]
        if "" in said:
            raise SpecError("choices", f"choice {said.index('')} says nothing ({lang})")
        written = [w for w in said if w is not None]
        if len(set(written)) < len(written):
            raise SpecError("choices", f"two choices say the same ({lang}): each is a different answer")


def read_as(words: str | None) -> str | None:
    """Words as a reader tells them apart: spaces, case, width and invisible characters aside."""
    if words is None:
        return None
    folded = unicodedata.normalize("NFKC", words).casefold()
    return " ".join("".join(ch for ch in folded if unicodedata.category(ch) != "Cf").split())


def within(typed: float, number: float, tolerance: float) -> bool:
    """Whether a typed number is right: as far off as the tolerance, or as the number is printed."""
    return abs(typed - number) <= tolerance * (1 + 1e-9) + 1e-9 * max(1.0, abs(number))


def median(typed: list[float]) -> float | None:
    """The middle of the numbers typed: the room's spread, said once voting closes."""
    return float(statistics.median(typed)) if typed else None
