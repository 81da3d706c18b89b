"""Predict: the model's terms, read from the schedule at any scale (predict.terms, the fast
path), equal the closed forms of Thakur, Rabenseifner and Gropp ("Optimization of Collective
Communication Operations in MPICH", 2005) for every P in 2..64; the fit recovers known alpha,
beta and gamma; crossovers are where the lines meet; bad prediction queries are refused.

n is the message in bytes per rank, as nccl-tests and the issue count it: the whole buffer
for all_reduce and broadcast, everything a rank ends with for all_gather (P blocks)."""

from __future__ import annotations

import random

import pytest
from ringside.worker_agent.core import predict as pm
from ringside.worker_agent.core.algorithms import build
from ringside.worker_agent.core.schedule import ceil_log2, floor_pow2
from ringside.worker_agent.core.simulate import ALONE, Sharing, cost
from server_helpers import start_serve

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
        check("all_reduce", "rabenseifner", p, n, 2 * lg + 2, 2 * n + 2 * (p2 - 1) / p2 * n,
              n + (p2 - 1) / p2 * n)


@pytest.mark.parametrize("p", WORLDS)
def test_binomial_broadcast(p):  # lg P·(α + nβ), lg P rounded up where P is not a power of two
    n = 4 * 7
    check("broadcast", "binomial_tree", p, n, ceil_log2(p), ceil_log2(p) * n, 0)


@pytest.mark.parametrize("p", WORLDS)
def test_ring_all_gather(p):  # (P-1)α + ((P-1)/P)nβ
    n = 4 * 6 * p
    check("all_gather", "ring", p, n, p - 1, (p - 1) / p * n, 0)


@pytest.mark.parametrize("collective,algorithm,p,count", [
    ("all_reduce", "ring", 5, 1003), ("all_reduce", "tree", 7, 999), ("broadcast", "ring", 6, 77),
    ("all_gather", "recursive_doubling", 6, 13),
    ("reduce_scatter", "recursive_halving", 12, 101), ("all_to_all", "pairwise", 5, 9)])
def test_the_fast_path_is_the_schedule_read_whole_within_an_element_per_chunk(collective, algorithm, p,
                                                                              count):
    schedule = build(collective, algorithm, p, 0, 3)
    exact = cost(schedule, count, 4)
    size = pm.get(collective).message_bytes(count, 4, p)
    steps, nbytes, reduced = pm.terms(collective, algorithm, p, size, 4, chunks=3)
    # every chunk of every step one element off, at most
    slack = 4 * schedule.num_chunks * len(schedule.steps)
    assert steps == exact.steps and abs(nbytes - exact.bytes) <= slack \
        and abs(reduced - exact.reduced) <= slack


