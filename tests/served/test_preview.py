"""A run previewed (POST /api/runs/preview), against a real server with four real gloo ranks: what
the page draws before anything has run is what the run, once run, starts from: its schedule, its
chunks and every rank's inputs as the ranks report them, at any capture level and in a group;
run by nobody, kept nowhere, and a spec the server would refuse is refused alike."""

from __future__ import annotations

import pytest

P = 4
pytestmark = pytest.mark.cluster(ranks=P)

SPECS = [
    {"collective": "all_reduce", "algorithm": "ring", "count": 8, "pattern": "digits"},
    {"collective": "scatter", "algorithm": "binomial_tree", "count": 4, "pattern": "index", "root": 2},
    {"collective": "all_to_all", "algorithm": "pairwise", "count": 2, "group": [1, 2, 3], "root": 1},
    {
        "collective": "all_gather",
        "algorithm": "ring",
        "count": 3,
        "dtype": "bfloat16",
        "pattern": "random_float",
    },
    {"collective": "broadcast", "algorithm": "native", "count": 5, "capture": "summary"},
]
SAME = ("schedule", "chunk_bounds", "input_chunks", "group", "layout", "display", "steps")


@pytest.mark.parametrize("spec", SPECS, ids=[f"{s['collective']}-{s['algorithm']}" for s in SPECS])
def test_a_preview_starts_where_the_run_starts(up, spec):
    status, preview = up.call("POST", "/api/runs/preview", spec, token=None)
    assert status == 200, preview
    assert preview["id"] == "preview" and preview["started_at"] is None
    run = up.run(**spec, iterations=1, warmup=0)
    assert run["state"] == "done", run["error"]
    assert preview["inputs"] == run["inputs"], "every rank's buffer before the first step"
    for field in SAME:
        want = run[field] if field != "steps" else [{**s, "ranks": {}} for s in run["steps"]]
        got = preview[field] if field != "steps" else [{**s, "ranks": {}} for s in preview["steps"]]
        if field == "display":  # what the run measured is the run's
            want = {**want, "formula": want["formula"] and {**want["formula"], "measured": None}}
        assert got == want, field


def test_a_preview_is_run_by_nobody_and_kept_nowhere(up):
    before = up.call("GET", "/api/runs?limit=200")[1]["total"]
    spec = {"collective": "reduce", "algorithm": "binomial_tree", "count": 4}
    assert up.call("POST", "/api/runs/preview", spec, token=None)[0] == 200
    assert up.call("GET", "/api/runs?limit=200")[1]["total"] == before
    assert up.call("GET", "/api/runs/preview")[0] == 404


@pytest.mark.parametrize(
    "spec, field",
    [
        ({"collective": "broadcast", "algorithm": "ring", "root": P}, "root"),
        ({"collective": "all_reduce", "algorithm": "ring", "op": "BAND", "dtype": "float32"}, "op"),
        ({"collective": "all_reduce", "algorithm": "custom"}, "schedule"),
    ],
)
def test_a_spec_the_server_would_refuse_is_refused_in_preview_too(up, spec, field):
    status, body = up.call("POST", "/api/runs/preview", spec, token=None)
    assert status == 422 and field in str(body["detail"]), body
