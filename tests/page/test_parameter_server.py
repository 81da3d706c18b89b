"""The parameter server: S of the group's ranks hold the weights in shards, the
others pull them and push their gradients back. Its schedule equals its definition in
simulation for every S and P, and on real gloo ranks equals the definition and the
backend's own calls; the bytes each server's link carries equal the chapter's formula,
counted by the simulator and by the ranks; a bad S is refused by a real server naming the
field, and a served run tells the page which ranks are its servers."""

from __future__ import annotations

import json

import numpy as np
import pytest
from distributed import run_ranks, unwrap
from server_helpers import WORKER_TOKEN

from ringside.worker_agent.core.algorithms import build, formulas
from ringside.worker_agent.core.algorithms import parameter_server as ps
from ringside.worker_agent.core.catalog import catalog
from ringside.worker_agent.core.collectives import get
from ringside.worker_agent.core.inputs import numpy_input
from ringside.worker_agent.core.protocol import RunSpec
from ringside.worker_agent.core.provenance import check_definition
from ringside.worker_agent.core.run_shape import layout_of
from ringside.worker_agent.core.simulate import simulate, traffic
from ringside.worker_agent.core.validation import SpecError, validate
from ringside.worker_agent.core.vocabulary import ITEMSIZE

PS = "parameter_server"


def test_servers_and_shards_are_laid_out_from_the_root():
    c = get(PS, 2)
    assert c.server_ranks(5, 3) == [3, 4] and c.workers(5, 3) == [0, 1, 2]
    assert (c.blocks(5), c.input_blocks(4, 5, 3), c.output_blocks(4, 5, 3, 0)) == (
        4,
        range(1, 2),
        range(1, 2),
    )
    assert (c.input_blocks(0, 5, 3), c.output_blocks(0, 5, 3, 0)) == (range(2, 4), range(2))
    assert c.count(RunSpec(collective=PS, servers=2, count=10)) == 5  # one block is one shard
    assert get(PS) is get(PS, 1) and get("all_reduce", 3) is get("all_reduce")


def test_the_reference_on_known_values():
    """P=4, S=2 from root 1: servers 1 and 2 hold shards [10] and [20]; workers 3 and 0 hold
    gradients [1, 2] and [3, 4]. Workers end with the weights they pulled; each server with
    its shard plus both workers' gradient for it."""
    inputs = [np.array([3, 4]), np.array([10]), np.array([20]), np.array([1, 2])]
    out = get(PS, 2).reference(inputs, "SUM", 1, 2)
    assert [o.tolist() for o in out] == [[10, 20], [10 + 3 + 1], [20 + 4 + 2], [10, 20]]
    assert get(PS, 2).reference(inputs, "MAX", 1, 2)[1].tolist() == [10]


