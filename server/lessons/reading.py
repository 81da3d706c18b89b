"""A lesson file read and checked, every error naming its line ("lesson.toml line 14: stage 3:
count: must be positive"), so a lecturer fixes it before the lecture, not during it.

TOML, read by tomllib (Python 3.11 on; tomli, the same parser, on 3.10). tomllib gives no
positions, so an error's line is found again in the text from the field's path: the stage's
`[[stages]]` header, then its key or its `[stages.key]` table. Whatever the file holds (arrays
nested thousands deep, a number of thousands of digits, a field of a megabyte), the error is one
line of a few hundred characters at most."""

from __future__ import annotations

import difflib
import re
import sys
import typing
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

from pydantic import BaseModel, ValidationError

from ringside.worker_agent.core.validation import SpecError

from .lesson import Lesson

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the 3.10 dependency in pyproject.toml
    import tomli as tomllib  # type: ignore[import-not-found, no-redef, unused-ignore]

MAX_FILE_BYTES = 1 << 20
MAX_WHY = 200  # characters of an error's reason: what it repeats of the file (a name, a value) is cut
SEED = "seed.toml"
STAGE_HEADER = re.compile(r"^\s*\[\[\s*stages\s*\]\]")
TOML_LINE = re.compile(r"\(at line (\d+), column \d+\)$")
CONTROL = re.compile(r"[\x00-\x1f\x7f]")
DIGITS = re.compile(r"[0-9][0-9_]*")
MAX_KEY_PARTS = 16  # a lesson's keys have three (stages.caption.en); tomllib's time grows as their square
# a dotted key (or a table's name): bare or quoted parts joined by dots; a float is two parts
_PART = r"""(?:[A-Za-z0-9_-]+|"[^"\n]*"|'[^'\n]*')"""
KEY_CHAIN = re.compile(rf"(?<![A-Za-z0-9_-]){_PART}(?:[ \t]*\.[ \t]*{_PART}){{{MAX_KEY_PARTS},}}")
SPEC_FIELDS = {"group": "ranks", "pattern": "inputs", "capture": "collective"}  # a run's field: the stage's


class LessonError(ValueError):
    """A lesson that cannot be given, with the file and line that say why."""


def seed() -> Lesson:
    """The seed lecture, shipped with the package in English, Korean and Chinese."""
    text = resources.files("ringside.server.lessons").joinpath(SEED).read_text(encoding="utf-8")
    return parse(text, SEED)


def load(path: Path) -> Lesson:
    try:
        with path.open("rb") as file:  # read to the bound, not to its size: a pipe or a device has none
            data = file.read(MAX_FILE_BYTES + 1)
        if len(data) > MAX_FILE_BYTES:
            raise LessonError(f"{path}: over {MAX_FILE_BYTES >> 20} MiB: a lesson is a page of stages")
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise LessonError(f"{path}: {one_line(str(e))}") from None
    return parse(text, str(path))


def parse(text: str, name: str) -> Lesson:
    """The lesson in `text`, checked whole: its fields, then each stage's run as any run is."""
    data = _toml(text, name)
    if data.get("version", 1) != 1:  # before the fields: another version may mean other fields
        line = line_of(text, ("version",))
        raise refused(name, line, f"version: this Ringside reads version 1, not {data['version']!r}")
    try:
        lesson = Lesson.model_validate(data)
    except ValidationError as e:
        # a misspelt key first: the key it misses follows from it
        first = min(e.errors(), key=lambda error: error["type"] != "extra_forbidden")
        path, why = tuple(first["loc"]), first["msg"].removeprefix("Value error, ")
        if first["type"] == "extra_forbidden":
            why = misspelt(path)
        raise refused(name, line_of(text, path), f"{said(path)}: {why}") from None
    for i, stage in enumerate(lesson.stages):
        try:
            stage.run()
        except SpecError as e:
            path = ("stages", i, *SPEC_FIELDS.get(e.field, e.field).split("."))
            raise refused(name, line_of(text, path), f"{said(path)}: {e.message}") from None
    return lesson


