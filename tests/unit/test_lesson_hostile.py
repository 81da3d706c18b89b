"""A lesson file that no lecturer writes (nested thousands deep, a number of thousands of digits, a key
of thousands of parts, a field of a megabyte, a device for a file) is refused as a wrong field is: one
short line naming the file and its line, never a traceback (`ringside up` prints it and exits 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ringside.server.lessons.reading import MAX_FILE_BYTES, LessonError, load, parse

DEEP = 5000
NESTED = "arrays or tables nested thousands deep"
STAGE = """version = 1
title = { en = "a", ko = "b", zh = "c" }

[[stages]]
collective = "broadcast"
ranks = 2
caption = { en = "a", ko = "b", zh = "c" }
"""

HOSTILE = [
    ("version = 1\nx = " + "[" * DEEP + "]" * DEEP + "\n", 2, NESTED),
    ("version = 1\nx = " + "{a = " * DEEP + "1" + "}" * DEEP + "\n", 2, NESTED),
    ("version = 1\n" + ".".join(["a"] * DEEP) + " = 1\n", 2, "a key of more than 16 dotted parts"),
    ("version = 1\n[" + " . ".join(['"a"'] * DEEP) + "]\n", 2, "a key of more than 16 dotted parts"),
    ("version = " + "9" * DEEP + "\n", 1, f"a number of {DEEP} digits"),
    (STAGE + "count = " + "1_0" * DEEP + "\n", 8, f"a number of {2 * DEEP} digits"),
    ("version = '" + "x" * 100_000 + "'\n", 1, "version: this Ringside reads version 1, not 'xxx"),
    (STAGE.replace('"broadcast"', '"a\\nb' + "c" * DEEP + '"'), 5, "stage 1: collective: Input should be"),
    (STAGE.replace("ranks = 2", "ranks = 2\nalgorithm = 'x\ty" + "z" * DEEP + "'"), 7, "stage 1: algorithm:"),
]


@pytest.mark.parametrize("text,line,why", HOSTILE)
def test_a_hostile_file_is_refused_in_one_short_line_naming_its_line(text, line, why):
    with pytest.raises(LessonError) as refused:
        parse(text, "hostile.toml")
    said = str(refused.value)
    assert said.startswith(f"hostile.toml line {line}: {why}"), said[:300]
    assert "\n" not in said and "\t" not in said and len(said) < 300, said[:300]


def test_a_file_past_the_bound_is_refused_unread_even_one_without_a_size(tmp_path):
    big = tmp_path / "big.toml"
    big.write_text("version = 1\n" + "#" * MAX_FILE_BYTES)
    for path in (big, Path("/dev/zero")):  # a device says its size is 0, and never ends
        with pytest.raises(LessonError, match=r"over 1 MiB: a lesson is a page of stages"):
            load(path)
