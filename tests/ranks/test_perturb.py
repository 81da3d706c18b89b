"""Perturbations on real gloo ranks: a straggler arrives last at every step, a slow link's
steps finish last, a hang is named by the wavefront its ranks' live reports give; and the
options' checks and the schedule's prediction of what they cost."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
from pathlib import Path

import pytest
from distributed import RankError, run_ranks, unwrap

from ringside.server.runs import wavefront
from ringside.server.runs.run import new_run
from ringside.worker_agent.core import perturb, run_shape
from ringside.worker_agent.core.protocol import Arrived, RunSpec, StepEvent
from ringside.worker_agent.core.validation import SpecError, validate

P = 4
ROOT = Path(__file__).resolve().parents[2]


def record(world, spec):
    """Every event a rank emits for one run, and its error if the run failed there."""
    from ringside.worker_agent.rank.runner import RunFailed, Runner

    events = []
    try:
        Runner(world, events.append).run("r", spec)
    except RunFailed as e:
        return events, str(e)
    return events, None


def record_all(world, specs):
    """record() of each spec in turn, on one world: [per spec: (events, error)]."""
    return [record(world, spec) for spec in specs]


def steps_of(results, kind=StepEvent) -> dict[int, dict[int, object]]:
    """{step: {rank: event}} of every rank's events of that kind."""
    out: dict[int, dict[int, object]] = {}
    for rank, (events, _) in enumerate(results):
        for e in events:
            if isinstance(e, kind):
                out.setdefault(e.step, {})[rank] = e
    return out


def extra(spec: RunSpec, world_size: int = P) -> float | None:
    steps, chunk_bytes = run_shape.perturb_plan(spec, world_size)
    return perturb.predicted_extra(spec.perturb, steps, chunk_bytes, run_shape.group_of(spec, world_size))


def test_a_straggler_arrives_last_at_every_step_and_costs_what_the_schedule_predicts():
    ring = RunSpec(
        collective="all_reduce",
        algorithm="ring",
        count=16,
        perturb={"straggler": {"rank": 2, "delay_s": 0.2}},
    )
    tree = RunSpec(
        **{**ring.model_dump(), "algorithm": "tree", "perturb": {"straggler": {"rank": 1, "delay_s": 0.2}}}
    )
    native = RunSpec(collective="all_reduce", count=16, perturb={"straggler": {"rank": 3, "delay_s": 0.2}})
    per_rank = unwrap(run_ranks(record_all, P, [ring, tree, native]))
    for i, (spec, straggler) in enumerate(((ring, 2), (tree, 1))):
        results = [mine[i] for mine in per_rank]
        steps = steps_of(results)
        assert len(steps) == len(run_shape.plan(spec, P).steps)
        for k, reports in steps.items():
            takes_part = perturb.peers(run_shape.plan(spec, P).steps[k].transfers)
            if straggler not in takes_part:
                continue
            t0 = {r: reports[r].t0 for r in takes_part}
            assert max(t0, key=t0.get) == straggler, (spec.algorithm, k, t0)
        finished = [events[-1] for events, _ in results]
        assert all(f.verified for f in finished), "a late rank changes no result"
        # it slept its delay before every step it takes part in: its own time holds all of them
        assert finished[straggler].timings.iterations[0] >= extra(spec) - 1e-9
    assert extra(ring) == pytest.approx(2 * (P - 1) * 0.2)
    assert extra(tree) < extra(ring), "the tree's fewer steps wait for the straggler fewer times"
    results = [mine[2] for mine in per_rank]
    assert extra(native) == 0.2
    # nobody finishes a native all_reduce before the straggler has even called it
    assert min(events[-1].timings.iterations[0] for events, _ in results) >= 0.2 * 0.5


