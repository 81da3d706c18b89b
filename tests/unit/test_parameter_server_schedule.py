"""The parameter server, pure: S of the group's ranks hold the weights in shards, the others pull
them and push their gradients back. Its schedule equals its definition in simulation for every S
and P; the bytes each server's link carries equal the chapter's formula, counted by the simulator;
bad S is refused naming the field; the catalog and the layout name the servers. On real ranks:
tests/ranks/test_parameter_server_ranks.py."""

from __future__ import annotations

import numpy as np
import pytest

from ringside.worker_agent.core.algorithms import build, formulas
from ringside.worker_agent.core.algorithms import parameter_server as ps
from ringside.worker_agent.core.catalog import catalog
from ringside.worker_agent.core.collectives import get
from ringside.worker_agent.core.protocol import RunSpec
from ringside.worker_agent.core.provenance import check_definition
from ringside.worker_agent.core.run_shape import layout_of
from ringside.worker_agent.core.simulate import simulate, traffic
from ringside.worker_agent.core.validation import SpecError, validate

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
