"""The seed's three all_reduce formulas as the M overlay writes them (server/seed_formulas.py),
and the parameter server's inputs that make its SUM the seed's update w ← w − η·Σg."""

from __future__ import annotations

import numpy as np

from ringside.server.compare import seed_formulas as seed
from ringside.worker_agent.core.collectives import get
from ringside.worker_agent.core.inputs import numpy_input
from ringside.worker_agent.core.protocol import RunSpec


def test_the_formulas_with_n_and_p_put_in():
    n, p = 16, 4
    assert [s.bytes(n, p) for s in seed.SEED] == [48, 24, 32]
    assert [s.put_in(n, p) for s in seed.SEED] == ["(4−1)·16 B", "2·(16 B/4)·(4−1)", "log2(4)·16 B"]
    tree = next(s for s in seed.SEED if s.algorithm == "tree")
    assert not float(tree.bytes(n, 6)).is_integer(), "log2(6)·N is no whole number of bytes"
    assert [seed.count_for(c, 4) for c in (1, 4, 5, 8)] == [4, 4, 8, 8], "ring's N/P splits evenly"


def test_what_the_schedules_move_in_total_and_on_the_busiest_link():
    # every rank of the three sends 2·(P-1)/P·N, (P-1)·N or N in all: 6·N over four ranks each
    figures = {s.algorithm: seed.simulated(s.algorithm, 4, 4, 4) for s in seed.SEED}
    assert figures == {
        "master_worker": {"total": 96, "link": 16},
        "ring": {"total": 96, "link": 24},
        "tree": {"total": 96, "link": 16},
    }


def test_workers_push_minus_eta_g_so_the_servers_sum_is_the_seeds_update():
    spec = RunSpec(collective="parameter_server", algorithm="pull_push", count=2, servers=2, pattern="digits")
    inputs = [numpy_input(spec, r, 4) for r in range(4)]
    weights, g2, g3 = np.concatenate(inputs[:2]), -inputs[2], -inputs[3]
    assert (g2 > 0).all() and (g3 > 0).all(), "the pattern's gradients, negated"
    out = get("parameter_server", 2).reference(inputs, "SUM", 0, 0)
    eta = 1
    np.testing.assert_array_equal(np.concatenate(out[:2]), weights - eta * (g2 + g3))  # w ← w − η·Σg