def test_a_slow_link_makes_its_steps_finish_last():
    rate = 1e4  # 0.4 s a step: well past what a busy machine's scheduling moves a rank's end
    spec = RunSpec(
        collective="all_reduce",
        algorithm="ring",
        count=4096,
        capture="none",
        perturb={"slow_link": {"a": 1, "b": 2, "bytes_per_s": rate}},
    )
    linger = 4096 // P * 4 / rate  # one chunk of float32 a step, 1 -> 2 in every step of the ring
    results = unwrap(run_ranks(record, P, spec))
    steps = steps_of(results)
    assert len(steps) == 2 * (P - 1)
    for k, reports in steps.items():
        t1 = {r: e.t1 for r, e in reports.items()}
        assert max(t1, key=t1.get) in (1, 2), (k, t1)
        for end in (1, 2):
            assert reports[end].t1 - reports[end].t0 >= linger - 1e-9
    assert all(events[-1].verified for events, _ in results)
    assert extra(spec) == pytest.approx(2 * (P - 1) * linger)
    # recursive doubling meets 0 and 2 only in its second step: the link costs that step alone
    doubling = RunSpec(
        collective="all_reduce",
        algorithm="recursive_doubling",
        count=4096,
        perturb={"slow_link": {"a": 0, "b": 2, "bytes_per_s": rate}},
    )
    steps, chunk_bytes = run_shape.perturb_plan(doubling, P)
    assert perturb.link_seconds(doubling.perturb.slow_link, steps, chunk_bytes) == [0.0, 4096 * 4 / rate]
    assert extra(doubling) == pytest.approx(4096 * 4 / rate)


def test_a_hang_is_named_by_the_wavefront_of_the_ranks_live_reports():
    spec = RunSpec(
        collective="all_reduce",
        algorithm="ring",
        count=16,
        timeout=2,
        perturb={"hang": {"rank": 2, "step": 3}},
    )
    results = run_ranks(record, P, spec, timeout=60)
    assert not any(isinstance(r, RankError) for r in results), results
    errors = [error for _, error in results]
    assert all(errors), "every rank failed"
    assert "held back from step 3" in errors[2], "the step as the hang option gives it"
    # the first to give up says it timed out; the others may hear of that one's exit first
    assert any("timeout of 2 s" in errors[r] for r in (0, 1, 3)) and not any(
        "held back" in errors[r] for r in (0, 1, 3)
    )
    arrived, done = steps_of(results, Arrived), steps_of(results)
    assert 2 not in arrived.get(3, {}) and sorted(done[2]) == list(range(P)), (
        "rank 2 finished index 2 and never began 3"
    )
    # the server's view, fed the ranks' events in the order each rank sent them
    run = new_run("r-1", spec, "gloo", P)
    run.perturbed = wavefront.record(run)
    for events, _ in results:
        for e in events:
            if isinstance(e, (Arrived, StepEvent)):
                wavefront.observe(run, e)
    front = run.perturbed.wavefront
    assert (front.rank, front.step, front.waiting) == (2, 3, [0, 1, 3])
    sent = [(c, dst) for src, dst, c, *_ in run_shape.plan(spec, P).steps[3].transfers if src == 2]
    assert front.sends == sent and front.text.startswith(
        "rank 2 has not arrived at step 3 (step 4 counting from 1); ranks 0, 1, 3 wait for it"
    )
    verdict = (
        f"rank 2 never arrived at step 3 (step 4 counting from 1); ranks 0, 1, 3 waited for it: it "
        f"was to send chunk {sent[0][0]} to rank {sent[0][1]}"
    )
    run.error = errors[0]
    wavefront.blame(run, None, {0: errors[0]})
    assert run.error == f"{verdict} (first report: {errors[0]})", "without its own report, the first"
    run.error = errors[0]
    wavefront.blame(run, None, {0: errors[0], 2: errors[2]})
    assert run.error == f"{verdict} (its own report: {errors[2]})", "the hung rank's report names it"


def test_the_wavefront_waits_until_one_rank_holds_the_others_up():
    spec = RunSpec(
        collective="all_reduce", algorithm="ring", count=16, perturb={"hang": {"rank": 1, "step": 0}}
    )
    run = new_run("r-1", spec, "gloo", P)
    run.perturbed = wavefront.record(run)
    arrive = [wavefront.observe(run, Arrived(run_id="r-1", rank=r, step=0, t0=0)) for r in (0, 2, 3)]
    assert arrive[:2] == [None, None], "while 0 and 2 wait for 1 and 3 alike, nobody is named"
    assert arrive[2] is not None and (arrive[2].rank, arrive[2].step, arrive[2].waiting) == (1, 0, [0, 2])
    assert wavefront.observe(run, Arrived(run_id="r-1", rank=1, step=0, t0=0)) is not None
    assert run.perturbed.wavefront.rank is None, "1 arrived: nobody holds 0 up now"
    assert wavefront.observe(run, Arrived(run_id="r-1", rank=1, step=99, t0=0)) is None, (
        "a step outside the plan names nobody"
    )
    plain = new_run("r-2", RunSpec(collective="all_reduce", algorithm="ring", count=16), "gloo", P)
    arrived = Arrived(run_id="r-2", rank=0, step=0, t0=0)
    assert wavefront.record(plain) is None and wavefront.observe(plain, arrived) is None


