"""The bytes every schedule moves add up to its algorithm's formula
(N = bytes of one rank's buffer or block; P = world size)."""

from __future__ import annotations

import numpy as np
import pytest

from ringside.worker_agent.core.algorithms import algorithms, build
from ringside.worker_agent.core.schedule import ceil_log2, floor_pow2, real
from ringside.worker_agent.core.simulate import predict, traffic

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
    n, root = 10, (3 * p) // 4
    s = build("all_reduce", "tree", p, root)
    t = traffic(s, n, ITEM)
    depth = floor_pow2(p).bit_length() - 1  # floor(log2 P)
    reduce_steps = [st for st in s.steps if st.phase == "reduce"]
    assert len(reduce_steps) == depth and len(s.steps) == 2 * depth
    path, node = 0, real(p - 1, root, p)  # the deepest leaf, walked up to the root
    for step in reduce_steps:
        hop = [x for x in step.transfers if x.src == node]
        if hop:
            path, node = path + n * ITEM, hop[0].dst
    assert node == root and path == depth * n * ITEM
    for v in range(1, p):  # every non-root sends N up and gets N down, and does both for each child
        children = (2 * v + 1 < p) + (2 * v + 2 < p)
        r = real(v, root, p)
        assert t.sent[r] == t.received[r] == n * ITEM * (1 + children)
    assert t.received[root] == t.sent[root] == n * ITEM * min(2, p - 1)
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
    assert len(build("all_reduce", "recursive_doubling", p).steps) == ceil_log2(p)
    rab = bytes_of("all_reduce", "rabenseifner", p, n)
    assert set(rab.sent.tolist()) == {2 * (p - 1) * n * ITEM // p}
    assert len(build("all_reduce", "rabenseifner", p).steps) == 2 * ceil_log2(p)
    rh = bytes_of("reduce_scatter", "recursive_halving", p, 8)
    assert set(rh.sent.tolist()) == {(p - 1) * 8 * ITEM}
    ag = bytes_of("all_gather", "recursive_doubling", p, 8)
    assert set(ag.sent.tolist()) == set(ag.received.tolist()) == {(p - 1) * 8 * ITEM}


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
    last = real(p - 1, root, p)
    assert chain.sent.tolist() == [0 if r == last else n * ITEM for r in range(p)]
    assert chain.received.tolist() == [0 if r == root else n * ITEM for r in range(p)]
    assert len(build("broadcast", "ring", p, root, 3).steps) == p + 1  # P-1 stages + 3-1 pieces
    assert bytes_of("reduce", "flat", p, n, root).received[root] == (p - 1) * n * ITEM
    assert bytes_of("scatter", "flat", p, n, root).sent[root] == (p - 1) * n * ITEM
    assert bytes_of("gather", "flat", p, n, root).received[root] == (p - 1) * n * ITEM
    hops = sum(bin(v).count("1") for v in range(p))  # virtual rank v's block crosses one link per set bit
    for collective in ("scatter", "gather"):
        assert bytes_of(collective, "binomial_tree", p, n, root).total == hops * n * ITEM
    assert len(build("barrier", "dissemination", p).steps) == ceil_log2(p)


def test_send_recv_moves_the_buffer_once():
    t = bytes_of("send_recv", "direct", 5, 9, root=3, chunks=3)
    assert t.links == {(3, 4): 9 * ITEM} and t.total == 9 * ITEM


@pytest.mark.parametrize("collective,algorithm", [(a.collective, a.name) for a in algorithms() if a.built])
@pytest.mark.parametrize("p", [1, 5, 8])
def test_traffic_agrees_with_counting_transfer_by_transfer(collective, algorithm, p):
    chunks = 1 if collective == "barrier" else 2
    s = build(collective, algorithm, p, p // 2, chunks)
    count = s.pieces + 3
    size = [(b - a) * ITEM for a, b in s.chunk_bounds(count)]
    sent, received, links, step_bytes = np.zeros(p, int), np.zeros(p, int), {}, []
    for step in s.steps:
        out, inc = np.zeros(p, int), np.zeros(p, int)
        for x in step.transfers:
            if x.src != x.dst:
                out[x.src] += size[x.chunk]
                inc[x.dst] += size[x.chunk]
                links[x.src, x.dst] = links.get((x.src, x.dst), 0) + size[x.chunk]
        sent, received = sent + out, received + inc
        step_bytes.append(max(out.max(), inc.max()))
    t = traffic(s, count, ITEM)
    assert t.sent.tolist() == sent.tolist() and t.received.tolist() == received.tolist()
    assert t.links == links and t.step_bytes.tolist() == step_bytes


def test_alpha_beta_prediction_counts_steps_and_busiest_rank():
    s = build("all_reduce", "ring", 4)
    assert predict(s, 400, 4, alpha=1e-5, beta=0.0) == pytest.approx(6 * 1e-5)
    assert predict(s, 400, 4, alpha=0.0, beta=1e-9) == pytest.approx(6 * 400 * 1e-9)
    mw = build("all_reduce", "master_worker", 4)
    # the master is the bottleneck
    assert predict(mw, 400, 4, 0.0, 1e-9) == pytest.approx(2 * 3 * 1600 * 1e-9)