@pytest.mark.parametrize("p", range(2, 9))
def test_simulation_equals_the_definition_for_every_number_of_servers(p):
    rng = np.random.default_rng(p)
    for servers in range(1, p):
        c = get(PS, servers)
        for root in {0, p // 2, p - 1}:
            for chunks in (1, 2):
                schedule = build(PS, ps.NAME, p, root, chunks, servers)
                check_definition(schedule)  # symbolically, every (rank, chunk) once
                assert (
                    schedule.layout == "servers"
                    and schedule.servers == servers
                    and len(schedule.steps) == 1 + chunks
                )
                count = chunks + int(rng.integers(0, 3))
                inputs = [rng.integers(-9, 10, len(c.input_blocks(r, p, root)) * count) for r in range(p)]
                for op in ("SUM", "MAX", "BXOR", "PRODUCT"):
                    got = simulate(schedule, inputs, count, op)
                    want = c.reference(inputs, op, root, 0)
                    for r in range(p):
                        np.testing.assert_array_equal(
                            got[r], want[r], err_msg=f"P={p} S={servers} root={root} {op} rank {r}"
                        )


@pytest.mark.parametrize("p", range(2, 9))
def test_each_servers_link_carries_p_minus_s_times_n_over_s_each_way(p):
    item = 4
    for servers in range(1, p):
        shard = 3  # elements: the model has N = S·3·4 bytes
        n = servers * shard * item
        schedule = build(PS, ps.NAME, p, p - 1, 2, servers)
        moved = traffic(schedule, shard, item)
        hosts = get(PS, servers).server_ranks(p, p - 1)
        want = ps.formula(n, p, servers)
        assert want["value"] == (p - servers) * n // servers
        assert want["formula"] == ("(P-1)·N" if servers == 1 else "(P-S)·N/S")
        for r in range(p):
            expected = want["value"] if r in hosts else n  # a worker pulls and pushes the model once
            assert moved.sent[r] == moved.received[r] == expected, (p, servers, r)
        assert (
            ps.measured_by_servers(
                hosts, dict(enumerate(moved.sent.tolist())), dict(enumerate(moved.received.tolist()))
            )
            == want["value"]
        )
        workers = get(PS, servers).workers(p, p - 1)
        both_ways = {(s, w) for s in hosts for w in workers} | {(w, s) for s in hosts for w in workers}
        # every worker talks to every shard, once each way
        assert moved.links == dict.fromkeys(both_ways, shard * item)


def test_the_chapters_formulas_side_by_side():
    n, p = 1200, 4
    beside = ps.formulas_beside(n, p, 3)
    assert beside[ps.NAME]["value"] == 400  # (4-3)·1200/3
    assert ps.formulas_beside(n, p, 1)[ps.NAME]["value"] == 3600  # (4-1)·1200
    assert beside["ring"]["value"] == 2 * (n // p) * (p - 1) == 1800
    assert beside["master_worker"]["value"] == (p - 1) * n
    assert beside["tree"]["value"] == formulas.evaluate("all_reduce", "tree", n, p)["value"]
    assert ps.formula(1000, 4, 3) is None  # an uneven split has no exact value


def test_bad_servers_are_refused_naming_the_field():
    cases = [
        ({"servers": 0}, "servers", "at least 1"),
        ({"servers": 4}, "servers", "leave no workers"),
        ({"servers": 7}, "servers", "leave no workers"),
        ({"servers": 3, "count": 16}, "count", "multiple of 3"),
        ({"servers": 2, "op": "AVG", "dtype": "float32"}, "op", "AVG"),
    ]
    for fields, field, words in cases:
        with pytest.raises(SpecError) as info:
            validate(RunSpec(collective=PS, algorithm=ps.NAME, **fields), 4, "gloo")
        assert info.value.field == field and words in info.value.message, fields
    with pytest.raises(SpecError) as info:
        validate(RunSpec(collective="all_reduce", servers=2), 4, "gloo")
    assert info.value.field == "servers" and "takes none" in info.value.message
    with pytest.raises(SpecError) as info:
        validate(RunSpec(collective=PS, group=[2], root=2), 4, "gloo")
    assert info.value.field == "group"
    validate(RunSpec(collective=PS, algorithm=ps.NAME, servers=3, count=12), 4, "gloo")


def test_the_catalog_says_which_collective_takes_servers():
    entries = {e["name"]: e for e in catalog("gloo", 4)["collectives"]}
    assert entries[PS]["servers"] is True and ps.NAME in entries[PS]["algorithms"]
    assert not any(e["servers"] for name, e in entries.items() if name != PS)


def test_the_layout_names_the_servers_in_global_ranks():
    spec = RunSpec(collective=PS, algorithm=ps.NAME, servers=2, count=4, group=[1, 3, 5, 6], root=5)
    assert layout_of(spec, 8) == {"shape": "servers", "root": 5, "servers": [5, 6]}
    native = RunSpec(collective=PS, servers=3, count=6, root=2)
    assert layout_of(native, 4) == {"shape": "servers", "root": 2, "servers": [2, 3, 0]}


# --- on real gloo ranks ------------------------------------------------------

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


# --- through a real server ---------------------------------------------------


pytestmark = pytest.mark.cluster(ranks=P, env={"RINGSIDE_WORKER_TOKEN": WORKER_TOKEN})


def test_a_bad_s_gets_a_422_naming_the_field_and_nothing_runs(up):
    _, before = up.call("GET", "/api/runs")
    for body, field in [
        ({"servers": 0}, "servers"),
        ({"servers": P}, "servers"),
        ({"servers": -1}, "servers"),
        ({"servers": 3, "count": 8}, "count"),
    ]:
        status, answer = up.call("POST", "/api/runs", {"collective": PS, "algorithm": ps.NAME, **body})
        assert status == 422 and answer["detail"]["field"] == field, (body, answer)
    status, answer = up.call("POST", "/api/runs", {"collective": "broadcast", "servers": 1})
    assert status == 422 and answer["detail"]["field"] == "servers"
    assert up.call("GET", "/api/runs")[1]["total"] == before["total"]


def test_a_served_run_shows_its_servers_and_its_bytes(up):
    run = up.run(collective=PS, algorithm=ps.NAME, servers=2, root=1, count=8, dtype="int32", capture="full")
    assert run["state"] == "done" and run["verified"] is True, run["error"]
    assert run["layout"] == {"shape": "servers", "root": 1, "servers": [1, 2]}
    assert [s["phase"] for s in run["steps"]] == ["pull", "push"]
    n = 8 * 4
    # simulated = counted
    assert run["traffic"]["sent"] == {r: x["bytes_sent"] for r, x in run["results"].items()}
    assert run["traffic"]["sent"]["1"] == run["traffic"]["received"]["2"] == ps.formula(n, P, 2)["value"]
    assert run["results"]["0"]["output"] and run["results"]["3"]["bytes_sent"] == n
    shown = run["display"]["formula"]  # what the stage writes beside the measurement
    assert shown["formula"] == "(P-S)·N/S" and shown["value"] == shown["measured"] == (P - 2) * n // 2
    native = up.run(collective=PS, servers=3, count=6, dtype="int32")
    assert native["state"] == "done" and native["layout"]["servers"] == [0, 1, 2], native["error"]


def test_the_page_draws_the_servers_above_their_workers_with_the_runs_values(up, page_for):
    """The page knows no collective: it places the cards by the run's layout and shows, after
    the pull, every worker holding each server's shard."""
    pytest.importorskip("playwright.sync_api")
    run = up.run(
        collective=PS,
        algorithm=ps.NAME,
        servers=2,
        root=1,
        count=8,
        dtype="int32",
        pattern="rank",
        capture="full",
    )
    page = page_for(f"{up.url}/?run={run['id']}&step=0")
    page.wait_for_function(
        f"() => window.ringside.player.run?.id === '{run['id']}' && window.ringside.player.step === 0"
    )
    servers, workers = ["1", "2"], ["0", "3"]
    page.wait_for_function(
        "() => document.querySelector('#stage g.card[data-rank]')?.getBoundingClientRect().height > 0"
    )
    tops = dict(
        page.eval_on_selector_all(
            "#stage svg g.card[data-rank]",
            "cards => cards.map(c => [c.dataset.rank, c.getBoundingClientRect().top])",
        )
    )
    assert max(tops[r] for r in servers) < min(tops[r] for r in workers), tops
    cells = page.eval_on_selector_all(
        "#stage svg g.cell[data-rank][data-chunk]",
        "cells => cells.map(c => [c.dataset.rank, +c.dataset.chunk, c.dataset.values])",
    )
    held = {(rank, chunk): json.loads(values) for rank, chunk, values in cells if values}
    for w in workers:  # shard j came from server j: group rank 1 (values 2) and 2 (values 3)
        assert held[w, 0] == [2] * 4 and held[w, 1] == [3] * 4, held


def test_the_compare_view_sets_the_servers_bytes_beside_the_all_reduces(up, page_for):
    """The chapter's table: for a parameter-server run on stage, its formula and measured bytes
    beside ring's, tree's and master-worker's all_reduce at the same N and P, each equal."""
    run = up.run(collective=PS, algorithm=ps.NAME, servers=1, count=12, dtype="float32")
    for algorithm in ps.BESIDE:
        assert (
            up.run(collective="all_reduce", algorithm=algorithm, count=12, dtype="float32")["state"] == "done"
        )
    expect = pytest.importorskip("playwright.sync_api").expect
    page = page_for(f"{up.url}/?run={run['id']}&step=0")
    page.wait_for_function(f"() => window.ringside.player.run?.id === '{run['id']}'")
    page.keyboard.press("c")
    page.wait_for_selector("#beside tr:nth-child(5)")
    rows = page.eval_on_selector_all(
        "#beside tr", "rows => rows.map(r => [...r.cells].map(c => c.textContent))"
    )
    n = 12 * 4
    want = {
        "parameter server (S=1)": (P - 1) * n,
        "ring": 2 * n * (P - 1) // P,
        "tree": 2 * 2 * n,
        "master_worker": (P - 1) * n,
    }
    got = {r[0]: r for r in rows[1:]}
    assert set(got) == set(want)
    for label, value in want.items():
        assert got[label][3] == f"{value} B" and got[label][4] == f"{value} B ✓", got[label]
    expect(page.locator("#beside")).to_be_visible()
    expect(page.locator("#compare")).to_be_visible()
    # a model of 2 elements cannot be cut into a ring's 4 chunks: the row says why and offers no run
    small = up.run(collective=PS, algorithm=ps.NAME, servers=1, count=2, dtype="float32")
    rows = {r["algorithm"]: r for r in up.call("GET", f"/api/compare/beside?run={small['id']}")[1]["rows"]}
    assert (
        rows["ring"]["spec"] is None
        and "count=2" in rows["ring"]["why"]
        and rows["ring"].get("formula") is None
    )
    assert rows["master_worker"]["spec"]["count"] == 2 and rows["master_worker"]["why"] is None
