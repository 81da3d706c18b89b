"""The collective descriptors: one place says what each collective is, and every
layer asks it. Their definitions agree with the schedules, their op rules refuse
what they would not apply, and the run's shape (plan, chunks, layout) comes from them."""

from __future__ import annotations

import numpy as np
import pytest

from ringside.worker_agent.core.algorithms import NATIVE, algorithms, build
from ringside.worker_agent.core.catalog import catalog
from ringside.worker_agent.core.collectives import COLLECTIVES, get
from ringside.worker_agent.core.inputs import numpy_input
from ringside.worker_agent.core.protocol import RunSpec
from ringside.worker_agent.core.run_shape import chunk_bounds, input_chunks, layout_of, plan
from ringside.worker_agent.core.schedule import LAYOUTS
from ringside.worker_agent.core.validation import SpecError, validate

MOVING = [name for name, c in COLLECTIVES.items() if not c.reduces]


def test_every_collective_is_described_once_and_listed_in_the_catalog():
    entries = catalog("gloo", 4)["collectives"]
    assert [e["name"] for e in entries] == list(COLLECTIVES)
    for e in entries:
        c = get(e["name"])
        assert (e["reduces"], e["rooted"], e["peer"]) == (c.reduces, c.rooted, c.has_peer)
    with pytest.raises(ValueError, match="unknown collective 'all_shuffle'"):
        get("all_shuffle")


@pytest.mark.parametrize("name", MOVING)
def test_an_op_on_a_collective_that_does_not_reduce_is_refused(name):
    """It would not be applied (or, before, was applied to data that is only moved)."""
    for dtype in ("float32", "int64", "int32"):
        with pytest.raises(SpecError) as info:
            validate(RunSpec(collective=name, op="AVG", dtype=dtype), 4, "gloo")
        assert info.value.field == "op" and "does not reduce" in info.value.message
    validate(RunSpec(collective=name, dtype="int32"), 4, "gloo")  # the default op is fine


@pytest.mark.parametrize("name", list(COLLECTIVES))
def test_buffer_layout_covers_inputs_and_outputs(name):
    c = get(name)
    for p in (1, 2, 5):
        for r in range(p):
            for blocks in (c.input_blocks(r, p, 0), c.output_blocks(r, p, 0, 1 % p)):
                assert blocks.start >= 0 and blocks.stop <= c.blocks(p)
        assert c.message_bytes(3, 4, p) == 3 * 4 * c.message_blocks(p)


def test_effective_values_are_the_descriptors():
    barrier = RunSpec(collective="barrier", count=99, dtype="float32")
    c = get("barrier")
    assert (c.op(barrier), c.dtype(barrier), c.count(barrier)) == ("BOR", "int64", 1)
    assert numpy_input(barrier, 2, 4).tolist() == [4]  # rank 2's bit
    assert get("all_reduce").op(RunSpec(collective="all_reduce", op="MAX")) == "MAX"
    assert get("all_gather").op(RunSpec(collective="all_gather")) is None


@pytest.mark.parametrize("collective,algorithm", [(a.collective, a.name) for a in algorithms() if a.built])
def test_every_schedule_names_a_layout_the_browser_draws(collective, algorithm):
    spec = RunSpec(collective=collective, algorithm=algorithm, count=64, root=1)
    layout = layout_of(spec, 4)
    assert layout["shape"] in LAYOUTS and layout["shape"] == build(collective, algorithm, 4, 1, 1).layout
    assert layout["root"] in (None, 1)
    assert layout["root"] == 1 if get(collective).rooted else True


def test_layout_of_native_runs_and_unrooted_rings():
    assert layout_of(RunSpec(collective="all_reduce"), 4) == {"shape": "ring", "root": None, "servers": []}
    assert layout_of(RunSpec(collective="all_reduce", algorithm="tree", root=2), 4)["root"] == 2
    assert layout_of(RunSpec(collective="broadcast", root=3), 4)["root"] == 3


def test_the_plan_is_in_global_ranks_and_its_chunks_tile_the_buffer():
    spec = RunSpec(collective="send_recv", algorithm="direct", group=[1, 2, 3], root=3, peer=1, count=6)
    doc = plan(spec, 4)
    assert doc.steps[0].transfers == [(3, 1, 0, 0, 0)] and doc.layout == "star"
    assert plan(RunSpec(collective="all_reduce"), 4) is None
    spec = RunSpec(collective="all_gather", algorithm="ring", count=5, chunks=2)
    bounds = chunk_bounds(spec, 4)
    assert (
        bounds[0][0] == 0 and bounds[-1][1] == 4 * 5 and all(a[1] == b[0] for a, b in zip(bounds, bounds[1:]))
    )
    chunks = input_chunks(spec, 4)
    assert chunks == {r: [2 * r, 2 * r + 1] for r in range(4)}
    native = RunSpec(collective="scatter", algorithm=NATIVE, count=3, root=2)
    assert chunk_bounds(native, 4) == [(0, 3), (3, 6), (6, 9), (9, 12)]
    assert input_chunks(native, 4) == {0: [], 1: [], 2: [0, 1, 2, 3], 3: []}


@pytest.mark.parametrize("name", list(COLLECTIVES))
def test_the_reference_is_the_definition_on_known_values(name):
    """Hand-checked outputs for P=3, one element per block, inputs 1, 2, 3 (or blocks 10r+b)."""
    c, p = get(name), 3
    inputs = [np.arange(len(c.input_blocks(r, p, 0)), dtype=np.int64) + 10 * r + 1 for r in range(p)]
    out = c.reference(inputs, "SUM" if c.reduces else None, 0, 1)
    want = {
        "broadcast": [[1], [1], [1]],
        "scatter": [[1], [2], [3]],
        "gather": [[1, 11, 21], None, None],
        "reduce": [[33], None, None],
        "all_reduce": [[33], [33], [33]],
        "all_gather": [[1, 11, 21]] * 3,
        "reduce_scatter": [[1 + 11 + 21], [2 + 12 + 22], [3 + 13 + 23]],
        "all_to_all": [[1, 11, 21], [2, 12, 22], [3, 13, 23]],
        "barrier": [[1 | 11 | 21]] * 3,  # its own op, BOR, whatever the run asked
        "send_recv": [None, [1], None],
        # one server, rank 0: the workers pull, then push into it
        "parameter_server": [[1 + 11 + 21], [1], [1]],
    }[name]
    assert [None if o is None else o.tolist() for o in out] == want