def _toml(text: str, name: str) -> dict:
    """The file's TOML, or the line that is not. tomllib reads nesting by recursion, integers with
    int() (whose 4,300-digit limit is Python's) and a dotted key in time that grows as its parts'
    square: each is refused here naming its line."""
    deep = KEY_CHAIN.search(text)
    if deep:  # read by tomllib, a key of thousands of parts takes hours
        why = f"a key of more than {MAX_KEY_PARTS} dotted parts: a lesson's have three at most"
        raise refused(name, text.count("\n", 0, deep.start()) + 1, why)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        found = TOML_LINE.search(str(e))
        where = f" line {found[1]}" if found else ""
        raise LessonError(f"{name}{where}: not TOML: {one_line(TOML_LINE.sub('', str(e)).strip())}") from None
    except RecursionError:
        why = "arrays or tables nested thousands deep: a lesson's go a few levels down"
        raise refused(name, deepest_line(text), why) from None
    except ValueError:  # not TOMLDecodeError: int() refused a number of thousands of digits
        line, digits = longest_number(text)
        raise refused(name, line, f"a number of {digits} digits: a lesson's are a few digits long") from None


def refused(name: str, line: int, why: str) -> LessonError:
    return LessonError(f"{name} line {line}: {one_line(why)}")


def one_line(text: str, limit: int = MAX_WHY) -> str:
    """`text` on one line (a control character written as its escape), cut to `limit` characters."""
    text = CONTROL.sub(lambda found: repr(found[0])[1:-1], text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def deepest_line(text: str) -> int:
    """The line where brackets and braces open deepest (strings not told apart: only for naming it)."""
    depth, deepest, line, at = 0, -1, 1, 1
    for char in text:
        if char == "\n":
            line += 1
        elif char in "[{":
            depth += 1
            if depth > deepest:
                deepest, at = depth, line
        elif char in "]}":
            depth -= 1
    return at


def longest_number(text: str) -> tuple[int, int]:
    """The line of the longest run of digits, and its digits (TOML's underscores not counted)."""
    runs = [(len(found[0].replace("_", "")), found.start()) for found in DIGITS.finditer(text)]
    digits, start = max(runs, default=(0, 0))
    return text.count("\n", 0, start) + 1, digits


def misspelt(path: Sequence[str | int]) -> str:
    """Why a key its table does not take is refused, and the one it may have meant there."""
    keys = sorted(keys_at(Lesson, path[:-1]))
    near = difflib.get_close_matches(str(path[-1]), keys, n=1, cutoff=0.6)
    return f"not a key here ({', '.join(keys)})" + (f": did you mean {near[0]}?" if near else "")


def keys_at(model: type[BaseModel], path: Sequence[str | int]) -> list[str]:
    """The keys the table at `path` takes (a list's index passed over)."""
    for key in path:
        if isinstance(key, int):
            continue
        field = model.model_fields.get(str(key))
        inner = _models_in(field.annotation) if field is not None else []
        if not inner:
            return []
        model = inner[0]
    return [field.alias or name for name, field in model.model_fields.items()]


def _models_in(annotation) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in typing.get_args(annotation) for m in _models_in(arg)]


def said(path: Sequence[str | int]) -> str:
    """A field's path as a lecturer reads it: "stage 3: count" (stages counted from 1)."""
    if len(path) >= 2 and path[0] == "stages" and isinstance(path[1], int):
        rest = ".".join(str(p) for p in path[2:])
        return f"stage {path[1] + 1}" + (f": {rest}" if rest else "")
    return ".".join(str(p) for p in path)


def line_of(text: str, path: Sequence[str | int]) -> int:
    """The 1-based line where `path`'s field is written; else the nearest enclosing one's."""
    lines = text.splitlines()
    start, end, keys = 0, len(lines), list(path)
    if keys[:1] == ["stages"]:
        headers = [n for n, line in enumerate(lines) if STAGE_HEADER.match(line)]
        if len(keys) < 2 or not isinstance(keys[1], int) or keys[1] >= len(headers):
            return headers[0] + 1 if headers else 1
        start = headers[keys[1]]
        end = headers[keys[1] + 1] if keys[1] + 1 < len(headers) else len(lines)
        keys, table = keys[2:], "stages."
    else:  # the lesson's own keys (and its [title]) come before its stages
        end = next((n for n, line in enumerate(lines) if STAGE_HEADER.match(line)), len(lines))
        table = ""
    found = start
    for key in (k for k in keys if isinstance(k, str)):
        at = _key_line(lines, found, end, key, table)
        if at is None:
            break
        found, table = at, f"{table}{key}."
    return found + 1


def _key_line(lines: list[str], start: int, end: int, key: str, table: str) -> int | None:
    """Where `key = ` or its table `[<table><key>]` is written between lines start and end."""
    assignment = re.compile(rf"^\s*{re.escape(key)}\s*=")
    header = re.compile(rf"^\s*\[\s*{re.escape(table + key)}\s*\]")
    for n in range(start, end):
        if assignment.match(lines[n]) or header.match(lines[n]):
            return n
    return None
