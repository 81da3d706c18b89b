"""The alpha-beta-gamma terms read from a schedule equal the published closed forms
(Thakur, Rabenseifner and Gropp, "Optimization of Collective Communication Operations
in MPICH", 2005) for every P in 2..64. n is bytes: the whole buffer (all_gather: all of it)."""

from __future__ import annotations

import pytest

from ringside.worker_agent.core.algorithms import build
from ringside.worker_agent.core.schedule import ceil_log2, floor_pow2
from ringside.worker_agent.core.simulate import Cost, cost, predict

ITEM = 4
WORLDS = range(2, 65)


def terms(collective, algorithm, p, count):
    return cost(build(collective, algorithm, p), count, ITEM)


@pytest.mark.parametrize("p", WORLDS)
def test_ring_all_reduce(p):
    count = 3 * p
    n = count * ITEM
    assert terms("all_reduce", "ring", p, count) == Cost(2 * (p - 1), 2 * (p - 1) * n // p, (p - 1) * n // p)


@pytest.mark.parametrize("p", WORLDS)
def test_recursive_doubling_all_reduce(p):
    count, p2 = 5, floor_pow2(p)
    n, lg = count * ITEM, p2.bit_length() - 1
    got = terms("all_reduce", "recursive_doubling", p, count)
    if p == p2:  # lg P·α + n·lg P·(β + γ)
        assert got == Cost(lg, n * lg, n * lg)
    else:  # the ranks beyond P' fold in first (one reduce of n) and get the result back last
        assert got == Cost(lg + 2, n * (lg + 2), n * (lg + 1))


@pytest.mark.parametrize("p", WORLDS)
def test_rabenseifner_all_reduce(p):
    p2 = floor_pow2(p)
    count = 4 * p2
    n, lg = count * ITEM, p2.bit_length() - 1
    got = terms("all_reduce", "rabenseifner", p, count)
    if p == p2:  # 2 lg P·α + 2((P-1)/P)·n·β + ((P-1)/P)·n·γ
        assert got == Cost(2 * lg, 2 * (p - 1) * n // p, (p - 1) * n // p)
    else:
        assert got == Cost(2 * lg + 2, 2 * n + 2 * (p2 - 1) * n // p2, n + (p2 - 1) * n // p2)


@pytest.mark.parametrize("p", WORLDS)
def test_binomial_broadcast(p):
    count = 7
    n = count * ITEM
    # lg P·(α + nβ)
    assert terms("broadcast", "binomial_tree", p, count) == Cost(ceil_log2(p), ceil_log2(p) * n, 0)


@pytest.mark.parametrize("p", WORLDS)
def test_ring_all_gather(p):
    count = 6  # each rank's block; n, what every rank ends with, is P blocks
    n = p * count * ITEM
    assert terms("all_gather", "ring", p, count) == Cost(p - 1, (p - 1) * n // p, 0)  # (P-1)α + ((P-1)/P)nβ


def test_the_time_weighs_each_term():
    schedule = build("all_reduce", "ring", 4)
    c = cost(schedule, 400, ITEM)
    assert predict(schedule, 400, ITEM, 1e-5, 0.0, 0.0) == pytest.approx(6e-5)
    assert predict(schedule, 400, ITEM, 0.0, 1e-9, 2e-9) == pytest.approx(c.bytes * 1e-9 + c.reduced * 2e-9)
    assert c.reduced == 3 * 400 * ITEM // 4
