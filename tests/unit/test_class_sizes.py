"""No class grows past the size the design sets (a class that long does more than one thing):
one function per language finds its classes and their lengths, and the test holds each language
to its limit."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
JS_LIMIT = 260  # lines, the class line and its closing brace included
PY_LIMIT = 220  # lines, decorators left out
PY_ROOTS = ("server", "worker_agent")

# `class X`, `export class X extends Y`, `export default class X`: its indent and name
JS_CLASS = re.compile(r"^(?P<indent>[ \t]*)(?:export\s+)?(?:default\s+)?class\s+(?P<name>\w+)\b")


def js_classes(path: Path) -> Iterator[tuple[str, int]]:
    """(name, lines) of each class in a JS module: from its `class` line to the first `}` at the
    start of a line with the same indent, as biome formats the page's modules."""
    lines = path.read_text().splitlines()
    for start, line in enumerate(lines):
        found = JS_CLASS.match(line)
        if not found or line.rstrip().endswith("}"):  # a one-line class
            continue
        close = re.compile(re.escape(found["indent"]) + r"\}")
        end = next((i for i in range(start + 1, len(lines)) if close.match(lines[i])), None)
        assert end is not None, f"{path}:{start + 1}: class {found['name']} has no closing brace"
        yield found["name"], end - start + 1


def py_classes(path: Path) -> Iterator[tuple[str, int]]:
    """(name, lines) of each class in a Python module, nested ones too, as its syntax tree spans it."""
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ClassDef):
            yield node.name, (node.end_lineno or node.lineno) - node.lineno + 1


def oversized(files: list[Path], classes, limit: int) -> list[tuple[Path, str, int]]:
    """(path, name, lines) for every class in `files` that `classes` (a language's function
    above) finds longer than `limit` lines."""
    return [(path, name, n) for path in files for name, n in classes(path) if n > limit]


def test_the_parser_measures_a_class_to_its_own_closing_brace(tmp_path):
    module = tmp_path / "m.js"
    module.write_text(
        "export class A extends EventTarget {\n  f() {\n    if (x) {\n    }\n  }\n}\n"
        "class B {}\n"
        "  class C {\n  }\n"
    )
    assert list(js_classes(module)) == [("A", 6), ("C", 2)]
    assert oversized([module], js_classes, 5) == [(module, "A", 6)]


def test_no_js_class_is_over_its_limit():
    files = sorted((ROOT / "frontend" / "js").rglob("*.js"))
    assert files, "no page modules found"
    found = oversized(files, js_classes, JS_LIMIT)
    assert found == [], [f"{p.relative_to(ROOT)}: {name} {n} lines" for p, name, n in found]


def test_python_classes_are_measured_whole_nested_ones_too(tmp_path):
    module = tmp_path / "m.py"
    module.write_text(
        "class A:\n    x = 1\n\n    class B:\n        y = 2\n\n    def f(self):\n        pass\n"
    )
    assert sorted(py_classes(module)) == [("A", 8), ("B", 2)]


def test_no_python_class_is_over_its_limit():
    files = sorted(path for root in PY_ROOTS for path in (ROOT / root).rglob("*.py"))
    found = oversized(files, py_classes, PY_LIMIT)
    assert found == [], [f"{p.relative_to(ROOT)}: {name} {n} lines" for p, name, n in found]