@pytest.mark.parametrize(
    "spec, field",
    [
        (
            {"algorithm": "ring", "perturb": {"straggler": {"rank": 1, "delay_s": 0}}},
            "perturb.straggler.delay_s",
        ),
        (
            {"algorithm": "ring", "perturb": {"straggler": {"rank": 1, "delay_s": 11}}},
            "perturb.straggler.delay_s",
        ),
        (
            {"algorithm": "ring", "perturb": {"straggler": {"rank": 1, "delay_s": math.nan}}},
            "perturb.straggler.delay_s",
        ),
        (
            {"algorithm": "ring", "timeout": 2, "perturb": {"straggler": {"rank": 1, "delay_s": 2}}},
            "perturb.straggler.delay_s",
        ),
        # each delay shorter than the timeout, but all of them together past it (ring: 6 steps; a tree's leaf
        # waits on 4)
        (
            {"algorithm": "ring", "timeout": 2, "perturb": {"straggler": {"rank": 3, "delay_s": 1}}},
            "perturb.straggler.delay_s",
        ),
        (
            {"algorithm": "tree", "timeout": 10, "perturb": {"straggler": {"rank": 1, "delay_s": 4}}},
            "perturb.straggler.delay_s",
        ),
        (
            {"algorithm": "ring", "perturb": {"straggler": {"rank": 4, "delay_s": 0.1}}},
            "perturb.straggler.rank",
        ),
        (
            {"algorithm": "ring", "group": [0, 1, 2], "perturb": {"straggler": {"rank": 3, "delay_s": 0.1}}},
            "perturb.straggler.rank",
        ),
        (
            {"algorithm": "ring", "perturb": {"slow_link": {"a": 1, "b": 1, "bytes_per_s": 1e6}}},
            "perturb.slow_link.b",
        ),
        (
            {"algorithm": "ring", "perturb": {"slow_link": {"a": -1, "b": 1, "bytes_per_s": 1e6}}},
            "perturb.slow_link.a",
        ),
        (
            {"algorithm": "ring", "perturb": {"slow_link": {"a": 0, "b": 1, "bytes_per_s": 10}}},
            "perturb.slow_link.bytes_per_s",
        ),
        (
            {
                "algorithm": "ring",
                "count": 1 << 16,
                "timeout": 2,
                "perturb": {"slow_link": {"a": 0, "b": 1, "bytes_per_s": 1e4}},
            },
            "perturb.slow_link.bytes_per_s",
        ),
        ({"perturb": {"slow_link": {"a": 0, "b": 1, "bytes_per_s": 1e6}}}, "perturb.slow_link"),
        ({"algorithm": "ring", "perturb": {"hang": {"rank": 1, "step": 6}}}, "perturb.hang.step"),
        ({"algorithm": "ring", "perturb": {"hang": {"rank": 1, "step": -1}}}, "perturb.hang.step"),
        ({"algorithm": "tree", "perturb": {"hang": {"rank": 0, "step": 0}}}, "perturb.hang.step"),
        ({"algorithm": "ring", "perturb": {"hang": {"rank": 5, "step": 0}}}, "perturb.hang.rank"),
        ({"perturb": {"hang": {"rank": 1, "step": 0}}}, "perturb.hang"),
        ({"algorithm": "ring", "perturb": {}}, "perturb"),
        ({"algorithm": "ring", "perturb": {"stagger": {"delay_s": 0.0001}}}, "perturb.stagger.delay_s"),
        (  # the last of 4 ranks would come 1.5 s after the first, which waits 1 s at most
            {"algorithm": "ring", "timeout": 1.0, "perturb": {"stagger": {"delay_s": 0.5}}},
            "perturb.stagger.delay_s",
        ),
    ],
)
def test_bad_perturbations_are_refused_naming_the_field(spec, field):
    with pytest.raises(SpecError) as refused:
        validate(RunSpec(**{"collective": "all_reduce", "count": 16, **spec}), P, "gloo")
    assert refused.value.field == field


