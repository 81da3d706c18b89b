"""Predict: the model's terms, read from the schedule at any scale (predict.terms, the fast
path), equal the closed forms of Thakur, Rabenseifner and Gropp ("Optimization of Collective
Communication Operations in MPICH", 2005) for every P in 2..64; the fit recovers known alpha,
beta and gamma; crossovers are where the lines meet; bad prediction queries are refused.

n is the message in bytes per rank, as nccl-tests and the issue count it: the whole buffer
for all_reduce and broadcast, everything a rank ends with for all_gather (P blocks)."""

from __future__ import annotations

import asyncio
import random
from dataclasses import replace
from pathlib import Path

import pytest
from distributed import registered_here
from in_app import served

from ringside.worker_agent.core import predict as pm
from ringside.worker_agent.core.algorithms import build
from ringside.worker_agent.core.schedule import ceil_log2, floor_pow2
from ringside.worker_agent.core.simulate import ALONE, Sharing, cost
from ringside.worker_agent.user.user_algorithms import load

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

WORLDS = range(2, 65)
ALPHA, BETA, GAMMA = 7e-6, 2e-10, 5e-11
PARAMS = pm.Params(ALPHA, BETA, GAMMA, "test")


def closed(steps, nbytes, reduced):
    return steps * ALPHA + nbytes * BETA + reduced * GAMMA


def check(collective, algorithm, p, n, steps, nbytes, reduced):
    got = pm.terms(collective, algorithm, p, n, 4)
    assert got == pytest.approx((steps, nbytes, reduced), rel=1e-12), (p, got)
    assert PARAMS.time(got) == pytest.approx(closed(steps, nbytes, reduced), rel=1e-12)


@pytest.mark.parametrize("p", WORLDS)
def test_ring_all_reduce(p):  # 2(P-1)α + 2((P-1)/P)nβ + ((P-1)/P)nγ
    n = 4 * 12 * p
    check("all_reduce", "ring", p, n, 2 * (p - 1), 2 * (p - 1) / p * n, (p - 1) / p * n)


@pytest.mark.parametrize("p", WORLDS)
def test_recursive_doubling_all_reduce(p):
    p2, n = floor_pow2(p), 4 * 10
    lg = p2.bit_length() - 1
    if p == p2:  # lg P·α + n·lg P·(β + γ)
        check("all_reduce", "recursive_doubling", p, n, lg, n * lg, n * lg)
    # P' = the largest power of two below P: the extra ranks fold in first (one reduce) and get the result
    # last
    else:
        check("all_reduce", "recursive_doubling", p, n, lg + 2, n * (lg + 2), n * (lg + 1))


@pytest.mark.parametrize("p", WORLDS)
def test_rabenseifner_all_reduce(p):
    p2 = floor_pow2(p)
    n, lg = 4 * 8 * p2, p2.bit_length() - 1
    if p == p2:  # 2 lg P·α + 2((P-1)/P)nβ + ((P-1)/P)nγ
        check("all_reduce", "rabenseifner", p, n, 2 * lg, 2 * (p - 1) / p * n, (p - 1) / p * n)
    else:  # the form at P', plus a fold (n reduced) and an unfold (n copied)
        check(
            "all_reduce",
            "rabenseifner",
            p,
            n,
            2 * lg + 2,
            2 * n + 2 * (p2 - 1) / p2 * n,
            n + (p2 - 1) / p2 * n,
        )


@pytest.mark.parametrize("p", WORLDS)
def test_binomial_broadcast(p):  # lg P·(α + nβ), lg P rounded up where P is not a power of two
    n = 4 * 7
    check("broadcast", "binomial_tree", p, n, ceil_log2(p), ceil_log2(p) * n, 0)


@pytest.mark.parametrize("p", WORLDS)
def test_ring_all_gather(p):  # (P-1)α + ((P-1)/P)nβ
    n = 4 * 6 * p
    check("all_gather", "ring", p, n, p - 1, (p - 1) / p * n, 0)


