"""Pick through a real server and four real gloo ranks: the server resolves `auto` and `chunks:
auto` at submit, from the model fitted to this cluster's own runs, and the run records what it
chose and why. The choice itself: tests/unit/test_auto_pick.py; bad input refused:
tests/unit/test_run_requests_refused.py; the page that shows it: tests/page/test_auto.py."""

from __future__ import annotations

from ringside.worker_agent.core import predict as pm
from ringside.worker_agent.core.simulate import Sharing

ALGORITHMS = pm.stepwise("all_reduce")


def test_a_served_auto_run_records_its_choice(up):
    first = up.run(collective="all_reduce", algorithm="auto", count=4096)
    assert first["state"] == "done" and first["choice"]["asked"]["algorithm"] == "auto"
    # nothing measured yet: native, and why
    assert first["spec"]["algorithm"] == first["choice"]["algorithm"] == "native"
    assert "no stepwise runs fitted" in first["choice"]["why"]
    for algorithm, count in (("ring", 256), ("tree", 4096), ("rabenseifner", 16384), ("native", 64)):
        assert (
            up.run(collective="all_reduce", algorithm=algorithm, count=count, iterations=2)["state"] == "done"
        )
    ran = up.run(collective="all_reduce", algorithm="tree", count=1024, iterations=2)
    assert ran["prediction"]["time"] > 0 and ran["prediction"]["measured"] == ran["time"]
    placement = [(r["host"], r["cores"]) for r in up.cluster()["ranks"]]
    assert all(cores >= 1 for _, cores in placement)  # CPU ranks say how many cores they may run on
    assert ran["sharing"] == Sharing.of(placement).to_json()  # [[[0, 1, 2, 3], 2]] on a 2-core machine
    auto = up.run(collective="all_reduce", algorithm="auto", count=2048)
    choice = auto["choice"]
    assert auto["state"] == "done" and auto["spec"]["algorithm"] == choice["algorithm"]
    assert (
        "this cluster's runs" in choice["params"]["source"]
        and len(choice["candidates"]) == len(ALGORITHMS) + 1
    )
    stepwise = sorted(
        (c for c in choice["candidates"] if c["algorithm"] != "native"), key=lambda c: c["time"]
    )
    assert choice["algorithm"] in ("native", stepwise[0]["algorithm"])
    _, fit = up.call("GET", "/api/model/fit")
    assert fit["fitted_from_runs"] >= 4 and fit["rms_error"] is not None and fit["heldout"]["sizes"] >= 2
    assert any(n["collective"] == "all_reduce" and n["ranks"] == 4 for n in fit["native"])


def test_a_served_chunks_auto_run_records_the_count(up):
    run = up.run(collective="broadcast", algorithm="ring", count=1 << 16, chunks="auto")
    assert run["state"] == "done" and run["verified"] is True
    assert (
        run["spec"]["chunks"] == run["choice"]["chunks"] >= 1 and run["choice"]["asked"]["chunks"] == "auto"
    )
    assert (
        run["schedule"]["pieces"] == run["spec"]["chunks"]
        and "chunks: predicted fastest" in run["choice"]["why"]
    )
