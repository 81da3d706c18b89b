"""Every schedule, executed for real on gloo, equals the native collective on the
same input (integers bit for bit, floats within tolerance) and equals the numpy
simulation. One process group per world size runs every case."""

from __future__ import annotations

import numpy as np
import pytest
from distributed import run_ranks, unwrap

from ringside.worker_agent.core.algorithms import algorithms, build
from ringside.worker_agent.core.collectives import get
from ringside.worker_agent.core.inputs import numpy_input
from ringside.worker_agent.core.protocol import RunSpec
from ringside.worker_agent.core.run_shape import group_of, peer_of
from ringside.worker_agent.core.simulate import simulate

PAIRS = [(a.collective, a.name) for a in algorithms() if a.built]


def cases(p: int) -> list[RunSpec]:
    specs = []
    for i, (collective, algorithm) in enumerate(PAIRS):
        chunks = 1 if collective == "barrier" else 1 + (i + p) % 2
        root = (i + p) % p
        base = dict(collective=collective, algorithm=algorithm, root=root, chunks=chunks, capture="full")
        pieces = build(collective, algorithm, p, root, chunks).pieces
        specs.append(
            RunSpec(
                **base,
                count=pieces * 2 + (p % 3),
                dtype="int64",
                pattern="random_int",
                op=("SUM", "MAX", "BXOR", "PRODUCT")[i % 4] if get(collective).reduces else "SUM",
                seed=i,
            )
        )
        specs.append(RunSpec(**base, count=pieces + 1, dtype="float32", pattern="random_float", seed=i))
    return specs


def run_all(world, specs):
    from ringside.worker_agent.rank.runner import Runner

    runner = Runner(world, lambda event: None)
    return [runner.run(f"case-{i}", spec) for i, spec in enumerate(specs)]


def output_values(finished) -> np.ndarray | None:
    if not finished.output:
        return None
    return np.concatenate([np.asarray(s.values) for s in finished.output])


def simulated(spec: RunSpec, p: int) -> list:
    group = group_of(spec, p)
    root = group.index(spec.root)
    schedule = build(spec.collective, spec.algorithm, len(group), root, spec.chunks)
    inputs = [numpy_input(spec, r, p) for r in range(len(group))]
    collective = get(spec.collective)
    return simulate(
        schedule, inputs, collective.count(spec), collective.op(spec), group.index(peer_of(spec, group))
    )


@pytest.mark.parametrize("p", [2, 3, 4, 5])
def test_execute_equals_native_and_simulation(p):
    specs = cases(p)
    results = unwrap(run_ranks(run_all, p, specs))
    for i, spec in enumerate(specs):
        label = (
            f"{spec.collective}/{spec.algorithm} P={p} root={spec.root} "
            f"chunks={spec.chunks} {spec.dtype} {spec.op}"
        )
        want = simulated(spec, p) if spec.dtype == "int64" else None
        for rank in range(p):
            finished = results[rank][i]
            got = output_values(finished)
            if finished.verified is None:
                assert got is None or spec.collective == "barrier", (
                    f"{label}: rank {rank} has output but no verdict"
                )
                continue
            assert finished.verified, f"{label}: rank {rank} differs from native by {finished.max_diff}"
            if want is not None:
                np.testing.assert_array_equal(got, want[rank], err_msg=f"{label}: rank {rank} vs simulation")
            assert finished.timings.iterations and len(finished.timings.steps) == len(
                build(spec.collective, spec.algorithm, p, spec.root, spec.chunks).steps
            )


DTYPE_OPS = [
    ("int32", "SUM"),
    ("int32", "BAND"),
    ("int64", "BOR"),
    ("int64", "MIN"),
    ("float16", "SUM"),
    ("bfloat16", "MAX"),
    ("float32", "PRODUCT"),
    ("float64", "SUM"),
    ("float32", "AVG"),
    ("float64", "MIN"),
]


def test_every_dtype_and_op_on_a_subgroup():
    """Reductions of every dtype, on ranks 1 and 3 of four (the others sit out)."""
    specs = [
        RunSpec(
            collective=c,
            algorithm=a,
            count=11,
            dtype=d,
            op=o,
            group=[3, 1],
            root=3,
            pattern="random_float" if d.startswith(("float", "bf")) else "random_int",
        )
        for d, o in DTYPE_OPS
        for c, a in (
            ("all_reduce", "ring"),
            ("reduce_scatter", "recursive_halving"),
            ("reduce", "binomial_tree"),
        )
    ]
    results = unwrap(run_ranks(run_all, 4, specs))
    for i, spec in enumerate(specs):
        for rank in (0, 2):
            assert results[rank][i].timings.iterations == [], "ranks outside the group do not run"
        verdicts = [results[r][i].verified for r in (1, 3)]
        assert all(v in (True, None) for v in verdicts) and True in verdicts, (
            f"{spec.collective}/{spec.algorithm} {spec.dtype} {spec.op}: {verdicts}"
        )


def test_send_recv_to_a_chosen_peer():
    specs = [
        RunSpec(collective="send_recv", algorithm=a, count=5, root=2, peer=0, capture="full")
        for a in ("native", "direct")
    ]
    results = unwrap(run_ranks(run_all, 4, specs))
    sender_input = numpy_input(specs[0], 2, 4)
    for i in range(2):
        np.testing.assert_array_equal(output_values(results[0][i]), sender_input)
        assert all(output_values(results[r][i]) is None for r in (1, 2, 3))
    assert results[0][1].verified is True