@pytest.mark.parametrize(
    "collective,algorithm,p,count",
    [
        ("all_reduce", "ring", 5, 1003),
        ("all_reduce", "tree", 7, 999),
        ("broadcast", "ring", 6, 77),
        ("all_gather", "recursive_doubling", 6, 13),
        ("reduce_scatter", "recursive_halving", 12, 101),
        ("all_to_all", "pairwise", 5, 9),
    ],
)
def test_the_fast_path_is_the_schedule_read_whole_within_an_element_per_chunk(
    collective, algorithm, p, count
):
    schedule = build(collective, algorithm, p, 0, 3)
    exact = cost(schedule, count, 4)
    size = pm.get(collective).message_bytes(count, 4, p)
    steps, nbytes, reduced = pm.terms(collective, algorithm, p, size, 4, chunks=3)
    # every chunk of every step one element off, at most
    slack = 4 * schedule.num_chunks * len(schedule.steps)
    assert (
        steps == exact.steps and abs(nbytes - exact.bytes) <= slack and abs(reduced - exact.reduced) <= slack
    )


def synthetic(params: pm.Params, noise: float, seed: int = 0) -> list[pm.Sample]:
    """Timings generated from known parameters, times (1 ± noise), over several collectives, algorithms and
    sizes."""
    rng, out = random.Random(seed), []
    for collective, algorithms in (
        ("all_reduce", ("ring", "tree", "recursive_doubling", "rabenseifner")),
        ("broadcast", ("binomial_tree", "ring")),
        ("all_gather", ("ring",)),
    ):
        for algorithm in algorithms:
            for p in (4, 8):
                for size in (1 << 10, 1 << 14, 1 << 18, 1 << 22):
                    t = pm.terms(collective, algorithm, p, size, 4)
                    out.append(pm.Sample(*t, params.time(t) * (1 + rng.uniform(-noise, noise)), size))
    return out


def test_ranks_that_each_have_a_core_read_the_closed_forms():
    """Sharing lists only hosts whose ranks outnumber their cores: a rank per core is ALONE."""
    # 0: a GPU each, or unknown
    assert Sharing.of([("a", 4)] * 4) == ALONE and Sharing.of([("a", 0)] * 4) == ALONE
    assert Sharing.of([("a", 2), ("b", 2), ("a", 2), ("b", 2)]) == ALONE
    assert Sharing.of([("a", 2), ("b", 8), ("a", 2), ("a", 2)]) == Sharing((((0, 2, 3), 2),))
    assert Sharing.from_json(Sharing.of([("a", 2)] * 4).to_json()) == Sharing((((0, 1, 2, 3), 2),))