def synthetic(params: pm.Params, noise: float, seed: int = 0) -> list[pm.Sample]:
    """Timings generated from known parameters, times (1 ± noise), over several collectives, algorithms and
    sizes."""
    rng, out = random.Random(seed), []
    for collective, algorithms in (("all_reduce", ("ring", "tree", "recursive_doubling", "rabenseifner")),
                                   ("broadcast", ("binomial_tree", "ring")), ("all_gather", ("ring",))):
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
    assert (got.steps, got.bytes, got.reduced) == \
        pytest.approx((steps * p / cores, steps * n / cores, (p - 1) * n / cores))
    assert pm.terms("all_reduce", "ring", p, n, 4,
                    sharing=sharing) == pytest.approx((got.steps, got.bytes, got.reduced))
    # a binomial broadcast's first step has two ranks taking part: a turn each when there are two cores
    tree = cost(build("broadcast", "binomial_tree", 4), n // 4, 4, Sharing.of([("host", 2)] * 4))
    assert tree.steps == pytest.approx(1 + 2) and tree.bytes == pytest.approx(n / 2 + n)


def test_the_fit_recovers_alpha_beta_gamma():
    truth = pm.Params(40e-6, 1.5e-9, 0.4e-9, "truth")
    exact = pm.solve(synthetic(truth, 0.0))
    assert (exact.params.alpha, exact.params.beta,
            exact.params.gamma) == pytest.approx((truth.alpha, truth.beta, truth.gamma), rel=1e-9)
    assert exact.rms_error == pytest.approx(0, abs=1e-9) \
        and exact.heldout["worst"] == pytest.approx(0, abs=1e-9)
    noisy = pm.solve(synthetic(truth, 0.02))
    assert noisy.runs == 56
    assert (noisy.params.alpha, noisy.params.beta,
            noisy.params.gamma) == pytest.approx((truth.alpha, truth.beta, truth.gamma), rel=0.1)
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
        below, above = (pm.line("all_reduce", c[side], 64, params) for side in ("below", "above"))
        assert below[0] + below[1] * c["size"] == pytest.approx(above[0] + above[1] * c["size"], rel=1e-9)
        times = pm.versus_size("all_reduce", algorithms, 64, [c["size"] * 0.9, c["size"] * 1.1], 4, params)
        assert min(times, key=lambda a: times[a][0]) == c["below"] \
            and min(times, key=lambda a: times[a][1]) == c["above"]
        assert c["text"] == f"{c['below']} beats {c['above']} below {pm.size_words(c['size'])} at P=64"
    assert [c["size"] for c in found] == sorted(c["size"] for c in found)


def test_prediction_reaches_1024_ranks():
    times = pm.versus_p("all_reduce", ["ring", "rabenseifner"], 1 << 20, 4, pm.PRESETS["nvlink-a100-8gpu"])
    assert pm.P_POINTS[-1] == 1024 and None not in times["ring"]
    assert times["ring"][-1] >= 2 * 1023 * pm.PRESETS["nvlink-a100-8gpu"].alpha  # 2(P-1) steps at P=1024
    assert times["rabenseifner"][-1] < times["ring"][-1]  # the same bytes in 2 lg P steps instead of 2(P-1)


def test_every_preset_says_where_its_numbers_come_from():
    for name, params in pm.PRESETS.items():
        assert params.alpha > 0 and params.beta > 0 and params.gamma > 0
        assert "tuning.cc" in params.source and ("datasheet" in params.source
                                                 or "IEEE" in params.source), name


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    server = start_serve(tmp_path_factory.mktemp("predict"))
    yield server
    server.stop()


def test_the_served_prediction_names_crossovers(served):
    status, body = served.call("GET", "/api/model/predict?collective=all_reduce&p=64&preset=net-100gbps"
                                      "&sizes=1K,64K,1M,64M")
    assert status == 200, body
    assert body["sizes"] == [1024, 65536, 1 << 20, 64 << 20] \
        and set(body["versus_size"]) == set(pm.stepwise("all_reduce"))
    assert body["ps"][-1] == 1024 and len(body["versus_p"]["ring"]) == len(body["ps"])
    assert body["crossovers"] and all("at P=64" in c["text"] for c in body["crossovers"])
    assert body["params"]["source"] == pm.PRESETS["net-100gbps"].source
    status, fit = served.call("GET", "/api/model/fit")
    assert status == 200 and fit["fitted_from_runs"] == 0 and "no runs fitted" in fit["source"]


@pytest.mark.parametrize("query,field", [
    ("collective=all_reduce&preset=infiniband-9000", "preset"), ("collective=all_reduce&p=1025", "p"),
    ("collective=all_reduce&p=1", "p"), ("collective=all_reduce&sizes=0", "sizes"),
    ("collective=all_reduce&sizes=2T", "sizes"),
    ("collective=all_reduce&sizes=128G", "sizes"), ("collective=all_reduce&size=0", "size"),
    ("collective=allreduce", "collective"), ("collective=barrier", "collective")])
def test_bad_prediction_queries_name_the_field(served, query, field):
    status, body = served.call("GET", f"/api/model/predict?{query}")
    assert status == 422 and body["detail"]["field"] == field, body
