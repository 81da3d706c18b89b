"""The parameter server on real gloo ranks: every S, dtype and op equals its definition and the
backend's own calls, on the whole world and on a subgroup; the bytes each server's link carries
equal the chapter's formula as the ranks count them, and so do the all_reduces set beside it."""

from __future__ import annotations

import numpy as np
import pytest
from distributed import run_ranks, unwrap

from ringside.worker_agent.core.algorithms import build, formulas
from ringside.worker_agent.core.algorithms import parameter_server as ps
from ringside.worker_agent.core.collectives import get
from ringside.worker_agent.core.inputs import numpy_input
from ringside.worker_agent.core.protocol import RunSpec
from ringside.worker_agent.core.vocabulary import ITEMSIZE

PS = "parameter_server"
P, SHARD = 4, 8  # elements per shard: the model has S·8 (divisible by P, as the ring formula needs)


def real_cases() -> list[RunSpec]:
    specs = []
    for servers in (1, 2, 3):
        n = servers * SHARD
        for algorithm in (ps.NAME, "native"):
            for dtype, op, pattern in (
                ("int64", "SUM", "random_int"),
                ("int32", "MAX", "random_int"),
                ("int64", "PRODUCT", "random_int"),
                ("float32", "SUM", "random_float"),
            ):
                specs.append(
                    RunSpec(
                        collective=PS,
                        algorithm=algorithm,
                        servers=servers,
                        count=n,
                        dtype=dtype,
                        op=op,
                        pattern=pattern,
                        seed=servers,
                        root=servers % P,
                        capture="full",
                        chunks=2 if algorithm == ps.NAME else 1,
                    )
                )
    # the all_reduce the chapter sets beside it, for the same N (the S=3 model) and P
    specs += [
        RunSpec(collective="all_reduce", algorithm=a, count=3 * SHARD, dtype="int64", capture="none")
        for a in ps.BESIDE
    ]
    # a subgroup, its servers from a root in the middle of it
    specs.append(
        RunSpec(
            collective=PS,
            algorithm=ps.NAME,
            servers=2,
            count=4,
            dtype="int64",
            pattern="random_int",
            group=[3, 0, 2],
            root=2,
            capture="full",
        )
    )
    return specs


def run_all(world, specs):
    from ringside.worker_agent.rank.runner import Runner

    runner = Runner(world, lambda event: None)
    return [runner.run(f"ps-{i}", spec) for i, spec in enumerate(specs)]


def values(finished) -> np.ndarray:
    return np.concatenate([np.asarray(s.values) for s in finished.output])


@pytest.fixture(scope="module")
def real():
    specs = real_cases()
    return specs, unwrap(run_ranks(run_all, P, specs))


def test_real_ranks_equal_the_definition_and_the_backends_own_calls(real):
    specs, results = real
    for i, spec in enumerate(specs):
        if spec.collective != PS:
            continue
        group = sorted(spec.group or range(P))
        p, c = len(group), get(PS, spec.servers)
        inputs = [numpy_input(spec, r, P) for r in range(p)]
        want = c.reference(inputs, spec.op, group.index(spec.root), 0)
        label = f"S={spec.servers} {spec.algorithm} {spec.dtype} {spec.op} group={spec.group}"
        for me, rank in enumerate(group):
            finished = results[rank][i]
            got = values(finished)
            if spec.dtype == "float32":
                np.testing.assert_allclose(got, want[me], rtol=1e-5, err_msg=label)
            else:
                np.testing.assert_array_equal(got, want[me], err_msg=f"{label}: rank {rank}")
            assert finished.verified is (None if spec.algorithm == "native" else True), label
        for rank in set(range(P)) - set(group):
            assert results[rank][i].timings.iterations == [], "ranks outside the group do not run"


def test_real_bytes_equal_the_formulas(real):
    specs, results = real
    item = ITEMSIZE["int64"]
    for i, spec in enumerate(specs):
        if spec.collective == PS and spec.algorithm == ps.NAME and spec.group is None:
            n = spec.count * ITEMSIZE[spec.dtype]
            hosts = get(PS, spec.servers).server_ranks(P, spec.root)
            sent = {r: results[r][i].bytes_sent for r in range(P)}
            received = {r: results[r][i].bytes_received for r in range(P)}
            f = ps.formula(n, P, spec.servers)
            assert ps.measured_by_servers(hosts, sent, received) == f["value"], spec
            # as the stage reads it
            assert formulas.measured(f["measure"], sent, received, spec.root, [], []) == f["value"]
            assert all(sent[r] == received[r] == n for r in range(P) if r not in hosts)
    beside = ps.formulas_beside(3 * SHARD * item, P, 3)
    for i, spec in enumerate(specs):
        if spec.collective == "all_reduce":
            f = beside[spec.algorithm]
            schedule = build("all_reduce", spec.algorithm, P)
            bounds = schedule.chunk_bounds(spec.count)
            steps = [s.table.tolist() for s in schedule.steps]
            got = formulas.measured(
                f["measure"],
                {r: results[r][i].bytes_sent for r in range(P)},
                {r: results[r][i].bytes_received for r in range(P)},
                0,
                steps,
                [(b - a) * item for a, b in bounds],
            )
            assert got == f["value"], (spec.algorithm, got, f)
