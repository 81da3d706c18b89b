"""schemathesis against the server's own OpenAPI schema: whatever a client sends, no 5xx,
and every answer is one the schema documents. Without a token every mutating endpoint must
refuse (401), never crash, and the reading ones are fuzzed with everything the schema
allows; with the presenter's token every operation is, against ranks that take their runs
and never finish them (so the queue fills, as a flood would fill it)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from server_helpers import PRESENTER_TOKEN, ScriptedRank, start_serve, start_up

pytestmark = pytest.mark.slow  # schemathesis over every operation: runs in CI, not on every edit


def schemathesis(url: str, tmp_path: Path, *headers: str) -> None:
    """One worker: CPython 3.11's ast.parse in two threads at once can fail (python/cpython#106905,
    "AST constructor recursion depth mismatch"), and hypothesis parses its strategies' lambdas."""
    st = Path(sys.executable).parent / "st"
    done = subprocess.run(
        [
            str(st),
            "run",
            f"{url}/openapi.json",
            *headers,
            "--checks",
            "not_a_server_error,status_code_conformance,response_schema_conformance,content_type_conformance",
            "--max-examples",
            "25",
            "--phases",
            "examples,coverage,fuzzing",
            "--workers",
            "1",
            "--no-color",
            # a first prediction at a new P builds its schedules: on a busy machine, seconds
            "--request-timeout",
            "60",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "passed" in done.stdout.lower()


def test_no_request_makes_the_server_fail(tmp_path):
    up = start_up(tmp_path, ranks=2)
    try:
        up.run(collective="all_reduce", algorithm="ring", count=4)  # something for the readers to find
        schemathesis(up.url, tmp_path)
        assert up.call("GET", "/api/health")[1]["live_ranks"] == 2
    finally:
        up.stop()


def test_no_request_with_the_presenter_token_makes_the_server_fail(tmp_path):
    server = start_serve(tmp_path)
    ranks = [ScriptedRank(server, r, 2) for r in range(2)]
    try:
        server.wait_ranks(2)
        schemathesis(server.url, tmp_path, "-H", f"Authorization: Bearer {PRESENTER_TOKEN}")
        assert server.call("GET", "/api/health")[1]["live_ranks"] == 2
    finally:
        for rank in ranks:
            rank.close()
        server.stop()
