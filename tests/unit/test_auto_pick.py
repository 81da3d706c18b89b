"""Pick, pure: `auto` runs the schedule the model ranks first, or native where native is predicted
fastest (or where nothing measured can say otherwise); `chunks: auto` takes the count the model
predicts fastest; resolve makes both concrete and keeps why, and resolves only a spec that could
run. What a served run records of its choice: tests/served/test_auto_served.py."""

from __future__ import annotations

import pytest

from ringside.server.model import costs as model
from ringside.worker_agent.core import predict as pm
from ringside.worker_agent.core.protocol import RunSpec
from ringside.worker_agent.core.validation import SpecError

TRUTH = pm.Params(60e-6, 1e-9, 0.5e-9, "fitted to synthetic runs")
ALGORITHMS = pm.stepwise("all_reduce")


def fitted(params: pm.Params = TRUTH) -> pm.Fitted:
    samples = [
        pm.Sample(*t, params.time(t), size)
        for size in (1 << 10, 1 << 16, 1 << 22)
        for a in ALGORITHMS
        for t in [pm.terms("all_reduce", a, 4, size, 4)]
    ]
    return pm.solve(samples)


def predicted(size: int) -> dict[str, float]:
    return {a: TRUTH.time(pm.terms("all_reduce", a, 4, size, 4)) for a in ALGORITHMS}


@pytest.mark.parametrize("size", [1 << 10, 1 << 14, 1 << 18, 1 << 22, 1 << 26])
def test_auto_picks_the_schedule_the_model_ranks_first(size):
    times = predicted(size)
    slow_native = pm.NativeFit(latency=1.0, per_byte=0.0, runs=4, rms_error=0.0)  # a second per call
    choice = pm.pick("all_reduce", 4, 0, size, 4, fitted(), slow_native, ALGORITHMS)
    assert choice.algorithm == min(times, key=times.get)
    ranked = [c.algorithm for c in choice.candidates]
    assert ranked[0] == "native" and ranked[1] == choice.algorithm and len(ranked) == len(ALGORITHMS) + 1
    assert choice.algorithm in choice.why and "predicted fastest" in choice.why


def test_native_where_native_is_predicted_fastest_or_nothing_can_tell():
    size = 1 << 20
    best = min(predicted(size).values())
    fast_native = pm.NativeFit(latency=best * 0.95, per_byte=0.0, runs=3, rms_error=0.0)
    assert pm.pick("all_reduce", 4, 0, size, 4, fitted(), fast_native, ALGORITHMS).algorithm == "native"
    within_margin = pm.NativeFit(latency=best / (pm.MARGIN + 0.01), per_byte=0.0, runs=3, rms_error=0.0)
    assert pm.pick("all_reduce", 4, 0, size, 4, fitted(), within_margin, ALGORITHMS).algorithm == "native"
    no_native = pm.pick("all_reduce", 4, 0, size, 4, fitted(), None, ALGORITHMS)
    assert no_native.algorithm == "native" and "no native all_reduce runs" in no_native.why
    unfitted = pm.pick("all_reduce", 4, 0, size, 4, pm.solve([]), fast_native, ALGORITHMS)
    assert unfitted.algorithm == "native" and "no stepwise runs fitted" in unfitted.why


def test_a_model_that_errs_more_asks_more_of_a_schedule():
    rough = pm.solve(
        [
            pm.Sample(s.steps, s.bytes, s.reduced, s.time * (1.6 if i % 2 else 0.5), s.size)
            for i, s in enumerate(fitted().samples)
        ]
    )
    share, why = pm.margin(rough)
    assert share == pytest.approx(max(0.0, min(pm.MARGIN, 1 - rough.heldout["median"]))) and share < pm.MARGIN
    assert "on sizes held out" in why and pm.margin(fitted())[0] == pytest.approx(pm.MARGIN)
    size = 1 << 20
    # a schedule predicted at a share between the two margins
    for model_, chosen in ((rough, False), (fitted(), True)):
        best = min(model_.params.time(pm.terms("all_reduce", a, 4, size, 4)) for a in ALGORITHMS)
        between = pm.NativeFit(latency=best / ((share + pm.MARGIN) / 2), per_byte=0.0, runs=3, rms_error=0.0)
        assert (
            pm.pick("all_reduce", 4, 0, size, 4, model_, between, ALGORITHMS).algorithm != "native"
        ) == chosen


