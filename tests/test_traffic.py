"""The bytes every schedule moves add up to its algorithm's formula
(N = bytes of one rank's buffer or block; P = world size)."""

from __future__ import annotations

import pytest

from worker_agent.algorithms import build
from worker_agent.schedule import ceil_log2, floor_pow2
from worker_agent.simulate import predict, traffic

WORLDS = range(2, 17)
ITEM = 4


def bytes_of(collective, algorithm, p, count, root=0, chunks=1):
    return traffic(build(collective, algorithm, p, root, chunks), count, ITEM)


@pytest.mark.parametrize("p", WORLDS)
def test_ring_all_reduce_sends_2_p_minus_1_over_p_per_rank(p):
    n = 12 * p  # divisible: exact
    t = bytes_of("all_reduce", "ring", p, n)
    assert set(t.sent.tolist()) == {2 * (p - 1) * n * ITEM // p}
    assert set(t.received.tolist()) == {2 * (p - 1) * n * ITEM // p}
    uneven = bytes_of("all_reduce", "ring", p, n + 1)  # one segment is one element longer
    assert all(abs(s - 2 * (p - 1) * (n + 1) * ITEM / p) <= 2 * (p - 1) * ITEM for s in uneven.sent.tolist())
    assert len(build("all_reduce", "ring", p).steps) == 2 * (p - 1)


@pytest.mark.parametrize("p", WORLDS)
def test_master_worker_master_receives_and_sends_p_minus_1_n(p):
    n, root = 10, p // 2
    t = bytes_of("all_reduce", "master_worker", p, n, root)
    assert t.received[root] == (p - 1) * n * ITEM and t.sent[root] == (p - 1) * n * ITEM
    assert all(t.sent[r] == n * ITEM and t.received[r] == n * ITEM for r in range(p) if r != root)
    assert t.busiest_link[1] == n * ITEM


@pytest.mark.parametrize("p", WORLDS)
def test_tree_moves_n_per_level_along_its_depth(p):
    n = 10
    s = build("all_reduce", "tree", p)
    t = traffic(s, n, ITEM)
    depth = floor_pow2(p).bit_length() - 1  # floor(log2 P)
    reduce_steps = [st for st in s.steps if st.phase == "reduce"]
    assert len(reduce_steps) == depth and len(s.steps) == 2 * depth
    path, node = 0, p - 1  # the deepest leaf, walked up to the root
    for step in reduce_steps:
        hop = [x for x in step.transfers if x.src == node]
        if hop:
            path, node = path + n * ITEM, hop[0].dst
    assert node == 0 and path == depth * n * ITEM
    assert all(t.sent[r] == n * ITEM * (1 + (2 * r + 1 < p) + (2 * r + 2 < p)) for r in range(1, p))
    assert t.total == 2 * (p - 1) * n * ITEM


@pytest.mark.parametrize("p", WORLDS)
def test_ring_gather_family_moves_p_minus_1_blocks_per_rank(p):
    for collective in ("all_gather", "reduce_scatter"):
        t = bytes_of(collective, "ring", p, 8)
        assert set(t.sent.tolist()) == {(p - 1) * 8 * ITEM}, collective
    t = bytes_of("all_to_all", "pairwise", p, 8)
    assert set(t.sent.tolist()) == {(p - 1) * 8 * ITEM}


@pytest.mark.parametrize("p", [2, 4, 8, 16])
def test_power_of_two_butterflies(p):
    n = 8 * p
    rd = bytes_of("all_reduce", "recursive_doubling", p, n)
    assert set(rd.sent.tolist()) == {ceil_log2(p) * n * ITEM}
    rab = bytes_of("all_reduce", "rabenseifner", p, n)
    assert set(rab.sent.tolist()) == {2 * (p - 1) * n * ITEM // p}
    assert len(build("all_reduce", "rabenseifner", p).steps) == 2 * ceil_log2(p)
    rh = bytes_of("reduce_scatter", "recursive_halving", p, 8)
    assert set(rh.sent.tolist()) == {(p - 1) * 8 * ITEM}


@pytest.mark.parametrize("p", [3, 5, 6, 7, 12])
def test_folding_adds_two_steps(p):
    assert len(build("all_reduce", "recursive_doubling", p).steps) == ceil_log2(floor_pow2(p)) + 2


@pytest.mark.parametrize("p", WORLDS)
def test_rooted_trees_and_chains(p):
    n, root = 6, p - 1
    flat = bytes_of("broadcast", "flat", p, n, root)
    assert flat.sent[root] == (p - 1) * n * ITEM
    for collective in ("broadcast", "reduce"):
        t = bytes_of(collective, "binomial_tree", p, n, root)
        assert t.total == (p - 1) * n * ITEM
        assert len(build(collective, "binomial_tree", p, root).steps) == ceil_log2(p)
    chain = bytes_of("broadcast", "ring", p, n, root, chunks=3)
    assert sorted(chain.sent.tolist()) == [0] + [n * ITEM] * (p - 1)
    assert len(build("broadcast", "ring", p, root, 3).steps) == p + 1  # P-1 stages + 3-1 pieces
    for collective in ("scatter", "gather"):
        assert bytes_of(collective, "binomial_tree", p, n, root).total >= (p - 1) * n * ITEM
        assert bytes_of(collective, "flat", p, n, root).total == (p - 1) * n * ITEM
    assert len(build("barrier", "dissemination", p).steps) == ceil_log2(p)


def test_alpha_beta_prediction_counts_steps_and_busiest_rank():
    s = build("all_reduce", "ring", 4)
    assert predict(s, 400, 4, alpha=1e-5, beta=0.0) == pytest.approx(6 * 1e-5)
    assert predict(s, 400, 4, alpha=0.0, beta=1e-9) == pytest.approx(6 * 400 * 1e-9)
    mw = build("all_reduce", "master_worker", 4)
    assert predict(mw, 400, 4, 0.0, 1e-9) == pytest.approx(2 * 3 * 1600 * 1e-9)  # the master is the bottleneck
