"""A run previewed (POST /api/runs/preview), against a real server with four real gloo ranks: what
the page draws before anything has run is what the run, once run, starts from: its schedule, its
chunks and every rank's inputs as the ranks report them, at any capture level and in a group;
run by nobody, kept nowhere, and a spec the server would refuse is refused alike; and any page
may ask for the largest one without holding up anyone else."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from ringside.worker_agent.core.validation import MAX_BUFFER_BYTES

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
    assert up.call("GET", "/api/runs/preview")[0] == 405, "the path takes POST: no run is read by that name"


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


def late_by_over_a_second(up) -> float:
    """How often the server's event loop has woken over a second late (its own measure, /metrics)."""
    text = up.call("GET", "/metrics", token=None)[1]
    lines = dict(line.rsplit(" ", 1) for line in text.splitlines() if not line.startswith("#"))
    return float(lines["ringside_event_loop_lag_seconds_count"]) - float(
        lines['ringside_event_loop_lag_seconds_bucket{le="1"}']
    )


def test_the_largest_preview_any_page_may_ask_for_holds_up_no_other_request(up):
    """A buffer of 64 MiB a rank, in summary: made on the event loop, as Python numbers, three such
    previews from one phone held every request and socket of the server for half a minute."""
    count = MAX_BUFFER_BYTES // 4  # float32
    spec = {"collective": "all_reduce", "algorithm": "ring", "count": count, "capture": "summary"}
    before = late_by_over_a_second(up)
    with ThreadPoolExecutor(3) as pool:
        made = list(pool.map(lambda _: up.call("POST", "/api/runs/preview", spec, token=None), range(3)))
    assert [status for status, _ in made] == [200] * 3, made[0][1]
    first = made[0][1]["inputs"]
    chunks = [c for rank in first.values() for c in rank]
    assert len(first) == P and all(c["values"] is None and c["max"] for c in chunks), "a summary each"
    assert made[1][1]["inputs"] == made[2][1]["inputs"] == first
    assert late_by_over_a_second(up) == before, "the loop served everyone else while they were made"
