"""The frontend's pure logic (replay, layouts) under node's own test runner."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_javascript_unit_tests_pass():
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    done = subprocess.run([node, "--test", str(ROOT / "tests" / "js")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "# fail 0" in done.stdout


def test_the_frontend_stays_small():
    """The project's own JS and CSS (plotly.js is served from the installed package)."""
    size = sum(p.stat().st_size for p in (ROOT / "frontend").rglob("*") if p.suffix in (".js", ".css", ".html"))
    assert size < 200 * 1024, f"{size} bytes"