def test_the_prediction_reads_the_schedule_at_any_world_size():
    for p in (2, 3, 5, 8, 16):
        ring = RunSpec(
            collective="all_reduce",
            algorithm="ring",
            count=64 * p,
            perturb={"straggler": {"rank": p - 1, "delay_s": 0.01}},
        )
        assert extra(ring, p) == pytest.approx(2 * (p - 1) * 0.01)
        link = RunSpec(
            collective="all_gather",
            algorithm="ring",
            count=64,
            perturb={"slow_link": {"a": 0, "b": 1, "bytes_per_s": 1e6}},
        )
        assert extra(link, p) == pytest.approx((p - 1) * 64 * 4 / 1e6), (
            "one block over the link at every step"
        )
        for algorithm in ("dissemination", "native"):  # all leave once the last has come
            stagger = RunSpec(
                collective="barrier", algorithm=algorithm, perturb={"stagger": {"delay_s": 0.1}}
            )
            assert extra(stagger, p) == pytest.approx((p - 1) * 0.1), algorithm
    assert (
        extra(
            RunSpec(
                collective="all_reduce", algorithm="ring", count=64, perturb={"hang": {"rank": 0, "step": 0}}
            )
        )
        is None
    )


def test_the_page_tells_who_arrived_last_and_who_waited_for_whom():
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    run = {
        "group": [0, 1, 2],
        "steps": [
            {
                "step": 0,
                "transfers": [[0, 1, 0, 0, 1], [1, 2, 1, 1, 1]],
                "ranks": {
                    "0": {"t0": 0.0, "t1": 0.3},
                    "1": {"t0": 0.1, "t1": 0.3},
                    "2": {"t0": 0.3, "t1": 0.31},
                },
            },
            {
                "step": 1,
                "transfers": [[2, 0, 2, 2, 0], [1, 1, 0, 1, 0]],
                "ranks": {"0": {"t0": 0.5, "t1": 0.6}, "2": {"t0": 0.31, "t1": 0.6}},
            },
            {"step": 2, "transfers": [[0, 1, 0, 0, 0]], "ranks": {"0": {"t0": 0.6, "t1": 0.7}}},
        ],
    }
    script = (
        f'import "{ROOT}/tests/js/rs.mjs";\n'
        'const { arrivals, lastArrivals } = await import("rs/panels/timeline.js");\n'
        f"const run = {json.dumps(run)};\n"
        "console.log(JSON.stringify({ arrivals: arrivals(run), last: lastArrivals(run) }));\n"
    )
    done = subprocess.run(
        [node, "--input-type=module", "-e", script],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    first, second = out["arrivals"]
    assert (first["step"], first["last"]) == (0, 2) and first["late"] == pytest.approx(0.3)
    # 0 meets only 1 (0.1 s later); 1 meets 0 and 2 and waits for the later, 2; 2 waits for nobody
    waits = [(w["rank"], w["waitedFor"], round(w["seconds"], 6)) for w in first["waits"]]
    assert waits == [(0, 1, 0.1), (1, 2, 0.2)]
    assert (second["last"], [(w["rank"], w["waitedFor"]) for w in second["waits"]]) == (0, [(2, 0)])
    assert out["last"] == {"0": 1, "1": 0, "2": 1}, "a step one rank reported, or a local copy, names nobody"


def test_a_perturbed_run_is_not_a_measurement_for_the_model():
    from ringside.server.dispatch.job import JobState
    from ringside.server.model import costs as model

    spec = RunSpec(collective="all_reduce", algorithm="ring", count=16)
    for perturbation, learnt in ((None, True), ({"straggler": {"rank": 1, "delay_s": 0.1}}, False)):
        made = perturbation and RunSpec(collective="all_reduce", perturb=perturbation).perturb
        run = new_run("r-1", spec.model_copy(update={"perturb": made}), "gloo", P)
        run.conclude(JobState.DONE)
        run.time = 0.01
        assert (model.row_of(run) is not None) == learnt
