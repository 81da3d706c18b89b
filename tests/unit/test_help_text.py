"""`--help` of the scripts a user runs first (the examples, `torchrun ... -m ringside.bench`) says what
they are in whole sentences: their description was the docstring's first line, cut mid-sentence
("... DistributedDataParallel on gloo, its")."""

from __future__ import annotations

import ast
import runpy
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
SCRIPTS = [
    ROOT / "examples" / f"{name}.py"
    for name in ("ddp_train", "pipeline_train", "spawn_workers", "two_groups")
]


def first_paragraph(path: Path) -> str:
    doc = ast.get_docstring(ast.parse(path.read_text()))
    return " ".join(doc.split("\n\n")[0].split())


def helped(capsys, run) -> str:
    with pytest.raises(SystemExit) as ended:
        run()
    assert ended.value.code == 0
    return " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_an_examples_help_says_its_first_paragraph_whole(script, capsys, monkeypatch):
    monkeypatch.setattr(sys, "argv", [str(script), "--help"])
    out = helped(capsys, lambda: runpy.run_path(str(script), run_name="__main__"))
    assert first_paragraph(script) in out, out[:600]


def test_the_torchrun_benchs_help_says_its_first_paragraph_whole(capsys):
    from ringside.bench.__main__ import main

    out = helped(capsys, lambda: main(["--help"]))
    assert first_paragraph(ROOT / "worker_agent" / "bench" / "__main__.py") in out, out[:600]
