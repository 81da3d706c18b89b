"""The stage's data from the server, without ranks: every traffic formula against the bytes its
schedule moves (simulated) for many world sizes, and what the stage is told about outputs,
a buffer's halves and AVG's division."""

from __future__ import annotations

import pytest

from ringside.server.runs import stage_data
from ringside.worker_agent.core import simulate
from ringside.worker_agent.core.algorithms import algorithms, build
from ringside.worker_agent.core.algorithms.formulas import evaluate, measured
from ringside.worker_agent.core.protocol import RunSpec

ITEM = 4


WITH_FORMULAS = sorted((a.collective, a.name) for a in algorithms() if a.formula)


@pytest.mark.parametrize("collective, algorithm", WITH_FORMULAS)
@pytest.mark.parametrize("p", [2, 3, 4, 5, 8, 16])
def test_each_formula_equals_what_its_schedule_moves(collective, algorithm, p):
    count, root = 12 * 16, p // 3  # splits evenly into every schedule's pieces
    schedule = build(collective, algorithm, p, root)
    f = evaluate(collective, algorithm, count * ITEM, p, schedule.pieces, elements=count)
    if f is None:  # no closed form for this shape (a butterfly beyond powers of two)
        assert p & (p - 1), f"{collective} {algorithm} has a formula at every power of two"
        return
    t = simulate.traffic(schedule, count, ITEM)
    plan = schedule.to_json()
    chunk_bytes = [(b - a) * ITEM for a, b in schedule.chunk_bounds(count)]
    got = measured(
        f["measure"],
        dict(enumerate(t.sent.tolist())),
        dict(enumerate(t.received.tolist())),
        root,
        [s["transfers"] for s in plan["steps"]],
        chunk_bytes,
    )
    assert got == f["value"], f"{collective} {algorithm} P={p}: {f['formula']} = {f['value']}, moved {got}"


def test_no_formula_where_pieces_are_pipelined_or_none_is_known():
    assert evaluate("all_reduce", "tree", 8 * ITEM, 4, pieces=2) is None, (
        "a pipelined tree has no one-piece critical path"
    )
    assert evaluate("barrier", "dissemination", 8, 4) is None
    assert evaluate("all_reduce", "ring", 10 * ITEM, 4, elements=10) is None, (
        "N/P of an uneven split is no exact closed form"
    )
    assert evaluate("all_reduce", "ring", 12 * ITEM, 4, elements=12)["value"] == 2 * 3 * 3 * ITEM


def test_the_stage_is_told_outputs_halves_and_the_division():
    a2a = stage_data.display(
        RunSpec(collective="all_to_all", algorithm="pairwise", count=2, group=[0, 2, 3]), 4
    ).model_dump()
    assert a2a["regions"] == [
        {"label": "input", "chunks": [0, 1, 2]},
        {"label": "output", "chunks": [3, 4, 5]},
    ]
    assert a2a["output_chunks"] == {"0": [3, 4, 5], "2": [3, 4, 5], "3": [3, 4, 5]} and a2a["divisor"] is None
    rs = stage_data.display(
        RunSpec(collective="reduce_scatter", algorithm="ring", count=2, chunks=2), 4
    ).model_dump()
    assert rs["output_chunks"]["2"] == [4, 5] and rs["regions"] == []
    avg = stage_data.display(
        RunSpec(collective="all_reduce", algorithm="ring", count=8, op="AVG", dtype="float32"), 4
    ).model_dump()
    assert avg["divisor"] == 4 and avg["itemsize"] == 4 and avg["formula"]["value"] == 48
    gather = stage_data.display(
        RunSpec(collective="gather", algorithm="flat", count=2, root=1), 4
    ).model_dump()
    assert gather["output_chunks"] == {"0": [], "1": [0, 1, 2, 3], "2": [], "3": []}
    native = stage_data.display(RunSpec(collective="all_reduce", algorithm="native", count=8), 4).model_dump()
    assert native["formula"] is None


def test_a_run_that_not_every_rank_finished_measures_nothing():
    data = stage_data.display(RunSpec(collective="all_reduce", algorithm="ring", count=8), 4)
    plan = build("all_reduce", "ring", 4).to_json()
    bounds = build("all_reduce", "ring", 4).chunk_bounds(8)
    steps = [s["transfers"] for s in plan["steps"]]
    assert stage_data.measure(data, 0, steps, bounds, {0: 48, 1: 48}, {0: 48, 1: 48}).formula.measured is None
    whole = stage_data.measure(
        data, 0, steps, bounds, dict.fromkeys(range(4), 48), dict.fromkeys(range(4), 48)
    )
    assert whole.formula.measured == 48
