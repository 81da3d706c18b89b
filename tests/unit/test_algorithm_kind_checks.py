"""Code asks an algorithm's record what kind it is (its properties planned, built, given, traced,
reference, chosen: worker_agent/core/algorithms/registry.py), and never compares kinds itself
(DESIGN.md, "Six nouns"). This test counts the checks that do, and fails when there are more than
MAX_OUTSIDE.

The pattern: in the project's Python (server/, worker_agent/ and bench/), outside the record's own package
(worker_agent/core/algorithms/), each comparison (==, !=, is, is not, in, not in) that

- has on one side a kind's name or the name of a record every collective has: one of the strings
  "native", "auto", "custom", "traced", "schedule" (alone, or in a tuple, list or set), the
  registry's NATIVE, AUTO or CUSTOM, or a member of Kind (`record.kind is Kind.CUSTOM`); or
- compares a `schedule` attribute with None (`run.schedule is None`, `spec.schedule is not None`):
  a run's, a spec's or an event's field, whose None says "native" or "not custom" without asking.

A local variable named `schedule` compared with None is not counted: it holds what a function that
asked the record returned (run_shape.schedule_of, Run.stepwise), and None is that function's answer.
A chunk count's "auto" is spelled AUTO_CHUNKS (protocol.py): it names no algorithm."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).parents[2]
CODE = ("server", "worker_agent", "bench")
RECORD = ROOT / "worker_agent" / "core" / "algorithms"
MAX_OUTSIDE = 8
KIND_WORDS = {"native", "auto", "custom", "traced", "schedule"}
KIND_NAMES = {"NATIVE", "AUTO", "CUSTOM"}


def names_a_kind(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return node.value in KIND_WORDS
    if isinstance(node, ast.Name):
        return node.id in KIND_NAMES
    if isinstance(node, ast.Attribute):
        return isinstance(node.value, ast.Name) and node.value.id == "Kind"
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(names_a_kind(e) for e in node.elts)
    return False


def schedule_field_against_none(compare: ast.Compare) -> bool:
    sides = [compare.left, *compare.comparators]
    return (
        any(isinstance(op, (ast.Is, ast.IsNot)) for op in compare.ops)
        and any(isinstance(s, ast.Attribute) and s.attr == "schedule" for s in sides)
        and any(isinstance(s, ast.Constant) and s.value is None for s in sides)
    )


def is_kind_check(compare: ast.Compare) -> bool:
    sides = [compare.left, *compare.comparators]
    return any(names_a_kind(s) for s in sides) or schedule_field_against_none(compare)


def kind_checks(source: str, where: str) -> list[str]:
    """Each comparison of the pattern in `source`, as "where:line: the comparison"."""
    return [
        f"{where}:{node.lineno}: {ast.unparse(node)}"
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Compare) and is_kind_check(node)
    ]


def code_files() -> list[Path]:
    return sorted(
        path
        for folder in CODE
        for path in (ROOT / folder).rglob("*.py")
        if RECORD not in path.parents and ".venv" not in path.parts
    )


def test_the_pattern_finds_each_form_of_a_kind_check_and_nothing_else():
    source = """
if spec.algorithm == "native": pass
if algorithm.name in (asked, "auto"): pass
if c.algorithm != NATIVE: pass
if found.kind is Kind.CUSTOM: pass
if run.schedule is None: pass
if spec.schedule is not None: pass
if schedule is None: pass
if record.reference or run.algorithm.traced: pass
if spec.chunks == AUTO_CHUNKS: pass
"""
    found = kind_checks(source, "x.py")
    assert [line.split(": ", 1)[1] for line in found] == [
        "spec.algorithm == 'native'",
        "algorithm.name in (asked, 'auto')",
        "c.algorithm != NATIVE",
        "found.kind is Kind.CUSTOM",
        "run.schedule is None",
        "spec.schedule is not None",
    ]


def test_the_code_compares_algorithm_kinds_outside_the_record_at_most_max_outside_times():
    found = [
        check
        for path in code_files()
        for check in kind_checks(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    ]
    assert code_files(), "the code is where the test looks"
    assert len(found) <= MAX_OUTSIDE, (
        f"{len(found)} algorithm-kind checks outside the record (at most {MAX_OUTSIDE}): ask the record's "
        "properties (planned, built, given, traced, reference, chosen) or Run.algorithm instead:\n"
        + "\n".join(found)
    )