def test_auto_never_runs_what_measured_slower_at_that_size():
    """Issue 21's table: native predicted within the margin of the best schedule, so the model keeps
    native, but rabenseifner measured 0.69× native at 64 MiB in the same table: auto runs rabenseifner.
    And a schedule the model ranks first gives way to native where native measured faster there."""
    size, sizes = 64 << 20, (1 << 10, 1 << 16, 1 << 22, 64 << 20)
    native_time = {
        n: 0.9 * min(TRUTH.time(pm.terms("all_reduce", a, 4, n, 4)) for a in ALGORITHMS) for n in sizes
    }
    samples = [
        pm.Sample(*t, TRUTH.time(t), n)
        for n in sizes
        for a in ALGORITHMS
        for t in [pm.terms("all_reduce", a, 4, n, 4)]
    ]
    rab = pm.terms("all_reduce", "rabenseifner", 4, size, 4)
    samples = [
        s
        if (s.size, (s.steps, s.bytes, s.reduced)) != (size, rab)
        else pm.Sample(*rab, 0.69 * native_time[size], size)
        for s in samples
    ]
    native = pm.fit_native(list(native_time.items()))
    model_only = pm.pick(
        "all_reduce", 4, 0, size, 4, pm.solve(samples[: -len(ALGORITHMS)]), native, ALGORITHMS
    )
    assert model_only.algorithm == "native"  # nothing measured at 64 MiB: the prediction stands
    choice = pm.pick("all_reduce", 4, 0, size, 4, pm.solve(samples), native, ALGORITHMS)
    assert (
        choice.algorithm == "rabenseifner"
        and "measured fastest at 64 MiB" in choice.why
        and "the model ranked native first" in choice.why
    )
    # the model's first choice, measured slower than native at this size: native
    first = pm.pick("all_reduce", 4, 0, 1 << 22, 4, fitted(), pm.NativeFit(1.0, 0.0, 3, 0.0), ALGORITHMS)
    assert first.algorithm != "native"
    quick = pm.NativeFit(1.0, 0.0, 3, 0.0, points=((float(1 << 22), 1e-6),))
    again = pm.pick("all_reduce", 4, 0, 1 << 22, 4, fitted(), quick, ALGORITHMS)
    assert again.algorithm == "native" and f"the model ranked {first.algorithm} first" in again.why


def test_chunks_auto_pipelines_a_large_broadcast_and_not_a_small_one():
    params = pm.Params(10e-6, 1e-9, 0.0, "test")
    big, tried = pm.best_chunks("broadcast", "ring", 8, 0, 64 << 20, 4, params)
    assert big > 1 and tried[big] == min(tried.values()) and tried[big] < tried[1]
    small, tried = pm.best_chunks("broadcast", "ring", 8, 0, 64, 4, params)
    assert small == 1 and tried[1] == min(tried.values())


def test_resolve_makes_auto_concrete_and_keeps_the_why():
    fit = model.Fit()
    fit.model = fitted()
    fit.native = {("all_reduce", 4): pm.NativeFit(1.0, 0.0, 3, 0.0)}
    spec, choice = model.resolve(
        RunSpec(collective="all_reduce", algorithm="auto", count=1 << 20), 4, "gloo", fit
    )
    times = predicted(4 << 20)
    assert spec.algorithm == min(times, key=times.get) == choice["algorithm"] and spec.chunks == 1
    assert (
        choice["asked"] == {"algorithm": "auto", "chunks": 1}
        and choice["label"] == f"algorithm auto → {spec.algorithm}"
    )
    assert {c["algorithm"] for c in choice["candidates"]} == {"native", *ALGORITHMS}
    same, none = model.resolve(RunSpec(collective="all_reduce", algorithm="ring"), 4, "gloo", fit)
    assert same.algorithm == "ring" and none is None
    with pytest.raises(SpecError) as e:
        model.resolve(RunSpec(collective="all_reduce", algorithm="auto", root=9), 4, "gloo", fit)
    assert e.value.field == "root"
    with pytest.raises(SpecError) as e:
        model.resolve(RunSpec(collective="all_reduce", algorithm="native", chunks="auto"), 4, "gloo", fit)
    assert e.value.field == "chunks"


@pytest.mark.parametrize(
    "ask",
    [
        dict(algorithm="ring", chunks="auto", group=[9]),
        dict(algorithm="native", chunks="auto", group=[10**23]),
        dict(algorithm="auto", group=[9]),
    ],
)
def test_auto_is_resolved_only_for_a_spec_that_could_run(ask):
    """What schemathesis found answered 500: `auto` read the ranks' placement before the group was checked."""
    with pytest.raises(SpecError) as refused:
        model.resolve(RunSpec(collective="all_reduce", **ask), 4, "gloo", model.Fit([]), [("host", 1)] * 4)
    assert refused.value.field == "group"
