"""The cost model's fit of alpha and beta from runs that ended done (model/costs.py)."""

from __future__ import annotations

import pytest

from ringside.server.model import costs as model
from ringside.server.runs.run import new_run
from ringside.worker_agent.core.protocol import RunSpec


def test_the_cost_model_fits_alpha_and_beta_from_runs():
    alpha, beta = 40e-6, 2e-9
    runs = []
    for i, (algorithm, count) in enumerate(
        [("ring", 4096), ("tree", 4096), ("master_worker", 1024), ("ring", 65536), ("rabenseifner", 8192)]
    ):
        run = new_run(f"r-{i}", RunSpec(collective="all_reduce", algorithm=algorithm, count=count), "gloo", 4)
        steps, nbytes = model.features("all_reduce", algorithm, 4, 0, 1, count, 4)
        run.time = steps * alpha + nbytes * beta
        runs.append(run)
    fitted_alpha, fitted_beta, n = model.fit(runs)
    assert n == 5 and fitted_alpha == pytest.approx(alpha) and fitted_beta == pytest.approx(beta)
    answer = model.predict(
        model.ModelQuery(collective="all_reduce", algorithm="ring", world_size=4, count=4096), model.fit(runs)
    )
    assert answer["time"] == pytest.approx(6 * alpha + 6 * 4096 * beta) and answer["fitted_from_runs"] == 5
    assert model.fit(runs[:1])[2] == 0  # one shape cannot separate alpha from beta: the defaults stand
