"""The page tests' check of English left on a translated page (tests/helpers/page_words.py), itself:
an English word is found, what a lecture keeps as it is is not."""

from __future__ import annotations

from page_words import ALLOWED, english_left


def test_the_check_finds_english_left():
    """The check itself: an English word is found, what a lecture keeps is not."""
    allowed = ALLOWED | {"all_reduce", "ring", "reduce-scatter"}
    assert english_left("랭크 3 · not in group", allowed) == ["not", "in", "group"]
    assert english_left("all_reduce · ring · 랭크 4개 · 8 × int32 · r-000001 · 16 B", allowed) == []
    assert english_left("reduce-scatter + 접기: Space 재생 · http://127.0.0.1:8000/", allowed) == []
    assert english_left("weights w", allowed) == ["weights"]
    assert english_left("AVG에는 int32은(는) · ring과 ui.perfetto.dev", allowed | {"AVG"}) == []
