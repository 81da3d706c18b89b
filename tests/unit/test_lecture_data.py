"""The lecture preset's data: one digit a block (the `digits` input pattern), and the chunk
counts the catalog gives so that the page can put one value in every chunk."""

from __future__ import annotations

import numpy as np
import pytest

from ringside.worker_agent.core.catalog import catalog
from ringside.worker_agent.core.collectives import get
from ringside.worker_agent.core.inputs import numpy_input
from ringside.worker_agent.core.protocol import RunSpec
from ringside.worker_agent.core.run_shape import chunk_bounds
from ringside.worker_agent.core.validation import validate

P = 4


def inputs(collective: str, count: int = 1, **fields) -> list[list[int]]:
    spec = RunSpec(collective=collective, count=count, pattern="digits", dtype="int32", **fields)
    return [numpy_input(spec, r, P).tolist() for r in range(P)]


def test_a_rank_with_one_block_holds_its_rank_plus_one():
    for collective in ("all_reduce", "reduce", "gather", "all_gather"):
        assert inputs(collective, count=2) == [[r + 1, r + 1] for r in range(P)], collective


def test_a_rank_with_several_blocks_numbers_them_with_one_digit_each():
    assert inputs("scatter")[0] == [1, 2, 3, 4], "the root's blocks: which goes where reads at a glance"
    assert inputs("scatter", root=1)[1] == [5, 6, 7, 8]
    rows = inputs("all_to_all")
    assert all(len(set(row)) == P for row in rows), "a rank's blocks differ"
    assert all(1 <= x <= 9 for row in rows for x in row)
    transposed = [[rows[src][dst] for src in range(P)] for dst in range(P)]
    assert transposed != rows, "all_to_all's output differs from its input"


@pytest.mark.parametrize("entry", catalog("gloo", P)["collectives"], ids=lambda e: e["name"])
def test_the_catalogs_pieces_put_one_value_in_every_chunk(entry):
    """What the page's lecture preset submits (count = the algorithm's pieces) is valid and
    leaves exactly one element in every chunk."""
    assert entry["pieces"] and set(entry["pieces"]) <= set(entry["algorithms"]) - {"native"}
    for algorithm, pieces in entry["pieces"].items():
        spec = RunSpec(
            collective=entry["name"],
            algorithm=algorithm,
            count=pieces,
            pattern="digits",
            capture="full",
            dtype="int32",
        )
        validate(spec, P, "gloo")
        assert {b - a for a, b in chunk_bounds(spec, P)} == {1}, (entry["name"], algorithm)


def test_the_catalog_leaves_pieces_out_beyond_a_lectures_world():
    assert all(e["pieces"] == {} for e in catalog("gloo", 1000)["collectives"])


def seed(collective: str, pattern: str, **fields) -> tuple[list, list]:
    """Each rank's input in the seed's own pattern, and what the collective makes of them."""
    spec = RunSpec(collective=collective, count=1, pattern=pattern, dtype="int64", **fields)
    given = [numpy_input(spec, r, P) for r in range(P)]
    return [g.tolist() for g in given], [o.tolist() for o in get(collective).reference(given, "SUM", 0, 1)]


def test_the_seeds_own_inputs_give_the_seeds_own_answers():
    given, summed = seed("all_reduce", "own_rank")
    assert given == [[0], [1], [2], [3]] and summed == [[6]] * P, (
        "torch.ones(1) * rank, summed: 6 on every rank"
    )
    given, scattered = seed("reduce_scatter", "powers")
    assert given[2] == [2, 20, 200, 2000], "torch.tensor([1, 10, 100, 1000]) * rank on rank 2"
    assert scattered == [[6], [60], [600], [6000]], "the seed's reduce_scatter: rank 0: 6, rank 1: 60, ..."
    spec = RunSpec(collective="all_reduce", count=4, pattern="powers", dtype="int64")
    given = [numpy_input(spec, r, P).tolist() for r in range(P)]
    assert given[2] == [2, 20, 200, 2000], "all_reduce's one block holds the seed's tensor too"
    assert get("all_reduce").reference([np.array(g) for g in given], "SUM", 0, 4)[0].tolist() == [
        6,
        60,
        600,
        6000,
    ]
