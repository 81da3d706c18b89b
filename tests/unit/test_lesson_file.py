"""A lesson file: the shipped seed lesson reads whole, and a wrong field is refused naming the
file's line, its stage and the field (a lecturer fixes it before the lecture, not during it)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ringside.server.lessons.reading import LessonError, parse, seed

ROOT = Path(__file__).resolve().parents[2]
GOOD = """version = 1
title = { en = "Two stages", ko = "두 단계", zh = "两个阶段" }

[[stages]]
collective = "broadcast"
algorithm = "binomial_tree"
ranks = 3
inputs = [[1, 2, 3, 4, 5], [], []]
caption = { en = "broadcast", ko = "브로드캐스트", zh = "广播" }

[[stages]]
collective = "all_reduce"
ranks = 4
algorithm = "recursive_doubling"
count = 2
question = { ask = "holds", rank = 1, step = 0 }

[stages.caption]
en = "all_reduce"
ko = "올리듀스"
zh = "全归约"
"""


def test_the_seed_lesson_reads_in_its_order_with_its_inputs():
    lesson = seed()
    runs = [stage.run() for stage in lesson.stages]
    assert [r.collective for r in runs[:7]] == [
        "broadcast",
        "reduce",
        "all_reduce",
        "gather",
        "all_gather",
        "scatter",
        "reduce_scatter",
    ], "the English note's order"
    assert runs[0].inputs == [[1, 2, 3, 4, 5], [], []], "the note's broadcast"
    assert runs[6].inputs[1] == [2, 4, 4, 16, 8, 64], "powers of rank + 1"
    assert runs[7].collective == "reduce" and runs[7].inputs[3] == [3] * 4, "the tutorial's ones times rank"
    for stage in lesson.stages:
        assert stage.caption.en and stage.caption.ko and stage.caption.zh and stage.code and stage.prints


def test_a_good_file_reads_and_counts_come_from_the_inputs():
    lesson = parse(GOOD, "two.toml")
    assert lesson.stages[0].run().count == 5 and lesson.stages[1].caption.zh == "全归约"
    assert lesson.stages[1].question.ask == "holds"


def test_the_docs_example_reads():
    text = (ROOT / "docs" / "lecture.md").read_text()
    example = re.search(r"```toml\n(.*?)```", text, re.S)[1]
    lesson = parse(example, "docs/lecture.md")
    assert [s.run().collective for s in lesson.stages] == ["broadcast", "all_reduce"]


CUSTOM = (
    'ask = "custom", text = { en = "How many?", ko = "몇 개?", zh = "几个？" }, '
    'choices = ["4", "6"], answer = 1'
)

BAD = [
    (GOOD.replace("count = 2", "count = -2"), "two.toml line 15: stage 2: count: must be positive"),
    (
        GOOD.replace("ranks = 3", "rank = 3"),
        "two.toml line 7: stage 1: rank: not a key here (algorithm, caption, code, collective, count, dtype, "
        "inputs, op, pattern, prints, question, ranks, root): did you mean ranks?",
    ),
    (GOOD.replace("[], []]", "[0], []]"), "two.toml line 8: stage 1: inputs: rank 1's input takes 0 values"),
    (
        GOOD.replace("ranks = 4", "ranks = 4\nroot = 9"),
        "two.toml line 14: stage 2: root: rank 9 is not in the group",
    ),
    (GOOD.replace('ko = "올리듀스"\n', ""), "two.toml line 18: stage 2: caption.ko: Field required"),
    (
        GOOD.replace('ask = "holds"', 'ask = "when"'),
        "two.toml line 16: stage 2: question.ask: Input should be",
    ),
    (
        GOOD.replace("version = 1", "version = 2"),
        "two.toml line 1: version: this Ringside reads version 1, not 2",
    ),
    (GOOD.replace('"all_reduce"\nranks', '"allreduce"\nranks'), "two.toml line 12: stage 2: collective:"),
    (GOOD.replace("count = 2", "count = 2 2"), "two.toml line 15: not TOML"),
    (
        GOOD.replace("rank = 1, step = 0", "rank = 4, step = 0"),
        "two.toml line 16: stage 2: question: rank 4 is not",
    ),
    (GOOD.replace("rank = 1, step = 0", "rank = 1, step = 2"), "two.toml line 16: stage 2: question: step 2"),
    (
        GOOD.replace('ask = "holds", rank = 1, step = 0', CUSTOM.replace("answer = 1", "answer = 2")),
        "two.toml line 16: stage 2: question.answer: there are 2 choices, numbered from 0: not 2",
    ),
    (
        GOOD.replace('ask = "holds", rank = 1, step = 0', CUSTOM.replace('choices = ["4", "6"], ', "")),
        "two.toml line 16: stage 2: question.choices: a custom question has 2 to 8 choices, not 0",
    ),
    (
        GOOD.replace('ask = "holds", rank = 1, step = 0', 'ask = "holds", rank = 1, step = 0, text = "Why?"'),
        "two.toml line 16: stage 2: question.text: only a custom question has its own text",
    ),
    (
        GOOD.replace('algorithm = "recursive_doubling"', 'algorithm = "native"'),
        "two.toml line 16: stage 2: question: step 0 (from 0): this run is native: it has no steps",
    ),
    (  # send/recv code: its steps are rebuilt from what it did, once it has run
        GOOD.replace(
            '"all_reduce"\nranks = 4\nalgorithm = "recursive_doubling"',
            '"send_recv"\nranks = 4\nalgorithm = "blocking"',
        ),
        "two.toml line 16: stage 2: question: step 0 (from 0): this run runs code: its steps come as it runs",
    ),
]


@pytest.mark.parametrize("text,said", BAD)
def test_a_wrong_field_is_refused_naming_its_line(text, said):
    with pytest.raises(LessonError) as info:
        parse(text, "two.toml")
    assert str(info.value).startswith(said), str(info.value)


def test_a_stage_asks_the_lecturers_own_question_and_the_room_reads_it_without_its_answer():
    from ringside.server.lessons.routes import asked

    lesson = parse(GOOD.replace('ask = "holds", rank = 1, step = 0', CUSTOM), "two.toml")
    question = lesson.stages[1].question
    assert question is not None and question.ask == "custom" and question.answer == 1
    lesson.stages[1].run()  # checked as any stage's
    room = asked(question)
    assert room["text"]["ko"] == "몇 개?" and room["choices"] == ["4", "6"]
    assert not {"answer", "number", "tolerance"} & room.keys(), "the room's copy of the lesson"