@pytest.mark.parametrize("p, cores", [(4, 2), (4, 1), (8, 2), (6, 4)])
def test_ranks_sharing_a_hosts_cores_share_its_copies_reductions_and_turns(p, cores):
    """P ranks on one host of C cores: every ring step copies each chunk out and in (2·n/P per
    rank) on C cores, reduces n/P per rank in the first half, and runs P ranks on C cores."""
    n = 4 * 12 * p
    sharing = Sharing.of([("host", cores)] * p)
    got = cost(build("all_reduce", "ring", p), n // 4, 4, sharing)
    steps = 2 * (p - 1)
    assert (got.steps, got.bytes, got.reduced) == pytest.approx(
        (steps * p / cores, steps * n / cores, (p - 1) * n / cores)
    )
    assert pm.terms("all_reduce", "ring", p, n, 4, sharing=sharing) == pytest.approx(
        (got.steps, got.bytes, got.reduced)
    )
    # a binomial broadcast's first step has two ranks taking part: a turn each when there are two cores
    tree = cost(build("broadcast", "binomial_tree", 4), n // 4, 4, Sharing.of([("host", 2)] * 4))
    assert tree.steps == pytest.approx(1 + 2) and tree.bytes == pytest.approx(n / 2 + n)


def test_the_fit_recovers_alpha_beta_gamma():
    truth = pm.Params(40e-6, 1.5e-9, 0.4e-9, "truth")
    exact = pm.solve(synthetic(truth, 0.0))
    assert (exact.params.alpha, exact.params.beta, exact.params.gamma) == pytest.approx(
        (truth.alpha, truth.beta, truth.gamma), rel=1e-9
    )
    assert exact.rms_error == pytest.approx(0, abs=1e-9) and exact.heldout["worst"] == pytest.approx(
        0, abs=1e-9
    )
    noisy = pm.solve(synthetic(truth, 0.02))
    assert noisy.runs == 56
    assert (noisy.params.alpha, noisy.params.beta, noisy.params.gamma) == pytest.approx(
        (truth.alpha, truth.beta, truth.gamma), rel=0.1
    )
    assert 0 < noisy.rms_error < 0.02 and noisy.heldout["median"] < 0.03 and noisy.heldout["sizes"] == 4


def test_the_fit_stays_non_negative_and_says_when_it_cannot_tell():
    no_gamma = pm.Params(30e-6, 2e-9, 0.0, "truth")
    fitted = pm.solve(synthetic(no_gamma, 0.05, seed=3))
    assert fitted.params.gamma >= 0 and fitted.params.alpha > 0 and fitted.params.beta > 0
    one_shape = [pm.Sample(6, 600, 300, 1e-3, 1024)] * 3
    assert pm.solve(one_shape).runs == 0 and pm.solve(one_shape).params == pm.DEFAULT


def test_the_native_line_is_fitted():
    line = pm.fit_native([(n, 80e-6 + n * 3e-9) for n in (1 << 10, 1 << 16, 1 << 20)])
    assert (line.latency, line.per_byte) == pytest.approx((80e-6, 3e-9)) and line.runs == 3
    assert pm.fit_native([(4096, 1e-3), (4096, 2e-3)]) is None  # one size cannot tell latency from bandwidth


def test_crossovers_are_where_the_fastest_changes():
    params = pm.PRESETS["net-100gbps"]
    algorithms = pm.stepwise("all_reduce")
    found = pm.crossovers("all_reduce", algorithms, 64, 4, params)
    assert found, "at P=64 on a network, latency-bound and bandwidth-bound algorithms must trade places"
    for c in found:
        below, above = (
            pm.fastest(pm.options("all_reduce", c[side], 64, params), c["size"])
            for side in ("below", "above")
        )
        assert below.time(c["size"]) == pytest.approx(above.time(c["size"]), rel=1e-9)
        times = pm.versus_size("all_reduce", algorithms, 64, [c["size"] * 0.99, c["size"] * 1.01], 4, params)
        assert (
            min(times, key=lambda a: times[a][0]) == c["below"]
            and min(times, key=lambda a: times[a][1]) == c["above"]
        )
        assert c["text"] == f"{c['below']} beats {c['above']} below {pm.size_words(c['size'])} at P=64"
    assert [c["size"] for c in found] == sorted(c["size"] for c in found)


def test_prediction_reaches_1024_ranks():
    dgx = pm.PRESETS["nvlink-a100-8gpu"]
    times = pm.versus_p("all_reduce", ["ring", "rabenseifner"], 1 << 20, 4, dgx)
    assert pm.P_POINTS[-1] == 1024 and None not in times["ring"]
    # 2(P-1) steps at P=1024, every one waiting on the network (the ring crosses nodes in each)
    assert times["ring"][-1] >= 2 * 1023 * min(dgx.between.alpha)
    assert times["rabenseifner"][-1] < times["ring"][-1]  # the same bytes in 2 lg P steps instead of 2(P-1)


US = 1e-6


def test_presets_carry_nccls_figures_per_protocol_and_say_where_they_come_from():
    """NCCL 2.30.7 src/graph/tuning.cc, ncclTunerConstantsDefaults (LL, LL128, Simple): baseLat ring
    6.6/14.0/8.4 µs; hwLat ring NVLink 0.6/1.9/3.4, PCI 1.0/2.5/5.7, network 2.7/4.0/14.0."""
    assert pm.PROTOCOLS == ("LL", "LL128", "Simple") and pm.NCCL_VERSION == "2.30.7"
    dgx, net = pm.PRESETS["nvlink-a100-8gpu"], pm.PRESETS["net-100gbps"]
    for preset in (dgx, net):
        assert preset.base == pytest.approx((6.6 * US, 14.0 * US, 8.4 * US))
        assert preset.between.alpha == pytest.approx((2.7 * US, 4.0 * US, 14.0 * US))
        assert preset.nccl == "2.30.7" and "NCCL 2.30.7 src/graph/tuning.cc" in preset.source
        assert preset.gamma > 0 and preset.inside.beta < preset.between.beta
        assert "datasheet" in preset.source or "IEEE" in preset.source
    assert dgx.inside.alpha == pytest.approx((0.6 * US, 1.9 * US, 3.4 * US)) and dgx.per_node == 8
    assert net.inside.alpha == pytest.approx((1.0 * US, 2.5 * US, 5.7 * US)) and net.per_node == 1
    assert dgx.between.beta == pytest.approx(8 / 200e9) and net.between.beta == pytest.approx(8 / 100e9)
    shown = net.to_json()
    assert shown["between"]["alpha"] == pytest.approx(
        {"LL": 2.7 * US, "LL128": 4.0 * US, "Simple": 14.0 * US}
    )
    assert shown["nccl"] == "2.30.7" and shown["per_node"] == 1


def test_each_protocol_is_its_alpha_and_its_share_of_the_bandwidth():
    """A one-node ring of 8 under the DGX preset: 2·7 NVLink steps at each protocol's alpha, NCCL's base
    once, the bytes at beta over the protocol's share (LL half, LL128 0.92); the curve takes the least."""
    dgx, n = pm.PRESETS["nvlink-a100-8gpu"], 1 << 30
    pieces, lines = dgx.lines("all_reduce", "ring", 8, 4)
    for i, (protocol, c0, c1) in enumerate(lines):
        assert protocol == pm.PROTOCOLS[i]
        assert c0 == pytest.approx(dgx.base[i] + 14 * dgx.inside.alpha[i])
        link = 2 * 7 / 8 * dgx.inside.beta / pm.PROTOCOL_BANDWIDTH[i] + 7 / 8 * dgx.gamma
        assert c1 == pytest.approx(link)
    ways = pm.curve("all_reduce", "ring", 8, [1 << 10, n], 4, dgx)
    assert [w.protocol for w in ways] == ["LL", "Simple"]  # latency first, then bandwidth


def test_two_levels_cost_a_step_that_crosses_nodes_at_the_networks_figures():
    """Ring all_reduce over 8 ranks: on one node no step crosses; on two nodes of 4 every step does (a
    rank at each node's edge sends to the other), at the network's alpha and beta."""
    from ringside.worker_agent.core.simulate import levels

    schedule = build("all_reduce", "ring", 8)
    one, two = levels(schedule, 8, 4, 8), levels(schedule, 8, 4, 4)
    assert not one.crosses.any() and (one.between == 0).all() and (one.inside == 4).all()
    assert two.crosses.all() and (two.between == 4).all() and (two.inside == 4).all()
    net = pm.PRESETS["net-100gbps"]
    one_node, two_nodes = (
        pm.curve("all_reduce", "ring", 8, [1 << 30], 4, replace(net, per_node=k))[0] for k in (8, 4)
    )
    assert two_nodes.time(1 << 30) > 2 * one_node.time(1 << 30)  # PCIe's 31.5 GB/s against 12.5 GB/s


@pytest.fixture
def hierarchical():
    with registered_here(lambda: load(EXAMPLES / "hierarchical_all_reduce.py")):
        yield "hierarchical"


def test_a_hierarchical_all_reduce_beats_the_flat_ring_where_nodes_make_it(hierarchical):
    """The example's two-level all_reduce (pairs of ranks a node: reduce to the node's leader, a ring of
    leaders, back) at P=16 against the flat ring. Its ring is half as long, so it wins small messages
    anywhere; but it moves about twice the ring's bytes per rank, so at 1 MiB it wins only where its
    pairs are nodes (their traffic on NVLink, the ring's 30 steps all on the network), not with a rank a
    node (all on the network) nor with one node (all on NVLink)."""
    dgx = pm.PRESETS["nvlink-a100-8gpu"]
    at = {
        k: pm.versus_size(
            "all_reduce", ["ring", hierarchical], 16, [1 << 10, 1 << 20], 4, replace(dgx, per_node=k)
        )
        for k in (1, 2, 16)
    }
    ratio = {k: [h / r for h, r in zip(t[hierarchical], t["ring"])] for k, t in at.items()}
    assert all(r[0] < 0.7 for r in ratio.values())
    assert ratio[2][1] < 0.8 and ratio[1][1] > 1.05 and ratio[16][1] > 1.05
    # where the ring takes over: at least ten times further out with pairs a node
    last = {
        k: pm.crossovers("all_reduce", ["ring", hierarchical], 16, 4, replace(dgx, per_node=k))[0]["size"]
        for k in (1, 2, 16)
    }
    assert last[2] > 10 * max(last[1], last[16])


def test_native_under_a_preset_follows_nccls_own_choice():
    """NCCL runs all_reduce as a ring or a tree, whichever (with its protocol) it predicts fastest: under
    the 100 Gb/s preset at P=64, the tree's log P steps below some size, the ring's bandwidth above."""
    net, sizes = pm.PRESETS["net-100gbps"], [float(1 << k) for k in range(10, 31, 2)]
    native = pm.nccl_native("all_reduce", 64, sizes, 4, net)
    assert native is not None and len(native) == len(sizes)
    both = pm.versus_size("all_reduce", ["ring", "tree"], 64, sizes, 4, net)
    for i, (way, n) in enumerate(zip(native, sizes)):
        assert way.time(n) == pytest.approx(min(both["ring"][i], both["tree"][i]))
        assert way.algorithm == min(("ring", "tree"), key=lambda a: both[a][i])
    chosen = [w.algorithm for w in native]
    assert chosen[0] == "tree" and chosen[-1] == "ring"
    assert chosen == sorted(chosen, key=lambda a: a == "ring")  # one switch, tree to ring
    assert {w.protocol for w in native} >= {"LL", "Simple"}
    assert [w.algorithm for w in pm.nccl_native("broadcast", 64, sizes, 4, net)] == ["ring"] * len(sizes)
    assert pm.nccl_native("all_to_all", 64, sizes, 4, net) is None  # NCCL's is point-to-point: no schedule


@pytest.mark.parametrize("model", [pm.DEFAULT, pm.PRESETS["net-100gbps"]], ids=["default", "net-100gbps"])
def test_curves_pipeline_a_ring_broadcast_into_chunks(model):
    """A chain broadcast of 1 GiB at P=64, cut into chunks, costs about N·β plus a chunk per hop, not
    (P-1)·N·β: within twice a binomial tree's time (which sends lg P·N from the root whatever the cut)."""
    sizes = [float(1 << 30)]
    ring, tree = (pm.curve("broadcast", a, 64, sizes, 4, model)[0] for a in ("ring", "binomial_tree"))
    assert ring.chunks > 1 and ring.time(1 << 30) < 2 * tree.time(1 << 30)
    uncut = pm.fastest([o for o in pm.options("broadcast", "ring", 64, model) if o.chunks == 1], 1 << 30)
    assert uncut.time(1 << 30) > 20 * ring.time(1 << 30)
    assert pm.curve("broadcast", "ring", 64, [1024.0], 4, model)[0].chunks <= 4  # a few elements a chunk


def asked(tmp_path, *queries: str) -> list[tuple[int, dict]]:
    """What the app, built in-process over an empty store (in_app.py), answers to each GET, in order."""

    async def ask() -> list[tuple[int, dict]]:
        async with served(tmp_path / "runs.db") as s:
            return [await s.call("GET", query) for query in queries]

    return asyncio.run(ask())


def test_the_served_prediction_names_crossovers(tmp_path):
    (status, body), (fit_status, fit) = asked(
        tmp_path,
        "/api/model/predict?collective=all_reduce&p=64&preset=net-100gbps&sizes=1K,64K,1M,64M",
        "/api/model/fit",
    )
    assert status == 200, body
    assert body["sizes"] == [1024, 65536, 1 << 20, 64 << 20] and set(body["versus_size"]) == set(
        pm.stepwise("all_reduce")
    )
    assert body["ps"][-1] == 1024 and len(body["versus_p"]["ring"]) == len(body["ps"])
    assert body["crossovers"] and all("at P=64" in c["text"] for c in body["crossovers"])
    assert body["params"]["source"] == pm.PRESETS["net-100gbps"].source
    assert body["params"]["between"]["alpha"]["Simple"] == pytest.approx(14e-6) and body["params"]["nccl"]
    # native: NCCL's own choice, the tree's latency below the ring's bandwidth
    native = body["native"]
    assert native["kind"] == "nccl" and len(native["times"]) == 4 and "NCCL 2.30.7" in native["source"]
    assert native["chosen"][0]["algorithm"] == "tree" and native["chosen"][-1]["algorithm"] == "ring"
    assert all(w["protocol"] in pm.PROTOCOLS and w["chunks"] >= 1 for w in body["ways"]["ring"])
    assert fit_status == 200 and fit["fitted_from_runs"] == 0 and "no runs fitted" in fit["source"]
    assert fit["presets"]["nvlink-a100-8gpu"]["inside"]["alpha"]["LL"] == pytest.approx(0.6e-6)


def test_the_served_prediction_takes_ranks_per_node(tmp_path):
    """One node of 64 ranks on PCIe against the preset's one rank a host: a ring all_reduce of 1 MiB on
    one node is faster, and the answer says which it used."""
    query = "/api/model/predict?collective=all_reduce&p=64&preset=net-100gbps&sizes=1M"
    (s1, apart), (s2, together), (status, body) = asked(
        tmp_path, query, query + "&per_node=64", "/api/model/predict?collective=all_reduce&per_node=8"
    )
    assert s1 == s2 == 200 and apart["origin"]["per_node"] == 1 and together["origin"]["per_node"] == 64
    assert together["versus_size"]["ring"][0] < apart["versus_size"]["ring"][0] / 2
    assert status == 422 and body["detail"]["field"] == "per_node" and "preset" in body["detail"]["message"]


BAD_QUERIES = [
    ("collective=all_reduce&preset=infiniband-9000", "preset"),
    ("collective=all_reduce&p=1025", "p"),
    ("collective=all_reduce&p=1", "p"),
    ("collective=all_reduce&sizes=0", "sizes"),
    ("collective=all_reduce&sizes=2T", "sizes"),
    ("collective=all_reduce&sizes=128G", "sizes"),
    ("collective=all_reduce&size=0", "size"),
    ("collective=allreduce", "collective"),
    ("collective=barrier", "collective"),
    ("collective=all_reduce&preset=net-100gbps&per_node=0", "per_node"),
]


def test_bad_prediction_queries_name_the_field(tmp_path):
    answers = asked(tmp_path, *(f"/api/model/predict?{query}" for query, _ in BAD_QUERIES))
    for (query, field), (status, body) in zip(BAD_QUERIES, answers):
        assert status == 422 and body["detail"]["field"] == field, (query, body)
