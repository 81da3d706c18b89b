"""A tests/js script run by node on JSON in, JSON out (the page's own modules, without a browser)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parents[1] / "js"


def node_json(script: str, payload: dict):
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    done = subprocess.run(
        [node, str(SCRIPTS / script)], capture_output=True, text=True, timeout=120, input=json.dumps(payload)
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)
