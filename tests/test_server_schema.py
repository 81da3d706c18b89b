"""schemathesis against the server's own OpenAPI schema: whatever a client sends, no 5xx.
Requests carry no token, so every mutating endpoint must refuse (401), never crash;
the reading ones are fuzzed with everything the schema allows."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from server_helpers import start_up

pytestmark = pytest.mark.slow  # schemathesis over every operation: runs in CI, not on every edit


def test_no_request_makes_the_server_fail(tmp_path):
    up = start_up(tmp_path, ranks=2)
    try:
        up.run(collective="all_reduce", algorithm="ring", count=4)  # something for the readers to find
        st = Path(sys.executable).parent / "st"
        done = subprocess.run(
            [str(st), "run", f"{up.url}/openapi.json", "--checks", "not_a_server_error,status_code_conformance,response_schema_conformance,content_type_conformance",
             "--max-examples", "25",
             "--phases", "examples,coverage,fuzzing", "--workers", "2", "--no-color"],
            capture_output=True, text=True, timeout=600, cwd=tmp_path,
        )
        assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
        assert "passed" in done.stdout.lower()
        assert up.call("GET", "/api/health")[1]["live_ranks"] == 2
    finally:
        up.stop()
