"""The NCCL path on real GPUs, one rank per GPU: every schedule equals NCCL's own op.
CI has no GPU, so this skips there; run it on a GPU machine."""

from __future__ import annotations

import pytest
import torch
from distributed import run_ranks, unwrap

from ringside.worker_agent.core.algorithms import algorithms, build
from ringside.worker_agent.core.collectives import COLLECTIVES
from ringside.worker_agent.core.protocol import RunSpec

GPUS = torch.cuda.device_count() if torch.cuda.is_available() else 0
pytestmark = pytest.mark.skipif(GPUS == 0, reason="no CUDA GPU here")


def run_all(world, specs):
    from ringside.worker_agent.rank.runner import Runner

    assert world.backend == "nccl" and world.device.type == "cuda"
    runner = Runner(world, lambda event: None)
    return [runner.run(f"nccl-{i}", spec) for i, spec in enumerate(specs)]


def test_every_schedule_equals_nccl():
    p = GPUS
    specs = [
        RunSpec(
            collective=c,
            algorithm=a,
            count=build(c, a, p, 0, 2 if c != "barrier" else 1).pieces * 3 + 1,
            chunks=2 if c != "barrier" else 1,
            dtype=d,
            pattern="random_float" if d != "int64" else "random_int",
            op="MAX" if d == "int64" else "SUM",
            capture="summary",
        )
        for c in COLLECTIVES
        if not (c == "send_recv" and p < 2)
        for a in [x.name for x in algorithms(c) if x.reference or x.built]
        for d in ("int64", "float32", "bfloat16")
    ]
    for rank_results in unwrap(run_ranks(run_all, p, specs, backend="nccl", timeout=600)):
        for spec, finished in zip(specs, rank_results):
            assert finished.verified in (True, None), (
                f"{spec.collective}/{spec.algorithm} {spec.dtype}: {finished.max_diff}"
            )
